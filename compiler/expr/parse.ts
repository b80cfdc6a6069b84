/**
 * Recursive-descent parser for HCL native-syntax expressions and bare templates.
 *
 * Source: HCL native syntax specification, sections "Expressions" (operators and
 * precedence, conditional, collection values, for expressions, index/attribute/splat
 * operators, function calls) and "Templates" (quoted templates, heredocs, `${}`
 * interpolation, `%{if}` / `%{for}` directives, `~` strip markers).
 *
 * Shapes:
 * - `parseExpression(text, baseOffset)` parses ONE expression as written as an attribute
 *   value in an `.hcl` file, e.g. `var.env == "prod"` or a `<<EOT` heredoc.
 * - `parseTemplate(text, baseOffset)` parses a bare template: the contents of a quoted
 *   string without its quotes (as YAML/JSON users write it). No backslash escapes are
 *   processed there (the host format already decoded them); `$${` is a literal `${` and
 *   `%%{` a literal `%{`.
 * Both return `{ expr, errors }`: `expr` is set exactly when `errors` is empty. AST node
 * offsets are `baseOffset + index into text`.
 *
 * Precedence, lowest first: `? :`, `||`, `&&`, `== !=`, `> >= < <=`, `+ -`, `* / %`,
 * unary `! -`, then postfix `.attr`, `[index]`, `.0`, `[*]`, `.*`. Binary operators are
 * left-associative; the conditional is right-associative.
 *
 * Newlines: ignored inside `( )`, `[ ]`, `${ }` and for-expressions, significant inside
 * object constructors `{ }` (where they separate items). At the top level they are
 * ignored (more lenient than HCL, which ends the attribute at the line break).
 *
 * Errors: the first syntax error stops parsing and is returned as an `ExprError`
 * (`code: "expr_syntax"`) with absolute offsets inside `[baseOffset, baseOffset +
 * text.length]`. Nothing is thrown. Nesting deeper than `MAX_NESTING` is an error instead
 * of a stack overflow. Time is linear in the text length.
 */
import type {
  Binding, BinaryOp, Expr, ExprError, ForExpr, ObjectItem, TraversalStep,
} from "./ast.js";
import { childExprs } from "./ast.js";
import { describeToken, Lexer, SyntaxFail, type Token, type TokenType } from "./lex.js";
import { scanTemplate, type TemplateHost } from "./template.js";

/** Maximum syntactic nesting (parentheses, brackets, unary chains, directives...). */
export const MAX_NESTING = 200;
/** Maximum depth of the resulting AST (long binary chains count too). */
export const MAX_AST_DEPTH = 1000;

export interface ParseResult {
  expr?: Expr;
  errors: ExprError[];
}

/** Parses one HCL native-syntax expression. Never throws. */
export function parseExpression(text: string, baseOffset = 0): ParseResult {
  return run(text, baseOffset, (p) => {
    const e = p.parseExpr();
    const t = p.peek();
    if (t.type !== "eof") p.fail(t.start, t.end, `Extra characters after expression: expected the end of the expression, but found ${describeToken(t)}.`);
    return e;
  });
}

/** Parses a bare template (string contents without quotes). Never throws. */
export function parseTemplate(text: string, baseOffset = 0): ParseResult {
  return run(text, baseOffset, (p) => scanTemplate(p, "bare", 0));
}

function run(text: string, base: number, body: (p: Parser) => Expr): ParseResult {
  const p = new Parser(String(text), base);
  try {
    const expr = body(p);
    checkDepth(expr, p);
    return { expr, errors: [] };
  } catch (err) {
    const len = p.text.length;
    let start = 0;
    let end = len;
    let message = "Invalid expression.";
    if (err instanceof SyntaxFail) {
      start = Math.max(0, Math.min(err.start, len));
      end = Math.max(start, Math.min(err.end, len));
      message = err.message;
    } else if (err instanceof RangeError) {
      message = `Expression is too deeply nested.`;
    }
    return { errors: [{ start: base + start, end: base + end, message, code: "expr_syntax" }] };
  }
}

function checkDepth(root: Expr, p: Parser): void {
  const stack: [Expr, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [e, d] = stack.pop()!;
    if (d > MAX_AST_DEPTH) {
      p.fail(e.start - p.base, e.end - p.base, `Expression is too deeply nested (more than ${MAX_AST_DEPTH} levels); split it up.`);
    }
    for (const c of childExprs(e)) stack.push([c, d + 1]);
  }
}

const LEVELS: readonly (readonly BinaryOp[])[] = [
  ["||"], ["&&"], ["==", "!="], [">", ">=", "<", "<="], ["+", "-"], ["*", "/", "%"],
];

class Parser implements TemplateHost {
  readonly lexer: Lexer;
  pos = 0;
  /** Whether newlines are significant tokens at the current nesting. */
  nl = false;
  depth = 0;
  private cache: { pos: number; nl: boolean; tok: Token } | undefined;

  constructor(readonly text: string, readonly base: number) {
    this.lexer = new Lexer(text);
  }

  fail(start: number, end: number, message: string): never {
    throw new SyntaxFail(start, end, message);
  }

  peek(): Token {
    const c = this.cache;
    if (c && c.pos === this.pos && c.nl === this.nl) return c.tok;
    const tok = this.lexer.tokenAt(this.lexer.skipTrivia(this.pos, this.nl));
    this.cache = { pos: this.pos, nl: this.nl, tok };
    return tok;
  }

  /** The token after `tok` (newlines skipped), without consuming anything. */
  peekAfter(tok: Token): Token {
    return this.lexer.tokenAt(this.lexer.skipTrivia(tok.end, false));
  }

  next(): Token {
    const t = this.peek();
    this.pos = t.end;
    return t;
  }

  expect(type: TokenType, what: string): Token {
    const t = this.peek();
    if (t.type !== type) this.fail(t.start, t.end, `${what}, but found ${describeToken(t)}.`);
    return this.next();
  }

  enter(at: Token | { start: number; end: number }): void {
    if (++this.depth > MAX_NESTING) {
      this.fail(at.start, at.end, `Expression is too deeply nested (more than ${MAX_NESTING} levels); split it up.`);
    }
  }

  /** Runs `f` with newline significance set to `nl`, restoring it afterwards. */
  withNewlines<T>(nl: boolean, f: () => T): T {
    const saved = this.nl;
    this.nl = nl;
    try {
      return f();
    } finally {
      this.nl = saved;
    }
  }

  /** `k, v in coll` / `v in coll` after `for` (construct: "expression" or "directive", for messages). */
  forHead(construct: string): { keyVar?: Binding; valueVar: Binding; collection: Expr } {
    const binding = (): Binding => {
      const t = this.expect("ident", `Invalid 'for' ${construct}: expected a variable name`);
      return { name: t.text, start: this.abs(t.start), end: this.abs(t.end) };
    };
    let keyVar: Binding | undefined;
    let valueVar = binding();
    if (this.peek().type === ",") {
      this.next();
      keyVar = valueVar;
      valueVar = binding();
    }
    const inTok = this.peek();
    if (inTok.type !== "ident" || inTok.text !== "in") {
      this.fail(inTok.start, inTok.end, `Invalid 'for' ${construct}: expected the keyword "in" after the variable names, but found ${describeToken(inTok)}.`);
    }
    this.next();
    return { keyVar, valueVar, collection: this.parseExpr() };
  }

  abs(local: number): number {
    return this.base + local;
  }

  parseExpr(): Expr {
    this.enter(this.peek());
    const cond = this.parseBinary(0);
    let result = cond;
    if (this.peek().type === "?") {
      this.next();
      const trueExpr = this.parseExpr();
      this.expect(":", 'Missing false expression in conditional: expected a colon (:) and then the result for a false condition');
      const falseExpr = this.parseExpr();
      result = { kind: "conditional", condition: cond, trueExpr, falseExpr, start: cond.start, end: falseExpr.end };
    }
    this.depth--;
    return result;
  }

  private parseBinary(level: number): Expr {
    if (level === LEVELS.length) return this.parseUnary();
    const ops = LEVELS[level];
    let left = this.parseBinary(level + 1);
    for (;;) {
      const t = this.peek();
      const op = ops.find((o) => o === t.type);
      if (!op) return left;
      this.next();
      const right = this.parseBinary(level + 1);
      left = { kind: "binary", op, left, right, opStart: this.abs(t.start), opEnd: this.abs(t.end), start: left.start, end: right.end };
    }
  }

  private parseUnary(): Expr {
    const t = this.peek();
    if (t.type === "!" || t.type === "-") {
      this.enter(t);
      this.next();
      const operand = this.parseUnary();
      this.depth--;
      return { kind: "unary", op: t.type, operand, start: this.abs(t.start), end: operand.end };
    }
    return this.parsePostfix(this.parseTerm());
  }

  private parseTerm(): Expr {
    const t = this.peek();
    switch (t.type) {
      case "number": {
        this.next();
        const value = Number(t.text);
        if (!Number.isFinite(value)) this.fail(t.start, t.end, "Invalid number literal: the number is too large.");
        return { kind: "literal", value, start: this.abs(t.start), end: this.abs(t.end) };
      }
      case "ident":
        return this.parseIdentTerm();
      case "(": {
        this.next();
        const inner = this.withNewlines(false, () => {
          const e = this.parseExpr();
          this.expect(")", "Unbalanced parentheses: expected a closing parenthesis");
          return e;
        });
        return { kind: "paren", expr: inner, start: this.abs(t.start), end: this.abs(this.pos) };
      }
      case "[":
        return this.parseTuple();
      case "{":
        return this.parseObject();
      case "quote":
        this.next();
        return scanTemplate(this, "quoted", t.start);
      case "heredoc":
        this.next();
        return scanTemplate(this, t.flush ? "heredoc_flush" : "heredoc", t.start, t.text);
      default:
        return this.fail(t.start, t.end, `Invalid expression: expected the start of an expression, but found ${describeToken(t)}.`);
    }
  }

  private parseIdentTerm(): Expr {
    const t = this.next();
    const start = this.abs(t.start);
    if (t.text === "true" || t.text === "false") return { kind: "literal", value: t.text === "true", start, end: this.abs(t.end) };
    if (t.text === "null") return { kind: "literal", value: null, start, end: this.abs(t.end) };
    let name = t.text;
    let nameEnd = t.end;
    while (this.peek().type === "::") {
      this.next();
      const part = this.expect("ident", 'Invalid function name: expected a name after "::"');
      name += "::" + part.text;
      nameEnd = part.end;
    }
    if (this.peek().type === "(") return this.parseCall(name, t.start, nameEnd);
    if (name !== t.text) {
      const n = this.peek();
      this.fail(n.start, n.end, `Missing function arguments: expected "(" after the function name ${name}.`);
    }
    return { kind: "scope_traversal", root: name, rootEnd: this.abs(t.end), steps: [], start, end: this.abs(t.end) };
  }

  private parseCall(name: string, start: number, nameEnd: number): Expr {
    const open = this.next();
    this.enter(open);
    const args: Expr[] = [];
    let expandFinal = false;
    this.withNewlines(false, () => {
      while (this.peek().type !== ")") {
        args.push(this.parseExpr());
        if (this.peek().type === "...") {
          this.next();
          expandFinal = true;
          if (this.peek().type === ",") this.next();
          this.expect(")", 'Missing closing parenthesis: the expanding argument (...) must be the last argument; expected ")"');
          return;
        }
        const sep = this.peek();
        if (sep.type === ",") this.next();
        else if (sep.type !== ")") this.fail(sep.start, sep.end, `Missing argument separator: expected a comma or ")" after the argument, but found ${describeToken(sep)}.`);
      }
      this.next();
    });
    this.depth--;
    return { kind: "call", name, nameEnd: this.abs(nameEnd), args, expandFinal, start: this.abs(start), end: this.abs(this.pos) };
  }

  private parsePostfix(term: Expr): Expr {
    const steps: TraversalStep[] = term.kind === "scope_traversal" ? term.steps : [];
    let splats = 0;
    for (;;) {
      const t = this.peek();
      if (t.type === ".") {
        this.next();
        const n = this.peek();
        if (n.type === "ident") {
          this.next();
          steps.push({ kind: "attr", name: n.text, start: this.abs(t.start), end: this.abs(n.end) });
        } else if (n.type === "number") {
          this.next();
          if (!/^[0-9]+$/.test(n.text)) {
            this.fail(n.start, n.end, `Invalid legacy index syntax: chaining indexes after a dot (.${n.text}) is not permitted; use brackets like [0][1].`);
          }
          steps.push({ kind: "legacy_index", index: Number(n.text), start: this.abs(t.start), end: this.abs(n.end) });
        } else if (n.type === "*") {
          this.next();
          steps.push({ kind: "splat", full: false, start: this.abs(t.start), end: this.abs(n.end) });
          splats++;
        } else {
          this.fail(n.start, n.end, `Invalid attribute name: expected an attribute name after the dot, but found ${describeToken(n)}.`);
        }
      } else if (t.type === "[") {
        this.next();
        const star = this.peek();
        if (star.type === "*" && this.peekAfter(star).type === "]") {
          this.next();
          const close = this.next();
          steps.push({ kind: "splat", full: true, start: this.abs(t.start), end: this.abs(close.end) });
          splats++;
        } else {
          this.enter(t);
          const key = this.withNewlines(false, () => {
            const k = this.parseExpr();
            this.expect("]", 'Missing close bracket on index: expected "]"');
            return k;
          });
          this.depth--;
          steps.push({ kind: "index", key, start: this.abs(t.start), end: this.abs(this.pos) });
        }
      } else break;
      if (splats > MAX_NESTING) this.fail(t.start, t.end, `Too many splat operators in one traversal (more than ${MAX_NESTING}).`);
    }
    if (steps.length === 0) return term;
    const end = steps[steps.length - 1].end;
    if (term.kind === "scope_traversal") return { ...term, steps, end };
    return { kind: "relative_traversal", source: term, steps, start: term.start, end };
  }

  private isForStart(): boolean {
    const t = this.peek();
    return t.type === "ident" && t.text === "for" && this.peekAfter(t).type === "ident";
  }

  private parseTuple(): Expr {
    const open = this.next();
    this.enter(open);
    const result = this.withNewlines(false, (): Expr => {
      if (this.isForStart()) return this.parseFor(open, false);
      const items: Expr[] = [];
      while (this.peek().type !== "]") {
        items.push(this.parseExpr());
        const sep = this.peek();
        if (sep.type === ",") this.next();
        else if (sep.type !== "]") this.fail(sep.start, sep.end, `Missing item separator: expected a comma or "]" after the tuple item, but found ${describeToken(sep)}.`);
      }
      this.next();
      return { kind: "tuple", items, start: this.abs(open.start), end: this.abs(this.pos) };
    });
    this.depth--;
    return result;
  }

  private parseObject(): Expr {
    const open = this.next();
    this.enter(open);
    const forExpr = this.withNewlines(false, () => (this.isForStart() ? this.parseFor(open, true) : undefined));
    if (forExpr) {
      this.depth--;
      return forExpr;
    }
    const items: ObjectItem[] = [];
    this.withNewlines(true, () => {
      for (;;) {
        while (this.peek().type === "newline") this.next();
        if (this.peek().type === "}") break;
        let key = this.parseExpr();
        if (key.kind === "scope_traversal" && key.steps.length === 0) {
          key = { kind: "literal", value: key.root, start: key.start, end: key.end };
        }
        const eq = this.peek();
        if (eq.type !== "=" && eq.type !== ":") {
          this.fail(eq.start, eq.end, `Missing key/value separator: expected an equals sign (=) after the object key, but found ${describeToken(eq)}.`);
        }
        this.next();
        const value = this.parseExpr();
        items.push({ key, value });
        const sep = this.peek();
        if (sep.type === "," || sep.type === "newline") this.next();
        else if (sep.type !== "}") {
          this.fail(sep.start, sep.end, `Missing attribute separator: expected a newline or comma after the object item, but found ${describeToken(sep)}.`);
        }
      }
      this.next();
    });
    this.depth--;
    return { kind: "object", items, start: this.abs(open.start), end: this.abs(this.pos) };
  }

  /** After `[` or `{` with the `for` keyword next; newlines are insignificant here. */
  private parseFor(open: Token, isObject: boolean): ForExpr {
    this.next(); // `for`
    const { keyVar, valueVar, collection } = this.forHead("expression");
    this.expect(":", "Invalid 'for' expression: expected a colon (:) after the collection expression");
    let keyExpr: Expr | undefined;
    if (isObject) {
      keyExpr = this.parseExpr();
      this.expect("=>", "Invalid 'for' expression: an object 'for' expression needs a key and a value separated by =>; expected \"=>\"");
    }
    const valueExpr = this.parseExpr();
    let grouping = false;
    const dots = this.peek();
    if (dots.type === "...") {
      if (!isObject) this.fail(dots.start, dots.end, "Invalid 'for' expression: the grouping ellipsis (...) is only valid in an object 'for' expression ({for ...}).");
      this.next();
      grouping = true;
    }
    let condition: Expr | undefined;
    const ifTok = this.peek();
    if (ifTok.type === "ident" && ifTok.text === "if") {
      this.next();
      condition = this.parseExpr();
    }
    const close = isObject ? "}" : "]";
    this.expect(close, `Invalid 'for' expression: expected "${close}" to close the 'for' expression`);
    return {
      kind: "for", keyVar, valueVar, collection, keyExpr, valueExpr, condition, grouping,
      start: this.abs(open.start), end: this.abs(this.pos),
    };
  }
}
