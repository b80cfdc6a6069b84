import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { Check } from "./context.js";
import { edgesOf } from "./context.js";

/**
 * `_continue` is valid only inside the body of an iterating step (it ends the
 * iteration); `return` only inside a body (it leaves it successfully). DESIGN.md,
 * Reserved targets; the Go tool's `_continue` rule.
 */
export const checkReservedTargets: Check = {
  name: "reserved-targets",
  run({ resolution }) {
    const out: Diagnostic[] = [];
    for (const s of resolution.scopes) {
      const refs = edgesOf(s.workflow).map((e) => ({ ref: e.to, from: e.from }));
      const init = s.workflow.header?.initialState;
      if (init) refs.push({ ref: init, from: "initial_state" });
      for (const { ref, from } of refs) {
        if (ref.name === "_continue" && !s.iterating) {
          out.push(
            diag("continue_outside_iteration", ref.range, `"${from}": _continue is only valid inside the workflow body of an iterating step`, {
              hint: s.parent ? `the enclosing step "${s.owner?.name}" does not iterate; use "return" to leave the body` : "at the top level, name the next step or state",
            }),
          );
        } else if (ref.name === "return" && !s.parent) {
          out.push(diag("return_outside_body", ref.range, `"${from}": return is only valid inside a workflow body`, { hint: "at the top level, go to a terminal state" }));
        }
      }
    }
    return out;
  },
};
