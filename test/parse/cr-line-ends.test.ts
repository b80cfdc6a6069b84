/**
 * Lone CR line ends (old Mac files, some editors' setting) in YAML and JSON workflow files:
 * a line break in YAML 1.2 and whitespace in JSON, and so a line break in every position
 * criteria gives (as LSP clients count lines). The yaml package reads a lone CR as text, so
 * a valid .json file was refused with a YAML syntax error (found by a new-user trial).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compile } from "../../compiler/index.js";

async function compiled(name: string, lines: string[]) {
  const file = join(mkdtempSync(join(tmpdir(), "criteria-cr-")), name);
  writeFileSync(file, lines.join("\r") + "\r");
  const c = await compile(file);
  return c.diagnostics.map((d) => `${d.range.start.line}:${d.range.start.column} ${d.severity} ${d.code}`);
}

describe("lone CR line ends", () => {
  it("a valid JSON workflow is valid", async () => {
    const json = [
      "{",
      '  "workflow": { "name": "j", "initial_state": "a", "target_state": "done" },',
      '  "adapters": { "shell.default": {} },',
      '  "steps": { "a": { "target": "adapter.shell.default", "input": { "command": "echo hi" }, "outcomes": { "success": "done" } } },',
      '  "states": { "done": { "terminal": true } }',
      "}",
    ];
    expect(await compiled("w.json", json)).toEqual([]);
  });

  it("a YAML workflow's mistake is said at its line and column", async () => {
    const yaml = ["workflow:", "  name: y", "  initial_state: a", "  target_state: done", "adapters:", "  shell.default: {}", "steps:", "  a:", "    target: adapter.shell.default", '    input: { command: "echo hi" }', "    outcomes: { success: dne }", "states:", "  done: { terminal: true }"];
    expect(await compiled("w.yaml", yaml)).toEqual(["11:26 error unknown_node", "13:3 warning unreachable_node"]);
  });
});
