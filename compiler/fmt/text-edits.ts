/**
 * Text edits for rewriting a file in place: each replaces `[start, end)` of the original
 * text, so everything an edit does not touch (comments, blank lines, alignment) stays
 * byte for byte. Offsets are 0-based UTF-16 indexes, as in `Range.offset`.
 */

/** Replace `[start, end)` of the original text with `text` (an insertion when start === end). */
export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

/**
 * Applies `edits` to `text`. Edits may come in any order; two that overlap are a bug of
 * the caller (thrown as an Error), except insertions at the same offset, kept in order.
 */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const sorted = edits.map((e, i) => ({ ...e, i })).sort((a, b) => a.start - b.start || a.end - b.end || a.i - b.i);
  let out = "";
  let at = 0;
  for (const e of sorted) {
    if (e.start < at) throw new Error(`overlapping text edits at offset ${e.start}`);
    out += text.slice(at, e.start) + e.text;
    at = e.end;
  }
  return out + text.slice(at);
}

/**
 * Where `offset` of the original text is once `edits` are applied: moved by the edits that
 * end at or before it (one that starts at or after it does not move it). For an edit
 * spanning it, undefined.
 */
export function shiftedOffset(edits: readonly TextEdit[], offset: number): number | undefined {
  let at = offset;
  for (const e of edits) {
    if (e.start >= offset) continue;
    if (e.end > offset) return undefined;
    at += e.text.length - (e.end - e.start);
  }
  return at;
}

/** Offset of the start of the line holding `offset`. */
export function lineStart(text: string, offset: number): number {
  const nl = text.lastIndexOf("\n", offset - 1);
  return nl + 1;
}

/** Offset just after the line break ending the line holding `offset` (the text's end on the last line). */
export function lineEnd(text: string, offset: number): number {
  const nl = text.indexOf("\n", offset);
  return nl < 0 ? text.length : nl + 1;
}

/** The spaces and tabs that open the line holding `offset`. */
export function indentAt(text: string, offset: number): string {
  const start = lineStart(text, offset);
  let end = start;
  while (end < text.length && (text[end] === " " || text[end] === "\t")) end++;
  return text.slice(start, end);
}

/** True when only spaces and tabs lie in `[from, to)`. */
export function isBlank(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (text[i] !== " " && text[i] !== "\t") return false;
  return true;
}

/** The file's line break: `\r\n` when its first line ends so, else `\n`. */
export function newlineOf(text: string): string {
  const nl = text.indexOf("\n");
  return nl > 0 && text[nl - 1] === "\r" ? "\r\n" : "\n";
}
