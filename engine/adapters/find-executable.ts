import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";

/**
 * Finds an executable the way a shell would, without running anything: the first
 * `<dir>/<name>` that is a regular file with the execute bit, in `dirs` order.
 * @returns its absolute-or-relative path as joined, or undefined when none matches
 */
export function findExecutable(name: string, dirs: string[]): string | undefined {
  for (const dir of dirs) {
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/** True when `path` is a regular file (symlinks followed) we may execute. */
export function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The directories of a PATH-like string (`a:b:c`), empty entries dropped. */
export function splitPath(value: string | undefined): string[] {
  return (value ?? "").split(delimiter).filter((d) => d !== "");
}
