import { resolve as resolvePath } from "node:path";
import { buildGraph } from "./build/build-graph.js";
import type { Graph } from "./build/graph.js";
import { runChecks } from "./check/index.js";
import { checkSchema } from "./decode/check-schema.js";
import { decodeWorkflow } from "./decode/decode-workflow.js";
import { lowerHcl } from "./decode/lower-hcl.js";
import { mergeDocuments } from "./decode/merge-documents.js";
import type { WorkflowSpec } from "./decode/spec.js";
import { diag, hasErrors, type Diagnostic } from "./diagnostics/diagnostic.js";
import { sortDiagnostics } from "./diagnostics/sort.js";
import { SourceFile } from "./diagnostics/source-file.js";
import { readSource } from "./load/read-source.js";
import { WORKFLOW_EXTENSIONS, displayPath, workflowFiles } from "./load/workflow-files.js";
import type { JsonObject } from "./parse/document.js";
import { parseHcl } from "./parse/parse-hcl.js";
import { parseJson, parseYaml } from "./parse/parse-yaml.js";
import type { SourceMap } from "./parse/source-map.js";
import { resolveWorkflow } from "./resolve/resolve-workflow.js";
import { extname } from "node:path";

export type { Graph } from "./build/graph.js";
export type { Diagnostic } from "./diagnostics/diagnostic.js";

/** Options for {@link compile}. */
export interface CompileOptions {
  /** Directory paths are shown relative to (default: `process.cwd()`). */
  cwd?: string;
}

/**
 * The result of compiling one PATH: the graph (only when there are no errors), the
 * decoded spec (partial on errors), sorted diagnostics, and the loaded sources for
 * rendering excerpts.
 */
export interface Compilation {
  /** The PATH as given. */
  path: string;
  /** Files read, as shown in diagnostics. */
  files: string[];
  spec?: WorkflowSpec;
  graph?: Graph;
  diagnostics: Diagnostic[];
  sources: Map<string, SourceFile>;
}

/**
 * Compiles a workflow file or directory: load → parse → decode → resolve → check →
 * build (DESIGN.md, Pipeline). Never throws for user input: every problem is a
 * positioned diagnostic, sorted and de-duplicated here, once. A bug in criteria itself
 * surfaces as an `internal_error` diagnostic rather than a stack trace.
 */
export async function compile(path: string, opts: CompileOptions = {}): Promise<Compilation> {
  const cwd = opts.cwd ?? process.cwd();
  const sources = new Map<string, SourceFile>();
  const result: Compilation = { path, files: [], diagnostics: [], sources };
  try {
    await run(path, cwd, result);
  } catch (e) {
    const at = new SourceFile(path, "").range(0);
    result.diagnostics.push(diag("internal_error", at, `internal error: ${(e as Error)?.message ?? String(e)}`, { hint: "this is a bug in criteria; please report it with the input file" }));
    result.graph = undefined;
  }
  result.diagnostics = sortDiagnostics(result.diagnostics);
  return result;
}

async function run(path: string, cwd: string, out: Compilation): Promise<void> {
  const abs = resolvePath(cwd, path);
  const shownRoot = displayPath(abs, cwd) || path;
  const found = workflowFiles(abs);
  const at0 = new SourceFile(shownRoot, "").range(0);
  if (found.kind === "missing") {
    out.diagnostics.push(diag("file_not_found", at0, `${path} does not exist`, { hint: "check the path; it is relative to the current directory" }));
    return;
  }
  if (found.kind === "loop") {
    out.diagnostics.push(diag("file_unreadable", at0, `${path} is a symlink loop`));
    return;
  }
  if (found.kind === "unreadable") {
    out.diagnostics.push(diag("file_unreadable", at0, `${path} could not be read (${found.reason})`));
    return;
  }
  if (found.kind !== "file" && found.kind !== "dir") {
    out.diagnostics.push(diag("no_workflow_files", at0, `${path} holds no workflow files`, { hint: "a workflow directory holds *.hcl, *.yaml, *.yml or *.json files" }));
    return;
  }
  for (const s of found.skipped) {
    const shown = displayPath(s.path, cwd);
    out.diagnostics.push(diag(s.code, new SourceFile(shown, "").range(0), `${shown} ${s.message}`, s.code === "path_outside_root" ? { hint: "workflow files may not leave their directory; copy the file in instead" } : {}));
  }
  if (found.files.length === 0) return;
  const parts: { doc: JsonObject; map: SourceMap }[] = [];
  for (const file of found.files) {
    const shown = displayPath(file, cwd);
    out.files.push(shown);
    const dialect = WORKFLOW_EXTENSIONS[extname(file).toLowerCase()];
    if (!dialect) {
      out.diagnostics.push(diag("unsupported_file_type", new SourceFile(shown, "").range(0), `${shown}: unsupported file type "${extname(file)}"`, { hint: "workflow files end in .hcl, .yaml, .yml or .json" }));
      continue;
    }
    const read = readSource(file, shown);
    out.diagnostics.push(...read.diagnostics);
    if (!read.file) continue;
    out.sources.set(shown, read.file);
    if (read.file.text.trim() === "") {
      out.diagnostics.push(diag("file_empty", read.file.range(0), `${shown} is empty`, { hint: `a workflow file starts with workflow "name" { ... }` }));
      continue;
    }
    const p = dialect === "hcl" ? await parseHcl(read.file) : extname(file).toLowerCase() === ".json" ? parseJson(read.file) : parseYaml(read.file);
    out.diagnostics.push(...p.diagnostics);
    if (!p.parsed) continue;
    let doc: JsonObject;
    let map: SourceMap;
    if (p.parsed.dialect === "hcl") {
      const lowered = lowerHcl(p.parsed);
      out.diagnostics.push(...lowered.diagnostics);
      doc = lowered.doc;
      map = lowered.map;
    } else {
      const v = p.parsed.value;
      if (v === null || typeof v !== "object" || Array.isArray(v)) {
        const code = v === null ? "file_empty" : "invalid_type";
        out.diagnostics.push(diag(code, p.parsed.map.get("")?.range ?? read.file.range(0), v === null ? `${shown} holds no workflow (the document is empty)` : `${shown}: the document must be a mapping (workflow:, steps:, ...), not a ${Array.isArray(v) ? "list" : typeof v}`));
        continue;
      }
      doc = v;
      map = p.parsed.map;
    }
    if (Object.keys(doc).length === 0) {
      out.diagnostics.push(diag("file_empty", read.file.range(0), `${shown} holds no blocks (only comments?)`, { hint: `a workflow file starts with workflow "name" { ... }` }));
      continue;
    }
    if (!map.has("")) map.set("", { range: read.file.range(0, read.file.text.length) });
    parts.push({ doc, map });
  }
  if (parts.length === 0) return;
  const merged = mergeDocuments(parts);
  out.diagnostics.push(...merged.diagnostics);
  const first = [...out.sources.values()][0];
  const fileStart = first ? first.range(0) : at0;
  out.diagnostics.push(...checkSchema(merged.doc, merged.map, fileStart));
  const decoded = decodeWorkflow(merged.doc, merged.map, fileStart);
  out.diagnostics.push(...decoded.diagnostics);
  out.spec = decoded.spec;
  const rangeAt = (file: string, start: number, end: number) => (out.sources.get(file) ?? new SourceFile(file, "")).range(start, end);
  const resolved = resolveWorkflow(decoded.spec, rangeAt);
  out.diagnostics.push(...resolved.diagnostics);
  out.diagnostics.push(...runChecks({ spec: decoded.spec, resolution: resolved.value, fileStart }, hasErrors(out.diagnostics)));
  if (!hasErrors(out.diagnostics)) out.graph = buildGraph(decoded.spec, resolved.value);
}
