import { statSync } from "node:fs";
import { dirname, posix, resolve as resolvePath } from "node:path";
import { buildGraph } from "./build/build-graph.js";
import type { Graph } from "./build/graph.js";
import { moduleKey } from "./build/module-key.js";
import { checkDepth } from "./check/check-depth.js";
import { runChecks } from "./check/index.js";
import { checkUse } from "./check/check-use.js";
import { decodeModule, withoutMissingBesideNearMiss } from "./decode/decode-module.js";
import { emptyWorkflow, type ModulePath, type WorkflowSpec } from "./decode/spec.js";
import { diag, hasErrors, type Diagnostic } from "./diagnostics/diagnostic.js";
import { sortDiagnostics } from "./diagnostics/sort.js";
import { SourceFile } from "./diagnostics/source-file.js";
import { loadModules, type Module, type ModuleSet } from "./load/load-modules.js";
import { callOrder } from "./load/call-order.js";
import { splitModuleOf } from "./load/split-module.js";
import { useGraph, type UseGraph } from "./load/use-graph.js";
import { addHeaderAgents } from "./resolve/header-agents.js";
import { moduleInterface, type ModuleInterface } from "./resolve/module-interface.js";
import { resolveWorkflow, type Resolution } from "./resolve/resolve-workflow.js";
import type { ParseCache } from "./load/read-module.js";

export type { Graph } from "./build/graph.js";
export type { Diagnostic } from "./diagnostics/diagnostic.js";
export type { UseGraph } from "./load/use-graph.js";

/** Options for {@link compile}. */
export interface CompileOptions {
  /** Directory paths are shown relative to (default: `process.cwd()`). */
  cwd?: string;
  /** `--root`: the directory every module must lie in (default: the PATH's own directory). */
  root?: string;
  /** More directories modules may come from (the Go tool's `CRITERIA_WORKFLOW_ALLOWED_PATHS`). */
  allowedRoots?: string[];
  /** Texts to compile instead of the files' (absolute path → text): `criteria lsp`'s open, unsaved documents. */
  overlay?: ReadonlyMap<string, string>;
  /** Keep and re-use the files parsed, across compiles (`validate --watch`): give the same map each time. */
  parseCache?: ParseCache;
  /**
   * Keep and re-use each module's compiled unit across compiles (`validate --watch`, `criteria lsp`):
   * give the same map each time, with a `parseCache`. See {@link UnitCache}.
   */
  unitCache?: UnitCache;
  /**
   * Build the graph when there are no errors (default true). False when only the
   * diagnostics are wanted (`criteria lsp`; `validate --watch` prints what the graph expects): building adds none, and
   * on a 500-step file it is ~6% of an edit's compile (the issue "See and edit").
   */
  graph?: boolean;
}

/**
 * What an earlier compile made of each module (by module id): its decoded spec,
 * resolution, interface and diagnostics, re-used when nothing it was made from changed —
 * the same parsed files (by identity, which the parse cache keeps while a file's bytes
 * are the same), the same edges to the same modules, the same role (entry or not), and
 * every callee's unit itself re-used. So an edit re-checks the edited module and the
 * modules that call it, directly or not, and no other. Units are read, never changed,
 * after they are made.
 */
export type UnitCache = Map<string, { signature: string; files: (SourceFile | undefined)[]; callees: (Unit | undefined)[]; unit: Unit; own: Diagnostic[] }>;

/**
 * The result of compiling one PATH: the graph (only when there are no errors), the
 * decoded spec (partial on errors), sorted diagnostics, and the loaded sources for
 * rendering excerpts.
 */
export interface Compilation {
  /** The PATH as given. */
  path: string;
  /** Files of the PATH's own module, as shown in diagnostics. */
  files: string[];
  spec?: WorkflowSpec;
  graph?: Graph;
  diagnostics: Diagnostic[];
  sources: Map<string, SourceFile>;
  /** Every module loaded and the edges between them (`use_graph` in `validate --format json`). */
  useGraph?: UseGraph;
  /** How many times each file was read (absolute path → count): once each. */
  reads?: Map<string, number>;
}

/** One callable module (the entry, a subworkflow source, a flow) compiled on its own. */
export interface Unit {
  module: Module;
  spec: WorkflowSpec;
  resolution: Resolution;
  iface: ModuleInterface;
}

/**
 * Compiles a workflow file or directory and every module it reaches: load → parse →
 * decode → resolve → check → build (docs/architecture.md, The compiler; docs/language.md, Composition).
 * A file of a split module (compiler/load/split-module.ts) is compiled as its directory. Modules are
 * compiled apart, callees first, and see each other only through their interfaces;
 * the root graph carries every called module's graph once. Never throws for user
 * input: every problem is a positioned diagnostic, sorted and de-duplicated here,
 * once. A bug in criteria itself surfaces as an `internal_error` diagnostic rather
 * than a stack trace.
 */
export async function compile(path: string, opts: CompileOptions = {}): Promise<Compilation> {
  const cwd = opts.cwd ?? process.cwd();
  // One file of a split module stands for its directory; unless the directory's files are
  // named by the file's own workflow_file or use edges (module_overlap): then the file is a
  // workflow with its bodies beside it, compiled alone.
  const split = splitModuleOf(resolvePath(cwd, path), (p) => opts.overlay?.get(p));
  if (split !== undefined) {
    const whole = await compileAt(path, split, cwd, opts);
    if (!whole.diagnostics.some((d) => d.code === "module_overlap")) return whole;
  }
  return compileAt(path, path, cwd, opts);
}

/** {@link compile} of `target` (PATH, or the directory it stands for), reported as PATH. */
async function compileAt(path: string, target: string, cwd: string, opts: CompileOptions): Promise<Compilation> {
  const result: Compilation = { path, files: [], diagnostics: [], sources: new Map() };
  try {
    await run(target, cwd, opts, result);
  } catch (e) {
    const at = new SourceFile(path, "").range(0);
    result.diagnostics.push(diag("internal_error", at, `internal error: ${(e as Error)?.message ?? String(e)}`, { hint: "this is a bug in criteria; please report it with the input file" }));
    result.graph = undefined;
  }
  result.diagnostics = sortDiagnostics(result.diagnostics);
  return result;
}

/** The default root: a directory PATH itself, or a file's directory. */
function defaultRoot(abs: string): string {
  try {
    return statSync(abs).isDirectory() ? abs : dirname(abs);
  } catch {
    return dirname(abs);
  }
}

async function run(path: string, cwd: string, opts: CompileOptions, out: Compilation): Promise<void> {
  const abs = resolvePath(cwd, path);
  const roots = [opts.root !== undefined ? resolvePath(cwd, opts.root) : defaultRoot(abs), ...(opts.allowedRoots ?? []).map((r) => resolvePath(cwd, r))];
  const set = await loadModules(abs, { cwd, roots, overlay: opts.overlay, parseCache: opts.parseCache });
  out.sources = set.sources;
  out.files = set.entry.files;
  out.reads = set.reads;
  // A module with a file merged where it does not belong (module_overlap) says that error, not
  // the clashes the merge made of it (a second header, a state twice: found by a new-user trial).
  for (const m of set.modules.values()) out.diagnostics.push(...(m.overlapped?.length ? m.diagnostics.filter((d) => d.code !== "duplicate_block" && d.code !== "duplicate_name") : m.diagnostics));
  const units = new Map<string, Unit>();
  const lookup = (id: string) => units.get(id)?.iface;
  const rangeAt = (file: string, start: number, end: number) => (set.sources.get(file) ?? new SourceFile(file, "")).range(start, end);
  // Callees first, so a caller's checks read what its callees declare.
  for (const m of callOrder(set)) {
    if (!m.doc) {
      // Nothing of it parsed: its own diagnostics say why; its callers see it does not compile.
      if (m === set.entry) return;
      const iface = moduleInterface(m.id, m.path, emptyWorkflow(m.fileStart));
      iface.firstError = m.diagnostics.find((d) => d.severity === "error");
      iface.unknown = true;
      units.set(m.id, { module: m, spec: emptyWorkflow(m.fileStart), resolution: resolveWorkflow(emptyWorkflow(m.fileStart), { rangeAt }).value, iface });
      continue;
    }
    const signature = [m.kind, m === set.entry ? "entry" : "callee", cwd, ...(opts.allowedRoots ?? []), ...m.edges.map((e) => `${e.kind}\u0000${e.to ?? ""}\u0000${e.cut ?? ""}`), ...m.diagnostics.map((d) => d.code)].join("\u0001");
    const files = m.files.map((f) => set.sources.get(f));
    const callees = m.edges.map((e) => (e.to !== undefined ? units.get(e.to) : undefined));
    // A module with an edge cut for closing a cycle reads that module's document (its name) unseen: never re-used.
    const kept = opts.parseCache && !m.edges.some((e) => e.cut !== undefined) ? opts.unitCache?.get(m.id) : undefined;
    const same = <T>(a: T[], b: T[]) => a.length === b.length && a.every((x, i) => x === b[i]);
    // One that said a file does not exist is checked again: the file may have been made since
    // (found by a new-user trial of the language server: a subworkflow kept its file_not_found
    // after prompt.txt was created, until one of its own files changed).
    if (kept && kept.signature === signature && same(kept.files, files) && same(kept.callees, callees) && !kept.own.some((d) => d.code === "file_not_found")) {
      units.set(m.id, kept.unit);
      out.diagnostics.push(...kept.own);
      continue;
    }
    const own: Diagnostic[] = [...m.diagnostics];
    // A file of it that did not parse may have declared anything (its header, variables,
    // adapters, steps): the module says its syntax errors alone, as a flow that does not
    // parse does (found by a new-user trial: "no workflow header" and "unknown variable"
    // errors in its other files came before the syntax error). What the files that did
    // parse say of themselves while read (m.diagnostics) is kept.
    const unparsed = (m.unparsed?.length ?? 0) > 0;
    const decoded = decodeModule(m, set);
    own.push(...decoded.diagnostics);
    own.push(...addHeaderAgents(decoded.spec, (u) => flowName(set, u, lookup)));
    const resolved = resolveWorkflow(decoded.spec, { rangeAt, modules: lookup, cwd, fileRoots: (opts.allowedRoots ?? []).map((r) => resolvePath(cwd, r)) });
    own.push(...resolved.diagnostics);
    if (!unparsed) own.push(...runChecks({ spec: decoded.spec, resolution: resolved.value, fileStart: m.fileStart, modules: lookup, entry: m === set.entry, rangeAt, textOf: (file) => set.sources.get(file)?.text ?? "" }, hasErrors(own)));
    const iface = moduleInterface(m.id, m.path, decoded.spec);
    iface.inputsRead = resolved.value.inputsRead;
    if (resolved.value.inputReadWhole) iface.inputReadWhole = resolved.value.inputReadWhole;
    iface.firstError = own.find((d) => d.severity === "error");
    // A file merged where it does not belong (module_overlap): what the merge made of the
    // module (a second header, its steps unreached, its expects as the other file's) is not
    // what was written, so the module says that error alone, and its callers check nothing
    // against it (found by a new-user trial: a caller's "does not expect" came first).
    const overlap = (m.overlapped?.length ?? 0) > 0;
    if (unparsed || m.inCycle || overlap) iface.unknown = true;
    const unit: Unit = { module: m, spec: decoded.spec, resolution: resolved.value, iface };
    units.set(m.id, unit);
    // A file merged where it does not belong (module_overlap) says nothing more than that error
    // (found by a new-user trial: its steps' unreachable and each_outside_iteration errors came first).
    const found = unparsed || overlap ? [] : withoutMissingBesideNearMiss(own.slice(m.diagnostics.length), decoded.spec.nearMisses).filter((d) => !m.overlapped?.includes(resolvePath(cwd, d.range.file)));
    out.diagnostics.push(...found);
    opts.unitCache?.set(m.id, { signature, files, callees, unit, own: found });
  }
  const entry = units.get(set.entry.id)!;
  out.spec = entry.spec;
  out.diagnostics.push(...checkUse(set, lookup));
  out.diagnostics.push(...checkDepth(entry.spec, entry.resolution, (id) => units.get(id)));
  out.useGraph = useGraph(set, lookup);
  if (hasErrors(out.diagnostics) || opts.graph === false) return;
  out.graph = build(set, units, entry);
}

/**
 * The workflow name of the flow a `use` leads to: from its interface once compiled, or
 * (a use that closes a cycle, whose flow is still being compiled) from its document.
 */
function flowName(set: ModuleSet, u: ModulePath, lookup: (id: string) => ModuleInterface | undefined): string | undefined {
  const id = u.module ?? u.cut;
  if (id === undefined) return undefined;
  const iface = lookup(id);
  if (iface) return iface.name;
  const header = set.modules.get(id)?.doc?.workflow;
  return header !== null && typeof header === "object" && !Array.isArray(header) && typeof header.name === "string" ? header.name : undefined;
}

function inputKeys(u: Unit): Pick<Graph, "input_keys" | "input_any"> {
  const keys = [...u.resolution.inputsRead.keys()].sort();
  return { ...(keys.length > 0 ? { input_keys: keys } : {}), ...(u.resolution.inputReadWhole ? { input_any: true } : {}) };
}

/** The root graph, with every called module's graph once in `modules` (docs/language.md, Composition). */
function build(set: ModuleSet, units: Map<string, Unit>, entry: Unit): Graph {
  const key = (id: string) => moduleKey(set.entry, set.modules.get(id)!);
  const modules: Record<string, Graph> = Object.create(null) as Record<string, Graph>;
  for (const [id, u] of units) {
    if (u === entry) continue;
    const k = key(id);
    modules[k] = { ...buildGraph(u.spec, u.resolution, key), ...inputKeys(u), dir: u.module.kind === "dir" ? k : posix.dirname(k) };
  }
  const graph = { ...buildGraph(entry.spec, entry.resolution, key), ...inputKeys(entry) };
  if (Object.keys(modules).length > 0) {
    graph.modules = modules;
    graph.plugins_required = [...new Set([...graph.plugins_required, ...Object.values(modules).flatMap((g) => g.plugins_required)])].sort();
  }
  return graph;
}
