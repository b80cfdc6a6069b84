import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { ExprSource, OutcomeSpec } from "../decode/spec.js";
import { parseMemo } from "../expr/parse-memo.js";
import { exprRangeAt, unguardedReads } from "../resolve/check-expression.js";
import type { Scope } from "../resolve/scope.js";
import type { Check, CheckContext } from "./context.js";
import { edgesOf, initialNode } from "./context.js";
import { dominance } from "./dominators.js";
import { nodeReads, sources } from "./node-reads.js";

/** "a → b → c", shortened in the middle when long. */
function showPath(path: string[]): string {
  const shown = path.length > 6 ? [...path.slice(0, 3), "…", ...path.slice(-2)] : path;
  return shown.map((n) => `"${n}"`).join(" → ");
}

/**
 * A node reads `steps.X` (X a step or switch of the same workflow) where the run can reach
 * it without X having run: X does not dominate the node in the workflow's graph (from its
 * start, along outcomes, arms and waits' `next`). The read then fails the run with
 * `eval_error` on such a path; a warning, since the path may be one the user knows is
 * never taken. Workflow outputs are evaluated when the run ends in a success state, so
 * X must dominate every such state the run can reach. Reads behind a condition, a `&&`
 * or `||`, or inside `try`/`can` are guarded and not flagged (unguardedReads); a node
 * reading its own output is `reads_own_output`'s; reads of an enclosing workflow's steps
 * from a body, and through locals, are not followed. Found by a new-user trial: a step
 * read `steps.review` of a step only one outcome led to, and validate said nothing.
 */
export const checkStepReads: Check = {
  name: "step-reads",
  onlyWhenValid: true,
  run(ctx) {
    return ctx.resolution.scopes.flatMap((s) => scopeReads(s, ctx));
  },
};

function scopeReads(s: Scope, ctx: CheckContext): Diagnostic[] {
  const start = initialNode(s);
  if (!start || !s.nodes.has(start)) return [];
  const next = new Map<string, string[]>();
  for (const e of edgesOf(s.workflow)) {
    if (!s.nodes.has(e.to.name)) continue;
    const list = next.get(e.from) ?? [];
    list.push(e.to.name);
    next.set(e.from, list);
  }
  // For each X read: the nodes reachable from the start without passing X, each with the node it was reached from.
  const avoiding = new Map<string, Map<string, string | undefined>>();
  const reachedWithout = (x: string): Map<string, string | undefined> => {
    let seen = avoiding.get(x);
    if (seen) return seen;
    seen = new Map();
    if (start !== x) {
      seen.set(start, undefined);
      const queue = [start];
      for (let i = 0; i < queue.length; i++) {
        for (const m of next.get(queue[i]) ?? []) {
          if (m !== x && !seen.has(m)) {
            seen.set(m, queue[i]);
            queue.push(m);
          }
        }
      }
    }
    avoiding.set(x, seen);
    return seen;
  };
  const pathTo = (seen: Map<string, string | undefined>, n: string): string[] => {
    const path = [n];
    for (let p = seen.get(n); p !== undefined; p = seen.get(p)) path.unshift(p);
    return path;
  };
  // Whether a read can happen before X ran is dominance, asked once per graph; the search
  // below only finds the path a warning names.
  const dom = dominance(start, next);
  const runsWithout = (x: string, n: string) => x !== start && dom.reachable(n) && !dom.dominates(x, n);
  const readable = (x: string) => s.nodes.get(x) === "step" || (s.nodes.get(x) === "branch" && s.switchOutput(x) !== undefined);
  const out: Diagnostic[] = [];
  const flag = (src: ExprSource, what: string, check: (x: string) => { message: string } | undefined) => {
    const parsed = parseMemo(src.kind === "hcl" ? "expression" : "template", src.text);
    if (!parsed.expr || parsed.errors.length > 0) return;
    const rangeAt = exprRangeAt(src, ctx.rangeAt);
    const said = new Set<string>();
    for (const r of unguardedReads(parsed.expr)) {
      if (!readable(r.step) || said.has(r.step)) continue;
      const problem = check(r.step);
      if (!problem) continue;
      said.add(r.step);
      out.push(
        diag("reads_step_not_run", rangeAt(src.range.file, src.base + r.start, src.base + r.end), `${what}: ${problem.message}`, {
          // The whole step's outputs fall back to an empty object, a field to "" (found by a trial:
          // lookup(try(steps.review, ""), ...) validated, then failed on the string).
          hint: r.wrongArm
            ? `this is evaluated only when can(${r.wrongArm}) is false, as it is when step "${r.step}" has not run: read it where can(${r.wrongArm}) is true`
            : `guard the read: try(${r.raw}, ${r.raw === `steps.${r.step}` ? "{}) is {}" : '"") is ""'} when the step has not run (or test can(steps.${r.step}) in a condition)`,
        }),
      );
    }
  };
  for (const read of nodeReads(s)) {
    for (const src of sources(read.src)) {
      flag(src, read.what, (x) => {
        if (x === read.node || !runsWithout(x, read.node)) return undefined;
        const seen = reachedWithout(x);
        const path = pathTo(seen, read.node);
        const how = path.length === 1 ? `"${read.node}" is where the run starts` : `the run can go ${showPath(path)}`;
        return { message: `reads steps.${x}, but "${read.node}" can run before or without ${s.nodes.get(x) === "step" ? "step" : "switch"} "${x}": ${how}` };
      });
    }
  }
  // Outputs: evaluated when the run ends in a success state (engine/run/runner.ts), so only a body-less workflow's.
  if (!s.owner) {
    const ends = s.workflow.states.filter((st) => st.terminal && st.success && s.nodes.get(st.name) === "state").map((st) => st.name);
    const returns = returnsWithoutProjection(s);
    for (const o of s.workflow.outputs) {
      for (const src of sources(o.value)) {
        flag(src, `output "${o.name}"`, (x) => {
          const end = ends.find((e) => runsWithout(x, e));
          if (end === undefined) {
            // A run that ends through `return` evaluates its outputs there too (found by a trial:
            // a module's output read a step its return skipped, and validate said nothing).
            const from = returns.find((n) => n !== x && runsWithout(x, n));
            if (from === undefined) return undefined;
            return { message: `reads steps.${x}, but the run can end through "return" from "${from}" without ${s.nodes.get(x) === "step" ? "step" : "switch"} "${x}" having run: ${showPath(pathTo(reachedWithout(x), from))} → return` };
          }
          const seen = reachedWithout(x);
          return { message: `reads steps.${x}, but the run can end in state "${end}" without ${s.nodes.get(x) === "step" ? "step" : "switch"} "${x}" having run: ${showPath(pathTo(seen, end))}` };
        });
      }
    }
  }
  return out;
}

/**
 * The nodes with a route to `return` that carries no `output` projection: a run ending there
 * evaluates the workflow's output blocks (a projection replaces them: engine/run/runner.ts).
 */
function returnsWithoutProjection(s: Scope): string[] {
  const w = s.workflow;
  const out = new Set<string>();
  const none = (m: Record<string, ExprSource> | undefined) => m === undefined || Object.keys(m).length === 0;
  const plain = (o: OutcomeSpec) => o.next?.name === "return" && none(o.output) && !o.outputExpr;
  for (const st of w.steps) if (st.outcomes.some(plain)) out.add(st.name);
  for (const wt of w.waits) if (wt.next?.name === "return" || wt.outcomes.some(plain)) out.add(wt.name);
  for (const a of w.approvals) if (a.outcomes.some(plain)) out.add(a.name);
  for (const b of w.branches) {
    if (b.arms.some((arm) => arm.next?.name === "return" && none(arm.output)) || (b.default?.name === "return" && none(b.defaultOutput))) out.add(b.name);
  }
  return [...out];
}
