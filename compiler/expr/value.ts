/**
 * Runtime values of the expression language and HCL's automatic conversions.
 *
 * Source: HCL native syntax specification "Type Conversions and Unification" and cty's
 * conversion rules as used by hclsyntax: number <-> string (decimal notation), bool <->
 * the strings "true"/"false"; no other implicit conversions.
 *
 * Shapes: `Value` is plain JSON-like data. Objects are compared and iterated by OWN keys
 * only (lookups use `Object.hasOwn`), so keys like `__proto__` or `constructor` are just
 * data; objects built by the evaluator have a null prototype. Lists and tuples are both
 * JS arrays. Numbers are IEEE doubles (HCL uses arbitrary precision; we do not).
 *
 * Errors: conversion helpers return `undefined` when a conversion is impossible; callers
 * turn that into an `EvalError`. `FunctionError` is what stdlib (and caller-supplied)
 * function implementations throw to report a bad argument; the evaluator converts it.
 */

export type Value = null | boolean | number | string | Value[] | { [key: string]: Value };
export type ObjectValue = { [key: string]: Value };

/** A callable function of the expression language. */
export interface FunctionDef {
  /** Parameter list for docs and messages, e.g. `separator: string, list: list(string)`. */
  params: string;
  /** One-line description. */
  doc: string;
  /** Arity bounds, checked by the evaluator before `impl` runs (`Infinity` = variadic). */
  minArgs: number;
  maxArgs: number;
  /** The implementation; report bad arguments by throwing `FunctionError`. */
  impl: (args: Value[]) => Value;
  /**
   * For a function that decides itself which of its arguments to evaluate (`try`, `can`):
   * called instead of `impl` with one `Attempt` per argument, none of them evaluated yet.
   * An argument's evaluation errors go nowhere unless the function throws.
   */
  lazy?: (args: Attempt[]) => Value;
}

/**
 * One argument of a `lazy` function: evaluating it gives its value, or the messages of the
 * evaluation errors it raised (which are then dropped: the function decides what they mean).
 */
export type Attempt = () => { ok: true; value: Value } | { ok: false; errors: string[] };

export type FunctionTable = Record<string, FunctionDef>;

/** Thrown by a function implementation; `argIndex` selects the argument to blame. */
export class FunctionError extends Error {
  constructor(message: string, readonly argIndex?: number) {
    super(message);
  }
}

export function isObject(v: unknown): v is ObjectValue {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A fresh object with no prototype, safe for arbitrary keys. */
export function newObject(): ObjectValue {
  return Object.create(null) as ObjectValue;
}

export function hasOwn(obj: ObjectValue, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/** Own property value, `undefined` when absent; a JS `undefined` value reads as null. */
export function getOwn(obj: ObjectValue, key: string): Value | undefined {
  if (!hasOwn(obj, key)) return undefined;
  return obj[key] ?? null;
}

export function sortedKeys(obj: ObjectValue): string[] {
  return Object.keys(obj).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** HCL-style type name: `null`, `bool`, `number`, `string`, `list`, `object`. */
export function typeName(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return "number";
  if (typeof v === "string") return "string";
  if (Array.isArray(v)) return "list";
  if (typeof v === "object") return "object";
  return "unsupported value";
}

/** Type name plus a short rendering of primitive values, for messages. */
export function describeValue(v: unknown): string {
  if (typeof v === "string") return `string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + "..." : v)}`;
  if (typeof v === "number") return `number ${formatNumber(v)}`;
  if (typeof v === "boolean") return `bool ${v}`;
  return typeName(v);
}

/** Decimal rendering without exponent notation, as HCL converts numbers to strings. */
export function formatNumber(n: number): string {
  if (Object.is(n, -0)) return "0";
  const s = String(n);
  if (!Number.isFinite(n) || !/e/i.test(s)) return s;
  const [mant, expStr] = s.toLowerCase().split("e");
  const exp = Number(expStr);
  const sign = mant.startsWith("-") ? "-" : "";
  const [intPart, frac = ""] = mant.replace("-", "").split(".");
  const digits = intPart + frac;
  const point = intPart.length + exp;
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return sign + digits + "0".repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

const NUMERIC = /^[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$/;

/** number, or a string holding a decimal number; else `undefined`. */
export function toNumber(v: unknown): number | undefined {
  if (typeof v === "number") return v;
  if (typeof v === "string" && NUMERIC.test(v)) {
    const n = Number(v);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/** bool, or the strings "true"/"false"; else `undefined`. */
export function toBool(v: unknown): boolean | undefined {
  if (typeof v === "boolean") return v;
  if (v === "true") return true;
  if (v === "false") return false;
  return undefined;
}

/** string, number or bool as a string; else (null, collections) `undefined`. */
export function toStr(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (typeof v === "number") return formatNumber(v);
  if (typeof v === "boolean") return v ? "true" : "false";
  return undefined;
}

/** HCL `==`: same type and same content (no conversions; `1 == "1"` is false). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === undefined) a = null;
  if (b === undefined) b = null;
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    for (const k of ka) if (!hasOwn(b, k) || !deepEqual(a[k], b[k])) return false;
    return true;
  }
  return false;
}

/**
 * JSON text with object keys sorted and `<`, `>`, `&`, U+2028, U+2029 escaped (as
 * Terraform's `jsonencode` does). Numbers use `formatNumber`.
 */
export function jsonEncode(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "number") return Number.isFinite(v) ? formatNumber(v) : "null";
  if (typeof v === "string") {
    return JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
  }
  if (Array.isArray(v)) return `[${v.map(jsonEncode).join(",")}]`;
  if (isObject(v)) return `{${sortedKeys(v).map((k) => `${jsonEncode(k)}:${jsonEncode(v[k])}`).join(",")}}`;
  return "null";
}
