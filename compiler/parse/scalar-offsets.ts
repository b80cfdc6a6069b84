import type { SourceFile } from "../diagnostics/source-file.js";
import type { ValueChars } from "./source-map.js";

/**
 * Where each character of a YAML/JSON string scalar's value is written in its file, for
 * every scalar style of the `yaml` package (eemeli/yaml, whose `Scalar.type` names them):
 * `PLAIN` and `QUOTE_SINGLE` (line folding, `''`), `QUOTE_DOUBLE` (escapes, folding,
 * escaped line breaks; every JSON string), `BLOCK_LITERAL` and `BLOCK_FOLDED`
 * (indentation, folding, chomping). The scan retraces the package's own decoding
 * (yaml/dist/compose/resolve-flow-scalar.js and resolve-block-scalar.js) over the
 * scalar's source, noting where each character came from, and must give back `value`
 * exactly: when it does not (a style it does not know), it answers undefined and
 * positions inside the value stay the whole scalar's.
 *
 * @param text the text the document was parsed from (offsets are indexes in it)
 * @param style the node's `type`
 * @param start the node's `range[0]`: its first character (a quote, a `|` or `>` header)
 * @param end the node's `range[1]`: just past its last character
 * @param value the node's string value
 * @returns `value.length + 1` file offsets: for each UTF-16 unit of the value the offset
 *   where its source starts (an escape's backslash; for a line break made by folding, the
 *   end of the line's text), and last where the last one's source ends; or undefined
 */
export function scalarOffsets(text: string, style: string, start: number, end: number, value: string): number[] | undefined {
  const out = new Builder(text);
  switch (style) {
    case "PLAIN":
      unfold(out, start, end);
      break;
    case "QUOTE_SINGLE":
      singleQuoted(out, start, end);
      break;
    case "QUOTE_DOUBLE":
      doubleQuoted(out, start, end);
      break;
    case "BLOCK_LITERAL":
    case "BLOCK_FOLDED":
      return blockScalar(text, style, start, end, value);
    default:
      return undefined;
  }
  return out.result(value);
}

/**
 * The lazily built {@link ValueChars} of a string scalar: nothing is scanned until a
 * position inside the value is asked for (the language server compiles on each
 * keystroke; most templates never need one), then the answer is kept.
 */
export function scalarChars(file: SourceFile, text: string, style: string, start: number, end: number, value: string): ValueChars {
  let offsets: number[] | undefined | null = null;
  let places: Array<[number, number, number]> | undefined | null = null;
  const chars: ValueChars = {
    offsets() {
      if (offsets === null) offsets = scalarOffsets(text, style, start, end, value);
      return offsets;
    },
    places() {
      if (places !== null) return places;
      const o = chars.offsets();
      places = o ? runs(file, text, value, o) : undefined;
      return places;
    },
  };
  return chars;
}

/**
 * The runs of `value` that stand in the file as written, each on one line: where each
 * starts, as `[index in value, line, column]` (columns in grapheme clusters, as ranges
 * count them). A run ends where the next character's source does not follow on (an
 * escape, a folded or stripped line break, indentation), at a line break, or after a
 * character written otherwise than it reads (an escape, a fold).
 */
function runs(file: SourceFile, text: string, value: string, offsets: readonly number[]): Array<[number, number, number]> {
  const out: Array<[number, number, number]> = [];
  let same = false;
  for (let i = 0; i < value.length; i++) {
    const at = offsets[i];
    const follows = i > 0 && same && at === offsets[i - 1] + 1 && value[i - 1] !== "\n";
    if (!follows) {
      const p = file.position(at);
      out.push([i, p.line, p.column]);
    }
    same = text[at] === value[i];
  }
  return out;
}

/** The value being rebuilt, with the source offset of each of its UTF-16 units. */
class Builder {
  value = "";
  readonly offsets: number[] = [];
  /** Where the last character's source ends. */
  last = -1;
  constructor(readonly text: string) {}

  /** `s`, all of it made by the source at `at` (an escape, a fold) running to `end`. */
  add(s: string, at: number, end = at + 1): void {
    if (s === "") return;
    this.value += s;
    for (let i = 0; i < s.length; i++) this.offsets.push(at);
    this.last = end;
  }

  /** The source text `[from, to)` as it stands. */
  copy(from: number, to: number): void {
    if (to <= from) return;
    this.value += this.text.slice(from, to);
    for (let i = from; i < to; i++) this.offsets.push(i);
    this.last = to;
  }

  result(value: string): number[] | undefined {
    if (this.value !== value) return undefined;
    this.offsets.push(this.last < 0 ? (this.offsets[0] ?? 0) : this.last);
    return this.offsets;
  }
}

const isBlank = (c: string | undefined) => c === " " || c === "\t";

/**
 * Line folding of plain and single-quoted scalars (the package's `unfoldLines`) over
 * `[from, to)`: each line's outer white space dropped, one line break a space, n + 1 of
 * them n line breaks.
 */
function unfold(out: Builder, from: number, to: number): void {
  const text = out.text;
  let nl = text.indexOf("\n", from);
  if (nl < 0 || nl >= to) return out.copy(from, to);
  const lineEnd = (s: number, e: number) => {
    let k = e;
    if (k > s && text[k - 1] === "\r") k--;
    while (k > s && isBlank(text[k - 1])) k--;
    return k;
  };
  // The first line: its trailing white space dropped.
  let sepAt = lineEnd(from, nl);
  out.copy(from, sepAt);
  let sep = " ";
  let pos = nl + 1;
  while ((nl = text.indexOf("\n", pos)) >= 0 && nl < to) {
    let s = pos;
    while (s < nl && isBlank(text[s])) s++;
    const e = lineEnd(s, nl);
    if (e <= s) {
      // A blank line: a line break, placed (as the one before it) where the text before ends.
      if (sep === "\n") out.add("\n", sepAt);
      else sep = "\n";
    } else {
      out.add(sep, sepAt, s);
      out.copy(s, e);
      sep = " ";
      sepAt = e;
    }
    pos = nl + 1;
  }
  let s = pos;
  while (s < to && isBlank(text[s])) s++;
  out.add(sep, sepAt, s);
  out.copy(s, to);
}

/** A single-quoted scalar: folded like a plain one inside its quotes, then `''` is one `'`. */
function singleQuoted(out: Builder, start: number, end: number): void {
  if (out.text[start] !== "'" || out.text[end - 1] !== "'" || end - start < 2) return;
  const folded = new Builder(out.text);
  unfold(folded, start + 1, end - 1);
  const v = folded.value;
  for (let i = 0; i < v.length; i++) {
    const at = folded.offsets[i];
    if (v[i] === "'" && v[i + 1] === "'") {
      out.add("'", at, at + 2);
      i++;
    } else out.add(v[i], at, at + 1);
  }
}

/** What each one-character escape of a double-quoted scalar stands for (YAML 1.2, 5.7; JSON's are among them). */
const ESCAPES = new Map<string, string>([
  ["0", "\0"],
  ["a", "\x07"],
  ["b", "\b"],
  ["e", "\x1b"],
  ["f", "\f"],
  ["n", "\n"],
  ["r", "\r"],
  ["t", "\t"],
  ["v", "\v"],
  ["N", "\u0085"],
  ["_", "\u00a0"],
  ["L", "\u2028"],
  ["P", "\u2029"],
  [" ", " "],
  ['"', '"'],
  ["/", "/"],
  ["\\", "\\"],
  ["\t", "\t"],
]);

/** A double-quoted scalar (every JSON string): escapes, folded line breaks, escaped line breaks. */
function doubleQuoted(out: Builder, start: number, end: number): void {
  const text = out.text;
  if (text[start] !== '"' || text[end - 1] !== '"' || end - start < 2) return;
  const last = end - 1;
  for (let i = start + 1; i < last; i++) {
    const ch = text[i];
    if (ch === "\r" && text[i + 1] === "\n") continue;
    if (ch === "\n") {
      // One line break folds to a space, n + 1 of them to n line breaks; indentation goes.
      let fold = "";
      let k = i;
      for (let c = text[k + 1]; c === " " || c === "\t" || c === "\n" || c === "\r"; c = text[k + 1]) {
        if (c === "\r" && text[k + 2] !== "\n") break;
        if (c === "\n") fold += "\n";
        k++;
      }
      out.add(fold || " ", i, k + 1);
      i = k;
    } else if (ch === "\\") {
      const next = text[++i];
      const code = ESCAPES.get(next);
      if (code !== undefined) out.add(code, i - 1, i + 1);
      else if (next === "\n" || (next === "\r" && text[i + 1] === "\n")) {
        // An escaped line break: nothing, and the next line's indentation goes too.
        if (next === "\r") i++;
        while (isBlank(text[i + 1])) i++;
      } else if (next === "x" || next === "u" || next === "U") {
        const length = next === "x" ? 2 : next === "u" ? 4 : 8;
        const hex = text.slice(i + 1, i + 1 + length);
        const cp = hex.length === length && /^[0-9a-fA-F]+$/.test(hex) ? parseInt(hex, 16) : NaN;
        // An invalid one is a parse error: the document never reaches here.
        if (!(cp >= 0 && cp <= 0x10ffff)) return;
        out.add(String.fromCodePoint(cp), i - 1, i + 1 + length);
        i += length;
      } else {
        out.add(text.slice(i - 1, i + 1), i - 1, i + 1);
      }
    } else if (isBlank(ch)) {
      // White space before a line break goes; elsewhere it stays.
      const from = i;
      while (isBlank(text[i + 1])) i++;
      const after = text[i + 1];
      if (after !== "\n" && !(after === "\r" && text[i + 2] === "\n")) out.copy(from, i + 1);
    } else {
      out.add(ch, i);
    }
  }
}

/**
 * A block scalar (`|` or `>`, the package's `resolveBlockScalar`): its lines after the
 * header less their common indentation, chomped; a folded one's lines joined by spaces
 * where neither is more indented. An explicit indentation indicator counts from the
 * parent's indentation, which the node does not give: each possible one is tried.
 */
function blockScalar(text: string, style: string, start: number, end: number, value: string): number[] | undefined {
  const header = /^[|>]([-+1-9]*)/.exec(text.slice(start, start + 4));
  const nl = text.indexOf("\n", start);
  if (!header || nl < 0 || nl >= end) return undefined;
  const chomp = header[1].includes("-") ? "-" : header[1].includes("+") ? "+" : "";
  const explicit = Number(header[1].replace(/[-+]/g, "")) || 0;
  // The lines after the header: [start, indentation, end of text (a CR left out)].
  const lines: Array<[number, number, number]> = [];
  for (let s = nl + 1; ; ) {
    const e0 = text.indexOf("\n", s);
    const e = e0 < 0 || e0 >= end ? end : e0;
    let i = s;
    while (i < e && text[i] === " ") i++;
    lines.push([s, i - s, e > i && text[e - 1] === "\r" ? e - 1 : e]);
    if (e === end) break;
    s = e + 1;
  }
  if (explicit === 0) return block(text, style === "BLOCK_FOLDED", chomp, 0, lines, value);
  const first = lines.find(([s, indent, e]) => e > s + indent);
  for (let parent = 0; first && parent + explicit <= first[1]; parent++) {
    const got = block(text, style === "BLOCK_FOLDED", chomp, parent + explicit, lines, value);
    if (got) return got;
  }
  return undefined;
}

/** One block scalar's value rebuilt from its lines with a known (`fixed` > 0) or detected indentation. */
function block(text: string, folded: boolean, chomp: string, fixed: number, lines: ReadonlyArray<[number, number, number]>, value: string): number[] | undefined {
  const out = new Builder(text);
  const empty = ([s, indent, e]: [number, number, number]) => e <= s + indent;
  let chompStart = lines.length;
  for (let i = lines.length - 1; i >= 0 && empty(lines[i]); i--) chompStart = i;
  if (chompStart === 0) return undefined;
  let trim = fixed;
  let contentStart = 0;
  for (let i = 0; i < chompStart; i++) {
    const [, indent] = lines[i];
    if (empty(lines[i])) {
      if (fixed === 0 && indent > trim) trim = indent;
    } else {
      if (fixed === 0) trim = indent;
      contentStart = i;
      break;
    }
  }
  for (let i = lines.length - 1; i >= chompStart; i--) if (lines[i][1] > trim) chompStart = i + 1;
  for (let i = 0; i < contentStart; i++) {
    const [s, indent, e] = lines[i];
    out.copy(s + trim, s + indent);
    out.add("\n", e);
  }
  let sep = "";
  let sepAt = lines[contentStart][0];
  let prevMore = false;
  for (let i = contentStart; i < chompStart; i++) {
    const [s, indent, e] = lines[i];
    const textStart = s + indent;
    if (!folded) {
      out.add(sep, sepAt, textStart);
      out.copy(s + trim, textStart);
      out.copy(textStart, e);
      sep = "\n";
      sepAt = e;
    } else if (indent > trim || text[textStart] === "\t") {
      if (sep === " ") sep = "\n";
      else if (!prevMore && sep === "\n") sep = "\n\n";
      out.add(sep, sepAt, textStart);
      out.copy(s + trim, textStart);
      out.copy(textStart, e);
      sep = "\n";
      sepAt = e;
      prevMore = true;
    } else if (e <= textStart) {
      if (sep === "\n") out.add("\n", sepAt);
      else sep = "\n";
    } else {
      out.add(sep, sepAt, textStart);
      out.copy(textStart, e);
      sep = " ";
      sepAt = e;
      prevMore = false;
    }
  }
  if (chomp === "+") {
    for (let i = chompStart; i < lines.length; i++) {
      const [s, indent] = lines[i];
      out.add("\n", lines[i - 1][2]);
      out.copy(s + trim, s + indent);
    }
    if (!out.value.endsWith("\n")) out.add("\n", lines[lines.length - 1][2]);
  } else if (chomp === "") out.add("\n", sepAt);
  return out.result(value);
}
