/**
 * File-system hooks for the file functions (`file`, `fileexists`, `fileset`,
 * `templatefile`) as the engine gives them: confined to the workflow's directory and to
 * the directories of `CRITERIA_WORKFLOW_ALLOWED_PATHS`.
 *
 * Source: the Go tool's docs (LANGUAGE-SPEC.md "Function notes"; workflow.md "Expression
 * functions" and its environment-variable table): paths resolve relative to the workflow
 * directory; a path that leaves it is refused unless it lies in one of the directories
 * listed in `CRITERIA_WORKFLOW_ALLOWED_PATHS` (`:`-separated on POSIX, `;` on Windows:
 * node's `path.delimiter`; relative entries resolve against the current directory);
 * `file()`/`templatefile()` read at most `CRITERIA_FILE_FUNC_MAX_BYTES` bytes of UTF-8.
 *
 * Confinement is checked twice, by `confine` (compiler/load/inside.ts, which validate's
 * `file()` check uses too): the path as written must lie in one of the roots (so nothing else
 * is even probed), and so must its real path (symlinks resolved) lie in one of the roots'
 * real paths. An allowed directory that does not exist allows nothing. Otherwise:
 * `readFile` refuses non-regular files, files over the cap, and text that is not UTF-8;
 * `fileExists` is false for missing paths and directories; `fileSet` lists regular files
 * (symlinks skipped) whose paths relative to the directory match the pattern, returning
 * sorted `/`-separated paths relative to the workflow directory (`../shared/x.md` for a
 * file of an allowed directory beside it), which `file()` accepts back.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { delimiter, relative, resolve, sep } from "node:path";
import { confine, realRoots } from "../../compiler/load/inside.js";
import { compareCodePoints } from "../../compiler/expr/functions/args.js";
import { globToRegExp } from "../../compiler/expr/functions/files.js";
import type { FunctionOptions } from "../../compiler/expr/functions.js";

/** `file()`'s default size cap, and the bounds `CRITERIA_FILE_FUNC_MAX_BYTES` is clamped to. */
export const FILE_MAX_BYTES = { default: 1024 * 1024, min: 1024, max: 64 * 1024 * 1024 };
/** The most directory entries one `fileset` call looks at. */
export const FILESET_ENTRY_LIMIT = 100_000;

/** The size cap set by a `CRITERIA_FILE_FUNC_MAX_BYTES` value: a whole number of bytes, clamped; default when unset or malformed. */
export function fileMaxBytes(setting: string | undefined): number {
  const text = setting?.trim() ?? "";
  if (!/^\d+$/.test(text)) return FILE_MAX_BYTES.default;
  return Math.min(FILE_MAX_BYTES.max, Math.max(FILE_MAX_BYTES.min, Number(text)));
}

/** The environment variable naming extra directories the file functions may read. */
export const ALLOWED_PATHS_VAR = "CRITERIA_WORKFLOW_ALLOWED_PATHS";
/** The environment variable capping `file()`'s size. */
export const MAX_BYTES_VAR = "CRITERIA_FILE_FUNC_MAX_BYTES";

export interface WorkflowFileOptions {
  /** Directories outside the workflow's that paths may reach (relative ones resolve against the current directory). */
  allowedRoots?: readonly string[];
  /** The most bytes `readFile` returns (default 1 MiB). */
  maxBytes?: number;
}

/** The directories of a `CRITERIA_WORKFLOW_ALLOWED_PATHS` value (empty entries ignored). */
export function allowedPaths(setting: string | undefined): string[] {
  return (setting ?? "").split(delimiter).filter((p) => p.trim() !== "");
}

/** The options the engine's environment sets: the allowed directories and the size cap. */
export function fileOptionsFromEnv(env: Record<string, string | undefined>): WorkflowFileOptions {
  return { allowedRoots: allowedPaths(env[ALLOWED_PATHS_VAR]), maxBytes: fileMaxBytes(env[MAX_BYTES_VAR]) };
}

function code(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** `readFile`, `fileExists` and `fileSet` for paths under `root` or one of `opts.allowedRoots`. */
export function workflowFileHooks(root: string, opts: WorkflowFileOptions = {}): Required<Pick<FunctionOptions, "readFile" | "fileExists" | "fileSet">> {
  const maxBytes = opts.maxBytes ?? FILE_MAX_BYTES.default;
  const absRoot = resolve(root);
  const extra = (opts.allowedRoots ?? []).map((r) => resolve(r));
  const roots = [absRoot, ...extra];
  let real: string[] | undefined;
  const outside = (p: string) =>
    new Error(`path "${p}" is outside the workflow directory${extra.length > 0 ? ` and the directories of ${ALLOWED_PATHS_VAR}` : ` (allow more directories with ${ALLOWED_PATHS_VAR})`}`);

  /** The real path of `p`, or `undefined` when nothing is there; throws when `p` leaves every root (the roots' real paths computed once, on first use). */
  const locate = (p: string): string | undefined => {
    const where = confine(roots, p, () => (real ??= realRoots(roots)));
    if ("outside" in where) throw outside(p);
    return "missing" in where ? undefined : where.real;
  };

  return {
    readFile(p) {
      const real = locate(p);
      if (real === undefined) throw new Error(`no file "${p}" in the workflow directory${extra.length > 0 ? " or the allowed directories" : ""}`);
      const st = statSync(real);
      if (!st.isFile()) throw new Error(`"${p}" is not a regular file`);
      const tooBig = () => new Error(`"${p}" is larger than ${maxBytes} bytes (the limit set by ${MAX_BYTES_VAR}, default 1 MiB)`);
      if (st.size > maxBytes) throw tooBig();
      const bytes = readFileSync(real);
      if (bytes.length > maxBytes) throw tooBig();
      try {
        return utf8.decode(bytes);
      } catch {
        throw new Error(`"${p}" is not valid UTF-8 text`);
      }
    },
    fileExists(p) {
      const real = locate(p);
      if (real === undefined) return false;
      try {
        return statSync(real).isFile();
      } catch (err) {
        if (code(err) === "ENOENT" || code(err) === "ENOTDIR") return false;
        throw err;
      }
    },
    fileSet(dir, pattern) {
      const real = locate(dir);
      if (real === undefined) throw new Error(`directory "${dir}" does not exist`);
      if (!statSync(real).isDirectory()) throw new Error(`"${dir}" is not a directory`);
      const re = globToRegExp(pattern);
      const maxDepth = pattern.includes("**") ? Infinity : pattern.split("/").length;
      const base = resolve(absRoot, dir);
      const out: string[] = [];
      let seen = 0;
      const stack: [string, string, number][] = [[real, "", 1]];
      while (stack.length > 0) {
        const [abs, rel, depth] = stack.pop()!;
        for (const e of readdirSync(abs, { withFileTypes: true })) {
          if (++seen > FILESET_ENTRY_LIMIT) throw new Error(`fileset("${dir}", "${pattern}") would look at more than ${FILESET_ENTRY_LIMIT} entries`);
          const r = rel === "" ? e.name : `${rel}/${e.name}`;
          if (e.isFile() && re.test(r)) out.push(relative(absRoot, resolve(base, r)).split(sep).join("/"));
          else if (e.isDirectory() && depth < maxDepth) stack.push([resolve(abs, e.name), r, depth + 1]);
        }
      }
      return out.sort(compareCodePoints);
    },
  };
}
