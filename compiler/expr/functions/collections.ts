/**
 * Collection and set functions of go-cty's stdlib: chunklist, coalesce, coalescelist,
 * compact, index, reverse, reverselist, sort, zipmap, sethaselement, setintersection,
 * setproduct, setsubtract, setsymmetricdifference, setunion.
 *
 * `index(collection, key)` is go-cty's `IndexFunc` (the Go tool registers
 * `stdlib.IndexFunc`, LANGUAGE-SPEC.md "Functions"), not Terraform's `index(list, value)`:
 * the element of a list or tuple at a whole-number index, or of a map or object at a
 * string key; the key is not converted (a list's key must be a number, a map's a
 * string); an index outside the list or an absent key is an error naming it.
 * `coalesce(vals...)` is go-cty's `CoalesceFunc`, not Terraform's: the first argument
 * that is not null, where an empty string is a value like any other. As cty unifies the
 * arguments' types, a result is converted to string when the non-null arguments mix
 * strings with numbers or bools (`coalesce(null, 1, "a")` is "1"); numbers with bools,
 * or primitives with collections, are "all arguments must have the same type".
 *
 * Sets are lists without duplicates (HCL `==` equality); set results keep the order in
 * which their elements are first seen across the arguments (cty orders sets by its own
 * rules; we keep the input order instead, which is stable and easier to predict).
 * `sort` orders strings by code point (Go's `sort.Strings`), converting numbers and
 * bools to strings. `reverse` reverses a list, or a string's characters (the Go tool
 * registers cty's string `reverse`; Terraform's `reverse` is a list function).
 */
import { argInt, argList, compareCodePoints, elemStr, fn, graphemes } from "./args.js";
import {
  deepEqual, formatNumber, FunctionError, getOwn, isObject, jsonEncode, newObject, toStr, typeName, type FunctionTable, type Value,
} from "../value.js";

/** The most combinations `setproduct` makes. */
export const SETPRODUCT_LIMIT = 100_000;

/**
 * A value's identity for set operations: equal (`==`) values, and only they, have the
 * same canonical JSON (sorted keys, one spelling per number), so sets are hashed, not
 * compared pairwise.
 */
const key = jsonEncode;

/** The distinct elements of `lists`, in first-seen order. */
function distinctOf(...lists: Value[][]): Value[] {
  const seen = new Set<string>();
  const out: Value[] = [];
  for (const l of lists) {
    for (const v of l) {
      const k = key(v);
      if (!seen.has(k)) {
        seen.add(k);
        out.push(v);
      }
    }
  }
  return out;
}

/** Every argument from `from` on, as a set: its distinct elements and their keys. */
function sets(a: Value[], from = 0): { items: Value[]; keys: Set<string> }[] {
  return a.slice(from).map((_, i) => {
    const items = distinctOf(argList(a, from + i));
    return { items, keys: new Set(items.map(key)) };
  });
}

function setproduct(a: Value[]): Value {
  const all = sets(a).map((s) => s.items);
  const total = all.reduce((n, s) => n * s.length, 1);
  if (total > SETPRODUCT_LIMIT) throw new FunctionError(`the product would have ${total} elements, more than the limit of ${SETPRODUCT_LIMIT}`);
  let out: Value[][] = [[]];
  for (const s of all) out = out.flatMap((prefix) => s.map((v) => [...prefix, v]));
  return total === 0 ? [] : out;
}

/** go-cty's `IndexFunc`: the element of a list at a number, or of a map or object at a string. */
function indexOf([c, k]: Value[]): Value {
  if (Array.isArray(c)) {
    if (typeof k !== "number") throw new FunctionError(k === null ? "the key must not be null" : `the key for a list must be a number, but got ${typeName(k)}`, 1);
    if (!Number.isInteger(k) || k < 0 || k >= c.length) {
      const has = c.length === 0 ? "the list is empty" : `the list has ${c.length} element${c.length === 1 ? "" : "s"} (indexes 0 to ${c.length - 1})`;
      throw new FunctionError(`invalid index ${formatNumber(k)}: ${has}`, 1);
    }
    return c[k] ?? null;
  }
  if (isObject(c)) {
    if (typeof k !== "string") throw new FunctionError(k === null ? "the key must not be null" : `the key for a map or object must be a string, but got ${typeName(k)}`, 1);
    const v = getOwn(c, k);
    if (v === undefined) throw new FunctionError(`invalid index: the map has no key ${JSON.stringify(k)}`, 1);
    return v;
  }
  throw new FunctionError(c === null ? "must not be null" : `collection must be a list, a map or a tuple, but got ${typeName(c)}`, 0);
}

/**
 * go-cty's `CoalesceFunc`: the first non-null argument (an empty string counts), after
 * cty's type unification of the arguments (a string among primitives makes the result
 * a string).
 */
function coalesce(a: Value[]): Value {
  const present = a.filter((v) => v !== null);
  if (present.length === 0) throw new FunctionError("no non-null arguments");
  const kinds = new Set(present.map((v) => (Array.isArray(v) ? "list" : isObject(v) ? "object" : typeof v)));
  const primitives = [...kinds].every((k) => k === "string" || k === "number" || k === "boolean");
  if (kinds.size > 1 && (!primitives || !kinds.has("string"))) throw new FunctionError("all arguments must have the same type");
  const first = present[0];
  return kinds.has("string") ? (toStr(first) ?? first) : first;
}

/** The collection and set functions of go-cty's stdlib. */
export function collectionFunctions(): FunctionTable {
  return {
    chunklist: fn("list, size", "Splits a list into lists of at most size elements (size 0: one chunk).", 2, 2, (a) => {
      const list = argList(a, 0);
      const size = argInt(a, 1);
      if (size < 0) throw new FunctionError("the size argument must be positive", 1);
      if (list.length === 0) return [];
      if (size === 0) return [list];
      const out: Value[] = [];
      for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
      return out;
    }),
    coalesce: fn("vals...", "The first argument that is not null; an empty string is a value (go-cty's coalesce; Terraform's skips empty strings).", 1, Infinity, coalesce),
    coalescelist: fn("lists...", "The first of its list arguments that is not empty (null arguments are skipped).", 1, Infinity, (a) => {
      for (let i = 0; i < a.length; i++) {
        if (a[i] === null) continue;
        const l = argList(a, i);
        if (l.length > 0) return l;
      }
      throw new FunctionError("no non-null arguments");
    }),
    compact: fn("list", "The list of strings without its null and empty-string elements.", 1, 1, (a) => {
      const out: string[] = [];
      argList(a, 0).forEach((v, j) => {
        if (v === null) return;
        const s = elemStr(v, 0, j, "compacted");
        if (s !== "") out.push(s);
      });
      return out;
    }),
    index: fn("collection, key",
      "The element of a list at a whole-number index, or of a map or object at a string key; an error when there is none (go-cty's index, not Terraform's).",
      2, 2, indexOf),
    reverse: fn("list_or_string", "A list with its elements in reverse order, or a string with its characters reversed.", 1, 1, ([v]) => {
      if (typeof v === "string") return graphemes(v).reverse().join("");
      return [...argList([v], 0)].reverse();
    }),
    reverselist: fn("list", "A list with its elements in reverse order.", 1, 1, (a) => [...argList(a, 0)].reverse()),
    sort: fn("list", "The list's strings in lexical order (numbers and bools convert to strings).", 1, 1, (a) =>
      argList(a, 0).map((v, j) => elemStr(v, 0, j, "sorted")).sort(compareCodePoints)),
    zipmap: fn("keys, values", "An object built from a list of keys and a list of values of the same length.", 2, 2, (a) => {
      const keys = argList(a, 0);
      const values = argList(a, 1);
      if (keys.length !== values.length) throw new FunctionError(`number of keys (${keys.length}) does not match number of values (${values.length})`);
      const out = newObject();
      keys.forEach((k, j) => (out[elemStr(k, 0, j, "keys")] = values[j] ?? null));
      return out;
    }),
    sethaselement: fn("set, value", "True when the set (a list) has an element equal to the value.", 2, 2, (a) => argList(a, 0).some((v) => deepEqual(v, a[1]))),
    setintersection: fn("sets...", "The elements that are in every one of the sets.", 1, Infinity, (a) => {
      const [first, ...rest] = sets(a);
      return first.items.filter((v) => rest.every((s) => s.keys.has(key(v))));
    }),
    setsubtract: fn("a, b", "The elements of set a that are not in set b.", 2, 2, (a) => {
      const [x, y] = sets(a);
      return x.items.filter((v) => !y.keys.has(key(v)));
    }),
    setsymmetricdifference: fn("sets...", "The elements that are in an odd number of the sets.", 1, Infinity, (a) => {
      const all = sets(a);
      return distinctOf(...all.map((s) => s.items)).filter((v) => all.filter((s) => s.keys.has(key(v))).length % 2 === 1);
    }),
    setunion: fn("sets...", "The elements that are in any of the sets.", 1, Infinity, (a) => distinctOf(...sets(a).map((s) => s.items))),
    setproduct: fn("sets...", `Every combination of one element from each set, as lists (at most ${SETPRODUCT_LIMIT}).`, 2, Infinity, setproduct),
  };
}

