/**
 * Where the items of a concrete syntax tree lie in the text, for rewrites that move or
 * delete them with their comments (compiler/parse/hcl/cst.ts, comments.ts), and what a
 * body's attributes hold.
 */
import type { CstAttribute, CstBlock, CstBody, CstItem, Expr } from "../parse/hcl/cst.js";
import { T, type TokenList } from "../parse/hcl/tokens.js";
import { isBlank, lineEnd, lineStart } from "./text-edits.js";

/** The first token of an item, its leading comments included. */
export function firstToken(item: CstItem): number {
  return item.comments.leading.length > 0 ? Math.min(item.firstToken, ...item.comments.leading) : item.firstToken;
}

/** The last token of an item, its trailing comment included. */
export function lastToken(item: CstItem): number {
  return item.comments.trailing.length > 0 ? Math.max(item.lastToken, ...item.comments.trailing) : item.lastToken;
}

/**
 * `[start, end)` of the tokens `first..last`: widened to whole lines (the indentation
 * before, the line break after) when nothing else shares those lines.
 */
export function tokenSpan(text: string, tokens: TokenList, first: number, last: number): { start: number; end: number } {
  let start = tokens.starts[first];
  let end = tokens.ends[last];
  const ls = lineStart(text, start);
  if (isBlank(text, ls, start)) start = ls;
  const le = lineEnd(text, end);
  if (text.slice(end, le).trim() === "") end = le;
  return { start, end };
}

/** The span of an item with its comments (see {@link tokenSpan}). */
export function itemSpan(text: string, tokens: TokenList, item: CstItem): { start: number; end: number } {
  return tokenSpan(text, tokens, firstToken(item), lastToken(item));
}

/** Offsets of the lines inside heredocs in `[from, to)` (their text is their value: never re-indented). */
export function heredocLines(text: string, tokens: TokenList, from: number, to: number): Set<number> {
  const out = new Set<number>();
  for (let i = 0; i < tokens.count; i++) {
    if (tokens.kinds[i] !== T.OHeredoc || tokens.starts[i] < from || tokens.starts[i] >= to) continue;
    let j = i + 1;
    while (j < tokens.count && tokens.kinds[j] !== T.CHeredoc && tokens.kinds[j] !== T.EOF) j++;
    for (let at = lineEnd(text, tokens.starts[i]); at < tokens.ends[j] && at < text.length; at = lineEnd(text, at)) out.add(at);
  }
  return out;
}

/** Every block of a body, depth first, with the type of the block it is in ("" at the top). */
export function* blocksWithParent(b: CstBody, parent = ""): Generator<{ block: CstBlock; parent: string }> {
  for (const item of b.items) {
    if (item.kind !== "block") continue;
    yield { block: item, parent };
    yield* blocksWithParent(item.body, item.type);
  }
}

/** The attribute `name` of a body, if it has one. */
export function attr(b: CstBody, name: string): CstAttribute | undefined {
  return b.items.find((i): i is CstAttribute => i.kind === "attribute" && i.name === name);
}

/** The string an attribute holds when its expression is one plain quoted string. */
export function stringOf(e: Expr): string | undefined {
  if (e.kind !== "template" || e.heredoc) return undefined;
  if (e.parts.length === 0) return "";
  return e.parts.length === 1 && e.parts[0].kind === "lit" ? e.parts[0].value : undefined;
}
