import { isAbsolute, relative } from "node:path";

/**
 * True when `target` is `root` or lies below it (both absolute; compare real paths to
 * see through symlinks). The one test behind "paths may not leave the root" (docs/language.md, Files and
 * modules): workflow directories, `file()` at compile and at run time.
 */
export function isInside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return !rel.startsWith("..") && !isAbsolute(rel);
}
