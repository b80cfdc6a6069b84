import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { closestName } from "../diagnostics/did-you-mean.js";
import type { Check } from "./context.js";

/** The outcomes an approval takes: its two decisions, and `timeout` when its deadline passes first (engine/run/wait-nodes.ts). */
const APPROVAL_OUTCOMES = ["approved", "rejected", "timeout"];

/**
 * Waits and approvals have the shape the engine needs (the upstream spec, "Wait" and
 * "Approval"): a wait has a way on (an outcome or `next`; its one trigger, `duration`
 * or `signal`, is checked where it is decoded); an approval routes both decisions,
 * `approved` and `rejected`, takes no outcome besides those and `timeout`, and routes its
 * timeout when it has one (a warning). Their outcomes only route: `output`, `write` and
 * `shared_writes` belong to step outcomes (nothing would evaluate them here).
 */
export const checkNodeShapes: Check = {
  name: "node-shapes",
  run({ resolution }) {
    const out: Diagnostic[] = [];
    for (const s of resolution.scopes) {
      for (const w of s.workflow.waits) {
        if (w.outcomes.length === 0 && !w.next) {
          out.push(diag("wait_outcome", w.nameRange, `wait "${w.name}" has no outcome and no "next": a run could not leave it`, { hint: w.signal !== undefined ? `add outcome "received" { next = "..." }` : `add outcome "elapsed" { next = "..." }, or next = "..."` }));
        }
      }
      for (const [kind, nodes] of [["wait", s.workflow.waits], ["approval", s.workflow.approvals]] as const) {
        for (const n of nodes) {
          for (const o of n.outcomes) {
            const fields = [o.writes.length > 0 && "write", (Object.keys(o.output).length > 0 || o.outputExpr) && "output", Object.keys(o.sharedWrites).length > 0 && "shared_writes"].filter(Boolean);
            if (fields.length === 0) continue;
            out.push(
              diag("node_outcome_effects", o.nameRange, `${kind} "${n.name}" outcome "${o.name}" sets ${fields.join(", ")}: a ${kind}'s outcomes only route`, {
                hint: `a ${kind} produces no output to project or write; set it on the outcome of a step after the ${kind}`,
              }),
            );
          }
        }
      }
      // The upstream spec, "Switch": omitting default is a warning unless a condition always holds.
      for (const b of s.workflow.branches) {
        if (b.keyword !== "switch" || b.default || b.arms.some((a) => a.when.kind === "literal" && (a.when.value === true || a.when.value === "true"))) continue;
        out.push(diag("switch_without_default", b.nameRange, `switch "${b.name}" has no default: a run where no condition holds fails here`, { hint: "add default { next = ... }" }));
      }
      for (const a of s.workflow.approvals) {
        const names = new Set(a.outcomes.map((o) => o.name));
        const missing = ["approved", "rejected"].filter((n) => !names.has(n));
        // An outcome no decision takes (`reject`): said at it, with the decision it was meant
        // for, which is then not missing too (found by a new-user trial: only "no "rejected"
        // outcome" was said, at the approval, and nothing pointed at `reject`).
        const meant = new Set<string>();
        for (const o of a.outcomes) {
          if (APPROVAL_OUTCOMES.includes(o.name)) continue;
          const near = closestName(o.name, APPROVAL_OUTCOMES.filter((n) => !names.has(n)));
          if (near !== undefined) meant.add(near);
          out.push(
            diag("approval_outcomes", o.nameRange, `approval "${a.name}": no decision takes an outcome "${o.name}"`, {
              hint: near !== undefined ? `did you mean "${near}"?` : `an approval's outcomes are ${APPROVAL_OUTCOMES.map((n) => `"${n}"`).join(", ")}`,
            }),
          );
        }
        // Found by a new-user trial: validate said nothing, and the run failed at the deadline.
        if (a.timeout && !names.has("timeout") && !meant.has("timeout")) {
          out.push(
            diag("approval_timeout_unrouted", a.timeout.range, `approval "${a.name}" has a timeout of ${a.timeout.text} and no "timeout" outcome: a run that gets no decision in time fails there`, {
              hint: `add outcome "timeout" { next = "..." } to route it, or leave out the timeout`,
            }),
          );
        }
        const unmet = missing.filter((m) => !meant.has(m));
        if (unmet.length > 0) {
          out.push(
            diag("approval_outcomes", a.nameRange, `approval "${a.name}" has no ${unmet.map((m) => `"${m}"`).join(" or ")} outcome`, {
              hint: `an approval routes both decisions: add ${unmet.map((m) => `outcome "${m}" { next = "..." }`).join(" and ")}`,
            }),
          );
        }
      }
    }
    return out;
  },
};
