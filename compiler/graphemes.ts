/**
 * Grapheme clusters (characters as a user sees them: `🎉`, `e` + U+0301) — the unit of
 * HCL's columns (`hcl.Pos.Column`) and of its string functions (`length`, `substr`,
 * `strrev`). One `Intl.Segmenter`, made on first use: creating it loads ICU's break
 * rules, ~20 ms that a cold `validate` of an ASCII file should not pay.
 */

let segmenter: Intl.Segmenter | undefined;

/** Longest text given to the segmenter in one piece (Node 20's is quadratic on long inputs). */
const PIECE = 4096;

const ASCII = /^[\x00-\x7f]*$/;

/** Pieces of `s` that no grapheme cluster spans: `s` itself, or its lines when long. */
function pieces(s: string): string[] {
  return s.length < PIECE ? [s] : s.split(/(?<=\n)/);
}

/**
 * The grapheme clusters of `s`, in order. ASCII needs no segmenter; a long text is
 * segmented line by line (150 KB of stdout in one piece took 23 s).
 */
export function graphemes(s: string): string[] {
  if (ASCII.test(s)) return s.split("");
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  const out: string[] = [];
  for (const piece of pieces(s)) for (const x of segmenter.segment(piece)) out.push(x.segment);
  return out;
}

/** How many grapheme clusters `s` holds (`graphemes(s).length` without the array). */
export function graphemeCount(s: string): number {
  if (ASCII.test(s)) return s.length;
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  let n = 0;
  for (const piece of pieces(s)) for (const _ of segmenter.segment(piece)) n++;
  return n;
}

/** Whether a grapheme cluster always starts at UTF-16 index `i` of `s` (`0 < i`): two ASCII characters other than CR LF meet there. */
function asciiBreak(s: string, i: number): boolean {
  const before = s.charCodeAt(i - 1);
  const at = s.charCodeAt(i);
  return before < 0x80 && at < 0x80 && !(before === 13 && at === 10);
}

/**
 * The UTF-16 index at which the grapheme cluster holding index `i` of `s` starts (`i`
 * itself when one starts there; 0 and `s.length` as they are): a cut there splits
 * neither a surrogate pair nor an emoji sequence. Only the text from the last break
 * before `i` that is sure without the segmenter (two ASCII characters), at most PIECE
 * units back, is segmented: a cut in a long line (minified JSON) costs no more.
 */
export function graphemeStart(s: string, i: number): number {
  if (i <= 0) return 0;
  if (i >= s.length) return s.length;
  if (asciiBreak(s, i)) return i;
  let from = i - 1;
  const floor = Math.max(0, i - PIECE);
  while (from > floor && !asciiBreak(s, from)) from--;
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  // A break at or before i depends only on the text before it and the character at it.
  let start = from;
  for (const x of segmenter.segment(s.slice(from, i + 1))) start = from + x.index;
  return start;
}
