/**
 * Source positions and ranges shared by every compiler stage.
 *
 * Lines and columns are 1-based, offsets 0-based indexes into the file's text; `end` is
 * exclusive. `column` counts characters as a user sees them (grapheme clusters), the way
 * HCL's `hcl.Pos.Column` does, so `🎉` or `é` written as `e` + U+0301 is one column;
 * `utf16Column` counts UTF-16 code units (SARIF's default `columnKind`, an LSP
 * `character` + 1). On an ASCII line the two are equal.
 */
export interface Position {
  /** 1-based line number. */
  line: number;
  /** 1-based column in grapheme clusters (HCL's count): what text, JSON and GitHub output print. */
  column: number;
  /** 1-based column in UTF-16 code units (SARIF `utf16CodeUnits`, editors). */
  utf16Column: number;
  /** 0-based offset into the file text, in UTF-16 code units. */
  offset: number;
}

/** A span of one file's text: `[start, end)`. */
export interface Range {
  /** The file's path as the user named it (relative to the working directory when possible). */
  file: string;
  start: Position;
  end: Position;
}

/** True when `inner` lies within `outer` (same file, offsets inclusive). */
export function rangeContains(outer: Range, inner: Range): boolean {
  return outer.file === inner.file && outer.start.offset <= inner.start.offset && inner.end.offset <= outer.end.offset;
}

/** Orders ranges by file, then start offset, then end offset: the stable diagnostic order. */
export function compareRanges(a: Range, b: Range): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  return a.start.offset - b.start.offset || a.end.offset - b.end.offset;
}
