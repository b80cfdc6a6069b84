import { delimiter } from "node:path";
import { Option } from "commander";
import type { CompileOptions } from "../compiler/index.js";
import type { Io } from "./io.js";

/** `--root DIR`: the directory every module must lie in (docs/language.md, Composition). */
export function rootOption(): Option {
  return new Option("--root <dir>", "directory no workflow_file, subworkflow source or use may leave (default: the PATH's own directory)");
}

/**
 * What `compile()` is told by the command line: `--root`, and extra allowed roots from
 * the Go tool's `CRITERIA_WORKFLOW_ALLOWED_PATHS` (`:`-separated, as its users set it).
 */
export function compileOptions(opts: { root?: string }, io: Io): CompileOptions {
  const allowed = (io.env.CRITERIA_WORKFLOW_ALLOWED_PATHS ?? "").split(delimiter).filter((p) => p !== "");
  return { ...(opts.root !== undefined ? { root: opts.root } : {}), ...(allowed.length > 0 ? { allowedRoots: allowed } : {}) };
}
