/**
 * The expression parser: recursive descent over the token list.
 *
 * Source: HCL native syntax specification (`hclsyntax/spec.md`), "Expressions":
 * conditional `c ? a : b` (right-associative, lowest precedence), binary operators by
 * level (`||`; `&&`; `==` `!=`; `>` `>=` `<` `<=`; `+` `-`; `*` `/` `%`, each
 * left-associative), unary `-` and `!` (binding tighter than any binary operator, to a
 * term and its traversals), terms (literals, templates, names, function calls with `...`
 * and `::` namespaces, tuples, objects with `=` or `:` and newline or comma separators,
 * for expressions, parentheses) and postfix traversals (`.name`, legacy `.0`, `[key]`,
 * splats `.*` and `[*]`). Line breaks end an expression except inside brackets,
 * parentheses, template sequences and for expressions. The reference parser
 * (`hclsyntax/parser.go`) decides the AST shapes that hcl2json's rendering depends on
 * (static traversals, a literal key index `a[0]` / `a["k"]` staying a traversal) and the
 * error messages; its recovery rules are followed so one mistake gives one message.
 *
 * Never throws; recursion is bounded by the cursor's nesting limit.
 */
import type { Expr, ForExpr, ObjectItem, OtherExpr } from "./cst.js";
import { Cursor } from "./cursor.js";
import type { Problem } from "./diagnostics.js";
import { T } from "./tokens.js";
import { parseTemplateExpr } from "./templates.js";
import { isValidNumberLiteral } from "./values.js";

/** Binary operator precedence by token kind (0: not a binary operator; 1 `||` … 6 `* / %`). */
const PRECEDENCE = new Uint8Array(64);
PRECEDENCE[T.Or] = 1;
PRECEDENCE[T.And] = 2;
PRECEDENCE[T.EqualOp] = PRECEDENCE[T.NotEqual] = 3;
PRECEDENCE[T.Gt] = PRECEDENCE[T.Ge] = PRECEDENCE[T.Lt] = PRECEDENCE[T.Le] = 4;
PRECEDENCE[T.Plus] = PRECEDENCE[T.Minus] = 5;
PRECEDENCE[T.Star] = PRECEDENCE[T.Slash] = PRECEDENCE[T.Percent] = 6;

const OPPOSITE: Record<number, number> = { [T.OBrace]: T.CBrace, [T.OBrack]: T.CBrack, [T.OParen]: T.CParen };

/**
 * Parses expressions (and, through templates.ts, templates) from the cursor's position.
 * Every method returns a node, a placeholder `invalid` one after a syntax error (which
 * is reported on the cursor); none throws.
 */
export class ExpressionParser extends Cursor {
  /** How many errors were raised so far (reported or suppressed): "did this sub-parse fail?". */
  errorsSeen = 0;

  /** Reports a decoding problem as a syntax error (bound, to pass as a callback). */
  readonly reportProblem = (problem: Problem): void => this.error(problem.start, problem.end, problem.message, problem.hint);

  override error(start: number, end: number, message: string, hint?: string, at = -1): void {
    this.errorsSeen++;
    super.error(start, end, message, hint, at);
  }

  /** A placeholder for an expression that failed to parse, covering `[start, end)`. */
  invalid(start: number, end: number): OtherExpr {
    return { kind: "invalid", children: [], start, end };
  }

  /** Parses one expression (a conditional or anything of higher precedence). */
  parseExpression(): Expr {
    const before = this.errorsSeen;
    const first = this.peekIndex();
    const cond = this.parseBinary(1);
    if (this.recovery && this.errorsSeen > before) return cond;
    const q = this.peekIndex();
    if (this.kinds[q] !== T.Question) return cond;
    this.read();
    if (!this.enter(q)) return cond;
    try {
      const t0 = this.errorsSeen;
      const whenTrue = this.parseExpression();
      if (this.recovery && this.errorsSeen > t0) return cond;
      const colon = this.peekIndex();
      if (this.kinds[colon] !== T.Colon) {
        this.errorAt(colon, `missing false expression in conditional: expected ":" and the result for a false condition, but found ${this.describe(colon)}`, "the conditional operator is written condition ? true_result : false_result");
        return cond;
      }
      this.read();
      const f0 = this.errorsSeen;
      const whenFalse = this.parseExpression();
      if (this.recovery && this.errorsSeen > f0) return cond;
      return { kind: "conditional", condition: cond, whenTrue, whenFalse, start: this.starts[first], end: whenFalse.end };
    } finally {
      this.leave();
    }
  }

  /**
   * Binary operators of precedence `min` and above, left-associative (precedence
   * climbing: the same trees as one recursive function per level, in fewer calls).
   */
  private parseBinary(min: number): Expr {
    const before = this.errorsSeen;
    let lhs = this.parseWithTraversals();
    if (this.recovery && this.errorsSeen > before) return lhs;
    for (;;) {
      const opTok = this.peekIndex();
      const level = PRECEDENCE[this.kinds[opTok]];
      if (level === 0 || level < min) return lhs;
      this.read();
      const r0 = this.errorsSeen;
      const rhs = this.parseBinary(level + 1);
      if (this.recovery && this.errorsSeen > r0) return lhs;
      lhs = { kind: "binary", op: this.tokenText(opTok), left: lhs, right: rhs, start: lhs.start, end: rhs.end };
    }
  }

  /** A term and its postfix traversals. */
  parseWithTraversals(): Expr {
    return this.parseTraversals(this.parseTerm());
  }

  /** Extends `expr` with a static step ending at `end` (HCL's makeRelativeTraversal). */
  private step(expr: Expr, end: number): Expr {
    if (expr.kind === "traversal" || expr.kind === "relative") {
      expr.end = end;
      return expr;
    }
    return { kind: "relative", children: [expr], start: expr.start, end };
  }

  private parseTraversals(from: Expr): Expr {
    let ret = from;
    for (;;) {
      const next = this.peekIndex();
      const k = this.kinds[next];
      if (k === T.Dot) {
        const dot = this.read();
        const attr = this.peekIndex();
        const ak = this.kinds[attr];
        if (ak === T.Ident) {
          this.read();
          ret = this.step(ret, this.ends[attr]);
        } else if (ak === T.Number) {
          this.read();
          this.legacyIndex(attr, false);
          ret = this.step(ret, this.ends[attr]);
        } else if (ak === T.Star) {
          // Attribute-only splat: `.*` then `.name` / `.0` steps.
          let last = this.read();
          let broken = false;
          while (this.peek() === T.Dot) {
            this.read();
            const s = this.peekIndex();
            if (this.kinds[s] === T.Number) {
              this.read();
              this.legacyIndex(s, true);
              last = s;
              continue;
            }
            if (this.kinds[s] !== T.Ident) {
              if (this.kinds[s] === T.Star) this.errorAt(s, "nested splat expression not allowed: a splat (*) cannot be used inside another attribute-only splat expression", "use one splat: list[*].a.b");
              else this.errorAt(s, "invalid attribute name: an attribute name is required after a dot", "write a name after the dot (steps.build.stdout), or remove the dot");
              broken = true;
              break;
            }
            last = this.read();
          }
          if (!broken) ret = { kind: "splat", children: [ret], start: from.start, end: this.ends[last] };
        } else {
          this.errorAt(attr, "invalid attribute name: an attribute name is required after a dot", "write a name after the dot (steps.build.stdout), or remove the dot");
          ret = this.invalid(from.start, this.ends[dot]);
        }
      } else if (k === T.OBrack) {
        const open = this.read();
        if (this.peek() === T.Star) {
          this.read();
          let close = this.read();
          if (this.kinds[close] !== T.CBrack && !this.recovery) {
            this.errorAt(close, 'missing close bracket on splat index: the star of a full splat operator must be followed by "]"', "a full splat is written [*]: list[*].name");
            close = this.recover(T.CBrack);
          }
          if (!this.enter(open)) return ret;
          const each = this.parseTraversals({ kind: "invalid", children: [], start: this.starts[open], end: this.ends[close] });
          this.leave();
          ret = { kind: "splat", children: [ret], start: from.start, end: each.end };
        } else {
          if (!this.enter(open)) return ret;
          this.pushNewlines(false);
          const before = this.errorsSeen;
          const key = this.parseExpression();
          let close: number;
          if (this.recovery && this.errorsSeen > before) {
            close = this.recover(T.CBrack);
          } else {
            close = this.read();
            if (this.kinds[close] !== T.CBrack && !this.recovery) {
              this.errorAt(close, `missing close bracket on index: expected "]" to end the index, but found ${this.describe(close)}`, "an index is written [key]: list[0], map[\"k\"]");
              close = this.recover(T.CBrack);
            }
          }
          this.popNewlines();
          this.leave();
          const literalKey = key.kind === "literal" || (key.kind === "template" && key.parts.length === 1 && key.parts[0].kind === "lit");
          ret = literalKey ? this.step(ret, this.ends[close]) : { kind: "index", children: [ret, key], start: from.start, end: this.ends[close] };
        }
      } else {
        return ret;
      }
    }
  }

  /** Checks a legacy index `.0` (number token `i`): `.0.1` is refused. */
  private legacyIndex(i: number, inSplat: boolean): void {
    const t = this.tokenText(i);
    const dot = t.indexOf(".");
    if (dot >= 0) {
      const first = t.slice(0, dot);
      const second = t.slice(dot + 1);
      this.errorAt(
        i,
        "invalid legacy index syntax: two legacy indexes cannot be chained",
        `use the index syntax instead${inSplat ? ", with a full splat [*]" : ""}, like [${first}][${second}]`,
      );
    } else if (!isValidNumberLiteral(t)) {
      this.errorAt(i, "invalid number literal: this number literal is malformed", "write digits, with one \".\" and an optional exponent: 3, 2.5, 1e3");
    }
  }

  private parseTerm(): Expr {
    const t = this.peekIndex();
    const k = this.kinds[t];
    switch (k) {
      case T.OParen: {
        this.read();
        if (!this.enter(t)) return this.invalid(this.starts[t], this.ends[t]);
        this.pushNewlines(false);
        try {
          const before = this.errorsSeen;
          const inner = this.parseExpression();
          if (this.errorsSeen > before) {
            this.recover(T.CParen);
            return inner;
          }
          const close = this.peekIndex();
          if (this.kinds[close] === T.EOF) {
            this.errorAt(t, 'unbalanced parentheses: there is no ")" for this "(" before the end of the file', "add the missing \")\", or remove the \"(\"");
          } else if (this.kinds[close] !== T.CParen) {
            this.errorAt(close, `unbalanced parentheses: expected ")" to close the "(", but found ${this.describe(close)}`, "add the missing \")\" before it");
          }
          const c = this.read();
          return { kind: "parens", children: [inner], start: this.starts[t], end: this.ends[c] };
        } finally {
          this.popNewlines();
          this.leave();
        }
      }
      case T.Number: {
        this.read();
        const text = this.tokenText(t);
        const simple = /^[0-9]+$/.test(text);
        if (!simple && !isValidNumberLiteral(text)) this.errorAt(t, `invalid number literal: ${text} is not a number`, "write digits, with one \".\" and an optional exponent: 3, 2.5, 1e3; quote it if it is text");
        const value = simple ? Number(text) : Number(text.replace(/\.(?=[eE])/, ""));
        return { kind: "literal", value, text, start: this.starts[t], end: this.ends[t] };
      }
      case T.Ident: {
        this.read();
        const after = this.peek();
        if (after === T.OParen || after === T.DoubleColon) return this.finishCall(t);
        const name = this.tokenText(t);
        if (name === "true" || name === "false") return { kind: "literal", value: name === "true", start: this.starts[t], end: this.ends[t] };
        if (name === "null") return { kind: "literal", value: null, start: this.starts[t], end: this.ends[t] };
        return { kind: "traversal", name, start: this.starts[t], end: this.ends[t] };
      }
      case T.OQuote:
      case T.OHeredoc:
        return parseTemplateExpr(this);
      case T.Minus:
      case T.Bang: {
        this.read();
        if (!this.enter(t)) return this.invalid(this.starts[t], this.ends[t]);
        const operand = this.parseWithTraversals();
        this.leave();
        return { kind: "unary", op: k === T.Minus ? "-" : "!", operand, start: this.starts[t], end: operand.end };
      }
      case T.OBrack:
        return this.parseTuple();
      case T.OBrace:
        return this.parseObject();
      default:
        if (k === T.EOF) this.errorAt(t, "missing expression: expected the start of an expression, but found the end of the file", "the file ends where a value was expected: is it cut short?");
        else this.errorAt(t, `invalid expression: expected the start of an expression, but found ${this.describe(t)}`, "a value goes here: a quoted string, a number, true/false, a reference such as var.x, a list [...] or an object {...}");
        return this.invalid(this.starts[t], this.ends[t]);
    }
  }

  private finishCall(nameTok: number): Expr {
    let name = this.tokenText(nameTok);
    let open = this.read();
    while (this.kinds[open] === T.DoubleColon) {
      const next = this.read();
      if (this.kinds[next] !== T.Ident) {
        this.errorAt(next, 'missing function name: "::" must be followed by a function name', "write provider::function(...), or remove the \"::\"");
        this.recoverOver(T.OParen);
        return this.invalid(this.starts[nameTok], this.ends[next]);
      }
      name += "::" + this.tokenText(next);
      open = this.read();
    }
    if (this.kinds[open] !== T.OParen) {
      this.errorAt(open, 'missing open parenthesis: a function name must be followed by "(" to begin the call', "a call is written name(arguments); a bare name is not a value: quote it, or use var.name");
      this.recoverOver(T.OParen);
      return this.invalid(this.starts[nameTok], this.ends[open]);
    }
    if (!this.enter(open)) return this.invalid(this.starts[nameTok], this.ends[open]);
    this.pushNewlines(false);
    const args: Expr[] = [];
    let expandFinal = false;
    let close = -1;
    try {
      for (;;) {
        if (this.peek() === T.CParen) {
          close = this.read();
          break;
        }
        const before = this.errorsSeen;
        args.push(this.parseExpression());
        if (this.recovery && this.errorsSeen > before) {
          const r = this.recover(T.CParen);
          if (this.kinds[r] === T.CParen) close = r;
          break;
        }
        const sep = this.read();
        const sk = this.kinds[sep];
        if (sk === T.CParen) {
          close = sep;
          break;
        }
        if (sk === T.Ellipsis) {
          expandFinal = true;
          if (this.peek() !== T.CParen) {
            this.errorAt(sep, 'missing closing parenthesis: an expanded argument (with "...") must be the last one, followed by ")"', "move the argument with \"...\" to the end of the call");
            close = this.recover(T.CParen);
          } else close = this.read();
          break;
        }
        if (sk !== T.Comma) {
          if (sk === T.EOF) {
            this.error(this.starts[nameTok], this.ends[open], `unterminated function call: there is no ")" for this call of ${name} before the end of the file`, "add the missing \")\" to close the call");
          } else {
            this.errorAt(sep, `missing argument separator: expected "," or ")" after the argument, but found ${this.describe(sep)}`, "separate arguments with commas: f(a, b)");
          }
          close = this.recover(T.CParen);
          break;
        }
        if (this.peek() === T.CParen) {
          close = this.read();
          break;
        }
      }
    } finally {
      this.popNewlines();
      this.leave();
    }
    const end = close >= 0 ? this.ends[close] : this.ends[this.prev()];
    return { kind: "call", name, args, expandFinal, start: this.starts[nameTok], end };
  }

  /** Skips to the next `start` token, then past its matching closer. */
  private recoverOver(start: number): void {
    for (;;) {
      const i = this.read();
      const k = this.kinds[i];
      if (k === start || k === T.EOF) break;
    }
    this.recover(OPPOSITE[start]);
  }

  private parseTuple(): Expr {
    const open = this.read();
    if (!this.enter(open)) return this.invalid(this.starts[open], this.ends[open]);
    this.pushNewlines(false);
    try {
      if (this.isKeyword(this.peekIndex(), "for")) return this.parseFor(open);
      const items: Expr[] = [];
      let close: number;
      for (;;) {
        if (this.peek() === T.CBrack) {
          close = this.read();
          break;
        }
        const before = this.errorsSeen;
        items.push(this.parseExpression());
        if (this.recovery && this.errorsSeen > before) {
          close = this.recover(T.CBrack);
          break;
        }
        const next = this.peekIndex();
        const nk = this.kinds[next];
        if (nk === T.CBrack) {
          close = this.read();
          break;
        }
        if (nk !== T.Comma) {
          if (nk === T.EOF) this.errorAt(open, 'unterminated tuple: there is no "]" for this "[" before the end of the file', "add the missing \"]\" to close the list");
          else this.errorAt(next, `missing item separator: expected "," or "]" after the item, but found ${this.describe(next)}`, "separate list items with commas: [a, b]");
          close = this.recover(T.CBrack);
          break;
        }
        this.read();
      }
      return { kind: "tuple", items, start: this.starts[open], end: this.ends[close] };
    } finally {
      this.popNewlines();
      this.leave();
    }
  }

  private parseObject(): Expr {
    const open = this.read();
    if (!this.enter(open)) return this.invalid(this.starts[open], this.ends[open]);
    try {
      this.pushNewlines(false);
      const isFor = this.isKeyword(this.peekIndex(), "for");
      this.popNewlines();
      if (isFor) {
        this.pushNewlines(false);
        try {
          return this.parseFor(open);
        } finally {
          this.popNewlines();
        }
      }
      this.pushNewlines(true);
      const items: ObjectItem[] = [];
      let close: number;
      try {
        for (;;) {
          const k = this.peek();
          if (k === T.Newline) {
            this.read();
            continue;
          }
          if (k === T.CBrace) {
            close = this.read();
            break;
          }
          const forceNonLiteral = k === T.OParen;
          const before = this.errorsSeen;
          const key = this.parseExpression();
          if (this.recovery && this.errorsSeen > before) {
            close = this.recover(T.CBrace);
            break;
          }
          const sep = this.peekIndex();
          const sk = this.kinds[sep];
          if (sk !== T.Equal && sk !== T.Colon) {
            if (sk === T.Newline || sk === T.Comma) {
              this.errorAt(sep, 'missing attribute value: expected "=" and a value after the key', 'write key = value');
            } else if (sk === T.EOF) {
              this.errorAt(open, 'unterminated object: there is no "}" for this "{" before the end of the file', "add the missing \"}\" to close the object");
            } else if (sk === T.Ident) {
              this.errorAt(sep, `missing key/value separator: expected "=" after the key, but found ${this.describe(sep)}`, "to use a key containing periods or spaces, write it in quotes");
            } else {
              this.errorAt(sep, `missing key/value separator: expected "=" after the key, but found ${this.describe(sep)}`, "write key = value, one per line or separated by commas");
            }
            close = this.recover(T.CBrace);
            break;
          }
          this.read();
          const v0 = this.errorsSeen;
          const value = this.parseExpression();
          items.push({ key, value, forceNonLiteral });
          if (this.recovery && this.errorsSeen > v0) {
            close = this.recover(T.CBrace);
            break;
          }
          const next = this.peekIndex();
          const nk = this.kinds[next];
          if (nk === T.CBrace) {
            close = this.read();
            break;
          }
          if (nk !== T.Comma && nk !== T.Newline) {
            if (nk === T.EOF) this.errorAt(open, 'unterminated object: there is no "}" for this "{" before the end of the file', "add the missing \"}\" to close the object");
            else this.errorAt(next, `missing attribute separator: expected a line break or "," before the next attribute, but found ${this.describe(next)}`, "put each key = value on its own line, or separate them with commas");
            close = this.recover(T.CBrace);
            break;
          }
          this.read();
        }
      } finally {
        this.popNewlines();
      }
      return { kind: "object", items, start: this.starts[open], end: this.ends[close] };
    } finally {
      this.leave();
    }
  }

  /** A for expression after its `[` / `{` (`open`); newlines already insignificant. */
  private parseFor(open: number): Expr {
    const object = this.kinds[open] === T.OBrace;
    const closeKind = object ? T.CBrace : T.CBrack;
    const start = this.starts[open];
    this.read(); // for
    const fail = (at: number, message: string): Expr => {
      this.errorAt(at, `invalid 'for' expression: ${message}`, "a for expression is written [for x in list : x] or { for k, v in map : k => v }");
      const close = this.recover(closeKind);
      return this.invalid(start, this.ends[close]);
    };
    let a = this.peekIndex();
    if (this.kinds[a] !== T.Ident) return fail(a, "a variable name is required after 'for'");
    this.read();
    let keyVar: string | undefined;
    let valueVar = this.tokenText(a);
    if (this.peek() === T.Comma) {
      this.read();
      a = this.peekIndex();
      if (this.kinds[a] !== T.Ident) return fail(a, "a value variable name is required after the comma");
      this.read();
      keyVar = valueVar;
      valueVar = this.tokenText(a);
    }
    const inTok = this.peekIndex();
    if (!this.isKeyword(inTok, "in")) return fail(inTok, "the 'in' keyword is required after the variable names");
    this.read();
    const c0 = this.errorsSeen;
    const collection = this.parseExpression();
    if (this.recovery && this.errorsSeen > c0) return this.invalid(start, this.ends[this.recover(closeKind)]);
    const colon = this.peekIndex();
    if (this.kinds[colon] !== T.Colon) return fail(colon, "a colon is required after the collection expression");
    this.read();
    const v0 = this.errorsSeen;
    let valueExpr = this.parseExpression();
    let keyExpr: Expr | undefined;
    if (this.peek() === T.FatArrow) {
      this.read();
      keyExpr = valueExpr;
      valueExpr = this.parseExpression();
    }
    if (this.recovery && this.errorsSeen > v0) return this.invalid(start, this.ends[this.recover(closeKind)]);
    let group = false;
    let ellipsis = -1;
    if (this.peek() === T.Ellipsis) {
      ellipsis = this.read();
      group = true;
    }
    let condition: Expr | undefined;
    if (this.isKeyword(this.peekIndex(), "if")) {
      this.read();
      const i0 = this.errorsSeen;
      condition = this.parseExpression();
      if (this.recovery && this.errorsSeen > i0) return this.invalid(start, this.ends[this.recover(closeKind)]);
    }
    let close: number;
    const c = this.peekIndex();
    if (this.kinds[c] === closeKind) close = this.read();
    else {
      this.errorAt(c, `invalid 'for' expression: extra characters after the end of the 'for' expression: ${this.describe(c)}`, "end the for expression with its closing bracket: [for x in list : x]");
      close = this.recover(closeKind);
    }
    if (!object) {
      if (keyExpr) this.error(keyExpr.start, keyExpr.end, "invalid 'for' expression: a key expression (k => v) is not valid when building a tuple", "use { for … : k => v } to build an object");
      if (group) this.errorAt(ellipsis, "invalid 'for' expression: grouping (...) cannot be used when building a tuple", "grouping with ... builds an object: { for … : k => v... }");
    } else if (!keyExpr) {
      this.error(valueExpr.start, valueExpr.end, "invalid 'for' expression: a key expression is required when building an object", "write { for … : key => value }");
    }
    const node: ForExpr = { kind: "for", keyVar, valueVar, collection, keyExpr, valueExpr, condition, group, object, start, end: this.ends[close] };
    return node;
  }
}
