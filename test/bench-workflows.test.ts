/**
 * The benchmarks' own workflows compile without errors (found by measuring: the channels
 * bench stopped at "does not compile" for a session after a new check, and nothing said
 * so, because `npm run bench` is not part of the suite). The figures are not asserted
 * here (bench/ measures them); only that each bench can start.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentPingPong, exchange, pingPong } from "../bench/channels.js";
import { moduleTree } from "../bench/composition.js";
import { chain, realistic } from "../bench/generate.js";
import { GATE, noopChain, SLOW } from "../bench/workers.js";
import { compile } from "../compiler/index.js";
import { temp } from "./pipeline/helpers.js";

/** The error diagnostics of `text` compiled as main.hcl in `dir` (a fresh one by default). */
async function errors(text: string | ((dir: string) => string), dir = temp("criteria-bench-wf-")): Promise<string[]> {
  writeFileSync(join(dir, "main.hcl"), typeof text === "string" ? text : text(dir));
  const c = await compile(join(dir, "main.hcl"));
  return c.diagnostics.filter((d) => d.severity === "error").map((d) => `${d.range.start.line}:${d.range.start.column} ${d.code}: ${d.message}`);
}

describe("the benchmarks' workflows compile", () => {
  it("channels: the exchange, the ping-pong, the agents' ping-pong", async () => {
    expect(await errors(exchange(3))).toEqual([]);
    expect(await errors(pingPong(2))).toEqual([]);
    expect(await errors((dir) => agentPingPong(2, dir))).toEqual([]);
  });

  it("workers: the noop chain, the slow step, the signal gate", async () => {
    for (const text of [noopChain(3), SLOW, GATE]) expect(await errors(text)).toEqual([]);
  });

  it("compile and scaling: generated workflows in both dialects, a module tree", async () => {
    expect(await errors(chain("hcl", 5))).toEqual([]);
    expect(await errors(realistic("hcl", 1))).toEqual([]);
    const dir = temp("criteria-bench-tree-");
    const entry = moduleTree(dir, 4);
    const c = await compile(entry, { root: dir }); // its modules are siblings of the entry's directory
    expect(c.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  });
});
