/**
 * The standard function library of the expression language.
 *
 * Source: Terraform's built-in functions / the cty stdlib, and the Go tool's function
 * list (LANGUAGE-SPEC.md, "Functions"), whose names, parameter orders and behaviour
 * these follow (string functions count Unicode grapheme clusters; `keys`/`values` use
 * lexical key order; `range` produces at most 1024 numbers). This file holds the core
 * functions; the others come in groups, one file each: functions-numeric.ts,
 * functions-logic.ts, functions-strings.ts, functions-regex.ts, functions-collections.ts,
 * functions-encoding.ts, functions-time.ts, functions-files.ts, and functions/attempts.ts
 * (`try`, `can`: they evaluate their arguments themselves, lazily).
 *
 * Shapes: `makeFunctions({ readFile, fileExists, fileSet })` returns a fresh
 * `FunctionTable` (name -> `{ params, doc, minArgs, maxArgs, impl }`) holding every
 * function. The file functions call the caller-supplied hooks, which must confine paths
 * to the workflow's root (functions-fs.ts has node:fs ones); without a hook the function
 * is an error. `functionDocs()` / `functionNames()` list every function with a one-line doc.
 *
 * Errors: arity is checked by the evaluator from `minArgs`/`maxArgs`; type and value
 * problems throw `FunctionError(message, argIndex)`, which the evaluator reports as an
 * `EvalError` on that argument. Exceptions thrown by the hooks become `EvalError`s too.
 */
import { formatValues } from "./format.js";
import { argInt, argList, argNum, argObj, argStr, elemStr, fn, graphemes } from "./functions/args.js";
import { attemptFunctions } from "./functions/attempts.js";
import { collectionFunctions } from "./functions/collections.js";
import { encodingFunctions } from "./functions/encoding.js";
import { fileFunctions } from "./functions/files.js";
import { logicFunctions } from "./functions/logic.js";
import { numericFunctions } from "./functions/numeric.js";
import { re2ReplaceAll, regexFunctions } from "./functions/regex.js";
import { stringFunctions } from "./functions/strings.js";
import { timeFunctions } from "./functions/time.js";
import {
  deepEqual, FunctionError, getOwn, isObject, jsonEncode, newObject, sortedKeys, toBool, toNumber, toStr, typeName,
  type FunctionTable, type Value,
} from "./value.js";

/** The file-system hooks of the file functions; each must confine paths to the workflow's root and throw otherwise. */
export interface FunctionOptions {
  /** Reads a UTF-8 file for `file(path)` and `templatefile(path, vars)`. */
  readFile?: (path: string) => string;
  /** For `fileexists(path)`: true for a regular file; false for a directory or nothing. */
  fileExists?: (path: string) => boolean;
  /** For `fileset(dir, pattern)`: the matching files under `dir`, as sorted paths relative to the root. */
  fileSet?: (dir: string, pattern: string) => string[];
}

export interface FunctionDoc {
  name: string;
  /** e.g. `join(separator, lists...)` */
  signature: string;
  doc: string;
  /** Arity bounds (`Infinity` = variadic), for compile-time checks. */
  minArgs: number;
  maxArgs: number;
  params: string;
}

/** The most values `range()` makes. */
export const RANGE_LIMIT = 1024;

/** Terraform's `replace`: a `/regex/` substring is an RE2 pattern, and `$1` in the replacement expands. */
function replaceAll(s: string, sub: string, rep: string, subIndex: number): string {
  if (sub.length >= 2 && sub.startsWith("/") && sub.endsWith("/")) {
    try {
      return re2ReplaceAll(s, sub.slice(1, -1), rep);
    } catch (err) {
      if (err instanceof FunctionError && err.argIndex === undefined) throw new FunctionError(err.message, subIndex);
      throw err;
    }
  }
  if (sub === "") return rep + Array.from(s).join(rep) + (s === "" ? "" : rep);
  return s.split(sub).join(rep);
}

function flattenInto(out: Value[], list: Value[], depth: number): void {
  if (depth > 1000) throw new FunctionError("the list is nested too deeply", 0);
  for (const v of list) {
    if (Array.isArray(v)) flattenInto(out, v, depth + 1);
    else out.push(v);
  }
}

function minMax(args: Value[], pick: (a: number, b: number) => number): number {
  let out = argNum(args, 0);
  for (let i = 1; i < args.length; i++) out = pick(out, argNum(args, i));
  return out;
}

function convertOrNull<T extends Value>(v: Value, conv: (v: Value) => T | undefined, want: string): Value {
  if (v === null) return null;
  const out = conv(v);
  if (out === undefined) throw new FunctionError(`cannot convert ${typeName(v)}${typeof v === "string" ? ` ${JSON.stringify(v)}` : ""} to ${want}`, 0);
  return out;
}

/** A fresh table of every function; `opts` supplies the file functions' hooks. */
export function makeFunctions(opts: FunctionOptions = {}): FunctionTable {
  const table: FunctionTable = {
    ...numericFunctions(),
    ...logicFunctions(),
    ...stringFunctions(),
    ...regexFunctions(),
    ...collectionFunctions(),
    ...encodingFunctions(),
    ...timeFunctions(),
    ...fileFunctions(opts, () => table),
    ...attemptFunctions(),
    length: fn("value", "Number of characters in a string, elements in a list, or attributes in an object.", 1, 1, ([v]) => {
      if (typeof v === "string") return graphemes(v).length;
      if (Array.isArray(v)) return v.length;
      if (isObject(v)) return Object.keys(v).length;
      throw new FunctionError(v === null ? "must not be null" : `a string, list or object is required, but got ${typeName(v)}`, 0);
    }),
    upper: fn("string", "Converts all letters in a string to uppercase.", 1, 1, (a) => argStr(a, 0).toUpperCase()),
    lower: fn("string", "Converts all letters in a string to lowercase.", 1, 1, (a) => argStr(a, 0).toLowerCase()),
    trimspace: fn("string", "Removes whitespace from the start and end of a string.", 1, 1, (a) => argStr(a, 0).trim()),
    join: fn("separator, lists...", "Joins the string elements of one or more lists with a separator.", 2, Infinity, (a) => {
      const sep = argStr(a, 0);
      const items: string[] = [];
      for (let i = 1; i < a.length; i++) {
        argList(a, i).forEach((v, j) => items.push(elemStr(v, i, j, "joined")));
      }
      return items.join(sep);
    }),
    split: fn("separator, string", "Splits a string into a list at each occurrence of the separator.", 2, 2, (a) => {
      const sep = argStr(a, 0);
      const s = argStr(a, 1);
      return sep === "" ? Array.from(s) : s.split(sep);
    }),
    replace: fn("string, substring, replacement", "Replaces every occurrence of substring (or of /regex/, with $1 group references) in string.", 3, 3,
      (a) => replaceAll(argStr(a, 0), argStr(a, 1), argStr(a, 2), 1)),
    format: fn("spec, values...", "Formats values printf-style: %s %d %f %e %t %q %v %b %o %x %%, with width, precision and %[n].", 1, Infinity,
      (a) => formatValues(argStr(a, 0), a.slice(1))),
    concat: fn("lists...", "Concatenates one or more lists into one list.", 1, Infinity, (a) => a.flatMap((_, i) => argList(a, i))),
    contains: fn("list, value", "True when the list has an element equal to the value.", 2, 2, (a) => argList(a, 0).some((v) => deepEqual(v, a[1]))),
    keys: fn("object", "The attribute names of an object, in lexical order.", 1, 1, (a) => sortedKeys(argObj(a, 0))),
    values: fn("object", "The attribute values of an object, ordered by their names.", 1, 1, (a) => {
      const o = argObj(a, 0);
      return sortedKeys(o).map((k) => o[k] ?? null);
    }),
    lookup: fn("object, key, default?", "The object's value for key, or default when the key is absent (an error without default).", 2, 3, (a) => {
      const o = argObj(a, 0);
      const k = argStr(a, 1);
      const v = getOwn(o, k);
      if (v !== undefined) return v;
      if (a.length === 3) return a[2];
      throw new FunctionError(`the object has no key ${JSON.stringify(k)} and no default was given`, 1);
    }),
    merge: fn("objects...", "Merges objects into one; later arguments win on duplicate keys; null arguments are skipped.", 0, Infinity, (a) => {
      const out = newObject();
      a.forEach((v, i) => {
        if (v === null) return;
        const o = argObj(a, i);
        for (const k of Object.keys(o)) out[k] = o[k] ?? null;
      });
      return out;
    }),
    tostring: fn("value", "Converts a string, number or bool to a string (null stays null).", 1, 1, ([v]) => convertOrNull(v, toStr, "string")),
    tonumber: fn("value", "Converts a number or numeric string to a number (null stays null).", 1, 1, ([v]) => convertOrNull(v, toNumber, "number")),
    tobool: fn("value", 'Converts a bool or the string "true"/"false" to a bool (null stays null).', 1, 1, ([v]) => convertOrNull(v, toBool, "bool")),
    jsonencode: fn("value", "Encodes a value as compact JSON with sorted object keys.", 1, 1, ([v]) => jsonEncode(v)),
    jsondecode: fn("string", "Decodes a JSON string into a value (a number beyond the range of numbers is an error).", 1, 1, (a) => {
      try {
        return JSON.parse(argStr(a, 0), (_k, v: unknown) => {
          if (typeof v === "number" && !Number.isFinite(v)) throw new FunctionError("a number in the JSON is beyond the range of numbers (about ±1.8e308)", 0);
          return v;
        }) as Value;
      } catch (err) {
        if (err instanceof FunctionError) throw err;
        // V8's text, less what only some Node versions add (22 and later: " (line 1 column 2)").
        throw new FunctionError(`invalid JSON: ${(err as Error).message.replace(/ \(line \d+ column \d+\)$/, "")}`, 0);
      }
    }),
    min: fn("numbers...", "The smallest of the given numbers.", 1, Infinity, (a) => minMax(a, Math.min)),
    max: fn("numbers...", "The largest of the given numbers.", 1, Infinity, (a) => minMax(a, Math.max)),
    abs: fn("number", "The absolute value of a number.", 1, 1, (a) => Math.abs(argNum(a, 0))),
    ceil: fn("number", "The closest whole number greater than or equal to the number.", 1, 1, (a) => Math.ceil(argNum(a, 0)) || 0),
    floor: fn("number", "The closest whole number less than or equal to the number.", 1, 1, (a) => Math.floor(argNum(a, 0))),
    range: fn("[start,] limit[, step]", `A list of numbers from start (default 0) up to but excluding limit (at most ${RANGE_LIMIT}).`, 1, 3, (a) => {
      const start = a.length === 1 ? 0 : argNum(a, 0);
      const limit = argNum(a, a.length === 1 ? 0 : 1);
      const step = a.length === 3 ? argNum(a, 2) : start <= limit ? 1 : -1;
      if (step === 0) throw new FunctionError("step must not be zero", 2);
      if ((step > 0 && start > limit) || (step < 0 && start < limit)) {
        throw new FunctionError(`a step of ${step} can never reach the limit ${limit} from ${start}`, a.length === 3 ? 2 : 0);
      }
      const out: number[] = [];
      for (let v = start; step > 0 ? v < limit : v > limit; v += step) {
        if (out.length >= RANGE_LIMIT) throw new FunctionError(`more than ${RANGE_LIMIT} values would be generated; use a smaller range or a larger step`);
        out.push(v);
      }
      return out;
    }),
    element: fn("list, index", "The element at index, wrapping around past the end of the list.", 2, 2, (a) => {
      const list = argList(a, 0);
      const i = argInt(a, 1);
      if (list.length === 0) throw new FunctionError("cannot use element() on an empty list", 0);
      if (i < 0) throw new FunctionError("the index must not be negative", 1);
      return list[i % list.length] ?? null;
    }),
    slice: fn("list, start, end", "The elements from start up to but excluding end.", 3, 3, (a) => {
      const list = argList(a, 0);
      const start = argInt(a, 1);
      const end = argInt(a, 2);
      if (start < 0 || start > list.length) throw new FunctionError(`start index ${start} is out of range for a list of ${list.length} elements`, 1);
      if (end < start || end > list.length) throw new FunctionError(`end index ${end} must be between ${start} and ${list.length}`, 2);
      return list.slice(start, end);
    }),
    distinct: fn("list", "The list without duplicate elements (first occurrences kept).", 1, 1, (a) => {
      const out: Value[] = [];
      for (const v of argList(a, 0)) if (!out.some((o) => deepEqual(o, v))) out.push(v);
      return out;
    }),
    flatten: fn("list", "Replaces nested lists with their elements, recursively.", 1, 1, (a) => {
      const out: Value[] = [];
      flattenInto(out, argList(a, 0), 0);
      return out;
    }),
    startswith: fn("string, prefix", "True when the string begins with the prefix.", 2, 2, (a) => argStr(a, 0).startsWith(argStr(a, 1))),
    endswith: fn("string, suffix", "True when the string ends with the suffix.", 2, 2, (a) => argStr(a, 0).endsWith(argStr(a, 1))),
    substr: fn("string, offset, length", "length characters from offset (negative offset counts from the end; length -1 means the rest).", 3, 3, (a) => {
      const chars = graphemes(argStr(a, 0));
      let offset = argInt(a, 1);
      const length = argInt(a, 2);
      if (offset < 0) offset = Math.max(0, chars.length + offset);
      if (offset > chars.length) throw new FunctionError(`offset ${offset} is beyond the end of the string (${chars.length} characters)`, 1);
      if (length < -1) throw new FunctionError("length must be -1 (the rest of the string) or a non-negative number", 2);
      return chars.slice(offset, length === -1 ? undefined : offset + length).join("");
    }),
  };
  return table;
}

let docs: readonly FunctionDoc[] | undefined;

/**
 * Every standard function, alphabetically, with a one-line description. Built on first
 * use: building the table at import cost ~9 ms of every cold start.
 */
export function functionDocs(): readonly FunctionDoc[] {
  docs ??= Object.entries(makeFunctions())
    .map(([name, f]) => ({ name, signature: `${name}(${f.params})`, doc: f.doc, minArgs: f.minArgs, maxArgs: f.maxArgs, params: f.params }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  return docs;
}

/** The standard functions' names, alphabetically. */
export function functionNames(): readonly string[] {
  return functionDocs().map((d) => d.name);
}
