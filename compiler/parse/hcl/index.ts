/**
 * The HCL native-syntax parser's entry point: one pass over a file gives the canonical
 * value and source map later stages read (the shapes `@cdktn/hcl2json` + `hcl-scan.ts`
 * give today), the concrete syntax tree, and diagnostics.
 *
 * Source: HCL native syntax specification (hashicorp/hcl `hclsyntax/spec.md`); the
 * pipeline is scanner.ts (tokens) → parser.ts / expressions.ts / templates.ts (tree and
 * syntax problems) → mapping.ts / values.ts (value, source map, value problems).
 * Deliberate differences from hcl2json, each following the specification (listed with
 * the rule they follow in `test/parse/hcl-differential.test.ts`): numbers are never
 * rounded (one a JSON number cannot hold exactly is an `invalid_value` error), line
 * endings in values are `\n`, and nesting is limited to `MAX_DEPTH` (document.ts).
 */
import { diag, type Diagnostic } from "../../diagnostics/diagnostic.js";
import type { SourceFile } from "../../diagnostics/source-file.js";
import type { ParsedFile } from "../document.js";
import type { CstFile } from "./cst.js";
import { toDiagnostics, type Problem } from "./diagnostics.js";
import { buildDocument } from "./mapping.js";
import { HclParser } from "./parser.js";
import { scanTokens } from "./scanner.js";
import { TokenList } from "./tokens.js";

export type { CstFile, CstBody, CstItem, CstAttribute, CstBlock, Expr, TemplatePart } from "./cst.js";
export { T, TokenList, tokenKindName, type TokenKind } from "./tokens.js";
export { scanTokens } from "./scanner.js";

/** What `parseHclNative` returns. */
export interface HclParseResult {
  /**
   * The file's canonical value and source map; absent when the file has a syntax error
   * (or blocks whose labels cannot be laid out). Present alongside `invalid_value`
   * errors (a number that cannot be kept exactly, `-true`): the value is complete, and
   * the errors stop the compilation.
   */
  parsed?: ParsedFile;
  /** The concrete syntax tree (tokens with comments, and the tree over them). */
  cst: CstFile;
  /** Syntax and value problems, in source order; one per mistake (echoes suppressed). */
  diagnostics: Diagnostic[];
}

/**
 * Parses `file` as HCL native syntax.
 *
 * Diagnostics: `syntax_error` (with HCL's wording and a hint), `nesting_too_deep`
 * (beyond `MAX_DEPTH` levels of blocks, brackets and template sequences),
 * `invalid_value` (numbers a JSON number cannot hold exactly, unary operators on
 * literals of the wrong type), `missing_field` (a block type written with and without
 * labels). Never throws: an internal failure becomes an `internal_error` diagnostic.
 * Linear in the file size.
 */
export function parseHclNative(file: SourceFile): HclParseResult {
  let cst: CstFile = { tokens: new TokenList(1), body: { items: [], dangling: [] } };
  try {
    const tokens = scanTokens(file.text);
    const parser = new HclParser(file, tokens);
    const body = parser.parseFile();
    cst = { tokens, body };
    const problems: Problem[] = parser.problems;
    if (problems.some((p) => p.code === "syntax_error" || p.code === "nesting_too_deep")) {
      return { cst, diagnostics: toDiagnostics(file, problems) };
    }
    const { value, map } = buildDocument(file, tokens, body, (p) => problems.push(p));
    const diagnostics = toDiagnostics(file, problems);
    const incomplete = problems.some((p) => p.code === "missing_field");
    return incomplete ? { cst, diagnostics } : { parsed: { file, dialect: "hcl", value, map }, cst, diagnostics };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return { cst, diagnostics: [diag("internal_error", file.range(0), `internal error in the HCL parser: ${message}`)] };
  }
}
