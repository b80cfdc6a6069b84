import type { Range } from "../diagnostics/range.js";

/**
 * Where each value of a parsed document came from, keyed by RFC 6901 JSON pointer
 * into the document's plain JSON value (`""` is the root, `/step/a/0/next` a field).
 *
 * Both dialects fill it: hcl2json drops positions, so the HCL scanner rebuilds them;
 * YAML nodes carry their own ranges. docs/architecture.md, The compiler: Parse.
 */
export interface SourceEntry {
  /** The value's range (for an HCL block, the whole block; for an attribute, its expression). */
  range: Range;
  /** The key's range: an attribute or map key, or a block's label (or type keyword when unlabelled). */
  keyRange?: Range;
  /**
   * `range.start.offset`, readable without building the range (HCL entries build ranges
   * only when read: ordering keys by where they start needs no line or column).
   */
  readonly startOffset?: number;
  /**
   * For HCL attributes: the expression's raw source text, so expressions are parsed
   * with exact offsets (hcl2json re-renders them). Absent for YAML/JSON.
   */
  exprText?: string;
  /**
   * For YAML/JSON string scalars holding a template whose source spells the value character
   * for character (plain, or quoted without escapes, on one line): where the value's first
   * character is, so positions inside `${...}` are exact. Absent otherwise.
   */
  valueOffset?: number;
  /**
   * For the other YAML/JSON string scalars holding a template (escapes, `''`, a value over
   * lines, a literal or folded block): where each of the value's characters is written,
   * worked out when first asked (compiler/parse/scalar-offsets.ts), so positions inside
   * its `${...}` are exact too.
   */
  valueChars?: ValueChars;
  /**
   * For YAML/JSON plain numbers written otherwise than they read back (`1.10`, `007`,
   * `1e3`): the text as written, which fields taking text use instead of the number.
   */
  numberText?: string;
}

/**
 * Where the characters of a string value lie in its file when they are not written one
 * for one (compiler/parse/scalar-offsets.ts `scalarChars`). Each answer is worked out on
 * the first call and kept; undefined when the value's source could not be retraced.
 */
export interface ValueChars {
  /**
   * `value.length + 1` file offsets: where each UTF-16 unit of the value is written (an
   * escape at its backslash, a folded line break at the end of the line's text), then
   * where the last one's source ends. An index range `[s, e)` of the value is the file
   * range `[offsets[s], offsets[e])`.
   */
  offsets(): readonly number[] | undefined;
  /**
   * The runs of the value written as they read, each on one line: `[index in the value,
   * line, column]` where each starts (columns in grapheme clusters). Run-time errors use
   * them (compiler/build/graph.ts `GraphExpr.places`).
   */
  places(): ReadonlyArray<readonly [number, number, number]> | undefined;
}

/** Pointer → entry. Insertion order is source order. */
export type SourceMap = Map<string, SourceEntry>;

/** Escapes one pointer segment (RFC 6901: `~` → `~0`, `/` → `~1`). */
export function pointerSegment(key: string | number): string {
  const k = String(key);
  // Nearly every key has neither character: skip the two regular expressions.
  return k.includes("~") || k.includes("/") ? k.replace(/~/g, "~0").replace(/\//g, "~1") : k;
}

/** Joins a parent pointer and a segment. */
export function childPointer(parent: string, key: string | number): string {
  return `${parent}/${pointerSegment(key)}`;
}
