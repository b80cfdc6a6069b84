import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { closestName, suggest } from "../diagnostics/did-you-mean.js";
import { AGGREGATE_OUTCOMES, iterates, type StepSpec } from "../decode/spec.js";
import { builtInOutcomes } from "../resolve/adapter-fields.js";
import { typeOf } from "./check-adapter-use.js";
import type { Check } from "./context.js";


/**
 * Every step has a way out: at least one outcome; an iterating step (count, for_each,
 * parallel) declares `all_succeeded` (and gets a hint for `any_failed`); a
 * `default_outcome` names a declared outcome; aggregate outcomes on a step that does
 * not iterate are undeclared for it; an iterating step (not `while`) that routes
 * `all_succeeded` and whose item outcome `success` leaves the loop, while `failure` does not
 * go on to the next item, is warned of (docs/language.md, Iteration: any target but
 * `_continue` ends the loop). A step on a built-in adapter whose outcomes are known
 * before the run (shell: `success`/`failure`; noop: its literal `result`) routes them:
 * one it does not route, with a declared outcome a typo away from it (`succes`), is an
 * error with a did-you-mean; an unrouted `success` (a run would fail with unknown_outcome
 * whenever the command exits 0) is a warning (found by a new-user trial). An unrouted
 * `failure` fails the run, as intended; agents and plugins may end in any outcome.
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
        // Not a search for the first success (its failure goes on to the next item), nor a
        // while loop, which polls until it succeeds (found by the next trial: both warned).
        const searches = st.outcomes.some((o) => o.name === "failure" && o.next?.name === "_continue");
        const leaves = iterating && st.while === undefined && !searches && names.includes("all_succeeded") ? st.outcomes.find((o) => o.name === "success" && o.next !== undefined && o.next.name !== "_continue") : undefined;
        if (leaves) {
          out.push(
            diag("loop_exit_on_success", leaves.nameRange, `outcome "success" of iterating step "${st.name}" leaves the loop: the first item that succeeds ends it, and the items after it never run`, {
              hint: `to run every item, route "success" to "_continue", the next item (the step then ends in all_succeeded or any_failed); to stop at the first success on purpose, route "failure" to "_continue"`,
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
        if (!iterating && !st.lifecycle && st.outcomes.length > 0) {
          const type = typeOf(st, s, resolution);
          if (type) out.push(...unrouted(st, type));
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

/**
 * The outcomes a step on a built-in adapter ends in by itself that it does not route
 * (see {@link checkOutcomes}); nothing when it routes every result (`default_outcome`,
 * `outcome "default"`) or its adapter's outcomes are not known before the run.
 */
function unrouted(st: StepSpec, type: string): Diagnostic[] {
  const names = st.outcomes.map((o) => o.name);
  if (st.defaultOutcome || names.includes("default")) return [];
  const produced = builtInOutcomes(type, (key) => {
    if (st.inputExpr) return { known: false };
    const e = st.input?.[key];
    if (!e) return { known: true };
    return e.kind === "literal" ? { known: true, value: e.value } : { known: false };
  });
  if (!produced) return [];
  const out: Diagnostic[] = [];
  // Declared names the adapter never ends in by itself: the candidates for a typo.
  const others = names.filter((n) => !produced.some((p) => p.name === n) && !AGGREGATE_OUTCOMES.includes(n));
  for (const p of produced) {
    if (names.includes(p.name)) continue;
    // The implicit default: one outcome takes a plain success.
    if (p.name === "success" && names.length === 1) continue;
    const near = closestName(p.name, others);
    const marker = type === "shell" ? ` (only a CRITERIA_OUTCOME=${near} line from the command could choose it)` : "";
    if (near) {
      const o = st.outcomes.find((x) => x.name === near)!;
      out.push(
        diag("missing_outcome", o.nameRange, `step "${st.name}" runs on ${type}, which ends in "${p.name}" ${p.when}, but the step declares "${near}"${marker} and no "${p.name}"`, {
          // noop's outcome is its own input.result: the typo may be either (found by a trial:
          // result = "aproved" was offered as the outcome's name).
          hint: type === "noop" ? `did you mean result = "${near}"? (or outcome "${p.name}")` : `did you mean outcome "${p.name}"?`,
        }),
      );
    } else if (p.name !== "failure") {
      out.push(
        diag("missing_outcome", st.nameRange, `step "${st.name}" runs on ${type}, which ends in "${p.name}" ${p.when}, but the step has no "${p.name}" outcome: such a result fails the run (unknown_outcome)`, {
          severity: "warning",
          hint: `add outcome "${p.name}" { next = "..." }, or outcome "default" { next = "..." } for any outcome`,
        }),
      );
    }
  }
  return out;
}
