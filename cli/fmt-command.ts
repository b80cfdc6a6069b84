import { accessSync, constants, realpathSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, extname, join } from "node:path";
import { Option, type Command } from "commander";
import type { SourceFile } from "../compiler/diagnostics/source-file.js";
import { formatText } from "../compiler/diagnostics/format-text.js";
import { upgradeModuleToV05, type Upgrade } from "../compiler/fmt/upgrade-v05.js";
import { readSource } from "../compiler/load/read-source.js";
import { WORKFLOW_EXTENSIONS, workflowFiles } from "../compiler/load/workflow-files.js";
import { CliError, EXIT, type Io } from "./io.js";

/** The dialect a file's name says (`hcl`, `yaml`), as the module loader reads it. */
const dialectOf = (path: string) => WORKFLOW_EXTENSIONS[extname(path).toLowerCase()];

/**
 * The modules a PATH names: a file alone, or the HCL files of a directory module as the
 * compiler reads it (compiler/load/workflow-files.ts: one workflow, rewritten together).
 * A PATH that cannot be listed is passed on for readSource to report.
 */
function modules(path: string): string[][] {
  const found = workflowFiles(path);
  if (found.kind !== "dir") return found.kind === "empty-dir" ? [] : [[path]];
  const files = found.files.filter((f) => dialectOf(f) === "hcl");
  return files.length > 0 ? [files] : [];
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
 * rewritten together. Prints each rewritten file and what changed. `--check` writes
 * nothing and exits 1 when a file would change (for CI, like `terraform fmt -check`);
 * `--stdout` prints the result of one file instead of writing it. A module with a file
 * that does not parse is left as it is, with the diagnostics (exit 1); a file that
 * cannot be written is said so (exit 1); a rewrite of ours that would not parse is an
 * internal error (exit 3, the file left as it is). YAML and JSON have one form: skipped.
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
    .action((paths: string[], opts: { check?: boolean; stdout?: boolean }) => {
      const all = paths.flatMap(modules);
      if (opts.stdout && all.flat().length !== 1) throw new CliError("--stdout prints one file: give one HCL file", EXIT.usage);
      let code: number = EXIT.ok;
      const worse = (c: number) => (code = Math.max(code, c));
      for (const paths of all) {
        const files: SourceFile[] = [];
        const boms = new Set<SourceFile>();
        for (const path of paths) {
          if (dialectOf(path) === "yaml") {
            io.err(`${path}: skipped (YAML and JSON have one form; nothing to rewrite)\n`);
            continue;
          }
          const read = readSource(path, path);
          if (!read.file) {
            for (const d of read.diagnostics) io.out(formatText(d, new Map<string, SourceFile>(), { color: io.color }) + "\n");
            worse(EXIT.problems);
            continue;
          }
          files.push(read.file);
          if (read.bom) boms.add(read.file);
        }
        if (files.length === 0) continue;
        const results: Upgrade[] = upgradeModuleToV05(files);
        const failed = results.some((r) => r.problems.length > 0);
        for (const up of results) {
          const path = up.file.path;
          if (up.problems.length > 0) {
            for (const d of up.problems) io.out(formatText(d, new Map([[path, up.file]]), { color: io.color }) + "\n");
            worse(up.problems.some((d) => d.code === "internal_error") ? EXIT.internal : EXIT.problems);
          }
          if (failed) {
            io.out(`${path}: left unchanged${up.problems.length === 0 ? " (another file of its workflow has problems)" : ""}\n`);
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
            io.out(`${error}; left unchanged\n`);
            worse(EXIT.problems);
            continue;
          }
          io.out(`${path}: rewritten\n${up.changes.map((c) => `  ${c}\n`).join("")}`);
        }
      }
      setCode(code);
    });
}
