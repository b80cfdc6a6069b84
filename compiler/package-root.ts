import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let root: string | undefined;

/**
 * The directory holding criteria's own package.json, found by walking up from this
 * module: the same answer from `dist/` (built) and from the sources (tests).
 * Throws only if the installation is broken (no package.json above us).
 */
export function packageRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "schema"))) return (root = dir);
    const up = dirname(dir);
    if (up === dir) throw new Error("criteria: cannot find the package root (package.json and schema/)");
    dir = up;
  }
}
