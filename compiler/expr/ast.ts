/**
 * AST of the HCL native-syntax expression and template language.
 *
 * Source: the HCL native syntax specification (hashicorp/hcl `hclsyntax/spec.md`),
 * sections "Expressions" and "Templates".
 *
 * Shapes: every node is a member of a discriminated union on `kind` and carries
 * `start`/`end`: absolute 0-based UTF-16 offsets (the `baseOffset` given to the parser
 * plus the index in the parsed text), `end` exclusive, as in `compiler/diagnostics/range.ts`.
 *
 * Representation choices (differences from hclsyntax's Go AST):
 * - A quoted string, heredoc or bare template with no `${`/`%{` sequences is a
 *   `literal` whose value is the decoded string (its range includes the quotes/markers).
 * - A template that is exactly one interpolation (`"${x}"`) stays a `template` with one
 *   `template_interp` part; the evaluator returns the interpolated value unconverted.
 * - Traversal steps (`.a`, `[i]`, `.0`, `[*]`, `.*`) are a flat `steps` list, both on a
 *   `scope_traversal` (rooted at a name) and on a `relative_traversal` (after any other
 *   expression, e.g. `f(x).a[0]`). A splat step applies the steps after it to each element
 *   (`[*]`: all later steps; `.*`: only the directly following `.name`/`.0` steps).
 * - A bare identifier used as an object key (`{ a = 1 }`) is a string `literal`.
 */

/** A name bound by a `for` expression or `%{for}` directive. */
export interface Binding {
  name: string;
  start: number;
  end: number;
}

export interface LiteralExpr {
  kind: "literal";
  value: null | boolean | number | string;
  start: number;
  end: number;
}

/** A template with at least one `${...}` or `%{...}` sequence (quoted, heredoc or bare). */
export interface TemplateExpr {
  kind: "template";
  parts: TemplatePart[];
  start: number;
  end: number;
}

export type TemplatePart = TemplateLiteral | TemplateInterp | TemplateIf | TemplateFor;

/** Literal text (escapes decoded, strip markers and `<<-` indentation already applied). */
export interface TemplateLiteral {
  kind: "template_literal";
  value: string;
  start: number;
  end: number;
}

/** `${ expr }`; the range covers `${` through `}`. */
export interface TemplateInterp {
  kind: "template_interp";
  expr: Expr;
  start: number;
  end: number;
}

/** `%{ if cond }then%{ else }else%{ endif }`; `elseParts` is empty without `%{else}`. */
export interface TemplateIf {
  kind: "template_if";
  condition: Expr;
  thenParts: TemplatePart[];
  elseParts: TemplatePart[];
  start: number;
  end: number;
}

/** `%{ for k, v in coll }body%{ endfor }`. */
export interface TemplateFor {
  kind: "template_for";
  keyVar?: Binding;
  valueVar: Binding;
  collection: Expr;
  body: TemplatePart[];
  start: number;
  end: number;
}

export type TraversalStep = AttrStep | IndexStep | LegacyIndexStep | SplatStep;

/** `.name`; the range starts at the dot. */
export interface AttrStep {
  kind: "attr";
  name: string;
  start: number;
  end: number;
}

/** `[key]`; the range covers the brackets. */
export interface IndexStep {
  kind: "index";
  key: Expr;
  start: number;
  end: number;
}

/** `.0` (legacy index); the range starts at the dot. */
export interface LegacyIndexStep {
  kind: "legacy_index";
  index: number;
  start: number;
  end: number;
}

/** `[*]` (`full: true`) or `.*` (`full: false`, attribute-only splat). */
export interface SplatStep {
  kind: "splat";
  full: boolean;
  start: number;
  end: number;
}

/** `name.steps...`, e.g. `var.x`, `steps.build.exit_code`, `each.value[0]`. */
export interface ScopeTraversalExpr {
  kind: "scope_traversal";
  root: string;
  /** End offset of the root name (the root starts at `start`). */
  rootEnd: number;
  steps: TraversalStep[];
  start: number;
  end: number;
}

/** Steps applied to the value of any non-name expression, e.g. `f(x).a[0]`, `[1, 2][*]`. */
export interface RelativeTraversalExpr {
  kind: "relative_traversal";
  source: Expr;
  steps: TraversalStep[];
  start: number;
  end: number;
}

/** `name(args)`; `expandFinal` is true for `name(a, list...)`. `name` may contain `::`. */
export interface CallExpr {
  kind: "call";
  name: string;
  nameEnd: number;
  args: Expr[];
  expandFinal: boolean;
  start: number;
  end: number;
}

export type UnaryOp = "!" | "-";
export type BinaryOp = "||" | "&&" | "==" | "!=" | ">" | ">=" | "<" | "<=" | "+" | "-" | "*" | "/" | "%";

export interface UnaryExpr {
  kind: "unary";
  op: UnaryOp;
  operand: Expr;
  start: number;
  end: number;
}

export interface BinaryExpr {
  kind: "binary";
  op: BinaryOp;
  left: Expr;
  right: Expr;
  /** Range of the operator token. */
  opStart: number;
  opEnd: number;
  start: number;
  end: number;
}

export interface ConditionalExpr {
  kind: "conditional";
  condition: Expr;
  trueExpr: Expr;
  falseExpr: Expr;
  start: number;
  end: number;
}

export interface TupleExpr {
  kind: "tuple";
  items: Expr[];
  start: number;
  end: number;
}

export interface ObjectItem {
  /** A bare identifier key is a string `literal`; `(expr)` keys are `paren`. */
  key: Expr;
  value: Expr;
}

export interface ObjectExpr {
  kind: "object";
  items: ObjectItem[];
  start: number;
  end: number;
}

/**
 * `[for k, v in coll : value if cond]` (`keyExpr` undefined) or
 * `{for k, v in coll : keyExpr => value... if cond}` (`grouping` for `...`).
 */
export interface ForExpr {
  kind: "for";
  keyVar?: Binding;
  valueVar: Binding;
  collection: Expr;
  keyExpr?: Expr;
  valueExpr: Expr;
  condition?: Expr;
  grouping: boolean;
  start: number;
  end: number;
}

export interface ParenExpr {
  kind: "paren";
  expr: Expr;
  start: number;
  end: number;
}

export type Expr =
  | LiteralExpr
  | TemplateExpr
  | ScopeTraversalExpr
  | RelativeTraversalExpr
  | CallExpr
  | UnaryExpr
  | BinaryExpr
  | ConditionalExpr
  | TupleExpr
  | ObjectExpr
  | ForExpr
  | ParenExpr;

/** A syntax error; offsets are absolute like node ranges. */
export interface ExprError {
  start: number;
  end: number;
  message: string;
  code: "expr_syntax";
}

/** Direct child expressions of a node, in source order (template parts flattened). */
export function childExprs(e: Expr): Expr[] {
  switch (e.kind) {
    case "literal":
      return [];
    case "template":
      return partsExprs(e.parts);
    case "scope_traversal":
      return stepExprs(e.steps);
    case "relative_traversal":
      return [e.source, ...stepExprs(e.steps)];
    case "call":
      return e.args;
    case "unary":
      return [e.operand];
    case "binary":
      return [e.left, e.right];
    case "conditional":
      return [e.condition, e.trueExpr, e.falseExpr];
    case "tuple":
      return e.items;
    case "object":
      return e.items.flatMap((i) => [i.key, i.value]);
    case "for": {
      const out = [e.collection];
      if (e.keyExpr) out.push(e.keyExpr);
      out.push(e.valueExpr);
      if (e.condition) out.push(e.condition);
      return out;
    }
    case "paren":
      return [e.expr];
  }
}

function stepExprs(steps: TraversalStep[]): Expr[] {
  const out: Expr[] = [];
  for (const s of steps) if (s.kind === "index") out.push(s.key);
  return out;
}

function partsExprs(parts: TemplatePart[]): Expr[] {
  const out: Expr[] = [];
  for (const p of parts) {
    if (p.kind === "template_interp") out.push(p.expr);
    else if (p.kind === "template_if") out.push(p.condition, ...partsExprs(p.thenParts), ...partsExprs(p.elseParts));
    else if (p.kind === "template_for") out.push(p.collection, ...partsExprs(p.body));
  }
  return out;
}
