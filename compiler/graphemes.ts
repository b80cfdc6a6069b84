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
