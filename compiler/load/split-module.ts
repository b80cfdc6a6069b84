import { readFileSync, statSync } from "node:fs";
import { basename, dirname, extname, resolve } from "node:path";
import { MAX_FILE_BYTES } from "./read-source.js";
import { WORKFLOW_EXTENSIONS, workflowFiles } from "./workflow-files.js";

/** A `workflow` header block at the start of a line (HCL: `workflow {` or `workflow "name" {`). */
const HEADER = /^workflow(?:\s+"[^"\n]*")?\s*\{/m;

/** A top-level block of a workflow's content at the start of a line (`step "x" {`, `locals {`...). */
const CONTENT = /^(?:step|state|adapter|agent|variable|locals?|output|wait|approval|branch|switch|subworkflow|channel|policy|permissions|environment|shared_variable|data)\s*(?:"[^"\n]*"\s*)*\{/m;

/** YAML's top-level `workflow:` key at the start of a line (quoted or not). */
const YAML_HEADER = /^["']?workflow["']?[ \t]*:/m;

/** A YAML top-level key of a workflow's content (docs/language.md, the dialect sections). */
const YAML_CONTENT = /^["']?(?:steps|states|adapters|agents|variables|locals|outputs|waits|approvals|branches|subworkflows|channels|policy|permissions|environments|shared_variables|data)["']?[ \t]*:/m;

/**
 * The directory a workflow file stands for when it is one file of a split module (the Go
 * tool's reference, v0.5.7 docs/workflow.md, Directory mode: a file path of a split module
 * is equivalent to its directory, so `criteria apply wf/workflow.hcl` runs the module):
 * the file's directory holds two or more workflow files (HCL, YAML, JSON: a directory
 * module merges them all), exactly one of them holds the `workflow` header and at least
 * one holds none and declares something (a step, a state, an adapter...). Undefined
 * otherwise: a whole workflow beside others (two headers or more), bodies among bodies
 * (none), a workflow beside a file of comments or a vars file, directories. Files are
 * read until a second header is found, the given file first; a file over the size limit,
 * unreadable, or a JSON file that does not parse, makes the answer undefined. (YAML and
 * JSON files were left out: validating the header file of a YAML split module said its
 * steps were unknown, found by a new-user trial.)
 * @param file an absolute path
 * @param textOf a file's text when it is not the one on disk (an editor's unsaved text), else undefined
 * @returns the directory's absolute path, or undefined
 */
export function splitModuleOf(file: string, textOf: (path: string) => string | undefined = () => undefined): string | undefined {
  return readSplit(file, textOf)?.dir;
}

/** {@link splitModuleOf}'s answer with the directory's `.hcl`/`.chcl` files and their texts (every one read when it is a split module). */
function readSplit(file: string, textOf: (path: string) => string | undefined): { dir: string; texts: Map<string, string> } | undefined {
  if (WORKFLOW_EXTENSIONS[extname(file).toLowerCase()] === undefined) return undefined;
  const dir = dirname(file);
  const found = workflowFiles(dir);
  if (found.kind !== "dir") return undefined;
  const files = found.files;
  if (files.length < 2 || !files.includes(file)) return undefined;
  let headers = 0;
  let content = false;
  const texts = new Map<string, string>();
  for (const f of [file, ...files.filter((f) => f !== file)]) {
    const text = textOf(f) ?? readText(f);
    if (text === undefined) return undefined;
    texts.set(f, text);
    const part = partOf(f, text);
    if (part === undefined) return undefined;
    if (part === "header") {
      if (++headers > 1) return undefined;
    } else if (part === "content") content = true;
  }
  return headers === 1 && content ? { dir, texts } : undefined;
}

/**
 * What a workflow file is to a directory module: its `header` (it holds the `workflow`
 * header), `content` (no header, but a step, a state, an adapter...), or `none`;
 * undefined for a JSON file that does not parse.
 */
function partOf(path: string, text: string): "header" | "content" | "none" | undefined {
  const ext = extname(path).toLowerCase();
  if (ext === ".hcl" || ext === ".chcl") return HEADER.test(text) ? "header" : CONTENT.test(text) ? "content" : "none";
  if (ext !== ".json") return YAML_HEADER.test(text) ? "header" : YAML_CONTENT.test(text) ? "content" : "none";
  let doc: unknown;
  try {
    doc = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    return undefined;
  }
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) return "none";
  const keys = Object.keys(doc);
  return keys.includes("workflow") ? "header" : keys.some((k) => YAML_CONTENT.test(`${k}:`)) ? "content" : "none";
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
    for (const m of text.matchAll(BODY_FILE)) if (inDir.has(resolve(split.dir, m[1] ?? m[2] ?? m[3]))) return undefined;
  }
  return { dir: split.dir, siblings: [...split.texts.keys()].filter((f) => f !== file).map((f) => basename(f)) };
}

/**
 * `workflow_file = "path"` (HCL), `workflow_file: path` (YAML, quoted or not) or
 * `"workflow_file": "path"` (JSON) at the start of a line (after indentation), not in a comment.
 */
const BODY_FILE = /^[ \t]*["']?workflow_file["']?[ \t]*[=:][ \t]*(?:"([^"\n]+)"|'([^'\n]+)'|([^\s"'#,{}[\]]+))/gm;
