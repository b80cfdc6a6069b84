/**
 * The Go value model of templatefile's text/template: the dynamic types the Go tool makes
 * from cty values (int64, float64, string, bool, nil, []interface{},
 * map[string]interface{}), Go's type names and truthiness, the rendering limits, the
 * error type, and small string helpers shared by the other stages.
 *
 * Source: Go's text/template documentation (https://pkg.go.dev/text/template) and the Go
 * tool's docs (workflow.md "templatefile(path, vars)"); see index.ts.
 */
import { compareCodePoints } from "../args.js";
import { isObject, type Value } from "../../value.js";

/** The bounds of one rendering. */
export const GO_TEMPLATE_LIMITS = {
  /** Bytes (UTF-8) of output. */
  outputBytes: 4 * 1024 * 1024,
  /** Range iterations, all loops together. */
  iterations: 1_000_000,
  /** Characters of the strings that functions make (print, printf, slice, ...). */
  workChars: 64 * 1024 * 1024,
  /** Control structures and parentheses inside each other. */
  nesting: 200,
  /** Lists and maps inside each other in the data. */
  dataDepth: 1000,
};

export type GoTemplateErrorKind = "syntax" | "missingkey" | "exec" | "limit";

export class GoTemplateError extends Error {
  constructor(message: string, readonly kind: GoTemplateErrorKind, readonly line: number, readonly col: number) {
    super(message);
  }
}

// Go's dynamic types, as the Go tool produces them from cty values.

type IntType = "int" | "int64" | "uint8";

/** A Go integer: `int` (constants, len, range indexes), `int64` (data), `uint8` (a string's byte). */
export class GoInt {
  constructor(readonly v: bigint, readonly type: IntType) {}
}

/** nil, bool, string, float64 (a JS number), an integer, []interface{}, map[string]interface{}. */
export type GoVal = null | boolean | string | number | GoInt | GoVal[] | GoMap;
export type GoMap = Map<string, GoVal>;

const INT64_LIMIT = 2 ** 63;

/** The Go value of a template datum: whole numbers become int64, others float64. */
export function toGoValue(v: Value, depth = 0): GoVal {
  if (depth > GO_TEMPLATE_LIMITS.dataDepth) throw new GoTemplateError(`the template's data (vars) is nested more than ${GO_TEMPLATE_LIMITS.dataDepth} levels deep`, "limit", 0, 0);
  if (v === null || v === undefined) return null;
  if (typeof v === "number") {
    if (Number.isInteger(v) && v < INT64_LIMIT && v >= -INT64_LIMIT) return new GoInt(BigInt(v), "int64");
    return v;
  }
  if (typeof v === "string" || typeof v === "boolean") return v;
  if (Array.isArray(v)) return v.map((x) => toGoValue(x, depth + 1));
  if (isObject(v)) {
    const m: GoMap = new Map();
    for (const k of Object.keys(v)) m.set(k, toGoValue(v[k] ?? null, depth + 1));
    return m;
  }
  return null;
}

/** Go's type name of a value, for messages. */
export function typeOf(v: GoVal): string {
  if (v === null) return "<nil>";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "string") return "string";
  if (typeof v === "number") return "float64";
  if (v instanceof GoInt) return v.type;
  if (Array.isArray(v)) return "[]interface {}";
  return "map[string]interface {}";
}

/** Go's truth: false, 0, nil, and empty strings, lists and maps are false. */
export function isTrue(v: GoVal): boolean {
  if (v === null) return false;
  if (typeof v === "boolean") return v;
  if (typeof v === "string") return v.length > 0;
  if (typeof v === "number") return v !== 0;
  if (v instanceof GoInt) return v.v !== 0n;
  if (Array.isArray(v)) return v.length > 0;
  return v.size > 0;
}

export const utf8Encoder = new TextEncoder();
export const utf8Decoder = new TextDecoder("utf-8");

export function utf8Length(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

export function sortedMapKeys(m: GoMap): string[] {
  return [...m.keys()].sort(compareCodePoints);
}

/** The code point at `i` of `s` as a string (one or two UTF-16 units). */
export function charAt(s: string, i: number): string | undefined {
  if (i >= s.length) return undefined;
  const cp = s.codePointAt(i)!;
  return String.fromCodePoint(cp);
}
