import { createRequire } from "node:module";
import { EventEmitter } from "node:events";
import type { JobHelpers, Runner as QueueRunner, TaskList, WorkerEvents } from "graphile-worker";
import { findAdapterExecutable } from "../adapters/process-adapter.js";
import { adapterFor, isBuiltIn } from "../adapters/registry.js";
import { JournalOpenError, LeaseLostError, RunLockedError } from "../journal/errors.js";
import { leaseTtlFromEnv } from "../journal/lease.js";
import { ADVANCE_TASK, PostgresJournal, QUEUE_SCHEMA, wake } from "../journal/postgres-journal.js";
import type { RunEvent } from "../run/events.js";
import { defaultSleep } from "../run/sleep.js";
import { queueVoice } from "./queue-voice.js";
import { Runner, RunInterrupted, RunNeedsSecrets, RunParked, RunRefused } from "../run/runner.js";

/** How long a worker waits before trying again a run another process holds (ms). */
const BUSY_RETRY_MS = 1000;

/** How often a worker started before its database tries to open it again (ms). */
const OPEN_RETRY_MS = 1000;

/** How long before a run whose secrets this worker lacks is offered again (ms). */
const SECRETS_RETRY_MS = 30_000;

/** Options of {@link runWorker}. */
export interface WorkerOptions {
  /** The PostgreSQL journal's URL (`--store`). */
  store: string;
  /** The local state directory (orphan-process files of the steps this worker runs). */
  stateDir: string;
  /** Runs advanced at once (`--concurrency`, default 4). */
  concurrency?: number;
  /** How long a lease lasts unless renewed (ms; default `CRITERIA_LEASE_TTL_MS`, else 30 s). */
  leaseTtlMs?: number;
  /** A NATS broker for the channels of the runs this worker advances (`--broker`). */
  broker?: string;
  /** Every run event, and what the worker does with each run as `worker.note` events. */
  events?: (e: RunEvent) => void;
  /** Aborting stops the worker: runs in progress stop where they stand (journaled) and are handed back to the queue. */
  signal?: AbortSignal;
  /** Called once the store is open and the queue started. */
  onReady?: () => void;
}

/** What a worker did, for its exit line and tests. */
export interface WorkerReport {
  /** Jobs that advanced a run (to its end, a park, or an interruption). */
  advanced: number;
  /** Jobs that found the run held by another process and scheduled a retry. */
  busy: number;
  /** Runs this worker lost the lease of mid-run (fenced: it wrote nothing more). */
  fenced: number;
  /** Runs the sweeper handed back to the queue (their holder's lease expired). */
  swept: number;
}

/**
 * A worker (`criteria worker --store postgres://…`; the scale-out issue, item 3): takes
 * `advance(run)` jobs from graphile-worker's queue in the journal's database (LISTEN/NOTIFY,
 * so a wake-up is picked up at once) and advances each run as far as it goes: to its end,
 * to a wait or an approval (parked, leases given back; a signal, a decision or the
 * deadline enqueues the next `advance` in the same transaction that records it), or until
 * the worker stops. Ownership is decided by the journal's lease, never by the queue's job
 * lock (held for hours after a crash): a job for a run another process holds is retried
 * a second later; a sweeper re-enqueues every active run whose holder's lease expired (a
 * killed or paused worker), every TTL/2. A child run (a body, a subworkflow, a flow used as
 * an agent) gets a job and a lease of its own, so it may run on another worker, unless it
 * inherits a session of its caller that cannot be opened again elsewhere (an agent's, a
 * plugin's: then it runs in its caller's job); its parent parks until the child's end
 * wakes it (engine/run/child-jobs.ts).
 *
 * A worker started while its database does not answer (started before it, as service
 * managers may; a restart) waits for it, saying so once and again when it answers, as a
 * running worker rides out an outage.
 *
 * Resolves when `signal` aborts and every job has stopped.
 * @throws JournalOpenError when the store refuses (a login, a missing database, a damaged journal)
 */
export async function runWorker(opts: WorkerOptions): Promise<WorkerReport> {
  const concurrency = opts.concurrency ?? 4;
  const report: WorkerReport = { advanced: 0, busy: 0, fenced: 0, swept: 0 };
  const note = (run_id: string, message: string) => opts.events?.({ event: "worker.note", run_id, message, at_ms: Date.now() });
  const journal = await openWhenAnswering(opts, concurrency, (m) => note("", m));
  if (!journal) return report; // stopped before the database answered
  const ttl = opts.leaseTtlMs ?? leaseTtlFromEnv();
  const stopping = new AbortController();
  opts.signal?.addEventListener("abort", () => stopping.abort(), { once: true });
  const gw = graphileWorker();
  const queueOptions = { pgPool: journal.connections, schema: QUEUE_SCHEMA, logger: queueVoice(journal.connections).logger(gw) };
  let queue: QueueRunner | undefined;
  let sweeper: NodeJS.Timeout | undefined;
  // graphile-worker prints a dying queue worker's error with console.trace: said through the queue's voice.
  const trace = console.trace;
  console.trace = (...a: unknown[]) => queueVoice(journal.connections).say(String(a[0]));
  try {
    await prepareQueue(journal);

    const advance = async (payload: unknown, helpers: JobHelpers) => {
      const run = (payload as { run?: unknown } | null)?.run;
      if (typeof run !== "string") return; // not ours to judge: drop it
      try {
        const end = await new Runner({
          journal,
          adapterFor,
          adapterExists: (type, dir) => isBuiltIn(type) || findAdapterExecutable(type, dir) !== undefined,
          baseDir: process.cwd(),
          park: true,
          parkTimers: true,
          detachChildren: true,
          broker: opts.broker,
          signal: stopping.signal,
          events: opts.events,
        }).resume(run);
        // Ended before this job (a second wake-up of it, e.g. its sweeper's while it ran on past a
        // pause): its end was said once already (found by a new-user trial: said twice).
        if (end.already) return;
        report.advanced++;
        // A run that failed outside a state (a step's error with no route) says why (found by a trial: `ended in state ""`).
        note(run, end.state ? `run ${run} ended in state "${end.state}" (${end.success ? "succeeded" : "failed"})` : `run ${run} failed (${end.reason}${end.detail ? `: ${end.detail}` : ""})`);
      } catch (e) {
        if (e instanceof RunParked) {
          report.advanced++;
          note(run, `run ${run} parked, waiting for ${e.waitingFor}; a worker advances it when that comes`);
        } else if (e instanceof RunLockedError) {
          // Another process is advancing it: look again shortly (its job may end before it sees this wake-up).
          report.busy++;
          await helpers.addJob(ADVANCE_TASK, { run }, { jobKey: run, runAt: new Date(Date.now() + BUSY_RETRY_MS), maxAttempts: 25 });
        } else if (e instanceof LeaseLostError) {
          report.fenced++;
          note(run, e.message);
        } else if (e instanceof RunInterrupted) {
          // The worker is stopping: the run is journaled where it stood; hand it back.
          await helpers.addJob(ADVANCE_TASK, { run }, { jobKey: run, maxAttempts: 25 });
          note(run, `run ${run} handed back to the queue: this worker is stopping`);
        } else if (e instanceof RunNeedsSecrets) {
          // Another worker may have them (found by a new-user trial: the run was dropped for good).
          await helpers.addJob(ADVANCE_TASK, { run }, { jobKey: run, runAt: new Date(Date.now() + SECRETS_RETRY_MS), maxAttempts: 25 });
          // Workers take no --var: their environment gives secrets (found by a new-user trial: the note said "pass --var").
          const vars = e.names.map((n) => `CRITERIA_VAR_${n}`).join(" and ");
          note(run, `run ${run} cannot go on here: it needs secret variable${e.names.length > 1 ? "s" : ""} ${e.names.map((n) => `"${n}"`).join(", ")}, which this worker's environment lacks (start workers with ${vars}); handed back to the queue for a worker that has ${e.names.length > 1 ? "them" : "it"} (again in ${SECRETS_RETRY_MS / 1000} s)`);
        } else if (e instanceof RunRefused) {
          note(run, `run ${run} cannot be advanced: ${e.message}`);
        } else throw e; // a storage failure: the queue retries the job with backoff
      }
    };
    const taskList: TaskList = { [ADVANCE_TASK]: advance };
    // graphile-worker's pool does not replace a worker that died (one that could not release a
    // job while the database was down): the whole queue is started again instead.
    const events = new EventEmitter() as WorkerEvents;
    const startQueue = async () => {
      queue = await gw.run({ ...queueOptions, concurrency, taskList, noHandleSignals: true, pollInterval: 2000, events });
    };
    let restarting = false;
    events.on("worker:fatalError", () => {
      if (restarting || stopping.signal.aborted) return;
      restarting = true;
      note("", "the queue lost the database: starting it again");
      void (async () => {
        await Promise.race([queue?.stop().catch(() => undefined), sleep(5000)]);
        while (!stopping.signal.aborted) {
          try {
            await startQueue();
            note("", "the queue is back");
            break;
          } catch {
            await sleep(2000);
          }
        }
        restarting = false;
      })();
    });
    await startQueue();
    opts.onReady?.();

    // Runs whose holder died or froze: their lease expired while they were active (a
    // worker, or a foreground apply); and jobs a dead worker took before it held the run's
    // lease (the queue would keep them locked for hours), unlocked for another worker. Not
    // a run whose lease was broken (`criteria unlock`, owner NULL): it waits for its user
    // (found by a new-user trial: the job of the worker still stopping its step was handed
    // to another worker, which ran the step again).
    // Each expired lease is said once (by its epoch), however many sweeps wake its run before
    // a worker takes it (found by a new-user trial: the note came again and again while the
    // run waited for a free worker).
    const said = new Map<string, number>();
    const sweep = async () => {
      try {
        const { rows: found } = await journal.connections.query<{ run_id: string; epoch: number }>(
          `SELECT r.run_id, l.epoch FROM runs r JOIN leases l ON l.root_run_id = r.run_id
           WHERE r.status = 'active' AND l.pid <> 0 AND l.expires_at < clock_timestamp()`,
        );
        for (const r of found) await wake(journal.connections, r.run_id);
        const expired = found.filter((r) => said.get(r.run_id) !== Number(r.epoch));
        for (const r of expired) said.set(r.run_id, Number(r.epoch));
        if (said.size > 10_000) said.clear(); // a bound: at worst, a note said again
        const { rows: stuck } = await journal.connections.query<{ run_id: string }>(
          `UPDATE ${QUEUE_SCHEMA}._private_jobs j SET locked_at = NULL, locked_by = NULL
           FROM ${QUEUE_SCHEMA}._private_tasks t
           WHERE t.id = j.task_id AND t.identifier = $1
             AND j.locked_at < clock_timestamp() - make_interval(secs => $2::float8 / 1000)
             AND EXISTS (SELECT 1 FROM runs r WHERE r.run_id = j.payload->>'run' AND r.status = 'active')
             AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.root_run_id = j.payload->>'run' AND l.pid <> 0 AND l.expires_at > clock_timestamp())
             AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.root_run_id = j.payload->>'run' AND l.pid = 0 AND l.owner IS NULL)
           RETURNING j.payload->>'run' AS run_id`,
          [ADVANCE_TASK, 2 * ttl],
        );
        // Jobs that failed their last attempt (storage failures, 25 times) of runs that have
        // ended since, or were never submitted: nothing will run them again (found by a trial:
        // they stayed in the queue for good). An active run's are kept, for its last_error:
        // any wake-up of that run replaces one and starts its attempts again.
        await journal.connections.query(
          `DELETE FROM ${QUEUE_SCHEMA}._private_jobs j USING ${QUEUE_SCHEMA}._private_tasks t
           WHERE t.id = j.task_id AND t.identifier = $1 AND j.locked_at IS NULL AND j.attempts >= j.max_attempts
             AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.run_id = j.payload->>'run' AND r.status = 'active')`,
          [ADVANCE_TASK],
        );
        for (const r of expired) {
          report.swept++;
          note(r.run_id, `run ${r.run_id}: its holder stopped answering (lease expired); handed back to the queue`);
        }
        for (const r of stuck) {
          report.swept++;
          note(r.run_id, `run ${r.run_id}: a job of it that a worker took and left (it stopped answering before it held the run) handed back to the queue`);
        }
      } catch {
        // the database is unreachable: the next sweep tries again
      }
    };
    sweeper = setInterval(() => void sweep(), Math.max(50, Math.floor(ttl / 2)));
    await sweep();
    await new Promise<void>((resolve) => {
      if (stopping.signal.aborted) resolve();
      stopping.signal.addEventListener("abort", () => resolve(), { once: true });
    });
  } finally {
    console.trace = trace;
    if (sweeper) clearInterval(sweeper);
    await queue?.stop().catch(() => undefined);
    await journal.close();
  }
  return report;
}

/** graphile-worker, loaded on first use (only workers and `apply --detach` need it). */
function graphileWorker(): typeof import("graphile-worker") {
  return createRequire(import.meta.url)("graphile-worker") as typeof import("graphile-worker");
}

/**
 * Installs (or upgrades) graphile-worker's schema in the journal's database, then sends the
 * journal's wake-ups to it: what `apply --detach` needs before its run can be picked up.
 * Processes doing it at once (workers starting beside an `apply --detach`) may collide:
 * graphile-worker's first install (`CREATE SCHEMA IF NOT EXISTS`, `CREATE TABLE IF NOT
 * EXISTS`) is not safe against itself, and the loser failed with a duplicate key (found by
 * CI). A collision is tried again, and then finds what the other process installed (its
 * migrations skip the ones done meanwhile). No lock of our own: a journal with one connection
 * could not hold one and migrate.
 * @param who the program, as the queue's lines name it ({@link queueVoice}): `criteria` from `apply` and `resume`
 * @throws Error from the database (the caller reports it as a storage failure)
 */
export async function prepareQueue(journal: PostgresJournal, who = "criteria worker"): Promise<void> {
  const gw = graphileWorker();
  for (let attempt = 1; ; attempt++) {
    try {
      await gw.runMigrations({ pgPool: journal.connections, schema: QUEUE_SCHEMA, logger: queueVoice(journal.connections, undefined, who).logger(gw) });
      break;
    } catch (e) {
      if (attempt >= 5 || !INSTALL_COLLISIONS.has((e as { code?: string }).code ?? "")) throw e;
      await sleep(50 * attempt + Math.random() * 50);
    }
  }
  journal.useQueue();
}

/** PostgreSQL's codes for two installs colliding: unique_violation (a catalog row), duplicate_schema, duplicate_table, duplicate_object. */
const INSTALL_COLLISIONS = new Set(["23505", "42P06", "42P07", "42710"]);

/**
 * Opens the worker's journal, trying again every {@link OPEN_RETRY_MS} while the database does
 * not answer (`JournalOpenError.unreachable`); `say` is told once when it starts waiting and
 * once when the database answers. Undefined when `opts.signal` aborts first.
 * @throws JournalOpenError when the store refuses
 */
async function openWhenAnswering(opts: WorkerOptions, concurrency: number, say: (message: string) => void): Promise<PostgresJournal | undefined> {
  let waiting = false;
  while (!opts.signal?.aborted) {
    try {
      const journal = await PostgresJournal.open(opts.store, { stateDir: opts.stateDir, leaseTtlMs: opts.leaseTtlMs, poolSize: concurrency + 4 });
      if (waiting) say("the database answers: starting");
      return journal;
    } catch (e) {
      if (!(e instanceof JournalOpenError) || !e.unreachable) throw e;
      if (!waiting) say(`${e.message}; trying again every ${OPEN_RETRY_MS / 1000} s until it answers (Ctrl-C stops)`);
      waiting = true;
      await defaultSleep(OPEN_RETRY_MS, opts.signal ?? new AbortController().signal);
    }
  }
  return undefined;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());
