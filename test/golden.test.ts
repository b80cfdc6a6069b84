/**
 * Golden tests (actionlint's testdata/ok + testdata/err): every case under
 * testdata/invalid/ is a workflow file or directory (`warn_*`: only warnings) with a `.out` file beside it
 * listing the expected diagnostics, one per line: `line:col-endline:endcol severity code:
 * message (hint: ...)` (file relative to the case when it is a directory:
 * `file:line:col-...`), so a range that collapsed or a hint that got lost fails too;
 * the repository's own path in a message reads `<repo>`.
 * testdata/projects/<case>/ are multi-module cases (actionlint's testdata/projects):
 * the entry is the case's `main.hcl` (or `main.yaml`), and `<case>.out` names files
 * relative to the case directory. testdata/ok/ cases must give no errors.
 * A missing `.out` fails; refresh expectations with
 * `UPDATE_GOLDEN=1 npx vitest run test/golden.test.ts`; never edit .out files by hand.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { compile } from "../compiler/index.js";
import { ALL_CODES } from "../compiler/diagnostics/codes.js";

const repo = join(import.meta.dirname, "..");
const root = join(repo, "testdata");
const update = process.env.UPDATE_GOLDEN === "1";

function cases(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => !n.endsWith(".out") && !n.startsWith("."))
    .sort()
    .map((n) => join(dir, n));
}

async function render(path: string, relativeTo?: string): Promise<string> {
  const c = await compile(path);
  const base = relativeTo ?? (statSync(path).isDirectory() ? path : undefined);
  return c.diagnostics
    .map((d) => {
      const loc = `${d.range.start.line}:${d.range.start.column}-${d.range.end.line}:${d.range.end.column}`;
      const file = base ? `${relative(base, d.range.file.startsWith("/") ? d.range.file : join(process.cwd(), d.range.file))}:` : "";
      const text = `${d.message}${d.hint ? ` (hint: ${d.hint})` : ""}`.split(repo).join("<repo>");
      return `${file}${loc} ${d.severity} ${d.code}: ${text}`;
    })
    .join("\n");
}

/** Compares against the expectation file; only UPDATE_GOLDEN=1 writes one (a missing one fails). */
function expectGolden(outFile: string, got: string) {
  if (update) writeFileSync(outFile, got + "\n");
  expect(existsSync(outFile), `${outFile} is missing: run UPDATE_GOLDEN=1 npx vitest run test/golden.test.ts and review it`).toBe(true);
  expect(got).toBe(readFileSync(outFile, "utf8").trimEnd());
}

/** The out files of every case (invalid and projects). */
function outFiles(): string[] {
  const inv = cases(join(root, "invalid")).map((p) => p.replace(/\.(hcl|ya?ml|json|bin|txt)$/, "") + ".out");
  const proj = cases(join(root, "projects")).map((p) => `${p}.out`);
  return [...inv, ...proj].filter((f) => existsSync(f));
}

describe("testdata/invalid", () => {
  const list = cases(join(root, "invalid"));
  it("has at least 40 cases", () => {
    expect(list.length).toBeGreaterThanOrEqual(40);
  });
  for (const path of list) {
    const name = relative(root, path);
    it(name, async () => {
      const got = await render(path);
      expectGolden(path.replace(/\.(hcl|ya?ml|json|bin|txt)$/, "") + ".out", got);
      // A case is a mistake: errors, or (warn_* cases) a warning on an otherwise valid file.
      expect(got).toMatch(name.includes("warn_") ? / warning / : / error /);
    });
  }
});

describe("testdata/projects (several modules)", () => {
  for (const dir of cases(join(root, "projects"))) {
    const name = relative(root, dir);
    it(name, async () => {
      const entry = ["main.hcl", "main.yaml", "main.json"].map((f) => join(dir, f)).find((f) => existsSync(f));
      expect(entry, `${name} has no main.hcl / main.yaml`).toBeDefined();
      const got = await render(entry!, dir);
      expectGolden(`${dir}.out`, got);
      expect(got).toMatch(name.includes("warn_") ? / warning / : / error /);
    });
  }
});

describe("testdata/ok", () => {
  for (const path of cases(join(root, "ok"))) {
    it(relative(root, path), async () => {
      const c = await compile(path);
      expect(c.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      expect(c.graph).toBeDefined();
    });
  }
});

describe("diagnostic codes", () => {
  it("every error of every case carries a hint (found by a new-user trial of CI use: 30 errors of this corpus said what is wrong but not what to write)", () => {
    const bare: string[] = [];
    for (const outFile of outFiles()) for (const line of readFileSync(outFile, "utf8").split("\n")) if (/^\S+ error \w+:/.test(line) && !line.includes(" (hint: ")) bare.push(`${relative(root, outFile)}: ${line}`);
    expect(bare).toEqual([]);
  });

  it("every code has an invalid fixture that produces it", async () => {
    const seen = new Set<string>();
    // `loc severity code: message`: the code is the third field.
    for (const outFile of outFiles()) for (const line of readFileSync(outFile, "utf8").split("\n")) seen.add(/^\S+ (?:error|warning) (\w+):/.exec(line)?.[1] ?? "");
    const missing = ALL_CODES.filter((c) => !seen.has(c) && c !== "internal_error" && c !== "file_unreadable" && c !== "file_too_large" && c !== "yaml_alias_limit");
    expect(missing).toEqual([]);
  });
});
