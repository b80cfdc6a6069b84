import { statSync } from "node:fs";
import { delimiter } from "node:path";
import { isInside, realPath } from "../compiler/load/inside.js";
import { Option } from "commander";
import type { CompileOptions } from "../compiler/index.js";
import { CliError, EXIT, type Io } from "./io.js";

/** `--root DIR`: the directory every module must lie in (docs/language.md, Composition). */
export function rootOption(): Option {
  return new Option("--root <dir>", "directory no workflow_file, subworkflow source or use may leave (default: the PATH's own directory)");
}

/**
 * What `compile()` is told by the command line: `--root`, and extra allowed roots from
 * the Go tool's `CRITERIA_WORKFLOW_ALLOWED_PATHS` (`:`-separated, as its users set it).
 * Throws a usage error (exit 2) when `--root` names no directory, or one that does not hold
 * every PATH given (found by a new-user trial: a `workflow_file` beside the entry was then
 * refused as outside the root and its file read as part of the entry's split module).
 * @param paths the command's workflow paths (`-`, standard input, is not checked)
 */
export function compileOptions(opts: { root?: string }, io: Io, paths: string[]): CompileOptions {
  if (opts.root !== undefined) {
    // A root that is not a directory would bound nothing and be named in every hint (found by a new-user trial).
    let dir: boolean;
    try {
      dir = statSync(opts.root).isDirectory();
    } catch {
      throw new CliError(`--root ${opts.root}: no such directory`, EXIT.usage);
    }
    if (!dir) throw new CliError(`--root ${opts.root} is not a directory: give the directory no module may leave`, EXIT.usage);
    const root = realPath(opts.root);
    for (const p of paths) {
      if (p !== "-" && !isInside(root, realPath(p))) throw new CliError(`--root ${opts.root} does not hold ${p}: the root is the directory no module may leave, so it holds the workflow too (give the workflow's directory or one above it)`, EXIT.usage);
    }
  }
  const allowed = (io.env.CRITERIA_WORKFLOW_ALLOWED_PATHS ?? "").split(delimiter).filter((p) => p !== "");
  return { ...(opts.root !== undefined ? { root: opts.root } : {}), ...(allowed.length > 0 ? { allowedRoots: allowed } : {}) };
}

/**
 * A command's workflow PATH, refused when empty (a usage error, exit 2): `""` resolves to
 * the current directory, so `validate ''` printed ": ok" and `apply ''` ran the workflow
 * in the working directory (found by a new-user trial). Commander's parser for a `<path>`
 * argument; a `<paths...>` command calls it on each.
 * @throws CliError (usage) for an empty path
 */
export function pathArgument(value: string): string {
  if (value === "") throw new CliError(`the path is empty (""); give a workflow file or directory (. for the current directory)`, EXIT.usage);
  return value;
}
