import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { Range } from "../diagnostics/range.js";
import type { Check } from "./context.js";
import { edgesOf, initialNode } from "./context.js";

/**
 * Every node a run can reach can also end: from it some path leads to a state, to
 * `_continue` or to `return` (the Go tool refuses a body whose outcomes never reach
 * `_continue` or a terminal state; docs/language.md, Outcomes). Nodes that can only
 * go round among themselves would spin until `max_total_steps` stops the run.
 * Reported once per workflow or body, at the first such node, naming them all.
 */
export const checkExits: Check = {
  name: "exits",
  onlyWhenValid: true,
  run({ resolution }) {
    const out: Diagnostic[] = [];
    for (const s of resolution.scopes) {
      const w = s.workflow;
      const start = initialNode(s);
      if (!start) continue;
      const edges = edgesOf(w);
      const forward = new Map<string, string[]>();
      const backward = new Map<string, string[]>();
      for (const e of edges) {
        (forward.get(e.from) ?? forward.set(e.from, []).get(e.from)!).push(e.to.name);
        (backward.get(e.to.name) ?? backward.set(e.to.name, []).get(e.to.name)!).push(e.from);
      }
      // A wait without outcomes goes on by `next` (in edges too); states, _continue and return end.
      const exits = new Set<string>(["_continue", "return", ...w.states.map((x) => x.name)]);
      const canEnd = new Set<string>();
      const queue = [...exits];
      while (queue.length > 0) {
        const n = queue.pop()!;
        if (canEnd.has(n)) continue;
        canEnd.add(n);
        for (const p of backward.get(n) ?? []) queue.push(p);
      }
      const reached = new Set<string>();
      const walk = [start];
      while (walk.length > 0) {
        const n = walk.pop()!;
        if (reached.has(n)) continue;
        reached.add(n);
        for (const m of forward.get(n) ?? []) walk.push(m);
      }
      const declared: { name: string; nameRange: Range }[] = [...w.steps, ...w.waits, ...w.approvals, ...w.branches];
      const stuck = declared.filter((n) => reached.has(n.name) && !canEnd.has(n.name));
      if (stuck.length === 0) continue;
      const where = s.owner ? `the body of step "${s.owner.name}"` : "the workflow";
      const names = stuck.map((n) => `"${n.name}"`).join(", ");
      out.push(
        diag("no_exit", stuck[0].nameRange, `in ${where}, ${stuck.length > 1 ? `${names} never reach` : `${names} never reaches`} ${s.owner ? "_continue, return or a state" : "a state or return"}: a run that gets there cannot end`, {
          hint: s.owner ? `route an outcome to "_continue" (next item), "return" (leave the body) or a terminal state` : 'route an outcome to a terminal state, or to "return" (which ends the run)',
          related: stuck.slice(1).map((n) => ({ message: `"${n.name}" is in the same loop`, range: n.nameRange })),
        }),
      );
    }
    return out;
  },
};
