import type { JournalEntry, MemoryItem, NewEntry } from "./entry.js";
import type { JournalDamagedError, LeaseLostError, RunEndedError, SignalTakenError, TreeChangedError } from "./errors.js";

/** A run summary from the `runs` index (derived from the journal, written in the same transactions as its entries). */
export interface RunRow {
  run_id: string;
  root_run_id: string;
  parent_run_id: string | null;
  workflow: string;
  status: "active" | "succeeded" | "failed";
  /** Milliseconds since the epoch, from the runner's clock (the entry's `at_ms`). */
  created_ms: number;
  /**
   * When the run last changed: for an active run, its newest journal entry's `at_ms` or that
   * of a run nested in it (found by a new-user trial: it stayed at the start while the run
   * went on); for an ended run, when it ended.
   */
  updated_ms: number;
  final_state: string | null;
  /** The run's identity (a flow's header `identity`, else its name), when it has one. */
  identity: string | null;
}

/** Which runs {@link Journal.runs} lists. */
export interface RunsQuery {
  /** Root runs only. */
  roots?: boolean;
  /** Only the nested runs of this root run's tree (itself left out). */
  childrenOf?: string;
  /** Only runs not ended (`status` "active"). */
  active?: boolean;
  /** At most this many rows; 1,000 when not given. */
  limit?: number;
}

/** A checksum failure found while reading: the first damaged entry. */
export interface Damage {
  seq: number;
  message: string;
}

/** Who holds a run tree's lease (`criteria runs`, `criteria unlock`). */
export interface LeaseHolder {
  pid: number;
  host: string;
  /** When the lease runs out unless renewed, in ms since the epoch (the store's clock). */
  expiresMs: number;
  /** The holder is still running it: the lease has not expired, and (on its own host) the process lives. */
  alive: boolean;
}

/** A job for the workers sharing the store: advance `runs` (default: the tree's root) at `atMs` (ms since the epoch), or at once. */
export interface WakeUp {
  atMs?: number;
  runs?: string[];
}

/** How an append is committed, and what it asks of workers. */
export interface AppendOptions {
  /**
   * `false`: the store may skip flushing this commit on its own (an entry whose loss on power
   * failure changes nothing); the next synced commit makes it durable.
   */
  sync?: boolean;
  /**
   * Ask the workers sharing the store (`criteria worker`) to advance runs (a root, or child
   * runs advanced in their own jobs), in the same transaction as the entries: a signal, an
   * approval, a submitted run, a child's end or a timer can never be lost between the two.
   * A store without workers ignores it.
   */
  wake?: WakeUp | WakeUp[];
  /**
   * The run whose lease the caller holds (a root run, or a child run advanced in its own
   * job; the scale-out issue, item 4), checked in the append's transaction: an append
   * naming a lease this journal does not hold (never taken, given back, taken over) is
   * refused with {@link LeaseLostError}. Without it, the tree's root lease is checked
   * when this journal holds it, and appends of processes that hold none (a signal, an
   * approval) are not fenced.
   */
  lease?: string;
  /**
   * The `seq` of the `signal.received` this append consumes (a wait's or an approval's
   * end): refused with {@link SignalTakenError}, writing nothing, when an entry of the tree
   * already consumed it. Checked in the append's transaction, so one signal ends one wait
   * whichever process advances each.
   */
  consumes?: number;
  /**
   * The channel message this append's receive takes (an `effect.confirmed` naming it in
   * `received`), and the `seq` of its post's record (no receive of it can come before):
   * refused with {@link MessageTakenError}, writing nothing, when a receive of the tree
   * took it already. Checked in the append's transaction, so a message is received once
   * whichever process runs each receiver (the channels issue); the check reads only the
   * entries after the post.
   */
  takes?: { id: string; after: number };
  /**
   * The newest `seq` of the tree the caller read: refused with {@link TreeChangedError},
   * writing nothing, when the tree has a newer entry. Checked in the append's transaction,
   * under the tree's lock: what the caller decided from what it read is written only if
   * nothing came between (an approval's decision: one of two given at once is refused).
   */
  ifLastSeq?: number;
  /**
   * The caller's last write under its lease (a run's `run.completed`): the store may give the
   * lease back in the append's transaction, one commit fewer per run (the scale-out issue's
   * steps/s figure); `unlock` afterwards then has nothing left to do. A store that does not
   * gives it back at `unlock`, as always.
   */
  release?: boolean;
  /**
   * Runs whose end refuses the append ({@link RunEndedError}, nothing written) when one of
   * them has ended (by the runs index, which a run's `run.completed` updates in its own
   * transaction): a signal to a run and its root, checked in the append's transaction under
   * the tree's lock (found by a new-user trial: a signal sent as its run ended was written
   * after the end, and said to be kept for a wait that never came).
   */
  unlessEnded?: string[];
}

/**
 * The journal store (docs/architecture.md, The engine: the journal is truth), whatever
 * holds it: SQLite embedded in the state directory ({@link SqliteJournal}, the default) or a
 * PostgreSQL database shared by machines ({@link PostgresJournal}). Both pass one
 * contract suite (test/engine/journal/contract.ts). Every method is asynchronous because
 * a networked store is; errors are the classes of errors.ts, never a driver's own.
 *
 * Promises every implementation keeps:
 * - `append` is atomic (all entries or none) and checks, in the same transaction, that the
 *   caller still holds the lease it names, or the run tree's when it took that one
 *   (fencing: {@link LeaseLostError}).
 * - within a run tree, `seq` increases in commit order, so a reader that resumes after the
 *   last `seq` it saw never misses an entry (signals appended by another process included).
 * - every entry carries a checksum; a read stops at the first entry that fails it ({@link Damage}).
 * - the `runs` index and the memory of remembered outputs are written in the append's own
 *   transaction: they never hold a run the journal does not.
 */
export interface Journal {
  /** Where the journal is, for messages: a file path, or a database URL without its password. */
  readonly location: string;
  /** The local state directory (orphan-process files, paths journaled relative to it). */
  readonly stateDir: string;
  /** Notes from opening (e.g. a torn write-ahead log tail that was recovered), to be said as warnings. */
  readonly notes: string[];
  /**
   * The journal lives beside the workflow's checkout (a state directory that moves with it),
   * so a run's directory is also journaled relative to it and found again after a move.
   */
  readonly besideCheckout: boolean;

  /**
   * Appends entries of one run tree atomically and returns them with their `seq`.
   * @throws JournalWriteError when the store cannot be written; LeaseLostError when the caller's lease is gone
   */
  append(rootRunId: string, entries: NewEntry[], opts?: AppendOptions): Promise<JournalEntry[]>;

  /**
   * Group commit, where the store has it: several appends of one run tree in one commit,
   * in order, each all or none on its own (one refused by its lease, a signal or a message
   * taken, leaves the others), flushed when any of them asks to be. Returns each append's
   * entries, or its error; a commit that fails fails them all (JournalWriteError).
   */
  appendGroup?(rootRunId: string, appends: { entries: NewEntry[]; opts?: AppendOptions }[]): Promise<(JournalEntry[] | Error)[]>;

  /**
   * Streams a run tree's entries after `afterSeq` in `seq` order to `visit`, checksums
   * verified. Returns the first damaged entry, when one fails its checksum (the entries
   * before it have been visited).
   * @throws JournalReadError
   */
  scan(rootRunId: string, visit: (e: JournalEntry) => void, afterSeq?: number): Promise<Damage | undefined>;

  /** Every entry of a run tree (after `afterSeq`), and the damage that ended the read if any. @throws JournalReadError */
  read(rootRunId: string, afterSeq?: number): Promise<{ entries: JournalEntry[]; corrupt?: string; damage?: Damage }>;

  /** What resuming past damaged entry `seq` would lose: the entries from it on and the steps completed in them. @throws JournalReadError */
  damageReport(rootRunId: string, seq: number): Promise<JournalDamagedError>;

  /**
   * Sets aside the run tree's entries from `seq` on (`resume --discard-damaged`), in one
   * transaction, into the quarantine, and rebuilds the tree's `runs` rows from what remains.
   * @returns how many entries were set aside
   * @throws JournalWriteError
   */
  quarantine(rootRunId: string, seq: number, nowMs: number): Promise<number>;

  /**
   * Earlier runs of `identity` for a memory pack (docs/language.md, Composition): those whose
   * remembered outputs best match `query`, then the newest, as many as fit in
   * `budgetBytes` of UTF-8 text; runs of the tree `excludeRoot` are skipped.
   */
  recall(identity: string, query: string, budgetBytes: number, excludeRoot: string): Promise<MemoryItem[]>;

  /** A root run's `run.spawned` payload, without reading the rest. @throws JournalReadError */
  spawned(rootRunId: string): Promise<JournalEntry<"run.spawned">["payload"] | undefined>;

  /**
   * Runs, newest first; `roots` keeps root runs only; `childrenOf` keeps the nested runs of
   * that root run's tree, `active` the runs not ended; `limit` defaults to 1,000.
   * @throws JournalReadError
   */
  runs(opts?: RunsQuery): Promise<RunRow[]>;

  /** One run's row, or undefined. @throws JournalReadError */
  run(runId: string): Promise<RunRow | undefined>;

  /**
   * Takes a run's lease for this process (a root run's covers its tree; a child run
   * advanced in its own job has its own: the scale-out issue, item 4), renewed by a heartbeat every TTL/3 until
   * {@link unlock}. An expired lease, or a dead holder's on this host, is taken over (the
   * returned note says so); so is any with `force`. A lease this journal already holds is
   * refused too (two runners of one process never share a run), even with `force`.
   * @throws RunLockedError while a live holder's lease runs; JournalWriteError
   */
  lock(runId: string, opts?: { force?: boolean }): Promise<string | undefined>;

  /**
   * Gives this process's lease on the run back. With `epoch` (what {@link heldEpoch} said
   * when the caller took it), only that lease: a runner whose lease was lost must not give
   * back the one another runner of this process took since (found by the chaos test: a
   * worker continued after a freeze gave back its new job's lease, and the run was left
   * with no holder and no wake-up). Never throws (a failure must not hide another).
   */
  unlock(runId: string, epoch?: number): Promise<void>;

  /** The epoch of this process's lease on the run, when it holds one (lost or not). */
  heldEpoch(runId: string): number | undefined;

  /** Who holds the run's lease, if anyone. @throws JournalReadError */
  holder(runId: string): Promise<LeaseHolder | undefined>;

  /**
   * Calls `listener` once when the lease this journal holds on `runId` is lost: another
   * process took it (after it expired, or with `unlock` or `resume --force`), the journal
   * file went away, or it could not be renewed for a whole lease period (the store
   * unreachable, or this process paused: another may have taken it meanwhile). Found by the
   * heartbeat (every TTL/3) or by an append; told in a microtask. A holder paused past its
   * lease that finds it still its own (no one took it: the epoch is unchanged) loses nothing.
   * The runner stops what it runs then (a fenced worker's step no longer runs on beside its
   * re-run elsewhere: the scale-out issue, from a new-user trial). Told at once when the
   * lease is lost already; never when this journal holds none.
   * @returns what stops listening
   */
  onLeaseLost(runId: string, listener: (error: LeaseLostError) => void): () => void;

  /**
   * Ends any lease on the run, whoever holds it (`criteria unlock RUN`): its holder can
   * no longer append.
   * @returns who held it
   * @throws JournalWriteError
   */
  breakLease(runId: string): Promise<LeaseHolder | undefined>;

  /**
   * For a journal read from a copy (a SQLite journal opened read-only where SQLite could not
   * be opened in place): true once the journal it was copied from has changed since, so a
   * follower opens it again. Absent, or false, for a journal read where it is.
   */
  stale?(): boolean;

  /** Stops heartbeats and closes the store. */
  close(): Promise<void>;
}
