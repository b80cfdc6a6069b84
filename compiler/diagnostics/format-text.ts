import { graphemeStart } from "../graphemes.js";
import { shown } from "./control-pictures.js";
import type { Diagnostic } from "./diagnostic.js";
import type { SourceFile } from "./source-file.js";

/** Longest source excerpt shown, in characters. */
const MAX_EXCERPT = 160;

/** Options for {@link formatText}. */
export interface TextOptions {
  /** ANSI colours (on a TTY, unless NO_COLOR is set). */
  color?: boolean;
}

/**
 * Renders one diagnostic as `file:line:col: severity[code]: message`, followed by the
 * source line with a `^~~~` underline (actionlint's snippet) and the hint.
 *
 * Asynchronous because it loads `string-width` the first time an excerpt is drawn: its
 * module makes an `Intl.Segmenter` and an emoji expression as it loads, ~18 ms that every
 * start of the CLI paid, diagnostics or not.
 *
 * @param sources the loaded files, by path, for excerpts; a missing file gives no excerpt
 */
export async function formatText(d: Diagnostic, sources: ReadonlyMap<string, SourceFile>, opts: TextOptions = {}): Promise<string> {
  const c = colors(opts.color === true);
  const { file, start, end } = d.range;
  const sev = d.severity === "error" ? c.red("error") : c.yellow("warning");
  const lines = [`${c.bold(shown(`${file}:${start.line}:${start.column}`))}: ${sev}[${d.code}]: ${shown(d.message)}`];
  const src = sources.get(file);
  if (src && start.line <= src.lineStarts.length) {
    const stringWidth = await terminalWidth();
    const text = src.lineText(start.line);
    const gutter = String(start.line);
    const pad = " ".repeat(gutter.length);
    let visible = text.replace(/\t/g, " ");
    // Cut in UTF-16 units (string indexes), place the caret in terminal columns (what the eye
    // counts: a CJK character or an emoji takes two, a combining accent none).
    const at16 = Math.min((start.utf16Column ?? start.column) - 1, visible.length);
    const end16 = end.line === start.line ? Math.min((end.utf16Column ?? end.column) - 1, visible.length) : visible.length;
    let from = 0;
    let to = visible.length;
    // A very long line (minified JSON, a generated file): show a window around the column,
    // cut between characters as the eye sees them (a cut inside 😀 printed half of it).
    if (visible.length > MAX_EXCERPT) {
      from = graphemeStart(visible, Math.max(0, at16 - 40));
      to = graphemeStart(visible, Math.min(visible.length, from + MAX_EXCERPT));
    }
    const prefix = from > 0 ? "…" : "";
    // Measured as printed: a control character is shown as one column (␛), not none.
    const col = stringWidth(prefix + shown(visible.slice(from, at16)));
    const width = Math.max(1, stringWidth(shown(visible.slice(at16, Math.max(at16, Math.min(end16, to))))));
    visible = `${prefix}${shown(visible.slice(from, to))}${to < visible.length ? "…" : ""}`;
    lines.push(`${pad} |`);
    lines.push(`${gutter} | ${visible}`);
    lines.push(`${pad} | ${" ".repeat(col)}${c.red(`^${"~".repeat(Math.max(0, width - 1))}`)}`);
  }
  for (const r of d.related ?? []) {
    lines.push(shown(`  note: ${r.message} (${r.range.file}:${r.range.start.line}:${r.range.start.column})`));
  }
  if (d.hint) lines.push(`  hint: ${shown(d.hint)}`);
  return lines.join("\n");
}

/** `string-width`, loaded once, when first needed. */
let widthOf: Promise<(s: string) => number> | undefined;
function terminalWidth(): Promise<(s: string) => number> {
  return (widthOf ??= import("string-width").then((m) => m.default));
}

function colors(on: boolean) {
  const wrap = (code: string) => (s: string) => (on ? `\x1b[${code}m${s}\x1b[0m` : s);
  return { red: wrap("31"), yellow: wrap("33"), bold: wrap("1") };
}
