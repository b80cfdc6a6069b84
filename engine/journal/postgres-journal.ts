import { requirePackage } from "../../compiler/require-package.js";
import { hostname } from "node:os";
import type { Client, Pool, PoolClient } from "pg";
import { procStat } from "../process-info.js";
import { canonicalJson } from "./canonical-json.js";
import type { EntryType, JournalEntry, MemoryItem, NewEntry, Payloads } from "./entry.js";
import { AppendRefusedError, JournalDamagedError, JournalOpenError, JournalReadError, journalWriteError, type JournalWriteError, LeaseLostError, MessageTakenError, RunEndedError, RunLockedError, SignalTakenError, storageReason, TreeChangedError, storeUnreachable } from "./errors.js";
import type { AppendOptions, Damage, Journal, LeaseHolder, RunRow, RunsQuery } from "./journal.js";
import { withoutPassword } from "./store-url.js";
import { holderOf, leaseRanOut, leaseTtlFromEnv, LEASE_TAKEN, loseLease, NOT_HELD, ownerToken, takeOver, watchLease, type HeldLease, type LeaseState } from "./lease.js";
import { checksum, isTreeStart, memoryText, pickMemory, recallTerms, RUN_ROWS, runsQuerySql, tallyDamage } from "./store-rules.js";

/**
 * The database's half of a one-flight append ({@link PostgresJournal} `appendInOneFlight`),
 * one statement: takes the tree's lock, then aborts the transaction (SQLSTATE
 * {@link REFUSED}, message `lease` or `seq`) when the lease named is not the owner's at
 * that epoch (read `FOR SHARE`, as the two-flight append reads it) or when the tree has a
 * seq at or above the append's first. Versioned: a changed body gets a new name.
 */
const CHECK_FN = "criteria_journal_check_v1";

/** The SQLSTATE with which {@link CHECK_FN} refuses: a class no PostgreSQL error uses. */
const REFUSED = "CR001";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS journal (
  seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  root_run_id TEXT NOT NULL,
  run_id TEXT NOT NULL,
  step_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  entry_type TEXT NOT NULL,
  at_ms BIGINT NOT NULL,
  payload TEXT NOT NULL,
  checksum BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS journal_root ON journal(root_run_id, seq);
CREATE TABLE IF NOT EXISTS runs (
  run_id TEXT PRIMARY KEY,
  root_run_id TEXT NOT NULL,
  parent_run_id TEXT,
  workflow TEXT NOT NULL,
  status TEXT NOT NULL,
  created_ms BIGINT NOT NULL,
  updated_ms BIGINT NOT NULL,
  final_state TEXT,
  identity TEXT
);
CREATE INDEX IF NOT EXISTS runs_created ON runs(created_ms DESC, run_id DESC);
CREATE INDEX IF NOT EXISTS runs_root ON runs(root_run_id);
CREATE TABLE IF NOT EXISTS memory (
  identity TEXT NOT NULL,
  run_id TEXT NOT NULL,
  at_ms BIGINT NOT NULL,
  text TEXT NOT NULL,
  words TSVECTOR GENERATED ALWAYS AS (to_tsvector('simple', text)) STORED
);
CREATE INDEX IF NOT EXISTS memory_words ON memory USING GIN (words);
CREATE TABLE IF NOT EXISTS leases (
  root_run_id TEXT PRIMARY KEY,
  owner TEXT,
  epoch BIGINT NOT NULL,
  pid INTEGER NOT NULL,
  host TEXT NOT NULL,
  start_ticks TEXT,
  expires_at TIMESTAMPTZ NOT NULL
);
CREATE TABLE IF NOT EXISTS journal_quarantine (
  seq BIGINT PRIMARY KEY,
  root_run_id TEXT NOT NULL,
  run_id TEXT NOT NULL,
  step_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  entry_type TEXT NOT NULL,
  at_ms BIGINT NOT NULL,
  payload TEXT NOT NULL,
  checksum BIGINT NOT NULL,
  quarantined_ms BIGINT NOT NULL
);
DO $do$ BEGIN
  IF to_regprocedure('${CHECK_FN}(text, text, text, bigint, bigint)') IS NULL THEN
    CREATE FUNCTION ${CHECK_FN}(tree text, lease_run text, lease_owner text, lease_epoch bigint, first_seq bigint) RETURNS int LANGUAGE plpgsql AS $f$
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtextextended(tree, 0));
      IF lease_run IS NOT NULL AND NOT EXISTS (SELECT 1 FROM leases WHERE root_run_id = lease_run AND owner = lease_owner AND epoch = lease_epoch FOR SHARE) THEN
        RAISE EXCEPTION USING ERRCODE = '${REFUSED}', MESSAGE = 'lease';
      END IF;
      IF EXISTS (SELECT 1 FROM journal WHERE root_run_id = tree AND seq >= first_seq) THEN
        RAISE EXCEPTION USING ERRCODE = '${REFUSED}', MESSAGE = 'seq';
      END IF;
      RETURN 1;
    END $f$;
  END IF;
END $do$;
`;

/** graphile-worker's schema (its default): where `criteria worker` keeps its jobs. */
export const QUEUE_SCHEMA = "graphile_worker";

/** The task that advances a run: payload `{ run: <run id> }`, a root run or a child run advanced in its own job (engine/worker/worker.ts). */
export const ADVANCE_TASK = "advance";

/**
 * Enqueues `advance(run)` in the caller's transaction: at once with job key `run` (a
 * pending wake-up is moved to now, never doubled), or at `atMs` with key `run@atMs` (one
 * per deadline: a timer never replaces a wake-up, nor one the other).
 */
export async function wake(c: Pick<PoolClient, "query">, run: string, atMs?: number): Promise<void> {
  await c.query(`SELECT ${QUEUE_SCHEMA}.add_job($1, json_build_object('run', $2::text), run_at := COALESCE(to_timestamp($3::float8 / 1000), now()), max_attempts := 25, job_key := $4)`, [
    ADVANCE_TASK,
    run,
    atMs ?? null,
    atMs === undefined ? run : `${run}@${atMs}`,
  ]);
}

/**
 * Waits for every query of a pipelined flight (each is answered, or fails, in turn; none left
 * unobserved) and throws the first failure.
 */
async function settle(queries: (Promise<unknown> | undefined)[]): Promise<void> {
  const failed = (await Promise.allSettled(queries)).find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
}

/**
 * Sends the queries `send` makes (synchronously) as one write on `c`'s socket: `pg` writes
 * each query of a pipelined flight as its own write, one system call each, and the server
 * wakes to each (the scale-out issue's steps/s figure: writes were ~10 % of a worker's time,
 * five or six of them per flight). Returns what `send` returns.
 */
function oneWrite<T>(c: PoolClient, send: () => T): T {
  const stream = (c as unknown as Client).connection.stream;
  stream.cork();
  try {
    return send();
  } finally {
    stream.uncork();
  }
}

/**
 * An append that failed because the server could not be reached (it restarts, fails over,
 * the network dropped): {@link PostgresJournal.append} tries it again. `error` is what to
 * throw when it gives up.
 */
class ServerLost extends Error {
  constructor(readonly error: JournalWriteError) {
    super(error.message);
  }
}

/** This process's start time in clock ticks since boot (a lease row's `start_ticks`: a pid re-used later is told apart), read once. */
let startTicks: string | null | undefined;
function ownStartTicks(): string | null {
  if (startTicks === undefined) startTicks = procStat(process.pid)?.start ?? null;
  return startTicks;
}

/** Rows of the journal written by one INSERT statement at most. */
const INSERT_ROWS = 16;

/** `INSERT INTO journal` of `n` rows of nine values each, seq given (each text made once). */
function insertSql(n: number): string {
  return (insertTexts[n] ??= `INSERT INTO journal (seq, root_run_id, run_id, step_id, attempt, entry_type, at_ms, payload, checksum) OVERRIDING SYSTEM VALUE VALUES ${Array.from({ length: n }, (_, r) => `(${Array.from({ length: 9 }, (_, k) => `$${r * 9 + k + 1}`).join(", ")})`).join(", ")}`);
}
const insertTexts: string[] = [];

/** Gives back lease `$1` held by owner `$2` at epoch `$3`: no holder process, run out now (a new holder takes it at once). */
const RELEASE_SQL = "UPDATE leases SET pid = 0, expires_at = clock_timestamp() WHERE root_run_id = $1 AND owner = $2 AND epoch = $3";

/** A journal row about to be sent: its seq, its checksum, and its nine column values. */
interface Row {
  seq: number;
  checksum: number;
  values: unknown[];
}

/** What an append sent with its `COMMIT`: its rows' seqs and checksums, and its entries as read back. */
interface Sent {
  seqs: number[];
  checksums: number[];
  out: JournalEntry[];
}

/** Seqs a journal takes ahead for its one-flight appends, when fewer than {@link SEQ_LOW} are left. */
const SEQ_RESERVE = 32;
const SEQ_LOW = 8;

/** Rows of a run tree read per round trip by {@link PostgresJournal.scan}. */
const SCAN_PAGE = 1000;

/** The type OID of `int8`: read as a number (seqs, times and counts fit in 2^53). */
const INT8 = 20;

/**
 * The {@link Journal} in PostgreSQL (`--store postgres://…`, `CRITERIA_STORE`): the journal
 * several machines share (the scale-out issue). The same tables as the SQLite journal;
 * `seq` comes from an identity column and each append is one transaction that first takes
 * a transaction-scoped advisory lock on its run tree, so entries of one tree are numbered
 * in commit order (a reader resuming after the last seq it saw misses none); seqs taken
 * ahead are used only when the database finds them above every seq of the tree. Leases are
 * rows `(root_run_id, owner, epoch, expires_at)` (the column holds the run the lease covers:
 * a root run, or a child run advanced in its own job) judged by the database's clock only
 * (`clock_timestamp()`), renewed every TTL/3, and checked under the same lock in every
 * append (fencing). `sync: false` appends commit with `synchronous_commit = off`. A wake-up
 * (`AppendOptions.wake`) enqueues graphile-worker's `advance` job in the same transaction
 * when its schema is in the database (a worker has started there, or `apply --detach`).
 *
 * Open with {@link PostgresJournal.open}; the `pg` driver is loaded on first use.
 */
export class PostgresJournal implements Journal {
  readonly notes: string[] = [];
  /** A database, not a directory beside the checkout. */
  readonly besideCheckout = false;
  private readonly owner = ownerToken();
  private readonly held = new Map<string, HeldLease>();
  /** Leases a {@link lock} of this process is taking at this moment (its transaction not ended). */
  private readonly taking = new Set<string>();
  private closed = false;
  /** Workers share this database: graphile-worker's schema is there, and wake-ups go to its queue. */
  private queue = false;
  /** The database has {@link CHECK_FN}: appends may go in one flight ({@link appendInOneFlight}). */
  private oneFlight = false;
  /**
   * Seqs taken from the sequence ahead of use, in increasing order: a one-flight append uses
   * the first ones, checked under its tree's lock to be above every seq of its tree.
   */
  private seqPool: number[] = [];

  /** The queue's connections, once asked for. */
  private queuePool?: Pool;

  private constructor(
    private readonly pool: Pool,
    private readonly plainPool: () => Pool,
    readonly location: string,
    readonly stateDir: string,
    private readonly ttlMs: number,
  ) {}

  /**
   * Connects to the database at `url` and creates the tables when missing (once, under an
   * advisory lock: workers starting together do not race).
   * @param opts.stateDir the local state directory (orphan-process files); `mustExist`: refuse a
   *   database without a journal; `leaseTtlMs`: how long a lease lasts unless renewed;
   *   `poolSize`: connections at most (default 4; a worker needs one per concurrent run and more)
   * @throws JournalOpenError (unreachable server, refused login, missing database, no journal)
   */
  static async open(url: string, opts: { stateDir: string; mustExist?: boolean; leaseTtlMs?: number; poolSize?: number }): Promise<PostgresJournal> {
    const location = withoutPassword(url);
    const pg = requirePackage<typeof import("pg")>("pg", import.meta.url, "the PostgreSQL journal");
    const types = { getTypeParser: (oid: number, format?: "text" | "binary") => (oid === INT8 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as "text")) };
    // The journal's own connections are pipelined (an append sends its statements in two
    // flights); graphile-worker gets plain ones, made on first use (`connections`).
    const pools = (pipeline: boolean) => {
      const pool = new pg.Pool({ connectionString: url, max: opts.poolSize ?? 4, types, connectionTimeoutMillis: 10_000, pipeline });
      // A lost connection must not end the process. The pool listens to its idle clients'
      // errors only; a client in use emits its error as well as failing its queries, and an
      // 'error' event nobody listens to is thrown (found by CI: a worker died in an outage).
      // Its queries, or the next ones, report the loss; the pool drops the client on release.
      pool.on("error", () => undefined);
      pool.on("connect", (client) => client.on("error", () => undefined));
      return pool;
    };
    const pool = pools(true);
    const j = new PostgresJournal(pool, () => pools(false), location, opts.stateDir, opts.leaseTtlMs ?? leaseTtlFromEnv());
    try {
      if (opts.mustExist) {
        const r = await pool.query("SELECT to_regclass('journal') IS NOT NULL AS present");
        if (!r.rows[0].present) throw new JournalOpenError(`no journal in ${location} (runs are journaled where criteria apply --store ran)`);
        await checkTables(pool, location);
      } else {
        await j.transaction(async (c) => {
          await c.query("SELECT pg_advisory_xact_lock(7305817241)");
          await checkTables(c, location);
          await c.query(SCHEMA);
        });
      }
      const found = await pool.query<{ q: boolean; one_flight: boolean }>(`SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1) AS q, to_regprocedure('${CHECK_FN}(text, text, text, bigint, bigint)') IS NOT NULL AS one_flight`, [QUEUE_SCHEMA]);
      j.queue = found.rows[0].q === true;
      j.oneFlight = found.rows[0].one_flight === true;
    } catch (e) {
      await pool.end().catch(() => undefined);
      if (e instanceof JournalOpenError) throw e;
      throw new JournalOpenError(`cannot open the journal ${location}: ${storageReason(e)}`, { unreachable: storeUnreachable(e) });
    }
    return j;
  }

  /**
   * The job of the workers' queue that will advance `runId` (pending or running, with attempts
   * left), if any: when it is due (`atMs`, ms since the epoch) and in how long by the database's
   * clock (`dueInMs`, 0 when due now). `criteria runs` says "queued" for one due now, and when a
   * parked run's timer (or a retry) wakes it for a later one (found by a new-user trial: a run
   * parked for 15 minutes was listed as queued); `locked`: a worker has it now. Undefined
   * without a queue.
   * @throws Error from the database
   */
  async queuedJob(runId: string): Promise<{ atMs: number; dueInMs: number; locked: boolean } | undefined> {
    if (!this.queue) return undefined;
    const r = await this.pool.query<{ at_ms: number; due_in_ms: number; locked: boolean }>(
      `SELECT (EXTRACT(EPOCH FROM j.run_at) * 1000)::int8 AS at_ms, GREATEST(0, EXTRACT(EPOCH FROM j.run_at - now()) * 1000)::int8 AS due_in_ms, j.locked_at IS NOT NULL AS locked
       FROM ${QUEUE_SCHEMA}._private_jobs j JOIN ${QUEUE_SCHEMA}._private_tasks t ON t.id = j.task_id
       WHERE t.identifier = $1 AND j.payload->>'run' = $2 AND j.attempts < j.max_attempts ORDER BY j.run_at LIMIT 1`,
      [ADVANCE_TASK, runId],
    );
    const row = r.rows[0];
    return row ? { atMs: Number(row.at_ms), dueInMs: Number(row.due_in_ms), locked: row.locked } : undefined;
  }

  /**
   * Whether run `rootRunId`'s lease was broken (`criteria unlock`: no holder, no owner), so
   * that it waits for its user: no worker's sweeper hands its job on (engine/worker/worker.ts).
   */
  async leaseBroken(rootRunId: string): Promise<boolean> {
    return this.reading(async () => (await this.pool.query("SELECT 1 FROM leases WHERE root_run_id = $1 AND pid = 0 AND owner IS NULL", [rootRunId])).rowCount === 1);
  }

  /** Sends wake-ups to graphile-worker's queue from now on (its schema has just been installed). */
  useQueue(): void {
    this.queue = true;
  }

  /**
   * Connections for the worker's queue (graphile-worker) and its sweeper: the same database,
   * a pool of its own without pipelining (made on first use, ended by {@link close}).
   */
  get connections(): Pool {
    return (this.queuePool ??= this.plainPool());
  }

  /**
   * Runs `f` in one transaction on one client; rolls back when it throws. The server ends
   * the transaction if its client stays silent in it for a lease period (see {@link append}).
   */
  private async transaction<T>(f: (c: PoolClient) => Promise<T>, opts: { sync?: boolean } = {}): Promise<T> {
    const c = await this.pool.connect();
    try {
      await settle(this.begin(c, opts));
      const out = await f(c);
      await c.query("COMMIT");
      return out;
    } catch (e) {
      await c.query("ROLLBACK").catch(() => undefined);
      throw e;
    } finally {
      c.release();
    }
  }

  /** Ends the transaction (and the session) on the server when its client is silent in it for a lease period. */
  private boundIdle(c: PoolClient) {
    return c.query({ name: "criteria_idle_bound", text: "SELECT set_config('idle_in_transaction_session_timeout', $1, true)", values: [String(this.ttlMs)] });
  }

  /** Serialises writers of one run tree until the transaction ends. */
  private lockTree(c: PoolClient, root: string) {
    return c.query({ name: "criteria_lock_tree", text: "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", values: [root] });
  }

  /**
   * One transaction in two flights (the pool's connections are pipelined: each flight is
   * sent whole before its answers are read): first `BEGIN`, the tree's lock, the lease row,
   * the signal and message checks and the seqs; then, once they are judged, the rows, the
   * runs index, the memory, the wake-ups and `COMMIT`. Two round trips instead of one per
   * statement, and the statements of every append prepared once per connection (the
   * scale-out issue's steps/s figure: a worker was mostly waiting on them).
   *
   * An outage is waited out, for as long as a lease lasts (`ttlMs`; found by a new-user
   * trial: a step that ended during a 9 s restart of the server lost its result, and the run
   * taken over ran it again): the append is tried again every 0.25–2 s. Its seqs tell
   * whether an attempt whose `COMMIT` was sent, unanswered, was committed after all; a
   * lease taken over meanwhile refuses the next attempt as always (LeaseLostError).
   * @throws JournalWriteError when the server is still unreachable after the lease period
   */
  async append(rootRunId: string, entries: NewEntry[], opts: AppendOptions = {}): Promise<JournalEntry[]> {
    // A lease lost while the append waits (the server frozen, not down: nothing answers, nothing
    // fails) ends the wait with the loss: the caller stops without it (found by a new-user trial:
    // a holder waited on such an append for good). Should it commit later, it is what a crash
    // leaves: an attempt started and never recorded, or a step recorded that did end.
    const h = this.held.get(opts.lease ?? rootRunId);
    if (!h || h.lost) return this.appendWaitingOut(rootRunId, entries, opts);
    let stop: () => void = () => undefined;
    const lost = new Promise<never>((_, reject) => (stop = watchLease(opts.lease ?? rootRunId, h, reject)));
    lost.catch(() => undefined);
    try {
      return await Promise.race([this.appendWaitingOut(rootRunId, entries, opts), lost]);
    } finally {
      stop();
    }
  }

  /** {@link append}, waiting out an outage. */
  private async appendWaitingOut(rootRunId: string, entries: NewEntry[], opts: AppendOptions): Promise<JournalEntry[]> {
    const began = Date.now();
    let sent: Sent | undefined;
    for (let pause = 250; ; pause = Math.min(pause * 2, 2000)) {
      try {
        if (sent && (await this.committed(rootRunId, sent))) return sent.out;
        return await this.appendOnce(rootRunId, entries, opts, (s) => (sent = s));
      } catch (e) {
        if (!(e instanceof ServerLost)) throw e;
        // The server may have restarted, or failed over, without what made the sequence pass
        // the seqs taken ahead: they are not counted on.
        this.seqPool = [];
        if (Date.now() - began + pause > this.ttlMs) throw e.error;
        await new Promise((r) => setTimeout(r, pause));
      }
    }
  }

  /**
   * Whether an append to tree `root` whose `COMMIT` went unanswered is in the journal: its
   * rows, by their seqs in that tree and their checksums (which cover seq, run, step, attempt,
   * type, time and payload), all of them or none, an append being one transaction. Not by its
   * seqs alone (found by a new-user trial): after a crash the sequence may hand a lost
   * commit's seqs out again, and another append's row at one would read as this one's.
   * Read under the tree's lock, which that transaction held: its session may still be ending
   * on the server (a COMMIT not yet carried out, or a session not yet known to be gone,
   * ended at the latest by its idle bound), and is waited for, so that it cannot commit
   * after this says it did not.
   * @throws ServerLost while the server cannot be reached
   */
  private async committed(root: string, sent: Sent): Promise<boolean> {
    try {
      return await this.transaction(async (c) => {
        await this.lockTree(c, root);
        const { rows } = await c.query<{ seq: number; checksum: number }>("SELECT seq, checksum FROM journal WHERE root_run_id = $1 AND seq = ANY($2::int8[])", [root, sent.seqs]);
        const mine = new Map(sent.seqs.map((seq, i) => [seq, sent.checksums[i]]));
        return rows.length > 0 && rows.every((r) => mine.get(r.seq) === Number(r.checksum));
      });
    } catch (e) {
      const error = journalWriteError(this.location, e);
      throw error.unreachable ? new ServerLost(error) : error;
    }
  }

  /**
   * One attempt of {@link append}; `sending` hears the seqs and entries just before the flight
   * with the `COMMIT` is sent. In one flight ({@link appendInOneFlight}) when the database can
   * refuse it itself and seqs taken ahead are at hand; else in two.
   */
  private async appendOnce(rootRunId: string, entries: NewEntry[], opts: AppendOptions, sending: (s: Sent) => void): Promise<JournalEntry[]> {
    let c: PoolClient | undefined;
    const leaseRoot = opts.lease ?? rootRunId;
    try {
      const held = this.heldLease(leaseRoot, opts.lease !== undefined);
      const pc = (c = await this.pool.connect());
      const plain = opts.consumes === undefined && opts.takes === undefined && opts.ifLastSeq === undefined && opts.unlessEnded === undefined;
      if (this.oneFlight && plain && this.seqPool.length >= entries.length) {
        const out = await this.appendInOneFlight(pc, rootRunId, entries, opts, held, sending);
        if (out) return out;
      }
      return await this.appendInTwoFlights(pc, rootRunId, entries, opts, held, sending);
    } catch (err) {
      if (c) await c.query("ROLLBACK").catch(() => undefined);
      if (err instanceof LeaseLostError || err instanceof AppendRefusedError) throw err;
      // A session the server ended (a holder silent past its lease, see above) or lost: when
      // the lease is another's by now, that is what to say (the worker counts it as fenced).
      const h = this.held.get(leaseRoot);
      if (h && !h.lost && (await this.takenFrom(leaseRoot, h.epoch))) throw loseLease(leaseRoot, h, LEASE_TAKEN);
      const error = journalWriteError(this.location, err);
      throw error.unreachable ? new ServerLost(error) : error;
    } finally {
      c?.release();
    }
  }

  /**
   * The first flight: `BEGIN`, the tree's lock, the lease row, the signal and message checks
   * and the seqs; then, once they are judged, {@link sendRows}' flight with the `COMMIT`.
   * Asks for {@link SEQ_RESERVE} seqs more than it needs when the pool runs low and it waits
   * for the disk: they come after this append's own, taken under the tree's lock, and are
   * pooled once it has committed.
   */
  private async appendInTwoFlights(pc: PoolClient, rootRunId: string, entries: NewEntry[], opts: AppendOptions, held: HeldLease | undefined, sending: (s: Sent) => void): Promise<JournalEntry[]> {
    const leaseRoot = opts.lease ?? rootRunId;
    // Seqs are taken ahead only by a commit that waits for the disk: the sequence's move past
    // them is durable only with such a commit (found by a new-user trial: after a crash that
    // lost a `sync: false` commit, the sequence handed out seqs a worker still held).
    const reserve = this.oneFlight && opts.sync !== false && this.seqPool.length < SEQ_LOW ? SEQ_RESERVE : 0;
    // A holder stopped between the flights (SIGSTOP, a partition) keeps its transaction, and
    // with it the tree's lock and its lease row, only for a lease period: the server then ends
    // its session, so it can neither block a taker for ever nor commit after being taken over.
    const { begin, lease, consumed, taken, newest, ended, seqs } = oneWrite(pc, () => {
      const begin = [...this.begin(pc, opts), this.lockTree(pc, rootRunId)];
      // The lease row is read `FOR SHARE`: a takeover (which updates it) waits until this
      // transaction ends, so a commit that passed this check happened before any takeover
      // (found by the chaos test: a frozen worker's append checked its child run's lease, was
      // stopped, and committed its attempt after another worker had taken that lease and read
      // the journal without it: the effect ran twice in attempt 1).
      const lease = held ? pc.query<{ owner: string | null; epoch: number }>({ name: "criteria_lease", text: "SELECT owner, epoch FROM leases WHERE root_run_id = $1 FOR SHARE", values: [leaseRoot] }) : undefined;
      const consumed =
        opts.consumes !== undefined
          ? pc.query("SELECT 1 FROM journal WHERE root_run_id = $1 AND entry_type IN ('wait.completed', 'approval.decided') AND (payload::jsonb ->> 'signal_seq')::int8 = $2 LIMIT 1", [rootRunId, opts.consumes])
          : undefined;
      const taken =
        opts.takes !== undefined
          ? pc.query("SELECT 1 FROM journal WHERE root_run_id = $1 AND seq > $2 AND entry_type = 'effect.confirmed' AND payload::jsonb -> 'received' ->> 'id' = $3 LIMIT 1", [rootRunId, opts.takes.after, opts.takes.id])
          : undefined;
      const newest = opts.ifLastSeq !== undefined ? pc.query<{ seq: string | null }>("SELECT max(seq) AS seq FROM journal WHERE root_run_id = $1", [rootRunId]) : undefined;
      const ended = opts.unlessEnded?.length ? pc.query<{ run_id: string }>("SELECT run_id FROM runs WHERE run_id = ANY($1::text[]) AND status <> 'active' LIMIT 1", [opts.unlessEnded]) : undefined;
      // The seqs (each checksum covers its seq), taken under the tree's lock: in commit order.
      const seqs = this.nextSeqs(pc, entries.length + reserve);
      return { begin, lease, consumed, taken, newest, ended, seqs };
    });
    await settle([...begin, lease, consumed, taken, newest, ended, seqs]);
    if (held && lease) {
      const row = (await lease).rows[0];
      if (row?.owner !== this.owner || row.epoch !== held.epoch) throw loseLease(leaseRoot, held, LEASE_TAKEN);
    }
    if (consumed && (await consumed).rowCount) throw new SignalTakenError(opts.consumes!);
    if (taken && (await taken).rowCount) throw new MessageTakenError(opts.takes!.id);
    if (newest && Number((await newest).rows[0]?.seq ?? 0) !== opts.ifLastSeq) throw new TreeChangedError(opts.ifLastSeq!);
    const endedRun = ended ? (await ended).rows[0]?.run_id : undefined;
    if (endedRun !== undefined) throw new RunEndedError(endedRun);
    const numbers = (await seqs).rows.map((r) => r.seq).sort((x, y) => x - y);
    const rows = this.rowsOf(rootRunId, entries, numbers);
    const { writes, out } = oneWrite(pc, () => {
      const sent = this.sendRows(pc, rootRunId, entries, rows, opts, held);
      sending({ seqs: rows.map((r) => r.seq), checksums: rows.map((r) => r.checksum), out: sent.out });
      // A failed write leaves the transaction aborted, and PostgreSQL then ends it at COMMIT
      // with a rollback: nothing of the flight is kept, and the write's error is thrown.
      sent.writes.push(pc.query("COMMIT"));
      return sent;
    });
    await settle(writes);
    // Once committed (to the disk: `reserve` is 0 otherwise).
    this.pooled(numbers.slice(entries.length));
    this.released(leaseRoot, opts, held);
    return out;
  }

  /**
   * The whole append in one flight, with seqs taken ahead ({@link seqPool}): `BEGIN`, the tree's
   * lock, the lease checked by the database ({@link CHECK_FN} aborts the transaction when this
   * journal does not hold it at its epoch), the seqs checked above every seq of the tree (so
   * that, within a tree, seqs still follow commit order), the rows, a refill of the pool when
   * it runs low, and `COMMIT`. One round trip instead of two (the scale-out issue's steps/s
   * figure). Undefined when the seqs were not above the tree's (another writer of the tree, a
   * signal or another worker's child job, committed higher ones since they were taken):
   * nothing was written, the pool is dropped (its other seqs are below the tree's too), and
   * the caller appends in two flights, which takes new ones.
   * @throws LeaseLostError when the lease is not this journal's
   */
  private async appendInOneFlight(pc: PoolClient, rootRunId: string, entries: NewEntry[], opts: AppendOptions, held: HeldLease | undefined, sending: (s: Sent) => void): Promise<JournalEntry[] | undefined> {
    const leaseRoot = opts.lease ?? rootRunId;
    const numbers = this.seqPool.splice(0, entries.length);
    // Made before anything is sent: an entry that cannot be written fails with nothing on the wire.
    const rows = this.rowsOf(rootRunId, entries, numbers);
    const { checks, refill, writes, out } = oneWrite(pc, () => {
      const checks = [
        ...this.begin(pc, opts),
        // The tree's lock is the check's first act.
        pc.query({ name: "criteria_check", text: `SELECT ${CHECK_FN}($1, $2, $3, $4, $5)`, values: [rootRunId, held ? leaseRoot : null, this.owner, held?.epoch ?? 0, numbers[0]] }),
      ];
      const sent = this.sendRows(pc, rootRunId, entries, rows, opts, held);
      // Only by a commit that waits for the disk (see appendInTwoFlights).
      const refill = opts.sync !== false && this.seqPool.length < SEQ_LOW ? this.nextSeqs(pc, SEQ_RESERVE) : undefined;
      sending({ seqs: numbers, checksums: rows.map((r) => r.checksum), out: sent.out });
      sent.writes.push(pc.query("COMMIT"));
      return { checks, refill, ...sent };
    });
    try {
      await settle([...checks, ...writes, refill]);
    } catch (e) {
      const refused = (e as { code?: string }).code === REFUSED ? (e as Error).message : undefined;
      if (refused === "lease" && held) throw loseLease(leaseRoot, held, LEASE_TAKEN);
      if (refused === "seq") {
        await pc.query("ROLLBACK").catch(() => undefined);
        this.seqPool = [];
        return undefined;
      }
      throw e;
    }
    if (refill) this.pooled((await refill).rows.map((r) => r.seq));
    this.released(leaseRoot, opts, held);
    return out;
  }

  /** After a committed append with `release`: the lease given back in it is no longer renewed, and {@link unlock} has nothing to do. */
  private released(root: string, opts: AppendOptions, held: HeldLease | undefined): void {
    if (!opts.release || !held || this.held.get(root) !== held) return;
    this.stopHeartbeat(root);
    this.held.delete(root);
  }

  /** `BEGIN`, the idle bound and `synchronous_commit` for `sync: false`: the start of every transaction of the journal's own. */
  private begin(pc: PoolClient, opts: { sync?: boolean } = {}): (Promise<unknown> | undefined)[] {
    return [pc.query("BEGIN"), this.boundIdle(pc), opts.sync === false ? pc.query("SET LOCAL synchronous_commit = off") : undefined];
  }

  /** `n` new seqs of the journal's sequence (increasing once sorted). */
  private nextSeqs(pc: PoolClient, n: number) {
    return pc.query<{ seq: number }>({ name: "criteria_seqs", text: "SELECT nextval(pg_get_serial_sequence('journal', 'seq')) AS seq FROM generate_series(1, $1::int)", values: [n] });
  }

  /** Adds seqs taken ahead to {@link seqPool}, which stays in increasing order. */
  private pooled(seqs: number[]): void {
    if (seqs.length === 0) return;
    this.seqPool.push(...seqs);
    this.seqPool.sort((x, y) => x - y);
  }

  /** The rows of `entries` numbered `numbers` (in order): payloads as canonical JSON, and each row's checksum, which covers its seq. */
  private rowsOf(rootRunId: string, entries: NewEntry[], numbers: number[]): Row[] {
    return entries.map((e, i) => {
      const payload = canonicalJson(e.payload);
      const seq = numbers[i];
      const sum = checksum(seq, rootRunId, e.run_id, e.step_id, e.attempt, e.entry_type, e.at_ms, payload);
      return { seq, checksum: sum, values: [seq, rootRunId, e.run_id, e.step_id, e.attempt, e.entry_type, e.at_ms, payload, sum] };
    });
  }

  /** Sends the rows, the runs index, the memory and the wake-ups of an append (no `COMMIT`); the entries as they will read back. */
  private sendRows(pc: PoolClient, rootRunId: string, entries: NewEntry[], rows: Row[], opts: AppendOptions, held: HeldLease | undefined): { writes: Promise<unknown>[]; out: JournalEntry[] } {
    const writes: Promise<unknown>[] = [];
    const out: JournalEntry[] = [];
    // The rows in statements of up to INSERT_ROWS each (one statement per row cost a worker
    // ~20 µs of the driver's time and the server's), each size prepared once per connection.
    for (let at = 0; at < rows.length; at += INSERT_ROWS) {
      const chunk = rows.slice(at, at + INSERT_ROWS);
      writes.push(pc.query({ name: `criteria_insert_${chunk.length}`, text: insertSql(chunk.length), values: chunk.flatMap((r) => r.values) }));
    }
    for (const [i, e] of entries.entries()) {
      const { seq } = rows[i];
      if (e.entry_type === "run.spawned") writes.push(indexSpawned(pc, rootRunId, e.run_id, e.at_ms, e.payload));
      else if (e.entry_type === "run.completed") {
        const p = e.payload;
        writes.push(indexCompleted(pc, e.run_id, e.at_ms, p));
        // After the index's update in the same flight: the run's identity is read from its row.
        if (p.success && Object.keys(p.outputs).length > 0)
          writes.push(pc.query("INSERT INTO memory (identity, run_id, at_ms, text) SELECT identity, run_id, $2, $3 FROM runs WHERE run_id = $1 AND identity IS NOT NULL", [e.run_id, e.at_ms, memoryText(p.outputs)]));
      }
      out.push({ ...e, seq } as JournalEntry);
    }
    if (opts.wake && this.queue) for (const w of [opts.wake].flat()) for (const run of w.runs ?? [rootRunId]) writes.push(wake(pc, run, w.atMs));
    if (opts.release && held) writes.push(pc.query({ name: "criteria_release", text: RELEASE_SQL, values: [opts.lease ?? rootRunId, this.owner, held.epoch] }));
    return { writes, out };
  }

  /** Whether the lease on `root` is no longer this journal's at `epoch` (false when that cannot be read). */
  private async takenFrom(root: string, epoch: number): Promise<boolean> {
    try {
      const { rows } = await this.pool.query<{ owner: string | null; epoch: number }>("SELECT owner, epoch FROM leases WHERE root_run_id = $1", [root]);
      return rows[0]?.owner !== this.owner || rows[0].epoch !== epoch;
    } catch {
      return false;
    }
  }

  /**
   * Before an append: the lease on `root` (a run tree's, or a child run's) this journal holds,
   * to be checked in the append's transaction; undefined when it took none (and the caller did
   * not say it holds one: when `named`, holding none is a loss too).
   * @throws LeaseLostError
   */
  private heldLease(root: string, named: boolean): HeldLease | undefined {
    const h = this.held.get(root);
    if (!h) {
      if (named) throw new LeaseLostError(root, NOT_HELD);
      return undefined;
    }
    if (h.lost) throw new LeaseLostError(root, h.lost);
    return h;
  }

  async read(rootRunId: string, afterSeq = 0): Promise<{ entries: JournalEntry[]; corrupt?: string; damage?: Damage }> {
    const entries: JournalEntry[] = [];
    const damage = await this.scan(rootRunId, (e) => void entries.push(e), afterSeq);
    return damage ? { entries, corrupt: damage.message, damage } : { entries };
  }

  async scan(rootRunId: string, visit: (e: JournalEntry) => void, afterSeq = 0): Promise<Damage | undefined> {
    let after = afterSeq;
    for (;;) {
      const rows = await this.reading(async () => {
        const r = await this.pool.query<{ seq: number; run_id: string; step_id: string; attempt: number; entry_type: string; at_ms: number; payload: string; checksum: number }>(
          "SELECT seq, run_id, step_id, attempt, entry_type, at_ms, payload, checksum FROM journal WHERE root_run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
          [rootRunId, after, SCAN_PAGE],
        );
        return r.rows;
      });
      for (const r of rows) {
        let parsed: unknown;
        try {
          parsed = checksum(r.seq, rootRunId, r.run_id, r.step_id, r.attempt, r.entry_type, r.at_ms, r.payload) === r.checksum ? JSON.parse(r.payload) : undefined;
        } catch {
          parsed = undefined;
        }
        if (parsed === undefined) return { seq: r.seq, message: `entry ${r.seq} fails its checksum; reading stopped before it` };
        visit({ seq: r.seq, run_id: r.run_id, step_id: r.step_id, attempt: r.attempt, entry_type: r.entry_type as EntryType, at_ms: r.at_ms, payload: parsed } as JournalEntry);
        after = r.seq;
      }
      if (rows.length < SCAN_PAGE) return undefined;
    }
  }

  async damageReport(rootRunId: string, seq: number): Promise<JournalDamagedError> {
    return this.reading(async () => {
      const { rows } = await this.pool.query<{ run_id: string; step_id: string; entry_type: string; before: boolean }>(
        "SELECT run_id, step_id, entry_type, seq < $2 AS before FROM journal WHERE root_run_id = $1 AND (seq >= $2 OR entry_type = 'effect.confirmed') ORDER BY seq",
        [rootRunId, seq],
      );
      const lost = rows.filter((r) => !r.before);
      const last = await this.pool.query<{ seq: string | null }>("SELECT max(seq) AS seq FROM journal WHERE root_run_id = $1 AND seq < $2", [rootRunId, seq]);
      const before = last.rows[0]?.seq;
      return new JournalDamagedError(rootRunId, seq, lost.length, tallyDamage(rows.filter((r) => r.before), lost), isTreeStart(rootRunId, lost[0]), before == null ? seq - 1 : Number(before));
    });
  }

  async quarantine(rootRunId: string, seq: number, nowMs: number): Promise<number> {
    try {
      return await this.transaction(async (c) => {
        await this.lockTree(c, rootRunId);
        await c.query(
          "INSERT INTO journal_quarantine SELECT seq, root_run_id, run_id, step_id, attempt, entry_type, at_ms, payload, checksum, $3 FROM journal WHERE root_run_id = $1 AND seq >= $2",
          [rootRunId, seq, nowMs],
        );
        const moved = (await c.query("DELETE FROM journal WHERE root_run_id = $1 AND seq >= $2", [rootRunId, seq])).rowCount ?? 0;
        await c.query("DELETE FROM runs WHERE root_run_id = $1", [rootRunId]);
        const { rows } = await c.query<{ run_id: string; entry_type: string; at_ms: number; payload: string }>(
          "SELECT run_id, entry_type, at_ms, payload FROM journal WHERE root_run_id = $1 AND entry_type IN ('run.spawned', 'run.completed') ORDER BY seq",
          [rootRunId],
        );
        for (const r of rows) {
          const p = JSON.parse(r.payload) as Payloads["run.spawned"] & Payloads["run.completed"];
          if (r.entry_type === "run.spawned") await indexSpawned(c, rootRunId, r.run_id, r.at_ms, p);
          else await indexCompleted(c, r.run_id, r.at_ms, p);
        }
        return moved;
      });
    } catch (err) {
      throw journalWriteError(this.location, err);
    }
  }

  /** Full-text search (`to_tsvector('simple')`, ranked by `ts_rank`) in place of SQLite's FTS5 bm25. */
  async recall(identity: string, query: string, budgetBytes: number, excludeRoot: string): Promise<MemoryItem[]> {
    const terms = recallTerms(query);
    const exclude = `${excludeRoot}/%`;
    return this.reading(async () => {
      const best =
        terms.length > 0
          ? (
              await this.pool.query<MemoryItem>(
                "SELECT run_id, at_ms, text FROM memory, to_tsquery('simple', $1) q WHERE words @@ q AND identity = $2 AND run_id <> $3 AND run_id NOT LIKE $4 ORDER BY ts_rank(words, q) DESC, at_ms DESC LIMIT 200",
                [terms.map((t) => `'${t}'`).join(" | "), identity, excludeRoot, exclude],
              )
            ).rows
          : [];
      const recent = (await this.pool.query<MemoryItem>("SELECT run_id, at_ms, text FROM memory WHERE identity = $1 AND run_id <> $2 AND run_id NOT LIKE $3 ORDER BY at_ms DESC LIMIT 200", [identity, excludeRoot, exclude])).rows;
      return pickMemory([...best, ...recent], budgetBytes);
    });
  }

  async spawned(rootRunId: string): Promise<JournalEntry<"run.spawned">["payload"] | undefined> {
    return this.reading(async () => {
      const { rows } = await this.pool.query<{ payload: string }>("SELECT payload FROM journal WHERE root_run_id = $1 AND run_id = $1 AND entry_type = 'run.spawned' ORDER BY seq LIMIT 1", [rootRunId]);
      return rows[0] ? (JSON.parse(rows[0].payload) as JournalEntry<"run.spawned">["payload"]) : undefined;
    });
  }

  async runs(opts: RunsQuery = {}): Promise<RunRow[]> {
    const q = runsQuerySql(opts, (i) => `$${i}`);
    return this.reading(async () => (await this.pool.query<RunRow>(`${RUN_ROWS} ${q.sql}`, q.values)).rows);
  }

  async run(runId: string): Promise<RunRow | undefined> {
    return this.reading(async () => (await this.pool.query<RunRow>(`${RUN_ROWS} WHERE run_id = $1`, [runId])).rows[0]);
  }

  async lock(rootRunId: string, opts: { force?: boolean } = {}): Promise<string | undefined> {
    // Held here already: another runner of this process has it (two jobs for one run in a worker).
    // Being taken here right now counts too: the check and the taking are not one step (a
    // transaction lies between), and two jobs woken together would both pass the check.
    const mine = this.held.get(rootRunId);
    if ((mine && !mine.lost) || this.taking.has(rootRunId)) throw new RunLockedError(rootRunId, process.pid, hostname());
    this.taking.add(rootRunId);
    // The lease counts from when it was asked for (a monotonic clock): it is not counted on past a lease period unrenewed.
    const renewedAt = performance.now();
    let note: string | undefined;
    let epoch: number;
    let c: PoolClient | undefined;
    try {
      const pc = (c = await this.pool.connect());
      // Two flights: `BEGIN`, the tree's lock, then (under it) the lease row and the database's
      // clock; once judged, the lease written and `COMMIT`.
      const { begun, lease, clock } = oneWrite(pc, () => ({
        begun: [...this.begin(pc), this.lockTree(pc, rootRunId)],
        // `FOR UPDATE`: judged once no append that checked the old lease can still commit.
        lease: pc.query<LeaseRow>({ name: "criteria_lease_take", text: `SELECT ${LEASE_COLUMNS} FROM leases WHERE root_run_id = $1 FOR UPDATE`, values: [rootRunId] }),
        clock: pc.query<{ now: number }>({ name: "criteria_clock", text: "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::int8 AS now" }),
      }));
      await settle([...begun, lease, clock]);
      const { rows } = await lease;
      const now = (await clock).rows[0].now;
      if (rows[0]) note = takeOver(rootRunId, leaseState(rows[0]), this.owner, now, opts.force === true);
      const next = (rows[0]?.epoch ?? 0) + 1;
      const written = oneWrite(pc, () => [
        pc.query({
          name: "criteria_lease_write",
          text: `INSERT INTO leases (root_run_id, owner, epoch, pid, host, start_ticks, expires_at) VALUES ($1, $2, $3, $4, $5, $6, clock_timestamp() + make_interval(secs => $7::float8 / 1000))
           ON CONFLICT (root_run_id) DO UPDATE SET owner = EXCLUDED.owner, epoch = EXCLUDED.epoch, pid = EXCLUDED.pid, host = EXCLUDED.host, start_ticks = EXCLUDED.start_ticks, expires_at = EXCLUDED.expires_at`,
          values: [rootRunId, this.owner, next, process.pid, hostname(), ownStartTicks(), this.ttlMs],
        }),
        pc.query("COMMIT"),
      ]);
      await settle(written);
      epoch = next;
    } catch (e) {
      if (c) await c.query("ROLLBACK").catch(() => undefined);
      if (e instanceof RunLockedError) throw e;
      throw journalWriteError(this.location, e);
    } finally {
      c?.release();
      this.taking.delete(rootRunId);
    }
    this.stopHeartbeat(rootRunId);
    const timer = setInterval(() => void this.renew(rootRunId), Math.max(1, Math.floor(this.ttlMs / 3)));
    timer.unref();
    this.held.set(rootRunId, { epoch, timer, renewedAt, listeners: new Set() });
    return note;
  }

  /**
   * Extends this journal's lease on `root` by the database clock; notes a lost lease (the next
   * append refuses, and its listeners are told): taken, or not renewed for a lease period. A
   * holder that was paused past its lease and finds it still its own goes on (no one took it,
   * the epoch says); one whose renewal is not answered within TTL/3 (1 s at least) once its lease has run out
   * by its own clock counts it lost, since another worker may hold it by then.
   */
  private async renew(root: string): Promise<void> {
    const h = this.held.get(root);
    if (!h || h.lost || this.closed) return;
    const sent = performance.now();
    const period = Math.max(1, Math.floor(this.ttlMs / 3));
    let timer: NodeJS.Timeout | undefined;
    try {
      const renewal = this.pool.query("UPDATE leases SET expires_at = clock_timestamp() + make_interval(secs => $1::float8 / 1000) WHERE root_run_id = $2 AND owner = $3 AND epoch = $4", [this.ttlMs, root, this.owner, h.epoch]);
      const late = sent - h.renewedAt > this.ttlMs;
      if (late) renewal.catch(() => undefined);
      // (At least 1 s: a loaded machine answered a woken holder's renewal later than a third of a 1 s lease, in CI.)
      const r = late ? await Promise.race([renewal, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("unanswered")), Math.max(1000, period))))]) : await renewal;
      if (r.rowCount === 0) loseLease(root, h, LEASE_TAKEN);
      else if (!h.lost) h.renewedAt = Math.max(h.renewedAt, sent);
    } catch {
      // The server is unreachable: the next append reports it; past a lease period, it is not counted on.
      const now = performance.now();
      if (now - h.renewedAt > this.ttlMs) loseLease(root, h, leaseRanOut(now - h.renewedAt));
    } finally {
      clearTimeout(timer);
    }
  }

  onLeaseLost(runId: string, listener: (error: LeaseLostError) => void): () => void {
    return watchLease(runId, this.held.get(runId), listener);
  }

  async unlock(rootRunId: string, epoch?: number): Promise<void> {
    const h = this.held.get(rootRunId);
    // Another runner of this process holds a newer lease: not ours to give back.
    if (h && epoch !== undefined && h.epoch !== epoch) return;
    this.stopHeartbeat(rootRunId);
    this.held.delete(rootRunId);
    // A lease lost is another's, or nobody's: nothing to give back (and the database may not
    // answer: a new-user trial's holder, its database frozen, waited here for good).
    if (!h || h.lost) return;
    const givenBack = this.pool.query(RELEASE_SQL, [rootRunId, this.owner, h.epoch]).catch(() => undefined);
    // Unanswered in a third of a lease period, it runs out on its own.
    await Promise.race([givenBack, new Promise((r) => setTimeout(r, Math.max(1, Math.floor(this.ttlMs / 3))).unref())]);
  }

  heldEpoch(rootRunId: string): number | undefined {
    return this.held.get(rootRunId)?.epoch;
  }

  async holder(rootRunId: string): Promise<LeaseHolder | undefined> {
    return this.reading(async () => {
      const { rows } = await this.pool.query<LeaseRow & { now: number }>(`SELECT ${LEASE_COLUMNS}, (extract(epoch FROM clock_timestamp()) * 1000)::int8 AS now FROM leases WHERE root_run_id = $1`, [rootRunId]);
      return rows[0] ? holderOf(leaseState(rows[0]), rows[0].now) : undefined;
    });
  }

  async breakLease(rootRunId: string): Promise<LeaseHolder | undefined> {
    const held = await this.holder(rootRunId);
    try {
      await this.transaction(async (c) => {
        await this.lockTree(c, rootRunId);
        await c.query("UPDATE leases SET pid = 0, owner = NULL, epoch = epoch + 1, expires_at = clock_timestamp() WHERE root_run_id = $1", [rootRunId]);
      });
    } catch (e) {
      throw journalWriteError(this.location, e);
    }
    return held;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const root of [...this.held.keys()]) this.stopHeartbeat(root);
    // A server that does not answer (frozen, not down) never lets the pools end: the process
    // ends without them after 2 s (a new-user trial: a holder stopped by a lost lease waited for good).
    const ended = Promise.all([this.pool, this.queuePool].map((p) => p?.end().catch(() => undefined)));
    await Promise.race([ended, new Promise((r) => setTimeout(r, 2000).unref())]);
  }

  private stopHeartbeat(root: string): void {
    const h = this.held.get(root);
    if (h) clearInterval(h.timer);
  }

  private async reading<T>(f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (e) {
      throw new JournalReadError(`cannot read the journal ${this.location}: ${storageReason(e)}`, { unreachable: storeUnreachable(e) });
    }
  }
}

/** The columns criteria reads of each of its tables: a table of that name without them is someone else's. */
const COLUMNS: Record<string, string[]> = {
  journal: ["seq", "root_run_id", "run_id", "step_id", "attempt", "entry_type", "at_ms", "payload", "checksum"],
  runs: ["run_id", "root_run_id", "parent_run_id", "workflow", "status", "created_ms", "updated_ms", "final_state", "identity"],
  leases: ["root_run_id", "owner", "epoch", "pid", "host", "start_ticks", "expires_at"],
};

/**
 * Refuses a database whose `journal`, `runs` or `leases` table is not criteria's (found by a
 * new-user trial: raw "column does not exist" errors later).
 * @throws JournalOpenError naming the table and the way out
 */
async function checkTables(c: Pick<PoolClient, "query">, location: string): Promise<void> {
  const { rows } = await c.query<{ table_name: string; column_name: string }>(
    "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ANY($1)",
    [Object.keys(COLUMNS)],
  );
  for (const [table, want] of Object.entries(COLUMNS)) {
    const have = new Set(rows.filter((r) => r.table_name === table).map((r) => r.column_name));
    const missing = want.filter((c) => !have.has(c));
    if (have.size > 0 && missing.length > 0) {
      throw new JournalOpenError(`cannot open the journal ${location}: its table "${table}" is not criteria's (no column ${missing.map((c) => `"${c}"`).join(", ")}); use another database, or another schema with ?options=-c%20search_path%3Dcriteria`);
    }
  }
}

/** Adds a spawned run to the `runs` index (once: a run spawned again on resume keeps its row). */
async function indexSpawned(c: Pick<PoolClient, "query">, root: string, runId: string, atMs: number, p: Payloads["run.spawned"]): Promise<void> {
  await c.query("INSERT INTO runs (run_id, root_run_id, parent_run_id, workflow, status, created_ms, updated_ms, identity) VALUES ($1, $2, $3, $4, 'active', $5, $5, $6) ON CONFLICT (run_id) DO NOTHING", [
    runId,
    root,
    p.parent_run_id ?? null,
    p.workflow,
    atMs,
    p.identity ?? null,
  ]);
}

/** Marks a run of the `runs` index ended (memory reads the run's identity from its row, in SQL). */
async function indexCompleted(c: Pick<PoolClient, "query">, runId: string, atMs: number, p: Payloads["run.completed"]): Promise<void> {
  await c.query("UPDATE runs SET status = $1, updated_ms = $2, final_state = $3 WHERE run_id = $4", [p.success ? "succeeded" : "failed", atMs, p.state, runId]);
}

/** A row of the `leases` table as read. */
interface LeaseRow {
  owner: string | null;
  epoch: number;
  pid: number;
  host: string;
  start_ticks: string | null;
  expires_ms: number;
}

const LEASE_COLUMNS = "owner, epoch, pid, host, start_ticks, (extract(epoch FROM expires_at) * 1000)::int8 AS expires_ms";

function leaseState(r: LeaseRow): LeaseState {
  return { pid: r.pid, host: r.host, start_ticks: r.start_ticks, owner: r.owner, expiresMs: r.expires_ms };
}
