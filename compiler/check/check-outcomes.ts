import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { suggest } from "../diagnostics/did-you-mean.js";
import { iterates } from "../decode/spec.js";
import type { Check } from "./context.js";

/** Aggregate outcomes of iterating steps (docs/language.md, Iteration). */
export const AGGREGATE_OUTCOMES = ["all_succeeded", "any_failed"];

/**
 * Every step has a way out: at least one outcome; an iterating step (count, for_each,
 * parallel) declares `all_succeeded` (and gets a hint for `any_failed`); a
 * `default_outcome` names a declared outcome; aggregate outcomes on a step that does
 * not iterate are undeclared for it; an iterating step that routes `all_succeeded` and
 * whose item outcome `success` leaves the loop is warned of (docs/language.md, Iteration:
 * any target but `_continue` ends the loop).
 */
export const checkOutcomes: Check = {
  name: "outcomes",
  run({ resolution }) {
    const out: Diagnostic[] = [];
    for (const s of resolution.scopes) {
      for (const st of s.workflow.steps) {
        const iterating = iterates(st);
        const names = st.outcomes.map((o) => o.name);
        if (st.outcomes.length === 0) {
          out.push(
            diag("missing_outcome", st.nameRange, `step "${st.name}" has no outcomes: a run could not leave it`, {
              hint: iterating ? `add outcome "all_succeeded" { next = "..." } and outcome "any_failed" { next = "..." }` : `add outcome "success" { next = "..." }`,
            }),
          );
        } else if (iterating && !names.includes("all_succeeded") && !names.includes("default")) {
          out.push(
            diag("missing_outcome", st.nameRange, `iterating step "${st.name}" has no "all_succeeded" outcome`, {
              hint: `an iterating step ends in all_succeeded or any_failed; add outcome "all_succeeded" { next = "..." }`,
            }),
          );
        } else if (iterating && !names.includes("any_failed") && !names.includes("default") && st.onFailure !== "ignore" && !exitsOnFailure(st)) {
          out.push(
            diag("missing_outcome", st.nameRange, `iterating step "${st.name}" has no "any_failed" outcome: a run whose items fail goes on through "all_succeeded"`, {
              hint: `add outcome "any_failed" { next = "..." }, or set on_failure = "ignore" to say failures are expected`,
              severity: "warning",
            }),
          );
        }
        // The usual success/failure pair copied onto an iterating step that also routes
        // all_succeeded: "success" leaving the loop ends it at the first item that succeeds
        // (found by a new-user trial: for_each over two items ran one, and the run succeeded).
        const leaves = iterating && names.includes("all_succeeded") ? st.outcomes.find((o) => o.name === "success" && o.next !== undefined && o.next.name !== "_continue") : undefined;
        if (leaves) {
          out.push(
            diag("loop_exit_on_success", leaves.nameRange, `outcome "success" of iterating step "${st.name}" leaves the loop: the first item that succeeds ends it, and the items after it never run`, {
              hint: `to run every item, route "success" to "_continue", the next item (the step then ends in all_succeeded or any_failed); to stop at the first success on purpose, remove the "all_succeeded" outcome`,
            }),
          );
        }
        if (!iterating) {
          for (const o of st.outcomes) {
            if (AGGREGATE_OUTCOMES.includes(o.name)) {
              out.push(
                diag("undeclared_outcome", o.nameRange, `step "${st.name}" does not iterate, so it never ends in "${o.name}"`, {
                  hint: `"${o.name}" is an aggregate outcome of count, for_each and parallel steps`,
                }),
              );
            }
          }
        }
        if (st.defaultOutcome && !names.includes(st.defaultOutcome.name)) {
          out.push(
            diag("undeclared_outcome", st.defaultOutcome.range, `step "${st.name}": default_outcome "${st.defaultOutcome.name}" is not one of its outcomes`, {
              hint: suggest(st.defaultOutcome.name, names) ?? (names.length > 0 ? `its outcomes: ${names.join(", ")}` : "declare the outcome it names"),
            }),
          );
        }
      }
    }
    return out;
  },
};

/**
 * An item's own `failure` outcome that leaves the loop (`return`, or any node but
 * `_continue`): a failed item takes it, so nothing falls through to `all_succeeded`
 * (found by a new-user trial: the warning said failures went on through it).
 */
function exitsOnFailure(st: { outcomes: readonly { name: string; next?: { name: string } }[] }): boolean {
  return st.outcomes.some((o) => o.name === "failure" && o.next !== undefined && o.next.name !== "_continue");
}
