import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { Check } from "./context.js";

/**
 * States end runs: a state that is not `terminal` would strand a run (there are no
 * transitions out of states). `success = false` without `terminal` is the usual slip.
 * A `terminal` that is no bool has its own error and draws no second one (found by a
 * new-user trial: `terminal = "yes"` gave two).
 */
export const checkStates: Check = {
  name: "states",
  run({ resolution }) {
    const out: Diagnostic[] = [];
    for (const s of resolution.scopes) {
      for (const st of s.workflow.states) {
        if (!st.terminal && !st.terminalInvalid) {
          out.push(
            diag("dead_end", st.nameRange, `state "${st.name}" is not terminal: a run that reaches it could not go on`, {
              hint: "set terminal = true (states end runs); to do work, make it a step",
            }),
          );
        }
      }
    }
    return out;
  },
};
