/**
 * The re-parse of one edited top-level block (compiler/load/reparse-hcl.ts) against the
 * full parse and lowering of the same text, over chains of random edits of every HCL file
 * of the repository and of ../shared/criteria: whenever the re-parse answers, its
 * document, its source map (every pointer in the same order, each with the same range,
 * key range and expression text) and its top-level blocks are the full parse's, and the
 * full parse has no diagnostic. Each chain goes on from the re-parse's own result, as a
 * language server does from one keystroke to the next.
 *
 * REPARSE_SEED=n replays or explores another sample (the seed is printed on every run).
 */
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { lowerHcl, namedBlockPlace } from "../../compiler/decode/lower-hcl.js";
import { SourceFile } from "../../compiler/diagnostics/source-file.js";
import { reparseHcl, type HclPart } from "../../compiler/load/reparse-hcl.js";
import { parseHcl } from "../../compiler/parse/parse-hcl.js";
import type { SourceEntry, SourceMap } from "../../compiler/parse/source-map.js";
import { corpusHclFiles } from "../parse/hcl-files.js";
import { seededRandom } from "../seeded-random.js";

const REPO = join(import.meta.dirname, "..", "..");

/** The full parse and lowering of `file`: its part, or undefined when it has any diagnostic. */
async function full(file: SourceFile): Promise<HclPart | undefined> {
  const p = await parseHcl(file);
  if (!p.parsed || !p.blocks || p.diagnostics.length > 0) return undefined;
  const lowered = lowerHcl(p.parsed);
  if (lowered.diagnostics.length > 0) return undefined;
  return { doc: lowered.doc, map: lowered.map, blocks: p.blocks };
}

const entry = (e: SourceEntry) => ({ range: e.range, keyRange: e.keyRange, exprText: e.exprText });
const mapOf = (m: SourceMap) => [...m].map(([p, e]) => [p, entry(e)]);

/** Pieces an edit inserts: what typing does, and what breaks the structure (quotes, braces, comments, heredocs). */
const PIECES = ["a", "Z", "_", "1", " ", "\n", '"', "{", "}", "[", "]", "=", "#", "//", "/*", "*/", "${", "%{", "<<EOT\n", "EOT\n", ",", ".", "\\", "é", "🎉", '"x"', "\r\n", 'k = "v"\n', 'outcome "z" { next = "q" }\n', "step", '"\n'];

describe("re-parsing the edited top-level block of an HCL file", () => {
  const files = corpusHclFiles();
  const seed = Number(process.env.REPARSE_SEED ?? 20261201);

  it("gives exactly the full parse whenever it answers, over chains of random edits", async () => {
    console.log(`reparse: ${files.length} files, seed ${seed} (REPARSE_SEED=${seed} repeats them)`);
    const random = seededRandom(seed);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
    let answered = 0;
    let eligible = 0;
    let edits = 0;
    let starts = 0;
    for (const path of files) {
      let file = new SourceFile(relative(REPO, path), readFileSync(path, "utf8"));
      let part = await full(file);
      if (!part || part.blocks.length === 0) continue;
      starts++;
      for (let i = 0; i < 12; i++) {
        const block = pick(part.blocks);
        // Mostly inside a block's braces (where the re-parse applies), sometimes anywhere.
        const at = random() < 0.9 ? block.open + 1 + Math.floor(random() * (block.close - block.open)) : Math.floor(random() * (file.text.length + 1));
        const cut = random() < 0.4 ? Math.floor(random() * 4) : 0;
        const insert = random() < 0.8 ? pick(PIECES) : "";
        const text = file.text.slice(0, at) + insert + file.text.slice(Math.min(file.text.length, at + cut));
        if (text === file.text) continue; // the parse cache answers an unchanged text
        const next = new SourceFile(file.path, text);
        edits++;
        const quick = reparseHcl({ file, part }, next);
        const fresh = await full(next);
        const inside = part.blocks.some((k) => namedBlockPlace(k.type, k.labels) && k.open < at && at + cut <= k.close);
        if (fresh && inside) eligible++;
        if (fresh && inside && !quick && process.env.DBG) console.log("DECLINED", file.path, JSON.stringify(insert), cut, JSON.stringify(file.text.slice(at - 20, at + cut + 10)));
        if (quick) {
          answered++;
          const where = `${file.path}, edit ${i} at ${at}: ${JSON.stringify(insert)} over ${cut}`;
          expect(fresh, `${where}: the re-parse answered where the full parse has diagnostics`).toBeDefined();
          expect(JSON.stringify(quick.doc), where).toBe(JSON.stringify(fresh!.doc));
          expect(mapOf(quick.map), where).toEqual(mapOf(fresh!.map));
          expect(quick.blocks, where).toEqual(fresh!.blocks);
          file = next;
          part = quick;
        } else if (fresh && fresh.blocks.length > 0) {
          file = next;
          part = fresh;
        }
      }
    }
    console.log(`reparse: ${answered} of ${edits} edits re-parsed one block (${eligible} kept the file clean and fell inside a named block's braces), from ${starts} files`);
    expect(starts).toBeGreaterThan(50);
    // The re-parse must be exercised, not only declined: it answers for nearly every edit
    // that keeps the file clean inside one named block (it may decline an edit whose
    // block now parses with a problem the whole file does not have, e.g. none so far).
    expect(answered).toBeGreaterThan(300);
    expect(answered).toBeGreaterThanOrEqual(eligible * 0.95);
  });

  it("declines an edit that gives a block an argument and a block of one name (the whole file's parse reports it)", async () => {
    const text = 'workflow {\n  name = "w"\n  version = "1"\n  initial_state = "a"\n  target_state = "done"\n}\nstep "a" {\n  target = adapter.noop.default\n  input = { k = "v" }\n  outcome "success" { next = "done" }\n}\nstate "done" { terminal = true }\n';
    const file = new SourceFile("w.hcl", text);
    const part = (await full(file))!;
    expect(part).toBeDefined();
    const at = text.indexOf("  outcome");
    const next = new SourceFile("w.hcl", text.slice(0, at) + '  input { k = "w" }\n' + text.slice(at));
    expect(reparseHcl({ file, part }, next)).toBeUndefined();
    expect((await parseHcl(next)).diagnostics.map((d) => `${d.range.start.line}:${d.range.start.column} ${d.code}`)).toEqual(["10:3 conflicting_fields"]);
  });
});
