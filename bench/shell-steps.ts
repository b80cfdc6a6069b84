/**
 * Shell step cost (docs/architecture.md, Tests and measurements): a durable shell step against a bare spawn of the
 * same command (`/bin/sh -c true`, process group, pipes, waited for), interleaved rounds,
 * medians. Goal: a step costs at most 1.3x a bare spawn plus one fsync (the commit of
 * its confirmation; the commit before it is not flushed on its own). Prints figures.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { compile } from "../compiler/index.js";
import { adapterFor } from "../engine/adapters/registry.js";
import { SqliteJournal } from "../engine/journal/sqlite-journal.js";
import { Runner } from "../engine/run/runner.js";
import { fmtRatio, printTable, progress, verdict, type Verdict } from "./report.js";
import { median } from "./stats.js";

/** Figures of the shell-step benchmark. */
export interface ShellStepsReport {
  bare_spawn_ms: number;
  fsync_ms: number;
  shell_step_ms: number;
  /** shell step / (bare spawn + one fsync). */
  ratio: number;
  verdict: Verdict;
}

function bareSpawn(): Promise<void> {
  return new Promise((resolve) => spawn("/bin/sh", ["-c", "true"], { stdio: ["ignore", "pipe", "pipe"], detached: true }).on("close", () => resolve()));
}

/** One synced insert+commit (the cost of the fsync a step adds). */
function fsyncCost(file: string, n: number): number {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.exec("CREATE TABLE IF NOT EXISTS t (x TEXT)");
  const ins = db.prepare("INSERT INTO t VALUES (?)");
  const t0 = performance.now();
  for (let i = 0; i < n; i++) db.transaction(() => ins.run("x")).immediate();
  const ms = (performance.now() - t0) / n;
  db.close();
  return ms;
}

/** Runs the benchmark: `n` steps per round (a `count` step of `/bin/sh -c true`). */
export async function shellStepsBench(quick: boolean): Promise<ShellStepsReport> {
  const dir = mkdtempSync(join(tmpdir(), "criteria-bench-shell-"));
  try {
    const n = quick ? 40 : 100;
    writeFileSync(
      join(dir, "w.hcl"),
      `workflow {\n  name = "shell"\n  initial_state = "s"\n  target_state = "done"\n}\nadapter "shell" "default" {}\nstep "s" {\n  target = adapter.shell.default\n  count = ${n}\n  input { command = "true" }\n  outcome "all_succeeded" { next = state.done }\n  outcome "any_failed" { next = state.done }\n}\nstate "done" { terminal = true }\n`,
    );
    const c = await compile(join(dir, "w.hcl"));
    if (!c.graph) throw new Error("bench workflow does not compile");
    const bare: number[] = [];
    const steps: number[] = [];
    const syncs: number[] = [];
    for (let round = 0; round < (quick ? 3 : 5); round++) {
      progress(`shell steps: round ${round + 1}`);
      let t0 = performance.now();
      for (let i = 0; i < n; i++) await bareSpawn();
      bare.push((performance.now() - t0) / n);
      const journal = new SqliteJournal(join(dir, `state${round}`));
      t0 = performance.now();
      await new Runner({ journal, adapterFor, baseDir: dir }).start(c.graph, {}, `r${round}`);
      steps.push((performance.now() - t0) / n);
      journal.close();
      syncs.push(fsyncCost(join(dir, `sync${round}.db`), 200));
    }
    const b = median(bare);
    const s = median(steps);
    const f = median(syncs);
    const ratio = s / (b + f);
    const report: ShellStepsReport = { bare_spawn_ms: b, fsync_ms: f, shell_step_ms: s, ratio, verdict: verdict(ratio, 1.3) };
    printTable(
      "Shell steps (durable journal)",
      ["figure", "value", "goal", ""],
      [
        ["bare spawn of /bin/sh -c true, ms", b.toFixed(2), "", ""],
        ["one synced SQLite commit, ms", f.toFixed(2), "", ""],
        ["shell step (journaled), ms", s.toFixed(2), "", ""],
        ["step / (bare spawn + one fsync)", fmtRatio(ratio), "<= 1.3", report.verdict],
      ],
      ["medians of interleaved rounds"],
    );
    return report;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
