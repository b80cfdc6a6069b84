/**
 * The scanner of the HCL native syntax: text → `TokenList`, in one linear pass.
 *
 * Source: HCL native syntax specification (`hclsyntax/spec.md`), "Lexical Elements" and
 * "Template Expressions", and the reference scanner's modes (`hclsyntax/scan_tokens.rl`):
 * - main mode: identifiers (`ID_Start (ID_Continue | '-')*`), numbers (`digit` followed by
 *   digits, `.` and `e`/`E` exponents, never ending in `.`: `1.2.3` is ONE token that the
 *   parser then refuses), operators, comments (`#`, `//` to the end of the line, `/* *\/`),
 *   newlines (`\n` or `\r\n`; a lone `\r` is an invalid character);
 * - quoted template mode after `"`: literal runs (with `\` escapes and the `$${` / `%%{`
 *   escapes), `${` / `%{` (optionally followed by the strip marker `~`) open a sequence
 *   scanned in main mode until the matching `}` / `~}`;
 * - heredoc mode after `<<EOT` / `<<-EOT` and a line break: one literal token per line
 *   piece, sequences as in quoted mode, and a closing line holding only the marker
 *   (surrounded by optional white space), which must end with a line break.
 * Modes nest with an explicit stack (never recursion), so any nesting depth is scanned
 * in constant stack space. A leading UTF-8 BOM (`\uFEFF`) is skipped.
 *
 * Errors are tokens (`Invalid`, `QuotedNewline`, `UnterminatedComment`) for the parser
 * to report: the scanner never fails and never throws. A line break inside a quoted
 * template ends that template (a zero-width `QuotedNewline`), so an unclosed quote
 * breaks one line, not the rest of the file.
 */
import { T, TokenList, type TokenKind } from "./tokens.js";
import { isSpaceCode as isUnicodeSpace } from "./values.js";

const MAIN = 0;
const QUOTED = 1;
const HEREDOC = 2;

const ID_START = /[\p{ID_Start}_]/uy;
const ID_CONTINUE = /[\p{ID_Continue}\-]/uy;

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isAsciiIdentStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}

function isAsciiIdentContinue(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 45 || (c >= 48 && c <= 57);
}

/** The end of the identifier starting at `pos` (whose first character is known to start one). */
export function identEnd(text: string, pos: number): number {
  const n = text.length;
  let p = pos + (text.charCodeAt(pos) >= 0xd800 && text.charCodeAt(pos) <= 0xdbff ? 2 : 1);
  while (p < n) {
    const c = text.charCodeAt(p);
    if (c < 128) {
      if (!isAsciiIdentContinue(c)) break;
      p++;
    } else {
      ID_CONTINUE.lastIndex = p;
      if (!ID_CONTINUE.test(text)) break;
      p = ID_CONTINUE.lastIndex;
    }
  }
  return p;
}

/** True when an identifier starts at `pos`. */
export function identStartsAt(text: string, pos: number): boolean {
  const c = text.charCodeAt(pos);
  if (c < 128) return isAsciiIdentStart(c);
  if (Number.isNaN(c)) return false;
  ID_START.lastIndex = pos;
  return ID_START.test(text);
}

/**
 * Scans `text` (HCL native syntax) into tokens. Never throws; linear in the text length.
 * The last token is always `EOF` at `text.length`.
 */
export function scanTokens(text: string): TokenList {
  const n = text.length;
  const toks = new TokenList(Math.max(64, n >> 2));
  let pos = text.charCodeAt(0) === 0xfeff ? 1 : 0;

  // The mode stack: kind, brace depth (main frames), whether a main frame is inside a
  // template sequence, heredoc markers and their "at the start of a line" flags.
  const kinds: number[] = [MAIN];
  const depths: number[] = [0];
  const inSeq: boolean[] = [false];
  const markers: string[] = [""];
  const lineStart: boolean[] = [false];
  const push = (kind: number, seq: boolean, marker = ""): void => {
    kinds.push(kind);
    depths.push(0);
    inSeq.push(seq);
    markers.push(marker);
    lineStart.push(true);
  };
  const pop = (): void => {
    if (kinds.length > 1) {
      kinds.pop();
      depths.pop();
      inSeq.pop();
      markers.pop();
      lineStart.pop();
    }
  };

  /** `${`, `${~`, `%{`, `%{~` at `p`: emits the opener, enters main mode. */
  const openSequence = (p: number, c: number): number => {
    const len = text.charCodeAt(p + 2) === 126 /* ~ */ ? 3 : 2;
    toks.push(c === 36 ? T.TemplateInterp : T.TemplateControl, p, p + len);
    push(MAIN, true);
    return p + len;
  };

  while (pos < n) {
    const top = kinds.length - 1;
    const mode = kinds[top];

    if (mode === QUOTED) {
      let p = pos;
      for (;;) {
        if (p >= n) {
          if (p > pos) toks.push(T.QuotedLit, pos, p);
          pos = p;
          break;
        }
        const c = text.charCodeAt(p);
        if (c === 34 /* " */) {
          if (p > pos) toks.push(T.QuotedLit, pos, p);
          toks.push(T.CQuote, p, p + 1);
          pop();
          pos = p + 1;
          break;
        }
        if (c === 10 || c === 13) {
          if (p > pos) toks.push(T.QuotedLit, pos, p);
          toks.push(T.QuotedNewline, p, p);
          pop();
          pos = p;
          break;
        }
        if (c === 92 /* \ */) {
          const d = text.charCodeAt(p + 1);
          if (p + 1 >= n || d === 10 || d === 13) p++;
          else p += d >= 0xd800 && d <= 0xdbff ? 3 : 2;
          continue;
        }
        if ((c === 36 || c === 37) /* $ % */) {
          const mark = templateMark(text, p, c);
          if (mark === "open") {
            if (p > pos) toks.push(T.QuotedLit, pos, p);
            pos = openSequence(p, c);
            break;
          }
          if (mark === "escaped") {
            p += 3;
            continue;
          }
        }
        p++;
      }
      continue;
    }

    if (mode === HEREDOC) {
      if (lineStart[top]) {
        const end = closingMarkerLine(text, pos, markers[top]);
        if (end >= 0) {
          const nl = text.charCodeAt(end) === 13 ? end + 2 : end + 1;
          toks.push(T.CHeredoc, pos, end);
          toks.push(T.Newline, end, nl);
          pop();
          pos = nl;
          continue;
        }
      }
      let p = pos;
      for (;;) {
        if (p >= n) {
          if (p > pos) toks.push(T.StringLit, pos, p);
          lineStart[top] = false;
          pos = p;
          break;
        }
        const c = text.charCodeAt(p);
        if (c === 10) {
          toks.push(T.StringLit, pos, p + 1);
          lineStart[top] = true;
          pos = p + 1;
          break;
        }
        if (c === 13) {
          if (text.charCodeAt(p + 1) === 10) {
            toks.push(T.StringLit, pos, p + 2);
            lineStart[top] = true;
            pos = p + 2;
          } else {
            if (p > pos) toks.push(T.StringLit, pos, p);
            toks.push(T.Invalid, p, p + 1);
            lineStart[top] = false;
            pos = p + 1;
          }
          break;
        }
        if (c === 36 || c === 37) {
          const mark = templateMark(text, p, c);
          if (mark === "open") {
            if (p > pos) toks.push(T.StringLit, pos, p);
            lineStart[top] = false;
            pos = openSequence(p, c);
            break;
          }
          if (mark === "escaped") {
            p += 3;
            continue;
          }
        }
        p++;
      }
      continue;
    }

    // Main mode: one token (or a run of blanks) per iteration.
    const c = text.charCodeAt(pos);
    if (c === 32 || c === 9) {
      pos++;
      while (pos < n && (text.charCodeAt(pos) === 32 || text.charCodeAt(pos) === 9)) pos++;
      continue;
    }
    const d = text.charCodeAt(pos + 1);
    switch (c) {
      case 10:
        toks.push(T.Newline, pos, pos + 1);
        pos++;
        continue;
      case 13:
        if (d === 10) {
          toks.push(T.Newline, pos, pos + 2);
          pos += 2;
        } else {
          toks.push(T.Invalid, pos, pos + 1);
          pos++;
        }
        continue;
      case 35 /* # */:
        pos = lineComment(text, toks, pos);
        continue;
      case 47 /* / */:
        if (d === 47) {
          pos = lineComment(text, toks, pos);
        } else if (d === 42 /* * */) {
          const close = text.indexOf("*/", pos + 2);
          if (close < 0) {
            toks.push(T.UnterminatedComment, pos, n);
            pos = n;
          } else {
            toks.push(T.Comment, pos, close + 2);
            pos = close + 2;
          }
        } else {
          toks.push(T.Slash, pos, pos + 1);
          pos++;
        }
        continue;
      case 34 /* " */:
        toks.push(T.OQuote, pos, pos + 1);
        push(QUOTED, false);
        pos++;
        continue;
      case 60 /* < */: {
        if (d === 60) {
          const h = heredocIntro(text, pos);
          if (h) {
            toks.push(T.OHeredoc, pos, h.end);
            push(HEREDOC, false, h.marker);
            pos = h.end;
            continue;
          }
        }
        pos = op2(toks, pos, d === 61, T.Le, T.Lt);
        continue;
      }
      case 123 /* { */:
        toks.push(T.OBrace, pos, pos + 1);
        depths[top]++;
        pos++;
        continue;
      case 125 /* } */:
        if (inSeq[top] && depths[top] === 0) {
          toks.push(T.TemplateSeqEnd, pos, pos + 1);
          pop();
        } else {
          toks.push(T.CBrace, pos, pos + 1);
          depths[top]--;
        }
        pos++;
        continue;
      case 126 /* ~ */:
        if (d === 125) {
          toks.push(T.TemplateSeqEnd, pos, pos + 2);
          if (inSeq[top] && depths[top] === 0) pop();
          else depths[top]--;
          pos += 2;
        } else {
          toks.push(T.Invalid, pos, pos + 1);
          pos++;
        }
        continue;
      case 61 /* = */:
        if (d === 61) pos = op2(toks, pos, true, T.EqualOp, T.Equal);
        else pos = op2(toks, pos, d === 62, T.FatArrow, T.Equal);
        continue;
      case 33 /* ! */:
        pos = op2(toks, pos, d === 61, T.NotEqual, T.Bang);
        continue;
      case 62 /* > */:
        pos = op2(toks, pos, d === 61, T.Ge, T.Gt);
        continue;
      case 38 /* & */:
        pos = op2(toks, pos, d === 38, T.And, T.Invalid);
        continue;
      case 124 /* | */:
        pos = op2(toks, pos, d === 124, T.Or, T.Invalid);
        continue;
      case 58 /* : */:
        pos = op2(toks, pos, d === 58, T.DoubleColon, T.Colon);
        continue;
      case 46 /* . */:
        if (d === 46 && text.charCodeAt(pos + 2) === 46) {
          toks.push(T.Ellipsis, pos, pos + 3);
          pos += 3;
        } else {
          toks.push(T.Dot, pos, pos + 1);
          pos++;
        }
        continue;
    }
    const single = c < 128 ? SINGLE_CHAR_TOKENS[c] : 0;
    if (single !== 0) {
      toks.push(single as TokenKind, pos, pos + 1);
      pos++;
      continue;
    }
    if (isDigit(c)) {
      const end = numberEnd(text, pos);
      toks.push(T.Number, pos, end);
      pos = end;
      continue;
    }
    if (identStartsAt(text, pos)) {
      const end = identEnd(text, pos);
      toks.push(T.Ident, pos, end);
      pos = end;
      continue;
    }
    const len = c >= 0xd800 && c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff ? 2 : 1;
    toks.push(T.Invalid, pos, pos + len);
    pos += len;
  }
  toks.push(T.EOF, n, n);
  return toks;
}

/**
 * At a `$` or `%` (code `c`) at `p` of template text: "open" when it opens a `${` or
 * `%{` sequence, "escaped" for `$${` / `%%{` (three characters of literal text), else
 * undefined (a plain character).
 */
function templateMark(text: string, p: number, c: number): "open" | "escaped" | undefined {
  const d = text.charCodeAt(p + 1);
  if (d === 123 /* { */) return "open";
  return d === c && text.charCodeAt(p + 2) === 123 ? "escaped" : undefined;
}

/** The punctuation that is always one token of one character, by character code (0: none). */
const SINGLE_CHAR_TOKENS = new Uint8Array(128);
for (const [char, kind] of [
  ["[", T.OBrack],
  ["]", T.CBrack],
  ["(", T.OParen],
  [")", T.CParen],
  [",", T.Comma],
  ["?", T.Question],
  ["+", T.Plus],
  ["-", T.Minus],
  ["*", T.Star],
  ["%", T.Percent],
] as const) SINGLE_CHAR_TOKENS[char.charCodeAt(0)] = kind;

function op2(toks: TokenList, pos: number, two: boolean, kind2: TokenKind, kind1: TokenKind): number {
  if (two) {
    toks.push(kind2, pos, pos + 2);
    return pos + 2;
  }
  toks.push(kind1, pos, pos + 1);
  return pos + 1;
}

/** A `#` / `//` comment from `pos` to before its line break. */
function lineComment(text: string, toks: TokenList, pos: number): number {
  let end = text.indexOf("\n", pos);
  if (end < 0) end = text.length;
  else if (text.charCodeAt(end - 1) === 13) end--;
  toks.push(T.Comment, pos, end);
  return end;
}

/**
 * The end of the numeric literal token at `pos`: digits, `.` and exponents (`e`, `E`,
 * optionally signed, followed by a digit), never ending in `.` (the reference scanner's
 * `NumberLit`). Validity (`1.2.3`) is checked by the parser.
 */
export function numberEnd(text: string, pos: number): number {
  const n = text.length;
  let p = pos + 1;
  for (;;) {
    if (p >= n) break;
    const c = text.charCodeAt(p);
    if (isDigit(c) || c === 46) {
      p++;
    } else if (c === 101 || c === 69) {
      const s = text.charCodeAt(p + 1);
      if (isDigit(s)) p += 2;
      else if ((s === 43 || s === 45) && isDigit(text.charCodeAt(p + 2))) p += 3;
      else break;
    } else break;
  }
  while (text.charCodeAt(p - 1) === 46) p--;
  return p;
}

/** `<<EOT` / `<<-EOT` followed by a line break at `pos`: the marker and where the body starts. */
function heredocIntro(text: string, pos: number): { marker: string; end: number } | undefined {
  let p = pos + 2;
  if (text.charCodeAt(p) === 45 /* - */) p++;
  if (!identStartsAt(text, p)) return undefined;
  const markerEnd = identEnd(text, p);
  let e = markerEnd;
  if (text.charCodeAt(e) === 13) e++;
  if (text.charCodeAt(e) !== 10) return undefined;
  return { marker: text.slice(p, markerEnd), end: e + 1 };
}

/**
 * When the line at `pos` closes a heredoc (blanks, the marker, blanks, then `\n` or
 * `\r\n`), the offset of its line break; else -1. A marker line at the very end of the
 * text without a line break does not close the heredoc (as in the reference scanner).
 */
function closingMarkerLine(text: string, pos: number, marker: string): number {
  const n = text.length;
  let p = pos;
  while (p < n && text.charCodeAt(p) !== 10 && text.charCodeAt(p) !== 13 && isUnicodeSpace(text.charCodeAt(p))) p++;
  if (!text.startsWith(marker, p)) return -1;
  p += marker.length;
  while (p < n && text.charCodeAt(p) !== 10 && isUnicodeSpace(text.charCodeAt(p))) {
    if (text.charCodeAt(p) === 13) return text.charCodeAt(p + 1) === 10 ? p : -1;
    p++;
  }
  return p < n && text.charCodeAt(p) === 10 ? p : -1;
}
