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
   * For YAML/JSON string scalars whose source spells the value character for character
   * (plain, or quoted without escapes, on one line): where the value's first character
   * is, so positions inside `${...}` templates are exact. Absent otherwise.
   */
  valueOffset?: number;
  /**
   * For a YAML literal block scalar (`|`) holding a template: the file offset of each
   * line of the value (the value's lines lie apart in the file, their indentation
   * stripped), so positions inside its `${...}` are exact too. `valueOffset` is the first.
   */
  valueLines?: number[];
  /**
   * For YAML/JSON plain numbers written otherwise than they read back (`1.10`, `007`,
   * `1e3`): the text as written, which fields taking text use instead of the number.
   */
  numberText?: string;
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
