import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { Option, type Command } from "commander";
import { parse as parseYaml } from "yaml";
import type { Graph } from "../compiler/build/graph.js";
import { suggest } from "../compiler/diagnostics/did-you-mean.js";
import { formatText } from "../compiler/diagnostics/format-text.js";
import type { Value } from "../compiler/expr/value.js";
import { compile } from "../compiler/index.js";
import { workflowFiles } from "../compiler/load/workflow-files.js";
import type { RunEnd, RunEvent } from "../engine/index.js";
import { renderEntry, renderEvent } from "./render-events.js";
import type { Io } from "./io.js";
import { CliError, EXIT } from "./io.js";
import { mismatch, parseType } from "../compiler/decode/types.js";
import { compileOptions, rootOption } from "./compile-options.js";

/** The engine, loaded when a run command starts (`validate` never loads SQLite). */
const engine = () => import("../engine/index.js");

/** Opens an existing journal for reading commands; a missing or broken one is a one-line error. */
async function openJournal(dir: string) {
  const { SqliteJournal, JournalOpenError } = await engine();
  try {
    return new SqliteJournal(dir, { mustExist: true });
  } catch (e) {
    throw e instanceof JournalOpenError ? new CliError(e.message) : e;
  }
}

/** `--state-dir`, else `CRITERIA_STATE_DIR`, else `.criteria/` in the working directory (DESIGN.md). */
function stateDir(opt: string | undefined, io: Io): string {
  return resolve(opt ?? io.env.CRITERIA_STATE_DIR ?? ".criteria");
}

const usage = (m: string) => new CliError(m, EXIT.usage);

/** Run ids: what `--run-id` accepts (nested runs use `/`, `#` and `[]`, so those are refused). */
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * The workflow's variables from `--var-file` (JSON/YAML mappings) and `--var k=v`,
 * converted to and checked against the declared types (Terraform's -var and
 * -var-file). Every problem is a usage error (exit 2) naming the variable.
 */
export function parseVars(graph: Graph, pairs: string[], files: string[]): Record<string, Value> {
  const out: Record<string, Value> = Object.create(null) as Record<string, Value>;
  const names = graph.variables.map((v) => v.name);
  const set = (k: string, v: Value, from: string) => {
    const decl = graph.variables.find((x) => x.name === k);
    if (!decl) throw usage(`${from}: unknown variable "${k}"${names.length ? `; ${suggest(k, names) ?? ""}` : " (the workflow declares none)"}`);
    const t = decl.type ? parseType(decl.type).type : undefined;
    const why = t ? mismatch(t, v) : undefined;
    if (why) throw usage(`${from}: variable "${k}": ${why} (type ${decl.type})`);
    out[k] = v;
  };
  for (const f of files) {
    let data: unknown;
    try {
      data = parseYaml(readFileSync(f, "utf8")) as unknown;
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      throw usage(`--var-file ${f}: ${err.code === "ENOENT" ? "no such file" : err.code === "EISDIR" ? "is a directory" : (err.message ?? String(e)).split("\n")[0]}`);
    }
    if (data === null || typeof data !== "object" || Array.isArray(data)) throw usage(`--var-file ${f}: expected a mapping of variable names to values`);
    for (const [k, v] of Object.entries(data as Record<string, Value>)) set(k, v, `--var-file ${f}`);
  }
  for (const p of pairs) {
    const i = p.indexOf("=");
    if (i <= 0) throw usage(`--var ${p}: expected name=value`);
    const k = p.slice(0, i);
    const raw = p.slice(i + 1);
    const t = graph.variables.find((v) => v.name === k)?.type;
    const kind = t ? parseType(t).type?.kind : "string";
    let v: Value = raw;
    if (kind === "number") {
      if (!/^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(raw.trim())) throw usage(`--var ${k}: "${raw}" is not a number`);
      v = Number(raw);
    } else if (kind === "bool") {
      if (raw !== "true" && raw !== "false") throw usage(`--var ${k}: "${raw}" is not true or false`);
      v = raw === "true";
    } else if (kind && kind !== "string") {
      try {
        v = JSON.parse(raw) as Value;
      } catch {
        if (kind !== "any") throw usage(`--var ${k}: "${raw}" is not JSON for a ${t}`);
      }
    }
    set(k, v, `--var ${k}`);
  }
  return out;
}

function eventSink(io: Io, json: boolean): { sink: (e: RunEvent) => void; start: number } {
  const start = Date.now();
  return {
    start,
    sink: (e) => {
      if (json) io.out(JSON.stringify(e) + "\n");
      else {
        const line = renderEvent(e, start);
        if (line) io.out(line + "\n");
      }
    },
  };
}

function exitFor(end: RunEnd): number {
  return end.success ? EXIT.ok : EXIT.problems;
}

/** Runs `fn` with SIGINT/SIGTERM turned into a resumable interruption. */
async function interruptible(fn: (signal: AbortSignal) => Promise<number>): Promise<number> {
  const { RunInterrupted, RunLockedError, RunRefused, JournalOpenError, JournalWriteError, killLiveProcessGroups } = await engine();
  const ctl = new AbortController();
  // Ctrl-C: stop the run where it stands (resumable) and signal the children's process
  // groups, which do not see the terminal's SIGINT themselves.
  const stop = () => {
    ctl.abort();
    killLiveProcessGroups();
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    return await fn(ctl.signal);
  } catch (e) {
    if (e instanceof RunInterrupted) throw new CliError(`run ${e.runId} interrupted; continue it with criteria resume ${e.runId}`);
    if (e instanceof RunLockedError) throw new CliError(`${e.message}; refusing to run it twice`);
    if (e instanceof RunRefused || e instanceof JournalOpenError) throw new CliError(e.message);
    if (e instanceof JournalWriteError) throw new CliError(`${e.message}; the journal holds everything before it: criteria resume continues`);
    throw e;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    killLiveProcessGroups();
  }
}

const collect = (v: string, prev: string[]) => [...prev, v];

/**
 * The `--input` object against the workflow (usage errors, exit 2): every `input.<key>`
 * the workflow reads is there, and a key that binds a variable (when `--var` does not)
 * fits the variable's type.
 */
function checkInput(graph: Graph, input: Record<string, Value>, vars: string[]): void {
  const missing = (graph.input_keys ?? []).filter((k) => !Object.prototype.hasOwnProperty.call(input, k));
  if (missing.length > 0) {
    const example = JSON.stringify(Object.fromEntries((graph.input_keys ?? []).map((k) => [k, "..."])));
    throw usage(`workflow "${graph.name}" reads ${missing.map((k) => `input.${k}`).join(", ")}: pass --input '${example}'`);
  }
  for (const [k, v] of Object.entries(input)) {
    const decl = graph.variables.find((x) => x.name === k);
    if (!decl?.type || vars.some((p) => p.startsWith(`${k}=`))) continue;
    const t = parseType(decl.type).type;
    const why = t ? mismatch(t, v) : undefined;
    if (why) throw usage(`--input ${k}: variable "${k}": ${why} (type ${decl.type})`);
  }
}

/**
 * `--input '{"task": "..."}'` or `--input @file.json` (JSON or YAML): the run's `input`
 * namespace, an object (seed 000: a flow runs alone, its body reading `input.task`).
 */
export function parseInput(text: string): Record<string, Value> {
  let data: unknown;
  if (text.startsWith("@")) {
    const file = text.slice(1);
    try {
      data = parseYaml(readFileSync(file, "utf8")) as unknown;
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      throw usage(`--input @${file}: ${err.code === "ENOENT" ? "no such file" : err.code === "EISDIR" ? "is a directory" : (err.message ?? String(e)).split("\n")[0]}`);
    }
  } else {
    try {
      data = JSON.parse(text) as unknown;
    } catch (e) {
      throw usage(`--input: not JSON (${(e as Error).message}); write --input '{"task": "..."}' or --input @file.json`);
    }
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) throw usage(`--input: expected a JSON object, e.g. {"task": "..."}`);
  return data as Record<string, Value>;
}

/**
 * Registers the engine commands (issue #3): apply, resume, runs, journal, signal,
 * approve, reject. Each sets the exit code through `setCode`.
 */
export function registerRunCommands(program: Command, io: Io, setCode: (c: number) => void): void {
  const outputOpt = () => new Option("-o, --output <format>", "events as text lines or NDJSON (default: text on a TTY, json when piped)").choices(["text", "json"]);
  program
    .command("apply")
    .description("run a workflow to its end, journaled (resumable after a crash)")
    .argument("<path>", "workflow file or directory")
    .option("--var <name=value>", "set a variable (repeatable)", collect, [])
    .option("--var-file <file>", "variables from a JSON/YAML file (repeatable)", collect, [])
    .option("--state-dir <dir>", "journal directory (default: $CRITERIA_STATE_DIR or .criteria)")
    .option("--run-id <id>", "choose the run id (refused if it exists)")
    .option("--input <json>", "the run's input object, read as input.<key> (a flow run alone); @file.json reads it from a file")
    .option("--auto-approve", "approve every approval node")
    .addOption(rootOption())
    .addOption(outputOpt())
    .action(async (path: string, opts: { var: string[]; varFile: string[]; input?: string; stateDir?: string; runId?: string; autoApprove?: boolean; output?: string; root?: string }) => {
      const input = opts.input !== undefined ? parseInput(opts.input) : {};
      const c = await compile(path, compileOptions(opts, io));
      if (!c.graph) {
        for (const d of c.diagnostics) io.err(formatText(d, c.sources) + "\n");
        setCode(c.diagnostics.some((d) => d.code === "internal_error") ? EXIT.internal : EXIT.problems);
        return;
      }
      const graph = c.graph;
      checkInput(graph, input, opts.var);
      const found = workflowFiles(resolve(path));
      const baseDir = found.kind === "dir" ? resolve(path) : dirname(resolve(path));
      const json = opts.output ? opts.output === "json" : !io.isTTY;
      if (opts.runId !== undefined && !RUN_ID.test(opts.runId)) {
        throw usage(`--run-id "${opts.runId}": use letters, digits, ".", "_" and "-" (at most 128, starting with a letter or digit)`);
      }
      setCode(
        await interruptible(async (signal) => {
          const vars = parseVars(graph, opts.var, opts.varFile);
          const { sink } = eventSink(io, json);
          const { apply } = await engine();
          const end = await apply(graph, vars, { stateDir: stateDir(opts.stateDir, io), baseDir, events: sink, autoApprove: opts.autoApprove, signal, runId: opts.runId, input });
          return exitFor(end);
        }),
      );
    });

  program
    .command("resume")
    .description("continue a run from its journal: finished steps are re-used, nothing confirmed runs twice")
    .argument("<run>", "the run id (criteria runs lists them)")
    .option("--state-dir <dir>", "journal directory")
    .option("--auto-approve", "approve every approval node")
    .addOption(outputOpt())
    .action(async (run: string, opts: { stateDir?: string; autoApprove?: boolean; output?: string }) => {
      const json = opts.output ? opts.output === "json" : !io.isTTY;
      setCode(
        await interruptible(async (signal) => {
          const { sink } = eventSink(io, json);
          const { resume, SqliteJournal } = await engine();
          const j = new SqliteJournal(stateDir(opts.stateDir, io), { mustExist: true });
          // Opening recovers a torn write-ahead log (and checkpoints it): say so here.
          for (const note of j.notes) sink({ event: "warning", run_id: run, message: note });
          const row = j.run(run);
          j.close();
          if (!row) throw new CliError(`no run ${run} in ${stateDir(opts.stateDir, io)} (criteria runs lists them)`);
          if (row.parent_run_id) throw new CliError(`${run} is a nested run; resume its root run ${row.root_run_id}`);
          if (row.status !== "active") {
            io.out(`run ${run} has already ended: ${row.status}${row.final_state ? ` in state "${row.final_state}"` : ""} (criteria journal ${run} shows it)\n`);
            return row.status === "succeeded" ? EXIT.ok : EXIT.problems;
          }
          const end = await resume(run, { stateDir: stateDir(opts.stateDir, io), baseDir: process.cwd(), events: sink, autoApprove: opts.autoApprove, signal });
          return exitFor(end);
        }),
      );
    });

  program
    .command("runs")
    .description("list runs in the journal, newest first")
    .option("--state-dir <dir>", "journal directory")
    .option("--all", "include nested runs")
    .addOption(new Option("-o, --output <format>", "text or json").choices(["text", "json"]).default("text"))
    .action(async (opts: { stateDir?: string; all?: boolean; output: string }) => {
      const j = await openJournal(stateDir(opts.stateDir, io));
      try {
        const rows = j.runs({ roots: !opts.all });
        if (opts.output === "json") io.out(rows.map((r) => JSON.stringify(r)).join("\n") + (rows.length ? "\n" : ""));
        else if (rows.length === 0) io.out("no runs\n");
        else for (const r of rows) io.out(`${r.run_id}  ${r.status.padEnd(9)}  ${r.workflow}  ${new Date(r.created_ms).toISOString()}${r.final_state ? `  state=${r.final_state}` : ""}\n`);
      } finally {
        j.close();
      }
    });

  program
    .command("journal")
    .description("print a run's journal as a timeline (or NDJSON)")
    .argument("<run>", "the run id")
    .option("--state-dir <dir>", "journal directory")
    .addOption(new Option("-o, --output <format>", "text or json (NDJSON)").choices(["text", "json"]).default("text"))
    .action(async (run: string, opts: { stateDir?: string; output: string }) => {
      const j = await openJournal(stateDir(opts.stateDir, io));
      try {
        // A nested run (`criteria runs --all` lists them) is read from its root's tree.
        const root = j.run(run)?.root_run_id ?? run;
        const tree = j.read(root);
        const corrupt = tree.corrupt;
        const entries = root === run ? tree.entries : tree.entries.filter((e) => e.run_id === run || e.run_id.startsWith(`${run}/`));
        if (entries.length === 0) {
          io.err(`criteria: no run ${run} in ${stateDir(opts.stateDir, io)} (criteria runs lists them)\n`);
          setCode(EXIT.problems);
          return;
        }
        const start = entries[0].at_ms;
        for (const e of entries) io.out((opts.output === "json" ? JSON.stringify(e) : renderEntry(e, start)) + "\n");
        if (corrupt) io.err(`criteria: ${corrupt}\n`);
      } finally {
        j.close();
      }
    });

  /**
   * Records a signal or an approval decision for a run, after checking it can matter:
   * the run is active, the signal is one a `wait` of the workflow listens for, the
   * approval node exists and is waiting for a decision nobody has given yet.
   */
  const deliver = async (run: string, target: { signal: string } | { approval: string }, payload: Value | undefined, by: string | undefined, dir: string | undefined) => {
    const { deliverSignal, foldEntries } = await engine();
    const j = await openJournal(stateDir(dir, io));
    try {
      const row = j.run(run);
      if (!row) throw new CliError(`no run ${run} in ${stateDir(dir, io)} (criteria runs lists them)`);
      if (row.status !== "active") throw new CliError(`run ${run} has already ended (${row.status})`);
      const tree = foldEntries(j.read(row.root_run_id).entries);
      const graph = tree.runs.get(row.root_run_id)?.spawned?.graph as Graph | undefined;
      const graphs: Graph[] = [];
      const walk = (g: Graph | undefined) => {
        if (!g) return;
        graphs.push(g);
        for (const s of g.steps) walk(s.body);
      };
      walk(graph);
      for (const m of Object.values(graph?.modules ?? {})) walk(m);
      let name: string;
      if ("signal" in target) {
        if (target.signal.startsWith("approval:")) throw usage(`"${target.signal}" is an approval: use criteria approve|reject ${run} ${target.signal.slice(9)}`);
        const signals = graphs.flatMap((g) => g.waits.map((w) => w.signal ?? w.name));
        if (!signals.includes(target.signal)) {
          throw new CliError(`workflow of run ${run} waits for no signal "${target.signal}"${signals.length ? `; ${suggest(target.signal, signals) ?? `it waits for ${signals.join(", ")}`}` : ""}`);
        }
        name = target.signal;
      } else {
        const nodes = graphs.flatMap((g) => g.approvals.map((a) => a.name));
        if (!nodes.includes(target.approval)) {
          throw new CliError(`workflow of run ${run} has no approval "${target.approval}"${nodes.length ? `; ${suggest(target.approval, nodes) ?? `its approvals: ${nodes.join(", ")}`}` : ""}`);
        }
        name = `approval:${target.approval}`;
        const waiting = [...tree.runs.values()].some((r) => [...r.approvals].some(([k, a]) => k.startsWith(`${target.approval}#`) && a.requested && !a.decided));
        const given = tree.signals.some((s) => s.payload.name === name && !tree.consumed.has(s.seq));
        if (given) throw new CliError(`approval "${target.approval}" of run ${run} has already been decided`);
        if (!waiting) throw new CliError(`run ${run} is not waiting for approval "${target.approval}"`);
      }
      const e = deliverSignal(j, row.root_run_id, name, payload, by, Date.now());
      io.out(`delivered ${name} to ${run} (journal entry ${e.seq})\n`);
      return EXIT.ok;
    } finally {
      j.close();
    }
  };

  program
    .command("signal")
    .description("deliver a signal to a run waiting in a wait { signal } node")
    .argument("<run>", "the run id")
    .argument("<name>", "the signal name")
    .option("--payload <json>", "a JSON value carried with the signal")
    .option("--state-dir <dir>", "journal directory")
    .action(async (run: string, name: string, opts: { payload?: string; stateDir?: string }) => {
      let payload: Value | undefined;
      if (opts.payload !== undefined) {
        try {
          payload = JSON.parse(opts.payload) as Value;
        } catch {
          io.err(`criteria: --payload is not JSON\n`);
          setCode(EXIT.usage);
          return;
        }
      }
      setCode(await deliver(run, { signal: name }, payload, undefined, opts.stateDir));
    });

  for (const decision of ["approve", "reject"] as const) {
    program
      .command(decision)
      .description(`${decision} a run's pending approval node`)
      .argument("<run>", "the run id")
      .argument("<node>", "the approval node's name")
      .option("--by <name>", "who decides (recorded in the journal)", io.env.USER ?? "cli")
      .option("--state-dir <dir>", "journal directory")
      .action(async (run: string, node: string, opts: { by: string; stateDir?: string }) => {
        setCode(await deliver(run, { approval: node }, decision === "approve" ? "approved" : "rejected", opts.by, opts.stateDir));
      });
  }
}
