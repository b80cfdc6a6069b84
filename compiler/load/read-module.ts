import { readFileSync } from "node:fs";
import { extname } from "node:path";
import { lowerHcl } from "../decode/lower-hcl.js";
import { mergeDocuments } from "../decode/merge-documents.js";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { Range } from "../diagnostics/range.js";
import { SourceFile } from "../diagnostics/source-file.js";
import type { JsonObject, ParsedFile } from "../parse/document.js";
import { parseHcl } from "../parse/parse-hcl.js";
import { parseJson, parseYaml } from "../parse/parse-yaml.js";
import type { TopBlock } from "../parse/hcl/top-blocks.js";
import type { SourceMap } from "../parse/source-map.js";
import { decodeSource, LOOP_HINT, readSource, unreadableHint } from "./read-source.js";
import { reparseHcl } from "./reparse-hcl.js";
import { WORKFLOW_EXTENSIONS, displayPath, workflowFiles } from "./workflow-files.js";

/** One module's files read, parsed, lowered and merged into one canonical document. */
export interface ReadModule {
  kind: "file" | "dir";
  /** Shown paths of the files read, in name order. */
  files: string[];
  /** The merged canonical document; undefined when no file of it could be used. */
  doc?: JsonObject;
  map: SourceMap;
  /** Where the module's first file starts (for problems of the whole module). */
  fileStart: Range;
  /** Problems reading, parsing, lowering and merging it. */
  diagnostics: Diagnostic[];
  /** Whether none of its several files held a workflow field (each is an error already): no header or state is asked of it. */
  noWorkflow?: boolean;
  /**
   * Shown paths of its files whose text could not be parsed (a syntax error, not UTF-8, binary,
   * too large, too deeply nested): what they declare is unknown, so nothing that depends on
   * the module's declarations is checked (compiler/index.ts).
   */
  unparsed?: string[];
}

/**
 * Reads one module (docs/architecture.md, The compiler: Load): a file, or a directory whose
 * `*.hcl`, `*.chcl`, `*.yaml`, `*.yml` and `*.json` files are merged in name order.
 * Each file is read, checked (size, encoding), parsed in its dialect and, for HCL,
 * lowered to the canonical document; the documents are then merged. Never throws for
 * user input: what cannot be read is a positioned diagnostic.
 *
 * @param abs the module's absolute path (not yet known to exist)
 * @param shown the path printed for the module itself
 * @param cwd what shown file paths are relative to
 * @param sources receives every file read, by shown path (for excerpts)
 * @param onRead called with each file's absolute path as it is read (read counts)
 * @param at where problems of the whole module are reported (the edge that names it), if not at its path
 */
export async function readModule(
  abs: string,
  shown: string,
  cwd: string,
  sources: Map<string, SourceFile>,
  onRead?: (file: string) => void,
  at?: Range,
  overlay?: ReadonlyMap<string, string>,
  cache?: ParseCache,
): Promise<ReadModule> {
  const at0 = at ?? new SourceFile(shown, "").range(0);
  const out: ReadModule = { kind: "file", files: [], map: new Map(), fileStart: at0, diagnostics: [] };
  // A file only the overlay holds (an editor's buffer not saved yet) is read from it.
  const found = overlay?.has(abs) ? onDiskOrOverlay(abs) : workflowFiles(abs);
  if (found.kind === "missing") {
    out.diagnostics.push(diag("file_not_found", at0, `${shown} does not exist`, { hint: "check the path; it is relative to the current directory" }));
    return out;
  }
  if (found.kind === "loop") {
    out.diagnostics.push(diag("file_unreadable", at0, `${shown} is a symlink loop`, { hint: LOOP_HINT }));
    return out;
  }
  if (found.kind === "unreadable") {
    out.diagnostics.push(diag("file_unreadable", at0, `${shown} could not be read (${found.reason})`, { hint: unreadableHint(found.errno) }));
    return out;
  }
  if (found.kind !== "file" && found.kind !== "dir") {
    out.diagnostics.push(diag("no_workflow_files", at0, `${shown} holds no workflow files`, { hint: "a workflow directory holds *.hcl, *.chcl, *.yaml, *.yml or *.json files" }));
    return out;
  }
  out.kind = found.kind;
  for (const s of found.skipped) {
    const p = displayPath(s.path, cwd);
    out.diagnostics.push(diag(s.code, new SourceFile(p, "").range(0), `${p} ${s.message}`, { hint: s.hint }));
  }
  const parts: Part[] = [];
  for (const file of found.files) {
    const part = await readPart(file, displayPath(file, cwd), sources, out, onRead, overlay?.get(file), cache);
    if (part) parts.push(part);
  }
  const first = out.files.length > 0 ? sources.get(out.files[0]) : undefined;
  if (first) out.fileStart = first.range(0);
  if (parts.length === 0) return out;
  const merged = mergeDocuments(parts);
  out.diagnostics.push(...merged.diagnostics);
  out.doc = merged.doc;
  out.map = merged.map;
  if (merged.noWorkflow) out.noWorkflow = true;
  return out;
}

/** {@link workflowFiles} for a path the overlay holds: a file even when nothing is on disk there yet. */
function onDiskOrOverlay(abs: string): ReturnType<typeof workflowFiles> {
  const found = workflowFiles(abs);
  return found.kind === "missing" ? { kind: "file", files: [abs], skipped: [] } : found;
}

/** One file's lowered document and source map; for HCL, its top-level blocks too (for a re-parse). */
type Part = { doc: JsonObject; map: SourceMap; blocks?: readonly TopBlock[] };

/**
 * What an earlier compile made of each file (absolute path and shown path → its text, the
 * source, the diagnostics of reading, parsing and lowering it, and the lowered part): a file
 * whose text is the same is not parsed again, and an HCL file edited inside one top-level
 * block has only that block parsed again (reparse-hcl.ts). The parts are read, never
 * changed, by what comes after (merge, schema check, decode), so sharing them between
 * compiles is safe.
 */
export type ParseCache = Map<string, { bytes: Buffer; file: SourceFile; diagnostics: Diagnostic[]; part?: Part; unparsed?: boolean }>;

/** Reads, parses and lowers one file (or re-uses what `cache` holds for the same bytes); undefined when it holds nothing usable. */
async function readPart(file: string, shown: string, sources: Map<string, SourceFile>, out: ReadModule, onRead?: (file: string) => void, text?: string, cache?: ParseCache): Promise<Part | undefined> {
  const bytes = cache ? (text !== undefined ? Buffer.from(text, "utf8") : readBytesOrUndefined(file)) : undefined;
  if (!cache || !bytes) return parsePart(file, shown, sources, out, onRead, text);
  const key = `${file}\u0000${shown}`;
  const hit = cache.get(key);
  if (hit && hit.bytes.equals(bytes)) {
    out.files.push(shown);
    sources.set(shown, hit.file);
    out.diagnostics.push(...hit.diagnostics);
    if (hit.unparsed) (out.unparsed ??= []).push(shown);
    return hit.part;
  }
  if (hit?.part?.blocks && hit.diagnostics.length === 0 && WORKFLOW_EXTENSIONS[extname(file).toLowerCase()] === "hcl") {
    const read = decodeSource(bytes, shown);
    const part = read.file && read.diagnostics.length === 0 ? reparseHcl({ file: hit.file, part: { ...hit.part, blocks: hit.part.blocks } }, read.file) : undefined;
    if (read.file && part) {
      onRead?.(file);
      out.files.push(shown);
      sources.set(shown, read.file);
      cache.set(key, { bytes, file: read.file, diagnostics: [], part });
      return part;
    }
  }
  const mine: ReadModule = { ...out, files: [], diagnostics: [], unparsed: undefined };
  const part = await parsePart(file, shown, sources, mine, onRead, text);
  out.files.push(...mine.files);
  out.diagnostics.push(...mine.diagnostics);
  if (mine.unparsed) (out.unparsed ??= []).push(...mine.unparsed);
  const source = sources.get(shown);
  if (source) cache.set(key, { bytes, file: source, diagnostics: mine.diagnostics, part, ...(mine.unparsed ? { unparsed: true } : {}) });
  return part;
}

/** A file's bytes, or undefined when it cannot be read (the reader then says why). */
function readBytesOrUndefined(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/** The error for a file whose name ends in no workflow extension (`shown`: its path as shown), at 1:1. */
export function unsupportedFileType(shown: string): Diagnostic {
  return diag("unsupported_file_type", new SourceFile(shown, "").range(0), `${shown}: unsupported file type "${extname(shown)}"`, { hint: "workflow files end in .hcl, .chcl, .yaml, .yml or .json" });
}

/** Reads, parses and lowers one file; undefined when it holds nothing usable. */
async function parsePart(file: string, shown: string, sources: Map<string, SourceFile>, out: ReadModule, onRead?: (file: string) => void, text?: string): Promise<Part | undefined> {
  out.files.push(shown);
  const ext = extname(file).toLowerCase();
  const dialect = WORKFLOW_EXTENSIONS[ext];
  if (!dialect) {
    out.diagnostics.push(unsupportedFileType(shown));
    return undefined;
  }
  onRead?.(file);
  const read = text !== undefined ? decodeSource(Buffer.from(text, "utf8"), shown) : readSource(file, shown);
  out.diagnostics.push(...read.diagnostics);
  if (!read.file) {
    if (read.diagnostics.some((d) => d.severity === "error")) (out.unparsed ??= []).push(shown);
    return undefined;
  }
  sources.set(shown, read.file);
  if (read.file.text.trim() === "") {
    out.diagnostics.push(diag("file_empty", read.file.range(0), `${shown} is empty`, { hint: `a workflow file starts with workflow { name = "..." ... }` }));
    return undefined;
  }
  const p: { parsed?: ParsedFile; blocks?: readonly TopBlock[]; diagnostics: Diagnostic[] } =
    dialect === "hcl" ? await parseHcl(read.file) : ext === ".json" ? parseJson(read.file) : parseYaml(read.file);
  out.diagnostics.push(...p.diagnostics);
  if (!p.parsed) {
    (out.unparsed ??= []).push(shown);
    return undefined;
  }
  let doc: JsonObject;
  let map: SourceMap;
  const blocks = p.blocks;
  if (p.parsed.dialect === "hcl") {
    const lowered = lowerHcl(p.parsed);
    out.diagnostics.push(...lowered.diagnostics);
    doc = lowered.doc;
    map = lowered.map;
  } else {
    const v = p.parsed.value;
    if (v === null || typeof v !== "object" || Array.isArray(v)) {
      const code = v === null ? "file_empty" : "invalid_type";
      // A .json file is told in JSON: an object, not a mapping with a leading "-" (a new-user trial).
      const json = /\.json$/i.test(read.file.path);
      const what = json ? `an object ({ "workflow": {...}, "steps": {...}, ... })` : "a mapping (workflow:, steps:, ...)";
      const got = Array.isArray(v) ? (json ? "an array" : "a list") : `a ${typeof v}`;
      out.diagnostics.push(
        diag(code, p.parsed.map.get("")?.range ?? read.file.range(0), v === null ? `${shown} holds no workflow (the document is empty)` : `${shown}: the document must be ${what}, not ${got}`, {
          hint: json
            ? `a .json workflow is one object: { "workflow": { "name": "...", "version": "1", "initial_state": "..." }, "steps": {...}, "states": {...} }`
            : "a workflow file starts with workflow: (name, version, initial_state), then steps:, states: and the rest as keys; no leading - or value",
        }),
      );
      return undefined;
    }
    doc = v;
    map = p.parsed.map;
  }
  if (Object.keys(doc).length === 0) {
    out.diagnostics.push(diag("file_empty", read.file.range(0), `${shown} holds no blocks (only comments?)`, { hint: `a workflow file starts with workflow { name = "..." ... }` }));
    return undefined;
  }
  if (!map.has("")) map.set("", { range: read.file.range(0, read.file.text.length) });
  return blocks ? { doc, map, blocks } : { doc, map };
}
