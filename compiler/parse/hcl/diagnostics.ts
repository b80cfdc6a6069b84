/**
 * The problems the HCL parser reports, and their wording.
 *
 * Source: the messages of the reference parser (`hclsyntax/parser.go`,
 * `parser_template.go`, `token.go` checkInvalidTokens), kept close to HCL's summaries so
 * users searching for them find HCL's documentation, with this project's hints (what to
 * do) added: `$${` for a literal `${`, `%%{` for a literal `%{`, quoting a number that
 * must keep its digits.
 *
 * Shapes: a `Problem` is `[start, end)` offsets, a code, one sentence and an optional
 * hint; `toDiagnostics` positions them in the file. Echoes are suppressed where they
 * arise (the parser's recovery mode, as in HCL): after an error, nothing more is reported
 * until the parser is back at the start of a body item.
 */
import { diag, type Diagnostic } from "../../diagnostics/diagnostic.js";
import type { Code } from "../../diagnostics/codes.js";
import type { SourceFile } from "../../diagnostics/source-file.js";

/** One problem found while parsing, in offsets. */
export interface Problem {
  code: Extract<Code, "syntax_error" | "invalid_value" | "nesting_too_deep" | "missing_field" | "conflicting_fields">;
  start: number;
  end: number;
  message: string;
  hint?: string;
  related?: { message: string; start: number; end: number }[];
}

/** Hint for a `${` that was not meant as an interpolation. */
export const INTERP_ESCAPE_HINT = 'to write a literal "${" (for a shell or another template language), escape it as "$${"';
/** Hint for a `%{` that was not meant as a template directive. */
export const CONTROL_ESCAPE_HINT = 'to write a literal "%{", escape it as "%%{"';
/** Hint for a number literal that cannot be kept exactly. */
export const QUOTE_NUMBER_HINT = "quote it to keep it as text";

/** The message and hint for an invalid character token `ch` (a single character or pair). */
export function invalidCharacter(ch: string): { message: string; hint?: string } {
  switch (ch) {
    case "'":
      return { message: "invalid character: single quotes are not valid", hint: 'use double quotes (") to enclose strings' };
    case ";":
      return {
        message: 'invalid character: the ";" character is not valid',
        hint: "use newlines to separate arguments and blocks, and commas to separate items in collection values",
      };
    case "`":
      return { message: 'invalid character: the "`" character is not valid', hint: 'to write a multi-line string, use the heredoc syntax, like "<<EOT"' };
    case "&":
      return { message: "unsupported operator: bitwise operators are not supported", hint: 'did you mean boolean AND ("&&")?' };
    case "|":
      return { message: "unsupported operator: bitwise operators are not supported", hint: 'did you mean boolean OR ("||")?' };
    case "^":
      return { message: "unsupported operator: bitwise operators are not supported" };
    case "~":
      return { message: "unsupported operator: bitwise operators are not supported", hint: 'did you mean boolean NOT ("!")? A "~" is only valid as a strip marker, as in "${~" and "~}"' };
    case "$":
      return { message: 'invalid character: "$" is not used outside templates', hint: 'interpolation "${...}" is only valid inside a quoted string or a heredoc' };
    case "\\":
      // Found by a new-user trial: "%{ if x == \"main\" }" inside a quoted string showed "\\" (JSON-escaped) and no way out.
      return { message: 'invalid character: a backslash "\\" is not used within an expression', hint: 'inside "${...}" and "%{...}" a string is quoted afresh: write "main", not \\"main\\"' };
    case "\r":
      return { message: "invalid character: a carriage return not followed by a line feed", hint: "save the file with LF or CRLF line endings" };
    case "\u201c":
    case "\u201d":
    case "\u201e":
    case "\u2018":
    case "\u2019":
    case "\u00ab":
    case "\u00bb":
      // A word processor's or a chat's quotes pasted in (found by a trial of the Go tool's docs).
      return { message: `invalid character: a typographic quote ${JSON.stringify(ch)} (${codePoint(ch)}) is not a string delimiter`, hint: 'use straight double quotes (") to enclose strings' };
    default:
      // An invisible character (a zero-width space, a no-break space, a BOM mid-file) is named,
      // not shown: quoted, it printed as "" (found by a trial of the Go tool's docs).
      if (/^[\p{Cf}\p{Zs}\p{Zl}\p{Zp}]+$/u.test(ch)) return { message: `invalid character: an invisible ${codePoint(ch)} is not used within the language`, hint: "delete it (it often comes with text pasted from a web page or a chat)" };
      return { message: `invalid character: ${JSON.stringify(ch)} is not used within the language`, hint: "remove it, or quote the value it belongs to" };
  }
}

/** `ch`'s code points as `U+XXXX`, space-separated. */
function codePoint(ch: string): string {
  return [...ch].map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`).join(" ");
}

/**
 * Positions `problems` in `file` as diagnostics, in source order. Problems are reported
 * once each: identical ranges with identical messages are merged.
 */
export function toDiagnostics(file: SourceFile, problems: readonly Problem[]): Diagnostic[] {
  const sorted = [...problems].sort((a, b) => a.start - b.start || a.end - b.end);
  const out: Diagnostic[] = [];
  let last: Problem | undefined;
  for (const p of sorted) {
    if (last && last.start === p.start && last.end === p.end && last.message === p.message) continue;
    last = p;
    const related = p.related?.map((r) => ({ message: r.message, range: file.range(r.start, r.end) }));
    out.push(diag(p.code, file.range(p.start, p.end), p.message, { hint: p.hint, related }));
  }
  return out;
}
