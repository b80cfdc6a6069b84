/**
 * A workflow may end through `return` alone (docs/language.md, Outcomes: at the top level it
 * ends the run successfully). Found by a new-user trial: `validate` warned that the
 * `target_state` "done" of such a workflow was unreachable and advised removing it; with the
 * state and `target_state` removed, `no_terminal_state` refused the file. The same held for
 * a flow used as an agent whose steps all `return`.
 */
import { describe, expect, it } from "vitest";
import { codes, compileIn, project } from "../composition/helpers.js";

const header = (target: boolean) => `workflow {
  name          = "ret"
  version       = "1"
  initial_state = "look"
${target ? '  target_state  = "done"\n' : ""}}

adapter "shell" "default" {}
`;
const look = `
step "look" {
  target = adapter.shell.default
  input { command = "echo hi" }
  outcome "success" {
    next   = "return"
    output = { said = trimspace(step.output.stdout) }
  }
}
`;
const done = `
state "done" {
  terminal = true
}
`;

describe("a workflow that ends through return", () => {
  it("with its unreachable target_state: the hint says to remove the state and target_state together", async () => {
    const c = await compileIn(project({ "a.hcl": header(true) + look + done }), "a.hcl");
    expect(c.diagnostics.map((d) => [d.code, d.hint])).toEqual([["unreachable_node", `no outcome leads to it; name it in one (next = "done"), or remove the state and the header's target_state (runs end by next = "return")`]]);
  });

  it("following that hint gives a file with no diagnostics (no no_terminal_state, no missing_target_state)", async () => {
    const c = await compileIn(project({ "b.hcl": header(false) + look }), "b.hcl");
    expect(codes(c)).toEqual([]);
    expect(c.graph).toBeDefined();
  });

  it("a flow used as an agent whose steps all return compiles, and so does its caller", async () => {
    const dir = project({
      "flows/helper.hcl": `workflow {\n  name = "helper"\n  version = "1"\n  initial_state = "look"\n}\nadapter "shell" "default" {}\nstep "look" {\n  target = adapter.shell.default\n  input { command = "echo hi" }\n  outcome "success" { next = "return" }\n  outcome "failure" { next = "return" }\n}\n`,
      "main.hcl": `workflow {\n  name = "main"\n  version = "1"\n  initial_state = "ask"\n  target_state = "done"\n  use = ["./flows/helper.hcl"]\n}\nstep "ask" {\n  target = agent.helper\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n`,
    });
    expect(codes(await compileIn(dir, "flows/helper.hcl"))).toEqual([]);
    expect(codes(await compileIn(dir, "main.hcl"))).toEqual([]);
  });

  it("a workflow with neither a terminal state nor a return is still refused, with a hint naming both ways to end", async () => {
    const stuck = look.replace('next   = "return"', 'next   = "look"');
    const c = await compileIn(project({ "c.hcl": header(false) + stuck }), "c.hcl");
    const d = c.diagnostics.find((x) => x.code === "no_terminal_state");
    expect(d?.hint).toBe('add state "done" { terminal = true } and route an outcome to it, or end the run with next = "return"');
  });

  it("the only terminal state of a workflow without return is not offered for removal; another successful one is named as the new target_state", async () => {
    const to = (next: string) => look.replace('next   = "return"', `next   = "${next}"`);
    const only = await compileIn(project({ "d.hcl": header(true) + to("look") + done }), "d.hcl");
    expect(only.diagnostics.filter((d) => d.code === "unreachable_node").map((d) => d.hint)).toEqual(['no outcome leads to it; name it in one (next = "done")']);
    const two = await compileIn(project({ "e.hcl": header(true) + to("ok") + done + 'state "ok" { terminal = true }\n' }), "e.hcl");
    expect(two.diagnostics.map((d) => [d.code, d.hint])).toEqual([["unreachable_node", 'no outcome leads to it; name it in one (next = "done"), or remove the state and set target_state = "ok"']]);
  });

  it("no_exit at the top level names return as a way out too", async () => {
    const c = await compileIn(project({ "f.hcl": header(true) + look.replace('next   = "return"', 'next   = "look"') + done }), "f.hcl");
    expect(c.diagnostics.filter((d) => d.code === "no_exit").map((d) => [d.message, d.hint])).toEqual([
      ['in the workflow, "look" never reaches a state or return: a run that gets there cannot end', 'route an outcome to a terminal state, or to "return" (which ends the run)'],
    ]);
  });
});
