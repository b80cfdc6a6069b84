/**
 * Regular-expression functions: regex, regexall, regexreplace (and the `/re/` form of
 * `replace`), with Go's RE2 syntax and match rules on top of JavaScript's engine.
 *
 * Source: go-cty stdlib regexp.go (result shapes: no capture groups -> the matched
 * string; unnamed groups -> a list; named groups -> an object; a group that did not take
 * part is null; mixing named and unnamed groups is an error), Go's regexp package (RE2
 * syntax; `FindAll`/`ReplaceAll` skip an empty match that abuts the previous match;
 * `Expand` for `$1`, `${1}`, `$name`, `${name}`, `$$` in replacements).
 *
 * Translation (`compileRe2`): a leading `(?flags)` (i, m, s) applies to the whole
 * pattern; `(?P<n>` -> `(?<n>`; `.` excludes only `\n`, and lines end only at `\n`, as
 * in RE2; `\A` `\z` `\Q...\E` `\pL` `\x{h}` octal `\123` escapes, `\s` (the ASCII
 * space class) and `[[:alpha:]]`-style classes are rewritten; other escaped
 * punctuation is made a literal. What RE2 lacks (lookaround, back
 * references, flags other than at the start) is refused.
 *
 * Errors: `FunctionError` "invalid regular expression pattern: ..." on the pattern.
 */
import { argStr, fn } from "./args.js";
import { FunctionError, newObject, type FunctionTable, type Value } from "../value.js";

/** A compiled pattern and the shape of its results. */
export interface Re2 {
  /** Global (`g`), Unicode-aware regular expression. */
  re: RegExp;
  /** Number of capture groups. */
  groups: number;
  /** Group names when every group is named; empty when none is. */
  names: string[];
}

const POSIX: Record<string, string> = {
  alnum: "0-9A-Za-z", alpha: "A-Za-z", ascii: "\\x00-\\x7f", blank: "\\t ", cntrl: "\\x00-\\x1f\\x7f", digit: "0-9",
  graph: "!-~", lower: "a-z", print: " -~", punct: "!-\\/:-@\\[-`{-~", space: "\\t\\n\\v\\f\\r ", upper: "A-Z",
  word: "0-9A-Za-z_", xdigit: "0-9A-Fa-f",
};
const JS_SYNTAX = "^$\\.*+?()[]{}|/";
const cache = new Map<string, Re2>();

function bad(message: string): never {
  throw new FunctionError(`invalid regular expression pattern: ${message}`);
}

function hexEscape(cp: number): string {
  return `\\u{${cp.toString(16)}}`;
}

/** One `\x` escape at `p[i] === "\\"`: the JS text and the index after it. */
function escape(p: string, i: number, inClass: boolean): [string, number] {
  const c = p[i + 1];
  if (c === undefined) bad("trailing backslash at end of expression");
  if (/[0-7]/.test(c)) {
    const m = /^[0-7]{1,3}/.exec(p.slice(i + 1))![0];
    // A single non-zero digit would be a back reference, which RE2 does not have.
    if (c !== "0" && m.length === 1) bad(`invalid escape sequence: \\${c}`);
    return [hexEscape(parseInt(m, 8)), i + 1 + m.length];
  }
  if (c === "x" && p[i + 2] === "{") {
    const end = p.indexOf("}", i + 3);
    const hex = end < 0 ? "" : p.slice(i + 3, end);
    if (!/^[0-9a-fA-F]{1,6}$/.test(hex) || parseInt(hex, 16) > 0x10ffff) bad("invalid escape sequence: \\x{");
    return [hexEscape(parseInt(hex, 16)), end + 1];
  }
  if (c === "p" || c === "P") return unicodeClass(p, i, inClass);
  if (c === "a") return ["\\x07", i + 2];
  if (c === "s") return [inClass ? "\\t\\n\\f\\r " : "[\\t\\n\\f\\r ]", i + 2];
  if (c === "S" && !inClass) return ["[^\\t\\n\\f\\r ]", i + 2];
  if (c === "A" && !inClass) return ["(?<![\\s\\S])", i + 2];
  if (c === "z" && !inClass) return ["(?![\\s\\S])", i + 2];
  if (/[dDwWbBfnrtvxS]/.test(c)) return [`\\${c}`, i + 2];
  if (/[!-\/:-@\[-`{-~]/.test(c)) return [JS_SYNTAX.includes(c) || (inClass && c === "-") ? `\\${c}` : hexEscape(c.charCodeAt(0)), i + 2];
  return bad(`invalid escape sequence: \\${c}`);
}

/** `\pL`, `\p{Lu}`, `\p{Greek}`, `\p{^Greek}`, `\PL` at `p[i] === "\\"`: JS's spelling (scripts need `Script=`). */
function unicodeClass(p: string, i: number, inClass: boolean): [string, number] {
  let negate = p[i + 1] === "P";
  let name: string;
  let next: number;
  if (p[i + 2] === "{") {
    const end = p.indexOf("}", i + 3);
    if (end < 0) bad(`invalid character class range: ${p.slice(i)}`);
    name = p.slice(i + 3, end);
    next = end + 1;
    if (name.startsWith("^")) {
      negate = !negate;
      name = name.slice(1);
    }
  } else {
    name = p[i + 2] ?? "";
    next = i + 3;
  }
  if (!/^[A-Za-z_]+$/.test(name)) bad(`invalid character class range: ${p.slice(i, next)}`);
  if (name === "Any") {
    if (negate && inClass) bad("\\P{Any} inside a character class is not supported");
    return [inClass ? "\\s\\S" : negate ? "[^\\s\\S]" : "[\\s\\S]", next];
  }
  return [`\\${negate ? "P" : "p"}{${/^[A-Z][a-z]?$/.test(name) ? name : `Script=${name}`}}`, next];
}

/** The JS source of an RE2 pattern (without its leading flags). */
function translate(p: string, dotAll: boolean, multiline: boolean): string {
  let out = "";
  let i = 0;
  while (i < p.length) {
    const c = p[i];
    if (c === "\\" && p[i + 1] === "Q") {
      const end = p.indexOf("\\E", i + 2);
      const lit = p.slice(i + 2, end < 0 ? undefined : end);
      out += Array.from(lit, (x) => (/[\w\s]/.test(x) ? x : hexEscape(x.codePointAt(0)!))).join("");
      i = end < 0 ? p.length : end + 2;
    } else if (c === "\\") {
      const [s, next] = escape(p, i, false);
      out += s;
      i = next;
    } else if (c === "[") {
      i = translateClass(p, i, (s) => (out += s));
    } else if (c === "(" && p[i + 1] === "?") {
      if (p.startsWith("(?P<", i)) {
        out += "(?<";
        i += 4;
      } else if (p.startsWith("(?<", i) && !p.startsWith("(?<=", i) && !p.startsWith("(?<!", i)) {
        out += "(?<";
        i += 3;
      } else if (p.startsWith("(?:", i)) {
        out += "(?:";
        i += 3;
      } else {
        bad(`invalid or unsupported Perl syntax: \`${p.slice(i, i + 3)}\``);
      }
    } else if (c === "{") {
      // A brace that does not start a repetition is a literal in RE2 (an error in JS's u mode).
      const rep = /^\{\d+(?:,\d*)?\}/.exec(p.slice(i));
      out += rep ? rep[0] : "\\{";
      i += rep ? rep[0].length : 1;
    } else if (c === "}" || c === "]") {
      out += `\\${c}`;
      i++;
    } else if ((c === "^" || c === "$") && multiline) {
      // RE2's lines end only at "\n" (JS's also at "\r", U+2028, U+2029).
      out += c === "^" ? "(?<![^\\n])" : "(?![^\\n])";
      i++;
    } else if (c === ".") {
      out += dotAll ? "[\\s\\S]" : "[^\\n]";
      i++;
    } else {
      const cp = p.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      out += ch;
      i += ch.length;
    }
  }
  return out;
}

/** A bracket class starting at `p[i] === "["`; emits its JS text, returns the index after it. */
function translateClass(p: string, i: number, emit: (s: string) => void): number {
  let out = "[";
  let j = i + 1;
  if (p[j] === "^") {
    out += "^";
    j++;
  }
  let first = true;
  while (j < p.length && (p[j] !== "]" || first)) {
    first = false;
    const posix = /^\[:(\^?)([a-z]+):\]/.exec(p.slice(j));
    if (posix) {
      const set = POSIX[posix[2]];
      if (!set || posix[1]) bad(`invalid character class range: ${posix[0]}`);
      out += set;
      j += posix[0].length;
    } else if (p[j] === "\\") {
      const [s, next] = escape(p, j, true);
      out += s;
      j = next;
    } else {
      out += p[j] === "[" ? "\\[" : p[j];
      j++;
    }
  }
  if (j >= p.length) bad(`missing closing ]: \`${p.slice(i)}\``);
  emit(out + "]");
  return j + 1;
}

/** Compiles an RE2 pattern (cached); throws `FunctionError` (no argument index) when it is invalid. */
export function compileRe2(pattern: string): Re2 {
  const hit = cache.get(pattern);
  if (hit) return hit;
  let flags = "gu";
  let body = pattern;
  const lead = /^\(\?([a-zA-Z]+)\)/.exec(pattern);
  if (lead) {
    for (const f of lead[1]) {
      if (!"ims".includes(f)) bad(`invalid or unsupported Perl syntax: \`(?${f}\``);
      if (!flags.includes(f)) flags += f;
    }
    body = pattern.slice(lead[0].length);
  }
  let re: RegExp;
  try {
    re = new RegExp(translate(body, flags.includes("s"), flags.includes("m")), flags.replace(/[sm]/g, ""));
  } catch (err) {
    if (err instanceof FunctionError) throw err;
    // V8 says "Invalid regular expression: /<its translation>/<flags>: Unterminated group":
    // the translation is not what the user wrote, so name theirs instead (found by a new-user trial).
    const why = (err as Error).message.replace(/^Invalid regular expression: /, "").replace(/^\/[\s\S]*\/[a-z]*: /, "");
    return bad(`${why.charAt(0).toLowerCase()}${why.slice(1)} in ${JSON.stringify(pattern)}`);
  }
  const probe = new RegExp(`${re.source}|`, re.flags.replace("g", "")).exec("")!;
  const groups = probe.length - 1;
  const names = Object.keys(probe.groups ?? {});
  if (names.length > 0 && names.length !== groups) bad("can't mix named and unnamed capture groups");
  const out: Re2 = { re, groups, names };
  if (cache.size >= 256) cache.clear();
  cache.set(pattern, out);
  return out;
}

/** Every match as Go's `FindAll` reports them: an empty match abutting the previous match is skipped. */
function* goMatches(re: RegExp, s: string): Generator<RegExpExecArray> {
  let pos = 0;
  let prevEnd = -1;
  while (pos <= s.length) {
    re.lastIndex = pos;
    const m = re.exec(s);
    if (!m) return;
    const end = m.index + m[0].length;
    const accept = !(m[0] === "" && m.index === prevEnd);
    if (m[0] === "") pos = end + (end < s.length ? String.fromCodePoint(s.codePointAt(end)!).length : 1);
    else pos = end;
    prevEnd = end;
    if (accept) yield m;
  }
}

/** One match in cty's result shape. */
function shape(r: Re2, m: RegExpExecArray): Value {
  if (r.groups === 0) return m[0];
  if (r.names.length === 0) return m.slice(1).map((x) => x ?? null);
  const o = newObject();
  for (const n of r.names) o[n] = m.groups?.[n] ?? null;
  return o;
}

/** Go's `Regexp.Expand`: `$1`, `${1}`, `$name`, `${name}`, `$$`; a malformed `$` stays literal. */
function expand(template: string, m: RegExpExecArray): string {
  return template.replace(/\$(?:\$|\{([\p{L}\p{Nd}_]+)\}|([\p{L}\p{Nd}_]+))?/gu, (all, braced?: string, bare?: string) => {
    if (all === "$$") return "$";
    const name = braced ?? bare;
    if (name === undefined) return "$";
    if (/^[0-9]+$/.test(name)) return m[Number(name)] ?? "";
    return m.groups?.[name] ?? "";
  });
}

/** `s` with every match of `pattern` (RE2) replaced by the expanded `replacement`. */
export function re2ReplaceAll(s: string, pattern: string, replacement: string): string {
  const { re } = compileRe2(pattern);
  let out = "";
  let last = 0;
  for (const m of goMatches(re, s)) {
    out += s.slice(last, m.index) + expand(replacement, m);
    last = m.index + m[0].length;
  }
  return out + s.slice(last);
}

/** Runs `f`, blaming argument `i` for an invalid pattern. */
function onArg<T>(i: number, f: () => T): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof FunctionError && err.argIndex === undefined) throw new FunctionError(err.message, i);
    throw err;
  }
}

/** regex, regexall and regexreplace. */
export function regexFunctions(): FunctionTable {
  return {
    regex: fn("pattern, string", "The first match of an RE2 pattern: the matched string, a list of its groups, or an object of its named groups.", 2, 2, (a) => {
      const r = onArg(0, () => compileRe2(argStr(a, 0)));
      const s = argStr(a, 1);
      r.re.lastIndex = 0;
      const m = r.re.exec(s);
      if (!m) throw new FunctionError("pattern did not match any part of the given string", 1);
      return shape(r, m);
    }),
    regexall: fn("pattern, string", "Every match of an RE2 pattern, each shaped as regex() returns it (an empty list when none).", 2, 2, (a) => {
      const r = onArg(0, () => compileRe2(argStr(a, 0)));
      return Array.from(goMatches(r.re, argStr(a, 1)), (m) => shape(r, m));
    }),
    regexreplace: fn("string, pattern, replacement", "Replaces every match of an RE2 pattern; $1, ${name} and $$ in the replacement expand.", 3, 3,
      (a) => onArg(1, () => re2ReplaceAll(argStr(a, 0), argStr(a, 1), argStr(a, 2)))),
  };
}
