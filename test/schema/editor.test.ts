/**
 * schema/workflow.schema.json in a real editor's server (the issue "See and edit", item 5):
 * `yaml-language-server` 1.25 over stdio with the schema associated with `*.yaml`, as VS
 * Code's YAML extension runs it. Every YAML example is clean; each broken variant is
 * flagged at the line `criteria validate` gives, with a message a user can act on; hover
 * and completion show the fields' descriptions; every property of the schema has one.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compile } from "../../compiler/index.js";
import { startYamlServer, type YamlServer } from "./yaml-ls.js";

const repo = join(import.meta.dirname, "..", "..");
const schemaFile = join(repo, "schema", "workflow.schema.json");
let server: YamlServer;
beforeAll(async () => {
  server = await startYamlServer(schemaFile, repo);
}, 30_000);
afterAll(() => server?.stop());

/** Every YAML workflow under `dir` (agents' answer scripts aside). */
function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) return n === "scripts" ? [] : yamlFiles(p);
    return /\.ya?ml$/.test(n) ? [p] : [];
  });
}

const GOOD = `workflow:
  name: demo
  version: "1"
  initial_state: build
  target_state: done
adapters:
  shell.default: {}
steps:
  build:
    target: adapter.shell.default
    parallel: ["a", "b"]
    parallel_max: 2
    on_failure: continue
    input:
      command: "echo \${each.value}"
    outcomes:
      all_succeeded: { next: done }
      any_failed: { next: done }
states:
  done: { terminal: true }
`;

/** Broken variants of GOOD: the text, and what the server's message must say. */
const BROKEN: { name: string; text: string; says: RegExp }[] = [
  { name: "a step without any target", text: GOOD.replace("    target: adapter.shell.default\n", ""), says: /Missing property "target"/ },
  { name: "an outcome without next", text: GOOD.replace("any_failed: { next: done }", "any_failed: {}"), says: /Missing property "next"/ },
  { name: "an adapter key without a type", text: GOOD.replace("  shell.default: {}", "  shell: {}"), says: /keys are "<type>\.<name>", e\.g\. "shell\.default"/ },
  { name: "a misspelt field", text: GOOD.replace("    on_failure: continue", "    on_failur: continue"), says: /Property on_failur is not allowed/ },
  { name: "parallel_max below 1", text: GOOD.replace("parallel_max: 2", "parallel_max: 0"), says: /Value is below the minimum of 1/ },
  { name: "an unknown on_failure", text: GOOD.replace("on_failure: continue", "on_failure: stop"), says: /Value is not accepted\. Valid values: "continue", "abort", "ignore"/ },
];

describe("yaml-language-server with the schema", () => {
  const examples = yamlFiles(join(repo, "examples"));
  it("there are YAML examples", () => expect(examples.length).toBeGreaterThan(0));
  for (const f of examples) {
    it(`${f.slice(repo.length + 1)} is clean`, async () => {
      expect(await server.diagnostics(f, readFileSync(f, "utf8"))).toEqual([]);
    });
  }

  it("the unbroken variant is clean, and valid", async () => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-yls-"));
    const file = join(dir, "good.yaml");
    writeFileSync(file, GOOD);
    expect(await server.diagnostics(file, GOOD)).toEqual([]);
    expect((await compile(file)).diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  });

  for (const b of BROKEN) {
    it(`${b.name}: flagged at validate's line`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "criteria-yls-"));
      const file = join(dir, "broken.yaml");
      writeFileSync(file, b.text);
      const errors = (await compile(file)).diagnostics.filter((d) => d.severity === "error");
      expect(errors.length, `validate finds ${b.name}`).toBeGreaterThan(0);
      const shown = await server.diagnostics(file, b.text);
      const hit = shown.filter((d) => b.says.test(d.message));
      expect(hit.length, `the server says ${b.says} (it said ${JSON.stringify(shown.map((d) => d.message))})`).toBeGreaterThan(0);
      // 0-based in LSP, 1-based in criteria: the same line.
      expect(hit.map((d) => d.range.start.line + 1)).toContain(errors[0].range.start.line);
    });
  }

  it("hover and completion show the fields' descriptions", async () => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-yls-"));
    const file = join(dir, "good.yaml");
    await server.diagnostics(file, GOOD);
    const line = GOOD.split("\n").findIndex((l) => l.includes("parallel_max"));
    const hover = await server.hover(file, line, 6);
    expect(JSON.stringify(hover?.contents)).toContain("With parallel: how many items run at once");
    // Completion of a step's fields, on a new line under the step.
    const text = GOOD.replace("    on_failure: continue\n", "    on_failure: continue\n    \n");
    const at = text.split("\n").findIndex((l) => l === "    ");
    await server.diagnostics(file, text);
    const items = await server.completion(file, at, 4);
    const timeout = items.find((i) => i.label === "timeout");
    expect(JSON.stringify(timeout?.documentation ?? "")).toContain("How long one attempt may take");
    const visits = items.find((i) => i.label === "max_visits");
    expect(JSON.stringify(visits)).not.toContain("max_visits: 0");
  });
});

describe("channel steps in the editor (the channels issue, item 1: the schema gets the channel steps)", () => {
  it("hover on a channel step's post and recv shows their fields; the file is clean", async () => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-yls-"));
    const file = join(dir, "panel.yaml");
    const text = `workflow:
  name: panel
  version: "1"
  initial_state: tell
  target_state: done
agents:
  a: { adapter: noop }
  b: { adapter: noop }
channels:
  c: { participants: [agent.a, agent.b] }
steps:
  tell:
    target: channel.c
    input:
      post: { from: a, to: b, body: "hi" }
    outcomes:
      success: { next: hear }
  hear:
    target: channel.c
    input:
      recv: { as: b, from: a, timeout: 1m }
    outcomes:
      received: { next: done }
      timeout: { next: done }
states:
  done: { terminal: true }
`;
    expect(await server.diagnostics(file, text)).toEqual([]);
    const lines = text.split("\n");
    const post = await server.hover(file, lines.findIndex((l) => l.includes("post:")), 7);
    expect(JSON.stringify(post?.contents)).toContain("A channel step's post: ");
    const recv = await server.hover(file, lines.findIndex((l) => l.includes("recv:")), 7);
    expect(JSON.stringify(recv?.contents)).toContain("A channel step's receive: ");
  });
});

describe("the schema's documentation", () => {
  it("every property has a description (its own, or its definition's)", () => {
    const schema = JSON.parse(readFileSync(schemaFile, "utf8")) as Record<string, unknown>;
    const defs = schema.definitions as Record<string, { description?: string }>;
    const missing: string[] = [];
    const walk = (o: unknown, path: string): void => {
      if (Array.isArray(o)) return o.forEach((x, i) => walk(x, `${path}/${i}`));
      if (o === null || typeof o !== "object") return;
      const node = o as Record<string, unknown>;
      if (node.properties && typeof node.properties === "object" && !path.includes("/if") && !path.includes("/then")) {
        for (const [k, v] of Object.entries(node.properties as Record<string, Record<string, unknown> | boolean>)) {
          if (typeof v === "boolean") continue;
          const ref = typeof v.$ref === "string" ? defs[v.$ref.replace("#/definitions/", "")] : undefined;
          if (!v.description && !ref?.description) missing.push(`${path}.${k}`);
        }
      }
      for (const [k, v] of Object.entries(node)) walk(v, `${path}/${k}`);
    };
    walk(schema, "");
    expect(missing).toEqual([]);
  });
});
