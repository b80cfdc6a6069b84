/**
 * The token kinds of the HCL native syntax and the compact token list the scanner fills.
 *
 * Source: HCL native syntax specification (hashicorp/hcl `hclsyntax/spec.md`), "Lexical
 * Elements" (comments, identifiers, operators and delimiters, numeric literals) and
 * "Template Expressions" (quoted templates, heredocs, `${` / `%{` sequences, `~` strip
 * markers). The split of template text into tokens follows the reference scanner
 * (`hclsyntax/scan_tokens.rl`): a quoted template is `OQuote (QuotedLit | sequence)* CQuote`,
 * a heredoc is `OHeredoc (StringLit | sequence)* CHeredoc`, one `StringLit` per line piece.
 *
 * Shapes: a token is an index into a `TokenList`, which keeps kinds and `[start, end)`
 * UTF-16 offsets in typed arrays (no object per token). Every byte of the file is either
 * inside a token or is horizontal whitespace between tokens (spaces, tabs, a skipped BOM),
 * so a formatter can rebuild the file from the list.
 */

/** Token kinds. Numeric so that a `TokenList` stores them in a `Uint8Array`. */
export const T = {
  EOF: 0,
  Newline: 1,
  /** `# …` or `// …` (without its line break) or `/* … *\/`. */
  Comment: 2,
  Ident: 3,
  Number: 4,
  OBrace: 5,
  CBrace: 6,
  OBrack: 7,
  CBrack: 8,
  OParen: 9,
  CParen: 10,
  Comma: 11,
  Dot: 12,
  Colon: 13,
  Question: 14,
  Equal: 15,
  FatArrow: 16,
  Ellipsis: 17,
  DoubleColon: 18,
  EqualOp: 19,
  NotEqual: 20,
  Lt: 21,
  Le: 22,
  Gt: 23,
  Ge: 24,
  And: 25,
  Or: 26,
  Bang: 27,
  Plus: 28,
  Minus: 29,
  Star: 30,
  Slash: 31,
  Percent: 32,
  /** The opening `"` of a quoted template. */
  OQuote: 33,
  /** The closing `"` of a quoted template. */
  CQuote: 34,
  /** Literal text of a quoted template (escapes still encoded). */
  QuotedLit: 35,
  /** `<<EOT` / `<<-EOT` and its line break. */
  OHeredoc: 36,
  /** The closing marker line of a heredoc (leading and trailing blanks included, line break not). */
  CHeredoc: 37,
  /** Literal text of a heredoc: one line, or the part of a line before or after a sequence. */
  StringLit: 38,
  /** `${` or `${~`. */
  TemplateInterp: 39,
  /** `%{` or `%{~`. */
  TemplateControl: 40,
  /** `}` or `~}` closing a template sequence. */
  TemplateSeqEnd: 41,
  /** A line break inside a quoted template (zero width: the string ends before it). */
  QuotedNewline: 42,
  /** A character that is not part of the language (`'`, `;`, `&`, a lone `\r`, …). */
  Invalid: 43,
  /** `/*` without its `*\/` (runs to the end of the file). */
  UnterminatedComment: 44,
} as const;

/** A token kind: one of the values of `T`. */
export type TokenKind = (typeof T)[keyof typeof T];

const NAMES: Record<number, string> = {};
for (const [name, kind] of Object.entries(T)) NAMES[kind] = name;

/** The name of a token kind, for tests and debugging (`"Ident"`, `"OBrace"`, …). */
export function tokenKindName(kind: number): string {
  return NAMES[kind] ?? `#${kind}`;
}

/**
 * A growable list of tokens: kind and `[start, end)` offsets per index. Index `count - 1`
 * is always the `EOF` token once the scanner is done.
 */
export class TokenList {
  kinds: Uint8Array;
  starts: Int32Array;
  ends: Int32Array;
  count = 0;

  constructor(capacity = 1024) {
    this.kinds = new Uint8Array(capacity);
    this.starts = new Int32Array(capacity);
    this.ends = new Int32Array(capacity);
  }

  /** Appends a token; returns its index. */
  push(kind: TokenKind, start: number, end: number): number {
    const i = this.count;
    if (i === this.kinds.length) this.grow();
    this.kinds[i] = kind;
    this.starts[i] = start;
    this.ends[i] = end;
    this.count = i + 1;
    return i;
  }

  private grow(): void {
    const n = this.kinds.length * 2;
    const kinds = new Uint8Array(n);
    kinds.set(this.kinds);
    const starts = new Int32Array(n);
    starts.set(this.starts);
    const ends = new Int32Array(n);
    ends.set(this.ends);
    this.kinds = kinds;
    this.starts = starts;
    this.ends = ends;
  }

  /** The index of the first token whose end is after `offset` (binary search), or `count - 1`. */
  indexAt(offset: number): number {
    let lo = 0;
    let hi = this.count - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.ends[mid] <= offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/**
 * The end offset of the label at token `tok`: a quoted label runs to its closing quote
 * (to where it stops, when it is not closed on its line); any other label is one token.
 */
export function labelEnd(tokens: TokenList, tok: number): number {
  const { kinds, starts, ends } = tokens;
  if (kinds[tok] !== T.OQuote) return ends[tok];
  let i = tok + 1;
  while (i < tokens.count - 1 && kinds[i] !== T.CQuote && kinds[i] !== T.QuotedNewline && kinds[i] !== T.EOF) i++;
  return kinds[i] === T.CQuote ? ends[i] : starts[i];
}
