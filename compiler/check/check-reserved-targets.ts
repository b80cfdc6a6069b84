import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { iterates, STEP_WIDE_OUTCOMES } from "../decode/spec.js";
import type { Check } from "./context.js";
import { edgesOf } from "./context.js";

/** Aggregate outcome names: routing the whole step, never one item. */

/**
 * `_continue` (bare `continue`) is valid inside the body of an iterating step, and on
 * an iterating step's own per-item outcomes (it ends the item; the upstream spec, "The
 * `_continue` target"). `return` is valid anywhere: it leaves a body, a module, or, at
 * the top level, ends the run successfully (the upstream spec, "Return semantics").
 */
export const checkReservedTargets: Check = {
  name: "reserved-targets",
  run({ resolution }) {
    const out: Diagnostic[] = [];
    for (const s of resolution.scopes) {
      // Each reference with the label of the edge it is on (one pass: a lookup per
      // reference made a 5,000-step workflow quadratic).
      const edges = edgesOf(s.workflow);
      const refs: { ref: (typeof edges)[number]["to"]; from: string; label?: string }[] = edges.map((e) => ({ ref: e.to, from: e.from, label: e.label }));
      const init = s.workflow.header?.initialState;
      if (init) refs.push({ ref: init, from: "initial_state" });
      const itemOutcome = new Set<string>();
      for (const st of s.workflow.steps) if (iterates(st)) for (const o of st.outcomes) if (!STEP_WIDE_OUTCOMES.has(o.name) && o.next) itemOutcome.add(`${st.name}\u0000${o.name}`);
      for (const { ref, from, label } of refs) {
        if (ref.name === "_continue" && !s.iterating && !itemOutcome.has(`${from}\u0000${label}`)) {
          out.push(
            diag("continue_outside_iteration", ref.range, `"${from}": _continue is only valid inside an iterating step (its body, or its own per-item outcomes)`, {
              hint: s.parent ? `the enclosing step "${s.owner?.name}" does not iterate; use "return" to leave the body` : "at the top level, name the next step or state",
            }),
          );
        }
      }
    }
    return out;
  },
};
