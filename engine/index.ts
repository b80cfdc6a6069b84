import type { Graph } from "../compiler/build/graph.js";
import type { Value } from "../compiler/expr/value.js";
import { findAdapterExecutable } from "./adapters/process-adapter.js";
import { adapterFor, isBuiltIn } from "./adapters/registry.js";
import { journalWriteError } from "./journal/errors.js";
import { openStore } from "./journal/open-store.js";
import { PostgresJournal, wake } from "./journal/postgres-journal.js";
import { foldEntries } from "./journal/fold.js";
import { storeOption } from "./journal/state-dir.js";
import { within } from "./run/child-jobs.js";
import { prepareQueue } from "./worker/worker.js";
import type { RunEvent } from "./run/events.js";
import { Runner, RunRefused, RunSubmitted, type RunEnd } from "./run/runner.js";

export { SqliteJournal } from "./journal/sqlite-journal.js";
export { openStore } from "./journal/open-store.js";
export type { Journal } from "./journal/journal.js";
export { RunLockedError, JournalError, JournalWriteError, JournalOpenError, JournalReadError, JournalDamagedError, LeaseLostError, RunEndedError, TreeChangedError } from "./journal/errors.js";
export { Runner, RunInterrupted, RunRefused, RunNeedsSecrets, RunParked, RunSubmitted, type RunEnd } from "./run/runner.js";
export { deliverSignal } from "./run/signals.js";
export { outcomesToName, receivedRoute } from "./run/wait-nodes.js";
export { activeUnits, unitOf, within } from "./run/child-jobs.js";
export type { RunEvent } from "./run/events.js";
export { killLiveProcessGroups } from "./adapters/run-process.js";
export { answeredIn, foldEntries, openDeadlines, timedOutIn, waitingIn, type Waiting } from "./journal/fold.js";
export { workflowDir } from "./run/workflow-dir.js";
export { PostgresJournal } from "./journal/postgres-journal.js";

/** Why `--detach` (`apply`, `resume`) is refused on a journal no worker can share. */
export const DETACH_NEEDS_STORE = "--detach hands the run to workers (criteria worker), which share a PostgreSQL journal: add --store postgres://…";

/** An adapter type can run: built in, or `criteria-adapter-<type>` installed where the registry looks. */
const adapterExists = (type: string, dir: string) => isBuiltIn(type) || findAdapterExecutable(type, dir) !== undefined;

/** Options shared by {@link apply} and {@link resume}. */
export interface EngineOptions {
  /** Journal directory (`--state-dir`, `CRITERIA_STATE_DIR`, default `.criteria/`); with `store`, the local state only. */
  stateDir: string;
  /** A PostgreSQL journal's URL (`--store`, `CRITERIA_STORE`) instead of the SQLite one in `stateDir`. */
  store?: string;
  /** Where the workflow's relative paths resolve (its directory). */
  baseDir: string;
  events?: (e: RunEvent) => void;
  autoApprove?: boolean;
  signal?: AbortSignal;
  clock?: () => number;
  pollMs?: number;
  /** Park at an approval or a signal wait instead of waiting (`--no-wait`). */
  park?: boolean;
  /** A NATS broker for the run's channels (`--broker`, `CRITERIA_BROKER`): agents on other machines reach them through it. */
  broker?: string;
}

export { runWorker, type WorkerOptions, type WorkerReport } from "./worker/worker.js";

/**
 * Runs a compiled graph to its end, journaled under `stateDir` or in `store` (docs/architecture.md, The engine).
 * @param vars values for the workflow's variables (`--var`)
 * @param opts.runId a chosen run id (refused if it already exists); `opts.input` the run's `input` namespace;
 *   `opts.source` the files it was compiled from (`resume` says when they changed)
 *   `opts.detach` only submits it to the workers sharing the `store` (throws RunSubmitted once journaled)
 * @throws RunLockedError when another live process holds the run; RunInterrupted on abort; RunSubmitted
 */
export async function apply(graph: Graph, vars: Record<string, Value>, opts: EngineOptions & { runId?: string; input?: Record<string, Value>; source?: { entry: string; hash: string }; detach?: boolean }): Promise<RunEnd> {
  const journal = await openStore(opts);
  try {
    for (const note of journal.notes) opts.events?.({ event: "warning", run_id: opts.runId ?? "", message: note });
    if (opts.detach) {
      if (!(journal instanceof PostgresJournal)) throw new RunRefused(DETACH_NEEDS_STORE, true);
      try {
        await prepareQueue(journal, "criteria");
      } catch (e) {
        throw journalWriteError(journal.location, e);
      }
    }
    return await new Runner({ journal, adapterFor, adapterExists, ...opts, submit: opts.detach === true }).start(graph, vars, opts.runId, opts.input, opts.source);
  } finally {
    await journal.close();
  }
}

/**
 * Hands an active run to the workers sharing the `store` (`criteria resume --detach`; found
 * by a new-user trial: a run stopped by Ctrl-C, or unlocked, stayed active with nothing to
 * advance it): enqueues its `advance` job, the wake-up a signal enqueues, and a worker
 * resumes it from its journal (a live holder keeps it until it lets go: the job retries).
 * @param runId the run whose job advances it (a root, or a child run with a job of its own)
 * @param opts.relocate `resume --detach --workdir`: the root run's workflow directory is
 *   now `baseDir` (absolute), journaled as `run.relocated` (no lease: as a signal is) in
 *   the transaction that enqueues the job, so the worker that takes it looks there
 * @throws RunRefused without a PostgreSQL store; JournalWriteError when the queue cannot be
 *   written; RunSubmitted once the job is enqueued (it always throws)
 */
export async function handOver(runId: string, opts: Omit<EngineOptions, "baseDir"> & { relocate?: { rootRunId: string; baseDir: string } }): Promise<never> {
  const journal = await openStore(opts);
  try {
    if (!(journal instanceof PostgresJournal)) throw new RunRefused(DETACH_NEEDS_STORE, true);
    try {
      await prepareQueue(journal, "criteria");
      const r = opts.relocate;
      if (r) await journal.append(r.rootRunId, [{ run_id: r.rootRunId, step_id: "", attempt: 0, entry_type: "run.relocated", at_ms: Date.now(), payload: { base_dir: r.baseDir } }], { wake: { runs: [runId] } });
      else await wake(journal.connections, runId);
      // Its child runs advanced in jobs of their own that nothing advances now (their leases
      // taken by `criteria unlock`, their jobs ended with it): woken too, or the run would wait
      // for them for good (found by a new-user trial's unlock of a root whose children ran on).
      for (const child of await idleDetachedChildren(journal, runId)) await wake(journal.connections, child);
    } catch (e) {
      throw journalWriteError(journal.location, e);
    }
    throw new RunSubmitted(runId, storeOption(journal.location));
  } finally {
    await journal.close();
  }
}

/** The active child runs within `runId` advanced in jobs of their own (`detached`) whose lease no live process holds. */
async function idleDetachedChildren(journal: PostgresJournal, runId: string): Promise<string[]> {
  const row = await journal.run(runId);
  if (!row) return [];
  const tree = foldEntries((await journal.read(row.root_run_id)).entries);
  const out: string[] = [];
  for (const [id, rec] of tree.runs) {
    if (id === runId || !within(id, runId) || !rec.spawned?.detached || rec.completed) continue;
    if (!(await journal.holder(id))?.alive) out.push(id);
  }
  return out;
}

/**
 * Resumes a run from its journal: completed work is re-used, an interrupted attempt is
 * marked crashed and run again, confirmed effects are never repeated.
 * @param opts.force take the run over from a live holder; `opts.discardDamaged` resume past
 *   a damaged entry, setting it aside; `opts.workdir` where the workflow's directory is now;
 *   `opts.secretVars` the run's secret variables again (raw `--var` text; never journaled)
 * @throws RunLockedError when another live process holds the run; JournalDamagedError
 */
export async function resume(runId: string, opts: Omit<EngineOptions, "baseDir"> & { force?: boolean; discardDamaged?: boolean; workdir?: string; secretVars?: Record<string, string> }): Promise<RunEnd> {
  const journal = await openStore(opts);
  try {
    for (const note of journal.notes) opts.events?.({ event: "warning", run_id: runId, message: note });
    return await new Runner({ journal, adapterFor, adapterExists, baseDir: opts.workdir ?? process.cwd(), ...opts }).resume(runId, { workdir: opts.workdir });
  } finally {
    await journal.close();
  }
}
