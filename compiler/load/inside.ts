import { realpathSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";

/**
 * True when `target` is `root` or lies below it (both absolute; compare real paths to
 * see through symlinks). The one test behind "paths may not leave the root" (docs/language.md, Files and
 * modules): workflow directories, `file()` at compile and at run time.
 */
export function isInside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return !rel.startsWith("..") && !isAbsolute(rel);
}

/**
 * A path with its links resolved when it exists, else only made absolute (against the
 * process's directory): what {@link isInside} compares, so a symlinked root or workflow
 * is judged where it really lies. Never throws.
 */
export function realPath(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}
