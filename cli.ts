import { createRequire } from "node:module";
import { join } from "node:path";
import { packageRoot } from "./compiler/package-root.js";
import { Command, CommanderError, Option } from "commander";
import { goToolHint } from "./cli/go-tool-flags.js";
import { compile, type Compilation } from "./compiler/index.js";
import { CODES, type Code } from "./compiler/diagnostics/codes.js";
import type { Diagnostic } from "./compiler/diagnostics/diagnostic.js";
import { toJsonReport } from "./compiler/diagnostics/format-json.js";
import { toSarif } from "./compiler/diagnostics/format-sarif.js";
import { formatText } from "./compiler/diagnostics/format-text.js";
import { sortDiagnostics } from "./compiler/diagnostics/sort.js";
import { toDot } from "./compiler/build/format-dot.js";
import { useGraphDot } from "./compiler/build/format-use-graph-dot.js";
import { useGraphMermaid } from "./compiler/build/format-use-graph-mermaid.js";
import { closestName } from "./compiler/diagnostics/did-you-mean.js";
import { refuseStdinNameWithoutDash, stdinSource } from "./cli/stdin-source.js";
import { toMermaid } from "./compiler/build/format-mermaid.js";
import { toSvg } from "./compiler/build/format-svg.js";
import { toPlan } from "./compiler/build/format-plan.js";
import { MissingPackage } from "./compiler/require-package.js";
import { shown } from "./compiler/diagnostics/control-pictures.js";
import { CliError, EXIT, processIo, type Io } from "./cli/io.js";
import { compileOptions, pathArgument, rootOption } from "./cli/compile-options.js";
import { registerFmtCommand } from "./cli/fmt-command.js";
import { registerRunCommands } from "./cli/run-commands.js";
import { registerWorkerCommand } from "./cli/worker-command.js";
import { registerChannelCommand } from "./cli/channel-command.js";
import { registerLspCommand } from "./cli/lsp-command.js";
import { textReport } from "./cli/text-report.js";
import { watchValidate } from "./cli/validate-watch.js";
import { JournalError } from "./engine/journal/errors.js";

export { EXIT, type Io } from "./cli/io.js";

const VERSION = (createRequire(import.meta.url)(join(packageRoot(), "package.json")) as { version: string }).version;


async function report(c: Compilation[], format: string, io: Io, verbose = false): Promise<number> {
  const all = sortDiagnostics(c.flatMap((x) => x.diagnostics));
  if (format === "json") {
    io.out(JSON.stringify(toJsonReport(c.flatMap((x) => x.files), all, c.map((x) => x.useGraph ?? { modules: [], edges: [] }), c), null, 2) + "\n");
  } else if (format === "sarif") {
    io.out(JSON.stringify(toSarif(all, VERSION), null, 2) + "\n");
  } else {
    const github = io.env.GITHUB_ACTIONS === "true";
    const workspace = io.env.GITHUB_WORKSPACE || undefined;
    for (const comp of c) io.out(await textReport(comp, { color: io.color, github, verbose, ...(workspace ? { workspace } : {}) }));
  }
  return all.some((d) => d.severity === "error") ? (all.some((d) => d.code === "internal_error") ? EXIT.internal : EXIT.problems) : EXIT.ok;
}

/**
 * True when the command line asks for JSON output (`-o json`, `--output json`, `--output=json`,
 * and `-f json` for a command whose `--format` offers json: validate, compile, journal). Graph's
 * `--format` is the picture's (svg, dot, mermaid): `graph --format json` is a usage error in
 * text, not a request for JSON errors (found by a new-user trial: a JSON exit object on stdout
 * besides the error on stderr; README: -o json makes errors one JSON object).
 */
function wantsJson(argv: string[], program: Command): boolean {
  const format = program.commands.find((c) => c.name() === argv[0])?.options.find((o) => o.long === "--format");
  const formatJson = format?.argChoices?.includes("json") === true;
  return argv.some(
    (a, i) => a === "--output=json" || a === "-ojson" || ((a === "-o" || a === "--output") && argv[i + 1] === "json") || (formatJson && (a === "--format=json" || a === "-fjson" || ((a === "-f" || a === "--format") && argv[i + 1] === "json"))),
  );
}

/**
 * Prints diagnostics to stderr for commands whose stdout is data (compile, plan, graph);
 * `json`: stdout gets one JSON object too, `{"event":"exit","code":1,"status":"error",
 * "message","diagnostics"}` (the diagnostics as `validate --format json` gives them), so a
 * CI step writing `compile -f json` to a file gets the reason, not an empty file (found by
 * a new-user trial of CI use).
 */
async function failWith(c: Compilation, io: Io, json = false): Promise<number> {
  for (const d of c.diagnostics) io.err((await formatText(d, c.sources, { color: false })) + "\n");
  const code = c.diagnostics.some((d: Diagnostic) => d.code === "internal_error") ? EXIT.internal : EXIT.problems;
  if (json) {
    const report = toJsonReport(c.files, c.diagnostics);
    const message = `${c.path}: ${report.error_count} error${report.error_count === 1 ? "" : "s"}: no graph`;
    io.out(JSON.stringify({ event: "exit", code, status: "error", message, diagnostics: report.diagnostics }) + "\n");
  }
  return code;
}

/** The `--stdin-name` option's help, the same on every command that reads `-`. */
const STDIN_NAME_HELP = "with - as the PATH: the file the text on standard input stands for (its dialect and directory)";

/**
 * Builds the `criteria` command line (commander). Returns the exit code instead of
 * exiting, so tests run it in-process; `bin/criteria` calls `process.exit` with it.
 */
export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  let code: number = EXIT.ok;
  /**
   * Compiles PATH; `-` is the text on standard input, as the file `stdinName` (its dialect and
   * directory; validate's way, for compile, graph and plan too: found by a new-user trial,
   * `graph -` said "- does not exist").
   */
  const compileGiven = async (path: string, opts: { root?: string; stdinName?: string }): Promise<Compilation> => {
    if (path !== "-") return compile(path, compileOptions(opts, io, [path]));
    const s = await stdinSource(opts.stdinName, process.cwd());
    return compile(s.path, { ...compileOptions(opts, io, []), overlay: s.overlay });
  };
  const program = new Command();
  program
    .name("criteria")
    .description("Compile, check and run declarative agent workflows (HCL, YAML, JSON).")
    .version(VERSION)
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .showHelpAfterError("(run criteria --help for usage)");

  program
    .command("validate")
    .description("check workflow files and directories; print PATH: ok or diagnostics")
    .argument("<paths...>", "workflow files or directories (a directory is one workflow)")
    .addOption(new Option("-f, --format <format>", "output format").choices(["text", "json", "sarif"]).default("text"))
    // apply, resume and journal spell it -o/--output: found by a new-user trial (validate -o json was refused).
    .addOption(new Option("-o, --output <format>", "the same as --format").choices(["text", "json", "sarif"]))
    .option("-v, --verbose", "also print each PATH's module graph (use, subworkflow and workflow_file edges)")
    .option("-w, --watch", "validate again whenever a file a PATH reads changes, printing only what changed (text; Ctrl-C stops)")
    .option("--stdin-name <file>", STDIN_NAME_HELP)
    .addOption(rootOption())
    .action(async (paths: string[], given: { format: string; output?: string; verbose?: boolean; root?: string; watch?: boolean; stdinName?: string }, command: Command) => {
      // Both given and not the same is refused, as journal does (found by a new-user trial: -o sarif --format json printed SARIF silently).
      if (given.output !== undefined && command.getOptionValueSource("format") !== "default" && given.output !== given.format) {
        throw new CliError(`-o ${given.output} and --format ${given.format} disagree; give one of them`, EXIT.usage);
      }
      const opts = { ...given, format: given.output ?? given.format };
      paths.forEach(pathArgument);
      refuseStdinNameWithoutDash(given.stdinName, paths);
      if (paths.filter((p) => p === "-").length > 1) throw new CliError("- (standard input) may be given once", EXIT.usage);
      if (opts.watch) {
        if (opts.format !== "text") throw new CliError(`--watch prints text: drop ${given.output !== undefined ? "-o" : "--format"} ${opts.format}`, EXIT.usage);
        if (paths.includes("-")) throw new CliError("--watch watches files: standard input (-) cannot be watched", EXIT.usage);
        const stop = new AbortController();
        const onSignal = () => stop.abort();
        process.once("SIGINT", onSignal);
        process.once("SIGTERM", onSignal);
        code = await watchValidate(paths, compileOptions(opts, io, paths), io, stop.signal, { color: io.color, verbose: opts.verbose === true });
        return;
      }
      const results: Compilation[] = [];
      for (const p of paths) results.push(await compileGiven(p, opts));
      code = await report(results, opts.format, io, opts.verbose === true);
    });

  program
    .command("compile")
    .description("compile a workflow to its graph")
    .argument("<path>", "workflow file or directory (- : standard input)", pathArgument)
    .addOption(new Option("-f, --format <format>", "output format").choices(["json", "dot", "mermaid"]).default("json"))
    .option("--stdin-name <file>", STDIN_NAME_HELP)
    .addOption(rootOption())
    .action(async (path: string, opts: { format: string; root?: string; stdinName?: string }) => {
      refuseStdinNameWithoutDash(opts.stdinName, [path]);
      const c = await compileGiven(path, opts);
      if (!c.graph) {
        code = await failWith(c, io, opts.format === "json");
        return;
      }
      for (const d of c.diagnostics) io.err((await formatText(d, c.sources)) + "\n");
      io.out(opts.format === "dot" ? toDot(c.graph) : opts.format === "mermaid" ? toMermaid(c.graph) : JSON.stringify(c.graph, null, 2) + "\n");
    });

  program
    .command("graph")
    .description("draw a workflow's graph: SVG laid out by Graphviz (WebAssembly, nothing to install), or its DOT or Mermaid text")
    .argument("<path>", "workflow file or directory (- : standard input)", pathArgument)
    .addOption(new Option("-f, --format <format>", "output format").choices(["svg", "dot", "mermaid"]).default("svg"))
    .option("--stdin-name <file>", STDIN_NAME_HELP)
    .addOption(rootOption())
    .action(async (path: string, opts: { format: string; root?: string; stdinName?: string }) => {
      refuseStdinNameWithoutDash(opts.stdinName, [path]);
      const c = await compileGiven(path, opts);
      // A refused module or use cycle leaves no workflow graph: the modules are drawn, the cycle in red.
      const cycle = c.diagnostics.some((d) => d.code === "module_cycle" || d.code === "use_cycle");
      if (!c.graph && cycle && c.useGraph) {
        code = await failWith(c, io);
        if (opts.format === "mermaid") return io.out(useGraphMermaid(c.useGraph));
        const dot = useGraphDot(c.useGraph, c.useGraph.modules[0]?.name ?? "modules");
        io.out(opts.format === "dot" ? dot : await toSvg(dot));
        return;
      }
      if (!c.graph) {
        code = await failWith(c, io);
        return;
      }
      for (const d of c.diagnostics) io.err((await formatText(d, c.sources)) + "\n");
      if (opts.format === "mermaid") return io.out(toMermaid(c.graph));
      const dot = toDot(c.graph, { picture: true, unbounded: c.diagnostics.some((d) => d.code === "unbounded_loop") });
      if (opts.format === "dot") return io.out(dot);
      try {
        io.out(await toSvg(dot));
      } catch (e) {
        if (e instanceof MissingPackage) throw e;
        // Graphviz in WebAssembly has a bounded stack: a graph of several hundred steps can exhaust it.
        throw new CliError(`Graphviz could not lay out the graph of ${path}: ${(e as Error).message}; criteria graph --format dot prints it for a native Graphviz (dot -Tsvg)`);
      }
    });

  program
    .command("plan")
    .description("print a readable summary of what a run would do")
    .argument("<path>", "workflow file or directory (- : standard input)", pathArgument)
    .option("--stdin-name <file>", STDIN_NAME_HELP)
    .addOption(rootOption())
    .action(async (path: string, opts: { root?: string; stdinName?: string }) => {
      refuseStdinNameWithoutDash(opts.stdinName, [path]);
      const c = await compileGiven(path, opts);
      if (!c.graph) {
        code = await failWith(c, io);
        return;
      }
      for (const d of c.diagnostics) io.err((await formatText(d, c.sources)) + "\n");
      // Names and values from the files, control characters among them, shown as pictures
      // (found by a new-user trial: plan printed a default's raw ESC).
      io.out(shown(toPlan(c.graph), true));
    });

  program
    .command("explain")
    .description("describe a diagnostic code (or list them all)")
    .argument("[code]", "a diagnostic code, e.g. unknown_target")
    .action((name?: string) => {
      if (!name) {
        for (const [k, v] of Object.entries(CODES)) io.out(`${k.padEnd(28)} ${v.severity.padEnd(8)} ${v.doc}\n`);
        return;
      }
      // As validate prints it, pasted whole: `error[unknown_node]` (found by a new-user trial: refused).
      const asked = name;
      name = /^(?:error|warning)\[([\w-]+)\]:?$/.exec(name)?.[1] ?? name;
      const entry = Object.prototype.hasOwnProperty.call(CODES, name) ? (CODES as Record<string, { severity: string; doc: string }>)[name] : undefined;
      if (!entry) {
        const near = closestName(name, Object.keys(CODES));
        io.err(`criteria: unknown diagnostic code "${shown(asked)}"${near ? `; did you mean "${near}"?` : ""} (criteria explain lists them)\n`);
        code = EXIT.usage;
        return;
      }
      io.out(`${name as Code} (${entry.severity}): ${entry.doc}\n`);
    });

  registerFmtCommand(program, io, (c) => {
    code = c;
  });

  registerRunCommands(program, io, (c) => {
    code = c;
  });

  registerWorkerCommand(program, io, (c) => {
    code = c;
  });

  registerChannelCommand(program, io, (c) => {
    code = c;
  });

  registerLspCommand(program);

  if (argv.length === 0) {
    io.err(program.helpInformation());
    return EXIT.usage;
  }
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (e) {
    if (e instanceof CliError) {
      // With -o json an error is one JSON object too, besides the line on stderr.
      if (wantsJson(argv, program)) io.out(JSON.stringify({ event: "exit", code: e.exitCode, status: "error", message: e.message }) + "\n");
      io.err(`criteria: ${shown(e.message, true)}\n`);
      return e.exitCode;
    }
    if (e instanceof CommanderError) {
      // Help shown for want of a subcommand (`criteria channel`) is commander's exit code 1: a usage
      // error, as `criteria` alone is (found by a new-user trial: it exited 0).
      if (e.code === "commander.helpDisplayed" || e.code === "commander.version" || (e.code === "commander.help" && e.exitCode === 0)) return EXIT.ok;
      const goTool = goToolHint(e.message, argv[0]);
      if (goTool) io.err(`${goTool}\n`);
      // Commander said it on stderr; with -o json it is one JSON object on stdout too (found by a new-user trial of CI use).
      if (wantsJson(argv, program)) io.out(JSON.stringify({ event: "exit", code: EXIT.usage, status: "error", message: e.message.replace(/^error: /, "") }) + "\n");
      return EXIT.usage;
    }
    // A journal that cannot be read or written is the user's storage, not our bug: one line.
    if (e instanceof JournalError) {
      if (wantsJson(argv, program)) io.out(JSON.stringify({ event: "exit", code: EXIT.problems, status: "error", message: e.message }) + "\n");
      io.err(`criteria: ${shown(e.message, true)}\n`);
      return EXIT.problems;
    }
    // An incomplete installation: one line and the fix, no stack trace (exit 3, as bin/criteria's own check).
    if (e instanceof MissingPackage) {
      if (wantsJson(argv, program)) io.out(JSON.stringify({ event: "exit", code: EXIT.internal, status: "error", message: e.message }) + "\n");
      io.err(`criteria: ${shown(e.message, true)}\n`);
      return EXIT.internal;
    }
    io.err(`criteria: internal error: ${(e as Error)?.stack ?? String(e)}\n`);
    return EXIT.internal;
  }
  return code;
}
