import { graphemeCount } from "../graphemes.js";
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
    return this.positionOnLine(lo, off);
  }

  /**
   * The position of `offset` (already clamped) on 0-based line `line`: the grapheme
   * column from the line's text before it, the UTF-16 column from the offsets.
   */
  positionOnLine(line: number, offset: number): Position {
    const start = this.lineStarts[line];
    const utf16Column = offset - start + 1;
    if (utf16Column === 1 || this.isAsciiLine(line)) return { line: line + 1, column: utf16Column, utf16Column, offset };
    // A long non-ASCII line (minified JSON) asked in increasing order: count on from the
    // last answer when it ended before an ASCII character (which always starts a cluster).
    const last = this.last;
    let column: number;
    if (last && last.line === line && last.offset <= offset && this.text.charCodeAt(last.offset) < 0x80) {
      column = last.column + graphemeCount(this.text.slice(last.offset, offset));
    } else {
      column = graphemeCount(this.text.slice(start, offset)) + 1;
    }
    this.last = { line, offset, column };
    return { line: line + 1, column, utf16Column, offset };
  }

  /** Per line: 0 not looked at yet, 1 ASCII only, 2 has a code unit above U+007F. */
  private ascii: Uint8Array | undefined;
  private last: { line: number; offset: number; column: number } | undefined;

  private isAsciiLine(line: number): boolean {
    this.ascii ??= new Uint8Array(this.lineStarts.length);
    let flag = this.ascii[line];
    if (flag === 0) {
      const end = this.lineStarts[line + 1] ?? this.text.length;
      flag = /[^\x00-\x7f]/.test(this.text.slice(this.lineStarts[line], end)) ? 2 : 1;
      this.ascii[line] = flag;
    }
    return flag === 1;
  }

  /** Offset of a 1-based line and 1-based UTF-16 column (clamped). */
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
