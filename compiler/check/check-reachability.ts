import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { Check } from "./context.js";
import { edgesOf, endsThroughReturn, initialNode } from "./context.js";
import type { StateSpec, WorkflowSpec } from "../decode/spec.js";

/**
 * Every node can be reached from the workflow's start (per workflow: the root and each
 * inline body). An unreachable step is an error (its work would silently never run);
 * an unreachable state, wait, approval or branch is a warning. Breadth-first, linear.
 * The hint offers removing a node only where that leaves a valid file (see {@link removeState}).
 * A workflow with a `next` to a node declared under an unknown field (`spec.misplaced`, whose
 * error stands), or with an outcome with no `next` or a step with no outcomes (errors too), is not judged: what that node leads to is not known.
 */
export const checkReachability: Check = {
  name: "reachability",
  run({ resolution }) {
    const out: Diagnostic[] = [];
    for (const s of resolution.scopes) {
      const start = initialNode(s);
      if (!start || !s.nodes.has(start)) continue;
      const edges = edgesOf(s.workflow);
      // A `next` to a node declared under an unknown field (its error stands): what it leads to is not known.
      const misplaced = s.parent === undefined ? s.workflow.misplaced : undefined;
      if (misplaced && edges.some((e) => misplaced.has(e.to.name) && !s.nodes.has(e.to.name))) continue;
      // An outcome with no next, or a step with no outcomes (their errors stand: `failure: ~`, a typo
      // of next or of outcomes): where it leads is not known either.
      const wf = s.workflow;
      if ([...wf.steps, ...wf.waits, ...wf.approvals].some((n) => n.outcomes.some((o) => !o.next)) || wf.steps.some((st) => st.outcomes.length === 0)) continue;
      const next = new Map<string, string[]>();
      for (const e of edges) {
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
      // A body that names no start begins at its first step, whatever is written before it (found
      // by a new-user trial: a body opening with a switch was told only that its steps were unreached).
      const before = w.header?.initialState === undefined ? [...w.branches, ...w.waits, ...w.approvals].find((n) => !seen.has(n.name)) : undefined;
      const startHint = before ? `; a body without initial_state starts at its first step ("${start}"): to start at "${before.name}", set initial_state = "${before.name}" in the body` : "";
      for (const st of w.steps) {
        if (!seen.has(st.name) && s.nodes.get(st.name) === "step") {
          out.push(
            diag("unreachable_step", st.nameRange, `step "${st.name}"${where} is never reached from "${start}"`, {
              hint: `no outcome leads to it; add one that names "${st.name}", or remove the step${startHint}`,
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
            const remove = kind === "state" && !s.parent ? removeState(w, n as StateSpec) : `, or remove the ${kind}`;
            out.push(diag("unreachable_node", n.nameRange, `${kind} "${n.name}"${where} is never reached from "${start}"`, { hint: `no outcome leads to it; name it in one (next = "${n.name}")${remove}${startHint}` }));
          }
        }
      }
    }
    return out;
  },
};

/**
 * The end of an unreachable top-level state's hint: how to remove it without a new error.
 * Found by a new-user trial: "remove the state" for the `target_state` of a workflow that
 * ends through `return` left `target_state` naming nothing, and removing both was refused
 * as `no_terminal_state`. The only terminal state of a workflow with no `return` is not
 * offered for removal (the run could not end); the header's `target_state` goes with its state.
 */
function removeState(w: WorkflowSpec, st: StateSpec): string {
  const returns = endsThroughReturn(w);
  const others = w.states.filter((x) => x !== st && x.terminal);
  if (st.terminal && others.length === 0 && !returns) return "";
  if (w.header?.targetState?.name !== st.name) return ", or remove the state";
  const other = others.find((x) => x.success);
  if (other) return `, or remove the state and set target_state = "${other.name}"`;
  return `, or remove the state and the header's target_state${returns ? ' (runs end by next = "return")' : ""}`;
}
