/**
 * The parse cache of `validate --watch` (compiler/load/read-module.ts `ParseCache`): a
 * compile that re-uses every file's parse gives exactly what a fresh compile gives, for
 * every example and every invalid case; a changed file is parsed again, the others not.
 */
import { readdirSync, statSync, writeFileSync, mkdtempSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compile } from "../../compiler/index.js";
import type { ParseCache } from "../../compiler/load/read-module.js";

const repo = join(import.meta.dirname, "..", "..");
const cases = [
  ...readdirSync(join(repo, "examples")).map((n) => join(repo, "examples", n)),
  ...readdirSync(join(repo, "testdata", "invalid")).filter((n) => !n.endsWith(".out")).map((n) => join(repo, "testdata", "invalid", n)),
  ...readdirSync(join(repo, "testdata", "projects")).filter((n) => statSync(join(repo, "testdata", "projects", n)).isDirectory()).map((n) => join(repo, "testdata", "projects", n)),
];
const same = (c: Awaited<ReturnType<typeof compile>>) => JSON.stringify({ d: c.diagnostics, g: c.graph, f: c.files });

describe("the parse cache", () => {
  it("a compile from the cache is the same as a fresh one, for every example and invalid case", async () => {
    const cache: ParseCache = new Map();
    for (const p of cases) {
      const fresh = same(await compile(p));
      await compile(p, { parseCache: cache });
      expect(same(await compile(p, { parseCache: cache })), p).toBe(fresh);
    }
    expect(cache.size).toBeGreaterThan(cases.length / 2);
  });

  it("parses again only the file whose text changed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-pcache-"));
    mkdirSync(join(dir, "stage"));
    writeFileSync(join(dir, "main.hcl"), `workflow "m" {\n  version = "1"\n  initial_state = "call"\n  target_state = "done"\n}\nadapter "shell" "default" {}\nsubworkflow "stage" {\n  source = "./stage"\n  adapters = [adapter.shell.default]\n}\nstep "call" {\n  target = subworkflow.stage\n  outcome "success" { next = "done" }\n  outcome "failure" { next = "done" }\n}\nstate "done" { terminal = true }\n`);
    const stage = (cmd: string) => `workflow "s" {\n  version = "1"\n  initial_state = "go"\n  target_state = "ok"\n  expects {\n    adapters = [adapter.shell.default]\n  }\n}\nstep "go" {\n  target = adapter.shell.default\n  input { command = "${cmd}" }\n  outcome "success" { next = "ok" }\n}\nstate "ok" { terminal = true }\n`;
    writeFileSync(join(dir, "stage", "main.hcl"), stage("true"));
    const cache: ParseCache = new Map();
    expect((await compile(join(dir, "main.hcl"), { parseCache: cache })).diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const parts = new Map([...cache].map(([k, v]) => [k, v.part]));
    writeFileSync(join(dir, "stage", "main.hcl"), stage("false").replace('next = "ok"', 'next = "okk"'));
    const again = await compile(join(dir, "main.hcl"), { parseCache: cache });
    expect(again.diagnostics.map((d) => d.code)).toContain("unknown_node");
    for (const [k, v] of cache) expect(v.part === parts.get(k), k).toBe(!k.includes("stage"));
  });
});
