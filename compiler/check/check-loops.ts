import { Graph as Digraph, alg } from "@dagrejs/graphlib";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { Check } from "./context.js";
import { edgesOf } from "./context.js";

/**
 * A cycle of nodes with no bound is a warning (`unbounded_loop`): nothing stops a run
 * that keeps taking it. Bounded means a step in the cycle has `max_visits`, or the
 * root `policy` sets `max_total_steps`. Cycles are the strongly connected components
 * (Tarjan, via @dagrejs/graphlib) of each workflow's transition graph.
 */
export const checkLoops: Check = {
  name: "loops",
  run({ spec, resolution }) {
    const out: Diagnostic[] = [];
    if (spec.policy?.maxTotalSteps !== undefined) return out;
    for (const s of resolution.scopes) {
      // graphlib keys plain objects by node id: give it numbered ids, never user names
      // (a node named "__proto__" would otherwise reach Object.prototype).
      const g = new Digraph({ directed: true });
      const id = new Map<string, string>();
      const name = new Map<string, string>();
      for (const n of s.nodes.keys()) {
        const k = `n${id.size}`;
        id.set(n, k);
        name.set(k, n);
        g.setNode(k);
      }
      const selfLoops = new Set<string>();
      for (const e of edgesOf(s.workflow)) {
        const from = id.get(e.from);
        const to = id.get(e.to.name);
        if (from === undefined || to === undefined) continue;
        if (from === to) selfLoops.add(from);
        g.setEdge(from, to);
      }
      const components = alg.tarjan(g).filter((c: string[]) => c.length > 1 || selfLoops.has(c[0]));
      for (const comp of components) {
        const members = new Set(comp.map((k: string) => name.get(k)!));
        const steps = s.workflow.steps.filter((st) => members.has(st.name));
        if (steps.length === 0 || steps.some((st) => st.maxVisits !== undefined)) continue;
        const first = steps[0];
        const names = s.workflow.steps.filter((st) => members.has(st.name)).map((st) => st.name);
        out.push(
          diag("unbounded_loop", first.nameRange, `steps ${names.map((n) => `"${n}"`).join(" -> ")} form a loop with no bound`, {
            hint: `set max_visits on one of them, or policy { max_total_steps = N }`,
          }),
        );
      }
    }
    return out;
  },
};
