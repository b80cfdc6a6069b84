import { isAbsolute, relative, resolve as resolvePath } from "node:path";
import { shellWord } from "../shell-word.js";

/**
 * The state directory when none is given: `$CRITERIA_STATE_DIR` (unless empty), else `.criteria` in the
 * current directory (absolute). Commands suggested in messages name `--state-dir` only
 * when the journal lies elsewhere.
 */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  // Empty is unset, as for CRITERIA_STORE (found by a new-user trial: `CRITERIA_STATE_DIR= criteria apply` journaled in the working directory).
  return resolvePath(env.CRITERIA_STATE_DIR || ".criteria");
}

/** ` --state-dir <dir>` for a suggested command (relative when under the current directory, quoted when needed), or "" for the default. */
export function placeFlag(stateDir: string, env: NodeJS.ProcessEnv = process.env): string {
  const dir = resolvePath(stateDir);
  if (dir === defaultStateDir(env)) return "";
  const rel = relative(process.cwd(), dir);
  const shown = rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : dir;
  return ` --state-dir ${shellWord(shown)}`;
}

/**
 * The `--store` option that names a database journal again in a suggested command, its URL
 * (already without its password) quoted for a POSIX shell when it holds more than plain
 * characters (found by a new-user trial: `?host=/tmp/pg&port=5433` pasted unquoted, the
 * shell ran the command in the background at the `&`).
 */
export function storeOption(location: string): string {
  return ` --store ${shellWord(location)}`;
}
