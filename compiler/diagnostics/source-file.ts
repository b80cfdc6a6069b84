import type { Position, Range } from "./range.js";

/**
 * One loaded file's text with a line index, so that offsets become line:column only
 * when a diagnostic is printed (the eemeli/yaml LineCounter idea).
 */
export class SourceFile {
  /** Offsets at which each line starts; `lineStarts[0] === 0`. */
  readonly lineStarts: number[];

  /**
   * @param path the path shown to users (file part of every `Range`)
   * @param text the decoded UTF-8 text (a leading BOM already removed)
   */
  constructor(readonly path: string, readonly text: string) {
    const starts = [0];
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10) starts.push(i + 1);
      else if (c === 13 && text.charCodeAt(i + 1) !== 10) starts.push(i + 1);
    }
    this.lineStarts = starts;
  }

  /** Position of a 0-based offset (clamped to the text). Binary search: O(log lines). */
  position(offset: number): Position {
    const off = Math.max(0, Math.min(offset, this.text.length));
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid] <= off) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: off - this.lineStarts[lo] + 1, offset: off };
  }

  /** Offset of a 1-based line and column (clamped). */
  offsetAt(line: number, column: number): number {
    const l = Math.max(1, Math.min(line, this.lineStarts.length));
    return Math.min(this.lineStarts[l - 1] + Math.max(column, 1) - 1, this.text.length);
  }

  /** The `Range` of `[start, end)` offsets in this file. */
  range(start: number, end: number = start): Range {
    return { file: this.path, start: this.position(start), end: this.position(Math.max(start, end)) };
  }

  /** The text of 1-based line `line`, without its line break. */
  lineText(line: number): string {
    const start = this.lineStarts[line - 1] ?? this.text.length;
    const next = this.lineStarts[line] ?? this.text.length;
    return this.text.slice(start, next).replace(/\r?\n$|\r$/, "");
  }
}
