/**
 * Templates: quoted templates (`"…"`), heredocs (`<<EOT` / `<<-EOT`) and quoted block
 * labels, from the scanner's template tokens to `TemplateExpr` parts.
 *
 * Source: HCL native syntax specification (`hclsyntax/spec.md`), "Template Expressions",
 * "Templates" (literals, `${ }` interpolations, `%{ if }` / `%{ for }` directives, `~`
 * strip markers, unwrapping of a lone interpolation) and "Heredoc" (`<<-`: the smallest
 * leading white space of the line-leading literals is removed from each of them; blank
 * lines do not count); the order of operations follows the reference parser
 * (`hclsyntax/parser_template.go`): literal tokens are decoded one by one, a strip marker
 * trims only the literal token next to it (in a heredoc: only to the line break), then
 * the flush rule, then adjacent literals are joined, then directives are nested.
 *
 * Errors (unterminated string or heredoc, unclosed sequence, bad escape, unknown
 * directive keyword, unbalanced directives) are reported through the parser's cursor
 * with HCL's wording and the `$${` / `%%{` hints; parsing then resumes after the template.
 */
import { closestName } from "../../diagnostics/did-you-mean.js";
import type { Expr, TemplateExpr, TemplateInterp, TemplateLiteral, TemplatePart, WrapExpr } from "./cst.js";
import { CONTROL_ESCAPE_HINT, INTERP_ESCAPE_HINT } from "./diagnostics.js";
import type { ExpressionParser } from "./expressions.js";
import { T } from "./tokens.js";
import { decodeHeredoc, decodeQuoted, trimLeftSpace, trimRightSpace } from "./values.js";

/**
 * A template element before directives are nested (HCL's "template tokens"): literals
 * and interpolations are already the final parts; directives are markers.
 */
type Flat =
  | TemplateLiteral
  | TemplateInterp
  | { kind: "if-open"; cond: Expr; start: number; end: number }
  | { kind: "for-open"; keyVar?: string; valueVar: string; coll: Expr; start: number; end: number }
  | { kind: "else" | "endif" | "endfor"; start: number; end: number };

const KEYWORDS = ["if", "for", "else", "endif", "endfor"];

/**
 * Set by `interpolation` / `directive` as they return: their sequence closed with `~}`
 * (a module variable rather than a returned pair: no allocation per sequence).
 */
let stripAfter = false;

/** A directive that gave no part (after an error). */
function noPart(): undefined {
  stripAfter = false;
  return undefined;
}

/**
 * Parses the template whose opening token (`OQuote` or `OHeredoc`) is next. Returns a
 * `TemplateExpr`, or a `WrapExpr` when the template is exactly one interpolation.
 */
export function parseTemplateExpr(p: ExpressionParser): TemplateExpr | WrapExpr | Expr {
  const open = p.read();
  const heredoc = p.kinds[open] === T.OHeredoc;
  const closer = heredoc ? T.CHeredoc : T.CQuote;
  const start = p.starts[open];
  if (!p.enter(open)) return { kind: "invalid", children: [], start, end: p.ends[open] };
  const flat: Flat[] = [];
  let ltrimNext = false;
  let canTrimPrev = false;
  let endTok: number;
  for (;;) {
    const i = p.read();
    const k = p.kinds[i];
    if (k === closer) {
      endTok = i;
      break;
    }
    const ltrim = ltrimNext;
    ltrimNext = false;
    const canTrim = canTrimPrev;
    canTrimPrev = false;
    if (k === T.QuotedLit || k === T.StringLit) {
      let value = k === T.QuotedLit ? decodeQuoted(p.text, p.starts[i], p.ends[i], p.reportProblem) : decodeHeredoc(p.text, p.starts[i], p.ends[i]);
      if (ltrim) value = trimLeftSpace(value);
      flat.push({ kind: "lit", value, start: p.starts[i], end: p.ends[i] });
      canTrimPrev = true;
      continue;
    }
    if (k === T.TemplateInterp || k === T.TemplateControl) {
      if (canTrim && p.ends[i] - p.starts[i] === 3) {
        const last = flat[flat.length - 1];
        if (last && last.kind === "lit") last.value = trimRightSpace(last.value);
      }
      stripAfter = false;
      const part = k === T.TemplateInterp ? interpolation(p, i, heredoc) : directive(p, i);
      if (part) flat.push(part);
      ltrimNext = stripAfter;
      continue;
    }
    // Anything else ends the template early: a line break in a quoted template, the end
    // of the file, or a stray token inside a heredoc.
    if (k === T.QuotedNewline) {
      p.error(start, p.starts[i], "unterminated string: quoted strings cannot span lines", 'close the string with a quote ("), write "\\n" for a line break, or use a heredoc (<<EOT) for multi-line text');
      endTok = i;
      break;
    }
    if (k === T.EOF) {
      if (heredoc) {
        const marker = p.text.slice(start, p.ends[open]).replace(/^<<-?/, "").trim();
        const lastLine = p.text.slice(p.text.lastIndexOf("\n", p.text.length - 1) + 1).trim();
        const openEnd = p.ends[open] - (p.text.charCodeAt(p.ends[open] - 2) === 13 ? 2 : 1);
        if (lastLine === marker && p.text.length > p.ends[open]) {
          p.error(start, openEnd, `unterminated heredoc: its closing "${marker}" line, the last of the file, has no line break`, `add a line break after the closing "${marker}"`);
        } else {
          p.error(start, openEnd, `unterminated heredoc: no closing "${marker}" line`, `end the heredoc with a line holding only "${marker}", followed by a line break`);
        }
      } else {
        p.error(start, start + 1, "unterminated string: no closing quote before the end of the file", 'close the string with a quote (")');
      }
      endTok = i;
      break;
    }
    p.errorAt(i, heredoc ? "unexpected character in a heredoc" : "unexpected token in a string");
    endTok = p.recover(closer);
    break;
  }

  if (flat.length === 0) flat.push({ kind: "lit", value: "", start: p.ends[open], end: p.ends[open] });
  if (heredoc && p.text.charCodeAt(start + 2) === 45 /* - */) flushHeredoc(flat);
  const melded = meld(flat);
  const end = p.kinds[endTok] === T.EOF || p.kinds[endTok] === T.QuotedNewline ? p.ends[p.prev()] : p.ends[endTok];
  p.leave();
  const only = melded[0];
  if (melded.length === 1 && only.kind === "interp") return { kind: "wrap", inner: only.expr, start, end };
  return { kind: "template", parts: nest(p, melded), heredoc, start, end };
}

/** `${ expr }` after its opener `i`; returns the part and whether it ends with `~}`. */
function interpolation(p: ExpressionParser, i: number, heredoc: boolean): Flat {
  // A "${" not followed by an expression (`"${"`, `"${}"`, `${#x}` in a shell script) is
  // nearly always text meant for another language: say so, with the escape.
  const raw = p.kinds[p.pos];
  const endsString = raw === T.OQuote && (p.kinds[p.pos + 1] === T.QuotedNewline || p.kinds[p.pos + 1] === T.EOF); // `"… ${"`
  if (raw === T.TemplateSeqEnd || raw === T.EOF || raw === T.CQuote || raw === T.QuotedNewline || raw === T.Comment || raw === T.Invalid || endsString) {
    p.error(p.starts[i], p.ends[i], 'invalid interpolation: "${" must be followed by an expression and a closing "}"', INTERP_ESCAPE_HINT);
    const end = recoverSequence(p);
    stripAfter = false;
    return { kind: "interp", expr: p.invalid(p.starts[i], end), start: p.starts[i], end };
  }
  p.pushNewlines(false);
  try {
    const expr = p.parseExpression();
    const close = p.peekIndex();
    const ck = p.kinds[close];
    if (ck !== T.TemplateSeqEnd) {
      if (ck === T.EOF) {
        p.error(p.starts[i], p.ends[i], 'unclosed template interpolation: there is no closing "}" for this "${" before the end of the file', INTERP_ESCAPE_HINT);
      } else if ((ck === T.CQuote || ck === T.OQuote || ck === T.QuotedNewline) && !heredoc) {
        p.error(p.starts[i], p.ends[i], 'unclosed template interpolation: there is no closing "}" for this "${" before the end of the string', INTERP_ESCAPE_HINT);
      } else if (ck === T.Colon) {
        p.errorAt(close, "extra characters after interpolation expression: template interpolation doesn't expect a colon here", INTERP_ESCAPE_HINT);
      } else {
        p.errorAt(close, `extra characters after interpolation expression: expected "}" to end the interpolation, but found ${p.describe(close)}`, INTERP_ESCAPE_HINT);
      }
      const end = recoverSequence(p);
      stripAfter = false;
      return { kind: "interp", expr, start: p.starts[i], end };
    }
    p.read();
    stripAfter = p.ends[close] - p.starts[close] === 2;
    return { kind: "interp", expr, start: p.starts[i], end: p.ends[close] };
  } finally {
    p.popNewlines();
  }
}

/**
 * Skips to the end of a broken template sequence without leaving its template: to its
 * `}`, or to (not past) the end of the enclosing quoted string, heredoc or file.
 */
function recoverSequence(p: ExpressionParser): number {
  p.recovery = true;
  let nest = 0;
  for (;;) {
    const i = p.peekIndex();
    const k = p.kinds[i];
    if (k === T.EOF || k === T.CQuote || k === T.QuotedNewline || k === T.CHeredoc) return p.starts[i];
    p.read();
    if (k === T.TemplateInterp || k === T.TemplateControl) nest++;
    else if (k === T.TemplateSeqEnd) {
      if (nest === 0) return p.ends[i];
      nest--;
    }
  }
}

/** `%{ keyword … }` after its opener `i`. */
function directive(p: ExpressionParser, i: number): Flat | undefined {
  p.pushNewlines(false);
  try {
    const kw = p.peekIndex();
    if (p.kinds[kw] !== T.Ident) {
      p.errorAt(kw, 'invalid template directive: a keyword ("if", "for", "else", "endif", "endfor") is expected at the beginning of a "%{" sequence', CONTROL_ESCAPE_HINT);
      recoverSequence(p);
      return noPart();
    }
    p.read();
    const word = p.tokenText(kw);
    let part: Flat;
    const start = p.starts[i];
    switch (word) {
      case "if": {
        const cond = p.parseExpression();
        part = { kind: "if-open", cond, start, end: p.ends[p.peekIndex()] };
        break;
      }
      case "else":
      case "endif":
      case "endfor":
        part = { kind: word, start, end: p.ends[p.peekIndex()] };
        break;
      case "for": {
        const first = p.peekIndex();
        if (p.kinds[first] !== T.Ident) {
          p.errorAt(first, "invalid 'for' directive: a variable name is required after 'for'");
          recoverSequence(p);
          return noPart();
        }
        p.read();
        let keyVar: string | undefined;
        let valueVar = p.tokenText(first);
        if (p.peek() === T.Comma) {
          p.read();
          const second = p.peekIndex();
          if (p.kinds[second] !== T.Ident) {
            p.errorAt(second, "invalid 'for' directive: a value variable name is required after the comma");
            recoverSequence(p);
            return noPart();
          }
          p.read();
          keyVar = valueVar;
          valueVar = p.tokenText(second);
        }
        const inTok = p.peekIndex();
        if (!p.isKeyword(inTok, "in")) {
          p.errorAt(inTok, "invalid 'for' directive: the 'in' keyword is required after the variable names");
          recoverSequence(p);
          return noPart();
        }
        p.read();
        const coll = p.parseExpression();
        part = { kind: "for-open", keyVar, valueVar, coll, start, end: p.ends[p.peekIndex()] };
        break;
      }
      default: {
        const suggestion = closestName(word, KEYWORDS);
        p.errorAt(
          kw,
          `invalid template control keyword: "${word}" is not a valid template control keyword${suggestion ? `; did you mean "${suggestion}"?` : ""}`,
          CONTROL_ESCAPE_HINT,
        );
        recoverSequence(p);
        return noPart();
      }
    }
    const close = p.peekIndex();
    if (p.kinds[close] !== T.TemplateSeqEnd) {
      p.errorAt(close, `extra characters in the ${word} directive: expected "}" to end it, but found ${p.describe(close)}`, CONTROL_ESCAPE_HINT);
      recoverSequence(p);
      stripAfter = false;
      return part;
    }
    p.read();
    stripAfter = p.ends[close] - p.starts[close] === 2;
    return part;
  } finally {
    p.popNewlines();
  }
}

/** The `<<-` rule on the line-leading literals of `flat` (in place). */
function flushHeredoc(flat: Flat[]): void {
  let min = Infinity;
  let newline = true;
  const adjust: TemplateLiteral[] = [];
  for (const f of flat) {
    if (newline) {
      newline = false;
      let spaces = 0;
      if (f.kind === "lit") {
        const trimmed = trimLeftSpace(f.value);
        if (trimmed.length === 0 && f.value.endsWith("\n")) spaces = Infinity;
        else {
          spaces = codePointCount(f.value, f.value.length - trimmed.length);
          adjust.push(f);
        }
      }
      if (spaces < min) min = spaces;
    }
    if (f.kind === "lit" && f.value.endsWith("\n")) newline = true;
  }
  if (!Number.isFinite(min) || min === 0) return;
  for (const f of adjust) {
    let cut = 0;
    for (let n = 0; n < min && cut < f.value.length; n++) {
      const c = f.value.charCodeAt(cut);
      cut += c >= 0xd800 && c <= 0xdbff ? 2 : 1;
    }
    f.value = f.value.slice(cut);
  }
}

function codePointCount(s: string, units: number): number {
  let n = 0;
  for (let i = 0; i < units; i++) {
    const c = s.charCodeAt(i);
    if (!(c >= 0xdc00 && c <= 0xdfff)) n++;
  }
  return n;
}

/** Joins adjacent literals (in place: the first of a run absorbs the others). */
function meld(flat: Flat[]): Flat[] {
  let n = 0;
  for (let i = 0; i < flat.length; i++) {
    const f = flat[i];
    const last = n > 0 ? flat[n - 1] : undefined;
    if (f.kind === "lit" && last && last.kind === "lit") {
      last.value += f.value;
      last.end = f.end;
    } else flat[n++] = f;
  }
  flat.length = n;
  return flat;
}

/** Nests `if` / `for` directives; reports unbalanced ones. */
function nest(p: ExpressionParser, flat: Flat[]): TemplatePart[] {
  let simple = true;
  for (const f of flat) if (f.kind !== "lit" && f.kind !== "interp") simple = false;
  if (simple) return flat as TemplatePart[];
  let i = 0;
  const seq = (ctx: "root" | "if" | "else" | "for", opener?: Flat): { parts: TemplatePart[]; stop?: Flat } => {
    const parts: TemplatePart[] = [];
    while (i < flat.length) {
      const f = flat[i++];
      switch (f.kind) {
        case "lit":
        case "interp":
          parts.push(f);
          break;
        case "if-open": {
          const then = seq("if", f);
          let other: TemplatePart[] = [];
          let last = then.stop;
          if (last?.kind === "else") {
            const e = seq("else", f);
            other = e.parts;
            last = e.stop;
          }
          parts.push({ kind: "if", condition: f.cond, then: then.parts, else: other, start: f.start, end: last ? last.end : f.end });
          break;
        }
        case "for-open": {
          const body = seq("for", f);
          parts.push({ kind: "for", keyVar: f.keyVar, valueVar: f.valueVar, collection: f.coll, body: body.parts, start: f.start, end: body.stop ? body.stop.end : f.end });
          break;
        }
        default: {
          const ok = (ctx === "if" && (f.kind === "else" || f.kind === "endif")) || (ctx === "else" && f.kind === "endif") || (ctx === "for" && f.kind === "endfor");
          if (ok) return { parts, stop: f };
          const why =
            ctx === "root" ? "the control directives in this template are unbalanced"
            : ctx === "else" && f.kind === "else" ? 'this "if" already has an "else"'
            : ctx === "for" ? 'expected "%{ endfor }" to close the "for" directive first'
            : 'expected "%{ endif }" to close the "if" directive first';
          p.error(f.start, f.end, `unexpected ${f.kind} directive: ${why}`, CONTROL_ESCAPE_HINT);
          return { parts, stop: f };
        }
      }
    }
    if (opener) {
      const kw = opener.kind === "for-open" ? "for" : "if";
      p.error(opener.start, opener.end, `unclosed "${kw}" directive: there is no "%{ end${kw} }" for it`, `end it with "%{ end${kw} }"; ${CONTROL_ESCAPE_HINT}`);
    }
    return { parts };
  };
  const root = seq("root");
  while (i < flat.length) {
    const rest = seq("root");
    root.parts.push(...rest.parts);
  }
  return root.parts;
}

/**
 * A quoted block label after its `OQuote` is next: its decoded text (no template
 * sequences allowed) and the end offset of its closing quote.
 */
export function parseQuotedLabel(p: ExpressionParser): { value: string; end: number } {
  const open = p.read();
  const start = p.starts[open];
  let value = "";
  for (;;) {
    const i = p.read();
    const k = p.kinds[i];
    if (k === T.CQuote) return { value, end: p.ends[i] };
    if (k === T.QuotedLit) {
      value += decodeQuoted(p.text, p.starts[i], p.ends[i], p.reportProblem);
      continue;
    }
    if (k === T.TemplateInterp || k === T.TemplateControl) {
      const which = k === T.TemplateInterp ? "$" : "%";
      p.error(p.starts[i], p.ends[i], "invalid block label: template sequences are not allowed in a block label", `to include a literal "${which}{", double the "${which}" (as "${which}${which}{")`);
      value += `${which}{ ... }`;
      recoverSequence(p);
      continue;
    }
    if (k === T.EOF || k === T.QuotedNewline) {
      p.error(start, start + 1, "unterminated string: no closing quote for this block label", 'close the label with a quote (")');
      return { value, end: p.starts[i] };
    }
    p.errorAt(i, "invalid block label: this is not valid in a quoted label");
    const end = p.recover(T.CQuote);
    return { value, end: p.ends[end] };
  }
}
