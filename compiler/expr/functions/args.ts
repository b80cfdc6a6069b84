/**
 * Argument helpers shared by the standard function library (functions*.ts).
 *
 * Each `argX(args, i)` returns argument `i` as the wanted kind, after HCL's automatic
 * conversions (number <-> string, "true"/"false" -> bool), or throws
 * `FunctionError(message, i)` naming what was given instead ("must not be null" for null).
 */
import {
  FunctionError, isObject, toBool, toNumber, toStr, typeName,
  type FunctionDef, type ObjectValue, type Value,
} from "../value.js";

/** A function definition: parameter list and one-line doc for messages, arity bounds, implementation. */
export function fn(params: string, doc: string, minArgs: number, maxArgs: number, impl: (args: Value[]) => Value): FunctionDef {
  return { params, doc, minArgs, maxArgs, impl };
}

export { graphemes } from "../../graphemes.js";

/** "must not be null", or "a <kind> is required, but got <type>". */
function wrongKind(v: Value, kind: string): string {
  return v === null ? "must not be null" : `${kind} is required, but got ${typeName(v)}`;
}

/** Argument `i` as a string (numbers and bools convert). */
export function argStr(args: Value[], i: number): string {
  const v = args[i];
  const s = toStr(v);
  if (s === undefined) throw new FunctionError(wrongKind(v, "a string"), i);
  return s;
}

/** Argument `i` as a number (numeric strings convert). */
export function argNum(args: Value[], i: number): number {
  const v = args[i];
  const n = toNumber(v);
  if (n === undefined) throw new FunctionError(wrongKind(v, "a number"), i);
  return n;
}

/** Argument `i` as a whole number. */
export function argInt(args: Value[], i: number): number {
  const n = argNum(args, i);
  if (!Number.isInteger(n)) throw new FunctionError(`a whole number is required, but got ${n}`, i);
  return n;
}

/** Argument `i` as a bool ("true"/"false" convert). */
export function argBool(args: Value[], i: number): boolean {
  const v = args[i];
  const b = toBool(v);
  if (b === undefined) throw new FunctionError(wrongKind(v, "a bool"), i);
  return b;
}

/** Argument `i` as a list (or tuple, or set: all are arrays). */
export function argList(args: Value[], i: number): Value[] {
  const v = args[i];
  if (!Array.isArray(v)) throw new FunctionError(wrongKind(v, "a list"), i);
  return v;
}

/** Argument `i` as an object or map. */
export function argObj(args: Value[], i: number): ObjectValue {
  const v = args[i];
  if (!isObject(v)) throw new FunctionError(wrongKind(v, "an object or map"), i);
  return v;
}

/** Element `j` of list argument `i` as a string, for functions taking `list(string)`. */
export function elemStr(v: Value, i: number, j: number, what = "used here"): string {
  const s = toStr(v);
  if (s === undefined) throw new FunctionError(`element ${j} is ${v === null ? "null" : `a ${typeName(v)}`}; only strings, numbers and bools can be ${what}`, i);
  return s;
}

/** Orders strings by Unicode code point (= UTF-8 byte order, as Go's `sort.Strings`). */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate (U+D800-DFFF, the start of a code point above U+FFFF) sorts after U+E000-FFFF.
    const sx = x >= 0xd800 && x <= 0xdfff;
    const sy = y >= 0xd800 && y <= 0xdfff;
    if (sx !== sy) return sx ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}
