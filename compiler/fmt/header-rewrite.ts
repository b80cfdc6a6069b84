/**
 * `fmt --to v0.5`, the header: `workflow "n" { ... }` becomes `workflow { name = "n"
 * ... }`. Header fields (attributes, `policy`, `memory`, `expects`) stay in it; blocks
 * written inside it (the first era wrote the whole workflow there) move after it, to
 * the top level, in their order, each with its comments and one indentation level less
 * (lines inside heredocs are never re-indented: their text is their value). A comment
 * of the header's body that belongs to no item goes with the item after it (the last
 * ones, with the item before them); comments on the header's own lines stay on them.
 */
import type { CstAttribute, CstBlock, CstBody, CstItem } from "../parse/hcl/cst.js";
import { labelEnd, type TokenList } from "../parse/hcl/tokens.js";
import { heredocLines, itemSpan, tokenSpan } from "./cst-spans.js";
import { applyEdits, indentAt, isBlank, lineEnd, lineStart, newlineOf } from "./text-edits.js";

/** Blocks of the labelled header that stay in the v0.5 header. */
const HEADER_BLOCKS = new Set(["policy", "memory", "expects"]);

/** A quoted HCL string holding `s` (template sequences escaped). */
export function hclQuote(s: string): string {
  const body = s
    .replace(/\\/g, "\\\\")
    .replace(/"/g, '\\"')
    .replace(/\n/g, "\\n")
    .replace(/\r/g, "\\r")
    .replace(/\t/g, "\\t")
    .replace(/\$\{/g, "$${")
    .replace(/%\{/g, "%%{");
  return `"${body}"`;
}

/** `s` (the text at offset `base`) with up to `width` leading spaces or tabs removed per line, except lines in `keep`. */
function dedent(s: string, base: number, width: number, keep: Set<number>): string {
  if (width <= 0) return s;
  let out = "";
  let at = 0;
  while (at < s.length) {
    const le = s.indexOf("\n", at);
    const end = le < 0 ? s.length : le + 1;
    let cut = 0;
    if (!keep.has(base + at)) while (cut < width && (s[at + cut] === " " || s[at + cut] === "\t")) cut++;
    out += s.slice(at + cut, end);
    at = end;
  }
  return out;
}

/** One piece of the header's body: an item, or a comment attached to none. */
interface Piece {
  start: number;
  end: number;
  /** Stays in the header (a field, or a comment before one). */
  kept: boolean;
  item?: CstItem;
}

/**
 * Rewrites the root body's labelled `workflow` block, if any; returns the new text and
 * adds a line to `changes`. `text`, `tokens` and `root` are one parse of the file.
 */
export function rewriteHeader(text: string, tokens: TokenList, root: CstBody, changes: string[]): string {
  const header = root.items.find((i): i is CstBlock => i.kind === "block" && i.type === "workflow" && i.labels.length === 1);
  if (!header || header.openToken < 0 || header.closeToken < 0) return text;
  // Named twice (`workflow "x" { name = "y" }`): which name is meant is the user's to say, as
  // validate asks (found by a new-user trial: the rewrite wrote name twice, "a bug of fmt").
  if (header.body.items.some((i) => i.kind === "attribute" && i.name === "name")) return text;
  const { starts, ends } = tokens;
  const nl = newlineOf(text);
  const name = header.labels[0];
  const labelStart = starts[header.labelTokens[0]];
  changes.push(`${text.slice(0, labelStart).split("\n").length}: workflow "${name}" → workflow { name = "${name}" }`);
  const blockIndent = indentAt(text, starts[header.typeToken]);
  const open = header.openToken;
  const close = header.closeToken;
  const items = header.body.items;
  // The body's indentation: its first item on a line of its own, else one level more.
  const own = items.find((i) => isBlank(text, lineStart(text, starts[i.firstToken]), starts[i.firstToken]));
  const innerIndent = own ? indentAt(text, starts[own.firstToken]) : `${blockIndent}  `;
  const firstAttr = items.find((i): i is CstAttribute => i.kind === "attribute");
  // `name` aligned with the first field's `=` when the header aligns them.
  let pad = " ";
  if (firstAttr && lineStart(text, starts[firstAttr.nameToken]) === lineStart(text, starts[firstAttr.equalsToken]) && lineStart(text, starts[firstAttr.nameToken]) !== lineStart(text, starts[open])) {
    const width = starts[firstAttr.equalsToken] - lineStart(text, starts[firstAttr.equalsToken]) - innerIndent.length - "name".length;
    if (width > 1) pad = " ".repeat(width);
  }
  const nameLine = `${innerIndent}name${pad}= ${hclQuote(name)}${nl}`;

  // The pieces of the body in order; a comment attached to no item goes with the next item.
  const pieces: Piece[] = items.map((item) => ({ ...itemSpan(text, tokens, item), kept: item.kind === "attribute" || HEADER_BLOCKS.has(item.type), item }));
  // Comments on the `{` line and on the `}` line stay there.
  const openLineEnd = lineEnd(text, ends[open]);
  const closeLineStart = lineStart(text, starts[close]);
  const onOpenLine = header.body.dangling.filter((c) => starts[c] < openLineEnd && lineStart(text, starts[c]) === lineStart(text, starts[open]));
  const onCloseLine = header.body.dangling.filter((c) => !onOpenLine.includes(c) && starts[c] >= closeLineStart && ends[c] <= starts[close]);
  for (const c of header.body.dangling) {
    if (onOpenLine.includes(c) || onCloseLine.includes(c)) continue;
    pieces.push({ ...tokenSpan(text, tokens, c, c), kept: false });
  }
  pieces.sort((a, b) => a.start - b.start);
  // A comment goes with the item after it; those after the last item, with the item before them.
  let lastItem = -1;
  pieces.forEach((p, i) => {
    if (p.item) lastItem = i;
  });
  for (let i = lastItem - 1; i >= 0; i--) if (!pieces[i].item) pieces[i].kept = pieces[i + 1].kept;
  for (let i = Math.max(0, lastItem + 1); i < pieces.length; i++) pieces[i].kept = i === 0 ? true : pieces[i - 1].kept;

  const hoisted = pieces.filter((p) => !p.kept);
  if (hoisted.length === 0 && isBlank(text, ends[open], openLineEnd - (text[openLineEnd - 1] === "\n" ? 1 : 0)) && onCloseLine.length === 0 && lineStart(text, starts[close]) !== lineStart(text, starts[open])) {
    // Only header fields, on lines of their own: drop the label, add `name` first.
    return applyEdits(text, [
      { start: labelStart - (text[labelStart - 1] === " " ? 1 : 0), end: labelEnd(tokens, header.labelTokens[0]), text: "" },
      { start: openLineEnd, end: openLineEnd, text: nameLine },
    ]);
  }

  // Rebuild: the header with its fields, then the moved blocks.
  const span = itemSpan(text, tokens, header);
  const keep = heredocLines(text, tokens, span.start, span.end);
  const lineOf = (s: string) => (s.endsWith("\n") ? s : s + nl);
  const piece = (p: Piece, width: number) => {
    const at = lineStart(text, p.start) === p.start ? "" : innerIndent.slice(0, Math.max(0, innerIndent.length - width));
    return lineOf(at + dedent(text.slice(p.start, p.end), p.start, width, keep));
  };
  const blankAbove = (at: number) => at > 0 && lineStart(text, at) === at && text.slice(lineStart(text, at - 1), at).trim() === "";
  const leading = text.slice(span.start, lineStart(text, starts[header.typeToken]));
  const openComments = onOpenLine.length > 0 ? " " + text.slice(starts[onOpenLine[0]], ends[onOpenLine[onOpenLine.length - 1]]) : "";
  // Comments around the label (`workflow /* a */ "x" /* b */ {`) stay before the `{` (a new-user trial: dropped).
  const aroundLabel = [text.slice(ends[header.typeToken], labelStart).trim(), text.slice(labelEnd(tokens, header.labelTokens[0]), starts[open]).trim()].filter(Boolean).join(" ");
  let out = `${leading}${text.slice(lineStart(text, starts[header.typeToken]), starts[header.typeToken])}workflow ${aroundLabel ? `${aroundLabel} ` : ""}{${openComments}${nl}${nameLine}`;
  let first = true;
  for (const p of pieces.filter((x) => x.kept)) {
    if (!first && blankAbove(p.start)) out += nl;
    out += piece(p, 0);
    first = false;
  }
  const closeComments = onCloseLine.length > 0 ? `${innerIndent}${text.slice(starts[onCloseLine[0]], ends[onCloseLine[onCloseLine.length - 1]])}${nl}` : "";
  const trailing = header.comments.trailing.length > 0 ? " " + text.slice(starts[header.comments.trailing[0]], ends[header.comments.trailing[header.comments.trailing.length - 1]]) : "";
  out += `${closeComments}${blockIndent}}${trailing}${nl}`;
  const width = innerIndent.length - blockIndent.length;
  hoisted.forEach((p, i) => {
    // The first moved piece is set off from the header; the others keep their blank lines.
    if (i === 0 || blankAbove(p.start)) out += nl;
    out += piece(p, width);
  });
  const moved = hoisted.filter((p) => p.item).length;
  changes.push(`${moved} block${moved === 1 ? "" : "s"} moved out of the header to the top level`);
  const after = text.slice(span.end);
  return text.slice(0, span.start) + out + (after.trim() !== "" && !/^\r?\n/.test(after) ? nl : "") + after;
}
