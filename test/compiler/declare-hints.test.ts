/**
 * A "declare it" hint, pasted into the file it is about, declares the name: in HCL, YAML and
 * JSON (compiler/resolve/check-expression.ts words it in HCL, compiler/diagnostics/dialect-hint.ts
 * puts it in the file's dialect). Found by a new-user trial: HCL was given the older
 * `local "x" { value = ... }`, YAML `local "x" { value: ... }` (HCL and YAML mixed), JSON
 * `"type": string` (no JSON) and `local "zz" { "value": ... }`.
 */
import { describe, expect, it } from "vitest";
import { compileIn, project } from "../composition/helpers.js";

/** The trial's h.hcl, reading a shared variable and a data value too. */
const hcl = `workflow {
  name = "h"
  version = "1"
  initial_state = "b"
  target_state = "done"
}
adapter "shell" "default" {}
step "b" {
  target = adapter.shell.default
  input { command = "echo \${local.x} \${var.y} \${shared.s} \${data.internal.score.value}" }
  outcome "success" { next = state.done }
}
state "done" { terminal = true }
`;

const yaml = `workflow:
  name: h
  version: "1"
  initial_state: b
  target_state: done
adapters:
  shell.default: {}
steps:
  b:
    target: adapter.shell.default
    input:
      command: echo \${var.branch} \${local.x} \${shared.s} \${data.internal.score.value}
    outcomes:
      success: done
states:
  done:
    terminal: true
`;

const json = JSON.stringify({
  workflow: { name: "h", version: "1", initial_state: "b", target_state: "done" },
  adapters: { "shell.default": {} },
  steps: { b: { target: "adapter.shell.default", input: { command: "echo ${var.nope} ${local.zz} ${shared.s} ${data.internal.score.value}" }, outcomes: { success: "done" } } },
  states: { done: { terminal: true } },
});

/** The declarations the file's "declare it" hints give, in order. */
async function declarations(file: string, text: string): Promise<string[]> {
  const c = await compileIn(project({ [file]: text }), file);
  expect(c.diagnostics.every((d) => d.code === "unknown_reference")).toBe(true);
  return c.diagnostics.map((d) => {
    expect(d.hint).toMatch(/^declare it: /);
    return d.hint!.slice("declare it: ".length);
  });
}

/** The errors of a file once compiled. */
async function errors(file: string, text: string): Promise<string[]> {
  const c = await compileIn(project({ [file]: text }), file);
  return c.diagnostics.filter((d) => d.severity === "error").map((d) => `${d.code}: ${d.message} (hint: ${d.hint})`);
}

describe("declare-it hints, pasted, declare the name", () => {
  it("HCL: the canonical locals { x = ... }, each hint a valid block", async () => {
    const got = await declarations("h.hcl", hcl);
    expect(got).toEqual(['locals { x = "..." }', 'variable "y" { type = string }', 'shared_variable "s" { type = string }', 'data "internal" "score" { type = string }']);
    expect(await errors("h.hcl", hcl + got.join("\n") + "\n")).toEqual([]);
  });

  it("YAML: top-level sections in YAML syntax", async () => {
    const got = await declarations("h.yaml", yaml);
    expect(got).toEqual(["variables: { branch: { type: string } }", 'locals: { x: "..." }', "shared_variables: { s: { type: string } }", "data: { internal.score: { type: string } }"]);
    expect(await errors("h.yaml", yaml + got.join("\n") + "\n")).toEqual([]);
  });

  it("JSON: members in JSON syntax (quoted words)", async () => {
    const got = await declarations("h.json", json);
    expect(got).toEqual(['"variables": { "nope": { "type": "string" } }', '"locals": { "zz": "..." }', '"shared_variables": { "s": { "type": "string" } }', '"data": { "internal.score": { "type": "string" } }']);
    const fixed = { ...(JSON.parse(json) as object), ...(JSON.parse(`{ ${got.join(", ")} }`) as object) };
    expect(await errors("h.json", JSON.stringify(fixed))).toEqual([]);
  });
});
