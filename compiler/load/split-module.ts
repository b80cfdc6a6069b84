import { readFileSync, statSync } from "node:fs";
import { basename, dirname, extname, resolve } from "node:path";
import { MAX_FILE_BYTES } from "./read-source.js";
import { workflowFiles } from "./workflow-files.js";

/**
 * A `workflow` header block at the start of a line (HCL: `workflow {` or `workflow "name" {`),
 * block comments around its label allowed (a comment between `workflow` and its label: found by
 * a new-user trial, where such a file beside another whole workflow was taken for a file of a
 * split module).
 */
const HEADER = /^workflow(?:\s|\/\*[^]*?\*\/)*(?:"[^"\n]*"(?:\s|\/\*[^]*?\*\/)*)?\{/m;

/** A top-level block of a workflow's content at the start of a line (`step "x" {`, `locals {`...). */
const CONTENT = /^(?:step|state|adapter|agent|variable|locals?|output|wait|approval|branch|switch|subworkflow|channel|policy|permissions|environment|shared_variable|data)\s*(?:"[^"\n]*"\s*)*\{/m;

/**
 * The directory a workflow file stands for when it is one file of a split module (the Go
 * tool's reference, v0.5.7 docs/workflow.md, Directory mode: a file path of a split module
 * is equivalent to its directory, so `criteria apply wf/workflow.hcl` runs the module):
 * the file's directory holds two or more `.hcl`/`.chcl` files, exactly one of them holds
 * the `workflow` header and at least one holds none and declares something (a step, a
 * state, an adapter...). Undefined otherwise: a whole workflow beside others (two headers
 * or more), bodies among bodies (none), a workflow beside a file of comments, YAML and JSON
 * files, directories. Files are read until a second header is found, the given file
 * first; a file over the size limit, or unreadable, makes the answer undefined.
 * @param file an absolute path
 * @param textOf a file's text when it is not the one on disk (an editor's unsaved text), else undefined
 * @returns the directory's absolute path, or undefined
 */
export function splitModuleOf(file: string, textOf: (path: string) => string | undefined = () => undefined): string | undefined {
  return readSplit(file, textOf)?.dir;
}

/** {@link splitModuleOf}'s answer with the directory's `.hcl`/`.chcl` files and their texts (every one read when it is a split module). */
function readSplit(file: string, textOf: (path: string) => string | undefined): { dir: string; texts: Map<string, string> } | undefined {
  if (!isHcl(file)) return undefined;
  const dir = dirname(file);
  const found = workflowFiles(dir);
  if (found.kind !== "dir") return undefined;
  const hcl = found.files.filter(isHcl);
  if (hcl.length < 2 || !hcl.includes(file)) return undefined;
  let headers = 0;
  let content = false;
  const texts = new Map<string, string>();
  for (const f of [file, ...hcl.filter((f) => f !== file)]) {
    const text = textOf(f) ?? readText(f);
    if (text === undefined) return undefined;
    texts.set(f, text);
    if (HEADER.test(text)) {
      if (++headers > 1) return undefined;
    } else if (CONTENT.test(text)) content = true;
  }
  return headers === 1 && content ? { dir, texts } : undefined;
}

function isHcl(path: string): boolean {
  const ext = extname(path).toLowerCase();
  return ext === ".hcl" || ext === ".chcl";
}

function readText(path: string): string | undefined {
  try {
    if (statSync(path).size > MAX_FILE_BYTES) return undefined;
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * The split module a file named as a module (`subworkflow { source }`, `use`) is one file of,
 * with its other `.hcl`/`.chcl` files: {@link splitModuleOf}, except when a file of the
 * directory names another of them as a `workflow_file` (a workflow with its bodies beside
 * it, which is read alone, as `validate` does on `module_overlap`; paths resolved, so
 * `"./sub/../body.hcl"` counts and a file name in a comment does not: found by a trial of
 * this check). Such a file alone misses what its siblings declare (docs/language.md,
 * Files and modules), so the loader refuses it and names the directory.
 * @param file an absolute path
 * @param textOf a file's text when it is not the one on disk, else undefined
 * @returns the directory's absolute path and the other files' names, or undefined
 */
export function splitFileOf(file: string, textOf: (path: string) => string | undefined = () => undefined): { dir: string; siblings: string[] } | undefined {
  const split = readSplit(file, textOf);
  if (split === undefined) return undefined;
  const inDir = new Set([...split.texts.keys()].map((f) => resolve(f)));
  for (const text of split.texts.values()) {
    for (const m of text.matchAll(BODY_FILE)) if (inDir.has(resolve(split.dir, m[1]))) return undefined;
  }
  return { dir: split.dir, siblings: [...split.texts.keys()].filter((f) => f !== file).map((f) => basename(f)) };
}

/** `workflow_file = "path"` at the start of a line (after indentation), not in a comment. */
const BODY_FILE = /^[ \t]*workflow_file\s*=\s*"([^"\n]+)"/gm;
