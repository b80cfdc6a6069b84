/**
 * The parse cache of `validate --watch` (compiler/load/read-module.ts `ParseCache`) and its
 * unit cache (compiler/index.ts `UnitCache`): a compile that re-uses every file's parse and
 * every module's unit gives exactly what a fresh compile gives, for every example and
 * every invalid case; a changed file is parsed again, the others not; an edited module and
 * the modules that call it are checked again, the others not. A compile told not to
 * build the graph (`graph: false`) gives the same diagnostics.
 */
import { readdirSync, readFileSync, statSync, writeFileSync, mkdtempSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { moduleTree } from "../../bench/composition.js";
import { chainHcl } from "../../bench/generate.js";
import { seededRandom } from "../seeded-random.js";
import { compile, type UnitCache } from "../../compiler/index.js";
import type { ParseCache } from "../../compiler/load/read-module.js";

const repo = join(import.meta.dirname, "..", "..");
const cases = [
  ...readdirSync(join(repo, "examples")).map((n) => join(repo, "examples", n)),
  ...readdirSync(join(repo, "testdata", "invalid")).filter((n) => !n.endsWith(".out")).map((n) => join(repo, "testdata", "invalid", n)),
  ...readdirSync(join(repo, "testdata", "projects")).filter((n) => statSync(join(repo, "testdata", "projects", n)).isDirectory()).map((n) => join(repo, "testdata", "projects", n)),
];
const same = (c: Awaited<ReturnType<typeof compile>>) => JSON.stringify({ d: c.diagnostics, g: c.graph, f: c.files });
/** What a fresh compile (no cache) of each case gives, compiled once for the three tests that compare with it. */
const freshOnce = new Map<string, { same: string; light: string; graph: boolean }>();
async function freshOf(p: string): Promise<{ same: string; light: string; graph: boolean }> {
  let f = freshOnce.get(p);
  if (!f) {
    const c = await compile(p);
    f = { same: same(c), light: JSON.stringify({ d: c.diagnostics, f: c.files }), graph: c.graph !== undefined };
    freshOnce.set(p, f);
  }
  return f;
}

describe("the parse cache", () => {
  it("a compile from the cache is the same as a fresh one, for every example and invalid case", async () => {
    const cache: ParseCache = new Map();
    for (const p of cases) {
      await compile(p, { parseCache: cache });
      expect(same(await compile(p, { parseCache: cache })), p).toBe((await freshOf(p)).same);
    }
    expect(cache.size).toBeGreaterThan(cases.length / 2);
  });

  it("parses again only the file whose text changed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-pcache-"));
    mkdirSync(join(dir, "stage"));
    writeFileSync(join(dir, "main.hcl"), `workflow "m" {\n  version = "1"\n  initial_state = "call"\n  target_state = "done"\n}\nadapter "shell" "default" {}\nsubworkflow "stage" {\n  source = "./stage"\n  adapters = [adapter.shell.default]\n}\nstep "call" {\n  target = subworkflow.stage\n  outcome "success" { next = "done" }\n  outcome "failure" { next = "done" }\n}\nstate "done" { terminal = true }\n`);
    const stage = (cmd: string) => `workflow "s" {\n  version = "1"\n  initial_state = "go"\n  target_state = "ok"\n  expects {\n    adapters = [adapter.shell.default]\n  }\n}\nstep "go" {\n  target = adapter.shell.default\n  input { command = "${cmd}" }\n  outcome "success" { next = "ok" }\n}\nstate "ok" { terminal = true }\n`;
    writeFileSync(join(dir, "stage", "main.hcl"), stage("true"));
    const cache: ParseCache = new Map();
    expect((await compile(join(dir, "main.hcl"), { parseCache: cache })).diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const parts = new Map([...cache].map(([k, v]) => [k, v.part]));
    writeFileSync(join(dir, "stage", "main.hcl"), stage("false").replace('next = "ok"', 'next = "okk"'));
    const again = await compile(join(dir, "main.hcl"), { parseCache: cache });
    expect(again.diagnostics.map((d) => d.code)).toContain("unknown_node");
    for (const [k, v] of cache) expect(v.part === parts.get(k), k).toBe(!k.includes("stage"));
  });

  it("a compile that re-uses every module's unit is the same as a fresh one, for every example and invalid case", async () => {
    const parseCache: ParseCache = new Map();
    const unitCache: UnitCache = new Map();
    for (const p of cases) {
      await compile(p, { parseCache, unitCache });
      expect(same(await compile(p, { parseCache, unitCache })), p).toBe((await freshOf(p)).same);
    }
    expect(unitCache.size).toBeGreaterThan(cases.length / 2);
  });

  it("checks again the edited module and the modules that call it, and no other; an interface change reaches the callers", async () => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-ucache-"));
    // m<i> calls m<2i+1> (subworkflow) and m<2i+2> (flow): m14's callers are m6, m2, m0.
    const entry = moduleTree(dir, 15);
    const opts = { root: dir, cwd: dir };
    const parseCache: ParseCache = new Map();
    const unitCache: UnitCache = new Map();
    const first = await compile(entry, { ...opts, parseCache, unitCache });
    expect(first.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const units = () => new Map([...unitCache].map(([id, c]) => [/m\d+/.exec(id.slice(dir.length))![0], c.unit]));
    const before = units();
    const leaf = join(dir, "m14", "main.hcl");
    const text = readFileSync(leaf, "utf8");
    writeFileSync(leaf, text.replace("input { n = 3 }", "input { n = 33 }"));
    const edited = await compile(entry, { ...opts, parseCache, unitCache });
    expect(same(edited)).toBe(same(await compile(entry, opts)));
    const after = units();
    const checked = [...after].filter(([id, u]) => before.get(id) !== u).map(([id]) => id).sort();
    expect(checked).toEqual(["m0", "m14", "m2", "m6"]);
    // The flow's interface changes (its variable is renamed): its caller now passes an unknown one.
    writeFileSync(leaf, text.replace('variable "level"', 'variable "depth"').replace("var.level", "var.depth"));
    const changed = await compile(entry, { ...opts, parseCache, unitCache });
    expect(same(changed)).toBe(same(await compile(entry, opts)));
    writeFileSync(join(dir, "m5", "main.hcl"), readFileSync(join(dir, "m5", "main.hcl"), "utf8").replace('variable "level"', 'variable "depth"').replace("var.level", "var.depth"));
    const callerBroken = await compile(entry, { ...opts, parseCache, unitCache });
    expect(callerBroken.diagnostics.filter((d) => d.severity === "error").length).toBeGreaterThan(0);
    expect(same(callerBroken)).toBe(same(await compile(entry, opts)));
  });

  it("a module that said a file does not exist is checked again, not re-used, once the file is made (a new-user trial of the language server)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-unit-file-"));
    mkdirSync(join(dir, "kid"));
    writeFileSync(join(dir, "main.hcl"), `workflow {\n  name = "parent"\n  initial_state = "call"\n  target_state = "done"\n}\nsubworkflow "kid" { source = "./kid" }\nstep "call" {\n  target = subworkflow.kid\n  outcome "success" { next = "done" }\n  outcome "failure" { next = "done" }\n}\nstate "done" { terminal = true }\n`);
    writeFileSync(join(dir, "kid", "wf.hcl"), `workflow {\n  name = "kid"\n  initial_state = "go"\n  target_state = "ok"\n}\nadapter "shell" "default" {}\nstep "go" {\n  target = adapter.shell.default\n  input { command = file("./prompt.txt") }\n  outcome "success" { next = "ok" }\n  outcome "failure" { next = "ok" }\n}\nstate "ok" { terminal = true }\n`);
    const parseCache: ParseCache = new Map();
    const unitCache: UnitCache = new Map();
    const path = join(dir, "main.hcl");
    const codes = async (text: string) => (await compile(path, { cwd: dir, overlay: new Map([[path, text]]), parseCache, unitCache })).diagnostics.map((d) => d.code);
    const text = readFileSync(path, "utf8");
    expect(await codes(text)).toContain("file_not_found");
    writeFileSync(join(dir, "kid", "prompt.txt"), "hello");
    expect(await codes(`${text}# edit\n`)).toEqual([]);
  });

  it("an edit inside one block of an HCL file re-parses that block only, and compiles as a fresh compile does", async () => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-reparse-"));
    const path = join(dir, "main.hcl");
    const step = (n: number, next: string, extra = "") => `step "s${n}" {\n  target = adapter.shell.default\n  input { command = "echo ${n}" }${extra}\n  outcome "success" { next = "${next}" }\n}\n\n`;
    const text = `workflow "w" {\n  version = "1"\n  initial_state = "s0"\n  target_state = "done"\n}\n\nadapter "shell" "default" {}\n\n${step(0, "s1")}${step(1, "s2")}${step(2, "nowhere")}state "done" { terminal = true }\n`;
    writeFileSync(path, text); // an editor's buffer overlays a file that exists
    const parseCache: ParseCache = new Map();
    const run = (t: string) => compile(path, { cwd: dir, overlay: new Map([[path, t]]), parseCache });
    const fresh = (t: string) => compile(path, { cwd: dir, overlay: new Map([[path, t]]) });
    const part = () => [...parseCache.values()][0].part!;
    const first = await run(text);
    // The last step's target is unknown: an error whose position moves with the edits above it.
    expect(first.diagnostics.map((d) => d.code)).toContain("unknown_node");
    const before = part();
    // Lines added inside s0: s0 re-parsed, the adapter's entry (before it) kept as it was, s2's error moved down.
    const grown = text.replace('input { command = "echo 0" }', 'input {\n    command = "echo 0; echo more"\n  }');
    const edited = await run(grown);
    expect(same(edited)).toBe(same(await fresh(grown)));
    const after = part();
    expect(after.map.get("/adapters/shell.default")).toBe(before.map.get("/adapters/shell.default"));
    expect(after.map.get("/steps/s1")).not.toBe(before.map.get("/steps/s1"));
    expect(after.doc.steps).not.toBe(before.doc.steps);
    expect((after.doc.steps as Record<string, unknown>).s1).toBe((before.doc.steps as Record<string, unknown>).s1);
    // A syntax error inside s1 (the whole file parsed again, its error shown), then mended.
    const broken = grown.replace('command = "echo 1"', 'command = "echo 1');
    expect(same(await run(broken))).toBe(same(await fresh(broken)));
    expect(same(await run(grown))).toBe(same(await fresh(grown)));
    // Then the error itself fixed inside s2, from a clean parse.
    const fixed = grown.replace('next = "nowhere"', 'next = "done"');
    const done = await run(fixed);
    expect(done.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(same(done)).toBe(same(await fresh(fixed)));
  });
});

describe("steps decoded once while their block stands still (compiler/decode/step-memo.ts)", () => {
  /** Random edits of the examples' HCL files: each compiled as the language server does, then as a fresh compile does; the two agree. */
  it("a compile after each of 40 random edits of every HCL example (typing, overtyping, new lines, above and inside steps) gives what a fresh compile gives", async () => {
    const seed = Number(process.env.EDIT_SEED ?? Date.now() % 100_000);
    const random = seededRandom(seed);
    const files = readdirSync(join(repo, "examples")).flatMap((n) => {
      const d = join(repo, "examples", n);
      return readdirSync(d).filter((f) => f.endsWith(".hcl")).map((f) => join(d, f));
    });
    files.push(join(mkdtempSync(join(tmpdir(), "criteria-memo-")), "chain.hcl"));
    writeFileSync(files[files.length - 1], chainHcl(30));
    for (const path of files) {
      const original = readFileSync(path, "utf8");
      // Where edits go: inside quoted text (a step's command, a description), or a new line after an opening brace.
      const places = (t: string) => [...t.matchAll(/"[^"\n$%{}\\]+"|\{\n/g)].map((m) => m.index! + 1);
      const texts = [original];
      for (let i = 0; i < 40; i++) {
        const t = texts[texts.length - 1];
        const at = places(t)[Math.floor(random() * places(t).length)];
        const how = random();
        const ch = String.fromCharCode(97 + Math.floor(random() * 26));
        texts.push(how < 0.5 ? t.slice(0, at) + ch + t.slice(at) : how < 0.8 ? t.slice(0, at) + ch + t.slice(at + 1) : t.slice(0, at) + "\n" + t.slice(at));
      }
      const dir = join(path, "..");
      // Every fresh compile first: its parse is new, so it never takes the memo's steps.
      const fresh: string[] = [];
      for (const t of texts) fresh.push(same(await compile(path, { cwd: dir, overlay: new Map([[path, t]]) })));
      const parseCache: ParseCache = new Map();
      const unitCache: UnitCache = new Map();
      for (const [i, t] of texts.entries()) {
        const c = await compile(path, { cwd: dir, overlay: new Map([[path, t]]), parseCache, unitCache });
        expect(same(c), `${path}, edit ${i} (EDIT_SEED=${seed})`).toBe(fresh[i]);
      }
    }
  }, 120_000);
});

describe("compile without the graph (the language server's compile)", () => {
  it("gives the same diagnostics and files as a full compile, and no graph, for every example and invalid case", async () => {
    let built = 0;
    for (const p of cases) {
      const full = await freshOf(p);
      const light = await compile(p, { graph: false });
      if (full.graph) built++;
      expect(light.graph, p).toBeUndefined();
      expect(JSON.stringify({ d: light.diagnostics, f: light.files }), p).toBe(full.light);
    }
    expect(built).toBeGreaterThan(10);
  });
});
