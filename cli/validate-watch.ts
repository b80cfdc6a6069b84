import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { compile, type CompileOptions } from "../compiler/index.js";
import type { Io } from "./io.js";
import { textReport } from "./text-report.js";
import type { Diagnostic } from "../compiler/diagnostics/diagnostic.js";
import { formatText } from "../compiler/diagnostics/format-text.js";

/**
 * `criteria validate --watch PATH...` (the issue "See and edit", item 4): validates each
 * PATH, then again whenever one of the files it reads changes (every module of its module
 * graph: subworkflow sources, `workflow_file` bodies, `use`d flows, and new files in a
 * directory module), printing only what changed in a PATH's result (see `check`). Unchanged files are
 * not parsed again, and only the modules an edit reaches (the edited one and those that
 * call it) are checked again (the parse and unit caches shared by the rebuilds). File events come from
 * `chokidar` (4.x, the last for Node 20), debounced by 100 ms; once they are seen, a line on
 * stderr says so (`criteria: watching N paths for changes`). Runs until `signal` aborts.
 *
 * @returns the exit code when stopped: 0
 */
export async function watchValidate(paths: string[], opts: CompileOptions, io: Io, signal: AbortSignal, text: { color: boolean; verbose: boolean }): Promise<number> {
  const cwd = opts.cwd ?? process.cwd();
  const parseCache = new Map();
  const unitCache = new Map();
  const last = new Map<string, string>();
  const files = new Map<string, Set<string>>();
  /** Every file each PATH has read, ever: one deleted and made again is its PATH's still (found by a new-user trial: a workflow_file moved away and back was never seen). */
  const ever = new Map<string, Set<string>>();
  const stamp = () => new Date().toTimeString().slice(0, 8);

  const before = new Map<string, Diagnostic[]>();
  /**
   * Compiles one PATH; when its result differs from the last one printed, prints it: whole
   * the first time, then only what changed (found by a new-user trial: every diagnostic was
   * printed again on each save): each new diagnostic with its excerpt, one `fixed:` line per
   * diagnostic gone (a diagnostic is the same one, moved or not, when its file, code and
   * message are), and the PATH's summary line. With --verbose, the whole result each time.
   */
  const check = async (path: string) => {
    const c = await compile(path, { ...opts, parseCache, unitCache });
    const shown = await textReport(c, { ...text, github: false });
    files.set(path, new Set([...c.sources.keys()].map((f) => resolve(cwd, f))));
    ever.set(path, new Set([...(ever.get(path) ?? []), ...files.get(path)!]));
    if (last.get(path) === shown) return;
    const previous = before.get(path);
    last.set(path, shown);
    before.set(path, c.diagnostics);
    if (previous === undefined || text.verbose) return io.out(`[${stamp()}] ${shown}`);
    const { added, gone, moved } = changes(previous, c.diagnostics);
    let out = "";
    for (const d of added) out += (await formatText(d, c.sources, { color: text.color })) + "\n";
    for (const d of gone) out += `fixed: ${d.range.file}: ${d.severity}[${d.code}]: ${d.message}\n`;
    // One still there whose place moved (lines added above it): its new place, so that the one
    // printed before is not followed to the wrong line (found by a new-user trial).
    for (const { now, was } of moved) out += `moved: ${now.range.file}:${now.range.start.line}:${now.range.start.column} (was ${was.range.start.line}:${was.range.start.column}): ${now.severity}[${now.code}]: ${now.message}\n`;
    // The summary: textReport's last line.
    io.out(`[${stamp()}] ${out}${shown.trimEnd().split("\n").at(-1)}\n`);
  };
  for (const p of paths) await check(p);

  const { watch } = createRequire(import.meta.url)("chokidar") as typeof import("chokidar");
  const targets = () => [...new Set([...paths.map((p) => resolve(cwd, p)), ...[...files.values()].flatMap((s) => [...s, ...[...s].map((f) => dirname(f))])])];
  const watched = targets();
  const watcher = watch(watched, { ignoreInitial: true, depth: 1 });
  // On stderr (stdout holds the results): as tsc --watch does, say when changes are seen.
  // Counted as a user sees them: the files the PATHs read, in how many directories (new files
  // appear there); not chokidar's paths, which list each directory too (found by a new-user trial).
  const read = new Set([...files.values()].flatMap((s) => [...s]));
  const dirs = new Set([...read].map((f) => dirname(f)));
  const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  // A PATH that is not there yet is waited for (said so: "watching 0 files" read as nothing watched).
  const missing = paths.filter((p) => !existsSync(resolve(cwd, p)));
  // The sentence reads with none read yet too (found by a new-user trial: "watching 0 files in 0 directories, and for nope.hcl to be made for changes").
  const awaited = missing.length > 0 ? `for ${missing.join(", ")} to be made` : "";
  const ofFiles = read.size > 0 || missing.length === 0 ? `${count(read.size, "file", "files")} in ${count(dirs.size, "directory", "directories")} for changes` : "";
  watcher.once("ready", () => io.err(`criteria: watching ${[ofFiles, awaited].filter((x) => x !== "").join(", and ")}; Ctrl-C stops\n`));
  let pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  const rebuild = async () => {
    const changed = pending;
    pending = new Set();
    for (const p of paths) {
      const abs = resolve(cwd, p);
      const mine = ever.get(p) ?? new Set();
      // A file of a directory it reads from (a new file in a subworkflow's directory), or of a
      // directory made below one (a subworkflow source named before it was made): found by a
      // new-user trial, which saw neither until a known file was saved.
      const dirs = new Set([dirname(abs), ...[...mine].map((f) => dirname(f))]);
      if ([...changed].some((f) => mine.has(f) || f === abs || dirname(f) === abs || dirs.has(dirname(f)) || dirs.has(dirname(dirname(f))))) await check(p);
    }
    watcher.add(targets());
  };
  /** Counts `file` as changed: the PATHs it may concern are checked again 100 ms after the last change. */
  const changed = (file: string) => {
    pending.add(resolve(file));
    clearTimeout(timer);
    timer = setTimeout(() => void rebuild(), 100);
  };
  watcher.on("all", (event: string, file: string) => {
    // A directory made is a change too: a subworkflow source named before it was made may be
    // it, and its files' own events can come before the directory is watched (CI: the file
    // written right after mkdir was not seen).
    if (event !== "addDir" && !/\.(hcl|chcl|ya?ml|json)$/i.test(file)) return;
    changed(file);
    // And once more a moment later: files written into it before it was watched raise no event
    // of their own (CI, under load: a subworkflow directory made and filled at once was seen
    // empty, and its file never).
    if (event === "addDir") setTimeout(() => changed(file), 600).unref();
  });
  await new Promise<void>((r) => (signal.aborted ? r() : signal.addEventListener("abort", () => r(), { once: true })));
  clearTimeout(timer);
  await watcher.close();
  return 0;
}

/**
 * The diagnostics of `now` not in `was` and of `was` not in `now`, by file, code and message
 * (positions aside: lines move as text is added); and those in both whose start moved, paired
 * in order.
 */
function changes(was: readonly Diagnostic[], now: readonly Diagnostic[]): { added: Diagnostic[]; gone: Diagnostic[]; moved: { now: Diagnostic; was: Diagnostic }[] } {
  const key = (d: Diagnostic) => `${d.range.file}\0${d.code}\0${d.message}`;
  const byKey = (ds: readonly Diagnostic[]) => {
    const m = new Map<string, Diagnostic[]>();
    for (const d of ds) m.set(key(d), [...(m.get(key(d)) ?? []), d]);
    return m;
  };
  const before = byKey(was);
  const after = byKey(now);
  const added = now.filter((d) => after.get(key(d))!.indexOf(d) >= (before.get(key(d))?.length ?? 0));
  const gone = was.filter((d) => before.get(key(d))!.indexOf(d) >= (after.get(key(d))?.length ?? 0));
  const moved: { now: Diagnostic; was: Diagnostic }[] = [];
  for (const [k, ds] of after) {
    ds.forEach((d, i) => {
      const old = before.get(k)?.[i];
      if (old && (old.range.start.line !== d.range.start.line || old.range.start.column !== d.range.start.column)) moved.push({ now: d, was: old });
    });
  }
  return { added, gone, moved };
}
