/**
 * Logical and comparison functions of go-cty's stdlib: and, or, not, equal, notequal,
 * greaterthan, greaterthanorequalto, lessthan, lessthanorequalto, assertnotnull, hasindex.
 *
 * `equal`/`notequal` compare like `==`/`!=` (type and content, no conversion; null
 * equals null). The ordering functions take numbers (numeric strings convert), the
 * boolean ones bools ("true"/"false" convert). `hasindex` follows cty's `HasIndex`: a
 * list has whole-number indexes 0..length-1, an object or map has its keys, and a key
 * of the other kind is simply absent.
 */
import { argBool, argNum, fn } from "./args.js";
import { deepEqual, FunctionError, hasOwn, isObject, type FunctionTable } from "../value.js";

function compare(doc: string, op: (a: number, b: number) => boolean) {
  return fn("a, b", doc, 2, 2, (a) => op(argNum(a, 0), argNum(a, 1)));
}

/** The logical and comparison functions of go-cty's stdlib. */
export function logicFunctions(): FunctionTable {
  return {
    // Both arguments are checked: these are functions, not short-circuiting operators.
    and: fn("a, b", "True when both bools are true.", 2, 2, (a) => [argBool(a, 0), argBool(a, 1)].every(Boolean)),
    or: fn("a, b", "True when either bool is true.", 2, 2, (a) => [argBool(a, 0), argBool(a, 1)].some(Boolean)),
    not: fn("val", "The opposite of a bool.", 1, 1, (a) => !argBool(a, 0)),
    equal: fn("a, b", "True when the two values have the same type and content (like ==).", 2, 2, (a) => deepEqual(a[0], a[1])),
    notequal: fn("a, b", "True when the two values differ in type or content (like !=).", 2, 2, (a) => !deepEqual(a[0], a[1])),
    greaterthan: compare("True when a is greater than b.", (x, y) => x > y),
    greaterthanorequalto: compare("True when a is greater than or equal to b.", (x, y) => x >= y),
    lessthan: compare("True when a is less than b.", (x, y) => x < y),
    lessthanorequalto: compare("True when a is less than or equal to b.", (x, y) => x <= y),
    assertnotnull: fn("v", "The value itself; an error when it is null.", 1, 1, ([v]) => {
      if (v === null) throw new FunctionError("argument must not be null", 0);
      return v;
    }),
    hasindex: fn("collection, key", "True when the list has the index, or the object or map has the key.", 2, 2, ([c, k]) => {
      if (Array.isArray(c)) return typeof k === "number" && Number.isInteger(k) && k >= 0 && k < c.length;
      if (isObject(c)) return typeof k === "string" && hasOwn(c, k);
      throw new FunctionError(c === null ? "must not be null" : "collection must be a list, a map or a tuple", 0);
    }),
  };
}
