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

/** The real paths of those of `roots` that exist (an allowed directory that does not exist allows nothing). */
export function realRoots(roots: readonly string[]): string[] {
  return roots.flatMap((r) => {
    try {
      return [realpathSync(r)];
    } catch {
      return [];
    }
  });
}

/**
 * Where `path` (relative to `roots[0]`, the workflow's directory) lies when reads are confined
 * to `roots` (absolute), checked twice: the path as written must lie in a root (so nothing
 * else is even probed), and so must its real path in a root's real path. The one rule for
 * `file()` and its kin at compile time (compiler/resolve/check-expression.ts) and at run time
 * (engine/run/workflow-files.ts).
 * @param real the roots' real paths ({@link realRoots}; a caller that confines many paths computes them once)
 * @returns its real path; `missing` when nothing is there; `outside` (`written` or, through a link, `linked`)
 * @throws the file system's error other than ENOENT and ENOTDIR
 */
export function confine(roots: readonly string[], path: string, real: () => readonly string[] = () => realRoots(roots)): { real: string } | { missing: true } | { outside: "written" | "linked" } {
  const abs = resolve(roots[0], path);
  if (!roots.some((r) => isInside(r, abs))) return { outside: "written" };
  let target: string;
  try {
    target = realpathSync(abs);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { missing: true };
    throw err;
  }
  return real().some((r) => isInside(r, target)) ? { real: target } : { outside: "linked" };
}
