/**
 * On-demand tokenizer for HCL native-syntax expressions.
 *
 * Source: HCL native syntax specification, "Lexical Elements" (identifiers, numeric
 * literals, operators and delimiters, comments, heredoc introducers).
 *
 * Shapes: `Lexer.skipTrivia(pos, newlines)` skips spaces, tabs, comments (`#`, `//`,
 * `/* *\/`) and, when `newlines` is false, line breaks; `Lexer.tokenAt(pos)` reads the
 * one token starting at `pos`. Offsets here are LOCAL indexes into `text`; the parser
 * adds the base offset. Templates (quoted strings, heredoc bodies) are not tokenized
 * here: the parser scans them character by character, calling back into expression
 * parsing for `${...}` / `%{...}`.
 *
 * Errors: throws `SyntaxFail` (local offsets) for an invalid character, an
 * unterminated block comment or a malformed heredoc introducer; the parser catches it.
 */

export type Punct =
  | "(" | ")" | "[" | "]" | "{" | "}" | "," | "." | ":" | "?" | "=" | "=>" | "..." | "::"
  | "==" | "!=" | "<" | "<=" | ">" | ">=" | "&&" | "||" | "!" | "+" | "-" | "*" | "/" | "%" | "~}";

export type TokenType = Punct | "ident" | "number" | "quote" | "heredoc" | "newline" | "eof";

export interface Token {
  type: TokenType;
  /** Local offsets into the lexed text. */
  start: number;
  end: number;
  /** Identifier name, number text, or heredoc marker. */
  text: string;
  /** For `heredoc`: true for `<<-` (indentation-stripping form). */
  flush?: boolean;
}

/** Internal syntax failure with local offsets; converted to an `ExprError` by the parser. */
export class SyntaxFail extends Error {
  constructor(readonly start: number, readonly end: number, message: string) {
    super(message);
  }
}

const PUNCTS: readonly Punct[] = [
  "...", "=>", "::", "==", "!=", "<=", ">=", "&&", "||", "~}",
  "(", ")", "[", "]", "{", "}", ",", ".", ":", "?", "=", "<", ">", "!", "+", "-", "*", "/", "%",
];

const IDENT = /[\p{ID_Start}_][\p{ID_Continue}\-]*/uy;
const NUMBER = /[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const HEREDOC = /<<(-?)([\p{ID_Start}_][\p{ID_Continue}\-]*)(\r?\n)/uy;

export class Lexer {
  constructor(readonly text: string) {}

  /** Position of the next significant character at or after `pos`. */
  skipTrivia(pos: number, newlines: boolean): number {
    const t = this.text;
    for (;;) {
      const c = t.charCodeAt(pos);
      if (c === 32 || c === 9 || c === 0xfeff) pos++;
      else if (c === 13 && t.charCodeAt(pos + 1) !== 10) pos++;
      else if (!newlines && (c === 10 || c === 13)) pos++;
      else if (c === 35 || (c === 47 && t.charCodeAt(pos + 1) === 47)) {
        // `#` or `//` line comment: up to (not including) the line break.
        while (pos < t.length && t.charCodeAt(pos) !== 10 && !(t.charCodeAt(pos) === 13 && t.charCodeAt(pos + 1) === 10)) pos++;
      } else if (c === 47 && t.charCodeAt(pos + 1) === 42) {
        const close = t.indexOf("*/", pos + 2);
        if (close < 0) throw new SyntaxFail(pos, t.length, "Unterminated comment: this multi-line comment (/*) has no closing */.");
        pos = close + 2;
      } else return pos;
    }
  }

  /** The token starting exactly at `pos` (call `skipTrivia` first). */
  tokenAt(pos: number): Token {
    const t = this.text;
    if (pos >= t.length) return { type: "eof", start: t.length, end: t.length, text: "" };
    const c = t[pos];
    if (c === "\n") return { type: "newline", start: pos, end: pos + 1, text: c };
    if (c === "\r" && t[pos + 1] === "\n") return { type: "newline", start: pos, end: pos + 2, text: "\r\n" };
    if (c === '"') return { type: "quote", start: pos, end: pos + 1, text: c };
    if (c >= "0" && c <= "9") {
      NUMBER.lastIndex = pos;
      const m = NUMBER.exec(t);
      const text = m ? m[0] : c;
      return { type: "number", start: pos, end: pos + text.length, text };
    }
    IDENT.lastIndex = pos;
    const id = IDENT.exec(t);
    if (id) return { type: "ident", start: pos, end: pos + id[0].length, text: id[0] };
    if (c === "<" && t[pos + 1] === "<") {
      HEREDOC.lastIndex = pos;
      const h = HEREDOC.exec(t);
      if (!h) {
        throw new SyntaxFail(pos, pos + 2, "Invalid heredoc introducer: expected a marker name right after << or <<- (like <<EOT), followed by a newline.");
      }
      // The token covers `<<-MARKER` only; the body starts after the line break.
      return { type: "heredoc", start: pos, end: pos + 2 + h[1].length + h[2].length, text: h[2], flush: h[1] === "-" };
    }
    for (const p of PUNCTS) {
      if (t.startsWith(p, pos)) return { type: p, start: pos, end: pos + p.length, text: p };
    }
    const cp = t.codePointAt(pos) ?? 0;
    const len = cp > 0xffff ? 2 : 1;
    throw new SyntaxFail(pos, pos + len, invalidCharMessage(c));
  }
}

function invalidCharMessage(c: string): string {
  switch (c) {
    case "'":
      return 'Invalid character: single quotes are not valid. Use double quotes (") to enclose strings.';
    case "&":
      return "Invalid character: bitwise operators are not supported. To perform a boolean AND, use &&.";
    case "|":
      return "Invalid character: bitwise operators are not supported. To perform a boolean OR, use ||.";
    case "~":
      return "Invalid character: ~ is only valid as a whitespace strip marker, as in ${~ and ~}.";
    case "$":
      return "Invalid character: ${ is only valid inside a quoted string or heredoc template.";
    default:
      return `Invalid character: ${JSON.stringify(c)} is not used within the expression language.`;
  }
}

/** Human description of a token for "expected X, found Y" messages. */
export function describeToken(tok: Token): string {
  switch (tok.type) {
    case "eof":
      return "end of expression";
    case "newline":
      return "newline";
    case "ident":
      return `"${tok.text}"`;
    case "number":
      return `number ${tok.text}`;
    case "quote":
      return "string";
    case "heredoc":
      return "heredoc";
    default:
      return `"${tok.type}"`;
  }
}
