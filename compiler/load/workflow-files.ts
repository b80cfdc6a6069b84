import { readdirSync, statSync } from "node:fs";
import { extname, join, relative, isAbsolute } from "node:path";

/** Extensions of workflow files, and the dialect each is parsed as. */
export const WORKFLOW_EXTENSIONS: Record<string, "hcl" | "yaml"> = { ".hcl": "hcl", ".yaml": "yaml", ".yml": "yaml", ".json": "yaml" };

/**
 * The files one PATH argument stands for (DESIGN.md, Pipeline step 1): a file is
 * itself; a directory is every `*.hcl`, `*.yaml`, `*.yml`, `*.json` directly in it,
 * in name order, merged into one workflow. Subdirectories are not read (they hold
 * subworkflow sources).
 *
 * @returns absolute paths, or `kind: "missing"` / `kind: "empty-dir"`
 */
export type WorkflowFiles = { kind: "file" | "dir"; files: string[] } | { kind: "missing" | "empty-dir" };

export function workflowFiles(absPath: string): WorkflowFiles {
  let st;
  try {
    st = statSync(absPath);
  } catch {
    return { kind: "missing" };
  }
  if (!st.isDirectory()) return { kind: "file", files: [absPath] };
  const names = readdirSync(absPath)
    .filter((n) => WORKFLOW_EXTENSIONS[extname(n).toLowerCase()] !== undefined && !n.startsWith("."))
    .filter((n) => {
      try {
        return statSync(join(absPath, n)).isFile();
      } catch {
        return false;
      }
    })
    .sort();
  if (names.length === 0) return { kind: "empty-dir" };
  return { kind: "dir", files: names.map((n) => join(absPath, n)) };
}

/** The path shown to users: relative to `cwd` when inside it, else absolute. */
export function displayPath(abs: string, cwd: string): string {
  const rel = relative(cwd, abs);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : abs;
}
