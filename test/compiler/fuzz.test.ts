/**
 * Fuzzing (docs/language.md, Files and modules): mutations of valid workflows never make the compiler
 * throw, hang or emit a diagnostic without a position, and never an internal_error.
 * FUZZ_RUNS sets the number of cases (default 2,000; CI uses the default).
 */
import fc from "fast-check";
import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { compile } from "../../compiler/index.js";

const repo = join(import.meta.dirname, "..", "..");
const runs = Number(process.env.FUZZ_RUNS ?? 2000);

function seeds(): { name: string; text: string }[] {
  const out: { name: string; text: string }[] = [];
  const walk = (dir: string) => {
    for (const n of readdirSync(dir)) {
      const p = join(dir, n);
      if (statSync(p).isDirectory()) walk(p);
      else if ([".hcl", ".chcl", ".yaml", ".yml", ".json"].includes(extname(n))) out.push({ name: n, text: readFileSync(p, "utf8") });
    }
  };
  walk(join(repo, "examples"));
  // The v0.5 language: our runnable cases and the Go tool's v0.5.7 modules (every era of its files).
  walk(join(repo, "testdata", "v05"));
  walk(join(repo, "..", "shared", "criteria"));
  return out;
}

const FRAGMENTS = ['"', "{", "}", "[", "]", "${", "}", "=", "\n", "#", "//", "/*", "<<EOT\n", "\nEOT\n", ":", "- ", "&a ", "*a", "_continue", "return", "each.value", "var.", "steps.", "step \"x\" {", "state \"y\" { terminal = true }", "\t", "\u00e9", "\u0000", "\\", "%{", "...", "data.internal.n.value", "while.index", "write {", "match {", "default {", "next = continue", "secret = true", "secret_input {", "optional(", "path.module", "step.output."];

type Mutation = { kind: "insert" | "delete" | "replace" | "dupline" | "truncate" | "swap"; at: number; len: number; frag: string };

const mutation: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom("insert", "delete", "replace", "dupline", "truncate", "swap"),
  at: fc.nat(),
  len: fc.integer({ min: 1, max: 40 }),
  frag: fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 8 })),
});

function apply(text: string, muts: Mutation[]): string {
  let t = text;
  for (const m of muts) {
    const at = t.length === 0 ? 0 : m.at % t.length;
    switch (m.kind) {
      case "insert":
        t = t.slice(0, at) + m.frag + t.slice(at);
        break;
      case "delete":
        t = t.slice(0, at) + t.slice(at + m.len);
        break;
      case "replace":
        t = t.slice(0, at) + m.frag + t.slice(at + m.frag.length);
        break;
      case "truncate":
        t = t.slice(0, at);
        break;
      case "dupline": {
        const lines = t.split("\n");
        const i = m.at % Math.max(1, lines.length);
        lines.splice(i, 0, lines[i] ?? "");
        t = lines.join("\n");
        break;
      }
      case "swap": {
        const lines = t.split("\n");
        const i = m.at % Math.max(1, lines.length);
        const j = (m.at + m.len) % Math.max(1, lines.length);
        [lines[i], lines[j]] = [lines[j], lines[i]];
        t = lines.join("\n");
        break;
      }
    }
  }
  return t;
}

describe("fuzz: mutated valid workflows", () => {
  const corpus = seeds();
  const dir = mkdtempSync(join(tmpdir(), "criteria-fuzz-"));
  it(`never throws, hangs or loses a position (${runs} cases)`, async () => {
    expect(corpus.length).toBeGreaterThan(3);
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: corpus.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 4 }), async (i, muts) => {
        const seed = corpus[i];
        const file = join(dir, `case${n++ % 8}${extname(seed.name)}`);
        writeFileSync(file, apply(seed.text, muts));
        const c = await Promise.race([
          compile(file),
          new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`hang on ${JSON.stringify(muts)}`)), 5000)),
        ]);
        for (const d of c.diagnostics) {
          expect(d.code).not.toBe("internal_error");
          expect(d.range.file.length).toBeGreaterThan(0);
          expect(d.range.start.line).toBeGreaterThanOrEqual(1);
          expect(d.range.start.column).toBeGreaterThanOrEqual(1);
          expect(d.range.end.offset).toBeGreaterThanOrEqual(d.range.start.offset);
          expect(d.message.length).toBeGreaterThan(0);
        }
        if (c.diagnostics.some((d) => d.severity === "error")) expect(c.graph).toBeUndefined();
        else expect(c.graph).toBeDefined();
      }),
      { numRuns: runs, seed: Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31), endOnFailure: true },
    );
  }, 600_000);
});
