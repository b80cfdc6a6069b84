/**
 * Issue #7, YAML (each a small input): merge keys are applied; a problem inside an
 * anchored node is reported once, at the anchor; a number written otherwise than it
 * reads back keeps its text where text is wanted, with a warning (never 1.10 → 1.1);
 * integers beyond 2^53 are refused with a position (YAML, JSON, --var, --input), never
 * rounded.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compile } from "../../compiler/index.js";
import { cli, temp } from "./helpers.js";

async function compileText(name: string, text: string) {
  const dir = temp();
  writeFileSync(join(dir, name), text);
  return compile(join(dir, name), { cwd: dir });
}

const codes = (c: Awaited<ReturnType<typeof compile>>) => c.diagnostics.map((d) => `${d.severity} ${d.code}@${d.range.start.line}:${d.range.start.column}`);

describe("YAML values", () => {
  it("merge keys (<<) are applied: several in one mapping, explicit keys override", async () => {
    // Anchors live under a key the schema takes (locals: any values).
    const c = await compileText(
      "w.yaml",
      `workflow: { name: m, initial_state: a, target_state: done }
adapters: { shell.default: {} }
locals:
  shell: &shell { target: adapter.shell.default, timeout: 30s }
  routes: &routes { outcomes: { success: b, failure: done } }
steps:
  a:
    <<: [*shell, *routes]
    input: { command: "true" }
  b:
    <<: *shell
    timeout: 5m
    input: { command: "true" }
    outcomes: { success: done }
states: { done: { terminal: true } }
`,
    );
    expect(c.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const steps = c.graph!.steps;
    expect(steps.find((s) => s.name === "a")).toMatchObject({ target: { kind: "adapter", id: "shell.default" }, timeout_ms: 30_000, outcomes: [{ name: "success", next: "b" }, { name: "failure", next: "done" }] });
    expect(steps.find((s) => s.name === "b")).toMatchObject({ timeout_ms: 300_000, outcomes: [{ name: "success", next: "done" }] });
  });

  it("a problem inside an anchored node is reported once, at the anchor, not at each alias", async () => {
    const c = await compileText(
      "w.yaml",
      `workflow: { name: m, initial_state: a, target_state: done }
adapters: { shell.default: {} }
locals:
  bad: &bad { target: adapter.shell.default, timeoutt: 30s, outcomes: { success: done } }
steps:
  a: *bad
  b: *bad
  c: *bad
states: { done: { terminal: true } }
`,
    );
    expect(c.diagnostics.filter((d) => d.code === "unknown_field").map((d) => `${d.range.start.line}:${d.range.start.column}`)).toEqual(["4:46"]);
  });

  it("version: 1.10 keeps its text (\"1.10\", never 1.1) with a warning; so does a list(string) default [3.9, 3.10]", async () => {
    const c = await compileText(
      "w.yaml",
      `workflow: { name: m, version: 1.10, initial_state: a, target_state: done }
variables:
  pythons: { type: "list(string)", default: [3.9, 3.10] }
adapters: { shell.default: {} }
steps:
  a:
    target: adapter.shell.default
    input: { command: "echo \${join(\\" \\", var.pythons)}" }
    outcomes: { success: done }
states: { done: { terminal: true } }
`,
    );
    expect(codes(c)).toEqual(["warning number_as_text@1:31", "warning number_as_text@3:51"]);
    expect(c.graph!.version).toBe("1.10");
    expect(c.graph!.variables[0].default?.value).toEqual([3.9, "3.10"]);
  });

  it("integers beyond 2^53 are refused with a position in YAML and JSON, and as --var and --input", async () => {
    const y = await compileText("w.yaml", `workflow: { name: m, initial_state: a, target_state: done }\nvariables:\n  n: { type: number, default: 111111111111111111 }\nsteps: {}\nstates: { done: { terminal: true } }\n`);
    expect(codes(y)).toContain("error invalid_value@3:31");
    expect(y.diagnostics.find((d) => d.code === "invalid_value")?.message).toBe("111111111111111111 is too large to keep exactly as a number (beyond 2^53)");
    const j = await compileText("w.json", `{"workflow": {"name": "m", "initial_state": "a", "target_state": "done"}, "variables": {"n": {"type": "number", "default": 111111111111111111}}, "states": {"done": {"terminal": true}}}\n`);
    expect(codes(j)).toContain("error invalid_value@1:124");
    const dir = temp();
    writeFileSync(join(dir, "w.hcl"), `workflow {\n  name = "m"\n  initial_state = "a"\n  target_state = "done"\n}\nvariable "n" { type = number }\nadapter "noop" "default" {}\nstep "a" {\n  target = adapter.noop.default\n  input { n = var.n }\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n`);
    const v = cli(["apply", join(dir, "w.hcl"), "--state-dir", join(dir, "s"), "--var", "n=111111111111111111"]);
    expect(v.status).toBe(2);
    expect(v.stderr).toContain("--var n: 111111111111111111 is too large to keep exactly as a number (beyond 2^53)");
    const i = cli(["apply", join(dir, "w.hcl"), "--state-dir", join(dir, "s"), "--input", '{"n": 111111111111111111}']);
    expect(i.status).toBe(2);
    expect(i.stderr).toContain("--input: 111111111111111111 is too large to keep exactly as a number (beyond 2^53)");
  });
});
