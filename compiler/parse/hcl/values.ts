/**
 * Values: template literal decoding, exact number handling, and the canonical JSON value
 * of an expression (the rendering `@cdktn/hcl2json` gives, which later stages consume).
 *
 * Sources:
 * - HCL native syntax specification (`hclsyntax/spec.md`), "Template Expressions"
 *   (escapes `\n \r \t \" \\ \uNNNN \UNNNNNNNN`, `$${` / `%%{`) and "Numeric Literals"
 *   (arbitrary precision: a literal is never rounded silently here; one that a JSON
 *   number cannot hold exactly is an `invalid_value` error, not a rounded value);
 * - hcl2json's rendering (tmccombs/hcl2json `convert.go` as built into @cdktn/hcl2json
 *   0.24, checked against its output by `test/parse/hcl-differential.test.ts`):
 *   literals become JSON values; `-`/`!` on a literal is folded (`-1` → -1, `!true` →
 *   false; `-true`, `!1`, `-null` are errors); a template becomes a string: literal text
 *   with `${` / `%{` re-escaped as `$${` / `%%{`, an interpolation of a literal its
 *   string form, of a template that template, of a conditional `%{if c}a%{else}b%{endif}`,
 *   of anything else `${<source>}`, and directives re-rendered as `%{if c}…%{endif}` and
 *   `%{for k, v in c}…%{endfor}`; a template that is one interpolation (`"${x}"`) is `x`'s
 *   value; tuples and objects element-wise (object keys: a name or static traversal by its
 *   source text, anything else by its string form, a later duplicate replacing an earlier
 *   one); every other expression the string `${<source text>}`.
 * Line endings inside values are normalised to `\n` (hcl2json keeps the `\r` of CRLF files).
 */
import type { JsonObject, JsonValue } from "../document.js";
import { jsonObject } from "../document.js";
import { QUOTE_NUMBER_HINT, type Problem } from "./diagnostics.js";
import type { Expr, ObjectExpr, TemplatePart } from "./cst.js";

/** Receives problems found while decoding or converting. */
export type Report = (problem: Problem) => void;

const ESCAPES: Record<string, string> = { n: "\n", r: "\r", t: "\t", '"': '"', "\\": "\\" };

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

/**
 * Decodes the literal text `text[start, end)` of a quoted template: backslash escapes,
 * `$${` → `${`, `%%{` → `%{`. Bad escapes are reported (positioned on the escape) and
 * kept as their selector character.
 */
export function decodeQuoted(text: string, start: number, end: number, report: Report): string {
  if (isPlain(text, start, end)) return text.slice(start, end);
  let out = "";
  let from = start;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 92 /* \ */) {
      out += text.slice(from, i);
      if (i + 1 >= end) {
        report({ code: "syntax_error", start: i, end: i + 1, message: "invalid escape sequence: a backslash must be followed by an escape sequence selector character", hint: 'write "\\\\" for a backslash' });
        from = i + 1;
        continue;
      }
      const sel = text[i + 1];
      const simple = ESCAPES[sel];
      if (simple !== undefined) {
        out += simple;
        i++;
      } else if (sel === "u" || sel === "U") {
        const len = sel === "u" ? 4 : 8;
        let j = i + 2;
        while (j < end && j < i + 2 + len && isHex(text.charCodeAt(j))) j++;
        if (j - (i + 2) !== len) {
          report({
            code: "syntax_error",
            start: i,
            end: j,
            message: `invalid escape sequence: the \\${sel} escape sequence must be followed by ${len === 4 ? "four" : "eight"} hexadecimal digits`,
          });
        } else {
          const cp = parseInt(text.slice(i + 2, j), 16);
          if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
            report({ code: "syntax_error", start: i, end: j, message: `invalid escape sequence: cannot encode character U+${cp.toString(16).padStart(4, "0")} in UTF-8` });
          } else {
            out += String.fromCodePoint(cp);
          }
        }
        i = j - 1;
      } else {
        const cp = text.codePointAt(i + 1) ?? 0;
        const ch = String.fromCodePoint(cp);
        report({
          code: "syntax_error",
          start: i,
          end: i + 1 + ch.length,
          message: `invalid escape sequence: ${JSON.stringify(ch)} is not a valid escape sequence selector`,
          hint: 'valid escapes are \\n, \\r, \\t, \\", \\\\, \\uNNNN and \\UNNNNNNNN; write "\\\\" for a backslash',
        });
        out += ch;
        i += ch.length;
      }
      from = i + 1;
    } else if ((c === 36 || c === 37) && text.charCodeAt(i + 1) === c && text.charCodeAt(i + 2) === 123 && i + 2 < end) {
      out += text.slice(from, i + 1) + "{";
      i += 2;
      from = i + 1;
    }
  }
  return out + text.slice(from, end);
}

/** True when `text[start, end)` has no backslash and no `$${` / `%%{` escape. */
function isPlain(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 92) return false;
    if ((c === 36 || c === 37) && text.charCodeAt(i + 1) === c && text.charCodeAt(i + 2) === 123) return false;
  }
  return true;
}

/** Decodes heredoc literal text: `$${` / `%%{` escapes, CRLF → LF (no backslash escapes). */
export function decodeHeredoc(text: string, start: number, end: number): string {
  let s = text.slice(start, end);
  if (s.includes("\r")) s = s.replace(/\r\n/g, "\n");
  if (s.includes("$${") || s.includes("%%{")) s = s.replace(/([$%])\1\{/g, "$1{");
  return s;
}

/** Re-escapes `${` / `%{` in literal text as `$${` / `%%{` (hcl2json's rendering). */
export function escapeTemplateLiteral(s: string): string {
  if (!s.includes("{")) return s;
  let out = "";
  let from = 0;
  for (let i = 0; i + 1 < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c === 36 || c === 37) && s.charCodeAt(i + 1) === 123) {
      out += s.slice(from, i) + s[i];
      from = i;
    }
  }
  return out + s.slice(from);
}

/** True when a numeric literal is well-formed (digits, optional fraction, optional exponent). */
export function isValidNumberLiteral(s: string): boolean {
  return /^[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?$/.test(s);
}

/**
 * The JSON number for a numeric literal, or a problem when a JSON (IEEE double) number
 * cannot hold it: beyond the finite range, an integer beyond 2^53, or digits that would
 * be lost (`0.1000000000000000055511151231257827`, `1e-400`). An integer written in
 * digits beyond 2^53 is refused even when its double happens to be exact (`2^60`): its
 * neighbours are not, so it is nearly always an identifier that must stay text.
 */
export function numberValue(literal: string, start: number, end: number): { value: number; problem?: Problem } {
  // Fast path: at most 15 significant digits and no exponent always round-trip (DBL_DIG).
  if (literal.length <= 16 && /^[0-9]+(?:\.[0-9]+)?$/.test(literal) && literal.replace(".", "").replace(/^0+/, "").length <= 15) {
    return { value: Number(literal) };
  }
  const value = Number(literal.replace(/\.(?=[eE]|$)/, ""));
  const problem = (why: string): Problem => ({
    code: "invalid_value",
    start,
    end,
    message: `the number ${literal} ${why}`,
    hint: QUOTE_NUMBER_HINT,
  });
  if (!Number.isFinite(value)) return { value, problem: problem("is too large to be represented") };
  const exact = canonicalNumber(literal.replace(/\.(?=[eE]|$)/, ""));
  if (/^[0-9]+$/.test(literal) && Math.abs(value) > Number.MAX_SAFE_INTEGER) {
    return { value, problem: problem("is an integer beyond 2^53, which cannot be kept exactly and would be rounded") };
  }
  if (exact === undefined || exact !== canonicalNumber(String(value))) {
    return { value, problem: problem(`cannot be represented exactly: it would be rounded to ${String(value)}`) };
  }
  return { value };
}

/** The string form of a number literal, as cty converts a number to a string (exact, no exponent). */
export function numberString(literal: string): string {
  return canonicalNumber(literal.replace(/\.(?=[eE]|$)/, "")) ?? literal;
}

/** Go's `unicode.IsSpace` (HCL trims template literals and heredoc marker lines with it). */
export function isSpaceCode(c: number): boolean {
  return (
    c === 32 || (c >= 9 && c <= 13) || c === 0x85 || c === 0xa0 || c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000
  );
}

/** `strings.TrimLeftFunc(s, unicode.IsSpace)`. */
export function trimLeftSpace(s: string): string {
  let i = 0;
  while (i < s.length && isSpaceCode(s.charCodeAt(i))) i++;
  return i === 0 ? s : s.slice(i);
}

/** `strings.TrimRightFunc(s, unicode.IsSpace)`. */
export function trimRightSpace(s: string): string {
  let i = s.length;
  while (i > 0 && isSpaceCode(s.charCodeAt(i - 1))) i--;
  return i === s.length ? s : s.slice(0, i);
}

/**
 * Renders expressions as hcl2json does (see the module comment). Problems (a unary
 * operator on a literal of the wrong type, a number a JSON number cannot hold) go to
 * `report`; the value is still produced.
 */
export class Converter {
  constructor(private readonly text: string, private readonly report: Report) {}

  /** The source text of `[start, end)`, line endings normalised. */
  source(start: number, end: number): string {
    const s = this.text.slice(start, end);
    return s.includes("\r") ? s.replace(/\r\n/g, "\n") : s;
  }

  /** `${<source>}`. */
  private wrap(e: Expr): string {
    return "${" + this.source(e.start, e.end) + "}";
  }

  /** The JSON value of an attribute value, tuple element or object value. */
  expression(e: Expr): JsonValue {
    switch (e.kind) {
      case "literal":
        return this.literal(e.value, e.text, e.start, e.end);
      case "unary": {
        const v = e.operand;
        if (v.kind !== "literal") return this.wrap(e);
        if (e.op === "-") {
          if (typeof v.value === "number" && v.text !== undefined) {
            const n = this.literal(v.value, v.text, e.start, e.end) as number;
            return -n;
          }
          this.report({
            code: "invalid_value",
            start: e.start,
            end: e.end,
            message: v.value === null ? 'invalid operand: "-" cannot be applied to null' : "invalid operand: unsuitable value for unary operand: number required",
          });
          return this.wrap(e);
        }
        if (typeof v.value === "boolean") return !v.value;
        this.report({
          code: "invalid_value",
          start: e.start,
          end: e.end,
          message: v.value === null ? 'invalid operand: "!" cannot be applied to null' : "invalid operand: unsuitable value for unary operand: bool required",
        });
        return this.wrap(e);
      }
      case "template":
        return this.template(e.parts);
      case "wrap":
        return this.expression(e.inner);
      case "tuple":
        return e.items.map((item) => this.expression(item));
      case "object":
        return this.object(e);
      default:
        return this.wrap(e);
    }
  }

  private literal(value: null | boolean | number, text: string | undefined, start: number, end: number): JsonValue {
    if (typeof value !== "number" || text === undefined) return value;
    const n = numberValue(text, start, end);
    if (n.problem) this.report(n.problem);
    return n.value;
  }

  /** An object constructor's JSON object (a later duplicate key replaces an earlier one). */
  object(e: ObjectExpr): JsonObject {
    const out = jsonObject();
    for (const item of e.items) {
      const key = this.key(item.key);
      delete out[key];
      out[key] = this.expression(item.value);
    }
    return out;
  }

  /** The JSON key of an object constructor key. */
  key(k: Expr): string {
    if (k.kind === "traversal") return this.source(k.start, k.end);
    return this.stringPart(k);
  }

  /** A template's string (a string-only template is its escaped text). */
  template(parts: readonly TemplatePart[]): string {
    if (parts.length === 1 && parts[0].kind === "lit") return escapeTemplateLiteral(parts[0].value);
    let out = "";
    for (const part of parts) out += this.templatePart(part);
    return out;
  }

  private templatePart(part: TemplatePart): string {
    switch (part.kind) {
      case "lit":
        return escapeTemplateLiteral(part.value);
      case "interp":
        return this.stringPart(part.expr);
      case "if": {
        const whenFalse = this.template(part.else);
        return "%{if " + this.source(part.condition.start, part.condition.end) + "}" + this.template(part.then) + (whenFalse ? "%{else}" + whenFalse : "") + "%{endif}";
      }
      case "for":
        return (
          "%{for " + (part.keyVar !== undefined ? part.keyVar + ", " : "") + part.valueVar + " in " +
          this.source(part.collection.start, part.collection.end) + "}" + this.template(part.body) + "%{endfor}"
        );
    }
  }

  /** An expression inside a template (or an object key) as a string. */
  stringPart(e: Expr): string {
    switch (e.kind) {
      case "literal":
        if (typeof e.value === "number") return e.text !== undefined ? numberString(e.text) : String(e.value);
        return String(e.value);
      case "template":
        return this.template(e.parts);
      case "wrap":
        return this.stringPart(e.inner);
      case "conditional": {
        const whenFalse = this.stringPart(e.whenFalse);
        return "%{if " + this.source(e.condition.start, e.condition.end) + "}" + this.stringPart(e.whenTrue) + (whenFalse ? "%{else}" + whenFalse : "") + "%{endif}";
      }
      default:
        return this.wrap(e);
    }
  }
}

/**
 * The decimal rendering cty (and so hcl2json) gives a number literal used as an object
 * key: no exponent, no leading or trailing zeros (`1.0` → `1`, `1e3` → `1000`,
 * `0.10` → `0.1`). Exact, on the literal's digits; undefined for a malformed literal or
 * an exponent beyond ±4096 (not worth rendering).
 */
export function canonicalNumber(literal: string): string | undefined {
  const m = /^([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/.exec(literal);
  if (!m) return undefined;
  const intPart = m[1];
  const frac = m[2] ?? "";
  const exp = Number(m[3] ?? "0");
  if (!(Math.abs(exp) <= 4096)) return undefined;
  let digits = intPart + frac;
  let point = intPart.length + exp; // position of the decimal point within `digits`
  if (point < 0) {
    digits = "0".repeat(-point) + digits;
    point = 0;
  } else if (point > digits.length) {
    digits = digits + "0".repeat(point - digits.length);
  }
  const whole = digits.slice(0, point).replace(/^0+/, "") || "0";
  const fraction = digits.slice(point).replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : whole;
}
