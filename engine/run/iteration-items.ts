import type { Value } from "../../compiler/expr/value.js";
import { EvalFailure } from "./evaluate.js";

/**
 * The items an iterating step walks (docs/language.md, Iteration): `count` n → 0..n-1,
 * a list → its values (key = index), a map → its entries in key order.
 *
 * @param value the evaluated `count` / `for_each` / `parallel` expression
 * @param at `file:line:col` of the expression, for messages
 * @param maxTotalSteps a count past the run's step budget fails at once (`policy_exceeded`)
 *   instead of building a hundred million items first
 * @throws EvalFailure for a value of the wrong type or size
 */
export function iterationItems(value: Value, kind: string, at: string, maxTotalSteps: number): { key: Value; value: Value }[] {
  const v = value;
  if (typeof v === "number" || (typeof v === "string" && /^\d+$/.test(v))) {
    const n = Number(v);
    // A negative one is a whole number: say what is wrong with it (found by a trial of the Go tool's docs).
    if (!Number.isInteger(n)) throw new EvalFailure(`${at}: ${kind} must be a whole number, not ${n}`);
    if (n < 0) throw new EvalFailure(`${at}: ${kind} must not be negative, not ${n}`);
    if (n > maxTotalSteps) throw new EvalFailure(`${at}: ${kind} = ${n} is more than policy max_total_steps = ${maxTotalSteps}`, "policy_exceeded");
    return Array.from({ length: n }, (_, i) => ({ key: i, value: i }));
  }
  if (Array.isArray(v)) return v.map((item, i) => ({ key: i, value: item }));
  if (v !== null && typeof v === "object") return Object.keys(v).sort().map((k) => ({ key: k, value: (v as Record<string, Value>)[k] }));
  // count takes a number (docs/language.md, Iteration), though a list or a map iterates too.
  throw new EvalFailure(`${at}: ${kind} must be ${kind === "count" ? "a whole number" : "a list, a map or a whole number"}, not ${JSON.stringify(v)}`);
}
