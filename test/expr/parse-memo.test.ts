/**
 * The parse memo (compiler/expr/parse-memo.ts) against parsing afresh: for every
 * expression of the HCL corpus (examples/, testdata/, ../shared/criteria) and a set
 * written to hold every kind of node and error, the memo gives exactly what parse.ts
 * gives at offset 0, and asked again the very same result. That its readers add the
 * text's offset is checked by the positions of the goldens and of
 * test/compiler/expression-places.test.ts.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { lowerHcl } from "../../compiler/decode/lower-hcl.js";
import { SourceFile } from "../../compiler/diagnostics/source-file.js";
import { parseExpression, parseTemplate } from "../../compiler/expr/parse.js";
import { parseMemo, type ParseKind } from "../../compiler/expr/parse-memo.js";
import { parseHcl } from "../../compiler/parse/parse-hcl.js";
import { corpusHclFiles } from "../parse/hcl-files.js";

/** Every kind of node (binary and call offsets, legacy index, splats, for, directives) and errors. */
const WRITTEN: [ParseKind, string][] = [
  ["expression", 'a.b[0].c.0.*.d[*].e == "x" && !f(g, h...) || -1 + 2 * 3 % 4 >= 5'],
  ["expression", 'var.x ? { a = 1, "b" = [for k, v in local.m : "${k}=${v}" if v != null] } : {for x in y : x => x...}'],
  ["expression", '"${steps.build.stdout} and %{ if var.on }on%{ else }off%{ endif }%{ for i in var.l ~}${i}%{~ endfor }"'],
  ["expression", "<<-EOT\n  one ${var.a}\n  two\n  EOT\n"],
  ["expression", "f(1,"],
  ["expression", 'a == == b'],
  ["expression", '"unclosed ${var.x'],
  ["template", "run ${var.a} --dir ${local.w}/x %{ if each._first }first%{ endif } $${literal}"],
  ["template", "${ unclosed"],
];

/** The expressions of the corpus's HCL files, as the decoder hands them to resolution. */
async function corpusExpressions(): Promise<string[]> {
  const out = new Set<string>();
  for (const path of corpusHclFiles()) {
    const p = await parseHcl(new SourceFile(path, readFileSync(path, "utf8")));
    if (!p.parsed) continue;
    for (const e of lowerHcl(p.parsed).map.values()) if (e.exprText !== undefined) out.add(e.exprText);
  }
  return [...out];
}

const fresh = (kind: ParseKind, text: string) => (kind === "expression" ? parseExpression(text) : parseTemplate(text));

describe("the parse memo", () => {
  it("gives what parsing the text at offset 0 gives, and the same result again", async () => {
    const texts: [ParseKind, string][] = [...WRITTEN, ...(await corpusExpressions()).map((t) => ["expression", t] as [ParseKind, string])];
    expect(texts.length).toBeGreaterThan(200);
    for (const [kind, text] of texts) {
      const got = parseMemo(kind, text);
      expect(got, `${kind} ${JSON.stringify(text)}`).toEqual(fresh(kind, text));
      expect(parseMemo(kind, text)).toBe(got);
    }
    expect(texts.filter(([k, t]) => parseMemo(k, t).errors.length > 0).length).toBeGreaterThanOrEqual(4);
  });

  it("keeps an expression and a template of the same text apart", () => {
    const text = "a ${b}";
    expect(parseMemo("template", text)).toEqual(parseTemplate(text));
    expect(parseMemo("expression", text)).toEqual(parseExpression(text));
    expect(parseMemo("expression", text)).not.toEqual(parseMemo("template", text));
  });
});
