/**
 * The parser of templatefile's text/template: tokens to the parse tree (actions,
 * pipelines, commands, operands, if/with/range), with Go's literal syntax (numbers,
 * quoted strings and characters) and its syntax errors; also `lineCol` for messages.
 *
 * Source: Go's text/template/parse (parse.go, node.go) and strconv's unquoting, as
 * text/template documents them (https://pkg.go.dev/text/template); see index.ts.
 */
import { BUILTINS } from "./builtins.js";
import type { Tok, TokKind } from "./lex.js";
import { charAt, GO_TEMPLATE_LIMITS, GoInt, utf8Decoder, utf8Encoder } from "./values.js";

export interface Span {
  pos: number;
  end: number;
}

export type Arg = Span & (
  | { t: "dot" }
  | { t: "nil" }
  | { t: "bool"; v: boolean }
  | { t: "number"; v: GoInt | number }
  | { t: "string"; v: string }
  | { t: "field"; idents: string[] }
  | { t: "var"; name: string; idents: string[] }
  | { t: "ident"; name: string }
  | { t: "pipe"; pipe: Pipe }
  | { t: "chain"; node: Arg; fields: string[] }
);

export interface Cmd extends Span {
  args: Arg[];
}

export interface Pipe extends Span {
  decl: string[];
  isAssign: boolean;
  cmds: Cmd[];
}

export type TNode =
  | { t: "text"; text: string }
  | { t: "action"; pipe: Pipe }
  | { t: "if" | "with"; branches: { pipe: Pipe; list: TNode[] }[]; elseList: TNode[] | null }
  | { t: "range"; pipe: Pipe; list: TNode[]; elseList: TNode[] | null; pos: number }
  | { t: "break" | "continue"; pos: number };

/** `{{end}}` or `{{else}}` (with the `if`/`with` of `{{else if}}` left pending), ending a list. */
type Delimiter = { t: "end" | "else"; pos: number; chain: "if" | "with" | null };

const OPERAND_START = new Set<TokKind>(["bool", "char", "complex", "dot", "field", "ident", "number", "nil", "raw", "string", "var", "lparen"]);

/** Go's rendering of a token in "unexpected ..." messages. */
function describeTok(t: Tok): string {
  if (t.k === "eof") return "EOF";
  if (t.k === "keyword" || t.k === "nil" || t.k === "dot") return `<${t.v}>`;
  const v = t.v.length > 10 ? `${JSON.stringify(t.v.slice(0, 10))}...` : JSON.stringify(t.v);
  return v;
}

export class Parser {
  private i = 0;
  private vars: string[] = ["$"];
  private rangeDepth = 0;
  private depth = 0;

  constructor(private readonly toks: Tok[], private readonly src: string, private readonly fail: (pos: number, msg: string) => never) {}

  parse(): TNode[] {
    const list: TNode[] = [];
    while (this.peek().k !== "eof") {
      const n = this.textOrAction();
      if ("chain" in n) this.fail(n.pos, `unexpected {{${n.t}}}`);
      list.push(n);
    }
    return list;
  }

  /** The next token; the last (`eof` or `error`) repeats, and `backup` undoes any `next`. */
  private next(): Tok {
    return this.toks[Math.min(this.i++, this.toks.length - 1)];
  }

  private peek(): Tok {
    return this.toks[Math.min(this.i, this.toks.length - 1)];
  }

  private nextNonSpace(): Tok {
    let t = this.next();
    while (t.k === "space") t = this.next();
    return t;
  }

  private peekNonSpace(): Tok {
    while (this.peek().k === "space") this.i++;
    return this.peek();
  }

  private backup(): void {
    this.i--;
  }

  private unexpected(t: Tok, context: string): never {
    if (t.k === "error") return this.fail(t.pos, t.v);
    return this.fail(t.pos, `unexpected ${describeTok(t)} in ${context}`);
  }

  private expect(k: TokKind, context: string): Tok {
    const t = this.nextNonSpace();
    if (t.k !== k) this.unexpected(t, context);
    return t;
  }

  private enter(pos: number): void {
    if (++this.depth > GO_TEMPLATE_LIMITS.nesting) this.fail(pos, `control structures nested more than ${GO_TEMPLATE_LIMITS.nesting} deep`);
  }

  private textOrAction(): TNode | Delimiter {
    const t = this.nextNonSpace();
    if (t.k === "text") return { t: "text", text: t.v };
    if (t.k === "left") return this.action();
    return this.unexpected(t, "input");
  }

  private action(): TNode | Delimiter {
    const t = this.nextNonSpace();
    if (t.k === "keyword") {
      switch (t.v) {
        case "block":
        case "define":
        case "template":
          return this.fail(t.pos, `{{${t.v}}} is not supported: templatefile renders a file as one template (define, template and block are refused)`);
        case "break":
        case "continue":
          this.expect("right", t.v);
          if (this.rangeDepth === 0) this.fail(t.pos, `{{${t.v}}} outside {{range}}`);
          return { t: t.v, pos: t.pos };
        case "else": {
          const p = this.peekNonSpace();
          if (p.k === "keyword" && (p.v === "if" || p.v === "with")) return { t: "else", pos: t.pos, chain: p.v };
          this.expect("right", "else");
          return { t: "else", pos: t.pos, chain: null };
        }
        case "end":
          this.expect("right", "end");
          return { t: "end", pos: t.pos, chain: null };
        case "if":
        case "with":
          return this.ifOrWith(t.v, t.pos);
        case "range":
          return this.range(t.pos);
      }
    }
    this.backup();
    return { t: "action", pipe: this.pipeline("command", "right") };
  }

  /** Nodes up to the `{{end}}` or `{{else}}` that closes them. */
  private itemList(opener: string, openPos: number): [TNode[], Delimiter] {
    const list: TNode[] = [];
    for (;;) {
      if (this.peekNonSpace().k === "eof") {
        this.fail(this.src.length, `unexpected EOF: the {{${opener}}} at ${lineCol(this.src, openPos).join(":")} has no {{end}}`);
      }
      const n = this.textOrAction();
      if ("chain" in n) return [list, n];
      list.push(n);
    }
  }

  private elseList(context: string, openPos: number, d: Delimiter): TNode[] {
    if (d.chain) this.fail(d.pos, `{{else ${d.chain}}} cannot continue a {{${context}}}`);
    const [list, end] = this.itemList(context, openPos);
    if (end.t !== "end") this.fail(end.pos, "expected end; found {{else}}");
    return list;
  }

  /** `if` with its `else if` chain, or `with` with its `else with` chain. */
  private ifOrWith(context: "if" | "with", pos: number): TNode {
    this.enter(pos);
    const mark = this.vars.length;
    const branches: { pipe: Pipe; list: TNode[] }[] = [];
    let elseList: TNode[] | null = null;
    for (;;) {
      const pipe = this.pipeline(context, "right");
      const [list, d] = this.itemList(context, pos);
      branches.push({ pipe, list });
      if (d.t === "end") break;
      if (d.chain === context) {
        this.nextNonSpace();
        continue;
      }
      elseList = this.elseList(context, pos, d);
      break;
    }
    this.vars.length = mark;
    this.depth--;
    return { t: context, branches, elseList };
  }

  private range(pos: number): TNode {
    this.enter(pos);
    const mark = this.vars.length;
    const pipe = this.pipeline("range", "right");
    this.rangeDepth++;
    const [list, d] = this.itemList("range", pos);
    this.rangeDepth--;
    const elseList = d.t === "else" ? this.elseList("range", pos, d) : null;
    this.vars.length = mark;
    this.depth--;
    return { t: "range", pipe, list, elseList, pos };
  }

  private pipeline(context: string, end: "right" | "rparen"): Pipe {
    const pipe: Pipe = { pos: this.peekNonSpace().pos, end: 0, decl: [], isAssign: false, cmds: [] };
    for (;;) {
      const v = this.peekNonSpace();
      if (v.k !== "var") break;
      const save = this.i;
      this.next();
      const after = this.peekNonSpace();
      if (after.k === "assign" || after.k === "declare") {
        this.next();
        pipe.isAssign = after.k === "assign";
        pipe.decl.push(v.v);
        this.vars.push(v.v);
        break;
      }
      if (after.k === "op" && after.v === ",") {
        this.next();
        pipe.decl.push(v.v);
        this.vars.push(v.v);
        if (context === "range" && pipe.decl.length < 2) {
          const p = this.peekNonSpace();
          if (p.k === "var" || p.k === "right" || p.k === "rparen") continue;
          this.fail(p.pos, "range can only initialize variables");
        }
        this.fail(after.pos, `too many declarations in ${context}`);
      }
      this.i = save;
      break;
    }
    for (;;) {
      const t = this.nextNonSpace();
      if (t.k === end) {
        pipe.end = t.pos;
        this.checkPipeline(pipe, context);
        return pipe;
      }
      if (!OPERAND_START.has(t.k)) this.unexpected(t, context);
      this.backup();
      pipe.cmds.push(this.command());
    }
  }

  private checkPipeline(pipe: Pipe, context: string): void {
    if (pipe.cmds.length === 0) this.fail(pipe.pos, `missing value for ${context}`);
    pipe.cmds.slice(1).forEach((c, i) => {
      const k = c.args[0].t;
      if (k === "bool" || k === "dot" || k === "nil" || k === "number" || k === "string") {
        this.fail(c.pos, `non executable command in pipeline stage ${i + 2}`);
      }
    });
  }

  private command(): Cmd {
    const cmd: Cmd = { pos: this.peekNonSpace().pos, end: 0, args: [] };
    for (;;) {
      this.peekNonSpace();
      const op = this.operand();
      if (op) {
        cmd.args.push(op);
        cmd.end = op.end;
      }
      const t = this.next();
      if (t.k === "space") continue;
      if (t.k === "right" || t.k === "rparen") this.backup();
      else if (t.k !== "pipe") this.unexpected(t, "operand");
      break;
    }
    if (cmd.args.length === 0) this.fail(cmd.pos, "empty command");
    return cmd;
  }

  private operand(): Arg | null {
    const node = this.term();
    if (!node || this.peek().k !== "field") return node;
    const fields: string[] = [];
    let end = node.end;
    while (this.peek().k === "field") {
      const f = this.next();
      fields.push(f.v.slice(1));
      end = f.pos + f.v.length;
    }
    switch (node.t) {
      case "field":
        return { ...node, idents: [...node.idents, ...fields], end };
      case "var":
        return { ...node, idents: [...node.idents, ...fields], end };
      case "bool":
      case "string":
      case "number":
      case "nil":
      case "dot":
        return this.fail(node.pos, `unexpected . after term ${JSON.stringify(this.src.slice(node.pos, node.end))}`);
      default:
        return { t: "chain", node, fields, pos: node.pos, end };
    }
  }

  private term(): Arg | null {
    const t = this.nextNonSpace();
    const span = { pos: t.pos, end: t.pos + t.v.length };
    switch (t.k) {
      case "ident":
        if (!Object.hasOwn(BUILTINS, t.v)) this.fail(t.pos, `function ${JSON.stringify(t.v)} not defined`);
        return { t: "ident", name: t.v, ...span };
      case "dot":
        return { t: "dot", ...span };
      case "nil":
        return { t: "nil", ...span };
      case "var":
        if (!this.vars.includes(t.v)) this.fail(t.pos, `undefined variable ${JSON.stringify(t.v)}`);
        return { t: "var", name: t.v, idents: [], ...span };
      case "field":
        return { t: "field", idents: [t.v.slice(1)], ...span };
      case "bool":
        return { t: "bool", v: t.v === "true", ...span };
      case "char":
      case "number":
      case "complex":
        return { t: "number", v: this.number(t), ...span };
      case "string":
      case "raw":
        return { t: "string", v: this.unquote(t), ...span };
      case "lparen": {
        this.enter(t.pos);
        const pipe = this.pipeline("parenthesized pipeline", "rparen");
        this.depth--;
        return { t: "pipe", pipe, pos: t.pos, end: pipe.end + 1 };
      }
    }
    this.backup();
    return null;
  }

  /** A number constant: `int` for integer syntax and characters, `float64` with `.`, `e` or `p`. */
  private number(t: Tok): GoInt | number {
    const text = t.v;
    if (t.k === "char") {
      const r = unquoteChar(text);
      if (r === undefined) this.fail(t.pos, `malformed character constant: ${text}`);
      return new GoInt(BigInt(r), "int");
    }
    if (t.k === "complex" || text.endsWith("i")) this.fail(t.pos, `complex number ${text} is not supported`);
    const sign = text[0] === "-" ? -1n : 1n;
    const body = text.replace(/^[+-]/, "");
    const hex = /^0[xX]/.test(body);
    const isFloat = hex ? /[pP]/.test(body) : /[.eE]/.test(body);
    const illegal = () => this.fail(t.pos, `illegal number syntax: ${JSON.stringify(text)}`);
    if (!validUnderscores(body)) illegal();
    const digits = body.replace(/_/g, "");
    if (!isFloat) {
      let m: RegExpMatchArray | null;
      let v: bigint;
      if ((m = /^0[xX]([0-9a-fA-F]+)$/.exec(digits))) v = BigInt(`0x${m[1]}`);
      else if ((m = /^0[oO]?([0-7]+)$/.exec(digits))) v = BigInt(`0o${m[1]}`);
      else if ((m = /^0[bB]([01]+)$/.exec(digits))) v = BigInt(`0b${m[1]}`);
      else if (/^(0|[1-9][0-9]*)$/.test(digits)) v = BigInt(digits);
      else return illegal();
      v *= sign;
      if (v >= 2n ** 63n || v < -(2n ** 63n)) this.fail(t.pos, `integer overflow: ${JSON.stringify(text)}`);
      return new GoInt(v, "int");
    }
    let f: number;
    if (hex) {
      const m = /^0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?[0-9]+)$/.exec(digits);
      if (!m || (m[1] === "" && !m[2])) return illegal();
      const frac = m[2] ?? "";
      f = Number(BigInt(`0x${m[1] + frac || "0"}`)) * 2 ** (Number(m[3]) - 4 * frac.length);
    } else {
      if (!/^([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/.test(digits)) illegal();
      f = Number(digits);
    }
    if (!Number.isFinite(f)) this.fail(t.pos, `number ${text} is out of range`);
    return Number(sign) * f;
  }

  private unquote(t: Tok): string {
    if (t.k === "raw") return t.v.slice(1, -1).replace(/\r/g, "");
    const s = unquoteString(t.v);
    if (s === undefined) this.fail(t.pos, `invalid syntax in string ${t.v.length > 40 ? t.v.slice(0, 40) + "..." : t.v}`);
    return s;
  }
}

/** Go's rule: `_` only between digits, or after a base prefix. */
function validUnderscores(s: string): boolean {
  if (!s.includes("_")) return true;
  const body = /^0[xXoObB]/.test(s) ? "0" + s.slice(2) : s;
  return !/(^_|_$|__|_[^0-9a-fA-F]|[^0-9a-fA-F]_)/.test(body);
}

const SIMPLE_ESCAPES: Record<string, number> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, "\\": 92, '"': 34, "'": 39 };

/** Go's escape at `s[i]` (after the backslash): bytes or a rune, and the next index; undefined when invalid. */
function unescape(s: string, i: number, quote: string): { bytes?: number; rune?: number; next: number } | undefined {
  const c = s[i];
  if (c in SIMPLE_ESCAPES) {
    if ((c === '"' || c === "'") && c !== quote) return undefined;
    return { rune: SIMPLE_ESCAPES[c], next: i + 1 };
  }
  const hexDigits = (n: number) => {
    const h = s.slice(i + 1, i + 1 + n);
    return h.length === n && /^[0-9a-fA-F]+$/.test(h) ? parseInt(h, 16) : undefined;
  };
  if (c === "x") {
    const v = hexDigits(2);
    return v === undefined ? undefined : { bytes: v, next: i + 3 };
  }
  if (c === "u" || c === "U") {
    const n = c === "u" ? 4 : 8;
    const v = hexDigits(n);
    if (v === undefined || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return undefined;
    return { rune: v, next: i + 1 + n };
  }
  if (c >= "0" && c <= "7") {
    const o = s.slice(i, i + 3);
    if (!/^[0-7]{3}$/.test(o) || parseInt(o, 8) > 255) return undefined;
    return { bytes: parseInt(o, 8), next: i + 3 };
  }
  return undefined;
}

/** A Go interpreted string literal (with quotes); undefined when malformed. Byte escapes form UTF-8. */
function unquoteString(lit: string): string | undefined {
  const body = lit.slice(1, -1);
  if (!body.includes("\\")) return body;
  const bytes: number[] = [];
  let i = 0;
  while (i < body.length) {
    const c = body[i];
    if (c !== "\\") {
      const ch = charAt(body, i)!;
      bytes.push(...utf8Encoder.encode(ch));
      i += ch.length;
      continue;
    }
    const e = unescape(body, i + 1, '"');
    if (!e) return undefined;
    if (e.bytes !== undefined) bytes.push(e.bytes);
    else bytes.push(...utf8Encoder.encode(String.fromCodePoint(e.rune!)));
    i = e.next;
  }
  return utf8Decoder.decode(new Uint8Array(bytes));
}

/** The rune of a Go character literal ('a', '\n', '\x41'); undefined when malformed. */
function unquoteChar(lit: string): number | undefined {
  const body = lit.slice(1, -1);
  if (body.startsWith("\\")) {
    const e = unescape(body, 1, "'");
    if (!e || e.next !== body.length) return undefined;
    return e.rune ?? e.bytes;
  }
  const ch = charAt(body, 0);
  return ch !== undefined && ch.length === body.length ? ch.codePointAt(0) : undefined;
}

/** 1-based line and column (in characters) of a UTF-16 offset. */
export function lineCol(text: string, offset: number): [number, number] {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf("\n"); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    start = i + 1;
  }
  return [line, Array.from(text.slice(start, offset)).length + 1];
}
