import type { Diagnostic } from "../diagnostics/diagnostic.js";
import type { SourceFile } from "../diagnostics/source-file.js";
import type { ParsedFile } from "./document.js";
import { argumentBlockClashes } from "./hcl/argument-block-clash.js";
import { toDiagnostics } from "./hcl/diagnostics.js";
import { parseHclNative } from "./hcl/index.js";
import { topBlocks, type TopBlock } from "./hcl/top-blocks.js";

/**
 * Parses an HCL file with our own native-syntax parser (compiler/parse/hcl/): the
 * canonical value, its source map and HCL's diagnostics in one pass
 * (docs/architecture.md, The compiler: Parse). `@cdktn/hcl2json` stays only as the
 * differential oracle of the tests. Never throws.
 *
 * A file with an `invalid_value` (a number a JSON number cannot hold exactly) still
 * gives its value; its errors stop the compilation like any other. `blocks` are the
 * file's top-level blocks (top-blocks.ts), given with the value, for an editor's re-parse.
 * An argument and a block of one name in a body are an error here (argument-block-clash.ts).
 */
export async function parseHcl(file: SourceFile): Promise<{ parsed?: ParsedFile; blocks?: TopBlock[]; diagnostics: Diagnostic[] }> {
  const r = parseHclNative(file);
  if (!r.parsed) return { diagnostics: r.diagnostics };
  const clashes = toDiagnostics(file, argumentBlockClashes(r.cst.body, r.cst.tokens, (o) => file.position(o).line));
  return { parsed: r.parsed, blocks: topBlocks(r.cst.body, r.cst.tokens.starts, r.cst.tokens.ends), diagnostics: [...r.diagnostics, ...clashes] };
}
