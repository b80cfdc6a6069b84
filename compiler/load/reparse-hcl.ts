import { lowerHcl, namedBlockPlace } from "../decode/lower-hcl.js";
import type { Position, Range } from "../diagnostics/range.js";
import type { SourceFile } from "../diagnostics/source-file.js";
import { jsonObject, type JsonObject } from "../parse/document.js";
import { LazyEntry } from "../parse/hcl/mapping.js";
import { parseTopBlock, type TopBlock } from "../parse/hcl/top-blocks.js";
import { childPointer, type SourceMap } from "../parse/source-map.js";
import { editBetween } from "./text-edit.js";

/** One HCL file parsed and lowered: the canonical document, its source map and its top-level blocks. */
export interface HclPart {
  doc: JsonObject;
  map: SourceMap;
  blocks: readonly TopBlock[];
}

/**
 * Re-parses an edited HCL file by re-parsing only the top-level block the edit fell in
 * (the issue "See and edit": a language server compiles on every keystroke; a full parse
 * and lowering of a 500-step file is most of that compile). The result is what a full
 * parse and lowering of `file` gives — the same document, the same source map entries in
 * the same order — which `test/compiler/reparse-hcl.test.ts` checks against the full
 * parse over random edits of every HCL example.
 *
 * It applies only when all of this holds, and returns undefined otherwise (the caller
 * then parses the whole file): the earlier text parsed and lowered with no diagnostic at
 * all; the change (the span between the texts' common prefix and suffix) lies strictly
 * inside the braces of one top-level block of a name-keyed section (`step`, `state`,
 * `adapter`...); that block alone still parses and lowers with no problem, with the same
 * type and labels. So the edit cannot have made or removed a duplicate, nor changed how
 * any other block scans (a block that parses alone ends where it began: at the top level).
 *
 * @param old the earlier text and what it parsed to
 * @param file the new text
 * @returns the new part, with `[]` as its diagnostics, or undefined
 */
export function reparseHcl(old: { file: SourceFile; part: HclPart }, file: SourceFile): HclPart | undefined {
  const { start: p, oldEnd, newEnd } = editBetween(old.file.text, file.text);
  const delta = newEnd - oldEnd;
  const at = old.part.blocks.findIndex((k) => k.open < p && oldEnd <= k.close);
  if (at < 0) return undefined;
  const was = old.part.blocks[at];
  const place = namedBlockPlace(was.type, was.labels);
  if (!place) return undefined;
  const block: TopBlock = { ...was, end: was.end + delta, close: was.close + delta };
  const parsed = parseTopBlock(file, block);
  if (!parsed) return undefined;
  const lowered = lowerHcl({ file, dialect: "hcl", value: parsed.value, map: parsed.map });
  if (lowered.diagnostics.length > 0) return undefined;
  const { section, name } = place;
  const inner = lowered.doc[section];
  const oldSection = old.part.doc[section];
  if (Object.keys(lowered.doc).length !== 1 || !isObject(inner) || !isObject(oldSection)) return undefined;
  if (Object.keys(inner).length !== 1 || !(name in inner) || !(name in oldSection)) return undefined;
  const prefix = childPointer(childPointer("", section), name);

  const edit = { delta, lines: file.lineStarts.length - old.file.lineStarts.length, lastLine: old.file.position(oldEnd).line };
  const map = spliceMap(old.part.map, prefix, lowered.map, file, was, edit);
  if (!map) return undefined;
  const doc = Object.assign(jsonObject(), old.part.doc);
  doc[section] = Object.assign(jsonObject(), oldSection, { [name]: inner[name] });
  const blocks = old.part.blocks.map((k, i) => (i < at ? k : i === at ? block : { ...k, start: k.start + delta, end: k.end + delta, open: k.open + delta, close: k.close + delta }));
  return { doc, map, blocks };
}

/**
 * The old map with the entries under `prefix` replaced by those `fresh` has there (put
 * where the first old one was) and every other entry moved to where it is in `file`:
 * one before the edited block is kept, one after it is shifted by `edit.delta` offsets
 * (and `edit.lines` lines: it starts on a line after the edit's last line, so its
 * columns stay), one that spans the block (the file, the first block of a section)
 * grows by `edit.delta`. Undefined when an entry outside `prefix` starts or ends inside
 * the block, or when the old map has nothing under `prefix` (the caller then parses the
 * whole file).
 */
function spliceMap(old: SourceMap, prefix: string, fresh: SourceMap, file: SourceFile, block: TopBlock, edit: { delta: number; lines: number; lastLine: number }): SourceMap | undefined {
  const under = (ptr: string) => ptr.length >= prefix.length && ptr.startsWith(prefix) && (ptr.length === prefix.length || ptr.charCodeAt(prefix.length) === 47);
  const moved = (start: number, end: number): number | undefined => {
    if (end <= block.open) return 0; // before the block's braces (its keyword and labels too): unchanged
    if (start >= block.end) return 1; // after the block: shifted
    if (start <= block.open && end >= block.end) return 2; // around the block: grows
    return undefined;
  };
  const { delta } = edit;
  // A position after the block, on a line after the edit's last line: same column.
  const pos = (p: Position): Position => (p.line > edit.lastLine ? { line: p.line + edit.lines, column: p.column, utf16Column: p.utf16Column, offset: p.offset + delta } : file.position(p.offset + delta));
  const shifted = (r: Range | undefined): Range | undefined => r && { file: r.file, start: pos(r.start), end: pos(r.end) };
  const shift = (x: number, how: number, isEnd: boolean) => (how === 1 || (how === 2 && isEnd) ? x + delta : x);
  const out: SourceMap = new Map();
  let placed = false;
  let refused = false;
  // (forEach rather than for-of: no [key, value] pair made per entry; a 500-step file has thousands.)
  old.forEach((e, ptr) => {
    if (refused) return;
    if (under(ptr)) {
      if (!placed) for (const [fp, fe] of fresh) if (under(fp)) out.set(fp, fe);
      placed = true;
      return;
    }
    const lazy = e instanceof LazyEntry ? e : undefined;
    const key = lazy ? undefined : e.keyRange;
    const start = lazy ? lazy.startOffset : e.range.start.offset;
    const end = lazy ? lazy.endOffset : e.range.end.offset;
    const keyStart = lazy ? lazy.keyStart : key ? key.start.offset : -1;
    const keyEnd = lazy ? lazy.keyEnd : key ? key.end.offset : -1;
    const r = moved(start, end);
    const k = keyStart < 0 ? 0 : moved(keyStart, Math.max(keyStart, keyEnd));
    if (r === undefined || k === undefined) {
      refused = true;
      return;
    }
    if (r === 0 && k === 0) {
      out.set(ptr, e);
      return;
    }
    if (r === 1 && k !== 2 && !lazy) {
      // A plain entry of the lowering (a range and a key range, built): moved as a whole.
      out.set(ptr, { range: shifted(e.range)!, keyRange: k === 1 ? shifted(e.keyRange) : e.keyRange });
      return;
    }
    const hasExprText = lazy ? lazy.hasExprText : e.exprText !== undefined;
    const entry = new LazyEntry(file, shift(start, r, false), shift(end, r, true), keyStart < 0 ? -1 : shift(keyStart, k, false), keyStart < 0 ? -1 : shift(keyEnd, k, true), hasExprText);
    if (r === 1 && k !== 2 && lazy) entry.preset(shifted(lazy.builtRange), k === 1 ? shifted(lazy.builtKeyRange) : lazy.builtKeyRange);
    out.set(ptr, entry);
  });
  if (refused) return undefined;
  return placed ? out : undefined;
}

function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
