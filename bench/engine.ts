/**
 * Engine benchmarks (docs/architecture.md, The engine, Speed): durable noop steps per second against the
 * physical limit (a bare SQLite insert-and-commit loop, WAL + synchronous=FULL, same
 * disk, same run); per-step overhead at 100 and at 10,000 steps (flat: ratio ≤ 1.3);
 * resume of a 100,000-entry journal (goal < 1 s, linear in entries).
 * Prints figures; asserts nothing.
 */
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Graph } from "../compiler/build/graph.js";
import { adapterFor } from "../engine/adapters/registry.js";
import { SqliteJournal } from "../engine/journal/sqlite-journal.js";
import { Runner, RunInterrupted } from "../engine/run/runner.js";
import { fmt, fmtRatio, printTable, progress, verdict, type Verdict } from "./report.js";
import { median } from "./stats.js";

/** Figures of the engine benchmark (also written to bench/out/latest.json). */
export interface EngineReport {
  sqlite_commits_per_s: number;
  noop_steps_per_s: number;
  ratio_to_limit: number;
  per_step_ms_100: number;
  per_step_ms_10000: number;
  flatness_ratio: number;
  resume_ms: Record<string, number>;
  resume_linearity: number;
  verdicts: Record<string, Verdict>;
}

const expr = (v: string) => ({ kind: "literal" as const, text: JSON.stringify(v), value: v, at: "bench" });

/** A chain of `n` noop steps ending in `done`, built as a Graph directly (the compiler is benchmarked elsewhere). */
export function noopChain(n: number, loop = false): Graph {
  const steps = Array.from({ length: n }, (_, i) => ({
    name: `s${i}`,
    target: { kind: "adapter" as const, id: "noop.default" },
    adapter_type: "noop",
    input: { label: expr(`step ${i}`) },
    on_failure: "continue" as const,
    allow_tools: [],
    outcomes: [{ name: "success", next: i + 1 < n ? `s${i + 1}` : loop ? "s0" : "done", output: {}, shared_writes: {} }],
  }));
  return {
    schema_version: 1,
    name: `chain${n}`,
    initial_state: "s0",
    target_state: "done",
    policy: { max_total_steps: 1e9, max_step_retries: 0, max_visits_warn_threshold: 1e9 },
    variables: [],
    locals: [],
    shared_variables: [],
    adapters: [{ id: "noop.default", type: "noop", name: "default", config: {}, inherited: false, implicit: true }],
    agents: [],
    channels: [],
    steps,
    states: [{ name: "done", terminal: true, success: true }],
    waits: [],
    approvals: [],
    branches: [],
    outputs: [],
    step_order: steps.map((s) => s.name),
    plugins_required: ["noop"],
  };
}

/** Commits per second of a bare insert-and-commit loop (one row, one transaction each). */
export function sqliteLimit(file: string, n: number): number {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.exec("CREATE TABLE IF NOT EXISTS t (seq INTEGER PRIMARY KEY, payload TEXT NOT NULL)");
  const ins = db.prepare("INSERT INTO t (payload) VALUES (?)");
  const tx = db.transaction((p: string) => ins.run(p));
  const t0 = performance.now();
  for (let i = 0; i < n; i++) tx.immediate(`{"step":"s${i}","outcome":"success"}`);
  const ms = performance.now() - t0;
  db.close();
  return (n / ms) * 1000;
}

/**
 * Runs a chain of `n` noop steps in a fresh journal; returns the wall time in ms and
 * the time between consecutive step completions (ms), for per-step figures.
 */
async function runChain(dir: string, n: number, tag = ""): Promise<{ ms: number; gaps: number[] }> {
  const journal = new SqliteJournal(join(dir, `chain-${n}${tag}`));
  const graph = noopChain(n);
  const stamps: number[] = [];
  const t0 = performance.now();
  await new Runner({ journal, adapterFor, baseDir: dir, events: (e) => void (e.event === "step.completed" && stamps.push(performance.now())) }).start(graph, {}, `chain-${n}`);
  const ms = performance.now() - t0;
  journal.close();
  return { ms, gaps: stamps.slice(1).map((t, i) => t - stamps[i]) };
}

/** Builds a run of about `entries` journal entries, interrupted mid-way, and times its resume to the frontier. */
async function resumeCost(dir: string, entries: number): Promise<number> {
  const state = join(dir, `resume-${entries}`);
  const steps = Math.ceil(entries / 3); // attempt.started + effect.confirmed + step.completed per noop step
  const build = new SqliteJournal(state, { synchronous: "OFF" });
  const stop = new AbortController();
  let done = 0;
  const runner = new Runner({
    journal: build,
    adapterFor,
    baseDir: dir,
    signal: stop.signal,
    events: (e) => {
      if (e.event === "step.completed" && ++done >= steps) stop.abort();
    },
  });
  await runner.start(noopChain(2, true), {}, "big").catch((e) => {
    if (!(e instanceof RunInterrupted)) throw e;
  });
  build.close();
  const journal = new SqliteJournal(state);
  const frontier = new AbortController();
  let t1 = 0;
  const t0 = performance.now();
  const resumed = new Runner({
    journal,
    adapterFor,
    baseDir: dir,
    signal: frontier.signal,
    events: (e) => {
      if (e.event === "step.started" && t1 === 0) {
        t1 = performance.now();
        frontier.abort();
      }
    },
  });
  await resumed.resume("big").catch((e) => {
    if (!(e instanceof RunInterrupted)) throw e;
  });
  journal.close();
  return t1 - t0;
}

/** Runs the engine benchmarks. `quick` uses smaller sizes. */
export async function engineBench(quick: boolean): Promise<EngineReport> {
  const dir = mkdtempSync(join(tmpdir(), "criteria-bench-engine-"));
  try {
    // fsync costs drift on a shared disk: interleave the limit and the engine, take medians.
    progress("engine: durable noop steps vs a bare SQLite insert+commit loop (interleaved)");
    const n = quick ? 200 : 500;
    const limits: number[] = [];
    const rates: number[] = [];
    for (let round = 0; round < (quick ? 3 : 5); round++) {
      limits.push(sqliteLimit(join(dir, "limit.db"), n));
      rates.push((n / (await runChain(dir, n, `r${round}`)).ms) * 1000);
    }
    const limit = median(limits);
    const steps = median(rates);
    // Flatness: in one long run, the per-step time around step 100 against the last 100
    // steps (same disk, same minute), so a cost that grows with history shows, and drift does not.
    progress("engine: per-step overhead at 100 and 10,000 steps");
    const bigN = quick ? 2000 : 10_000;
    const { gaps } = await runChain(dir, bigN, "flat");
    const small = median(gaps.slice(100, 200));
    const big = median(gaps.slice(bigN - 101));
    progress("engine: resume cost");
    const sizes = quick ? [3_000, 30_000] : [10_000, 100_000];
    const resume: Record<string, number> = {};
    for (const s of sizes) resume[String(s)] = await resumeCost(dir, s);
    const linearity = resume[String(sizes[1])] / resume[String(sizes[0])] / (sizes[1] / sizes[0]);
    const report: EngineReport = {
      sqlite_commits_per_s: Math.round(limit),
      noop_steps_per_s: Math.round(steps),
      ratio_to_limit: steps / limit,
      per_step_ms_100: small,
      per_step_ms_10000: big,
      flatness_ratio: big / small,
      resume_ms: resume,
      resume_linearity: linearity,
      verdicts: {
        ratio: verdict(-(steps / limit), -0.9),
        flat: verdict(big / small, 1.3),
        resume: verdict(resume[String(sizes[1])], 1000),
      },
    };
    printTable(
      "Engine (durable journal, SQLite WAL + synchronous=FULL)",
      ["figure", "value", "goal", "verdict"],
      [
        ["bare SQLite insert+commit", `${fmt(limit)} /s`, "(the physical limit)", ""],
        ["durable noop steps", `${fmt(steps)} /s`, "", ""],
        ["steps / limit", fmtRatio(steps / limit), "≥ 0.9", report.verdicts.ratio],
        ["per-step around step 100", `${fmt(small)} ms`, "", ""],
        [`per-step at steps ${bigN - 100}-${bigN}`, `${fmt(big)} ms`, "", ""],
        [`per-step ${bigN} / 100`, fmtRatio(big / small), "≤ 1.3 (flat)", report.verdicts.flat],
        ...sizes.map((s) => [`resume ${s}-entry journal`, `${fmt(resume[String(s)])} ms`, s === sizes[1] ? "< 1000 ms" : "", s === sizes[1] ? report.verdicts.resume : ""]),
        ["resume time per entry, large / small", fmtRatio(linearity), "≈ 1 (linear)", ""],
      ],
      [
        "steps/limit: medians of interleaved rounds (fsync cost drifts on a shared disk); per-step: median gap between completions.",
        "resume is measured from opening the journal to the first new step (fold + walk to the frontier).",
      ],
    );
    return report;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
