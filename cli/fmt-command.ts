import { readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { extname, join } from "node:path";
import { Option, type Command } from "commander";
import type { SourceFile } from "../compiler/diagnostics/source-file.js";
import { formatText } from "../compiler/diagnostics/format-text.js";
import { upgradeToV05 } from "../compiler/fmt/upgrade-v05.js";
import { readSource } from "../compiler/load/read-source.js";
import { EXIT, type Io } from "./io.js";

const HCL = new Set([".hcl", ".chcl"]);

/** The HCL files a PATH names: the file itself, or the `.hcl`/`.chcl` files directly in a directory (sorted). */
function hclFiles(path: string): string[] {
  let st;
  try {
    st = statSync(path);
  } catch {
    return [path]; // readSource reports it with its position
  }
  if (!st.isDirectory()) return [path];
  return readdirSync(path)
    .filter((n) => HCL.has(extname(n)))
    .sort()
    .map((n) => join(path, n));
}

/**
 * Registers `criteria fmt --to v0.5 [--check] [--stdout] PATH...`: rewrites older forms of
 * HCL files into the Go tool's v0.5 forms (compiler/fmt/upgrade-v05.ts), in place (a
 * temporary file renamed over the original, so a file is never half written; a UTF-8
 * BOM is kept). Prints each rewritten file and what changed. `--check` writes nothing
 * and exits 1 when a file would change (for CI, like `terraform fmt -check`); `--stdout`
 * prints the result instead of writing it. A file that does not parse is left as it is,
 * with its diagnostics (exit 1). YAML and JSON have one form: they are skipped.
 *
 * @param setCode receives the command's exit code
 */
export function registerFmtCommand(program: Command, io: Io, setCode: (code: number) => void): void {
  program
    .command("fmt")
    .description("rewrite older forms of HCL workflow files into the current (v0.5) ones, keeping comments and layout")
    .argument("<paths...>", "HCL files, or directories (their .hcl and .chcl files)")
    .addOption(new Option("--to <version>", "the language version to write").choices(["v0.5"]).makeOptionMandatory())
    .option("--check", "write nothing; exit 1 when a file would change")
    .option("--stdout", "print the rewritten text instead of writing the file")
    .action((paths: string[], opts: { check?: boolean; stdout?: boolean }) => {
      let code: number = EXIT.ok;
      for (const path of paths.flatMap(hclFiles)) {
        if (!HCL.has(extname(path)) && /\.(ya?ml|json)$/i.test(path)) {
          io.err(`${path}: skipped (YAML and JSON have one form; nothing to rewrite)\n`);
          continue;
        }
        const read = readSource(path, path);
        if (!read.file) {
          for (const d of read.diagnostics) io.out(formatText(d, new Map<string, SourceFile>(), { color: io.color }) + "\n");
          code = EXIT.problems;
          continue;
        }
        const up = upgradeToV05(read.file);
        if (up.problems.length > 0) {
          for (const d of up.problems) io.out(formatText(d, new Map([[path, read.file]]), { color: io.color }) + "\n");
          io.out(`${path}: left unchanged\n`);
          code = EXIT.problems;
          continue;
        }
        if (opts.stdout) {
          io.out(up.text);
          continue;
        }
        if (up.text === read.file.text) continue;
        if (opts.check) {
          io.out(`${path}: would be rewritten (${up.changes.length} change${up.changes.length === 1 ? "" : "s"})\n`);
          code = EXIT.problems;
          continue;
        }
        const bom = readFileSync(path).subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf])) ? "\ufeff" : "";
        const tmp = `${path}.criteria-fmt-${process.pid}`;
        writeFileSync(tmp, bom + up.text, { mode: statSync(path).mode });
        renameSync(tmp, path);
        io.out(`${path}: rewritten\n${up.changes.map((c) => `  ${c}\n`).join("")}`);
      }
      setCode(code);
    });
}
