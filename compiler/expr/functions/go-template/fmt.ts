/**
 * Go's fmt over template values: Sprint, Sprintln and Sprintf (verbs, flags, width,
 * precision, argument indexes and Go's error markers), as print, println, printf and
 * the output of actions use them.
 *
 * Source: Go's fmt package's documented behaviour (https://pkg.go.dev/fmt), checked
 * against Go's output; see index.ts.
 */
import { canBackquote, formatFloat, isPrint, quoteRune, quoteString } from "./strconv.js";
import { charAt, GoInt, sortedMapKeys, typeOf, utf8Encoder, type GoVal } from "./values.js";

interface Flags {
  plus: boolean;
  minus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  sharpV: boolean;
  wid?: number;
  prec?: number;
}

export const NO_FLAGS: Flags = { plus: false, minus: false, sharp: false, space: false, zero: false, sharpV: false };

function runeCount(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** Pads to the width (counted in runes): spaces, or zeros on the left when `zeroOk` and the 0 flag. */
function pad(s: string, f: Flags, zeroOk = false): string {
  if (f.wid === undefined) return s;
  const fill = f.wid - runeCount(s);
  if (fill <= 0) return s;
  if (f.minus) return s + " ".repeat(fill);
  return (zeroOk && f.zero ? "0" : " ").repeat(fill) + s;
}

function fmtFloatVerb(x: number, verb: string, f: Flags): string {
  const prec = f.prec ?? ("vgG".includes(verb) ? -1 : 6);
  if (verb === "v") verb = "g";
  if (verb === "F") verb = "f";
  const num = formatFloat(x, verb, prec);
  let sign = num[0] === "-" ? "-" : "+";
  const body = num[0] === "-" ? num.slice(1) : num;
  if (f.space && sign === "+" && !f.plus) sign = " ";
  if (body === "Inf" || body === "NaN") return pad(sign === "+" && !f.plus ? body : sign + body, f);
  if (f.plus || sign !== "+") {
    if (f.zero && f.wid !== undefined && f.wid > body.length + 1) return sign + "0".repeat(f.wid - body.length - 1) + body;
    return pad(sign + body, f);
  }
  return pad(body, f, true);
}

function fmtInteger(v: bigint, base: number, verb: string, f: Flags): string {
  const neg = v < 0n;
  const u = neg ? -v : v;
  let prec = 0;
  if (f.prec !== undefined) {
    prec = f.prec;
    if (prec === 0 && u === 0n) return pad("", { ...f, zero: false });
  } else if (f.zero && f.wid !== undefined) {
    prec = f.wid;
    if (neg || f.plus || f.space) prec--;
  }
  let digits = u.toString(base);
  if (verb === "X") digits = digits.toUpperCase();
  if (digits.length < prec) digits = "0".repeat(prec - digits.length) + digits;
  if (f.sharp) {
    if (base === 2) digits = "0b" + digits;
    else if (base === 8 && digits[0] !== "0") digits = "0" + digits;
    else if (base === 16) digits = (verb === "X" ? "0X" : "0x") + digits;
  }
  if (verb === "O") digits = "0o" + digits;
  const sign = neg ? "-" : f.plus ? "+" : f.space ? " " : "";
  return pad(sign + digits, { ...f, zero: false });
}

function fmtIntVerb(arg: GoInt, verb: string, f: Flags): string | undefined {
  const v = arg.v;
  switch (verb) {
    case "v":
    case "d":
      return fmtInteger(v, 10, verb, f);
    case "b":
      return fmtInteger(v, 2, verb, f);
    case "o":
    case "O":
      return fmtInteger(v, 8, verb, f);
    case "x":
    case "X":
      return fmtInteger(v, 16, verb, f);
    case "c":
      return pad(v < 0n || v > 0x10ffffn || (v >= 0xd800n && v <= 0xdfffn) ? "\ufffd" : String.fromCodePoint(Number(v)), f);
    case "q":
      return pad(quoteRune(v > 0x10ffffn || v < 0n ? 0xfffd : Number(v), f.plus), f);
    case "U": {
      let s = "U+" + v.toString(16).toUpperCase().padStart(Math.max(4, f.prec ?? 0), "0");
      if (f.sharp && v >= 0n && v <= 0x10ffffn && !(v >= 0xd800n && v <= 0xdfffn) && isPrint(String.fromCodePoint(Number(v)))) {
        s += ` '${String.fromCodePoint(Number(v))}'`;
      }
      return pad(s, f);
    }
    case "e":
    case "E":
    case "f":
    case "F":
    case "g":
    case "G":
      // The Go tool's docs: printf "%.1f" gives decimal output for any number.
      return fmtFloatVerb(Number(v), verb, f);
  }
  return undefined;
}

function fmtStringVerb(s: string, verb: string, f: Flags): string | undefined {
  switch (verb) {
    case "v":
      if (f.sharpV) return pad(quoteString(s, false), f);
      return pad(f.prec !== undefined ? Array.from(s).slice(0, f.prec).join("") : s, f);
    case "s":
      return pad(f.prec !== undefined ? Array.from(s).slice(0, f.prec).join("") : s, f);
    case "q": {
      const t = f.prec !== undefined ? Array.from(s).slice(0, f.prec).join("") : s;
      if (f.sharp && canBackquote(t)) return pad("`" + t + "`", f);
      return pad(quoteString(t, f.plus), f);
    }
    case "x":
    case "X": {
      let bytes = utf8Encoder.encode(s);
      if (f.prec !== undefined) bytes = bytes.slice(0, f.prec);
      const parts = Array.from(bytes, (b) => b.toString(16).padStart(2, "0"));
      let out: string;
      if (f.space) out = parts.map((p) => (f.sharp ? "0x" + p : p)).join(" ");
      else out = (f.sharp && parts.length > 0 ? "0x" : "") + parts.join("");
      return pad(verb === "X" ? out.toUpperCase() : out, f);
    }
  }
  return undefined;
}

/** fmt's printArg (depth 0) and printValue (inside lists and maps). */
export function fmtArg(arg: GoVal, verb: string, f: Flags, depth = 0): string {
  if (arg === null) {
    if (depth > 0) return "<nil>";
    return verb === "v" || verb === "T" ? pad("<nil>", f) : badVerb(arg, verb, f);
  }
  if (verb === "T") return pad(typeOf(arg), f);
  let out: string | undefined;
  if (typeof arg === "boolean") out = verb === "t" || verb === "v" ? pad(String(arg), f) : undefined;
  else if (typeof arg === "number") out = "veEfFgG".includes(verb) ? fmtFloatVerb(arg, verb, f) : undefined;
  else if (arg instanceof GoInt) out = fmtIntVerb(arg, verb, f);
  else if (typeof arg === "string") out = fmtStringVerb(arg, verb, f);
  else if (Array.isArray(arg)) {
    if (f.sharpV) return `[]interface {}{${arg.map((x) => (x === null ? "interface {}(nil)" : fmtArg(x, verb, f, depth + 1))).join(", ")}}`;
    return `[${arg.map((x) => fmtArg(x, verb, f, depth + 1)).join(" ")}]`;
  } else {
    const keys = sortedMapKeys(arg);
    if (f.sharpV) {
      const items = keys.map((k) => {
        const x = arg.get(k)!;
        return `${fmtArg(k, verb, f, depth + 1)}:${x === null ? "interface {}(nil)" : fmtArg(x, verb, f, depth + 1)}`;
      });
      return `map[string]interface {}{${items.join(", ")}}`;
    }
    return `map[${keys.map((k) => `${fmtArg(k, verb, f, depth + 1)}:${fmtArg(arg.get(k)!, verb, f, depth + 1)}`).join(" ")}]`;
  }
  return out ?? badVerb(arg, verb, f);
}

function badVerb(arg: GoVal, verb: string, f: Flags): string {
  if (arg === null) return `%!${verb}(<nil>)`;
  return `%!${verb}(${typeOf(arg)}=${fmtArg(arg, "v", f, 1)})`;
}

/** fmt.Sprint: spaces between operands when neither is a string. */
export function sprint(args: GoVal[]): string {
  let out = "";
  let prevString = false;
  args.forEach((a, i) => {
    const isString = typeof a === "string";
    if (i > 0 && !isString && !prevString) out += " ";
    out += fmtArg(a, "v", NO_FLAGS);
    prevString = isString;
  });
  return out;
}

/** fmt.Sprintln: spaces between all operands, and a newline. */
export function sprintln(args: GoVal[]): string {
  return args.map((a) => fmtArg(a, "v", NO_FLAGS)).join(" ") + "\n";
}

function tooLarge(n: number): boolean {
  return n > 1e6 || n < -1e6;
}

/** fmt.Sprintf. */
export function sprintf(format: string, args: GoVal[]): string {
  let out = "";
  let argNum = 0;
  let reordered = false;
  const end = format.length;
  let i = 0;
  const parseNum = (start: number): [number | undefined, number] => {
    let n = 0;
    let j = start;
    let found = false;
    while (j < end && format[j] >= "0" && format[j] <= "9") {
      if (tooLarge(n)) return [undefined, end];
      n = n * 10 + Number(format[j]);
      found = true;
      j++;
    }
    return [found ? n : undefined, j];
  };
  let goodArgNum = true;
  /** `[n]` at `i`: the new argument number and position, and whether an index was found. */
  const argNumber = (pos: number): boolean => {
    if (format[pos] !== "[") return false;
    reordered = true;
    const close = format.indexOf("]", pos + 1);
    if (close < 0) {
      goodArgNum = false;
      i = pos + 1;
      return false;
    }
    const [n, j] = parseNum(pos + 1);
    i = close + 1;
    if (n === undefined || j !== close || n < 1 || n > args.length) {
      goodArgNum = false;
      return n !== undefined && j === close;
    }
    argNum = n - 1;
    return true;
  };
  const intFromArg = (): number | undefined => {
    if (argNum >= args.length) return undefined;
    const a = args[argNum++];
    if (!(a instanceof GoInt)) return undefined;
    const n = Number(a.v);
    return tooLarge(n) ? undefined : n;
  };
  while (i < end) {
    goodArgNum = true;
    const pct = format.indexOf("%", i);
    if (pct < 0) {
      out += format.slice(i);
      break;
    }
    out += format.slice(i, pct);
    i = pct + 1;
    const f: Flags = { ...NO_FLAGS };
    flags: for (; i < end; i++) {
      switch (format[i]) {
        case "#":
          f.sharp = true;
          break;
        case "0":
          f.zero = !f.minus;
          break;
        case "+":
          f.plus = true;
          break;
        case "-":
          f.minus = true;
          f.zero = false;
          break;
        case " ":
          f.space = true;
          break;
        default:
          break flags;
      }
    }
    let afterIndex = argNumber(i);
    if (format[i] === "*") {
      i++;
      const w = intFromArg();
      if (w === undefined) out += "%!(BADWIDTH)";
      else {
        f.wid = Math.abs(w);
        if (w < 0) {
          f.minus = true;
          f.zero = false;
        }
      }
      afterIndex = false;
    } else {
      const [w, j] = parseNum(i);
      i = j;
      f.wid = w;
      if (afterIndex && w !== undefined) goodArgNum = false;
    }
    if (i + 1 < end && format[i] === ".") {
      i++;
      if (afterIndex) goodArgNum = false;
      afterIndex = argNumber(i);
      if (format[i] === "*") {
        i++;
        const p = intFromArg();
        if (p === undefined || p < 0) out += "%!(BADPREC)";
        else f.prec = p;
        afterIndex = false;
      } else {
        const [p, j] = parseNum(i);
        i = j;
        f.prec = p ?? 0;
      }
    }
    if (!afterIndex) afterIndex = argNumber(i);
    if (i >= end) {
      out += "%!(NOVERB)";
      break;
    }
    const verb = charAt(format, i)!;
    i += verb.length;
    if (verb === "%") {
      out += "%";
    } else if (!goodArgNum) {
      out += `%!${verb}(BADINDEX)`;
    } else if (argNum >= args.length) {
      out += `%!${verb}(MISSING)`;
    } else {
      if (verb === "v") {
        f.sharpV = f.sharp;
        f.sharp = false;
        f.plus = false;
      }
      out += fmtArg(args[argNum++], verb, f);
    }
  }
  if (!reordered && argNum < args.length) {
    out += `%!(EXTRA ${args.slice(argNum).map((a) => (a === null ? "<nil>" : `${typeOf(a)}=${fmtArg(a, "v", NO_FLAGS)}`)).join(", ")})`;
  }
  return out;
}
