/**
 * Collection and set functions of go-cty's stdlib: chunklist, coalescelist, compact,
 * index, reverse, reverselist, sort, zipmap, sethaselement, setintersection,
 * setproduct, setsubtract, setsymmetricdifference, setunion.
 *
 * Sets are lists without duplicates (HCL `==` equality); set results keep the order in
 * which their elements are first seen across the arguments (cty orders sets by its own
 * rules; we keep the input order instead, which is stable and easier to predict).
 * `sort` orders strings by code point (Go's `sort.Strings`), converting numbers and
 * bools to strings. `reverse` reverses a list, or a string's characters (the Go tool
 * registers cty's string `reverse`; Terraform's `reverse` is a list function).
 */
import { argInt, argList, compareCodePoints, elemStr, fn, graphemes } from "./args.js";
import { deepEqual, FunctionError, jsonEncode, newObject, type FunctionTable, type Value } from "../value.js";

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
    index: fn("list, value", "The index of the first element equal to value; an error when there is none.", 2, 2, (a) => {
      const list = argList(a, 0);
      const i = list.findIndex((v) => deepEqual(v, a[1]));
      if (i < 0) throw new FunctionError("item not found", 1);
      return i;
    }),
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

