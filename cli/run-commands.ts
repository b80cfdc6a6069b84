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
import { EXIT } from "./io.js";

/** The engine, loaded when a run command starts (`validate` never loads SQLite). */
const engine = () => import("../engine/index.js");

/** `--state-dir`, else `CRITERIA_STATE_DIR`, else `.criteria/` in the working directory (DESIGN.md). */
function stateDir(opt: string | undefined, io: Io): string {
  return resolve(opt ?? io.env.CRITERIA_STATE_DIR ?? ".criteria");
}

/** A usage problem: printed, exit 2. */
class UsageError extends Error {}

/** Converts `--var k=v` strings to the declared variable types (Terraform's -var). */
export function parseVars(graph: Graph, pairs: string[], files: string[]): Record<string, Value> {
  const out: Record<string, Value> = {};
  const names = graph.variables.map((v) => v.name);
  const set = (k: string, v: Value) => {
    if (!names.includes(k)) throw new UsageError(`unknown variable "${k}"${names.length ? `; ${suggest(k, names)}` : " (the workflow declares none)"}`);
    out[k] = v;
  };
  for (const f of files) {
    const data = parseYaml(readFileSync(f, "utf8")) as unknown;
    if (data === null || typeof data !== "object" || Array.isArray(data)) throw new UsageError(`--var-file ${f}: expected a mapping of variable names to values`);
    for (const [k, v] of Object.entries(data as Record<string, Value>)) set(k, v);
  }
  for (const p of pairs) {
    const i = p.indexOf("=");
    if (i <= 0) throw new UsageError(`--var ${p}: expected name=value`);
    const k = p.slice(0, i);
    const raw = p.slice(i + 1);
    const type = graph.variables.find((v) => v.name === k)?.type ?? "string";
    let v: Value = raw;
    if (type === "number") {
      v = Number(raw);
      if (raw.trim() === "" || !Number.isFinite(v)) throw new UsageError(`--var ${k}: "${raw}" is not a number`);
    } else if (type === "bool") {
      if (raw !== "true" && raw !== "false") throw new UsageError(`--var ${k}: "${raw}" is not true or false`);
      v = raw === "true";
    } else if (/^(list|map|object|set|tuple|any)/.test(type)) {
      try {
        v = JSON.parse(raw) as Value;
      } catch {
        if (type !== "any") throw new UsageError(`--var ${k}: "${raw}" is not JSON for a ${type}`);
      }
    }
    set(k, v);
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
async function interruptible(io: Io, fn: (signal: AbortSignal) => Promise<number>): Promise<number> {
  const { RunInterrupted, RunLockedError, killLiveProcessGroups } = await engine();
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
    if (e instanceof RunInterrupted) {
      io.err("criteria: run interrupted; continue it with criteria resume <run>\n");
      return EXIT.problems;
    }
    if (e instanceof RunLockedError) {
      io.err(`criteria: ${e.message}; refusing to run it twice\n`);
      return EXIT.problems;
    }
    if (e instanceof UsageError) {
      io.err(`criteria: ${e.message}\n`);
      return EXIT.usage;
    }
    if (e instanceof Error && /^(variable ".*" is required|run .* (already exists|not found))/.test(e.message)) {
      io.err(`criteria: ${e.message}\n`);
      return EXIT.problems;
    }
    throw e;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    killLiveProcessGroups();
  }
}

const collect = (v: string, prev: string[]) => [...prev, v];

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
    .option("--auto-approve", "approve every approval node")
    .addOption(outputOpt())
    .action(async (path: string, opts: { var: string[]; varFile: string[]; stateDir?: string; runId?: string; autoApprove?: boolean; output?: string }) => {
      const c = await compile(path);
      if (!c.graph) {
        for (const d of c.diagnostics) io.err(formatText(d, c.sources) + "\n");
        setCode(c.diagnostics.some((d) => d.code === "internal_error") ? EXIT.internal : EXIT.problems);
        return;
      }
      const graph = c.graph;
      const found = workflowFiles(resolve(path));
      const baseDir = found.kind === "dir" ? resolve(path) : dirname(resolve(path));
      const json = opts.output ? opts.output === "json" : !io.isTTY;
      setCode(
        await interruptible(io, async (signal) => {
          const vars = parseVars(graph, opts.var, opts.varFile);
          const { sink } = eventSink(io, json);
          const { apply } = await engine();
          const end = await apply(graph, vars, { stateDir: stateDir(opts.stateDir, io), baseDir, events: sink, autoApprove: opts.autoApprove, signal, runId: opts.runId });
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
        await interruptible(io, async (signal) => {
          const { sink } = eventSink(io, json);
          const { resume } = await engine();
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
      const { SqliteJournal } = await engine();
      const j = new SqliteJournal(stateDir(opts.stateDir, io));
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
      const { SqliteJournal } = await engine();
      const j = new SqliteJournal(stateDir(opts.stateDir, io));
      try {
        const { entries, corrupt } = j.read(run);
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

  const deliver = async (run: string, name: string, payload: Value | undefined, by: string | undefined, dir: string | undefined) => {
    const { SqliteJournal, deliverSignal } = await engine();
    const j = new SqliteJournal(stateDir(dir, io));
    try {
      const row = j.run(run);
      if (!row) {
        io.err(`criteria: no run ${run} (criteria runs lists them)\n`);
        return EXIT.problems;
      }
      if (row.status !== "active") {
        io.err(`criteria: run ${run} has already ended (${row.status})\n`);
        return EXIT.problems;
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
      setCode(await deliver(run, name, payload, undefined, opts.stateDir));
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
        setCode(await deliver(run, `approval:${node}`, decision === "approve" ? "approved" : "rejected", opts.by, opts.stateDir));
      });
  }
}
