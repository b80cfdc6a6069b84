/**
 * `criteria fmt --to v0.5` (docs/language.md, Upgrading to v0.5): round-trip over every
 * example and every real file of the Go tool's users, all eras. Each module's directory
 * is copied twice; every HCL file of one copy is rewritten; both copies must validate
 * with no errors and compile to the same graph (source positions aside, and an agent
 * that is a plain adapter session counted as that adapter session: `agent "n" { adapter
 * = "t" }` is `adapter "t" "n"`). The rewrite keeps every comment, and a second
 * rewrite changes nothing.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { SourceFile } from "../../compiler/diagnostics/source-file.js";
import { upgradeModuleToV05 } from "../../compiler/fmt/upgrade-v05.js";
import { compile } from "../../compiler/index.js";
import { main } from "../../cli.js";
import { COMMENT, comments, io, OLDER_FORM } from "./helpers.js";

const repo = join(import.meta.dirname, "..", "..");
const shared = join(repo, "..", "shared", "criteria");
const work = mkdtempSync(join(tmpdir(), "criteria-fmt-"));

/** Every module PATH to round-trip: examples, testdata/ok HCL files, the shared real files. */
function cases(): string[] {
  const out: string[] = [];
  for (const n of readdirSync(join(repo, "examples"))) {
    const p = join(repo, "examples", n);
    if (statSync(p).isDirectory() && readdirSync(p).some((f) => /\.(hcl|chcl)$/.test(f))) out.push(p);
  }
  out.push(join(repo, "examples", "flow_as_agent", "chief.hcl"));
  for (const n of readdirSync(join(repo, "testdata", "ok"))) if (n.endsWith(".hcl")) out.push(join(repo, "testdata", "ok", n));
  if (existsSync(shared)) {
    for (const era of ["v0.2.0", "v0.3.0"]) for (const n of readdirSync(join(shared, era))) if (n.endsWith(".hcl")) out.push(join(shared, era, n));
    out.push(join(shared, "w14-f9cadf3", "phase3-subworkflow", "parent.hcl"));
    const v05 = join(shared, "v0.5.7", "examples");
    out.push(join(v05, "hello"), join(v05, "subworkflow"));
    for (const n of readdirSync(join(v05, "llm-pack"))) if (/^0/.test(n)) out.push(join(v05, "llm-pack", n));
  }
  return out;
}

function hclFilesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((f) => join(dir, f))
    .filter((f) => /\.(hcl|chcl)$/.test(f) && statSync(f).isFile());
}

/** The graph without positions and paths, agents that are adapter sessions counted as adapters. */
function normalize(graph: unknown, root: string): unknown {
  const converted = new Map<string, string>();
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== "object") return typeof v === "string" ? v.split(root).join("<root>") : v;
    const o = { ...(v as Record<string, unknown>) };
    delete o.at;
    delete o.range;
    delete o.implicit;
    // A branch rewritten as a switch is the same node: only its mark (for messages) differs.
    if (Array.isArray(o.arms)) delete o.switch;
    if (Array.isArray(o.agents) && Array.isArray(o.adapters)) {
      const keep: unknown[] = [];
      const adapters = [...(o.adapters as Record<string, unknown>[])];
      for (const a of o.agents as Record<string, unknown>[]) {
        if (typeof a.adapter === "string" && a.flow === undefined) {
          converted.set(String(a.name), `${a.adapter}.${a.name}`);
          const { adapter, name, ...rest } = a;
          adapters.push({ id: `${adapter}.${name}`, type: adapter, name, ...rest });
        } else keep.push(a);
      }
      o.agents = keep;
      o.adapters = adapters.sort((x, y) => String(x.id).localeCompare(String(y.id)));
    }
    const t = o.target as { kind?: string; name?: string } | undefined;
    if (t && t.kind === "agent" && t.name !== undefined && converted.has(t.name)) o.target = { kind: "adapter", id: converted.get(t.name) };
    for (const k of Object.keys(o)) o[k] = walk(o[k]);
    return o;
  };
  // Agents are listed before the steps that use them: one walk converts both.
  return JSON.parse(JSON.stringify(walk(graph), (k, v) => (k === "adapters" && Array.isArray(v) ? [...v].sort((x, y) => String(x.id).localeCompare(String(y.id))) : v)));
}


describe("fmt --to v0.5 round-trip", () => {
  const all = cases();
  it("has cases from every era", () => {
    expect(all.length).toBeGreaterThan(20);
  });
  const copied = new Map<string, { a: string; b: string }>();
  let n = 0;
  for (const path of all) {
    it(relative(join(repo, ".."), path), async () => {
      const src = statSync(path).isDirectory() ? dirname(path) : dirname(path);
      let c = copied.get(src);
      if (!c) {
        const id = `${n++}-${basename(src)}`;
        c = { a: join(work, "a", id), b: join(work, "b", id) };
        cpSync(src, c.a, { recursive: true });
        cpSync(src, c.b, { recursive: true });
        // A directory that is a case is one workflow: its files are rewritten together;
        // every other file alone.
        const moduleDirs = new Set(all.filter((p) => statSync(p).isDirectory()).map((p) => join(c!.b, relative(src, p))));
        const groups = new Map<string, string[]>();
        for (const f of hclFilesUnder(c.b)) {
          const key = moduleDirs.has(dirname(f)) ? dirname(f) : f;
          groups.set(key, [...(groups.get(key) ?? []), f]);
        }
        for (const group of groups.values()) {
          const texts = group.map((f) => readFileSync(f, "utf8"));
          const ups = upgradeModuleToV05(group.map((f, i) => new SourceFile(f, texts[i])));
          const again = upgradeModuleToV05(ups.map((u) => new SourceFile(u.file.path, u.text)));
          ups.forEach((up, i) => {
            const f = group[i];
            expect(up.problems, f).toEqual([]);
            expect(comments(up.text), `${f}: comments kept`).toEqual(comments(texts[i]));
            expect(again[i].text, `${f}: a second rewrite changes nothing`).toBe(up.text);
            // Nothing of the older forms is left (a rewrite that did nothing would pass the rest).
            expect(up.text.replace(COMMENT, ""), f).not.toMatch(OLDER_FORM);
            writeFileSync(f, up.text);
          });
        }
        copied.set(src, c);
      }
      const rel = relative(src, path);
      const before = await compile(join(c.a, rel));
      const after = await compile(join(c.b, rel));
      expect(before.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      expect(after.diagnostics.filter((d) => d.severity === "error").map((d) => `${d.range.start.line}:${d.range.start.column} ${d.code} ${d.message}`)).toEqual([]);
      expect(normalize(after.graph, c.b)).toEqual(normalize(before.graph, c.a));
    });
  }
});

describe("criteria fmt", () => {
  const legacy = 'workflow "w" {\r\n  version       = "1"\r\n  initial_state = "a"\r\n  target_state  = "done"\r\n\r\n  # the only step\r\n  step "a" {\r\n    adapter = "noop" # implicit\r\n    outcome "success" { transition_to = "done" }\r\n  }\r\n  state "done" { terminal = true }\r\n}\r\n';

  it("rewrites in place keeping a BOM and CRLF, --check then passes; --check on the old file exits 1 and writes nothing", async () => {
    const f = join(work, "crlf.hcl");
    writeFileSync(f, "\ufeff" + legacy);
    const check = io();
    expect(await main(["fmt", "--to", "v0.5", "--check", f], check)).toBe(1);
    expect(check.stdout).toContain("would be rewritten");
    expect(readFileSync(f, "utf8")).toBe("\ufeff" + legacy);
    const o = io();
    expect(await main(["fmt", "--to", "v0.5", f], o)).toBe(0);
    const out = readFileSync(f, "utf8");
    expect(out.startsWith("\ufeffworkflow {\r\n")).toBe(true);
    expect(out.replace(/\r\n/g, "")).not.toMatch(/\n/);
    expect(out).toContain('  name          = "w"\r\n');
    expect(out).toContain('adapter "noop" "default" {}\r\n');
    expect(out).toContain("  target = adapter.noop.default # implicit\r\n");
    expect(out).toContain("# the only step\r\nstep \"a\" {");
    expect(await main(["fmt", "--to", "v0.5", "--check", f], io())).toBe(0);
    const v = io();
    expect(await main(["validate", f], v)).toBe(0);
  });

  it("a file that does not parse is left unchanged with its diagnostics, exit 1", async () => {
    const f = join(work, "broken.hcl");
    const text = 'workflow "w" {\n  version = \n}\n';
    writeFileSync(f, text);
    const o = io();
    expect(await main(["fmt", "--to", "v0.5", f], o)).toBe(1);
    expect(o.stderr).toMatch(/broken\.hcl:2:\d+: error\[syntax_error\]/);
    expect(o.stderr).toContain("left unchanged");
    expect(o.stdout).toBe("");
    expect(readFileSync(f, "utf8")).toBe(text);
  });

  it("--to is required; a YAML file is skipped", async () => {
    expect(await main(["fmt", join(work, "crlf.hcl")], io())).toBe(2);
    const o = io();
    expect(await main(["fmt", "--to", "v0.5", join(repo, "examples", "yaml_review_loop", "workflow.yaml")], o)).toBe(0);
    expect(o.stderr).toContain("skipped");
  });
});
