import { relative, resolve } from "node:path";
import type { SourceFile } from "../diagnostics/source-file.js";
import { nodeCrypto } from "../node-crypto.js";

/**
 * sha256 over every file a compilation read (path relative to `baseDir`, then text, in
 * path order): what a run was started from, so `resume` can say when the workflow changed
 * since. Independent of the working directory the files were shown from.
 *
 * @param sources shown path → file, as `Compilation.sources`
 * @param cwd what shown paths are relative to
 */
export function sourceHash(sources: ReadonlyMap<string, SourceFile>, cwd: string, baseDir: string): string {
  const h = nodeCrypto().createHash("sha256");
  const files = [...sources.entries()].map(([shown, f]) => [relative(baseDir, resolve(cwd, shown)), f.text] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [path, text] of files) h.update(`${path}\u0000${text.length}\u0000${text}\u0000`);
  return h.digest("hex");
}
