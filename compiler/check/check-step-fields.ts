import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { AGGREGATE_OUTCOMES, iterates, type ExprSource, type StepSpec } from "../decode/spec.js";
import type { Check } from "./context.js";

/** Aggregate outcomes: the iterating step as a whole. */

/** True when an expression reads a key of the step's own result (`step.output.<key>`; an index like `step.output[0]` is fine) (`steps.<self>` is checked where it resolves). */
function readsOwnOutput(e: ExprSource): boolean {
  return /(^|[^\w.])step\.output\.[\p{ID_Start}_]/u.test(e.text);
}

/**
 * Step fields that only make sense on some steps (the upstream spec, "Steps" and
 * "Iteration semantics"; the Go tool refuses each at compile time):
 * - `on_failure` on a step that does not iterate (`count`, `for_each`, `parallel`, `while`);
 * - a lifecycle `close` step with `input` (closing a session runs nothing);
 * - `allow_tools` on a lifecycle step (it runs no agent turn);
 * - `shared_writes` on an aggregate outcome that read the step's own output without a
 *   projection: the output is then the list of items, not one result.
 */
export const checkStepFields: Check = {
  name: "step-fields",
  run({ resolution }) {
    const out: Diagnostic[] = [];
    for (const s of resolution.scopes) {
      for (const st of s.workflow.steps) {
        if (st.onFailure !== undefined && !iterates(st)) {
          out.push(diag("on_failure_not_iterating", st.fieldRanges?.on_failure ?? st.nameRange, `step "${st.name}" does not iterate, so "on_failure" has nothing to decide`, { hint: "on_failure applies to count, for_each, parallel and while steps; route a failure with outcome \"failure\" { next = \"...\" }" }));
        }
        if (st.lifecycle === "close" && (st.input !== undefined || st.inputExpr !== undefined)) {
          out.push(diag("lifecycle_input", st.fieldRanges?.input ?? st.nameRange, `step "${st.name}" closes a session (lifecycle "close"): it takes no input`, { hint: "remove the input block; a close step only ends the session" }));
        }
        if (st.lifecycle !== undefined && st.allowTools !== undefined) {
          out.push(diag("lifecycle_allow_tools", st.fieldRanges?.allow_tools ?? st.nameRange, `step "${st.name}" opens or closes a session (lifecycle "${st.lifecycle}"): it runs no agent turn, so "allow_tools" grants nothing`, { hint: "set allow_tools on the steps that run the agent" }));
        }
        if (iterates(st)) out.push(...aggregateSharedWrites(st));
      }
    }
    return out;
  },
};

function aggregateSharedWrites(st: StepSpec): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const o of st.outcomes) {
    if (!AGGREGATE_OUTCOMES.includes(o.name) || Object.keys(o.output).length > 0 || o.outputExpr) continue;
    for (const [k, e] of Object.entries(o.sharedWrites)) {
      if (!readsOwnOutput(e)) continue;
      out.push(
        diag("shared_writes_aggregate", e.range, `step "${st.name}" outcome "${o.name}": shared_writes "${k}" reads step.output, which after all items is a list, not one result`, {
          hint: `project what to write first, output = { last = step.output[length(step.output) - 1].<key> }, or index the list: step.output[0].<key>`,
        }),
      );
    }
  }
  return out;
}
