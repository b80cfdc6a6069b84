/**
 * Where an expression stands decides what it may read, and names it in every message
 * (compiler/resolve/resolve-workflow.ts, with check-expression.ts): one workflow with an
 * expression in each place one can stand — a variable's default, a local, an environment's
 * variables and config, an adapter's config, an agent's config, a shared variable, a data
 * value, a subworkflow's input, a step's input, an approval's reason, a switch's condition
 * and outputs, an output — read three ways: an unknown variable (each place named), a
 * step's output (refused where nothing has run), a secret variable (refused where it would
 * be recorded in plain; a condition, an adapter's secrets, a secret output and a module's
 * secret variable may read it).
 */
import { describe, expect, it } from "vitest";
import { compileIn, project } from "../composition/helpers.js";

/** Every place an expression may stand; `var.zz` is each place's expression. */
const EVERYWHERE = `workflow "w" {
  version = "1"
  initial_state = "a"
  target_state = "done"
  environment = "shell.ci"
}
variable "tok" {
  type = string
  secret = true
}
variable "v" {
  type = string
  default = var.zz
}
local "l" {
  value = var.zz
}
environment "shell" "ci" {
  variables = { E = var.zz }
  config = { c = var.zz }
}
adapter "shell" "default" {
  config { cwd = var.zz }
  secrets { S = var.tok }
}
agent "ag" {
  adapter = "shell"
  config { cwd = var.zz }
}
shared_variable "sv" {
  type = string
  value = var.zz
}
data "internal" "d" {
  type = string
  value = var.zz
}
subworkflow "child" {
  source = "./child"
  input = { x = var.zz }
}
step "a" {
  target = adapter.shell.default
  input { command = var.zz }
  outcome "success" { next = "ask" }
}
approval "ask" {
  approvers = ["ops"]
  reason = var.zz
  outcome "approved" { next = "route" }
  outcome "rejected" { next = "done" }
}
switch "route" {
  match {
    condition = var.zz == "x"
    next = "call"
    output = { o = var.zz }
  }
  default {
    next = "call"
    output = { o = var.zz }
  }
}
step "call" {
  target = subworkflow.child
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
output "out" { value = var.zz }
`;

/** The module `subworkflow "child"` calls: `secret` marks its variable x secret. */
const child = (secret: boolean) => `workflow "child" {
  version = "1"
  initial_state = "s"
  target_state = "done"
}
${secret ? `variable "x" {\n  type = string\n  secret = true\n}` : `variable "x" { type = string }`}
adapter "noop" "default" {}
step "s" {
  target = adapter.noop.default
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
`;

/** `line:col code: message` of main.hcl's diagnostics, with `var.zz` replaced by `expr` everywhere. */
async function said(expr: string, secretChild = false): Promise<string[]> {
  const dir = project({ "main.hcl": EVERYWHERE.replaceAll("var.zz", expr), "child/main.hcl": child(secretChild) });
  const c = await compileIn(dir, "main.hcl");
  return c.diagnostics.filter((d) => d.severity === "error").map((d) => `${d.range.start.line}:${d.range.start.column} ${d.code}: ${d.message}`);
}

describe("the places an expression stands", () => {
  it("each place is named in its messages", async () => {
    const unknown = (at: string, place: string) => `${at} unknown_reference: ${place}: unknown variable "zz" (in var.zz)`;
    expect(await said("var.zz")).toEqual([
      unknown("13:13", 'variable "v" default'),
      unknown("16:11", 'local "l"'),
      unknown("19:21", 'environment "shell" "ci" variables "E"'),
      unknown("20:18", 'environment "shell" "ci" config "c"'),
      unknown("23:18", 'adapter "shell.default" config "cwd"'),
      unknown("28:18", 'agent "ag" config "cwd"'),
      unknown("32:11", 'shared_variable "sv"'),
      '36:11 invalid_value: data "internal" "d": the initial value must be a literal, not an expression',
      unknown("36:11", 'data "internal" "d"'),
      unknown("40:17", 'subworkflow "child" input "x"'),
      unknown("44:21", 'step "a" input "command"'),
      unknown("49:12", 'approval "ask" reason'),
      unknown("55:17", 'switch "route" match 1'),
      unknown("57:20", 'switch "route" match 1 output "o"'),
      unknown("61:20", 'switch "route" default output "o"'),
      unknown("69:24", 'output "out"'),
    ]);
  });

  it("a step's output is refused where nothing has run yet: defaults, environments, configs, initial values", async () => {
    const early = (at: string, place: string) => `${at} unknown_reference: ${place}: step outputs are not available here (it is evaluated before any step runs)`;
    expect(await said("steps.a.stdout")).toEqual([
      early("13:13", 'variable "v" default'),
      '16:11 local_reads_steps: local "l" reads steps.a.stdout: locals are computed once, before any step runs',
      early("19:21", 'environment "shell" "ci" variables "E"'),
      early("20:18", 'environment "shell" "ci" config "c"'),
      early("23:18", 'adapter "shell.default" config "cwd"'),
      early("28:18", 'agent "ag" config "cwd"'),
      early("32:11", 'shared_variable "sv"'),
      '36:11 invalid_value: data "internal" "d": the initial value must be a literal, not an expression',
      early("36:11", 'data "internal" "d"'),
    ]);
  });

  it("a secret variable is refused wherever it would be recorded or passed in plain; a condition and a module's secret variable may read it", async () => {
    const exposed = (at: string, place: string) => `${at} secret_exposed: ${place}: var.tok is secret, and this value is not (it would be recorded, shown or passed in plain)`;
    const plain = [
      exposed("13:13", 'variable "v" default'),
      exposed("16:11", 'local "l"'),
      exposed("19:21", 'environment "shell" "ci" variables "E"'),
      exposed("20:18", 'environment "shell" "ci" config "c"'),
      exposed("23:18", 'adapter "shell.default" config "cwd"'),
      exposed("28:18", 'agent "ag" config "cwd"'),
      exposed("32:11", 'shared_variable "sv"'),
      '36:11 invalid_value: data "internal" "d": the initial value must be a literal, not an expression',
      exposed("36:11", 'data "internal" "d"'),
      exposed("40:17", 'subworkflow "child" input "x"'),
      exposed("44:21", 'step "a" input "command"'),
      exposed("49:12", 'approval "ask" reason'),
      exposed("57:20", 'switch "route" match 1 output "o"'),
      exposed("61:20", 'switch "route" default output "o"'),
      exposed("69:24", 'output "out"'),
    ];
    expect(await said("var.tok")).toEqual(plain);
    // Bound to the module's secret variable, the subworkflow's input keeps it secret.
    expect(await said("var.tok", true)).toEqual(plain.filter((d) => !d.includes('subworkflow "child" input')));
  });
});
