/**
 * The Go tool's doc gate, here: every full workflow of its v0.5.7 LANGUAGE-SPEC.md
 * (shared/criteria/v0.5.7/docs; its workflow.md says `make validate-docs` runs
 * `criteria validate` on each) compiles without an error, but for the module a worked
 * example names and the docs do not hold (`file_not_found`). Found by a trial of the Go
 * tool's language: worked example 2, `next = step.switch_env` to a switch, was refused.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compile } from "../../compiler/index.js";

const spec = join(import.meta.dirname, "..", "..", "..", "shared", "criteria", "v0.5.7", "docs", "LANGUAGE-SPEC.md");

/** The ```hcl blocks of the spec that hold a workflow header (the full workflows). */
function fullWorkflows(): string[] {
  return [...readFileSync(spec, "utf8").matchAll(/```hcl\n([\s\S]*?)```/g)].map((m) => m[1]).filter((b) => /^workflow\s*("[^"]*"\s*)?\{/m.test(b));
}

describe("LANGUAGE-SPEC.md's full workflows validate (the Go tool's doc gate)", () => {
  const blocks = fullWorkflows();

  it("finds the spec's worked examples", () => {
    expect(blocks.length).toBeGreaterThanOrEqual(5);
  });

  it.each(blocks.map((b, i) => [i + 1, b] as const))("full workflow %i", async (_, text) => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-spec-"));
    mkdirSync(join(dir, "w"));
    writeFileSync(join(dir, "w", "main.hcl"), text);
    const c = await compile(join(dir, "w", "main.hcl"), { cwd: dir });
    const errors = c.diagnostics.filter((d) => d.severity === "error" && d.code !== "file_not_found");
    expect(errors.map((d) => `${d.range.start.line}:${d.range.start.column} ${d.code}: ${d.message}`)).toEqual([]);
  });
});
