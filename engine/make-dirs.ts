import { mkdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";

/**
 * Creates directory `path` and the missing directories above it, like `mkdirSync(path,
 * { recursive: true })`, without its endless loop: Node's recursive mkdir spins for ever,
 * synchronously and deaf to SIGINT and SIGTERM, under a parent that exists but refuses a
 * new entry with ENOENT (`--state-dir /proc/x`; found by a new-user trial). Here the
 * nearest existing ancestor is found first, and each missing level made once.
 * @throws NodeJS.ErrnoException as `mkdirSync` throws it (ENOENT, EACCES, ENOTDIR, ...),
 *   for the level that could not be made.
 */
export function makeDirs(path: string): void {
  const missing: string[] = [];
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    let isDir: boolean | undefined;
    try {
      isDir = statSync(dir).isDirectory();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
    if (isDir === true) break;
    if (isDir === false) {
      const err = new Error(`ENOTDIR: not a directory, mkdir '${missing.at(-1) ?? dir}'`) as NodeJS.ErrnoException;
      err.code = "ENOTDIR";
      err.path = dir;
      throw err;
    }
    missing.push(dir);
    if (dirname(dir) === dir) break;
  }
  for (const dir of missing.reverse()) {
    try {
      mkdirSync(dir);
    } catch (e) {
      // Made meanwhile by another process: fine.
      if ((e as NodeJS.ErrnoException).code !== "EEXIST" || !statSync(dir).isDirectory()) throw e;
    }
  }
}
