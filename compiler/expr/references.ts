/**
 * Static analysis of expression ASTs: the variables and functions they use.
 *
 * Source: HCL's `Variables()` / `hcl.Traversal` model (hclsyntax variables.go): every
 * scope traversal rooted at a name is a reference, except names bound by an enclosing
 * `for` expression or `%{for}` directive (only inside its key/value/condition/body, not
 * in its collection expression).
 *
 * Shapes:
 * - `references(expr)` -> `Reference[]` in source order. `path` holds the static steps
 *   after the root up to (not including) the first dynamic one: `.name` -> "name",
 *   `.0` and `[0]` -> 0, `["k"]` -> "k"; an index by a non-literal expression or a splat
 *   ends the path. `start`/`end` cover the root and those static steps. `raw` is a
 *   canonical spelling of the same (`steps.s[0].k`, `var.m["a b"]`), not necessarily the
 *   source text.
 * - `functionCalls(expr)` -> every call, with the range of the function name.
 * Errors: none; these functions are total.
 */
import type { Expr, ScopeTraversalExpr, TemplatePart } from "./ast.js";
import { childExprs } from "./ast.js";

export interface Reference {
  root: string;
  path: (string | number)[];
  start: number;
  end: number;
  raw: string;
  /** The names enclosing `for` expressions bind where the reference stands (for a did-you-mean), when there are any. */
  bound?: string[];
}

export interface FunctionCallRef {
  name: string;
  /** Range of the function name. */
  start: number;
  end: number;
  /** Range of the whole call. */
  callStart: number;
  callEnd: number;
  /** Number of syntactic arguments (before `...` expansion). */
  argCount: number;
}

const IDENT = /^[\p{ID_Start}_][\p{ID_Continue}\-]*$/u;

/** Every name-rooted traversal in `expr` that is not bound by a `for`. */
export function references(expr: Expr): Reference[] {
  const out: Reference[] = [];
  const visit = (e: Expr, bound: ReadonlySet<string>): void => {
    if (e.kind === "scope_traversal") {
      if (!bound.has(e.root)) out.push(bound.size > 0 ? { ...toReference(e), bound: [...bound] } : toReference(e));
      for (const s of e.steps) if (s.kind === "index") visit(s.key, bound);
    } else if (e.kind === "for") {
      visit(e.collection, bound);
      const inner = withNames(bound, e.keyVar?.name, e.valueVar.name);
      if (e.keyExpr) visit(e.keyExpr, inner);
      visit(e.valueExpr, inner);
      if (e.condition) visit(e.condition, inner);
    } else if (e.kind === "template") {
      visitParts(e.parts, bound);
    } else {
      for (const c of childExprs(e)) visit(c, bound);
    }
  };
  const visitParts = (parts: TemplatePart[], bound: ReadonlySet<string>): void => {
    for (const p of parts) {
      if (p.kind === "template_interp") visit(p.expr, bound);
      else if (p.kind === "template_if") {
        visit(p.condition, bound);
        visitParts(p.thenParts, bound);
        visitParts(p.elseParts, bound);
      } else if (p.kind === "template_for") {
        visit(p.collection, bound);
        visitParts(p.body, withNames(bound, p.keyVar?.name, p.valueVar.name));
      }
    }
  };
  visit(expr, new Set());
  return out.sort((a, b) => a.start - b.start || a.end - b.end);
}

function withNames(bound: ReadonlySet<string>, a: string | undefined, b: string): ReadonlySet<string> {
  const s = new Set(bound);
  if (a !== undefined) s.add(a);
  s.add(b);
  return s;
}

/** The canonical spelling of a traversal's static part (`steps.s[0].k`, `var.m["a b"]`; see `Reference.raw`). */
export function traversalText(e: ScopeTraversalExpr): string {
  return toReference(e).raw;
}

function toReference(e: ScopeTraversalExpr): Reference {
  const path: (string | number)[] = [];
  let raw = e.root;
  let end = e.rootEnd;
  for (const s of e.steps) {
    if (s.kind === "attr") {
      path.push(s.name);
      raw += IDENT.test(s.name) ? `.${s.name}` : `[${JSON.stringify(s.name)}]`;
    } else if (s.kind === "legacy_index") {
      path.push(s.index);
      raw += `[${s.index}]`;
    } else if (s.kind === "index" && s.key.kind === "literal" && typeof s.key.value === "number") {
      path.push(s.key.value);
      raw += `[${s.key.value}]`;
    } else if (s.kind === "index" && s.key.kind === "literal" && typeof s.key.value === "string") {
      path.push(s.key.value);
      raw += `[${JSON.stringify(s.key.value)}]`;
    } else break;
    end = s.end;
  }
  return { root: e.root, path, start: e.start, end, raw };
}

/** Every function call in `expr`, in source order. */
export function functionCalls(expr: Expr): FunctionCallRef[] {
  const out: FunctionCallRef[] = [];
  const stack: Expr[] = [expr];
  while (stack.length > 0) {
    const e = stack.pop()!;
    if (e.kind === "call") {
      out.push({ name: e.name, start: e.start, end: e.nameEnd, callStart: e.start, callEnd: e.end, argCount: e.args.length });
    }
    stack.push(...childExprs(e));
  }
  return out.sort((a, b) => a.start - b.start);
}
