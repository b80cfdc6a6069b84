/**
 * Template scanning: quoted strings, heredocs and bare templates.
 *
 * Source: HCL native syntax specification, "Templates" and "Template Literals",
 * "Template Interpolations", "Template Directives", "Template Whitespace Stripping",
 * and hclsyntax's parser_template.go for the token-level rules (strip markers trim only
 * the adjacent literal token; `<<-` trims the smallest common indentation of the lines
 * that start with literal text, ignoring blank lines; heredoc literals are split per line
 * for both rules; adjacent literals are then merged).
 *
 * Shapes: `scanTemplate(host, mode, openStart, marker?)` starts with `host.pos` just past
 * the opener (`"`, `<<EOT` or the start of the text) and leaves it just past the closer.
 * Modes:
 * - `quoted`: `\n \r \t \" \\ \uNNNN \UNNNNNNNN` escapes; a raw line break is an error.
 * - `heredoc` / `heredoc_flush`: no backslash escapes; ends at a line holding only the
 *   marker (surrounding whitespace allowed); the body includes its final line break.
 * - `bare`: no backslash escapes; runs to the end of the text.
 * In every mode `$${` is a literal `${` and `%%{` a literal `%{`.
 * Result: a string `literal` when there is no sequence, else a `template`.
 *
 * Errors: throws `SyntaxFail` (local offsets) via `host.fail`; the parser converts it.
 */
import type { Binding, Expr, TemplatePart } from "./ast.js";
import { describeToken, type Token } from "./lex.js";
import { closestName } from "../diagnostics/did-you-mean.js";

export type TemplateMode = "quoted" | "heredoc" | "heredoc_flush" | "bare";

/** The parts of the expression parser that template scanning needs. */
export interface TemplateHost {
  readonly text: string;
  readonly base: number;
  pos: number;
  peek(): Token;
  next(): Token;
  parseExpr(): Expr;
  fail(start: number, end: number, message: string): never;
  enter(at: { start: number; end: number }): void;
  depth: number;
  withNewlines<T>(nl: boolean, f: () => T): T;
  /** `k, v in coll` / `v in coll` after `for`, shared by for expressions and `%{for}` directives. */
  forHead(construct: string): { keyVar?: Binding; valueVar: Binding; collection: Expr };
}

type Flat =
  | { t: "lit"; value: string; start: number; end: number }
  | { t: "interp"; expr: Expr; start: number; end: number }
  | { t: "if"; cond: Expr; start: number; end: number }
  | { t: "for"; keyVar?: Binding; valueVar: Binding; coll: Expr; start: number; end: number }
  | { t: "else" | "endif" | "endfor"; start: number; end: number };

const ESCAPES: Record<string, string> = { n: "\n", r: "\r", t: "\t", '"': '"', "\\": "\\" };
const KEYWORDS = ["if", "else", "endif", "for", "endfor"];

/** What ends a run of plain template text: `$` and `%` (an interpolation or directive may start), a line end, `"` and `\\` (a quoted string's end or escape). */
const MAY_MEAN = new Set([0x24, 0x25, 0x0a, 0x0d, 0x22, 0x5c]);

export function scanTemplate(p: TemplateHost, mode: TemplateMode, openStart: number, marker = ""): Expr {
  const text = p.text;
  const quoted = mode === "quoted";
  const heredoc = mode === "heredoc" || mode === "heredoc_flush";
  let pos = p.pos;
  if (heredoc) pos += text[pos] === "\r" ? 2 : 1;
  const flat: Flat[] = [];
  let buf = "";
  let litStart = pos;
  let ltrimNext = false;
  let atLineStart = true;
  let end = -1;

  const flushLit = (upto: number): void => {
    if (upto > litStart) {
      flat.push({ t: "lit", value: ltrimNext ? buf.trimStart() : buf, start: litStart, end: upto });
      ltrimNext = false;
    }
    buf = "";
    litStart = upto;
  };

  while (end < 0) {
    if (heredoc && atLineStart) {
      const nl = text.indexOf("\n", pos);
      const line = text.slice(pos, nl < 0 ? text.length : nl);
      if (line.trim() === marker) {
        flushLit(pos);
        end = pos + line.indexOf(marker) + marker.length;
        break;
      }
      atLineStart = false;
    }
    if (pos >= text.length) {
      if (mode === "bare") {
        flushLit(pos);
        end = pos;
        break;
      }
      if (quoted) p.fail(openStart, text.length, "Unterminated template string: no closing quote (\") was found for the string.");
      p.fail(openStart, openStart + 2 + (mode === "heredoc_flush" ? 1 : 0) + marker.length, `Unterminated heredoc: no closing marker line "${marker}" was found.`);
    }
    const c = text[pos];
    if (quoted && c === '"') {
      flushLit(pos);
      end = pos + 1;
      break;
    }
    if (quoted && (c === "\n" || c === "\r")) {
      p.fail(openStart, pos, 'Invalid multi-line string: quoted strings may not be split over multiple lines. Use the \\n escape for a newline, or a heredoc (<<EOT) for multi-line text.');
    }
    if (quoted && c === "\\") {
      const [s, len] = decodeEscape(p, pos);
      buf += s;
      pos += len;
      continue;
    }
    if ((c === "$" || c === "%") && text[pos + 1] === c && text[pos + 2] === "{") {
      buf += c + "{";
      pos += 3;
      continue;
    }
    if ((c === "$" || c === "%") && text[pos + 1] === "{") {
      flushLit(pos);
      ltrimNext = false;
      const strip = text[pos + 2] === "~";
      const last = flat[flat.length - 1];
      if (strip && last && last.t === "lit") last.value = last.value.trimEnd();
      p.pos = pos + (strip ? 3 : 2);
      const close = p.withNewlines(false, () => (c === "$" ? scanInterp(p, flat, pos, mode) : scanDirective(p, flat, pos)));
      ltrimNext = close.type === "~}";
      pos = p.pos;
      litStart = pos;
      continue;
    }
    // Plain text up to the next character that may mean something here, appended as one
    // slice: appended a character at a time, a literal was a chain of one string node per
    // character, kept as long as its tree (found by a new-user trial: a language server's
    // memory grew with the square of a template's length as it was typed into).
    let to = pos + 1;
    if (c !== "\n") while (to < text.length && !MAY_MEAN.has(text.charCodeAt(to))) to++;
    buf += to === pos + 1 ? c : text.slice(pos, to);
    pos = to;
    if (heredoc && c === "\n") {
      flushLit(pos);
      atLineStart = true;
    }
  }
  p.pos = end;

  if (mode === "heredoc_flush") flushIndentation(flat);
  const parts = meld(flat);
  const start = p.base + openStart;
  const absEnd = p.base + end;
  if (parts.length === 0) return { kind: "literal", value: "", start, end: absEnd };
  if (parts.length === 1 && parts[0].t === "lit") return { kind: "literal", value: parts[0].value, start, end: absEnd };
  return { kind: "template", parts: buildTree(p, parts), start, end: absEnd };
}

function decodeEscape(p: TemplateHost, pos: number): [string, number] {
  const n = p.text[pos + 1] ?? "";
  if (n in ESCAPES) return [ESCAPES[n], 2];
  if (n === "u" || n === "U") {
    const len = n === "u" ? 4 : 8;
    const hex = /^[0-9a-fA-F]*/.exec(p.text.slice(pos + 2, pos + 2 + len))![0];
    const cp = hex.length === len ? parseInt(hex, 16) : -1;
    if (cp < 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
      p.fail(pos, pos + 2 + hex.length, `Invalid escape sequence: \\${n} must be followed by ${len} hexadecimal digits naming a Unicode character.`);
    }
    return [String.fromCodePoint(cp), 2 + len];
  }
  return p.fail(pos, Math.min(pos + 2, p.text.length), `Invalid escape sequence: the symbol ${JSON.stringify(n)} is not a valid escape sequence selector (use \\n, \\r, \\t, \\", \\\\, \\uNNNN or \\UNNNNNNNN).`);
}

function closeSeq(p: TemplateHost, seqStart: number, what: string, mode: TemplateMode): Token {
  const t = p.peek();
  if (t.type === "}" || t.type === "~}") return p.next();
  if (t.type === "eof" || (t.type === "quote" && mode === "quoted")) {
    return p.fail(seqStart, seqStart + 2, `Unclosed template ${what} sequence: there is no closing brace for this sequence before the end of the ${t.type === "eof" ? "text" : "quoted string"}.`);
  }
  return p.fail(t.start, t.end, `Extra characters after ${what} expression: expected a closing brace, but found ${describeToken(t)}. If this is an embedded sequence for another language, escape it by writing $\${ instead of \${ (or %%{ instead of %{).`);
}

function scanInterp(p: TemplateHost, flat: Flat[], seqStart: number, mode: TemplateMode): Token {
  const expr = p.parseExpr();
  const close = closeSeq(p, seqStart, "interpolation", mode);
  flat.push({ t: "interp", expr, start: seqStart, end: close.end });
  return close;
}

function scanDirective(p: TemplateHost, flat: Flat[], seqStart: number): Token {
  const kw = p.peek();
  if (kw.type !== "ident") {
    p.fail(kw.start, kw.end, 'Invalid template directive: a keyword ("if", "for", "else", "endif", "endfor") is expected at the beginning of a %{ sequence.');
  }
  p.next();
  let push: (end: number) => Flat;
  switch (kw.text) {
    case "if": {
      const cond = p.parseExpr();
      push = (end) => ({ t: "if", cond, start: seqStart, end });
      break;
    }
    case "else":
    case "endif":
    case "endfor": {
      const t = kw.text;
      push = (end) => ({ t, start: seqStart, end });
      break;
    }
    case "for": {
      const { keyVar, valueVar, collection: coll } = p.forHead("directive");
      push = (end) => ({ t: "for", keyVar, valueVar, coll, start: seqStart, end });
      break;
    }
    default: {
      const s = closestName(kw.text, KEYWORDS);
      p.fail(kw.start, kw.end, `Invalid template control keyword: "${kw.text}" is not a valid template control keyword.${s ? ` Did you mean "${s}"?` : ""}`);
    }
  }
  const t = p.peek();
  if (t.type !== "}" && t.type !== "~}") {
    p.fail(t.start, t.end, `Extra characters in ${kw.text} marker: expected a closing brace, but found ${describeToken(t)}.`);
  }
  const close = p.next();
  flat.push(push(close.end));
  return close;
}

/** The `<<-` rule: strip the smallest leading-whitespace count from line-leading literals. */
function flushIndentation(flat: Flat[]): void {
  let min = Infinity;
  let newline = true;
  const adjust: Extract<Flat, { t: "lit" }>[] = [];
  for (const f of flat) {
    if (newline) {
      newline = false;
      let spaces = 0;
      if (f.t === "lit") {
        const trimmed = f.value.trimStart();
        if (trimmed.length === 0 && f.value.endsWith("\n")) spaces = Infinity;
        else {
          spaces = [...f.value.slice(0, f.value.length - trimmed.length)].length;
          adjust.push(f);
        }
      }
      min = Math.min(min, spaces);
    }
    if (f.t === "lit" && f.value.endsWith("\n")) newline = true;
  }
  if (!Number.isFinite(min) || min === 0) return;
  for (const f of adjust) {
    const removed = [...f.value].slice(0, min).join("");
    f.value = f.value.slice(removed.length);
    f.start = Math.min(f.end, f.start + removed.length);
  }
}

function meld(flat: Flat[]): Flat[] {
  const out: Flat[] = [];
  for (const f of flat) {
    const last = out[out.length - 1];
    if (f.t === "lit" && last && last.t === "lit") out[out.length - 1] = { t: "lit", value: last.value + f.value, start: last.start, end: f.end };
    else out.push(f);
  }
  return out;
}

type Context = "root" | "if" | "else" | "for";

function buildTree(p: TemplateHost, flat: Flat[]): TemplatePart[] {
  let i = 0;
  const abs = (n: number): number => p.base + n;
  const parts = (ctx: Context, opener?: Flat): [TemplatePart[], Flat | undefined] => {
    const out: TemplatePart[] = [];
    while (i < flat.length) {
      const f = flat[i++];
      switch (f.t) {
        case "lit":
          out.push({ kind: "template_literal", value: f.value, start: abs(f.start), end: abs(f.end) });
          break;
        case "interp":
          out.push({ kind: "template_interp", expr: f.expr, start: abs(f.start), end: abs(f.end) });
          break;
        case "if": {
          p.enter(f);
          const [thenParts, stop] = parts("if", f);
          let elseParts: TemplatePart[] = [];
          let last = stop!;
          if (last.t === "else") [elseParts, last] = parts("else", f) as [TemplatePart[], Flat];
          p.depth--;
          out.push({ kind: "template_if", condition: f.cond, thenParts, elseParts, start: abs(f.start), end: abs(last.end) });
          break;
        }
        case "for": {
          p.enter(f);
          const [body, stop] = parts("for", f);
          p.depth--;
          out.push({ kind: "template_for", keyVar: f.keyVar, valueVar: f.valueVar, collection: f.coll, body, start: abs(f.start), end: abs(stop!.end) });
          break;
        }
        default: {
          const ok = (ctx === "if" && (f.t === "else" || f.t === "endif")) || (ctx === "else" && f.t === "endif") || (ctx === "for" && f.t === "endfor");
          if (ok) return [out, f];
          const why = ctx === "root" ? "the control directives in this template are unbalanced"
            : ctx === "else" && f.t === "else" ? "already in the else clause of this if"
            : ctx === "for" ? "expecting an endfor directive for the open for directive"
            : "expecting an endif directive for the open if directive";
          p.fail(f.start, f.end, `Unexpected ${f.t} directive: ${why}.`);
        }
      }
    }
    if (opener) {
      const kw = opener.t === "for" ? "for" : "if";
      p.fail(opener.start, opener.end, `Unexpected end of template: the ${kw} directive is missing its corresponding end${kw} directive.`);
    }
    return [out, undefined];
  };
  return parts("root")[0];
}
