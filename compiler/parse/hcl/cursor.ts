/**
 * The parser's view of the token list: peek/read with comments skipped and line breaks
 * significant or not (a stack, as HCL's "peeker"), error recovery, echo suppression and
 * the nesting bound. Shared by the expression, template and structure parsers.
 *
 * Source: the reference parser's peeker and recovery (`hclsyntax/peeker.go`,
 * `parser.go` recover / recoverAfterBodyItem / setRecovery): line breaks are tokens in
 * bodies and object constructors and ignored inside `( )`, `[ ]`, `${ }` and for
 * expressions; after a syntax error the parser is in recovery mode, which suppresses
 * further messages (they are nearly always echoes of the first) until the next body item.
 *
 * Never throws: reading past the end keeps returning `EOF`. Nesting deeper than
 * `maxDepth` is reported once (`nesting_too_deep`) and stops the parse (every reader
 * then sees `EOF`), so recursion depth is bounded.
 */
import type { SourceFile } from "../../diagnostics/source-file.js";
import { MAX_DEPTH } from "../document.js";
import { invalidCharacter, type Problem } from "./diagnostics.js";
import { T, tokenKindName, type TokenList } from "./tokens.js";

/** Token kinds that open a bracket-like pair, by the kind that closes them. */
const OPENER_OF: Record<number, number> = {
  [T.CBrace]: T.OBrace,
  [T.CBrack]: T.OBrack,
  [T.CParen]: T.OParen,
  [T.CQuote]: T.OQuote,
  [T.QuotedNewline]: T.OQuote,
  [T.CHeredoc]: T.OHeredoc,
  [T.TemplateSeqEnd]: T.TemplateInterp,
};

/**
 * A position in the token list with HCL's peek/read rules, the problems found so far,
 * the recovery flag and the nesting depth (see the module comment).
 */
export class Cursor {
  readonly text: string;
  readonly kinds: Uint8Array;
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  readonly eof: number;
  /** Index of the next unread token. */
  pos = 0;
  /** Whether line breaks are tokens here (top of the stack). */
  private nl = true;
  private readonly nlStack: boolean[] = [];
  private cacheFrom = -1;
  private cacheNl = false;
  private cacheIdx = 0;
  /** After a syntax error: messages are suppressed until the next body item. */
  recovery = false;
  /** Set when the nesting bound was hit: the parse is abandoned. */
  aborted = false;
  depth = 0;
  readonly problems: Problem[] = [];

  constructor(readonly file: SourceFile, readonly tokens: TokenList, readonly maxDepth = MAX_DEPTH) {
    this.text = file.text;
    this.kinds = tokens.kinds;
    this.starts = tokens.starts;
    this.ends = tokens.ends;
    this.eof = tokens.count - 1;
  }

  // --- reading ---------------------------------------------------------------------------

  /** Index of the next significant token (comments skipped; line breaks unless significant). */
  peekIndex(): number {
    if (this.cacheFrom === this.pos && this.cacheNl === this.nl) return this.cacheIdx;
    const kinds = this.kinds;
    let i = this.aborted ? this.eof : this.pos;
    for (;;) {
      const k = kinds[i];
      if (k === T.Comment || (k === T.Newline && !this.nl)) {
        i++;
        continue;
      }
      break;
    }
    this.cacheFrom = this.pos;
    this.cacheNl = this.nl;
    this.cacheIdx = i;
    return i;
  }

  /** Kind of the next significant token. */
  peek(): number {
    return this.kinds[this.peekIndex()];
  }

  /** Consumes and returns the next significant token's index (`EOF` repeats). */
  read(): number {
    const i = this.peekIndex();
    if (i < this.eof) this.pos = i + 1;
    else this.pos = this.eof;
    return i;
  }

  /** Index of the last token read (for "previous range" positions). */
  prev(): number {
    let i = this.pos - 1;
    while (i > 0 && this.kinds[i] === T.Comment) i--;
    return Math.max(0, i);
  }

  /** Pushes line-break significance (`true`: line breaks are tokens). */
  pushNewlines(significant: boolean): void {
    this.nlStack.push(this.nl);
    this.nl = significant;
  }

  popNewlines(): void {
    this.nl = this.nlStack.pop() ?? true;
  }

  /** Source text of token `i`. */
  tokenText(i: number): string {
    return this.text.slice(this.starts[i], this.ends[i]);
  }

  /** True when token `i` is the identifier `word`. */
  isKeyword(i: number, word: string): boolean {
    return this.kinds[i] === T.Ident && this.ends[i] - this.starts[i] === word.length && this.text.startsWith(word, this.starts[i]);
  }

  // --- problems --------------------------------------------------------------------------

  /**
   * Reports a syntax error at `[start, end)` unless in recovery mode; then enters recovery
   * mode. When `at` is an invalid-character token, that is what gets reported instead.
   */
  error(start: number, end: number, message: string, hint?: string, at = -1): void {
    if (!this.recovery) {
      if (at >= 0 && this.isBadToken(at)) this.problems.push(this.badTokenProblem(at));
      else this.problems.push({ code: "syntax_error", start, end, message, ...(hint ? { hint } : {}) });
    }
    this.recovery = true;
  }

  /** Reports a syntax error at token `i` (see `error`). */
  errorAt(i: number, message: string, hint?: string): void {
    this.error(this.starts[i], this.ends[i], message, hint, i);
  }

  /** Reports a problem even in recovery mode (independent of the syntax around it). */
  report(problem: Problem): void {
    this.problems.push(problem);
  }

  /** True for tokens that are errors wherever they appear. */
  isBadToken(i: number): boolean {
    const k = this.kinds[i];
    return k === T.Invalid || k === T.UnterminatedComment;
  }

  private badTokenProblem(i: number): Problem {
    const start = this.starts[i];
    if (this.kinds[i] === T.UnterminatedComment) {
      return { code: "syntax_error", start, end: start + 2, message: 'unterminated comment: this "/*" has no closing "*/"', hint: 'close the comment with "*/"' };
    }
    const { message, hint } = invalidCharacter(this.tokenText(i));
    // Right after a closing quote (`"printf "\033..."`): the string ended at a quote meant to
    // be inside it (found by a new-user trial: the hint spoke of "${...}").
    if (this.tokenText(i) === "\\" && i > 0 && this.kinds[i - 1] === T.CQuote && this.ends[i - 1] === start) {
      return { code: "syntax_error", start, end: this.ends[i], message: `${message}: the string before it ended at its "`, hint: 'a " inside a string is written \\" (command = "printf \\"%s\\" x"); or quote with a heredoc (<<EOT ... EOT)' };
    }
    return { code: "syntax_error", start, end: this.ends[i], message, ...(hint ? { hint } : {}) };
  }

  /** A short description of token `i` for "expected X, found Y" messages. */
  describe(i: number): string {
    switch (this.kinds[i]) {
      case T.EOF:
        return "the end of the file";
      case T.Newline:
        return "a line break";
      case T.Ident:
        return `"${this.tokenText(i)}"`;
      case T.Number:
        return `the number ${this.tokenText(i)}`;
      case T.OQuote:
        return "a string";
      case T.OHeredoc:
        return "a heredoc";
      case T.QuotedNewline:
        return "a line break";
      case T.TemplateSeqEnd:
        return `"${this.tokenText(i)}"`;
      default: {
        const t = this.tokenText(i);
        return t ? `"${t}"` : tokenKindName(this.kinds[i]);
      }
    }
  }

  // --- nesting ---------------------------------------------------------------------------

  /** Enters one nesting level at token `i`; false (and the parse abandoned) beyond the bound. */
  enter(i: number): boolean {
    if (this.aborted) return false;
    if (++this.depth > this.maxDepth) {
      this.problems.push({
        code: "nesting_too_deep",
        start: this.starts[i],
        end: Math.max(this.starts[i] + 1, this.ends[i]),
        message: `blocks and values nest deeper than ${this.maxDepth} levels`,
        hint: "flatten the structure, or split it into named values",
      });
      this.aborted = true;
      this.recovery = true;
      this.pos = this.eof;
      return false;
    }
    return true;
  }

  leave(): void {
    this.depth--;
  }

  // --- recovery --------------------------------------------------------------------------

  /**
   * Skips to just after the token of kind `end` that closes the current construct
   * (counting nested pairs of the same kind), or to `EOF`; enters recovery mode. Returns
   * the index of that closing token (or of `EOF`).
   */
  recover(end: number): number {
    this.recovery = true;
    const start = OPENER_OF[end] ?? -1;
    let nest = 0;
    for (;;) {
      const i = this.read();
      let k = this.kinds[i];
      if (k === T.EOF) return i;
      if (end === T.TemplateSeqEnd && k === T.TemplateControl) k = T.TemplateInterp;
      if (end === T.CQuote && k === T.QuotedNewline) k = T.CQuote;
      if (k === start) nest++;
      else if (k === end) {
        if (nest < 1) return i;
        nest--;
      }
    }
  }

  /**
   * Skips the rest of a broken body item: to the next line break outside brackets, or to
   * just before a `}` that closes the enclosing block, or to `EOF`. Enters recovery mode;
   * returns true when it stopped at a line break (a clean place to resume reporting).
   */
  recoverAfterBodyItem(): boolean {
    this.recovery = true;
    const open: number[] = [];
    this.pushNewlines(true);
    try {
      for (;;) {
        const i = this.peekIndex();
        const k = this.kinds[i];
        if (k === T.EOF) return false;
        if (k === T.CBrace && open.length === 0) return false;
        this.read();
        switch (k) {
          case T.Newline:
            if (open.length === 0) return true;
            break;
          case T.OBrace:
          case T.OBrack:
          case T.OParen:
          case T.OQuote:
          case T.OHeredoc:
          case T.TemplateInterp:
          case T.TemplateControl:
            open.push(k === T.TemplateControl ? T.TemplateInterp : k);
            break;
          case T.CBrace:
          case T.CBrack:
          case T.CParen:
          case T.CQuote:
          case T.QuotedNewline:
          case T.CHeredoc:
          case T.TemplateSeqEnd: {
            const opener = OPENER_OF[k];
            while (open.length > 0 && open[open.length - 1] !== opener) open.pop();
            if (open.length > 0) open.pop();
            break;
          }
        }
      }
    } finally {
      this.popNewlines();
    }
  }
}
