/**
 * Parsing an expression again when its text was parsed before (the issue "See and edit":
 * a language server compiles a 500-step file on every keystroke, and lexing and parsing
 * each of its expressions again was ~7% of an edit; nearly every expression's text is
 * unchanged by a keystroke, at most moved).
 *
 * Shapes: {@link parseMemo} gives what `parseExpression(text)` or `parseTemplate(text)`
 * (parse.ts) gives at offset 0: every offset of the tree and of its errors is an index in
 * the text, so one result serves the text wherever it stands (its reader adds the text's
 * own offset, as `compiler/resolve/check-expression.ts` does). Results are shared between
 * callers and compiles: nothing may change them (nothing does; trees are read, never
 * written, once parse.ts has built them). {@link referencesMemo} likewise gives each
 * shared tree's references once.
 */
import type { Expr } from "./ast.js";
import type { ParseResult } from "./parse.js";
import { parseExpression, parseTemplate } from "./parse.js";
import { references, type Reference } from "./references.js";

/** How a text is parsed: an HCL expression, or a bare template (YAML and JSON strings). */
export type ParseKind = "expression" | "template";

/** Texts kept at most, per kind; past it the memo starts again empty (a bound on a long-lived server's memory). */
export const PARSE_MEMO_LIMIT = 20_000;

const memo: Record<ParseKind, Map<string, ParseResult>> = { expression: new Map(), template: new Map() };

/**
 * `parseExpression(text, 0)` (kind "expression") or `parseTemplate(text, 0)` (kind
 * "template"): the very result given before for the same text, while the memo holds it.
 * Never throws.
 */
export function parseMemo(kind: ParseKind, text: string): ParseResult {
  const texts = memo[kind];
  const hit = texts.get(text);
  if (hit !== undefined) return hit;
  // Kept, the text (and every name the tree cuts from it) must not hold the file it was cut
  // from: V8 keeps a sliced string's whole parent alive, so each edit's entry held a copy of
  // the edited file (found by a new-user trial: 83 → 713 MB over 2,000 keystrokes). Parsed
  // and kept as a copy of its own.
  const own = text.length < 13 ? text : Buffer.from(text, "utf8").toString("utf8");
  const result = kind === "expression" ? parseExpression(own) : parseTemplate(own);
  if (texts.size >= PARSE_MEMO_LIMIT) texts.clear();
  texts.set(own, result);
  return result;
}

const referencesOf = new WeakMap<Expr, readonly Reference[]>();

/** `references(expr)` (references.ts), worked out once per tree: shared, read-only. */
export function referencesMemo(expr: Expr): readonly Reference[] {
  let refs = referencesOf.get(expr);
  if (refs === undefined) referencesOf.set(expr, (refs = references(expr)));
  return refs;
}
