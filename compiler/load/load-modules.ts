import { existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, extname, join, posix, resolve as resolvePath } from "node:path";
import { diag } from "../diagnostics/diagnostic.js";
import { closestName } from "../diagnostics/did-you-mean.js";
import { SourceFile } from "../diagnostics/source-file.js";
import { isInside, realPath } from "./inside.js";
import { moduleEdges, type ModuleEdge } from "./module-edges.js";
import { readModule, type ReadModule } from "./read-module.js";
import { unreadableHint } from "./read-source.js";
import { splitFileOf } from "./split-module.js";
import { displayPath, WORKFLOW_EXTENSIONS } from "./workflow-files.js";
import type { ParseCache } from "./read-module.js";

/** One loaded module: a workflow file or directory, read once. */
export interface Module extends ReadModule {
  /** The absolute real path of the file or directory: the memo key (a diamond reads each module once). */
  id: string;
  /** The module as shown in diagnostics (relative to the working directory when inside it). */
  path: string;
  /** The paths it names, in source order, each with the module it leads to. */
  edges: ModuleEdge[];
  /**
   * Absolute paths of its own files (a directory module's) that it also names as a body, a
   * flow or a subworkflow (`module_overlap`): merged where they do not belong, what is found
   * in them after loading only repeats that error.
   */
  overlapped?: string[];
  /**
   * On a cycle that was refused (`module_cycle`, `use_cycle`): what its callers would check
   * against it is the cycle's echo, so they check nothing (found by a new-user trial: a child
   * calling its parent got three errors about the parent's inputs before the cycle's).
   */
  inCycle?: true;
}

/** Where modules may come from (docs/language.md, Files and modules: no path may leave the root). */
export interface LoadOptions {
  /** What shown paths are relative to. */
  cwd: string;
  /**
   * Absolute directories modules may be loaded from: `--root` (default: the entry's
   * directory) and the Go tool's `CRITERIA_WORKFLOW_ALLOWED_PATHS`.
   */
  roots: string[];
  /** Texts to use instead of the files' (absolute path → text): an editor's unsaved buffers. */
  overlay?: ReadonlyMap<string, string>;
  /** Files parsed by an earlier compile of the same process, re-used while their text is the same (`validate --watch`). */
  parseCache?: ParseCache;
}

/** Every module reachable from an entry, and the edges between them. */
export interface ModuleSet {
  /** The module the user named. */
  entry: Module;
  /** Every module by id, in load order (the entry first). */
  modules: Map<string, Module>;
  /** Every file read, by shown path (for excerpts). */
  sources: Map<string, SourceFile>;
  /** How many times each file (absolute path) was read: once each, whatever the shape of the graph. */
  reads: Map<string, number>;
}

/** What makes a file no workflow at all, said where the file is. */
const FILE_PROBLEMS = new Set(["file_empty", "unsupported_file_type", "file_not_utf8", "file_binary", "file_too_large", "file_unreadable"]);

/**
 * Loads the module graph from `entry` (docs/architecture.md, The compiler: Load; docs/language.md, Composition): follows `workflow_file`, `subworkflow { source }` and `use` edges, each path
 * relative to the directory of the file that names it; reads every module once,
 * memoised by real path; refuses a path that leaves the roots before opening it
 * (`path_outside_root`, symlinks included), a missing one (`file_not_found`, or
 * `use_not_found` for `use`), and an edge that closes a cycle (`module_cycle`, or
 * `use_cycle` when the closing edge is a `use`) with the whole chain. Each refusal is
 * a diagnostic of the module that names the path; a refused edge keeps no `to`, so
 * later stages never follow it.
 */
export async function loadModules(entry: string, opts: LoadOptions): Promise<ModuleSet> {
  const sources = new Map<string, SourceFile>();
  const reads = new Map<string, number>();
  const modules = new Map<string, Module>();
  const given = opts.roots.map((r) => resolvePath(opts.cwd, r));
  const roots = given.map(realPath);
  const onRead = (f: string) => reads.set(f, (reads.get(f) ?? 0) + 1);

  const load = async (abs: string, id: string, via?: ModuleEdge): Promise<Module> => {
    const shown = displayPath(abs, opts.cwd) || abs;
    const read = await readModule(abs, shown, opts.cwd, sources, onRead, via?.range, opts.overlay, opts.parseCache);
    // A module file that cannot be a workflow (empty, not text, not a workflow format) is
    // reported in that file, where nothing else points: also where it was named (found by a
    // new-user trial: no excerpt of the source = "..." line that named it).
    const diagnostics = via ? read.diagnostics.map((d) => (FILE_PROBLEMS.has(d.code) && !d.related ? { ...d, related: [{ message: `named here`, range: via.range }] } : d)) : read.diagnostics;
    const m: Module = { ...read, diagnostics, id, path: shown, edges: read.doc ? moduleEdges(read.doc, read.map, read.fileStart) : [] };
    modules.set(id, m);
    for (const e of m.edges) {
      const target = follow(e, m);
      if (target === undefined) continue;
      e.to = target.id;
      if (!modules.has(target.id)) await load(target.abs, target.id, e);
    }
    return m;
  };

  /** Where an edge leads, or undefined (with a diagnostic) when it may not be followed. */
  const follow = (e: ModuleEdge, from: Module): { abs: string; id: string } | undefined => {
    const diagnostics = from.diagnostics;
    const base = dirname(resolvePath(opts.cwd, e.range.file));
    const abs = resolvePath(base, e.path);
    const what = e.kind === "use" ? `use "${e.path}"` : e.kind === "subworkflow" ? `source "${e.path}"` : `workflow_file "${e.path}"`;
    if (/\$\{|%\{/.test(e.path)) {
      // HCL renders a bare expression (`source = var.d`) as "${var.d}": say it as written (a new-user trial).
      // (Written bare when the range holds just the expression's text, not the quoted template.)
      const bare = /^\$\{([^{}]*)\}$/.exec(e.path)?.[1];
      const kw = e.kind === "use" ? "use" : e.kind === "subworkflow" ? "source" : "workflow_file";
      const shown = bare !== undefined && e.range.end.offset - e.range.start.offset === bare.length ? `${kw} = ${bare}` : what;
      diagnostics.push(diag("invalid_value", e.range, `${shown}: a module path must be written out; expressions are not evaluated when modules are loaded`, { hint: `write the path as a literal, e.g. "./child"` }));
      return undefined;
    }
    if (/^[a-z][a-z0-9+.-]*::|^[a-z][a-z0-9+.-]*:\/\//i.test(e.path)) {
      diagnostics.push(diag("invalid_value", e.range, `${what}: remote module sources are not supported`, { hint: "vendor the module into the repository and name it by a relative path" }));
      return undefined;
    }
    const hint = `paths are relative to the directory of ${e.range.file} and may not leave ${roots.map((r) => displayPath(r, opts.cwd) || ".").join(" or ")}; widen it with --root DIR or CRITERIA_WORKFLOW_ALLOWED_PATHS`;
    if (![...given, ...roots].some((r) => isInside(r, abs))) {
      // The place it leads to, then the root it leaves (found by a trial of the Go tool's docs: "the workflow's root: child" read as if child were the root).
      const rootsShown = roots.map((r) => displayPath(r, opts.cwd) || ".").join(" or ");
      diagnostics.push(diag("path_outside_root", e.range, `${what} leads to ${displayPath(abs, opts.cwd) || "."}, outside the workflow's root (${rootsShown})`, { hint }));
      return undefined;
    }
    let id: string;
    try {
      statSync(abs);
      id = realpathSync(abs);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") {
        // A typo of a sibling (./module/build for ./modules/build) is named (found by a new-user trial).
        // Never the file that names it (found by a new-user trial: "./f.hcl" missing in b.hcl was "did you mean ./b.hcl?", a cycle).
        const from = resolvePath(opts.cwd, e.range.file);
        const near = nearPath(base, e.path, (p) => p !== from && [...given, ...roots].some((r) => isInside(r, p)));
        const relative = `paths are relative to the directory of ${e.range.file}`;
        diagnostics.push(diag(e.kind === "use" ? "use_not_found" : "file_not_found", e.range, `${what}: ${displayPath(abs, opts.cwd)} does not exist`, { hint: near ? `did you mean "${near}"? (${relative})` : relative }));
      } else {
        diagnostics.push(diag("file_unreadable", e.range, `${what}: ${displayPath(abs, opts.cwd)} cannot be read (${code ?? "error"})`, { hint: unreadableHint(code) }));
      }
      return undefined;
    }
    if (!roots.some((r) => isInside(r, id))) {
      diagnostics.push(diag("path_outside_root", e.range, `${what} is a symlink to ${id}, outside the workflow's root`, { hint }));
      return undefined;
    }
    // A file of a directory module is merged into it: it cannot also be a body or a flow.
    if (from.kind === "dir" && dirname(id) === from.id && WORKFLOW_EXTENSIONS[extname(id).toLowerCase()] !== undefined) {
      (from.overlapped ??= []).push(abs);
      diagnostics.push(
        diag("module_overlap", e.range, `${what}: ${displayPath(abs, opts.cwd)} is part of the directory module ${from.path} (every workflow file in it is merged into one workflow), so it cannot also be a ${e.kind === "use" ? "flow" : e.kind === "subworkflow" ? "subworkflow" : "body"}`, {
          hint: `move it into a subfolder, e.g. ./${e.kind === "use" ? "flows" : e.kind === "subworkflow" ? "modules" : "bodies"}/${basename(id)}`,
        }),
      );
      return undefined;
    }
    // One file of a split module named as a module would be read without its siblings
    // (found by a new-user trial: source = "./modules/build/main.hcl" gave "unknown node"
    // errors inside the module, where validate reads the file as its directory).
    const split = e.kind === "workflow_file" ? undefined : splitFileOf(id, (p) => opts.overlay?.get(p));
    if (split !== undefined) {
      const kw = e.kind === "use" ? "use" : "source";
      const name = basename(id);
      const dirPath = posix.dirname(e.path.replace(/\\/g, "/"));
      const shownDir = displayPath(split.dir, opts.cwd) || ".";
      diagnostics.push(
        diag("invalid_value", e.range, `${what}: ${name} is one file of the module in ${shownDir} (with ${split.siblings.join(", ")}); write ${kw === "use" ? `use "${dirPath}"` : `source = "${dirPath}"`}`, {
          hint: `a module split over several files is named by its directory: every workflow file in it is merged into one workflow, and ${name} alone misses what ${split.siblings.length === 1 ? "the other file declares" : "the others declare"}`,
        }),
      );
      return undefined;
    }
    return { abs, id };
  };

  const entryAbs = resolvePath(opts.cwd, entry);
  let entryId = entryAbs;
  try {
    entryId = realpathSync(entryAbs);
  } catch {
    // missing or a loop: readModule reports it
  }
  const root = await load(entryAbs, entryId);
  cutCycles(root, modules);
  return { entry: root, modules, sources, reads };
}

/**
 * The path `written` (relative to `base`, as the user wrote it) with each part that does not
 * exist replaced by the closest name in its directory (the did-you-mean distance), when the
 * result exists and `allowed` takes it: `./module/build` → `./modules/build`,
 * `./flows/reviewr.hcl` → `./flows/reviewer.hcl`, `./bodies/package` → `./bodies/package.hcl`
 * (closestEntry). Undefined when no such path is found.
 */
export function nearPath(base: string, written: string, allowed: (abs: string) => boolean): string | undefined {
  const parts = written.split("/");
  let dir = written.startsWith("/") ? "/" : base;
  let changed = false;
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (p === "" || p === ".") continue;
    if (p === "..") {
      dir = dirname(dir);
      continue;
    }
    if (existsSync(join(dir, p))) {
      dir = join(dir, p);
      continue;
    }
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return undefined;
    }
    const best = closestEntry(p, names, i === parts.length - 1);
    if (best === undefined) return undefined;
    parts[i] = best;
    dir = join(dir, best);
    changed = true;
  }
  return changed && existsSync(dir) && allowed(dir) ? parts.join("/") : undefined;
}

/**
 * The entry of a directory (`names`) closest to the part `written` (did-you-mean
 * distance). For the path's `last` part written without an extension, a workflow file
 * is also compared without its own (`package` → `package.hcl`, `packge` → `package.yaml`).
 */
function closestEntry(written: string, names: string[], last: boolean): string | undefined {
  const compared = new Map<string, string>(names.map((n) => [n, n]));
  if (last && extname(written) === "") {
    for (const n of names) {
      const ext = extname(n);
      if (ext === n || WORKFLOW_EXTENSIONS[ext.toLowerCase()] === undefined) continue;
      const stem = n.slice(0, -ext.length);
      if (stem === written) return n;
      if (!compared.has(stem)) compared.set(stem, n);
    }
  }
  const best = closestName(written, compared.keys());
  return best === undefined ? undefined : compared.get(best);
}

/**
 * Finds every edge that closes a cycle (depth-first from the entry) and cuts it: the
 * module that holds the edge gets a diagnostic naming the whole chain,
 * `a.hcl -> b.hcl -> a.hcl`, at the closing edge.
 */
function cutCycles(entry: Module, modules: Map<string, Module>): void {
  const state = new Map<string, "open" | "done">();
  const stack: Module[] = [];
  // Iterative depth-first search: a deep chain of modules must not overflow the stack.
  const frames: { m: Module; i: number }[] = [{ m: entry, i: 0 }];
  state.set(entry.id, "open");
  stack.push(entry);
  while (frames.length > 0) {
    const f = frames[frames.length - 1];
    if (f.i >= f.m.edges.length) {
      state.set(f.m.id, "done");
      stack.pop();
      frames.pop();
      continue;
    }
    const e = f.m.edges[f.i++];
    if (e.to === undefined) continue;
    const s = state.get(e.to);
    if (s === "open") {
      const from = stack.findIndex((m) => m.id === e.to);
      for (const m of stack.slice(from)) m.inCycle = true;
      const chain = [...stack.slice(from), modules.get(e.to)!].map((m) => m.path).join(" -> ");
      f.m.diagnostics.push(
        diag(e.kind === "use" ? "use_cycle" : "module_cycle", e.range, `${e.kind === "use" ? "use" : e.kind === "subworkflow" ? "subworkflow source" : "workflow_file"} "${e.path}" closes a cycle: ${chain}`, {
          hint: "a workflow may not (even indirectly) call itself; move the shared steps into a module both use",
        }),
      );
      e.cut = e.to;
      e.to = undefined;
      continue;
    }
    if (s === "done") continue;
    const next = modules.get(e.to)!;
    state.set(next.id, "open");
    stack.push(next);
    frames.push({ m: next, i: 0 });
  }
}

