/**
 * Fuzzing (docs/language.md, Files and modules): mutations of valid workflows never make the compiler
 * throw, hang or emit a diagnostic without a position, and never an internal_error.
 * FUZZ_RUNS sets the number of cases (default 2,000; CI uses the default), FUZZ_SEED the
 * seed (printed on every run).
 *
 * Each case compiles in a worker thread (fuzz-worker.mjs) with a hard deadline: on a
 * hang the worker is terminated, so even a synchronous endless loop fails the case
 * instead of stalling the suite. Positions are checked against the text: every range
 * lies inside the file, its line and column are the ones its offset has, a non-empty
 * range does not start on a space or tab, and diagnostics that quote a name point at a
 * line holding one of their names (most of them: some name what is elsewhere).
 */
import fc from "fast-check";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Diagnostic } from "../../compiler/diagnostics/diagnostic.js";
import { SourceFile } from "../../compiler/diagnostics/source-file.js";

const repo = join(import.meta.dirname, "..", "..");

/**
 * Whether a diagnostic's range starts on a space or tab it does not name: a range points at
 * its token, not at the blanks before it; a YAML error about tab indentation names the tab.
 */
function startsOnBlank(d: Diagnostic, source: SourceFile): boolean {
  const c = source.text[d.range.start.offset];
  if (c === "\t" && /\btabs?\b/i.test(d.message)) return false;
  return c === " " || c === "\t";
}
const runs = Number(process.env.FUZZ_RUNS ?? 2000);
/** Longest one case may take, ms: the worst seen is ~100 ms; a hang is anything far beyond. */
const DEADLINE_MS = 5000;

/** What the worker answers. */
type Answer = { id: number; thrown?: string; texts?: Record<string, string>; hasGraph: boolean; diagnostics: (Pick<Diagnostic, "code" | "severity" | "message" | "range"> & { known: boolean })[] };

/** One worker, replaced when a case overruns its deadline (the overrun fails the case). */
class Compiler {
  private worker = this.start();
  private next = 0;

  private start(): Worker {
    return new Worker(new URL("./fuzz-worker.mjs", import.meta.url));
  }

  compile(file: string): Promise<Answer> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.worker.off("message", onMessage);
        void this.worker.terminate();
        this.worker = this.start();
        reject(new Error(`hang: no answer in ${DEADLINE_MS} ms`));
      }, DEADLINE_MS);
      const onMessage = (m: Answer) => {
        if (m.id !== id) return;
        clearTimeout(timer);
        this.worker.off("message", onMessage);
        resolve(m);
      };
      this.worker.on("message", onMessage);
      this.worker.postMessage({ id, file });
    });
  }

  close(): Promise<number> {
    return this.worker.terminate();
  }
}

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
    const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
    console.log(`fuzz: ${runs} cases, seed ${seed} (FUZZ_SEED=${seed} repeats them)`);
    const compiler = new Compiler();
    let n = 0;
    let named = 0;
    let pointing = 0;
    try {
      await fc.assert(
        fc.asyncProperty(fc.nat({ max: corpus.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 4 }), async (i, muts) => {
          const input = corpus[i];
          // One directory per case: .hcl cases side by side would be read as one split
          // module (a header in one file, content in another) and compiled together.
          const caseDir = join(dir, `case${n++ % 8}`);
          mkdirSync(caseDir, { recursive: true });
          const file = join(caseDir, `case${extname(input.name)}`);
          const text = apply(input.text, muts);
          writeFileSync(file, text);
          const c = await compiler.compile(file);
          expect(c.thrown, c.thrown).toBeUndefined();
          for (const d of c.diagnostics) {
            // Positions are checked against the text of the file the diagnostic is in.
            const source = new SourceFile(d.range.file, c.texts?.[d.range.file] ?? text.replace(/^\ufeff/, ""));
            expect(d.code).not.toBe("internal_error");
            expect(d.range.file.length).toBeGreaterThan(0);
            expect(d.message.length).toBeGreaterThan(0);
            if (!d.known) continue; // a file the loader could not read: positioned at 1:1 of nothing
            const { start, end } = d.range;
            expect(0 <= start.offset && start.offset <= end.offset && end.offset <= source.text.length, `${d.code} ${JSON.stringify(d.range)} inside the text`).toBe(true);
            expect(source.position(start.offset), `${d.code}: start line/column are its offset's`).toEqual(start);
            expect(source.position(end.offset), `${d.code}: end line/column are its offset's`).toEqual(end);
            // (A line break is a token of HCL: "unexpected newline" points at one.)
            const around = () => `${d.code} "${d.message}" at ${start.line}:${start.column} in ${JSON.stringify(source.text.slice(Math.max(0, start.offset - 40), end.offset + 40))}`;
            // (JSON.parse's positions are where a character was expected: after `-`, a tab in a string.)
            if (end.offset > start.offset && !d.range.file.endsWith(".json")) expect(startsOnBlank(d, source), `starts on a space or tab: ${around()}`).toBe(false);
            const names = [...d.message.matchAll(/"([^"\s]+)"/g)].map((m) => m[1]);
            if (names.length > 0) {
              named++;
              const line = source.lineText(start.line);
              if (names.some((x) => line.includes(x) || source.text.slice(start.offset, end.offset).includes(x))) pointing++;
            }
          }
          if (c.diagnostics.some((d) => d.severity === "error")) expect(c.hasGraph).toBe(false);
          else expect(c.hasGraph).toBe(true);
        }),
        { numRuns: runs, seed, endOnFailure: true },
      );
    } finally {
      await compiler.close();
    }
    // Diagnostics that quote a name nearly always point where it is written (on the goldens: 92%).
    console.log(`fuzz: ${pointing} of ${named} diagnostics quoting a name point at a line holding it`);
    expect(pointing / Math.max(1, named)).toBeGreaterThan(0.75);
  }, 600_000);

  it("a tab used as YAML indentation is pointed at, the tab itself (FUZZ_SEED=1076150786 failed the check above at its case 1,237)", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "criteria-fuzz-tab-")), "w.yaml");
    const text = 'workflow:\n  name: t\n  version: "1"\n  initial_state: done\n  target_state: done\nvariables:\n  max_rounds:\n\t    type: number\nstates:\n  done:\n    terminal: true\n';
    writeFileSync(file, text);
    const { compile } = await import("../../compiler/index.js");
    const tab = (await compile(file)).diagnostics.find((d) => /tab/i.test(d.message));
    expect(tab?.range.start.offset).toBe(text.indexOf("\t"));
    expect(startsOnBlank(tab!, new SourceFile(tab!.range.file, text))).toBe(false);
    // Any other blank a range starts on is still refused.
    expect(startsOnBlank({ ...tab!, message: "unexpected value" }, new SourceFile(tab!.range.file, text))).toBe(true);
  });
});
