import { parseDuration } from "../../compiler/decode/durations.js";
import { describeValue, formatNumber, isObject, type Value } from "../../compiler/expr/value.js";

/**
 * Readers for adapter session `config` values (and step `input` fields). Each returns the
 * value, `undefined` when the key is absent or null, or throws `ConfigError` with a sentence
 * naming the key when the value has the wrong type. Adapters catch `ConfigError` and report it
 * as an `adapter_error`, so a typo in a config block fails the step, never the engine.
 */
export class ConfigError extends Error {}

/** A string, or undefined when absent/null. */
export function readString(obj: Record<string, Value>, key: string, where = "config"): string | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v === "string") return v;
  throw new ConfigError(`${where}.${key}: expected a string, got ${describeValue(v)}`);
}

/** A non-negative finite number (numeric strings accepted), or undefined when absent/null. */
export function readCount(obj: Record<string, Value>, key: string, where = "config"): number | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : NaN;
  if (Number.isFinite(n) && n >= 0) return n;
  throw new ConfigError(`${where}.${key}: expected a non-negative number, got ${describeValue(v)}`);
}

/**
 * A duration in milliseconds: a Go-style string (`"30s"`, `"1m30s"`, `"250ms"`) or a number
 * of milliseconds. Undefined when absent/null.
 */
export function readDurationMs(obj: Record<string, Value>, key: string, where = "config"): number | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v === "number" && Number.isFinite(v) && v >= 0) return v;
  if (typeof v === "string") {
    const ms = parseDuration(v);
    if (ms !== undefined) return ms;
  }
  throw new ConfigError(`${where}.${key}: expected a duration like "30s" or a number of milliseconds, got ${describeValue(v)}`);
}

/**
 * A map of environment variables: values must be strings, numbers or bools (converted to
 * strings as HCL converts them). Undefined when absent/null.
 */
export function readEnvMap(obj: Record<string, Value>, key: string, where = "config"): Record<string, string> | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) throw new ConfigError(`${where}.${key}: expected a map of strings, got ${describeValue(v)}`);
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) {
    if (typeof x === "string") out[k] = x;
    else if (typeof x === "number") out[k] = formatNumber(x);
    else if (typeof x === "boolean") out[k] = String(x);
    else throw new ConfigError(`${where}.${key}.${k}: expected a string, got ${describeValue(x)}`);
  }
  return out;
}

/** A list of strings (a single string is a one-element list). Undefined when absent/null. */
export function readStringList(obj: Record<string, Value>, key: string, where = "config"): string[] | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v === "string") return [v];
  if (Array.isArray(v) && v.every((x) => typeof x === "string")) return v as string[];
  throw new ConfigError(`${where}.${key}: expected a list of strings, got ${describeValue(v)}`);
}
