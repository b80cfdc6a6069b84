/**
 * The hint of an unknown `next` offers only nodes of the kind its prefix names
 * (compiler/resolve/resolve-workflow.ts, unknownNodeHint). Found by a new-user trial:
 * `next = state.faild` in a file with steps "execute", "review" and state "done" was told
 * `expected one of "done", "execute", "review"`, though naming a step with `state.` is
 * itself an error.
 */
import { describe, expect, it } from "vitest";
import { compileIn, project } from "../composition/helpers.js";

/** A wait and a switch, for the other prefixes. */
const more = `wait "pause" {
  duration = "1s"
  next     = state.done
}
switch "route" {
  match {
    condition = true
    next      = state.done
  }
  default { next = state.done }
}
`;

/** The trial's file, with the failure outcome's `next` replaced (and a wait and a switch, unless `exact`). */
const e1 = (next: string, exact = false) => `workflow {
  name          = "e1"
  version       = "1"
  initial_state = "execute"
  target_state  = "done"
}
adapter "shell" "default" {}
step "execute" {
  target = adapter.shell.default
  input { command = "echo hi" }
  outcome "success" { next = step.review }
  outcome "failure" { next = ${next} }
}
step "review" {
  target = adapter.shell.default
  input { command = "echo ok" }
  outcome "success" { next = state.done }
}
state "done" {
  terminal = true
}
${exact ? "" : more}`;

async function hint(next: string, exact = false): Promise<string | undefined> {
  const c = await compileIn(project({ "e1.hcl": e1(next, exact) }), "e1.hcl");
  const d = c.diagnostics.filter((x) => x.code === "unknown_node");
  expect(d).toHaveLength(1);
  return d[0].hint;
}

describe("unknown_node hints by kind prefix", () => {
  it("state. lists states only (the trial's case)", async () => {
    expect(await hint("state.faild", true)).toBe('expected one of "done"');
    expect(await hint("state.faild")).toBe('expected one of "done"');
  });

  it("step. lists steps, and switches (step.<switch> is taken, as the Go tool writes it)", async () => {
    expect(await hint("step.zzzzzzz")).toBe('expected one of "review", "route"');
  });

  it("wait., approval. and switch. list their own kind, or say none is declared", async () => {
    expect(await hint("wait.zzzzzzz")).toBe('expected one of "pause"');
    expect(await hint("switch.zzzzzzz")).toBe('expected one of "route"');
    expect(await hint("approval.zzzzzzz")).toBe('no approval is declared here: declare one named "zzzzzzz", or name another node');
  });

  it("a close name of the same kind is a did-you-mean; of another kind, it comes with its own prefix", async () => {
    expect(await hint("state.dne")).toBe('did you mean "done"?');
    expect(await hint("state.reviw")).toBe("did you mean step.review?");
    expect(await hint("step.rout")).toBe('did you mean "route"?');
    expect(await hint("wait.rout")).toBe("did you mean switch.route?");
  });

  it("a plain name is still offered every node but the outcome's own step (a self-loop is no fix)", async () => {
    expect(await hint('"zzzzzzz"')).toBe('expected one of "done", "pause", "review", "route"');
  });

  // Found by a new-user trial: `failure: failed` with no states was told `did you mean "build"?`,
  // the step itself; `initial_state: build` with no steps, `did you mean "failed"?` (a state).
  it("never offers the outcome's own step, nor a far node for a plain name", async () => {
    expect(await hint('"xecute"')).toBe('expected one of "done", "pause", "review", "route"');
    expect(await hint('"dome"')).toBe('did you mean "done"?');
    expect(await hint('"deploy"')).toBe('expected one of "done", "pause", "review", "route"');
  });
});
