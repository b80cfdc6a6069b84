import type { Reason, StepResult } from "./adapter.js";
import { isObject, newObject, type ObjectValue, type Value } from "../../compiler/expr/value.js";

/**
 * Small constructors shared by the built-in adapters, so every adapter reports failures the
 * same way: an adapter never throws out of `execute`; its own problems become a `failure`
 * outcome with reason `adapter_error` and a sentence in `detail`.
 */

/** Every closed `Reason`, for validating reasons that come from outside (process adapters). */
const REASON_SET: Record<Reason, true> = {
  ok: true, adapter_failed: true, adapter_error: true, timeout: true, crashed: true, policy_exceeded: true,
  child_failed: true, failure_state: true, unknown_outcome: true, eval_error: true, rejected: true, cancelled: true,
};
export const REASONS: readonly Reason[] = Object.keys(REASON_SET) as Reason[];

/** True when `s` is one of the closed `Reason` names. */
export function isReason(s: unknown): s is Reason {
  return typeof s === "string" && (REASONS as readonly string[]).includes(s);
}

/**
 * The reason that goes with an outcome the adapter chose itself: `adapter_failed` for
 * `failure`, `ok` for anything else (an agent picking `changes_requested` is not a fault).
 */
export function reasonFor(outcome: string): Reason {
  return outcome === "failure" ? "adapter_failed" : "ok";
}

/** `failure` / `adapter_error`: the adapter could not do its job (bad input, missing file, ...). */
export function adapterError(detail: string, output: Record<string, Value> = {}): StepResult {
  return { outcome: "failure", output, reason: "adapter_error", detail };
}

/** `failure` with an explicit reason (`timeout`, `cancelled`, `crashed`, ...). */
export function failed(reason: Reason, detail: string, output: Record<string, Value> = {}): StepResult {
  return { outcome: "failure", output, reason, detail };
}

/**
 * `timeout` when the abort signal carries a `TimeoutError` (as `AbortSignal.timeout()` does),
 * else `cancelled`: how an aborted `req.signal` is reported.
 */
export function abortReason(signal: AbortSignal): "timeout" | "cancelled" {
  const r: unknown = signal.reason;
  return typeof r === "object" && r !== null && (r as { name?: unknown }).name === "TimeoutError" ? "timeout" : "cancelled";
}

/**
 * Converts data from outside (JSON.parse, YAML) into a `Value`: objects get a null prototype
 * (so keys like `__proto__` are plain data), `undefined` and functions become null, non-finite
 * numbers null, Dates ISO strings, bigints numbers. Cycles are cut (the repeat becomes null).
 */
export function toValue(x: unknown, seen: Set<object> = new Set()): Value {
  if (x === null || x === undefined) return null;
  switch (typeof x) {
    case "string":
    case "boolean":
      return x;
    case "number":
      return Number.isFinite(x) ? x : null;
    case "bigint":
      return Number(x);
    case "object": {
      if (x instanceof Date) return Number.isNaN(x.getTime()) ? null : x.toISOString();
      if (seen.has(x)) return null;
      seen.add(x);
      try {
        if (Array.isArray(x)) return x.map((v) => toValue(v, seen));
        const out = newObject();
        for (const [k, v] of Object.entries(x)) out[k] = toValue(v, seen);
        return out;
      } finally {
        seen.delete(x);
      }
    }
    default:
      return null;
  }
}

/** `toValue` for a value that must be an object (anything else gives an empty object). */
export function toObjectValue(x: unknown): ObjectValue {
  const v = toValue(x);
  return isObject(v) ? v : newObject();
}

/** Last `maxChars` characters of `text`, with a leading "..." when cut; for `detail`s. */
export function tail(text: string, maxChars = 2000): string {
  const t = text.trimEnd();
  return t.length <= maxChars ? t : "..." + t.slice(t.length - maxChars);
}
