import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const REPO = join(import.meta.dirname, "..", "..");

/** Every `.hcl` and `.chcl` file under `dir`, in name order (none when `dir` is missing; node_modules and dist skipped). */
export function hclFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .flatMap((n) => {
      const p = join(dir, n);
      if (statSync(p).isDirectory()) return n === "node_modules" || n === "dist" ? [] : hclFiles(p);
      return /\.c?hcl$/.test(n) ? [p] : [];
    });
}

/** The HCL corpus of the parser's tests: every file of examples/, testdata/ and ../shared/criteria (when present). */
export function corpusHclFiles(): string[] {
  return [...hclFiles(join(REPO, "examples")), ...hclFiles(join(REPO, "testdata")), ...hclFiles(join(REPO, "..", "shared", "criteria"))];
}
