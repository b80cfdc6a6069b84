/**
 * The concrete syntax tree of an HCL native-syntax file: the full token list (every
 * comment and line break included) plus a tree of bodies, attributes, blocks and
 * expressions pointing into it, with each comment attached to the body item it documents.
 * Enough for a formatter to rewrite a file and keep its comments; no formatter here.
 *
 * Source: HCL native syntax specification (`hclsyntax/spec.md`), "Structural Elements"
 * (bodies, attributes, blocks, one-line blocks), "Expressions" and "Templates". The
 * expression node kinds mirror the reference implementation's AST (`hclsyntax`
 * `expression*.go`) where hcl2json's JSON rendering depends on them: a string-only
 * template, a template that is exactly one interpolation (`wrap`), a static traversal
 * (`traversal`: a name followed by `.attr`, `.0`, `[literal]` only), a unary operator on a
 * literal. Offsets are 0-based UTF-16 indexes into the file text, `end` exclusive; token
 * fields are indexes into the `TokenList`.
 */
import type { TokenList } from "./tokens.js";

/** `null`, `true`, `false` or a number (`text` holds the number as written). */
export interface LiteralExpr {
  kind: "literal";
  value: null | boolean | number;
  /** For numbers: the literal as written (`1.50`, `1e3`). */
  text?: string;
  start: number;
  end: number;
}

/** A quoted template or heredoc; `parts` are literal text and sequences, escapes decoded. */
export interface TemplateExpr {
  kind: "template";
  parts: TemplatePart[];
  heredoc: boolean;
  start: number;
  end: number;
}

/** A quoted template or heredoc that is exactly one interpolation, `"${ expr }"`. */
export interface WrapExpr {
  kind: "wrap";
  inner: Expr;
  start: number;
  end: number;
}

/** `[a, b]`. */
export interface TupleExpr {
  kind: "tuple";
  items: Expr[];
  start: number;
  end: number;
}

/** One `key = value` (or `key: value`) of an object constructor. */
export interface ObjectItem {
  key: Expr;
  value: Expr;
  /** The key was parenthesized: `(k) = v` is computed, never a literal name. */
  forceNonLiteral: boolean;
}

/** `{ k = v, "k2": v2 }`. */
export interface ObjectExpr {
  kind: "object";
  items: ObjectItem[];
  start: number;
  end: number;
}

/** A name and its static steps (`.attr`, `.0`, `[0]`, `["k"]`): HCL's ScopeTraversalExpr. */
export interface TraversalExpr {
  kind: "traversal";
  name: string;
  start: number;
  end: number;
}

/** `-x` or `!x`. */
export interface UnaryExpr {
  kind: "unary";
  op: "-" | "!";
  operand: Expr;
  start: number;
  end: number;
}

/** `c ? a : b`. */
export interface ConditionalExpr {
  kind: "conditional";
  condition: Expr;
  whenTrue: Expr;
  whenFalse: Expr;
  start: number;
  end: number;
}

/** `a op b`. */
export interface BinaryExpr {
  kind: "binary";
  op: string;
  left: Expr;
  right: Expr;
  start: number;
  end: number;
}

/** `f(a, b...)` or `ns::f(a)`. */
export interface CallExpr {
  kind: "call";
  name: string;
  args: Expr[];
  expandFinal: boolean;
  start: number;
  end: number;
}

/** `[for k, v in c : e if cond]` / `{for k, v in c : k => v... if cond}`. */
export interface ForExpr {
  kind: "for";
  keyVar?: string;
  valueVar: string;
  collection: Expr;
  keyExpr?: Expr;
  valueExpr: Expr;
  condition?: Expr;
  group: boolean;
  object: boolean;
  start: number;
  end: number;
}

/**
 * Any other expression, kept as its range and sub-expressions: `parens` `(e)`, `index`
 * `c[k]` (non-literal key), `splat` `x[*].a` / `x.*.a`, `relative` (steps after a
 * non-name), `invalid` (a placeholder where a syntax error was reported).
 */
export interface OtherExpr {
  kind: "parens" | "index" | "splat" | "relative" | "invalid";
  children: Expr[];
  start: number;
  end: number;
}

/** Every expression node. */
export type Expr =
  | LiteralExpr
  | TemplateExpr
  | WrapExpr
  | TupleExpr
  | ObjectExpr
  | TraversalExpr
  | UnaryExpr
  | ConditionalExpr
  | BinaryExpr
  | CallExpr
  | ForExpr
  | OtherExpr;

/** Literal template text: escapes decoded, strip markers and `<<-` indentation applied. */
export interface TemplateLiteral {
  kind: "lit";
  value: string;
  start: number;
  end: number;
}

/** `${ expr }`. */
export interface TemplateInterp {
  kind: "interp";
  expr: Expr;
  start: number;
  end: number;
}

/** `%{ if c }…%{ else }…%{ endif }`. */
export interface TemplateIf {
  kind: "if";
  condition: Expr;
  then: TemplatePart[];
  else: TemplatePart[];
  start: number;
  end: number;
}

/** `%{ for k, v in c }…%{ endfor }`. */
export interface TemplateFor {
  kind: "for";
  keyVar?: string;
  valueVar: string;
  collection: Expr;
  body: TemplatePart[];
  start: number;
  end: number;
}

/** One element of a template. */
export type TemplatePart = TemplateLiteral | TemplateInterp | TemplateIf | TemplateFor;

/** Comments attached to a body item (token indexes of `Comment` tokens). */
export interface Comments {
  /** Comments on the lines right above the item (no blank line between). */
  readonly leading: readonly number[];
  /** A comment on the item's last line, after it. */
  readonly trailing: readonly number[];
}

/** The (shared, frozen) comments of an item that has none. */
export const NO_COMMENTS: Comments = Object.freeze({ leading: Object.freeze([]), trailing: Object.freeze([]) });

/** `name = expr`. */
export interface CstAttribute {
  kind: "attribute";
  name: string;
  nameToken: number;
  equalsToken: number;
  expr: Expr;
  /** First and last token of the item (the name … the expression's last token). */
  firstToken: number;
  lastToken: number;
  comments: Comments;
}

/** `type "label" ident { body }`. */
export interface CstBlock {
  kind: "block";
  type: string;
  typeToken: number;
  /** Label values (quoted labels decoded). */
  labels: string[];
  labelTokens: number[];
  /** `{` and `}` (-1 when missing after an error). */
  openToken: number;
  closeToken: number;
  body: CstBody;
  firstToken: number;
  lastToken: number;
  comments: Comments;
}

/** One attribute or block of a body. */
export type CstItem = CstAttribute | CstBlock;

/** A body: the file, or the inside of a block's braces. */
export interface CstBody {
  items: CstItem[];
  /** Comments of the body attached to no item (e.g. after the last item). */
  dangling: number[];
}

/** The whole file. */
export interface CstFile {
  tokens: TokenList;
  body: CstBody;
}
