/**
 * The built-in functions of templatefile's text/template: not, len, index, slice, the
 * comparisons eq/ne/lt/le/gt/ge, print/printf/println, the escapers html, js and
 * urlquery, and call; `and` and `or` are listed here but evaluated lazily by the executor.
 *
 * Source: Go's text/template funcs.go behaviour as text/template documents it
 * (https://pkg.go.dev/text/template#hdr-Functions); see index.ts.
 */
import { compareCodePoints } from "../args.js";
import { sprint, sprintf, sprintln } from "./fmt.js";
import { isPrint } from "./strconv.js";
import { GoInt, isTrue, typeOf, utf8Decoder, utf8Encoder, utf8Length, type GoVal } from "./values.js";

// ---------------------------------------------------------------------------
// Escapers (text/template funcs.go).

function htmlEscape(s: string): string {
  return s.replace(/[&'<>"\0]/g, (c) => ({ "&": "&amp;", "'": "&#39;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "\0": "\ufffd" })[c]!);
}

const JS_ESCAPES: Record<string, string> = { "\\": "\\\\", "'": "\\'", '"': '\\"', "<": "\\u003C", ">": "\\u003E", "&": "\\u0026", "=": "\\u003D" };

function jsEscape(s: string): string {
  let out = "";
  for (const ch of s) {
    const r = ch.codePointAt(0)!;
    if (JS_ESCAPES[ch]) out += JS_ESCAPES[ch];
    else if (r < 0x20) out += "\\u00" + r.toString(16).toUpperCase().padStart(2, "0");
    else if (r < 0x80 || isPrint(ch)) out += ch;
    else out += "\\u" + (r >= 0xd800 && r <= 0xdfff ? 0xfffd : r).toString(16).toUpperCase().padStart(4, "0");
  }
  return out;
}

function queryEscape(s: string): string {
  let out = "";
  for (const b of utf8Encoder.encode(s)) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (c === " ") out += "+";
    else out += "%" + b.toString(16).toUpperCase().padStart(2, "0");
  }
  return out;
}

/** The argument text of html, js and urlquery: one string as is, else Sprint (nil as `<no value>`). */
function evalArgs(args: GoVal[]): string {
  if (args.length === 1 && typeof args[0] === "string") return args[0];
  return sprint(args.map((a) => (a === null ? "<no value>" : a)));
}

// ---------------------------------------------------------------------------
// Builtin functions.

/** An error of a builtin, reported as `error calling NAME: ...`. */
export class CallError extends Error {}

type Kind = "bool" | "int" | "uint" | "float" | "string" | "invalid";

function basicKind(v: GoVal): Kind {
  if (typeof v === "boolean") return "bool";
  if (typeof v === "string") return "string";
  if (typeof v === "number") return "float";
  if (v instanceof GoInt) return v.type === "uint8" ? "uint" : "int";
  return "invalid";
}

function eq(a: GoVal, ...rest: GoVal[]): boolean {
  if (rest.length === 0) throw new CallError("missing argument for comparison");
  const k1 = basicKind(a);
  for (const b of rest) {
    const k2 = basicKind(b);
    let truth = false;
    if (k1 !== k2) {
      if ((k1 === "int" || k1 === "uint") && (k2 === "int" || k2 === "uint")) truth = (a as GoInt).v === (b as GoInt).v;
      else if (a !== null && b !== null) throw new CallError("incompatible types for comparison");
    } else if (k1 === "int" || k1 === "uint") {
      truth = (a as GoInt).v === (b as GoInt).v;
    } else if (k1 !== "invalid") {
      truth = a === b;
    } else if (a === null || b === null) {
      truth = (a === null) === (b === null);
    } else {
      const t1 = typeOf(a);
      const t2 = typeOf(b);
      throw new CallError(t1 === t2 ? `non-comparable type ${t1}` : `non-comparable types ${t1} and ${t2}`);
    }
    if (truth) return true;
  }
  return false;
}

function lt(a: GoVal, b: GoVal): boolean {
  const k1 = basicKind(a);
  const k2 = basicKind(b);
  if (k1 === "invalid" || k2 === "invalid") throw new CallError("invalid type for comparison");
  if (k1 !== k2) {
    if ((k1 === "int" || k1 === "uint") && (k2 === "int" || k2 === "uint")) return (a as GoInt).v < (b as GoInt).v;
    throw new CallError("incompatible types for comparison");
  }
  switch (k1) {
    case "bool":
      throw new CallError("invalid type for comparison");
    case "int":
    case "uint":
      return (a as GoInt).v < (b as GoInt).v;
    case "string":
      return compareCodePoints(a as string, b as string) < 0;
    default:
      return (a as number) < (b as number);
  }
}

function le(a: GoVal, b: GoVal): boolean {
  return lt(a, b) || eq(a, b);
}

/** An index argument of index/slice, checked against `cap`. */
function indexArg(ix: GoVal, cap: number): number {
  if (ix === null) throw new CallError("cannot index slice/array with nil");
  if (!(ix instanceof GoInt)) throw new CallError(`cannot index slice/array with type ${typeOf(ix)}`);
  if (ix.v < 0n || ix.v > BigInt(cap)) throw new CallError(`index out of range: ${ix.v}`);
  return Number(ix.v);
}

function indexFn(item: GoVal, ...indexes: GoVal[]): GoVal {
  if (item === null) throw new CallError("index of untyped nil");
  for (const ix of indexes) {
    if (item === null) throw new CallError("index of nil pointer");
    if (typeof item === "string" || Array.isArray(item)) {
      const bytes: Uint8Array | undefined = typeof item === "string" ? utf8Encoder.encode(item) : undefined;
      const len: number = bytes ? bytes.length : (item as GoVal[]).length;
      const x = indexArg(ix, len);
      if (x === len) throw new CallError(`index out of range: ${x}`);
      item = bytes ? new GoInt(BigInt(bytes[x]), "uint8") : ((item as GoVal[])[x] ?? null);
    } else if (item instanceof Map) {
      if (ix === null) throw new CallError("value is nil; should be of type string");
      if (typeof ix !== "string") throw new CallError(`value has type ${typeOf(ix)}; should be string`);
      item = item.get(ix) ?? null;
    } else {
      throw new CallError(`can't index item of type ${typeOf(item)}`);
    }
  }
  return item;
}

function sliceFn(item: GoVal, ...indexes: GoVal[]): GoVal {
  if (item === null) throw new CallError("slice of untyped nil");
  if (indexes.length > 3) throw new CallError(`too many slice indexes: ${indexes.length}`);
  let bytes: Uint8Array | undefined;
  let cap: number;
  if (typeof item === "string") {
    if (indexes.length === 3) throw new CallError("cannot 3-index slice a string");
    bytes = utf8Encoder.encode(item);
    cap = bytes.length;
  } else if (Array.isArray(item)) {
    cap = item.length;
  } else {
    throw new CallError(`can't slice item of type ${typeOf(item)}`);
  }
  const idx = [0, cap, cap];
  indexes.forEach((ix, i) => (idx[i] = indexArg(ix, cap)));
  if (idx[0] > idx[1]) throw new CallError(`invalid slice index: ${idx[0]} > ${idx[1]}`);
  if (indexes.length === 3 && idx[1] > idx[2]) throw new CallError(`invalid slice index: ${idx[1]} > ${idx[2]}`);
  if (bytes) return utf8Decoder.decode(bytes.subarray(idx[0], idx[1]));
  return (item as GoVal[]).slice(idx[0], idx[1]);
}

function lenFn(v: GoVal): GoVal {
  if (v === null) throw new CallError("len of nil pointer");
  if (typeof v === "string") return new GoInt(BigInt(utf8Length(v)), "int");
  if (Array.isArray(v)) return new GoInt(BigInt(v.length), "int");
  if (v instanceof Map) return new GoInt(BigInt(v.size), "int");
  throw new CallError(`len of type ${typeOf(v)}`);
}

interface Builtin {
  /** Fixed parameter count, and whether more may follow. */
  params: number;
  variadic: boolean;
  impl: (args: GoVal[]) => GoVal;
}

export const BUILTINS: Record<string, Builtin> = {
  and: { params: 1, variadic: true, impl: () => null }, // evaluated lazily by the executor
  or: { params: 1, variadic: true, impl: () => null },
  not: { params: 1, variadic: false, impl: ([a]) => !isTrue(a) },
  len: { params: 1, variadic: false, impl: ([a]) => lenFn(a) },
  index: { params: 1, variadic: true, impl: ([a, ...rest]) => indexFn(a, ...rest) },
  slice: { params: 1, variadic: true, impl: ([a, ...rest]) => sliceFn(a, ...rest) },
  eq: { params: 1, variadic: true, impl: ([a, ...rest]) => eq(a, ...rest) },
  ne: { params: 2, variadic: false, impl: ([a, b]) => !eq(a, b) },
  lt: { params: 2, variadic: false, impl: ([a, b]) => lt(a, b) },
  le: { params: 2, variadic: false, impl: ([a, b]) => le(a, b) },
  gt: { params: 2, variadic: false, impl: ([a, b]) => !le(a, b) },
  ge: { params: 2, variadic: false, impl: ([a, b]) => !lt(a, b) },
  print: { params: 0, variadic: true, impl: (a) => sprint(a) },
  println: { params: 0, variadic: true, impl: (a) => sprintln(a) },
  printf: { params: 1, variadic: true, impl: ([format, ...rest]) => sprintf(format as string, rest) },
  html: { params: 0, variadic: true, impl: (a) => htmlEscape(evalArgs(a)) },
  js: { params: 0, variadic: true, impl: (a) => jsEscape(evalArgs(a)) },
  urlquery: { params: 0, variadic: true, impl: (a) => queryEscape(evalArgs(a)) },
  call: {
    params: 1,
    variadic: true,
    impl: ([f]) => {
      throw new CallError(`non-function of type ${typeOf(f)} (template data holds no functions)`);
    },
  },
};
