import { accessSync, constants, realpathSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, extname, join, resolve as resolvePath } from "node:path";
import { Option, type Command } from "commander";
import type { SourceFile } from "../compiler/diagnostics/source-file.js";
import { formatText } from "../compiler/diagnostics/format-text.js";
import { graphShape } from "../compiler/fmt/graph-shape.js";
import { upgradeModuleToV05, type Upgrade } from "../compiler/fmt/upgrade-v05.js";
import { compile, type Compilation, type UseGraph } from "../compiler/index.js";
import { decodeSource, readSource } from "../compiler/load/read-source.js";
import { unsupportedFileType } from "../compiler/load/read-module.js";
import type { Diagnostic } from "../compiler/diagnostics/diagnostic.js";
import { shellWord } from "../engine/shell-word.js";
import { refuseStdinNameWithoutDash, stdinSource } from "./stdin-source.js";
import { WORKFLOW_EXTENSIONS, workflowFiles } from "../compiler/load/workflow-files.js";
import { pathArgument } from "./compile-options.js";
import { CliError, EXIT, type Io } from "./io.js";

/** The dialect a file's name says (`hcl`, `yaml`), as the module loader reads it. */
const dialectOf = (path: string) => WORKFLOW_EXTENSIONS[extname(path).toLowerCase()];

/**
 * The files a PATH's rewrite must take together, as the compiler reads them: the PATH's
 * own module (a directory's files; a file of a split module stands for its directory,
 * compiler/load/split-module.ts) and every `workflow_file` body it reaches, whose steps
 * name the module's agents (found by a new-user trial: an agent used only in a body was
 * rewritten into an adapter, and the body's `agent = "bot"` broke). Subworkflow and
 * `use` modules are modules of their own: rewritten when named themselves. HCL files
 * only. A PATH that does not compile far enough to say is taken as written (a file
 * alone, a directory's HCL files); readSource then reports what is wrong with it.
 */
async function moduleFiles(path: string, cwd: string, overlay?: Map<string, string>): Promise<{ files: string[]; before?: Compilation; empty?: true }> {
  const found = workflowFiles(path);
  if (found.kind === "empty-dir") return { files: [], empty: true };
  // Only files it skips (a symlink out of it): validate's errors say why (found by a new-user trial: silent, exit 0).
  if (found.kind === "dir" && found.files.length === 0) return { files: [], empty: true, before: await compile(path, { cwd }) };
  // A YAML or JSON file named itself is said to be skipped; an unknown name is readSource's to report.
  if (found.kind !== "dir" && dialectOf(path) !== "hcl") return { files: [path] };
  const written = found.kind === "dir" ? found.files.filter((f) => dialectOf(f) === "hcl") : [path];
  const before = await compile(path, { cwd, ...(overlay ? { overlay } : {}) });
  const graph = before.useGraph;
  if (!graph || graph.modules.length === 0) return { files: written, before };
  const byPath = new Map(graph.modules.map((m) => [m.path, m]));
  const entry = graph.modules.find((m) => m.files.length === before.files.length && m.files.every((f, i) => f === before.files[i])) ?? graph.modules[0];
  const files: string[] = [];
  const seen = new Set<string>();
  const visit = (m: UseGraph["modules"][number]) => {
    if (seen.has(m.path)) return;
    seen.add(m.path);
    for (const f of m.files) if (dialectOf(f) === "hcl" && !files.includes(f)) files.push(f);
    for (const e of graph.edges) if (e.from === m.path && e.kind === "workflow_file" && !e.cycle && byPath.has(e.to)) visit(byPath.get(e.to)!);
  };
  visit(entry);
  // Shown paths: relative to cwd when inside it, else absolute (compiler/load/workflow-files.ts).
  return { files, before };
}

/**
 * The groups of files a PATH's rewrite takes, each together ({@link moduleFiles}): one, or
 * for a directory of whole workflows side by side (each file with a header of its own, which
 * the compiler refuses as one module: `"workflow" is set in more than one file`), each file
 * alone, as `validate dir/*.hcl` reads them (found by a new-user trial: rewritten as one
 * module, the adapter the files shared was declared in one file and the others broke).
 */
async function moduleGroups(path: string, cwd: string): Promise<{ path: string; files: string[]; before?: Compilation; empty?: true }[]> {
  const m = await moduleFiles(path, cwd);
  const sideBySide = m.before?.diagnostics.some((d) => d.code === "duplicate_block" && d.message.startsWith('"workflow" is set in more than one file'));
  if (!sideBySide || !statSync(path).isDirectory()) return [{ path, ...m }];
  return Promise.all(m.files.map(async (f) => ({ path: f, ...(await moduleFiles(f, cwd)) })));
}

/**
 * Why the rewritten texts would not compile to what the files compile to now (the
 * language reference's promise), or undefined when they do: compiled again with the
 * texts as an overlay, there must be no error the files do not have, and, when the
 * files compiled to a graph, the same graph (compiler/fmt/graph-shape.ts).
 */
async function changedMeaning(path: string, cwd: string, before: Compilation, rewritten: Map<string, string>): Promise<string | undefined> {
  const after = await compile(path, { cwd, overlay: rewritten });
  const count = (c: Compilation) => {
    const n = new Map<string, number>();
    for (const d of c.diagnostics) if (d.severity === "error") n.set(d.code, (n.get(d.code) ?? 0) + 1);
    return n;
  };
  const was = count(before);
  for (const [code, n] of count(after)) {
    if (n > (was.get(code) ?? 0)) {
      const d = after.diagnostics.find((x) => x.severity === "error" && x.code === code)!;
      return `it would not compile: ${d.range.file}:${d.range.start.line}:${d.range.start.column}: error[${code}]: ${d.message}`;
    }
  }
  if (before.graph && after.graph && JSON.stringify(graphShape(before.graph)) !== JSON.stringify(graphShape(after.graph))) return "it would compile to a different graph";
  return undefined;
}

/**
 * Writes `text` over `path` without ever leaving it half written: a temporary file
 * beside the real file (a symlink is followed: the file it points at is rewritten),
 * then a rename; `bom`: the file began with a UTF-8 BOM, which is written back. A file
 * the user cannot write is refused, as `terraform fmt` does.
 * Returns an error message, or undefined when written.
 */
function writeOver(path: string, text: string, bom: boolean): string | undefined {
  let target: string;
  try {
    target = realpathSync(path);
    accessSync(target, constants.W_OK);
    // root may write anything: a file nobody may write is still read-only (found by a new-user trial in a CI container).
    if ((statSync(target).mode & 0o222) === 0) return `cannot write ${path}: it is read-only`;
  } catch (e) {
    return `cannot write ${path}: ${(e as NodeJS.ErrnoException).code === "EACCES" ? "it is read-only" : (e as Error).message}`;
  }
  const tmp = join(dirname(target), `.${extname(target).slice(1)}-criteria-fmt-${process.pid}`);
  try {
    writeFileSync(tmp, (bom ? "\ufeff" : "") + text, { mode: statSync(target).mode });
    renameSync(tmp, target);
    return undefined;
  } catch (e) {
    rmSync(tmp, { force: true });
    const code = (e as NodeJS.ErrnoException).code;
    return `cannot write ${path}: ${code === "EACCES" || code === "EPERM" ? "its directory is not writable" : (e as Error).message}`;
  }
}

/**
 * Registers `criteria fmt --to v0.5 [--check] [--stdout] PATH...`: rewrites older forms of
 * HCL files into the Go tool's v0.5 forms (compiler/fmt/upgrade-v05.ts), in place (a
 * temporary file renamed over the original, so a file is never half written; a UTF-8
 * BOM and the file's mode are kept). A directory's files are one workflow and are
 * rewritten together, and a file with the `workflow_file` bodies it reaches and the other
 * files of its split module (moduleFiles). Before anything is written, the rewritten
 * texts are compiled: one that would not compile, or not to the same graph, is refused
 * as our bug (exit 3, nothing written). Prints each rewritten file and what changed. `--check` writes
 * nothing and exits 1 when a file would change (for CI, like `terraform fmt -check`);
 * `--stdout` prints the result of one file instead of writing it. A module with a file
 * that does not parse is left as it is, with the diagnostics (exit 1); a file that
 * cannot be written is said so (exit 1); a rewrite of ours that would not parse is an
 * internal error (exit 3, the file left as it is). YAML and JSON have one form: skipped;
 * an empty file has nothing to rewrite (said); a directory with no workflow files is exit 1.
 * Standard output holds only what was done (`rewritten`, `would be rewritten`) or, with
 * `--stdout`, the rewritten text; diagnostics and every refusal go to standard error, so
 * `fmt --stdout a.hcl > b.hcl` never writes them into the file.
 *
 * @param setCode receives the command's exit code
 */
export function registerFmtCommand(program: Command, io: Io, setCode: (code: number) => void): void {
  program
    .command("fmt")
    .description("rewrite older forms of HCL workflow files into the current (v0.5) ones, keeping comments and layout")
    .argument("<paths...>", "HCL files, or directories (their .hcl and .chcl files: one workflow)")
    .addOption(new Option("--to <version>", "the language version to write").choices(["v0.5"]).makeOptionMandatory())
    .option("--check", "write nothing; exit 1 when a file would change")
    .option("--stdout", "print the rewritten text of one file instead of writing it")
    .option("--stdin-name <file>", "with - as the PATH: the file the text on standard input stands for")
    .action(async (paths: string[], opts: { check?: boolean; stdout?: boolean; stdinName?: string }) => {
      const cwd = process.cwd();
      paths.forEach(pathArgument);
      refuseStdinNameWithoutDash(opts.stdinName, paths);
      if (paths.includes("-")) {
        if (paths.length > 1) throw new CliError("- (standard input) is rewritten alone: give it as the only PATH", EXIT.usage);
        return setCode(await fmtStdin(cwd, io, opts));
      }
      const all: { path: string; files: string[]; before?: Compilation }[] = [];
      let code: number = EXIT.ok;
      const worse = (c: number) => (code = Math.max(code, c));
      for (const given of paths) {
        for (const m of await moduleGroups(given, cwd)) {
          if (m.empty) {
            for (const d of m.before?.diagnostics.filter((x) => x.severity === "error") ?? []) io.err((await formatText(d, m.before!.sources, { color: io.color })) + "\n");
            io.err(`${m.path} holds no workflow files; nothing to rewrite\n`);
            worse(EXIT.problems);
          }
          // A file reached from two PATHs is rewritten once, with the first.
          const files = m.files.filter((f) => !all.some((x) => x.files.includes(f)));
          if (files.length > 0) all.push({ path: m.path, files, ...(m.before ? { before: m.before } : {}) });
        }
      }
      if (opts.stdout && all.flatMap((m) => m.files).length !== 1) throw new CliError("--stdout prints one file: give one HCL file (it has bodies or sibling files rewritten with it)", EXIT.usage);
      for (const { path: modulePath, files: paths, before } of all) {
        const files: SourceFile[] = [];
        const boms = new Set<SourceFile>();
        for (const path of paths) {
          // A file that is no workflow file by its name is not touched (found by a new-user
          // trial: `fmt --to v0.5 *` rewrote a notes.txt that validate refuses).
          if (dialectOf(path) === undefined) {
            io.err((await formatText(unsupportedFileType(path), new Map<string, SourceFile>(), { color: io.color })) + "\n");
            worse(EXIT.problems);
            continue;
          }
          if (dialectOf(path) === "yaml") {
            io.err(`${path}: skipped (YAML and JSON have one form; nothing to rewrite)\n`);
            // With --stdout, the text as it is, as standard input's is (found by a new-user trial:
            // `fmt --stdout f.yaml > g.yaml` wrote an empty file).
            if (opts.stdout) {
              const read = readSource(path, path);
              if (read.file) io.out(read.file.text);
              else {
                for (const d of read.diagnostics) io.err((await formatText(d, new Map<string, SourceFile>(), { color: io.color })) + "\n");
                worse(EXIT.problems);
              }
            }
            continue;
          }
          const read = readSource(path, path);
          if (!read.file) {
            for (const d of read.diagnostics) io.err((await formatText(d, new Map<string, SourceFile>(), { color: io.color })) + "\n");
            worse(EXIT.problems);
            continue;
          }
          if (read.file.text.trim() === "") {
            io.err(`${path}: empty; nothing to rewrite\n`);
            continue;
          }
          files.push(read.file);
          if (read.bom) boms.add(read.file);
        }
        if (files.length === 0) continue;
        const results: Upgrade[] = upgradeModuleToV05(files);
        const failed = results.some((r) => r.problems.length > 0);
        const changedAny = results.some((r) => r.text !== r.file.text);
        if (!failed && changedAny && before) {
          // The promise checked before anything is written: a rewrite that would change what runs is ours to fix.
          const why = await changedMeaning(modulePath, cwd, before, new Map(results.map((r) => [resolvePath(cwd, r.file.path), r.text])));
          if (why) {
            io.err(`${modulePath}: not rewritten: ${why} (a bug of fmt: please report these files)\n`);
            worse(EXIT.internal);
            continue;
          }
        }
        for (const up of results) {
          const path = up.file.path;
          if (up.problems.length > 0) {
            for (const d of up.problems) io.err((await formatText(d, new Map([[path, up.file]]), { color: io.color })) + "\n");
            worse(up.problems.some((d) => d.code === "internal_error") ? EXIT.internal : EXIT.problems);
          }
          if (failed) {
            io.err(`${path}: left unchanged${up.problems.length === 0 ? " (another file of its workflow has problems)" : ""}\n`);
            continue;
          }
          const changed = up.text !== up.file.text;
          if (opts.stdout) {
            io.out(up.text);
            if (changed && opts.check) worse(EXIT.problems);
            continue;
          }
          if (!changed) continue;
          if (opts.check) {
            io.out(`${path}: would be rewritten (${up.changes.length} change${up.changes.length === 1 ? "" : "s"})\n`);
            worse(EXIT.problems);
            continue;
          }
          const error = writeOver(path, up.text, boms.has(up.file));
          if (error) {
            io.err(`${error}; left unchanged\n`);
            worse(EXIT.problems);
            continue;
          }
          io.out(`${path}: rewritten\n${up.changes.map((c) => `  ${c}\n`).join("")}`);
        }
      }
      setCode(code);
    });
}

/**
 * `criteria fmt --to v0.5 -`: the text on standard input rewritten to standard output (an
 * editor's format on save), checked as a file's rewrite is (it must compile to the same
 * graph); YAML and JSON come back as they are. On a problem nothing is printed on standard
 * output (the editor keeps its text) and the diagnostics go to standard error.
 * @returns the exit code: 0, 1 (problems, or `--check` and it would change), 3 (our rewrite broke it)
 */
async function fmtStdin(cwd: string, io: Io, opts: { check?: boolean; stdinName?: string }): Promise<number> {
  const s = await stdinSource(opts.stdinName, cwd);
  if (dialectOf(s.path) !== "hcl") {
    io.out(s.text);
    return EXIT.ok;
  }
  const read = decodeSource(Buffer.from(s.text, "utf8"), s.path);
  const problems = async (ds: readonly Diagnostic[], file?: SourceFile) => {
    for (const d of ds) io.err((await formatText(d, new Map(file ? [[s.path, file]] : []), { color: io.color })) + "\n");
  };
  if (!read.file) {
    await problems(read.diagnostics);
    return EXIT.problems;
  }
  // The other files rewritten with it (its split module's, the bodies it reaches), as on disk,
  // in the module's order: a declaration the rewrite adds goes in the same file whichever file
  // comes on standard input (found by a new-user trial: each file of a split module formatted
  // so declared the adapter its steps name, and the files no longer compiled together).
  const module = await moduleFiles(s.path, cwd, s.overlay);
  const files: SourceFile[] = [];
  for (const f of module.files) {
    if (resolvePath(cwd, f) === s.abs) files.push(read.file);
    else {
      const other = readSource(f, f);
      if (other.file) files.push(other.file);
    }
  }
  if (!files.includes(read.file)) files.unshift(read.file);
  const ups = upgradeModuleToV05(files);
  const up = ups.find((u) => u.file === read.file)!;
  if (up.problems.length > 0) {
    await problems(up.problems, read.file);
    return up.problems.some((d) => d.code === "internal_error") ? EXIT.internal : EXIT.problems;
  }
  const changed = up.text !== read.file.text;
  if (changed) {
    const before = module.before ?? (await compile(s.path, { cwd, overlay: s.overlay }));
    const why = await changedMeaning(s.path, cwd, before, new Map([[s.abs, up.text]]));
    // Only standard input's text can be given back: a rewrite that holds only with the other
    // files' is the whole module's to do (found by a new-user trial: an agent's file formatted
    // on save was refused as "a bug of fmt", its steps' file being the one left to change).
    const alsoChanged = ups.filter((u) => u !== up && u.text !== u.file.text && u.problems.length === 0);
    if (why && alsoChanged.length > 0) {
      io.err(`${s.path}: not rewritten from standard input: rewritten alone, ${why}; the rewrite changes ${alsoChanged.map((u) => u.file.path).join(", ")} with it: run criteria fmt --to v0.5 ${shellWord(dirname(s.path))} to rewrite the files together\n`);
      return EXIT.problems;
    }
    if (why) {
      io.err(`${s.path}: not rewritten: ${why} (a bug of fmt: please report this text)\n`);
      return EXIT.internal;
    }
  }
  io.out(up.text);
  return changed && opts.check ? EXIT.problems : EXIT.ok;
}
