import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Graph } from "../../compiler/build/graph.js";
import { compile } from "../../compiler/index.js";

/**
 * Compiles workflow text (HCL) written to a fresh temporary directory, for engine tests.
 * @throws Error listing `line:col message` of every error diagnostic
 */
export async function graphOf(hcl: string): Promise<Graph> {
  const dir = mkdtempSync(join(tmpdir(), "criteria-eng-"));
  const file = join(dir, "w.hcl");
  writeFileSync(file, hcl);
  const c = await compile(file);
  const errors = c.diagnostics.filter((d) => d.severity === "error");
  if (errors.length) throw new Error(errors.map((d) => `${d.range.start.line}:${d.range.start.column} ${d.message}`).join("\n"));
  return c.graph!;
}
