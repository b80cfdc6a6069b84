/**
 * What a parsed template keeps alive: its literal text as one string, not one string node
 * per character (found by a new-user trial of the language server: typing into a template
 * made memory grow with the square of its length, since every keystroke's text is parsed and
 * kept by the parse memo). Measured as heap retained after a full GC, in bytes, not time.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { parseExpression, parseTemplate } from "../../compiler/expr/parse.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Heap bytes still used after a full GC once `make()` has run and while its result is held. */
function retained(make: () => unknown[]): number {
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept = make();
  gc();
  const after = process.memoryUsage().heapUsed;
  expect(kept.length).toBeGreaterThan(0);
  return after - before;
}

describe("template literals are kept as flat strings", () => {
  // 2,000 texts of 1 to 2,000 characters: ~2 MB of text. Kept a node per character (~32
  // bytes each), they held ~64 MB.
  const texts = Array.from({ length: 2000 }, (_, k) => "echo typed " + "x".repeat(k) + "${local.branch} done");

  it("bare templates (YAML and JSON strings)", () => {
    const bytes = retained(() => texts.map((t) => parseTemplate(t)));
    expect(bytes).toBeLessThan(24e6);
  });

  it("quoted and heredoc templates in HCL expressions", () => {
    const bytes = retained(() => texts.flatMap((t) => [parseExpression(JSON.stringify(t).replace("\\u0024", "$")), parseExpression(`<<EOT\n${t}\nEOT\n`)]));
    expect(bytes).toBeLessThan(48e6);
  });
});
