import { expect } from "vitest";
import {
  evaluate, makeFunctions, parseExpression, parseTemplate,
  type Expr, type TemplatePart, type TraversalStep, type Value, type EvalError, type FunctionOptions,
} from "../../compiler/expr/index.js";

/** Parses and asserts success. */
export function parseOk(text: string, base = 0): Expr {
  const r = parseExpression(text, base);
  expect(r.errors).toEqual([]);
  expect(r.expr).toBeDefined();
  return r.expr!;
}

export function templateOk(text: string, base = 0): Expr {
  const r = parseTemplate(text, base);
  expect(r.errors).toEqual([]);
  return r.expr!;
}

/** The single syntax error of `text`. */
export function parseErr(text: string, base = 0): { start: number; end: number; message: string } {
  const r = parseExpression(text, base);
  expect(r.expr).toBeUndefined();
  expect(r.errors).toHaveLength(1);
  return r.errors[0];
}

/** Compact S-expression rendering of an AST, for precedence/structure assertions. */
export function sx(e: Expr): string {
  switch (e.kind) {
    case "literal":
      return JSON.stringify(e.value);
    case "template":
      return `(tpl ${e.parts.map(part).join(" ")})`;
    case "scope_traversal":
      return e.root + e.steps.map(step).join("");
    case "relative_traversal":
      return `(rel ${sx(e.source)} ${e.steps.map(step).join("")})`;
    case "call":
      return `(${e.name} ${e.args.map(sx).join(" ")}${e.expandFinal ? "..." : ""})`;
    case "unary":
      return `(${e.op} ${sx(e.operand)})`;
    case "binary":
      return `(${e.op} ${sx(e.left)} ${sx(e.right)})`;
    case "conditional":
      return `(? ${sx(e.condition)} ${sx(e.trueExpr)} ${sx(e.falseExpr)})`;
    case "tuple":
      return `[${e.items.map(sx).join(" ")}]`;
    case "object":
      return `{${e.items.map((i) => `${sx(i.key)}=${sx(i.value)}`).join(" ")}}`;
    case "for":
      return `(for ${e.keyVar ? e.keyVar.name + "," : ""}${e.valueVar.name} ${sx(e.collection)}${e.keyExpr ? " " + sx(e.keyExpr) + " =>" : ""} ${sx(e.valueExpr)}${e.grouping ? "..." : ""}${e.condition ? " if " + sx(e.condition) : ""})`;
    case "paren":
      return `(paren ${sx(e.expr)})`;
  }
}

function step(s: TraversalStep): string {
  switch (s.kind) {
    case "attr":
      return "." + s.name;
    case "index":
      return `[${sx(s.key)}]`;
    case "legacy_index":
      return `.${s.index}`;
    case "splat":
      return s.full ? "[*]" : ".*";
  }
}

function part(p: TemplatePart): string {
  switch (p.kind) {
    case "template_literal":
      return JSON.stringify(p.value);
    case "template_interp":
      return `\${${sx(p.expr)}}`;
    case "template_if":
      return `%if(${sx(p.condition)} ${p.thenParts.map(part).join(" ")} | ${p.elseParts.map(part).join(" ")})`;
    case "template_for":
      return `%for(${p.keyVar ? p.keyVar.name + "," : ""}${p.valueVar.name} ${sx(p.collection)}: ${p.body.map(part).join(" ")})`;
  }
}

export function ctx(variables: Record<string, Value>, opts: FunctionOptions = {}) {
  return { variables, functions: makeFunctions(opts) };
}

/** Parses and evaluates; asserts both succeed and returns the value. */
export function evalOk(text: string, variables: Record<string, Value> = {}, opts: FunctionOptions = {}): Value | undefined {
  const r = evaluate(parseOk(text), ctx(variables, opts));
  expect(r.errors).toEqual([]);
  return r.value;
}

/** Parses (must succeed) and evaluates; asserts evaluation fails and returns the errors. */
export function evalErr(text: string, variables: Record<string, Value> = {}, opts: FunctionOptions = {}): EvalError[] {
  const r = evaluate(parseOk(text), ctx(variables, opts));
  expect(r.value).toBeUndefined();
  expect(r.errors.length).toBeGreaterThan(0);
  for (const e of r.errors) expect(e.code).toBe("eval_error");
  return r.errors;
}

/** Text covered by an error or node within `text` (base 0). */
export function slice(text: string, r: { start: number; end: number }): string {
  return text.slice(r.start, r.end);
}
