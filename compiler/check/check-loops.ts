import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { Check } from "./context.js";
import { edgesOf } from "./context.js";
import { stronglyConnected } from "./strongly-connected.js";

/**
 * A cycle of nodes with no bound is a warning (`unbounded_loop`): nothing stops a run
 * that keeps taking it. Bounded means a step in the cycle has `max_visits`, or the
 * root `policy` sets `max_total_steps`. Cycles are the strongly connected components
 * (an iterative Tarjan, strongly-connected.ts) of each workflow's transition graph.
 */
export const checkLoops: Check = {
  name: "loops",
  run({ spec, resolution }) {
    const out: Diagnostic[] = [];
    if (spec.policy?.maxTotalSteps !== undefined) return out;
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
          diag("unbounded_loop", steps[0].nameRange, `steps ${loopNames(steps.map((st) => st.name))} form a loop with no bound`, {
            hint: `set max_visits on one of them, or policy { max_total_steps = N }`,
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
