import { readFileSync } from "node:fs";
import { dirname, extname } from "node:path";
import { workflowFiles } from "../../compiler/load/workflow-files.js";

/** A `workflow` header block at the start of a line (HCL: `workflow {` or `workflow "name" {`). */
const HEADER = /^workflow(?:\s+"[^"\n]*")?\s*\{/m;

/**
 * The path an open workflow file is compiled as, so that an editor showing one file of a
 * split module shows the module's diagnostics, not the file's alone (a step declared in a
 * sibling file is not "unknown" there): the file's directory when it is a split module —
 * two or more `.hcl`/`.chcl` files, exactly one holding the `workflow` header and at least
 * one holding none (the Go tool's reference, v0.5.7 docs/workflow.md, Directory mode: a
 * file path of a split module stands for its directory); the file itself otherwise (a
 * whole workflow beside others, bodies among bodies, YAML and JSON). `criteria validate
 * FILE` still reads the file alone (docs/language.md, Files and modules).
 * @param file an absolute path
 * @param textOf a file's text (an open document's unsaved one), or undefined to read it from disk
 * @returns an absolute path: `file` or its directory
 */
export function moduleOf(file: string, textOf: (path: string) => string | undefined): string {
  if (!isHcl(file)) return file;
  const dir = dirname(file);
  const found = workflowFiles(dir);
  if (found.kind !== "dir") return file;
  const hcl = found.files.filter(isHcl);
  if (hcl.length < 2 || !hcl.includes(file)) return file;
  let headers = 0;
  for (const f of hcl) {
    const text = textOf(f) ?? readText(f);
    if (text !== undefined && HEADER.test(text)) headers++;
  }
  return headers === 1 && headers < hcl.length ? dir : file;
}

function isHcl(path: string): boolean {
  const ext = extname(path).toLowerCase();
  return ext === ".hcl" || ext === ".chcl";
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
