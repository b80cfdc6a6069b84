import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { SourceFile } from "../diagnostics/source-file.js";
import { MAX_DEPTH, type JsonValue, type ParsedFile } from "./document.js";
import { hcl2json, resetHcl2json } from "./hcl2json.js";
import { scanHcl } from "./hcl-scan.js";
import { nestingDepth } from "./nesting-depth.js";


const NAME = "__criteria_input__.hcl";

/**
 * Parses an HCL file: hcl2json gives the value (and the authoritative syntax errors,
 * kept with their positions), the scanner gives the source map that hcl2json drops
 * (docs/architecture.md, The compiler: Parse). Never throws; hcl2json failures become `syntax_error`.
 */
export async function parseHcl(file: SourceFile): Promise<{ parsed?: ParsedFile; diagnostics: Diagnostic[] }> {
  const depth = nestingDepth(file.text, "hcl", MAX_DEPTH);
  if (depth.depth > MAX_DEPTH) {
    return { diagnostics: [diag("nesting_too_deep", file.range(depth.at, depth.at + 1), `blocks and values nest deeper than ${MAX_DEPTH} levels`)] };
  }
  let value: Record<string, JsonValue>;
  try {
    value = await hcl2json(file.text.length)(NAME, file.text);
  } catch (e) {
    const message = String((e as Error)?.message ?? e);
    // hcl2json's recursion ran out of stack: an expression nests too deeply (a long run
    // of unary operators or conditionals, which the bracket count above does not see).
    if (/Maximum call stack size exceeded/.test(message)) {
      resetHcl2json();
      return { diagnostics: [tooDeep(file)] };
    }
    return { diagnostics: hclErrors(file, message) };
  }
  const scan = scanHcl(file);
  return { parsed: { file, dialect: "hcl", value, map: scan.map }, diagnostics: [] };
}

/** `nesting_too_deep` at the longest run of operators (`!!!…`, `- - -…`, `? :` chains) of the file. */
function tooDeep(file: SourceFile) {
  let best = { at: 0, len: 0 };
  for (const m of file.text.matchAll(/(?:[!\-?:][ \t]*){64,}/g)) if (m[0].length > best.len) best = { at: m.index ?? 0, len: m[0].length };
  return diag("nesting_too_deep", file.range(best.at, best.at + Math.min(best.len, 1)), `an expression nests too deeply (${best.len > 0 ? "a run of operators" : "operators or conditionals"} beyond what the HCL parser can follow)`, {
    hint: "split it into locals, or write it without the repeated operators",
  });
}

/**
 * Turns hcl2json's error text (`parse config: [NAME:2,7-3,1: Summary; Detail. NAME:...]`)
 * into diagnostics with the positions HCL gave.
 */
export function hclErrors(file: SourceFile, message: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const re = new RegExp(`${NAME.replace(/\./g, "\\.")}:(\\d+),(\\d+)-(?:(\\d+),)?(\\d+): `, "g");
  const hits = [...message.matchAll(re)];
  // Only the first error is shown (the rest are usually its echoes): building all of them
  // cost O(errors × line length), minutes for one long line of bad characters.
  for (let i = 0; i < Math.min(hits.length, 1); i++) {
    const m = hits[i];
    const textStart = (m.index ?? 0) + m[0].length;
    const textEnd = i + 1 < hits.length ? hits[i + 1].index ?? message.length : message.length;
    let text = message.slice(textStart, textEnd).trim().replace(/\]$/, "").trim();
    const [summary, ...rest] = text.split("; ");
    text = summary;
    const line = Number(m[1]);
    const col = Number(m[2]);
    const endLine = m[3] ? Number(m[3]) : line;
    const endCol = Number(m[4]);
    const s = graphemeOffset(file, line, col);
    const e = Math.max(s, graphemeOffset(file, endLine, endCol));
    const detail = rest.join("; ").replace(/\.$/, "").split(NAME).join(file.path);
    out.push(diag("syntax_error", file.range(s, e), summary.split(NAME).join(file.path), detail ? { hint: detail } : {}));
  }
  if (out.length === 0) {
    // hcl2json's JSON conversion refuses a block type used both with and without labels,
    // without a position: point at the first unlabelled block of that type.
    const mixed = /invalid HCL detected for "([^"]+)" block, cannot have blocks with and without labels/.exec(message);
    if (mixed) {
      const m = new RegExp(`^[ \\t]*(${mixed[1]})[ \\t]*\\{`, "m").exec(file.text);
      const at = m ? (m.index ?? 0) + m[0].indexOf(mixed[1]) : 0;
      out.push(
        diag("missing_field", file.range(at, at + mixed[1].length), `a ${mixed[1]} block needs a name label`, {
          hint: `write ${mixed[1]} "<name>" { ... }; every ${mixed[1]} block is named`,
        }),
      );
    } else out.push(diag("syntax_error", file.range(0), message.replace(/^parse config: /, "").replace(/^convert to HCL: /, "")));
  }
  // The first syntax error is the one to fix: later ones are usually its echoes
  // (an unterminated string makes every following line "invalid").
  if (hits.length > 1 && out[0].code === "syntax_error") {
    const rest = hits.length - 1;
    out[0].hint = `${out[0].hint ? `${out[0].hint}. ` : ""}(${rest} more syntax error${rest === 1 ? "" : "s"} after this one, often its echoes)`;
    return [out[0]];
  }
  return out;
}

let segmenter: Intl.Segmenter | undefined;

/**
 * HCL counts columns in grapheme clusters (`a = "😀é" b`: b at column 10), our ranges in
 * UTF-16 units: walk the line's graphemes to find the offset of a 1-based HCL column.
 */
export function graphemeOffset(file: SourceFile, line: number, col: number): number {
  const l = Math.max(1, Math.min(line, file.lineStarts.length));
  const start = file.lineStarts[l - 1];
  const text = file.lineText(l);
  if (/^[\x00-\x7f]*$/.test(text)) return file.offsetAt(l, col);
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  let n = 1;
  for (const g of segmenter.segment(text)) {
    if (n === col) return start + g.index;
    n++;
  }
  return start + text.length + Math.max(0, col - n);
}
