/**
 * The lexer of templatefile's text/template: template text to tokens (text, `{{ }}`
 * delimiters with their trim markers, comments, and the words, literals and operators
 * inside actions).
 *
 * Source: Go's text/template/parse/lex.go behaviour as text/template documents it
 * (https://pkg.go.dev/text/template); see index.ts.
 */
import { charAt, GO_TEMPLATE_LIMITS } from "./values.js";

export type TokKind =
  | "text" | "left" | "right" | "space" | "field" | "var" | "ident" | "keyword" | "bool" | "nil" | "dot"
  | "string" | "raw" | "char" | "number" | "complex" | "pipe" | "lparen" | "rparen" | "declare" | "assign" | "op" | "eof"
  | "error";

export interface Tok {
  k: TokKind;
  v: string;
  pos: number;
}

const KEYWORDS = new Set(["block", "break", "continue", "define", "else", "end", "if", "range", "template", "with"]);

function isSpace(c: string | undefined): boolean {
  return c === " " || c === "\t" || c === "\r" || c === "\n";
}

const ALNUM = /^[\p{L}\p{Nd}_]$/u;

function isAlnum(c: string | undefined): boolean {
  return c !== undefined && ALNUM.test(c);
}

function uplus(c: string): string {
  return `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")} '${c}'`;
}

/** Unwinds the lexer after an error token. */
const LEX_ERROR = Symbol("lex error");

/**
 * The tokens of a template. A lexical error becomes an `error` token that ends the
 * stream, so that (as in Go, whose lexer runs alongside the parser) a syntax error
 * before it is the one reported.
 */
export class Lexer {
  readonly toks: Tok[] = [];
  private pos = 0;

  constructor(private readonly input: string) {}

  private fail(pos: number, msg: string): never {
    this.toks.push({ k: "error", v: msg, pos });
    throw LEX_ERROR;
  }

  run(): Tok[] {
    try {
      this.lex();
    } catch (e) {
      if (e !== LEX_ERROR) throw e;
      return this.toks;
    }
    this.toks.push({ k: "eof", v: "", pos: this.input.length });
    return this.toks;
  }

  private lex(): void {
    const s = this.input;
    for (;;) {
      const x = s.indexOf("{{", this.pos);
      if (x < 0) {
        if (this.pos < s.length) this.toks.push({ k: "text", v: s.slice(this.pos), pos: this.pos });
        break;
      }
      const trim = s[x + 2] === "-" && isSpace(s[x + 3]);
      let text = s.slice(this.pos, x);
      if (trim) text = text.replace(/[ \t\r\n]+$/, "");
      if (text !== "") this.toks.push({ k: "text", v: text, pos: this.pos });
      this.pos = x + 2 + (trim ? 2 : 0);
      if (s.startsWith("/*", this.pos)) {
        const end = s.indexOf("*/", this.pos + 2);
        if (end < 0) this.fail(x, "unclosed comment");
        this.pos = end + 2;
        const rd = this.atRightDelim(this.pos);
        if (!rd) this.fail(x, "comment ends before closing delimiter");
        this.closeAction(rd);
        continue;
      }
      this.toks.push({ k: "left", v: "{{", pos: x });
      this.insideAction(x);
    }
  }

  /** `}}` or ` -}}` at `p`: its end and whether it trims. */
  private atRightDelim(p: number): { end: number; trim: boolean } | undefined {
    const s = this.input;
    if (isSpace(s[p]) && s[p + 1] === "-" && s.startsWith("}}", p + 2)) return { end: p + 4, trim: true };
    if (s.startsWith("}}", p)) return { end: p + 2, trim: false };
    return undefined;
  }

  private closeAction(rd: { end: number; trim: boolean }): void {
    this.pos = rd.end;
    if (rd.trim) while (isSpace(this.input[this.pos])) this.pos++;
  }

  private emit(k: TokKind, start: number): void {
    this.toks.push({ k, v: this.input.slice(start, this.pos), pos: start });
  }

  /** Go's atTerminator: what may follow a field, variable or identifier. */
  private atTerminator(): boolean {
    const c = this.input[this.pos];
    if (c === undefined || isSpace(c)) return true;
    if (".,|:)(".includes(c)) return true;
    return this.input.startsWith("}}", this.pos);
  }

  private insideAction(actionStart: number): void {
    const s = this.input;
    let parens = 0;
    for (;;) {
      const rd = this.atRightDelim(this.pos);
      if (rd) {
        if (parens > 0) this.fail(this.pos, "unclosed left paren");
        this.toks.push({ k: "right", v: "}}", pos: this.pos });
        this.closeAction(rd);
        return;
      }
      const start = this.pos;
      const c = charAt(s, this.pos);
      if (c === undefined) this.fail(actionStart, "unclosed action");
      this.pos += c.length;
      if (isSpace(c)) {
        while (isSpace(s[this.pos])) this.pos++;
        // A space that is part of ` -}}` is not ours.
        if (s[this.pos] === "-" && s.startsWith("}}", this.pos + 1)) this.pos--;
        if (this.pos > start) this.emit("space", start);
      } else if (c === "=") {
        this.emit("assign", start);
      } else if (c === ":") {
        if (s[this.pos] !== "=") this.fail(start, "expected :=");
        this.pos++;
        this.emit("declare", start);
      } else if (c === "|") {
        this.emit("pipe", start);
      } else if (c === '"') {
        this.quoted(start, '"', "unterminated quoted string");
      } else if (c === "'") {
        this.quoted(start, "'", "unterminated character constant");
      } else if (c === "`") {
        const end = s.indexOf("`", this.pos);
        if (end < 0) this.fail(start, "unterminated raw quoted string");
        this.pos = end + 1;
        this.emit("raw", start);
      } else if (c === "$") {
        this.fieldOrVariable(start, "var");
      } else if (c === "." && !(s[this.pos] >= "0" && s[this.pos] <= "9")) {
        this.fieldOrVariable(start, "field");
      } else if (c === "." || c === "+" || c === "-" || (c >= "0" && c <= "9")) {
        this.pos = start;
        this.number(start);
      } else if (isAlnum(c)) {
        while (isAlnum(charAt(s, this.pos))) this.pos += charAt(s, this.pos)!.length;
        if (!this.atTerminator()) this.fail(this.pos, `bad character ${uplus(charAt(s, this.pos)!)}`);
        const word = s.slice(start, this.pos);
        this.emit(KEYWORDS.has(word) ? "keyword" : word === "nil" ? "nil" : word === "true" || word === "false" ? "bool" : "ident", start);
      } else if (c === "(") {
        parens++;
        if (parens > GO_TEMPLATE_LIMITS.nesting) this.fail(start, `parentheses nested more than ${GO_TEMPLATE_LIMITS.nesting} deep`);
        this.emit("lparen", start);
      } else if (c === ")") {
        parens--;
        if (parens < 0) this.fail(start, "unexpected right paren");
        this.emit("rparen", start);
      } else if (c.length === 1 && c >= " " && c <= "~") {
        this.emit("op", start);
      } else {
        this.fail(start, `unrecognized character in action: ${uplus(c)}`);
      }
    }
  }

  private quoted(start: number, quote: string, unterminated: string): void {
    const s = this.input;
    for (;;) {
      const c = s[this.pos++];
      if (c === "\\") {
        const d = s[this.pos++];
        if (d !== undefined && d !== "\n") continue;
        this.fail(start, unterminated);
      }
      if (c === undefined || c === "\n") this.fail(start, unterminated);
      if (c === quote) break;
    }
    this.emit(quote === '"' ? "string" : "char", start);
  }

  private fieldOrVariable(start: number, k: "field" | "var"): void {
    if (this.atTerminator()) {
      this.emit(k === "var" ? "var" : "dot", start);
      return;
    }
    while (isAlnum(charAt(this.input, this.pos))) this.pos += charAt(this.input, this.pos)!.length;
    if (!this.atTerminator()) this.fail(this.pos, `bad character ${uplus(charAt(this.input, this.pos)!)}`);
    this.emit(k, start);
  }

  /** Go's scanNumber: false when an alphanumeric follows. */
  private scanNumber(): boolean {
    const s = this.input;
    const accept = (set: string) => {
      if (s[this.pos] !== undefined && set.includes(s[this.pos])) {
        this.pos++;
        return true;
      }
      return false;
    };
    const run = (set: string) => {
      while (accept(set));
    };
    accept("+-");
    let digits = "0123456789_";
    if (accept("0")) {
      if (accept("xX")) digits = "0123456789abcdefABCDEF_";
      else if (accept("oO")) digits = "01234567_";
      else if (accept("bB")) digits = "01_";
    }
    run(digits);
    if (accept(".")) run(digits);
    if (digits.length === 11 && accept("eE")) {
      accept("+-");
      run("0123456789_");
    }
    if (digits.length === 23 && accept("pP")) {
      accept("+-");
      run("0123456789_");
    }
    accept("i");
    if (isAlnum(charAt(s, this.pos))) {
      this.pos += charAt(s, this.pos)!.length;
      return false;
    }
    return true;
  }

  private number(start: number): void {
    const bad = () => this.fail(start, `bad number syntax: ${JSON.stringify(this.input.slice(start, this.pos))}`);
    if (!this.scanNumber()) bad();
    const c = this.input[this.pos];
    if (c === "+" || c === "-") {
      if (!this.scanNumber() || this.input[this.pos - 1] !== "i") bad();
      this.emit("complex", start);
    } else {
      this.emit("number", start);
    }
  }
}
