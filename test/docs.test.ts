/**
 * docs/language.md stays true: every `hcl` and `yaml` example in it is a complete
 * workflow that validates without errors or warnings, and its function and diagnostic tables are
 * the code's (generated between BEGIN/END GENERATED markers; a stale table fails, and
 * only UPDATE_DOCS=1 rewrites it). docs/architecture.md names only files that exist.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compile } from "../compiler/index.js";
import { CODES } from "../compiler/diagnostics/codes.js";
import { functionDocs } from "../compiler/expr/functions.js";
import { workflowSchema } from "../compiler/decode/check-schema.js";
import { dialectSections } from "../compiler/decode/lower-hcl.js";
import { ADAPTER_FIELDS, BUILT_IN_ADAPTER_TYPES, type FieldSpec } from "../compiler/resolve/adapter-fields.js";
import { cli } from "./pipeline/helpers.js";

const repo = join(import.meta.dirname, "..");
const languageFile = join(repo, "docs", "language.md");
const update = process.env.UPDATE_DOCS === "1";

const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** The generated tables, by marker name. */
const GENERATED: Record<string, () => string> = {
  functions: () => ["| function | what it does |", "|---|---|", ...functionDocs().map((f) => `| \`${cell(f.signature)}\` | ${cell(f.doc)} |`)].join("\n"),
  "adapter-fields": () => {
    // One row per field; adapters that share their fields (the agent CLIs) share rows.
    const groups = new Map<(typeof ADAPTER_FIELDS)[keyof typeof ADAPTER_FIELDS], string[]>();
    for (const t of BUILT_IN_ADAPTER_TYPES) groups.set(ADAPTER_FIELDS[t], [...(groups.get(ADAPTER_FIELDS[t]) ?? []), t]);
    const kind = (f: FieldSpec) => (f.kind === "choice" ? (f.choices ?? []).map((c) => `"${c}"`).join(" \\| ") : f.kind) + (f.required ? " (required)" : "");
    const rows = [...groups].flatMap(([fields, types]) =>
      (["config", "input"] as const).flatMap((where) =>
        Object.entries(fields[where]).map(([k, f]) => `| ${types.map((t) => `\`${t}\``).join(", ")} | ${where} | \`${k}\` | ${kind(f)} | ${cell(f.doc)} |`),
      ),
    );
    return ["| adapter | in | field | kind | meaning |", "|---|---|---|---|---|", ...rows].join("\n");
  },
  diagnostics: () => ["| code | severity | meaning |", "|---|---|---|", ...Object.entries(CODES).map(([k, v]) => `| \`${k}\` | ${v.severity} | ${cell(v.doc)} |`)].join("\n"),
  // The YAML/JSON top-level keys, each with its HCL blocks (a new-user trial wrote `switches:` for `branches:`).
  "dialect-sections": () => {
    const props = (workflowSchema() as { properties: Record<string, { description?: string }> }).properties;
    return [
      "| YAML / JSON key | written as | HCL | holds |",
      "|---|---|---|---|",
      ...dialectSections(Object.keys(props)).map((r) => `| \`${r.key}\` | \`${cell(r.yaml)}\` | ${r.hcl.length > 0 ? r.hcl.map((h) => `\`${cell(h.replace(/ \(older\)$/, ""))}\`${h.endsWith("(older)") ? " (older)" : ""}`).join(", ") : "none"} | ${cell(props[r.key].description ?? "").replace(/</g, "&lt;").replace(/>/g, "&gt;")} |`),
    ].join("\n");
  },
};

/** The text with each generated section replaced by the code's. */
function regenerate(text: string): string {
  let out = text;
  for (const [name, make] of Object.entries(GENERATED)) {
    const re = new RegExp(`(<!-- BEGIN GENERATED: ${name} [^\\n]*-->\\n)[\\s\\S]*?(<!-- END GENERATED: ${name} -->)`);
    expect(re.test(out), `docs/language.md has no generated section "${name}"`).toBe(true);
    out = out.replace(re, (_, begin: string, end: string) => `${begin}${make()}\n${end}`);
  }
  return out;
}

describe("docs/language.md", () => {
  const text = readFileSync(languageFile, "utf8");

  it("its generated tables are the code's (UPDATE_DOCS=1 rewrites them)", () => {
    const want = regenerate(text);
    if (update && want !== text) writeFileSync(languageFile, want);
    expect(update ? want : text).toBe(want);
  });

  const blocks = [...text.matchAll(/```(hcl|yaml)\n([\s\S]*?)```/g)].map((m, i) => ({ lang: m[1], body: m[2], n: i + 1 }));
  it("has examples in both dialects", () => {
    expect(blocks.filter((b) => b.lang === "hcl").length).toBeGreaterThanOrEqual(5);
    expect(blocks.some((b) => b.lang === "yaml")).toBe(true);
  });
  // An example on an agent CLI also runs, on the fake CLIs (testdata/fake-agents): validate
  // cannot know an agent step's output fields (a new-user trial: the channel example read
  // steps.review.notes, which the agent's output does not have).
  const agentic = blocks.filter((b) => /adapter\s*=\s*"(?:copilot|claude|codex)"/.test(b.body));
  it.each(agentic.map((b) => [b.n, b] as const))("example %i, on an agent CLI, runs to its end", (_n, b) => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-doc-run-"));
    writeFileSync(join(dir, `example.${b.lang}`), b.body);
    const r = cli(["apply", join(dir, `example.${b.lang}`), "--state-dir", join(dir, "state")], { env: { PATH: `${join(repo, "testdata", "fake-agents")}:${process.env.PATH}` } });
    expect(r.status, r.stderr).toBe(0);
  });
  it("has an example on an agent CLI", () => expect(agentic.length).toBeGreaterThan(0));

  for (const b of blocks) {
    it(`example ${b.n} (${b.lang}) validates`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "criteria-doc-"));
      const file = join(dir, `example.${b.lang}`);
      writeFileSync(file, b.body);
      const c = await compile(file);
      expect(c.diagnostics.map((d) => `${d.range.start.line}:${d.range.start.column} ${d.code}: ${d.message}`)).toEqual([]);
    });
  }
});

describe("docs/architecture.md", () => {
  it("names only files and directories that exist", () => {
    const text = readFileSync(join(repo, "docs", "architecture.md"), "utf8");
    const paths = [...text.matchAll(/`((?:cli|compiler|engine|schema|bench|test|testdata|examples|scripts|docs)\/[\w./-]*)`/g)].map((m) => m[1]);
    expect(paths.length).toBeGreaterThan(20);
    for (const p of paths) expect(existsSync(join(repo, p)), p).toBe(true);
  });
});
