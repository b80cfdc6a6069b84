/**
 * Attaches comments to the body items they document, for the concrete syntax tree.
 *
 * Source: the HCL native syntax specification (`hclsyntax/spec.md`, "Comments and
 * Whitespace": comments carry no meaning), and the convention hclwrite and most
 * formatters follow: comments on the lines right above an item (no blank line between)
 * lead it, a comment after an item on its last line trails it, and any other comment of
 * the body (after the last item, or separated by blank lines) dangles in the body.
 * Comments inside an expression stay in the token list at their position.
 *
 * Linear: each token of a body's range is looked at a bounded number of times, and the
 * tokens of its items are skipped (nested bodies attach their own).
 */
import type { CstBody } from "./cst.js";
import { T, type TokenList } from "./tokens.js";

/**
 * Fills the `comments` of `body`'s items and `body.dangling`, looking at the tokens
 * `[first, last]` (the inside of the body's braces, or the whole file).
 */
export function attachComments(tokens: TokenList, body: CstBody, first: number, last: number): void {
  const kinds = tokens.kinds;
  let attached: Set<number> | undefined;
  let prevLast = first - 1;
  for (const item of body.items) {
    // Leading comments: walk back from the item over comments and single line breaks,
    // up to a blank line or a comment trailing the previous item.
    let leading: number[] | undefined;
    let newlines = 0;
    for (let i = item.firstToken - 1; i > prevLast; i--) {
      const k = kinds[i];
      if (k === T.Newline) {
        if (++newlines > 1) break;
        continue;
      }
      if (k !== T.Comment) break;
      if (isTrailing(kinds, i, prevLast)) break;
      (leading ??= []).push(i);
      // A line comment is followed by its own line break, which does not count as blank.
      newlines = 0;
    }
    let trailing: number[] | undefined;
    for (let i = item.lastToken + 1; i <= last && kinds[i] !== T.Newline && kinds[i] !== T.EOF; i++) {
      if (kinds[i] === T.Comment) (trailing ??= []).push(i);
    }
    if (leading || trailing) {
      leading?.reverse();
      item.comments = { leading: leading ?? [], trailing: trailing ?? [] };
      attached ??= new Set();
      for (const i of leading ?? []) attached.add(i);
      for (const i of trailing ?? []) attached.add(i);
    }
    prevLast = item.lastToken;
  }
  // Dangling: the body's comments outside its items that no item took.
  let itemIndex = 0;
  for (let i = first; i <= last; i++) {
    const item = body.items[itemIndex];
    if (item && i === item.firstToken) {
      i = item.lastToken;
      itemIndex++;
      continue;
    }
    if (kinds[i] === T.Comment && !attached?.has(i)) body.dangling.push(i);
  }
}

/** True when comment `i` sits on the same line as the token `prevLast` (only comments between). */
function isTrailing(kinds: Uint8Array, i: number, prevLast: number): boolean {
  if (prevLast < 0) return false;
  for (let j = i - 1; j > prevLast; j--) {
    if (kinds[j] === T.Newline) return false;
  }
  return true;
}
