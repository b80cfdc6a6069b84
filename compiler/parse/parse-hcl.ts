import type { Diagnostic } from "../diagnostics/diagnostic.js";
import type { SourceFile } from "../diagnostics/source-file.js";
import type { ParsedFile } from "./document.js";
import { parseHclNative } from "./hcl/index.js";

/**
 * Parses an HCL file with our own native-syntax parser (compiler/parse/hcl/): the
 * canonical value, its source map and HCL's diagnostics in one pass
 * (docs/architecture.md, The compiler: Parse). `@cdktn/hcl2json` stays only as the
 * differential oracle of the tests. Never throws.
 *
 * A file with an `invalid_value` (a number a JSON number cannot hold exactly) still
 * gives its value; its errors stop the compilation like any other.
 */
export async function parseHcl(file: SourceFile): Promise<{ parsed?: ParsedFile; diagnostics: Diagnostic[] }> {
  const r = parseHclNative(file);
  return { ...(r.parsed ? { parsed: r.parsed } : {}), diagnostics: r.diagnostics };
}
