/**
 * Hints in the dialect of the file they are about (compiler/diagnostics/dialect-hint.ts):
 * the checks word them in HCL; a YAML or JSON file gets YAML or JSON (found by a new-user
 * trial: a YAML file was told to write `agent "nope" { adapter = "..." }`).
 */
import { describe, expect, it } from "vitest";
import { hintFor } from "../../compiler/diagnostics/dialect-hint.js";

describe("hints in the file's dialect", () => {
  const cases: [string, string, string][] = [
    ['add outcome "success" { next = "..." }', 'add outcomes: { success: { next: "..." } }', 'add "outcomes": { "success": { "next": "..." } }'],
    ['declare one with agent "nope" { adapter = "..." }', 'declare one with agents: { nope: { adapter: "..." } }', 'declare one with "agents": { "nope": { "adapter": "..." } }'],
    ['name the session: adapter "shell" "default" { ... }', "name the session: adapters: { shell.default: { ... } }", 'name the session: "adapters": { "shell.default": { ... } }'],
    ['start the file with workflow { name = "..." initial_state = "..." }', 'start the file with workflow: { name: "...", initial_state: "..." }', 'start the file with "workflow": { "name": "...", "initial_state": "..." }'],
    ["write max_visits = 3, without quotes", "write max_visits: 3, without quotes", 'write "max_visits": 3, without quotes'],
    // An empty block is "{}", not "{  }" (seen in YAML hints: `adapters: { noop.default: {  } }`).
    ['declare it: adapter "noop" "default" { }', "declare it: adapters: { noop.default: {} }", 'declare it: "adapters": { "noop.default": {} }'],
    ["or give it a workflow { } body", "or give it a workflow: {} body", 'or give it a "workflow": {} body'],
    // An elided block of any name (a trial of the Go tool's language: YAML was told "for_each { ... }").
    ['write a list: for_each = ["a", "b"], or a block: for_each { ... }', 'write a list: for_each: ["a", "b"], or a block: for_each: { ... }', 'write a list: "for_each": ["a", "b"], or a block: "for_each": { ... }'],
    // The "declare it" hints (a new-user trial: `local "x" { value: ... }` in YAML, `"type": string` in JSON).
    ['declare it: variable "y" { type = string }', "declare it: variables: { y: { type: string } }", 'declare it: "variables": { "y": { "type": "string" } }'],
    ['declare it: locals { x = "..." }', 'declare it: locals: { x: "..." }', 'declare it: "locals": { "x": "..." }'],
    ['declare it: shared_variable "s" { type = string }', "declare it: shared_variables: { s: { type: string } }", 'declare it: "shared_variables": { "s": { "type": "string" } }'],
    ['declare it: data "internal" "score" { type = string }', "declare it: data: { internal.score: { type: string } }", 'declare it: "data": { "internal.score": { "type": "string" } }'],
    ['declare it: environment "shell" "ci" { variables = { ... } }', "declare it: environments: { shell.ci: { variables: { ... } } }", 'declare it: "environments": { "shell.ci": { "variables": { ... } } }'],
    // Lists of references are lists of strings in JSON (a new-user trial of composition: a JSON module's expects).
    ["add it to the module's expects { adapters = [adapter.shell.default, adapter.noop.default] }", "add it to the module's expects: { adapters: [adapter.shell.default, adapter.noop.default] }", 'add it to the module\'s "expects": { "adapters": ["adapter.shell.default", "adapter.noop.default"] }'],
    ["pass it: agents = [agent.x]", "pass it: agents: [agent.x]", 'pass it: "agents": ["agent.x"]'],
  ];
  it.each(cases)("%s", (hcl, yaml, json) => {
    expect(hintFor("w.yaml", hcl)).toBe(yaml);
    expect(hintFor("w.yml", hcl)).toBe(yaml);
    expect(hintFor("w.json", hcl)).toBe(json);
    expect(hintFor("w.hcl", hcl)).toBe(hcl);
  });

  it("leaves comparisons, flags and hints without HCL alone", () => {
    expect(hintFor("w.yaml", 'when = var.env == "prod"')).toBe('when: var.env == "prod"');
    expect(hintFor("w.yaml", "pass it at run time: CRITERIA_VAR_x=... or --var x=...")).toBe("pass it at run time: CRITERIA_VAR_x=... or --var x=...");
    expect(hintFor("w.yaml", 'did you mean "security"?')).toBe('did you mean "security"?');
  });
});
