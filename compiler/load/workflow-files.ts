import { readdirSync, realpathSync, statSync } from "node:fs";
import { extname, isAbsolute, join, relative } from "node:path";
import { isInside } from "./inside.js";
import { LOOP_HINT, unreadableHint } from "./read-source.js";

/** Extensions of workflow files, and the dialect each is parsed as. */
export const WORKFLOW_EXTENSIONS: Record<string, "hcl" | "yaml"> = { ".hcl": "hcl", ".chcl": "hcl", ".yaml": "yaml", ".yml": "yaml", ".json": "yaml" };

/** A file of a directory that is not read, and why. */
export interface Skipped {
  path: string;
  code: "path_outside_root" | "file_unreadable";
  message: string;
  /** What to do about it. */
  hint: string;
}

/** What one PATH argument stands for. */
export type WorkflowFiles =
  | { kind: "file" | "dir"; files: string[]; skipped: Skipped[] }
  | { kind: "missing" | "empty-dir" | "unreadable" | "loop"; reason?: string; errno?: string };

/**
 * The files one PATH argument stands for (docs/architecture.md, The compiler: Load): a file is
 * itself; a directory is every `*.hcl`, `*.chcl`, `*.yaml`, `*.yml`, `*.json` directly in it, in
 * name order, merged into one workflow. Subdirectories are not read (they hold
 * subworkflow sources and adapter scripts). Within a directory, files are memoised by
 * real path (a symlink to a sibling is read once) and a symlink that leaves the
 * directory is skipped (`path_outside_root`): "paths may not leave the root, symlinks
 * included".
 */
export function workflowFiles(absPath: string): WorkflowFiles {
  let st;
  try {
    st = statSync(absPath);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ELOOP") return { kind: "loop" };
    if (code === "EACCES") return { kind: "unreadable", reason: "permission denied", errno: code };
    return { kind: "missing" };
  }
  if (!st.isDirectory()) return { kind: "file", files: [absPath], skipped: [] };
  let names: string[];
  let root: string;
  try {
    names = readdirSync(absPath);
    root = realpathSync(absPath);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { kind: "unreadable", reason: code === "EACCES" ? "permission denied" : (e as Error).message, errno: code };
  }
  const files: string[] = [];
  const skipped: Skipped[] = [];
  const seen = new Set<string>();
  for (const n of names.sort()) {
    if (n.startsWith(".") || WORKFLOW_EXTENSIONS[extname(n).toLowerCase()] === undefined) continue;
    const p = join(absPath, n);
    let real: string;
    try {
      if (!statSync(p).isFile()) continue;
      real = realpathSync(p);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      skipped.push({ path: p, code: "file_unreadable", message: code === "ELOOP" ? "is a symlink loop" : code === "ENOENT" ? "is a broken symlink" : `cannot be read (${code})`, hint: code === "ELOOP" ? LOOP_HINT : unreadableHint(code) });
      continue;
    }
    if (!isInside(root, real)) {
      skipped.push({ path: p, code: "path_outside_root", message: `is a symlink to ${real}, outside ${absPath}; it is not read`, hint: "workflow files may not leave their directory; copy the file in instead" });
      continue;
    }
    if (seen.has(real)) continue;
    seen.add(real);
    files.push(p);
  }
  if (files.length === 0 && skipped.length === 0) return { kind: "empty-dir" };
  return { kind: "dir", files, skipped };
}

/** The path shown to users: relative to `cwd` when inside it (`cwd` itself is "."), else absolute. */
export function displayPath(abs: string, cwd: string): string {
  const rel = relative(cwd, abs);
  // The working directory itself is "." (found by a new-user trial: `source = "."` closed a cycle "/tmp/x -> /tmp/x").
  if (rel === "") return ".";
  return !rel.startsWith("..") && !isAbsolute(rel) ? rel : abs;
}
