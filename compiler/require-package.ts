import { createRequire } from "node:module";
import { packageRoot } from "./package-root.js";

/**
 * A package criteria loads when a command first needs it (the SQLite driver, `pg`, Graphviz)
 * is not installed: the checkout's node_modules is incomplete. An installation problem, not a
 * journal's or a bug's: the CLI says it in one line, with the fix (found by a new-user trial:
 * "cannot open the journal …: Cannot find module 'better-sqlite3'", or an internal error with
 * a stack trace).
 */
export class MissingPackage extends Error {
  /**
   * @param packageName the module that could not be found (the package asked for, or one it needs)
   * @param needs what it is for (`the SQLite journal`)
   */
  constructor(
    readonly packageName: string,
    readonly needs: string,
  ) {
    super(`cannot load ${needs}: the package '${packageName}' is missing from node_modules; run npm ci in the criteria checkout${checkout()}`);
  }
}

/** ` (DIR)`: the checkout, when it can be told (an installation this broken may not say). */
function checkout(): string {
  try {
    return ` (${packageRoot()})`;
  } catch {
    return "";
  }
}

/**
 * `require(name)` as from the module at `from` (its `import.meta.url`).
 * @param needs what the package is for, said when it is missing
 * @throws MissingPackage when `name`, or a package it needs, is not installed; any other load error as it is
 */
export function requirePackage<T>(name: string, from: string, needs: string): T {
  try {
    return createRequire(from)(name) as T;
  } catch (e) {
    const missing = (e as NodeJS.ErrnoException)?.code === "MODULE_NOT_FOUND" ? /Cannot find module '([^']+)'/.exec(String((e as Error).message))?.[1] : undefined;
    if (missing !== undefined && !missing.startsWith(".") && !missing.startsWith("/")) throw new MissingPackage(missing, needs);
    throw e;
  }
}
