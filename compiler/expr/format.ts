/**
 * The `format(spec, values...)` function: printf-style formatting.
 *
 * Source: Terraform / cty stdlib `format` (itself modelled on Go's fmt): verbs
 * `%%`, `%v` (any value; collections as JSON, `%#v` always JSON), `%s` (string; numbers
 * and bools convert), `%q` (JSON-quoted string), `%d` (whole number), `%f` / `%e`
 * (number, precision default 6), `%t` (bool), `%b %o %x %X` (whole number in base
 * 2/8/16). Flags `-` (left-justify), `+` (sign), ` ` (space for sign), `0` (zero pad),
 * `#`; a width and `.precision` (for `%s`: maximum characters); `%[n]` selects the n-th
 * (1-based) value explicitly.
 *
 * Errors: thrown as `FunctionError` (argument index 0 = the spec, i + 1 = value i):
 * unknown verb, missing value, wrong value type, unused values (when no `%[n]` was used).
 */
import { FunctionError, formatNumber, jsonEncode, toBool, toNumber, toStr, typeName, type Value } from "./value.js";

const VERB = /%(\[(\d+)\])?([-+ 0#]*)(\d+)?(?:\.(\d+))?([a-zA-Z%])?/y;

export function formatValues(spec: string, values: Value[]): string {
  let out = "";
  let next = 0;
  let explicit = false;
  let i = 0;
  while (i < spec.length) {
    const pct = spec.indexOf("%", i);
    if (pct < 0) {
      out += spec.slice(i);
      break;
    }
    out += spec.slice(i, pct);
    VERB.lastIndex = pct;
    const m = VERB.exec(spec)!;
    i = VERB.lastIndex;
    const verb = m[6];
    if (verb === undefined) throw new FunctionError(`unterminated format verb at offset ${pct} of the format string`, 0);
    if (verb === "%" && !m[1]) {
      out += "%";
      continue;
    }
    if (m[2] !== undefined) {
      next = Number(m[2]) - 1;
      explicit = true;
      if (next < 0) throw new FunctionError(`invalid argument index %[${m[2]}]: indexes start at 1`, 0);
    }
    if (next >= values.length) throw new FunctionError(`not enough values for the verb %${verb} at offset ${pct} (${values.length} given)`, 0);
    const argIndex = next + 1;
    const flags = m[3];
    const width = m[4] !== undefined ? Number(m[4]) : 0;
    const prec = m[5] !== undefined ? Number(m[5]) : undefined;
    if (width > 1000 || (prec ?? 0) > 100) throw new FunctionError("format width or precision too large", 0);
    const body = formatOne(verb, flags, prec, values[next++], argIndex);
    out += pad(body, width, flags, "dfeboxX".includes(verb));
  }
  if (!explicit && next < values.length) {
    throw new FunctionError(`too many values: the format string uses ${next} but ${values.length} were given`, next + 1);
  }
  return out;
}

function formatOne(verb: string, flags: string, prec: number | undefined, v: Value, argIndex: number): string {
  const bad = (want: string): never => {
    throw new FunctionError(`%${verb} needs ${want}, but got ${v === null ? "null" : typeName(v)}`, argIndex);
  };
  switch (verb) {
    case "v":
      if (flags.includes("#") || (v !== null && typeof v === "object")) return jsonEncode(v);
      return v === null ? "null" : toStr(v)!;
    case "s": {
      const s = toStr(v) ?? bad("a string");
      return prec !== undefined ? [...s].slice(0, prec).join("") : s;
    }
    case "q":
      return JSON.stringify(toStr(v) ?? bad("a string"));
    case "t": {
      const b = toBool(v);
      return b === undefined ? bad("a bool") : String(b);
    }
    case "d":
    case "b":
    case "o":
    case "x":
    case "X": {
      const n = toNumber(v);
      if (n === undefined || !Number.isInteger(n)) return bad("a whole number");
      const base = verb === "d" ? 10 : verb === "b" ? 2 : verb === "o" ? 8 : 16;
      const digits = verb === "d" && Math.abs(n) >= 1e21 ? formatNumber(Math.abs(n)) : Math.abs(n).toString(base);
      return sign(n, flags) + (verb === "X" ? digits.toUpperCase() : digits);
    }
    case "f":
    case "e": {
      const n = toNumber(v) ?? bad("a number");
      const p = prec ?? 6;
      let digits = verb === "f" ? Math.abs(n).toFixed(Math.min(p, 100)) : Math.abs(n).toExponential(Math.min(p, 100));
      if (verb === "e") digits = digits.replace(/e([+-])(\d)$/, "e$10$2");
      return sign(n, flags) + digits;
    }
    default:
      throw new FunctionError(`unsupported format verb %${verb}`, 0);
  }
}

function sign(n: number, flags: string): string {
  if (n < 0) return "-";
  if (flags.includes("+")) return "+";
  if (flags.includes(" ")) return " ";
  return "";
}

function pad(s: string, width: number, flags: string, numeric: boolean): string {
  const len = [...s].length;
  if (len >= width) return s;
  const fill = width - len;
  if (flags.includes("-")) return s + " ".repeat(fill);
  if (numeric && flags.includes("0")) {
    const signLen = /^[-+ ]/.test(s) ? 1 : 0;
    return s.slice(0, signLen) + "0".repeat(fill) + s.slice(signLen);
  }
  return " ".repeat(fill) + s;
}
