import { DEFAULT_POLICY } from "../build/graph.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import type { Range } from "../diagnostics/range.js";
import type { NodeRef, WorkflowSpec } from "../decode/spec.js";
import type { ModuleLookup } from "../resolve/module-interface.js";
import type { RangeAt } from "../resolve/check-expression.js";
import type { Resolution } from "../resolve/resolve-workflow.js";
import type { Scope } from "../resolve/scope.js";

/** What every check reads: the decoded spec and the resolved scopes. Checks only read. */
export interface CheckContext {
  spec: WorkflowSpec;
  resolution: Resolution;
  /** Where the root file starts (for problems of the whole file). */
  fileStart: Range;
  /** The interfaces of the modules this one calls (compiled before it). */
  modules: ModuleLookup;
  /** True for the module the user named (false for a subworkflow source or a flow). */
  entry: boolean;
  /** Offsets in a loaded file → a range (for positions inside an expression). */
  rangeAt: RangeAt;
  /** The text of a loaded file ("" when it is not loaded): for positions inside a literal. */
  textOf(file: string): string;
}

/**
 * The first character of what `r` covers in its file ("" when the file is not loaded):
 * whether a literal is written in quotes (a YAML plain scalar is not), for
 * `typeMismatchHint` (compiler/decode/types.ts).
 */
export function firstCharOf(textOf: CheckContext["textOf"], r: Range): string {
  return textOf(r.file).slice(r.start.offset, r.start.offset + 1);
}

/** One check: a pure function from the context to its diagnostics. */
export interface Check {
  /** Short name, for docs and debugging. */
  name: string;
  /** Run only when nothing so far is an error (its findings would be echoes of those errors). */
  onlyWhenValid?: boolean;
  run(ctx: CheckContext): Diagnostic[];
}

/**
 * The steps a run of `w` may visit in all, nested runs' included: its `policy {
 * max_total_steps }`, else the default (100). What the engine stops a run at
 * (engine/run/runner.ts), for the checks that say beforehand that it would.
 */
export function totalStepBudget(w: WorkflowSpec): number {
  return w.policy?.maxTotalSteps ?? DEFAULT_POLICY.max_total_steps;
}

/** A transition out of a node: an outcome, a branch arm, a wait's `next`. */
export interface Edge {
  from: string;
  to: NodeRef;
  /** The outcome or arm label. */
  label: string;
}

/** Every transition of one workflow (its own nodes only), in declaration order. */
export function edgesOf(w: WorkflowSpec): Edge[] {
  const out: Edge[] = [];
  for (const s of w.steps) for (const o of s.outcomes) if (o.next) out.push({ from: s.name, to: o.next, label: o.name });
  for (const wt of w.waits) {
    if (wt.next) out.push({ from: wt.name, to: wt.next, label: "next" });
    for (const o of wt.outcomes) if (o.next) out.push({ from: wt.name, to: o.next, label: o.name });
  }
  for (const a of w.approvals) for (const o of a.outcomes) if (o.next) out.push({ from: a.name, to: o.next, label: o.name });
  for (const b of w.branches) {
    b.arms.forEach((arm, i) => {
      if (arm.next) out.push({ from: b.name, to: arm.next, label: `arm ${i + 1}` });
    });
    if (b.default) out.push({ from: b.name, to: b.default, label: "default" });
  }
  return out;
}

/**
 * Whether some transition of this workflow (its own nodes only) targets `return`. At the
 * top level that ends the run successfully (docs/language.md, Outcomes), so a workflow
 * whose runs all end by `return` needs no terminal state and has no state to name as its
 * `target_state` (found by a new-user trial: `validate` refused such a file).
 */
export function endsThroughReturn(w: WorkflowSpec): boolean {
  return edgesOf(w).some((e) => e.to.name === "return");
}

/**
 * The node a workflow starts at: its header's `initial_state`, else (inline bodies,
 * as in the Go tool) its first step in declaration order.
 */
export function initialNode(scope: Scope): string | undefined {
  const w = scope.workflow;
  return w.header?.initialState?.name ?? w.steps[0]?.name;
}
