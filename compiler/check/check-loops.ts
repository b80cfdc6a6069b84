import { DEFAULT_POLICY } from "../build/graph.js";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { Check } from "./context.js";
import { edgesOf, totalStepBudget } from "./context.js";
import { stronglyConnected } from "./strongly-connected.js";

/**
 * A cycle of steps none of which has `max_visits` is a warning (`unbounded_loop`) when
 * only a large `max_total_steps` stops a run that keeps taking it: one above
 * `max_visits_warn_threshold` (defaults 100 and 200, so not by default; a threshold of 0
 * turns the warning off). The Go tool's rule (v0.5.7 workflow.md, policy; ADR-0002,
 * Safety); found by a trial of its language: criteria warned under the default policy,
 * where the loop is bounded at 100 steps, and not under max_total_steps = 500.
 * Cycles are the strongly connected components (an iterative Tarjan,
 * strongly-connected.ts) of each workflow's transition graph.
 */
export const checkLoops: Check = {
  name: "loops",
  run({ spec, resolution }) {
    const out: Diagnostic[] = [];
    const total = totalStepBudget(spec);
    const threshold = spec.policy?.maxVisitsWarnThreshold ?? DEFAULT_POLICY.max_visits_warn_threshold;
    if (threshold <= 0 || total <= threshold) return out;
    for (const s of resolution.scopes) {
      const names = [...s.nodes.keys()];
      const id = new Map(names.map((n, i) => [n, i]));
      const adjacency: number[][] = names.map(() => []);
      const selfLoops = new Set<number>();
      for (const e of edgesOf(s.workflow)) {
        const from = id.get(e.from);
        const to = id.get(e.to.name);
        if (from === undefined || to === undefined) continue;
        if (from === to) selfLoops.add(from);
        adjacency[from].push(to);
      }
      const components = stronglyConnected(adjacency).filter((c) => c.length > 1 || selfLoops.has(c[0]));
      // Steps by node index, so each component finds its steps in its own size.
      const stepAt = new Map(s.workflow.steps.map((st) => [id.get(st.name), st]));
      const order = new Map(s.workflow.steps.map((st, i) => [st, i]));
      for (const comp of components) {
        const steps = comp.flatMap((k) => stepAt.get(k) ?? []).sort((a, b) => order.get(a)! - order.get(b)!);
        if (steps.length === 0 || steps.some((st) => st.maxVisits !== undefined)) continue;
        out.push(
          diag("unbounded_loop", steps[0].nameRange, `steps ${loopNames(steps.map((st) => st.name))} form a loop with no max_visits: only max_total_steps (${total}, above max_visits_warn_threshold ${threshold}) stops it`, {
            hint: `set max_visits on one of them, or policy { max_total_steps = ${threshold} } or less (max_visits_warn_threshold = 0 turns this warning off)`,
          }),
        );
      }
    }
    return out;
  },
};

/**
 * The steps of a loop as the message names them: all of them up to {@link NAMED}; past it
 * the first and last few around how many are left out (found by a new-user trial: a loop of
 * 2,000 steps made one warning of 21 KB, one hover in an editor).
 */
function loopNames(names: string[]): string {
  const q = (n: string) => `"${n}"`;
  if (names.length <= NAMED) return names.map(q).join(" -> ");
  return [...names.slice(0, 4).map(q), `… ${names.length - 6} more …`, ...names.slice(-2).map(q)].join(" -> ");
}

/** How many steps of a loop its message names one by one. */
const NAMED = 10;
