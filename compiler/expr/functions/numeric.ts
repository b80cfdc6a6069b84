/**
 * Numeric functions of go-cty's stdlib: add, subtract, multiply, divide, modulo, negate,
 * int, log, pow, signum, parseint (abs, ceil, floor, min, max are in functions.ts).
 *
 * Numbers are IEEE doubles (cty's are arbitrary-precision): a result that is not a
 * finite number (overflow, `log(0, 10)`, `pow(0, -1)`) is an error rather than cty's
 * infinity, as the evaluator's own operators do; so is a division or modulo by zero.
 * `modulo` keeps the dividend's sign (Go's and cty's truncated remainder).
 */
import { argNum, fn } from "./args.js";
import { FunctionError, typeName, type FunctionTable, type Value } from "../value.js";

/** A finite result with -0 as 0, or an error for infinities and NaN. */
function finite(n: number): number {
  if (!Number.isFinite(n)) throw new FunctionError("the result is not a finite number");
  return Object.is(n, -0) ? 0 : n;
}

function binary(doc: string, op: (a: number, b: number) => number) {
  return fn("a, b", doc, 2, 2, (a) => finite(op(argNum(a, 0), argNum(a, 1))));
}

const DIGITS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/**
 * `s` parsed as an integer in `base` (2-62) like Go's `big.Int.SetString`: an optional
 * sign, then digits 0-9 a-z A-Z (letters are case-insensitive up to base 36; above it
 * A-Z are 36-61). `undefined` when `s` is not such a number.
 */
function parseBigInt(s: string, base: number): bigint | undefined {
  let i = 0;
  let negative = false;
  if (s[0] === "+" || s[0] === "-") {
    negative = s[0] === "-";
    i = 1;
  }
  if (i >= s.length) return undefined;
  let out = 0n;
  const b = BigInt(base);
  for (; i < s.length; i++) {
    let d = DIGITS.indexOf(s[i]);
    if (d >= 36 && base <= 36) d -= 26;
    if (d < 0 || d >= base) return undefined;
    out = out * b + BigInt(d);
  }
  return negative ? -out : out;
}

/** The numeric functions that go-cty's stdlib adds to abs/ceil/floor/min/max. */
export function numericFunctions(): FunctionTable {
  return {
    add: binary("The sum of two numbers.", (x, y) => x + y),
    subtract: binary("The difference of two numbers (a - b).", (x, y) => x - y),
    multiply: binary("The product of two numbers.", (x, y) => x * y),
    divide: fn("a, b", "The quotient of two numbers (a / b); dividing by zero is an error.", 2, 2, (a) => {
      const x = argNum(a, 0);
      const y = argNum(a, 1);
      if (y === 0) throw new FunctionError("cannot divide by zero", 1);
      return finite(x / y);
    }),
    modulo: fn("a, b", "The remainder of a / b, with the sign of a; zero as b is an error.", 2, 2, (a) => {
      const x = argNum(a, 0);
      const y = argNum(a, 1);
      if (y === 0) throw new FunctionError("cannot use modulo with zero", 1);
      return finite(x % y);
    }),
    negate: fn("num", "The number with its sign flipped.", 1, 1, (a) => finite(-argNum(a, 0))),
    int: fn("num", "The integer part of a number (truncated towards zero).", 1, 1, (a) => finite(Math.trunc(argNum(a, 0)))),
    log: fn("num, base", "The logarithm of num in the given base.", 2, 2, (a) => finite(Math.log(argNum(a, 0)) / Math.log(argNum(a, 1)))),
    pow: fn("num, power", "num raised to the given power.", 2, 2, (a) => finite(Math.pow(argNum(a, 0), argNum(a, 1)))),
    signum: fn("num", "-1, 0 or 1: the sign of a number.", 1, 1, (a) => Math.sign(argNum(a, 0)) || 0),
    parseint: fn("number, base", "Parses a string as an integer in the given base (2 to 62).", 2, 2, (a) => {
      const v: Value = a[0];
      if (typeof v !== "string") throw new FunctionError(v === null ? "must not be null" : `the first argument must be a string, not ${typeName(v)}`, 0);
      const base = argNum(a, 1);
      if (!Number.isInteger(base) || base < 2 || base > 62) throw new FunctionError("base must be a whole number between 2 and 62 inclusive", 1);
      const n = parseBigInt(v, base);
      if (n === undefined) throw new FunctionError(`cannot parse ${JSON.stringify(v)} as a base ${base} integer`, 0);
      if (n > BigInt(Number.MAX_SAFE_INTEGER) || n < -BigInt(Number.MAX_SAFE_INTEGER)) {
        throw new FunctionError(`${JSON.stringify(v)} is beyond ±2^53 and cannot be represented exactly`, 0);
      }
      return Number(n) || 0;
    }),
  };
}
