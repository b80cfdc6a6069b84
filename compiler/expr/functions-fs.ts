/**
 * File-system hooks for the file functions, confined to one directory (DESIGN.md: "`file`
 * confined to the root"); the engine passes them to `makeFunctions`.
 *
 * Confinement: a path is resolved against the root and refused when it leaves it, first
 * as written (so nothing outside is even probed) and then with symlinks resolved.
 * `readFile` refuses what is not a regular file, files over `maxBytes`, and content that
 * is not UTF-8 (the Go tool's `file()` rules). `fileExists` is false for missing paths and
 * directories. `fileSet` lists regular files (symlinks are skipped, as in the Go tool)
 * under an existing directory whose paths relative to it match the pattern, descending no
 * deeper than the pattern can reach; it returns paths relative to the root, sorted, with
 * `/` separators. A missing directory is an error (the Go tool's choice; Terraform
 * returns an empty list).
 */
import { readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { relative, resolve, sep } from "node:path";
import { isInside } from "../load/inside.js";
import { compareCodePoints } from "./functions-args.js";
import { globToRegExp } from "./functions-files.js";
import type { FunctionOptions } from "./functions.js";

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

function code(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** `readFile`, `fileExists` and `fileSet` for paths under `root`. */
export function confinedFileHooks(root: string, opts: { maxBytes?: number } = {}): Required<Pick<FunctionOptions, "readFile" | "fileExists" | "fileSet">> {
  const maxBytes = opts.maxBytes ?? FILE_MAX_BYTES.default;
  const absRoot = resolve(root);
  let realRoot: string | undefined;
  const outside = (p: string) => new Error(`path "${p}" is outside the workflow directory`);

  /** The real path of `p`, or `undefined` when nothing is there; throws when `p` leaves the root. */
  const locate = (p: string): string | undefined => {
    const abs = resolve(absRoot, p);
    if (!isInside(absRoot, abs)) throw outside(p);
    let real: string;
    try {
      real = realpathSync(abs);
    } catch (err) {
      if (code(err) === "ENOENT" || code(err) === "ENOTDIR") return undefined;
      throw err;
    }
    realRoot ??= realpathSync(absRoot);
    if (!isInside(realRoot, real)) throw outside(p);
    return real;
  };

  return {
    readFile(p) {
      const real = locate(p);
      if (real === undefined) throw new Error(`no file "${p}" in the workflow directory`);
      const st = statSync(real);
      if (!st.isFile()) throw new Error(`"${p}" is not a regular file`);
      const tooBig = () => new Error(`"${p}" is larger than ${maxBytes} bytes (the limit set by CRITERIA_FILE_FUNC_MAX_BYTES, default 1 MiB)`);
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
