import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { Check } from "./context.js";
import { edgesOf, initialNode } from "./context.js";

/**
 * Every node can be reached from the workflow's start (per workflow: the root and each
 * inline body). An unreachable step is an error (its work would silently never run);
 * an unreachable state, wait, approval or branch is a warning. Breadth-first, linear.
 */
export const checkReachability: Check = {
  name: "reachability",
  run({ resolution }) {
    const out: Diagnostic[] = [];
    for (const s of resolution.scopes) {
      const start = initialNode(s);
      if (!start || !s.nodes.has(start)) continue;
      const next = new Map<string, string[]>();
      for (const e of edgesOf(s.workflow)) {
        const list = next.get(e.from) ?? [];
        list.push(e.to.name);
        next.set(e.from, list);
      }
      const seen = new Set<string>([start]);
      const queue = [start];
      while (queue.length > 0) {
        const n = queue.shift()!;
        for (const m of next.get(n) ?? []) {
          if (!seen.has(m) && s.nodes.has(m)) {
            seen.add(m);
            queue.push(m);
          }
        }
      }
      const w = s.workflow;
      const where = s.owner ? ` in the body of step "${s.owner.name}"` : "";
      for (const st of w.steps) {
        if (!seen.has(st.name) && s.nodes.get(st.name) === "step") {
          out.push(
            diag("unreachable_step", st.nameRange, `step "${st.name}"${where} is never reached from "${start}"`, {
              hint: `no outcome leads to it; add one that names "${st.name}", or remove the step`,
            }),
          );
        }
      }
      const others: [string, { name: string; nameRange: import("../diagnostics/range.js").Range }[]][] = [
        ["state", w.states],
        ["wait", w.waits],
        ["approval", w.approvals],
        ["branch", w.branches],
      ];
      for (const [kind, list] of others) {
        for (const n of list) {
          if (!seen.has(n.name) && s.nodes.get(n.name) === kind) {
            // Every diagnostic has a hint (found by a new-user trial: this one had none).
            out.push(diag("unreachable_node", n.nameRange, `${kind} "${n.name}"${where} is never reached from "${start}"`, { hint: `no outcome leads to it; name it in one (next = "${n.name}"), or remove the ${kind}` }));
          }
        }
      }
    }
    return out;
  },
};
