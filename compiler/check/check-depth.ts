import { DEFAULT_POLICY } from "../build/graph.js";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { Range } from "../diagnostics/range.js";
import type { WorkflowSpec } from "../decode/spec.js";
import type { Resolution } from "../resolve/resolve-workflow.js";
import { totalStepBudget } from "./context.js";

/** What the depth check needs of a compiled module. */
interface DepthUnit {
  spec: WorkflowSpec;
  resolution: Resolution;
}

/** The deepest chain of nested runs from a module: its length and its links. */
interface Chain {
  depth: number;
  links: { label: string; range: Range }[];
}

/**
 * Runs nest no deeper than the root's `policy { max_depth }` (default 16): every inline
 * or `workflow_file` body, subworkflow call and flow used as an agent is one level. The
 * module graph is acyclic (the loader cut cycles), so the deepest chain is known before
 * anything runs; the error names it, from the root's step down. A chain that fits but
 * needs more step visits than `max_total_steps` allows (one per level and one at the
 * bottom, counted over the tree) is a warning, `step_budget_too_small`.
 *
 * @param units each called module's spec and resolution, by module id
 */
export function checkDepth(root: WorkflowSpec, rootRes: Resolution, units: (id: string) => DepthUnit | undefined): Diagnostic[] {
  const max = root.policy?.maxDepth ?? DEFAULT_POLICY.max_depth!;
  const memo = new Map<Resolution, Chain>();
  const deepest = (res: Resolution, guard: Set<Resolution>): Chain => {
    const known = memo.get(res);
    if (known) return known;
    let best: Chain = { depth: 0, links: [] };
    if (guard.has(res)) return best;
    guard.add(res);
    for (const s of res.scopes) {
      // The chain of bodies from the module's root down to this scope.
      const bodies: Chain["links"] = [];
      for (let x = s; x.owner && x.parent; x = x.parent) bodies.unshift({ label: `step "${x.owner.name}" (body)`, range: x.owner.nameRange });
      if (s.depth > best.depth) best = { depth: s.depth, links: bodies };
      for (const st of s.workflow.steps) {
        const callee = res.calleeOf.get(st);
        const unit = callee ? units(callee.id) : undefined;
        if (!callee || !unit) continue;
        const below = deepest(unit.resolution, guard);
        const d = s.depth + 1 + below.depth;
        if (d > best.depth) best = { depth: d, links: [...bodies, { label: `step "${st.name}" -> ${callee.path}`, range: st.nameRange }, ...below.links] };
      }
    }
    guard.delete(res);
    memo.set(res, best);
    return best;
  };
  const chain = deepest(rootRes, new Set());
  if (chain.links.length === 0) return [];
  if (max >= 1 && chain.depth > max) {
    return [
      diag("max_depth_exceeded", chain.links[0].range, `runs would nest ${chain.depth} deep, past the policy's max_depth (${max}): ${chain.links.map((l) => l.label).join(" > ")}`, {
        hint: `flatten the chain, or raise it: policy { max_depth = ${chain.depth} }`,
      }),
    ];
  }
  // Every level is entered by a step visit and the deepest runs one at least; max_total_steps
  // counts them over the whole tree (found by a new-user trial: a 300-deep chain validated,
  // then stopped at depth ~100).
  const budget = totalStepBudget(root);
  // A budget below 1 is refused as written (invalid_value): no warning follows it.
  if (budget >= 1 && chain.depth + 1 > budget) {
    return [
      diag("step_budget_too_small", chain.links[0].range, `runs nest ${chain.depth} deep down ${chain.links.length > 3 ? `${chain.links[0].label} > … > ${chain.links[chain.links.length - 1].label}` : chain.links.map((l) => l.label).join(" > ")}: a run going down it visits at least ${chain.depth + 1} steps, past the policy's max_total_steps (${budget}), which counts the steps of every run in the tree`, {
        hint: `raise it: policy { max_total_steps = ${Math.max(chain.depth + 1, budget) * 2} }`,
      }),
    ];
  }
  return [];
}
