import type { GraphOutcome } from "../../compiler/build/graph.js";
import type { FunctionTable, Value } from "../../compiler/expr/value.js";
import type { DataStore } from "./data-store.js";
import { EvalFailure, evalExpr, evalMap } from "./evaluate.js";

/** What taking an outcome does besides routing: the step's output, and the writes to journal. */
export interface OutcomeEffects {
  /** The step's (or item's) output as `steps.<name>` reads it: the adapter's, with the projection's keys over it. */
  output: Record<string, Value> | Record<string, Value>[];
  /** The outcome's `output` projection alone, when it has one (a top-level `return` makes it the run's outputs). */
  projection?: Record<string, Value>;
  /** `shared_writes`, evaluated. */
  shared?: Record<string, Value>;
  /** `write` blocks, evaluated against the step-entry snapshot and converted to their types. */
  data?: Record<string, Value>;
}

const isObject = (v: unknown): v is Record<string, Value> => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * Evaluates an outcome's `output` projection, `write` blocks and `shared_writes`
 * (docs/language.md, Outcomes; the upstream spec, "Outcome model" and "write").
 *
 * Namespaces: `ns` (the run's, including the `data` snapshot taken before any write
 * applies) plus `step.output` (the adapter's raw output), `subworkflow` (the same, for
 * a subworkflow step) and, for writes, `output` (the raw output with the projection's
 * keys over it). All writes read the same snapshot, so their order never matters.
 *
 * The projection is merged over the adapter's output rather than replacing it (the Go
 * tool replaces): every key a v0.5 file reads is there, and older files that read the
 * adapter's keys next to projected ones keep working. An iterating step's output (a
 * list, one entry per item) is left as it is; the projection is still evaluated.
 *
 * @throws EvalFailure when an expression fails, a projection is not an object, or a
 *   write does not convert to its data value's type (nothing is applied then)
 */
export function outcomeEffects(
  o: GraphOutcome,
  raw: Record<string, Value> | Record<string, Value>[],
  ns: Record<string, Value>,
  fns: FunctionTable,
  data: DataStore,
): OutcomeEffects {
  const own = { ...ns, step: { output: raw as Value }, subworkflow: raw as Value };
  let projection: Record<string, Value> | undefined;
  if (o.output_expr) {
    const v = evalExpr(o.output_expr, own, fns);
    if (!isObject(v)) throw new EvalFailure(`${o.output_expr.at}: outcome "${o.name}": output must be an object, not ${JSON.stringify(v)?.slice(0, 60)}`);
    projection = v;
  } else if (Object.keys(o.output).length > 0) projection = evalMap(o.output, own, fns);
  const output = projection && !Array.isArray(raw) ? { ...raw, ...projection } : raw;
  const effects: OutcomeEffects = { output, ...(projection ? { projection } : {}) };
  if (o.writes && o.writes.length > 0) {
    const withOutput = { ...own, output: (Array.isArray(raw) ? { ...projection } : output) as Value };
    effects.data = data.prepare(o.writes.map((w) => ({ target: w.target, value: evalExpr(w.value, withOutput, fns), at: w.value.at })));
  }
  if (Object.keys(o.shared_writes).length > 0) effects.shared = evalMap(o.shared_writes, own, fns);
  return effects;
}
