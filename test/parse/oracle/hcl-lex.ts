/**
 * A tolerant tokenizer for HCL native syntax, just detailed enough for `hcl-scan.ts`
 * to rebuild source positions that `@cdktn/hcl2json` drops.
 *
 * It is not a validator: hcl2json reports syntax errors authoritatively. On malformed
 * input it records a `ScanError`, recovers, and carries on; it never throws and runs in
 * time linear in the text (templates are scanned with an explicit frame stack, not
 * recursion, so deeply nested `"${"${…}"}"` cannot overflow the call stack).
 *
 * Lexical rules follow hclsyntax (github.com/hashicorp/hcl, `hclsyntax/spec.md`):
 * comments `#`, `//` (to end of line) and `/* … *\/` (never a newline, even when it
 * spans lines); quoted templates with `\` escapes, `${…}` interpolations and `%{…}`
 * directives (which may nest braces, strings, heredocs and further templates), and the
 * literal escapes `$${` / `%%{`; heredocs `<<EOT` / `<<-EOT`, closed by a line holding
 * only the marker after optional leading spaces or tabs; a lone `\r` is whitespace
 * (so CRLF files lex like LF files).
 */

/** A problem the scanner met, as `[start, end)` offsets into the file text. */
export interface ScanError {
  start: number;
  end: number;
  message: string;
}

/**
 * Token kinds: `ident` (HCL identifier, which may contain `-`), `number`, `string` (a
 * whole quoted template, quotes included), `heredoc` (from `<<` to the end of the closing
 * marker), `newline` (one `\n`), `punct` (operator or bracket; `text` holds it), `eof`.
 */
export type TokenKind = "ident" | "number" | "string" | "heredoc" | "newline" | "punct" | "eof";

/** One token: its kind, `[start, end)` offsets and source text. */
export interface Token {
  kind: TokenKind;
  start: number;
  end: number;
  /** The token's source text (for `string`, quotes included). */
  text: string;
  /** For `string`/`heredoc`: the template has an interpolation or directive (`${`, `%{`). */
  templated: boolean;
  /**
   * For a `string` that is exactly one interpolation, `"${ expr }"`: the offsets of the
   * text between `${` and `}`. hcl2json unwraps such a template to `expr`'s own value.
   */
  wrapped: { start: number; end: number } | undefined;
}

/** What `scanTemplate` found. */
interface TemplateScan {
  templated: boolean;
  /** The template was closed (by its quote or marker line). */
  closed: boolean;
  /** Offset of the `}` that closed the first top-level interpolation, or -1. */
  firstInterpClose: number;
}

/** A frame of the template scanner's stack. */
type Frame =
  | { kind: "quoted"; start: number }
  | { kind: "heredoc"; start: number; marker: string }
  | { kind: "interp"; start: number; depth: number };

const ID_START = /[\p{ID_Start}_]/uy;
const IDENT = /[\p{ID_Start}_][\p{ID_Continue}\-]*/uy;
const NUMBER = /[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const HEREDOC_OPEN = /<<(-?)([\p{ID_Start}_][\p{ID_Continue}\-]*)\r?\n/uy;

const LF = 10;
const CR = 13;
const SPACE = 32;
const TAB = 9;

function isAsciiIdentStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * Streams tokens of `text` from offset `start` (default 0). Errors (unterminated strings,
 * heredocs, block comments) are appended to `errors`. Every call to `next()` advances
 * (except at `eof`, which repeats).
 */
export class HclLexer {
  private pos: number;

  constructor(readonly text: string, readonly errors: ScanError[], start = 0) {
    this.pos = start;
  }

  /** The next token; newlines are tokens, spaces/tabs/`\r`/comments are skipped. */
  next(): Token {
    const text = this.text;
    this.skipTrivia(false);
    const start = this.pos;
    if (start >= text.length) return this.token("eof", start, start);
    const c = text.charCodeAt(start);
    if (c === LF) return this.token("newline", start, start + 1);
    if (c === 34 /* " */) {
      const scan = this.scanTemplate({ kind: "quoted", start });
      const token = this.token("string", start, this.pos, scan.templated);
      // `"${ expr }"`: the first interpolation opens right after the quote and closes
      // right before the closing quote.
      if (scan.closed && text.startsWith('"${', start) && scan.firstInterpClose === this.pos - 2) {
        token.wrapped = { start: start + 3, end: this.pos - 2 };
      }
      return token;
    }
    if (c === 60 /* < */) {
      const heredoc = this.heredocOpening(start);
      if (heredoc) {
        this.pos = heredoc.bodyStart;
        const scan = this.scanTemplate({ kind: "heredoc", start, marker: heredoc.marker });
        return this.token("heredoc", start, this.pos, scan.templated);
      }
    }
    if (isAsciiIdentStart(c) || (c >= 128 && matchesAt(ID_START, text, start))) {
      return this.token("ident", start, matchEnd(IDENT, text, start));
    }
    if (isDigit(c)) return this.token("number", start, matchEnd(NUMBER, text, start));
    return this.token("punct", start, start + this.punctLength(c, start));
  }

  /** A token of `[start, end)`, leaving the lexer at `end`. */
  private token(kind: TokenKind, start: number, end: number, templated = false): Token {
    this.pos = end;
    return { kind, start, end, text: this.text.slice(start, end), templated, wrapped: undefined };
  }

  /**
   * The length of the operator starting with character `c` at `start`: two or three for
   * `==`, `!=`, `<=`, `>=`, `&&`, `||`, `=>`, `...` (so `==` is never read as `=`),
   * else one (two for a surrogate pair). Invalid characters are one-character puncts too.
   */
  private punctLength(c: number, start: number): number {
    const d = this.text.charCodeAt(start + 1);
    switch (c) {
      case 61 /* = */:
        return d === 61 || d === 62 /* > */ ? 2 : 1;
      case 33 /* ! */:
      case 60 /* < */:
      case 62 /* > */:
        return d === 61 ? 2 : 1;
      case 38 /* & */:
      case 124 /* | */:
        return d === c ? 2 : 1;
      case 46 /* . */:
        return d === 46 && this.text.charCodeAt(start + 2) === 46 ? 3 : 1;
      default:
        return c >= 0xd800 && c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff ? 2 : 1;
    }
  }

  /**
   * Skips spaces, tabs, `\r` and comments; with `newlines`, also `\n` (inside template
   * interpolations, where newlines carry no meaning). A line comment stops before its `\n`.
   */
  private skipTrivia(newlines: boolean): void {
    const text = this.text;
    const n = text.length;
    let pos = this.pos;
    while (pos < n) {
      const c = text.charCodeAt(pos);
      if (c === SPACE || c === TAB || c === CR || (newlines && c === LF)) {
        pos++;
      } else if (c === 35 /* # */ || (c === 47 /* / */ && text.charCodeAt(pos + 1) === 47)) {
        const eol = text.indexOf("\n", pos);
        pos = eol < 0 ? n : eol;
      } else if (c === 47 && text.charCodeAt(pos + 1) === 42 /* * */) {
        const close = text.indexOf("*/", pos + 2);
        if (close < 0) {
          this.errors.push({ start: pos, end: n, message: "unterminated block comment" });
          pos = n;
        } else {
          pos = close + 2;
        }
      } else {
        break;
      }
    }
    this.pos = pos;
  }

  /** When a heredoc opens at `start` (`<<EOT` or `<<-EOT` then a newline), its marker and body start. */
  private heredocOpening(start: number): { marker: string; bodyStart: number } | undefined {
    HEREDOC_OPEN.lastIndex = start;
    const m = HEREDOC_OPEN.exec(this.text);
    return m ? { marker: m[2], bodyStart: start + m[0].length } : undefined;
  }

  /**
   * Scans a quoted template (from its opening quote) or a heredoc body (from the line
   * after `<<EOT`) to its end, following nested interpolations with an explicit stack.
   * Leaves `pos` after the closing quote or closing marker (or where scanning gave up).
   */
  private scanTemplate(first: Frame): TemplateScan {
    const text = this.text;
    const n = text.length;
    const stack: Frame[] = [first];
    let templated = false;
    let firstInterpClose = -1;
    if (first.kind === "quoted") this.pos = first.start + 1;
    while (stack.length > 0) {
      const frame = stack[stack.length - 1];
      if (frame.kind === "interp") this.skipTrivia(true);
      const pos = this.pos;
      if (pos >= n) {
        this.unterminated(stack[0], n);
        return { templated, closed: false, firstInterpClose };
      }
      const c = text.charCodeAt(pos);
      switch (frame.kind) {
        case "heredoc": {
          if (text.charCodeAt(pos - 1) === LF) {
            const end = this.closingMarkerEnd(pos, frame.marker);
            if (end >= 0) {
              this.pos = end;
              stack.pop();
              break;
            }
          }
          const opened = this.templateSequence(stack, pos, c);
          if (opened) templated = true;
          break;
        }
        case "quoted": {
          if (c === 34 /* " */) {
            this.pos = pos + 1;
            stack.pop();
          } else if (c === LF) {
            // A quoted template cannot span lines: give up on it (and on any quoted
            // templates enclosing it) so the rest of the file still scans.
            this.errors.push({ start: frame.start, end: pos, message: "unterminated string" });
            while (stack.length > 0 && stack[stack.length - 1].kind !== "heredoc") stack.pop();
            if (stack.length === 0) return { templated, closed: false, firstInterpClose };
          } else if (c === 92 /* \ */) {
            this.pos = text.charCodeAt(pos + 1) === LF ? pos + 1 : Math.min(pos + 2, n);
          } else if (this.templateSequence(stack, pos, c)) {
            templated = true;
          }
          break;
        }
        case "interp": {
          if (c === 123 /* { */) {
            frame.depth++;
            this.pos = pos + 1;
          } else if (c === 125 /* } */) {
            this.pos = pos + 1;
            if (frame.depth > 0) {
              frame.depth--;
            } else {
              stack.pop();
              if (stack.length === 1 && firstInterpClose < 0) firstInterpClose = pos;
            }
          } else if (c === 34) {
            stack.push({ kind: "quoted", start: pos });
            this.pos = pos + 1;
          } else {
            const heredoc = c === 60 ? this.heredocOpening(pos) : undefined;
            if (heredoc) {
              stack.push({ kind: "heredoc", start: pos, marker: heredoc.marker });
              this.pos = heredoc.bodyStart;
            } else {
              this.pos = pos + 1;
            }
          }
          break;
        }
      }
    }
    return { templated, closed: true, firstInterpClose };
  }

  /**
   * In a template's literal part at `pos` (character `c`): steps over `$${` / `%%{`
   * escapes, opens an interpolation or directive at `${` / `%{` (returning true), or
   * steps over one character.
   */
  private templateSequence(stack: Frame[], pos: number, c: number): boolean {
    const text = this.text;
    if ((c === 36 /* $ */ || c === 37) /* % */ && text.charCodeAt(pos + 1) === c && text.charCodeAt(pos + 2) === 123) {
      this.pos = pos + 3;
      return false;
    }
    if ((c === 36 || c === 37) && text.charCodeAt(pos + 1) === 123) {
      stack.push({ kind: "interp", start: pos, depth: 0 });
      this.pos = pos + 2;
      return true;
    }
    this.pos = pos + 1;
    return false;
  }

  /**
   * When the line at `lineStart` closes a heredoc (optional spaces/tabs, the marker, then
   * a line break or the end of the text), the offset just after the marker; else -1.
   */
  private closingMarkerEnd(lineStart: number, marker: string): number {
    const text = this.text;
    let p = lineStart;
    while (text.charCodeAt(p) === SPACE || text.charCodeAt(p) === TAB) p++;
    if (!text.startsWith(marker, p)) return -1;
    const end = p + marker.length;
    const c = text.charCodeAt(end);
    if (end === text.length || c === LF || (c === CR && text.charCodeAt(end + 1) === LF)) return end;
    return -1;
  }

  private unterminated(outer: Frame, end: number): void {
    const message =
      outer.kind === "heredoc"
        ? `unterminated heredoc (no closing "${outer.marker}" line)`
        : outer.kind === "quoted"
          ? "unterminated string"
          : "unterminated template interpolation";
    this.errors.push({ start: outer.start, end, message });
    this.pos = end;
  }
}

function matchesAt(re: RegExp, text: string, at: number): boolean {
  re.lastIndex = at;
  return re.test(text);
}

function matchEnd(re: RegExp, text: string, at: number): number {
  re.lastIndex = at;
  return re.test(text) ? re.lastIndex : at + 1;
}

/**
 * Decodes the literal value of a quoted string token without interpolations (quotes
 * included in `raw`): escapes `\n \r \t \" \\ \uXXXX \UXXXXXXXX`, and `$${` → `${`,
 * `%%{` → `%{`. Unknown escapes keep their character.
 */
export function decodeQuoted(raw: string): string {
  const body = raw.endsWith('"') && raw.length >= 2 ? raw.slice(1, -1) : raw.slice(1);
  if (!body.includes("\\") && !body.includes("$${") && !body.includes("%%{")) return body;
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch === "\\" && i + 1 < body.length) {
      const e = body[++i];
      if (e === "n") out += "\n";
      else if (e === "r") out += "\r";
      else if (e === "t") out += "\t";
      else if (e === "u" || e === "U") {
        const len = e === "u" ? 4 : 8;
        const hex = body.slice(i + 1, i + 1 + len);
        const cp = /^[0-9a-fA-F]+$/.test(hex) && hex.length === len ? parseInt(hex, 16) : NaN;
        if (cp <= 0x10ffff) {
          out += String.fromCodePoint(cp);
          i += len;
        } else {
          out += e;
        }
      } else out += e;
    } else if ((ch === "$" || ch === "%") && body[i + 1] === ch && body[i + 2] === "{") {
      out += ch + "{";
      i += 2;
    } else {
      out += ch;
    }
  }
  return out;
}

/** Number keys are rendered as the parser renders them (one implementation of cty's decimal form). */
export { canonicalNumber } from "../../../compiler/parse/hcl/values.js";
