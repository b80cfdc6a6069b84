/**
 * Helpers for the composition tests (docs/language.md, Composition): multi-file projects written to real
 * temporary directories, compiled with the real compiler and run with the real runner
 * on a real SQLite journal; a counting adapter where a test must see sessions open.
 */
import { mkdirSync, mkdtempSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Graph } from "../../compiler/build/graph.js";
import type { Value } from "../../compiler/expr/value.js";
import { compile, type Compilation, type CompileOptions } from "../../compiler/index.js";
import type { Adapter, StepRequest, StepResult } from "../../engine/adapters/adapter.js";
import { adapterFor } from "../../engine/adapters/registry.js";
import { SqliteJournal } from "../../engine/journal/sqlite-journal.js";
import type { RunEvent } from "../../engine/run/events.js";
import { Runner, type RunEnd, type RunnerOptions } from "../../engine/run/runner.js";

/** Writes `files` (relative path → text) under a fresh temporary directory; returns it. */
export function project(files: Record<string, string>): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "criteria-proj-")));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}

/** Compiles `entry` of a project; `cwd` is the project (paths in diagnostics are relative to it); `opts` more of compile's options. */
export function compileIn(dir: string, entry: string, opts: Omit<CompileOptions, "cwd"> = {}): Promise<Compilation> {
  return compile(join(dir, entry), { ...opts, cwd: dir });
}

/** The graph of `entry`, or an error listing the diagnostics. */
export async function graphIn(dir: string, entry: string): Promise<Graph> {
  const c = await compileIn(dir, entry);
  const errors = c.diagnostics.filter((d) => d.severity === "error");
  if (errors.length > 0 || !c.graph) throw new Error(errors.map((d) => `${d.range.file}:${d.range.start.line}:${d.range.start.column} ${d.code} ${d.message}`).join("\n"));
  return c.graph;
}

/** `code@file:line:col` of each diagnostic, for compact assertions. */
export function codes(c: Compilation): string[] {
  return c.diagnostics.map((d) => `${d.code}@${d.range.file}:${d.range.start.line}:${d.range.start.column}`);
}

/**
 * A counting adapter of type `count`: every session open and close (`<adapter id>@<run id>`)
 * and every execution (`<run id>:<step>`), answered by `answer`.
 */
export function counting(answer: (req: StepRequest) => StepResult = () => ({ outcome: "success", output: {}, reason: "ok" })) {
  const calls: string[] = [];
  const opened: string[] = [];
  const closed: string[] = [];
  const adapter: Adapter = {
    type: "count",
    effectful: true,
    async open(_config, ctx) {
      opened.push(`${ctx.adapter_id}@${ctx.run_id}`);
      return {
        execute: async (req) => {
          calls.push(`${req.run_id}:${req.step}`);
          return answer(req);
        },
        close: async () => void closed.push(`${ctx.adapter_id}@${ctx.run_id}`),
      };
    },
  };
  return { calls, opened, closed, adapterFor: (t: string) => (t === "count" ? adapter : adapterFor(t)) };
}

/** A runner over a fresh journal in `stateDir` (default: a new temporary directory). */
export function runnerFor(baseDir: string, extra: Partial<RunnerOptions> = {}, stateDir = mkdtempSync(join(tmpdir(), "criteria-state-"))) {
  const journal = new SqliteJournal(stateDir);
  const events: RunEvent[] = [];
  const runner = new Runner({ journal, adapterFor, baseDir, events: (e) => events.push(e), pollMs: 5, ...extra });
  return { runner, journal, events, stateDir, entries: async (id: string) => (await journal.read(id)).entries };
}

/** Compiles and runs `entry` of a project to its end. */
export async function runIn(dir: string, entry: string, opts: { vars?: Record<string, Value>; input?: Record<string, Value>; runId?: string; extra?: Partial<RunnerOptions> } = {}): Promise<{ end: RunEnd } & ReturnType<typeof runnerFor>> {
  const g = await graphIn(dir, entry);
  // As `criteria apply`: relative paths resolve against the workflow's directory.
  const abs = join(dir, entry);
  const r = runnerFor(statSync(abs).isDirectory() ? abs : dirname(abs), opts.extra);
  const end = await r.runner.start(g, opts.vars ?? {}, opts.runId ?? "run", opts.input ?? {});
  return { end, ...r };
}
