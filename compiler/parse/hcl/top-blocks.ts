/**
 * The top-level blocks of an HCL file as spans of its text, and the parse of one of them
 * alone: what an editor's compile needs to re-parse only the block an edit fell in
 * (compiler/load/reparse-hcl.ts; the issue "See and edit", the language server's latency).
 *
 * A top-level block can be parsed alone because HCL's structure is line-based and
 * closed: a block starts and ends at the top level, where the scanner and the parser
 * are in the same state whatever came before. Parsing it alone means scanning its text
 * alone and parsing its tokens placed at their offsets in the file, so every offset,
 * line and column is the one the whole file gives.
 */
import type { SourceFile } from "../../diagnostics/source-file.js";
import type { JsonObject } from "../document.js";
import type { SourceMap } from "../source-map.js";
import type { CstBody } from "./cst.js";
import { argumentBlockClashes } from "./argument-block-clash.js";
import type { Problem } from "./diagnostics.js";
import { buildDocument } from "./mapping.js";
import { HclParser } from "./parser.js";
import { scanTokens } from "./scanner.js";

/**
 * One block of a file's top level. Offsets are 0-based UTF-16 indexes into the text:
 * `start` is the block's type keyword, `end` is just after its `}`; `open` and `close`
 * are the offsets of its `{` and `}`.
 */
export interface TopBlock {
  type: string;
  labels: readonly string[];
  start: number;
  end: number;
  open: number;
  close: number;
}

/** The top-level blocks of a parsed file's body, in source order (attributes are skipped). */
export function topBlocks(body: CstBody, starts: ArrayLike<number>, ends: ArrayLike<number>): TopBlock[] {
  const out: TopBlock[] = [];
  for (const item of body.items) {
    if (item.kind !== "block" || item.openToken < 0 || item.closeToken < 0) continue;
    out.push({ type: item.type, labels: item.labels, start: starts[item.typeToken], end: ends[item.lastToken], open: starts[item.openToken], close: starts[item.closeToken] });
  }
  return out;
}

/**
 * Parses the text `file` holds in `[block.start, block.end)` as the file's only item and
 * lays it out as `buildDocument` does (value and source map, positions in `file`).
 *
 * @returns undefined unless that text is exactly one block of `block`'s type and labels
 *   spanning exactly those offsets, with no syntax or value problem: then the caller
 *   parses the whole file (which reports any problem with its full context)
 */
export function parseTopBlock(file: SourceFile, block: TopBlock): { value: JsonObject; map: SourceMap } | undefined {
  // The block's text scanned alone, its tokens then placed at their offsets in the file.
  const tokens = scanTokens(file.text.slice(block.start, block.end));
  for (let i = 0; i < tokens.count; i++) {
    tokens.starts[i] += block.start;
    tokens.ends[i] += block.start;
  }
  const parser = new HclParser(file, tokens);
  const body = parser.parseFile();
  if (parser.problems.length > 0 || body.items.length !== 1) return undefined;
  const [found] = topBlocks(body, tokens.starts, tokens.ends);
  if (!found || found.type !== block.type || found.start !== block.start || found.end !== block.end || found.open !== block.open || found.close !== block.close) return undefined;
  if (found.labels.length !== block.labels.length || found.labels.some((l, i) => l !== block.labels[i])) return undefined;
  // A clash is reported by the whole file's parse (parse-hcl.ts).
  if (argumentBlockClashes(body, tokens, () => 0).length > 0) return undefined;
  const problems: Problem[] = [];
  const built = buildDocument(file, tokens, body, (p) => problems.push(p));
  return problems.length > 0 ? undefined : built;
}
