/**
 * Runs spread over workers (the scale-out issue, figures), on a throwaway PostgreSQL
 * cluster with fsync on (bench/pg-cluster.ts), every figure from real `criteria worker`
 * processes:
 * - durable noop steps per second with 1, 2 and 4 workers (one run at a time each), as a
 *   fraction of `pgbench`'s one-row insert commits per second at the same client count on
 *   the same cluster in the same run (goal ≥ 0.5× per client);
 * - takeover: a worker SIGKILLed (then another SIGSTOPped) in the middle of a step; the
 *   time until another worker writes to that run (goal < 2× the lease TTL);
 * - latency from a signal to the next step starting on a worker, p50/p99 (goal p99 < 100 ms).
 * Prints figures; asserts nothing. Without PostgreSQL's programs it says so and skips.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { compile } from "../compiler/index.js";
import type { Graph } from "../compiler/build/graph.js";
import { apply, RunSubmitted } from "../engine/index.js";
import { PostgresJournal } from "../engine/journal/postgres-journal.js";
import { deliverSignal } from "../engine/run/signals.js";
import { findPostgres, startCluster, type Cluster } from "./pg-cluster.js";
import { fmt, fmtRatio, printTable, progress, verdict, type Verdict } from "./report.js";
import { percentile } from "./stats.js";

/** Figures of the workers benchmark (undefined `skipped` when it ran). */
export interface WorkersReport {
  skipped?: string;
  /**
   * By worker count: durable noop steps/s, pgbench inserts/s at that client count, their ratio
   * per client (the issue's figure), and pgbench's transactions/s running a step's own append
   * ({@link STEP_APPEND_SQL}: the ceiling of steps/s here).
   */
  throughput: Record<string, { steps_per_s: number; pgbench_tps: number; ratio: number; pgbench_step_append_tps: number }>;
  lease_ttl_ms: number;
  takeover_after_kill_ms: number;
  takeover_after_stop_ms: number;
  signal_to_step_ms: { p50: number; p99: number; n: number };
  verdicts: Record<string, Verdict>;
}

const TTL_MS = 2000;

/** Starts `criteria worker` (one run at a time) and resolves once it is advancing runs. */
async function startWorker(root: string, url: string, stateDir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(root, "bin", "criteria"), "worker", "--store", url, "--state-dir", stateDir, "--concurrency", "1"], {
    env: { ...process.env, CI: "", CRITERIA_LEASE_TTL_MS: String(TTL_MS) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let text = "";
    const timer = setTimeout(() => reject(new Error(`the worker did not start: ${text}`)), 20_000);
    const onData = (d: Buffer) => {
      text += d.toString();
      if (text.includes("advancing runs of")) {
        clearTimeout(timer);
        // From here its output is drained unread: scanning a growing text on every chunk
        // took this process's CPU from the workers it measures (2 cores).
        child.stdout!.off("data", onData);
        child.stdout!.resume();
        text = "";
        resolve();
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", (d: Buffer) => (text.length < 65_536 ? (text += d.toString()) : undefined));
  });
  return child;
}

const stop = (c: ChildProcess) =>
  new Promise<void>((r) => {
    if (c.exitCode !== null || c.signalCode !== null) return r();
    c.once("exit", () => r());
    c.kill("SIGCONT");
    c.kill("SIGKILL");
  });

/** Transactions per second by pgbench running `sql` (one transaction) with `clients` clients for `seconds` against database `db`, in query `mode`. */
function pgbench(cluster: Cluster, clients: number, seconds: number, dir: string, sql = "INSERT INTO bench_insert (v) VALUES (1);\n", db = "postgres", mode = "simple"): number {
  const script = join(dir, "pgbench.sql");
  writeFileSync(script, sql);
  // Beside the server programs, or in Debian's directory of them (PATH may hold links to initdb and pg_ctl alone).
  const debian = existsSync("/usr/lib/postgresql") ? readdirSync("/usr/lib/postgresql").sort().reverse().map((v) => join("/usr/lib/postgresql", v, "bin", "pgbench")) : [];
  const program = [join(cluster.bin, "pgbench"), ...debian].find((p) => existsSync(p)) ?? "pgbench";
  const r = spawnSync(program, ["-n", "-M", mode, "-c", String(clients), "-j", String(clients), "-T", String(seconds), "-f", script, "-h", cluster.socketDir, "-U", "criteria", db], { encoding: "utf8" });
  const tps = /tps = ([\d.]+)/.exec(r.stdout)?.[1];
  if (r.status !== 0 || !tps) throw new Error(`pgbench failed (${r.error?.message ?? `exit ${r.status}`}): ${r.stderr || r.stdout}`);
  return Number(tps);
}

/**
 * What a durable noop step's one-flight append asks of the server (engine/journal/postgres-journal.ts):
 * the idle bound, the check (the tree's lock, the lease `FOR SHARE`, the seqs), its two rows
 * and the commit; each pgbench client writes a tree of its own under a lease of its own.
 * pgbench running it is the most steps a second the server gives a worker whose own work
 * took no time: the ceiling of the steps/s figure on this machine.
 */
const STEP_APPEND_SQL = `\\startpipeline
BEGIN;
SELECT set_config('idle_in_transaction_session_timeout', '2000', true);
SELECT criteria_journal_check_v1('bench' || :client_id, 'bench' || :client_id, 'o', 1, 9000000000000000);
INSERT INTO journal (root_run_id, run_id, step_id, attempt, entry_type, at_ms, payload, checksum) VALUES
  ('bench' || :client_id, 'bench' || :client_id, 's0', 1, 'step.attempt.started', 1796425376992, '{"adapter":"noop","idempotency_key":"9c399049962a9668bc9aaa5e0f3b3f2d41c6e0e1a3c3b2f7e6d5c4b3a2918070","visit":1}', 337043893),
  ('bench' || :client_id, 'bench' || :client_id, 's0', 0, 'step.completed', 1796425376992, '{"next":"s1","outcome":"success","output":{},"reason":"ok","visit":1}', 2123163105);
COMMIT;
\\endpipeline
`;

/** pgbench's transactions per second running {@link STEP_APPEND_SQL} with `clients` clients, in a fresh journal database. */
async function pgbenchStepAppend(cluster: Cluster, clients: number, seconds: number, dir: string): Promise<number> {
  const url = await cluster.freshDatabase();
  const journal = await PostgresJournal.open(url, { stateDir: join(dir, "append") }); // the tables and the check
  await journal.close();
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  await db.query("INSERT INTO leases (root_run_id, owner, epoch, pid, host, expires_at) SELECT 'bench' || i, 'o', 1, 0, 'bench', now() + interval '1 hour' FROM generate_series(0, $1::int) i", [clients]);
  const name = (await db.query<{ d: string }>("SELECT current_database() AS d")).rows[0].d;
  await db.end();
  // Pipelined and prepared, as the journal sends it: one round trip, each statement parsed once per connection.
  return pgbench(cluster, clients, seconds, dir, STEP_APPEND_SQL, name, "prepared");
}

/** Compiles a workflow text written to `dir`. */
async function graphOf(dir: string, name: string, text: string): Promise<Graph> {
  const file = join(dir, `${name}.hcl`);
  writeFileSync(file, text);
  const c = await compile(file);
  if (!c.graph) throw new Error(`bench workflow ${name} does not compile: ${c.diagnostics.map((d) => d.message).join("; ")}`);
  return c.graph;
}

/** Submits a run to the workers (`apply --detach`). */
async function submit(graph: Graph, url: string, dir: string, runId: string): Promise<void> {
  const r = await apply(graph, {}, { store: url, stateDir: join(dir, "submit"), baseDir: dir, runId, detach: true }).catch((e: unknown) => e);
  if (!(r instanceof RunSubmitted)) throw new Error(`submitting ${runId}: ${String(r)}`);
}

/** Polls until `sql` (one row, column n) gives at least `want`, or 120 s pass. */
async function waitFor(client: pg.Client, sql: string, params: unknown[], want: number): Promise<void> {
  const end = Date.now() + 120_000;
  for (;;) {
    const { rows } = await client.query<{ n: string }>(sql, params);
    if (Number(rows[0].n) >= want) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${sql} to reach ${want}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The takeover figure's workflow: one shell step of 3 s, mid-step when its worker is killed or stopped. */
export const SLOW = `workflow "slow" {\n  version = "1"\n  initial_state = "work"\n  target_state = "done"\n}\nadapter "shell" "default" {}\nstep "work" {\n  target = adapter.shell.default\n  input { command = "sleep 3" }\n  outcome "success" { next = "done" }\n}\nstate "done" { terminal = true }\n`;

/** The signal figure's workflow: a signal wait, then a noop step. */
export const GATE = `workflow "gate" {\n  version = "1"\n  initial_state = "go"\n  target_state = "done"\n}\nadapter "noop" "default" {}\nwait "go" {\n  signal = "go"\n  outcome "received" { next = "next" }\n}\nstep "next" {\n  target = adapter.noop.default\n  outcome "success" { next = "done" }\n}\nstate "done" { terminal = true }\n`;

/** The throughput figure's workflow: a chain of `n` noop steps. */
export const noopChain = (n: number) =>
  `workflow "noops" {\n  version = "1"\n  initial_state = "s0"\n  target_state = "done"\n}\nadapter "noop" "default" {}\n` +
  Array.from({ length: n }, (_, i) => `step "s${i}" {\n  target = adapter.noop.default\n  outcome "success" { next = "${i + 1 < n ? `s${i + 1}` : "done"}" }\n}\n`).join("") +
  `state "done" { terminal = true }\n`;

/** Runs the workers benchmark against the built CLI under `root`. */
export async function workersBench(root: string, quick: boolean): Promise<WorkersReport> {
  const found = findPostgres();
  const empty: WorkersReport = { throughput: {}, lease_ttl_ms: TTL_MS, takeover_after_kill_ms: NaN, takeover_after_stop_ms: NaN, signal_to_step_ms: { p50: NaN, p99: NaN, n: 0 }, verdicts: {} };
  if ("missing" in found) {
    console.log(`workers: skipped: ${found.missing}`);
    return { ...empty, skipped: found.missing };
  }
  const dir = mkdtempSync(join(tmpdir(), "criteria-bench-workers-"));
  const cluster = await startCluster(found.bin, { durable: true });
  const children: ChildProcess[] = [];
  const report = empty;
  const admin = new pg.Client({ connectionString: cluster.url });
  try {
    await admin.connect();
    await admin.query("CREATE TABLE bench_insert (v int)");
    // 1. Throughput: R runs of S noop steps, W workers, after a warm-up of each worker.
    const steps = 10;
    // Measured once every worker has ended its share of warm-up runs (its code compiled
    // hot: measured over its first 400 steps, a worker ran at 60 % of its later speed), over
    // a window as long as pgbench's (about 1,000 steps a worker here).
    const warmPer = quick ? 3 : 30;
    const runsPer = quick ? 6 : 100;
    const chain = await graphOf(dir, "noops", noopChain(steps));
    for (const workers of [1, 2, 4]) {
      progress(`workers: ${workers} worker(s), noop steps`);
      const url = await cluster.freshDatabase();
      const db = new pg.Client({ connectionString: url });
      await db.connect();
      // Every run submitted first, then the workers started: the rate is the journal's own
      // (neither the submissions nor the workers' start-up counted).
      const warm = warmPer * workers;
      const runs = warm + runsPer * workers;
      for (let i = 0; i < runs; i++) await submit(chain, url, dir, `n${i}`);
      const ws = await Promise.all(Array.from({ length: workers }, (_, i) => startWorker(root, url, join(dir, `t${workers}-${i}`))));
      children.push(...ws);
      await waitFor(db, "SELECT count(*) AS n FROM runs WHERE parent_run_id IS NULL AND status <> 'active'", [], runs);
      // The window: from the warm-th run's end to the last run's end; the steps ended in it.
      const span = await db.query<{ first: string; last: string; n: string }>(
        `WITH ends AS (SELECT at_ms FROM journal WHERE entry_type = 'run.completed' ORDER BY at_ms),
              w AS (SELECT (SELECT at_ms FROM ends OFFSET $1 LIMIT 1) AS first, (SELECT max(at_ms) FROM ends) AS last)
         SELECT w.first, w.last, (SELECT count(*) FROM journal WHERE entry_type = 'step.completed' AND at_ms > w.first AND at_ms <= w.last) AS n FROM w`,
        [warm - 1],
      );
      const seconds = (Number(span.rows[0].last) - Number(span.rows[0].first)) / 1000;
      const stepsPerS = Number(span.rows[0].n) / seconds;
      await db.end();
      await Promise.all(ws.map(stop));
      const tps = pgbench(cluster, workers, quick ? 3 : 5, dir);
      const appendTps = await pgbenchStepAppend(cluster, workers, quick ? 3 : 5, dir);
      report.throughput[String(workers)] = { steps_per_s: stepsPerS, pgbench_tps: tps, ratio: stepsPerS / tps, pgbench_step_append_tps: appendTps };
    }
    // 2. Takeover: a run mid-step on the worker that holds it; that worker killed (then stopped).
    const slow = await graphOf(dir, "slow", SLOW);
    for (const how of ["SIGKILL", "SIGSTOP"] as const) {
      progress(`workers: takeover after ${how}`);
      const url = await cluster.freshDatabase();
      const db = new pg.Client({ connectionString: url });
      await db.connect();
      const first = await startWorker(root, url, join(dir, `k-${how}-a`));
      children.push(first);
      await submit(slow, url, dir, "k");
      await waitFor(db, "SELECT count(*) AS n FROM journal WHERE entry_type = 'step.attempt.started'", [], 1);
      const second = await startWorker(root, url, join(dir, `k-${how}-b`));
      children.push(second);
      const before = Number((await db.query<{ n: string }>("SELECT max(seq) AS n FROM journal")).rows[0].n);
      const t = performance.now();
      first.kill(how);
      await waitFor(db, "SELECT count(*) AS n FROM journal WHERE seq > $1", [before], 1);
      const ms = performance.now() - t;
      if (how === "SIGKILL") report.takeover_after_kill_ms = ms;
      else report.takeover_after_stop_ms = ms;
      await db.end();
      await Promise.all([first, second].map(stop));
    }
    // 3. Signal → the next step starting on a worker.
    progress("workers: signal to next step");
    const gate = await graphOf(dir, "gate", GATE);
    const url = await cluster.freshDatabase();
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    const ws = await Promise.all([0, 1].map((i) => startWorker(root, url, join(dir, `s-${i}`))));
    children.push(...ws);
    const journal = await PostgresJournal.open(url, { stateDir: join(dir, "signals") });
    const latencies: number[] = [];
    const n = quick ? 10 : 40;
    for (let i = 0; i < n; i++) {
      const run = `g${i}`;
      await submit(gate, url, dir, run);
      // Parked at the wait, its lease given back.
      await waitFor(db, "SELECT count(*) AS n FROM journal WHERE run_id = $1 AND entry_type = 'wait.started'", [run], 1);
      await waitFor(db, "SELECT count(*) AS n FROM (SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM leases WHERE root_run_id = $1 AND owner IS NOT NULL AND expires_at > clock_timestamp())) x", [run], 1);
      const t = Date.now();
      await deliverSignal(journal, run, "go", null, "bench", t);
      await waitFor(db, "SELECT count(*) AS n FROM journal WHERE run_id = $1 AND step_id = 'next' AND entry_type = 'step.attempt.started'", [run], 1);
      const { rows } = await db.query<{ at_ms: string }>("SELECT at_ms FROM journal WHERE run_id = $1 AND step_id = 'next' AND entry_type = 'step.attempt.started'", [run]);
      latencies.push(Number(rows[0].at_ms) - t);
    }
    await journal.close();
    await db.end();
    report.signal_to_step_ms = { p50: percentile(latencies, 50), p99: percentile(latencies, 99), n };
    const per = Object.values(report.throughput);
    report.verdicts = {
      throughput: per.length && per.every((x) => x.ratio >= 0.5) ? "PASS" : "MISS",
      takeover: verdict(Math.max(report.takeover_after_kill_ms, report.takeover_after_stop_ms), 2 * TTL_MS, true),
      signal: verdict(report.signal_to_step_ms.p99, 100, true),
    };
  } finally {
    await Promise.all(children.map(stop));
    await admin.end().catch(() => undefined);
    cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  printTable(
    "Workers on PostgreSQL (fsync on; criteria worker processes, one run at a time each)",
    ["workers", "noop steps/s", "pgbench inserts/s", "ratio", "goal", "pgbench step appends/s", "of it"],
    Object.entries(report.throughput).map(([w, x]) => [w, fmt(x.steps_per_s), fmt(x.pgbench_tps), fmtRatio(x.ratio), "≥ 0.5×", fmt(x.pgbench_step_append_tps), fmtRatio(x.steps_per_s / x.pgbench_step_append_tps)]),
    [
      `takeover after SIGKILL: ${fmt(report.takeover_after_kill_ms)} ms, after SIGSTOP: ${fmt(report.takeover_after_stop_ms)} ms (lease TTL ${TTL_MS} ms; goal < ${2 * TTL_MS} ms) ${report.verdicts.takeover}`,
      `signal → next step started: p50 ${fmt(report.signal_to_step_ms.p50)} ms, p99 ${fmt(report.signal_to_step_ms.p99)} ms over ${report.signal_to_step_ms.n} (goal p99 < 100 ms) ${report.verdicts.signal}`,
    ],
  );
  return report;
}
