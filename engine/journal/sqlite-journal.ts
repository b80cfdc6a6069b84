import type Database from "better-sqlite3";
import { MissingPackage, requirePackage } from "../../compiler/require-package.js";
import { closeSync, copyFileSync, existsSync, fstatSync, mkdtempSync, openSync, readSync, rmSync, statSync } from "node:fs";
import { makeDirs } from "../make-dirs.js";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { canonicalJson } from "./canonical-json.js";
import type { EntryType, JournalEntry, MemoryItem, NewEntry } from "./entry.js";
import { AppendRefusedError, JournalDamagedError, JournalOpenError, JournalReadError, JournalWriteError, LeaseLostError, MessageTakenError, RunEndedError, RunLockedError, SignalTakenError, storageReason, TreeChangedError, DAMAGED } from "./errors.js";
import type { AppendOptions, Damage, Journal, LeaseHolder, RunRow, RunsQuery } from "./journal.js";
import { Leases } from "./lease.js";
import { checksum, isTreeStart, memoryText, pickMemory, recallTerms, RUN_ROWS, runsQuerySql, tallyDamage, type DamagedRow } from "./store-rules.js";

export { JournalDamagedError, JournalOpenError, JournalReadError, JournalWriteError, LeaseLostError, RunLockedError } from "./errors.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS journal (
  seq INTEGER PRIMARY KEY,
  root_run_id TEXT NOT NULL,
  run_id TEXT NOT NULL,
  step_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  entry_type TEXT NOT NULL,
  at_ms INTEGER NOT NULL,
  payload TEXT NOT NULL,
  checksum INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS journal_root ON journal(root_run_id, seq);
CREATE TABLE IF NOT EXISTS runs (
  run_id TEXT PRIMARY KEY,
  root_run_id TEXT NOT NULL,
  parent_run_id TEXT,
  workflow TEXT NOT NULL,
  status TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  updated_ms INTEGER NOT NULL,
  final_state TEXT
);
CREATE VIRTUAL TABLE IF NOT EXISTS memory USING fts5(identity UNINDEXED, run_id UNINDEXED, at_ms UNINDEXED, text);
CREATE TABLE IF NOT EXISTS locks (
  root_run_id TEXT PRIMARY KEY,
  pid INTEGER NOT NULL,
  host TEXT NOT NULL,
  acquired_ms INTEGER NOT NULL,
  start_ticks TEXT
);
CREATE TABLE IF NOT EXISTS journal_quarantine (
  seq INTEGER PRIMARY KEY,
  root_run_id TEXT NOT NULL,
  run_id TEXT NOT NULL,
  step_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  entry_type TEXT NOT NULL,
  at_ms INTEGER NOT NULL,
  payload TEXT NOT NULL,
  checksum INTEGER NOT NULL,
  quarantined_ms INTEGER NOT NULL
);
`;

/** Columns added to tables of journals written by earlier versions: [table, column, type]. */
const MIGRATIONS: [string, string, string][] = [
  ["runs", "identity", "TEXT"],
  ["locks", "owner", "TEXT"],
  ["locks", "epoch", "INTEGER"],
  ["locks", "expires_ms", "INTEGER"],
];

/**
 * The embedded {@link Journal} (docs/architecture.md, The engine): SQLite through better-sqlite3 12,
 * WAL with `synchronous=FULL` (a committed entry survives power loss), in
 * `<stateDir>/journal.db`. Wake-ups asked of workers are ignored: workers need the PostgreSQL journal. Entries are appended only inside transactions, each with a
 * sha256 checksum of its canonical form; a torn WAL tail (a write cut short by a kill
 * or a full disk) is detected on open and SQLite recovers to the last whole commit.
 *
 * Fault injection for the crash matrix: with `CRITERIA_FAULT_KILL_AFTER_SEQ=N` in the
 * environment, the process SIGKILLs itself right after the commit holding entry N.
 */
export class SqliteJournal implements Journal {
  private readonly db!: Database.Database;
  private readonly insert: Database.Statement;
  private readonly upsertRun: Database.Statement;
  private readonly finishRun: Database.Statement;
  private readonly identityOf: Database.Statement;
  private readonly remember: Database.Statement;
  private readonly maxSeq: Database.Statement;
  private readonly readRows: Database.Statement;
  private readonly appendTx: Database.Transaction<(root: string, entries: NewEntry[], opts: AppendOptions) => JournalEntry[]>;
  private readonly groupTx: Database.Transaction<(root: string, appends: { entries: NewEntry[]; opts?: AppendOptions }[]) => (JournalEntry[] | Error)[]>;
  /** The entry that consumed signal `seq` of a tree, if any ({@link AppendOptions.consumes}). */
  private readonly consumedBy: Database.Statement;
  /** The receive that took channel message `id` of a tree, if any ({@link AppendOptions.takes}). */
  private readonly takenBy: Database.Statement;
  /** A tree's newest seq ({@link AppendOptions.ifLastSeq}). */
  private readonly newestOf: Database.Statement;
  /** Whether a run of a tree has ended ({@link AppendOptions.unlessEnded}). */
  private readonly endedRun: Database.Statement;
  /** `PRAGMA synchronous` to NORMAL and back to FULL around a soft append (prepared once: most appends of a busy run are soft). */
  private readonly soften: Database.Statement;
  private readonly harden: Database.Statement;
  private readonly killAfter: number | undefined;
  private readonly file: string;
  private readonly leases: Leases;
  private readonly synchronous: "FULL" | "OFF";
  /** When read from a copy (read-only, not openable in place): the stamp of what was copied, and how to remove the copy. */
  private copied: { stamp: string; remove: () => void } | undefined;
  /** Notes from opening (e.g. a torn tail that was recovered). */
  readonly notes: string[] = [];
  /** In the state directory, which moves with the checkout. */
  readonly besideCheckout = true;

  /**
   * Opens (creating if needed) the journal under `stateDir`.
   * @throws Error when the database cannot be opened (permissions, not a database)
   */
  constructor(
    readonly stateDir: string,
    /**
     * `synchronous`: `FULL` (default: a commit survives power loss); `OFF` only for benchmarks
     * that build big journals fast. `mustExist`: refuse a state directory without a journal.
     * `leaseTtlMs`: how long a lease lasts unless renewed (default `CRITERIA_LEASE_TTL_MS`, else 30 s).
     * `readOnly`: open an existing journal for reading only (`runs`, `journal`): one the user may
     * not write (another user's, a read-only mount, a CI artifact) is read all the same, and
     * nothing is written; appending then fails with {@link JournalWriteError}.
     */
    opts: { synchronous?: "FULL" | "OFF"; mustExist?: boolean; leaseTtlMs?: number; readOnly?: boolean } = {},
  ) {
    const file = join(stateDir, "journal.db");
    if (opts.mustExist || opts.readOnly) mustBeJournal(stateDir, file);
    try {
      if (!opts.readOnly) makeDirs(stateDir);
      const torn = tornWalTail(file);
      if (torn) this.notes.push(torn);
      // Loaded on first use: `criteria validate` never pays for the native module.
      const Sqlite = requirePackage<typeof Database>("better-sqlite3", import.meta.url, "the SQLite journal");
      this.synchronous = opts.synchronous === "OFF" ? "OFF" : "FULL";
      if (opts.readOnly) {
        const opened = openReadOnly(Sqlite, file);
        this.db = opened.db;
        this.copied = opened.copied;
      } else this.db = new Sqlite(file);
      this.db.pragma("busy_timeout = 10000");
      if (!opts.readOnly) {
        this.db.pragma("journal_mode = WAL");
        this.db.pragma(`synchronous = ${this.synchronous}`);
        this.db.exec(SCHEMA);
        // Journals written by earlier versions gain the newer columns (NULL in old rows).
        for (const [table, column, type] of MIGRATIONS) {
          const cols = this.db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[];
          if (!cols.some((c) => c.name === column)) this.db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`);
        }
      }
      this.file = file;
      this.leases = new Leases(this.db, file, opts.leaseTtlMs);
      this.insert = this.db.prepare(
        "INSERT INTO journal (seq, root_run_id, run_id, step_id, attempt, entry_type, at_ms, payload, checksum) VALUES (@seq, @root, @run_id, @step_id, @attempt, @entry_type, @at_ms, @payload, @checksum)",
      );
      this.upsertRun = this.db.prepare(
        "INSERT OR IGNORE INTO runs (run_id, root_run_id, parent_run_id, workflow, status, created_ms, updated_ms, identity) VALUES (?, ?, ?, ?, 'active', ?, ?, ?)",
      );
      this.finishRun = this.db.prepare("UPDATE runs SET status = ?, updated_ms = ?, final_state = ? WHERE run_id = ?");
      this.identityOf = this.db.prepare("SELECT identity FROM runs WHERE run_id = ?").pluck();
      this.remember = this.db.prepare("INSERT INTO memory (identity, run_id, at_ms, text) VALUES (?, ?, ?, ?)");
      // Past the quarantine's too: entries set aside keep their seqs, which are never given again
      // (a second discard over them collided, and a reader following past them missed the new ones).
      this.maxSeq = this.db.prepare("SELECT MAX(COALESCE((SELECT MAX(seq) FROM journal), 0), COALESCE((SELECT MAX(seq) FROM journal_quarantine), 0)) AS m");
      this.readRows = this.db
        .prepare("SELECT seq, run_id, step_id, attempt, entry_type, at_ms, payload, checksum FROM journal WHERE root_run_id = ? AND seq > ? ORDER BY seq")
        .raw(true);
      this.soften = this.db.prepare("PRAGMA synchronous = NORMAL");
      this.harden = this.db.prepare("PRAGMA synchronous = FULL");
      this.appendTx = this.db.transaction((root: string, entries: NewEntry[], opts: AppendOptions) => this.appendEntries(root, entries, opts));
      this.groupTx = this.db.transaction((root: string, appends: { entries: NewEntry[]; opts?: AppendOptions }[]) => this.appendEach(root, appends));
      this.consumedBy = this.db.prepare(
        "SELECT seq FROM journal WHERE root_run_id = ? AND entry_type IN ('wait.completed', 'approval.decided') AND json_extract(payload, '$.signal_seq') = ? LIMIT 1",
      );
      this.newestOf = this.db.prepare("SELECT max(seq) AS seq FROM journal WHERE root_run_id = ?");
      this.endedRun = this.db.prepare("SELECT 1 FROM runs WHERE run_id = ? AND status <> 'active'");
      this.takenBy = this.db.prepare("SELECT seq FROM journal WHERE root_run_id = ? AND seq > ? AND entry_type = 'effect.confirmed' AND json_extract(payload, '$.received.id') = ? LIMIT 1");
    } catch (e) {
      if (e instanceof MissingPackage) throw e;
      try {
        this.db?.close();
      } catch {
        // it may not have opened
      }
      const err = e as NodeJS.ErrnoException;
      // One of the journal's files that is no file (found by a new-user trial: a directory named
      // journal.db-wal gave a raw EISDIR, and one named journal.db "cannot be written (permissions?)").
      const notFile = [file, `${file}-wal`, `${file}-shm`].find((f) => {
        try {
          return !statSync(f).isFile();
        } catch {
          return false;
        }
      });
      const reason = storageReason(e);
      // A state directory (or a directory above it) that is a file: said as runs says it (found
      // by a new-user trial: a file .criteria in the working directory was "not a directory").
      if (!notFile && (err.code === "EEXIST" || err.code === "ENOTDIR")) {
        throw new JournalOpenError(`${fileAbove(stateDir)} is a file, not a state directory; move it aside, or give --state-dir another directory`);
      }
      const why = notFile
        ? `${notFile} is not a file (a directory?); move it aside`
        : opts.readOnly && (err.code === "EACCES" || err.code === "EPERM")
          ? `it cannot be read (permission denied: ${err.path ?? file})`
          : err.code === "EACCES" || /readonly|read-only|unable to open/i.test(err.message)
            ? "it cannot be written (permissions?)"
            : reason === DAMAGED
              ? // What to do, as for an empty one (a new-user trial: a journal cut short by a cache restore said only "damaged").
                `${reason}: it is not a whole SQLite database (cut short or overwritten: a failed copy or cache restore?); restore it, or move it aside to start a new journal`
              : reason;
      throw new JournalOpenError(`cannot open the journal ${file}: ${why}`);
    }
    const k = process.env.CRITERIA_FAULT_KILL_AFTER_SEQ;
    this.killAfter = k !== undefined && /^\d+$/.test(k) ? Number(k) : undefined;
  }

  /** The journal's database file. */
  get location(): string {
    return this.file;
  }

  /** The next seq, read inside the write transaction (another process may have appended a signal). */
  private nextSeq(): number {
    return (this.maxSeq.get() as { m: number }).m + 1;
  }

  /**
   * Appends entries of one run tree atomically (all or none) and returns them with
   * their `seq`. Also maintains the `runs` index in the same transaction. With
   * `sync: false` the commit is not flushed to disk on its own (see below).
   * @throws JournalWriteError when the write fails (disk full, read-only, locked too long)
   */
  async append(rootRunId: string, entries: NewEntry[], opts: AppendOptions = {}): Promise<JournalEntry[]> {
    let out: JournalEntry[];
    // An entry whose loss on power failure changes nothing (an attempt about to start: lost
    // or not, an unconfirmed attempt runs again) is committed without its own fsync; the
    // next synced commit makes it durable with everything before it (WAL order).
    const soft = opts.sync === false && this.synchronous === "FULL";
    try {
      if (soft) this.soften.run();
      out = this.appendTx.immediate(rootRunId, entries, opts);
    } catch (err) {
      if (err instanceof LeaseLostError || err instanceof AppendRefusedError) throw err;
      throw new JournalWriteError(`cannot write the journal ${this.file}: ${storageReason(err)}`);
    } finally {
      if (soft) this.harden.run();
    }
    if (this.killAfter !== undefined && out.some((e) => e.seq >= this.killAfter!)) process.kill(process.pid, "SIGKILL");
    return out;
  }

  /**
   * {@link Journal.appendGroup}: the appends in one IMMEDIATE transaction, each in a
   * savepoint of its own (a nested better-sqlite3 transaction), flushed when any asks to be.
   * Not under the crash matrix's fault hook: there every append is its own commit, so every
   * state between two appends is killed at (a group's states are a subset of those).
   */
  async appendGroup(rootRunId: string, appends: { entries: NewEntry[]; opts?: AppendOptions }[]): Promise<(JournalEntry[] | Error)[]> {
    // One append alone is an append (what a subclass changes of `append` applies to it too).
    if (this.killAfter !== undefined || appends.length === 1) {
      const out: (JournalEntry[] | Error)[] = [];
      for (const a of appends) out.push(await this.append(rootRunId, a.entries, a.opts).catch((e: Error) => e));
      return out;
    }
    const soft = this.synchronous === "FULL" && appends.every((a) => a.opts?.sync === false);
    try {
      if (soft) this.soften.run();
      return this.groupTx.immediate(rootRunId, appends);
    } catch (err) {
      const failed = new JournalWriteError(`cannot write the journal ${this.file}: ${storageReason(err)}`);
      return appends.map(() => failed);
    } finally {
      if (soft) this.harden.run();
    }
  }

  /** The body of {@link appendGroup}'s transaction: each append in its savepoint, its refusal kept as its result. */
  private appendEach(rootRunId: string, appends: { entries: NewEntry[]; opts?: AppendOptions }[]): (JournalEntry[] | Error)[] {
    return appends.map((a) => {
      try {
        return this.appendTx(rootRunId, a.entries, a.opts ?? {});
      } catch (err) {
        if (err instanceof LeaseLostError || err instanceof AppendRefusedError) return err;
        throw err;
      }
    });
  }

  /** The body of {@link append}, inside one transaction (made once: better-sqlite3 transactions are reusable). */
  private appendEntries(rootRunId: string, entries: NewEntry[], opts: AppendOptions): JournalEntry[] {
    const out: JournalEntry[] = [];
    this.leases.check(opts.lease ?? rootRunId, opts.lease !== undefined, entries.some((e) => e.entry_type === "run.completed"));
    if (opts.consumes !== undefined && this.consumedBy.get(rootRunId, opts.consumes)) throw new SignalTakenError(opts.consumes);
    if (opts.takes !== undefined && this.takenBy.get(rootRunId, opts.takes.after, opts.takes.id)) throw new MessageTakenError(opts.takes.id);
    if (opts.ifLastSeq !== undefined && ((this.newestOf.get(rootRunId) as { seq: number | null }).seq ?? 0) !== opts.ifLastSeq) throw new TreeChangedError(opts.ifLastSeq);
    const ended = opts.unlessEnded?.find((run) => this.endedRun.get(run));
    if (ended !== undefined) throw new RunEndedError(ended);
    let seq = this.nextSeq();
    for (const e of entries) {
      const payload = canonicalJson(e.payload);
      const row = { seq, root: rootRunId, run_id: e.run_id, step_id: e.step_id, attempt: e.attempt, entry_type: e.entry_type, at_ms: e.at_ms, payload };
      this.insert.run({ ...row, checksum: checksum(seq, rootRunId, e.run_id, e.step_id, e.attempt, e.entry_type, e.at_ms, payload) });
      if (e.entry_type === "run.spawned") {
        const p = e.payload as JournalEntry<"run.spawned">["payload"];
        this.upsertRun.run(e.run_id, rootRunId, p.parent_run_id ?? null, p.workflow, e.at_ms, e.at_ms, p.identity ?? null);
      } else if (e.entry_type === "run.completed") {
        const p = e.payload as JournalEntry<"run.completed">["payload"];
        this.finishRun.run(p.success ? "succeeded" : "failed", e.at_ms, p.state, e.run_id);
        // A run with an identity that succeeded with outputs is remembered, in the same
        // transaction: memory never holds a run the journal does not.
        const identity = this.identityOf.get(e.run_id) as string | null | undefined;
        if (identity && p.success && Object.keys(p.outputs).length > 0) this.remember.run(identity, e.run_id, e.at_ms, memoryText(p.outputs));
      }
      out.push({ ...e, seq } as JournalEntry);
      seq++;
    }
    return out;
  }

  /**
   * Every entry of a run tree in `seq` order, checksums verified. A row whose checksum
   * does not match ends the read (everything before it is kept) and is reported in
   * `corrupt`.
   */
  async read(rootRunId: string, afterSeq = 0): Promise<{ entries: JournalEntry[]; corrupt?: string; damage?: Damage }> {
    const entries: JournalEntry[] = [];
    const damage = await this.scan(rootRunId, (e) => void entries.push(e), afterSeq);
    return damage ? { entries, corrupt: damage.message, damage } : { entries };
  }

  /**
   * Streams a run tree's entries in `seq` order to `visit` (no array of the whole
   * journal: resume folds as it reads). Returns a note when a checksum fails; the
   * entries before it have been visited.
   */
  async scan(rootRunId: string, visit: (e: JournalEntry) => void, afterSeq = 0): Promise<Damage | undefined> {
    try {
      const rows = this.readRows.iterate(rootRunId, afterSeq) as IterableIterator<[number, string, string, number, string, number, string, number]>;
      for (const [seq, run_id, step_id, attempt, entry_type, at_ms, payload, sum] of rows) {
        let parsed: unknown;
        try {
          parsed = checksum(seq, rootRunId, run_id, step_id, attempt, entry_type, at_ms, payload) === sum ? JSON.parse(payload) : undefined;
        } catch {
          parsed = undefined;
        }
        if (parsed === undefined) return { seq, message: `entry ${seq} fails its checksum; reading stopped before it` };
        visit({ seq, run_id, step_id, attempt, entry_type: entry_type as EntryType, at_ms, payload: parsed } as JournalEntry);
      }
    } catch (e) {
      throw new JournalReadError(`cannot read the journal ${this.file}: ${storageReason(e)}`);
    }
    return undefined;
  }

  /**
   * What resuming past damaged entry `seq` of a run tree would lose: the entries from
   * it to the end, and the steps that completed in them (read as far as they parse).
   */
  async damageReport(rootRunId: string, seq: number): Promise<JournalDamagedError> {
    return this.reading(() => {
      const rows = this.db.prepare("SELECT run_id, step_id, entry_type FROM journal WHERE root_run_id = ? AND seq >= ? ORDER BY seq").all(rootRunId, seq) as { run_id: string; step_id: string; entry_type: string }[];
      const confirmed = this.db.prepare("SELECT run_id, step_id, entry_type FROM journal WHERE root_run_id = ? AND seq < ? AND entry_type = 'effect.confirmed'").all(rootRunId, seq) as DamagedRow[];
      const last = this.db.prepare("SELECT MAX(seq) AS seq FROM journal WHERE root_run_id = ? AND seq < ?").get(rootRunId, seq) as { seq: number | null };
      return new JournalDamagedError(rootRunId, seq, rows.length, tallyDamage(confirmed, rows), isTreeStart(rootRunId, rows[0]), last.seq ?? seq - 1);
    });
  }

  /**
   * Sets aside the entries of a run tree from damaged entry `seq` on (`criteria resume
   * --discard-damaged`): moved to the `journal_quarantine` table, in one transaction, and
   * the tree's rows of the `runs` index rebuilt from what remains.
   * @returns how many entries were set aside
   */
  async quarantine(rootRunId: string, seq: number, nowMs: number): Promise<number> {
    const tx = this.db.transaction(() => {
      this.db
        .prepare("INSERT INTO journal_quarantine SELECT seq, root_run_id, run_id, step_id, attempt, entry_type, at_ms, payload, checksum, ? FROM journal WHERE root_run_id = ? AND seq >= ?")
        .run(nowMs, rootRunId, seq);
      const moved = this.db.prepare("DELETE FROM journal WHERE root_run_id = ? AND seq >= ?").run(rootRunId, seq).changes;
      this.db.prepare("DELETE FROM runs WHERE root_run_id = ?").run(rootRunId);
      const rows = this.db.prepare("SELECT run_id, entry_type, at_ms, payload FROM journal WHERE root_run_id = ? AND entry_type IN ('run.spawned', 'run.completed') ORDER BY seq").all(rootRunId) as { run_id: string; entry_type: string; at_ms: number; payload: string }[];
      for (const r of rows) {
        const p = JSON.parse(r.payload) as { parent_run_id?: string; workflow: string; identity?: string; success: boolean; state: string };
        if (r.entry_type === "run.spawned") this.upsertRun.run(r.run_id, rootRunId, p.parent_run_id ?? null, p.workflow, r.at_ms, r.at_ms, p.identity ?? null);
        else this.finishRun.run(p.success ? "succeeded" : "failed", r.at_ms, p.state, r.run_id);
      }
      return moved;
    });
    try {
      return tx.immediate();
    } catch (err) {
      throw new JournalWriteError(`cannot write the journal ${this.file}: ${storageReason(err)}`);
    }
  }

  /**
   * Earlier runs of `identity` for a memory pack (docs/language.md, Composition): the runs whose
   * remembered outputs best match `query` (SQLite FTS5, bm25), then the newest, as many
   * as fit in `budgetBytes` of text (UTF-8). Runs of the tree `excludeRoot` are skipped.
   */
  async recall(identity: string, query: string, budgetBytes: number, excludeRoot: string): Promise<MemoryItem[]> {
    const terms = recallTerms(query);
    const exclude = `${excludeRoot}/%`;
    const rows = (
      terms.length > 0
        ? this.db
            .prepare("SELECT run_id, at_ms, text FROM memory WHERE memory MATCH ? AND identity = ? AND run_id != ? AND run_id NOT LIKE ? ORDER BY bm25(memory), at_ms DESC LIMIT 200")
            .all(terms.map((t) => `"${t}"`).join(" OR "), identity, excludeRoot, exclude)
        : []
    ) as MemoryItem[];
    const recent = this.db.prepare("SELECT run_id, at_ms, text FROM memory WHERE identity = ? AND run_id != ? AND run_id NOT LIKE ? ORDER BY at_ms DESC LIMIT 200").all(identity, excludeRoot, exclude) as MemoryItem[];
    return pickMemory([...rows, ...recent], budgetBytes);
  }

  /** A root run's `run.spawned` payload (its first entry), without reading the rest. @throws JournalReadError */
  async spawned(rootRunId: string): Promise<JournalEntry<"run.spawned">["payload"] | undefined> {
    return this.reading(() => {
      const row = this.db.prepare("SELECT payload FROM journal WHERE root_run_id = ? AND run_id = ? AND entry_type = 'run.spawned' ORDER BY seq LIMIT 1").get(rootRunId, rootRunId) as { payload: string } | undefined;
      return row ? (JSON.parse(row.payload) as JournalEntry<"run.spawned">["payload"]) : undefined;
    });
  }

  /** {@link Journal.runs}. @throws JournalReadError */
  async runs(opts: RunsQuery = {}): Promise<RunRow[]> {
    const q = runsQuerySql(opts, () => "?");
    return this.reading(() => this.db.prepare(`${RUN_ROWS} ${q.sql}`).all(...q.values) as RunRow[]);
  }

  /** One run's row, or undefined. @throws JournalReadError */
  async run(runId: string): Promise<RunRow | undefined> {
    return this.reading(() => this.db.prepare(`${RUN_ROWS} WHERE run_id = ?`).get(runId) as RunRow | undefined);
  }

  private reading<T>(f: () => T): T {
    try {
      return f();
    } catch (e) {
      throw new JournalReadError(`cannot read the journal ${this.file}: ${storageReason(e)}`);
    }
  }

  /**
   * Takes the run tree's lease for this process (engine/journal/lease.ts): refused with
   * {@link RunLockedError} while a live holder's lease runs; an expired lease, or a dead
   * holder's on this host, is taken over, and so is any with `force`.
   * @returns a note of what was taken over, to be said as a warning
   * @throws RunLockedError, JournalWriteError
   */
  async lock(rootRunId: string, opts: { force?: boolean } = {}): Promise<string | undefined> {
    try {
      return this.leases.acquire(rootRunId, opts.force);
    } catch (e) {
      if (e instanceof RunLockedError) throw e;
      throw new JournalWriteError(`cannot write the journal ${this.file}: ${storageReason(e)}`);
    }
  }

  /** Releases this process's lease on the run tree ({@link Journal.unlock}: with `epoch`, only that one). Never throws. */
  async unlock(rootRunId: string, epoch?: number): Promise<void> {
    this.leases.release(rootRunId, epoch);
  }

  heldEpoch(rootRunId: string): number | undefined {
    return this.leases.epochOf(rootRunId);
  }

  onLeaseLost(runId: string, listener: (error: LeaseLostError) => void): () => void {
    return this.leases.watch(runId, listener);
  }

  /** Who holds a run tree's lease (`criteria runs`, `criteria unlock`). */
  async holder(rootRunId: string): Promise<LeaseHolder | undefined> {
    return this.reading(() => this.leases.holder(rootRunId));
  }

  /**
   * Ends any lease on the run tree, whoever holds it (`criteria unlock RUN`): a process
   * that still runs it can no longer write to the journal.
   * @returns who held it, when someone did
   */
  async breakLease(rootRunId: string): Promise<LeaseHolder | undefined> {
    const held = await this.holder(rootRunId);
    try {
      this.db.prepare("UPDATE locks SET pid = 0, expires_ms = 0, owner = NULL, epoch = COALESCE(epoch, 0) + 1 WHERE root_run_id = ?").run(rootRunId);
    } catch (e) {
      throw new JournalWriteError(`cannot write the journal ${this.file}: ${storageReason(e)}`);
    }
    return held;
  }

  async close(): Promise<void> {
    this.leases.stopAll();
    this.db.close();
    this.copied?.remove();
  }

  /** {@link Journal.stale}: read from a copy, and the journal copied has changed since. */
  stale(): boolean {
    return this.copied !== undefined && stampOf(this.file) !== this.copied.stamp;
  }
}


/**
 * Detects a WAL whose last frame was cut short (its size is not a whole number of
 * frames). SQLite itself ignores such a tail on recovery (frame checksums); this only
 * reports it. Returns a note, or undefined when the WAL is whole or absent.
 */
export function tornWalTail(dbFile: string): string | undefined {
  const wal = `${dbFile}-wal`;
  if (!existsSync(wal) || !existsSync(dbFile)) return undefined;
  let fd: number | undefined;
  try {
    fd = openSync(wal, "r");
    const size = fstatSync(fd).size;
    if (size === 0) return undefined;
    const header = Buffer.alloc(32);
    if (readSync(fd, header, 0, 32, 0) < 32) return `journal: the write-ahead log is torn (${size} bytes, shorter than its header); recovered to the last whole commit`;
    const pageSize = header.readUInt32BE(8);
    const frame = 24 + pageSize;
    if (pageSize >= 512 && (size - 32) % frame !== 0) {
      return `journal: the last write to the write-ahead log was torn (${(size - 32) % frame} stray bytes); recovered to the last whole commit`;
    }
    return undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Opens a journal database for reading only, leaving its directory as it was. A journal in
 * WAL mode (every journal criteria writes) needs its `-wal` and `-shm` files, which SQLite
 * makes when they are missing (SQLite, "WAL mode: read-only databases"), owned by whoever
 * opens it: so the journal is opened in place only when both are there already, or when the
 * reader owns the journal (or is root, whose files SQLite gives the journal's owner) — a
 * reader making them in another user's writable directory locked that user out of their
 * own journal (found by a new-user trial). Otherwise the journal and its write-ahead log are
 * copied to a temporary directory, removed on close or at exit, and the copy is read: every commit,
 * those still in the log too (the trial: runs only in the log were missed).
 */
function openReadOnly(Sqlite: typeof Database, file: string): { db: Database.Database; copied?: { stamp: string; remove: () => void } } {
  const wal = `${file}-wal`;
  const uid = process.getuid?.();
  const owned = uid === undefined || uid === 0 || statSync(file).uid === uid;
  if (owned || (existsSync(wal) && existsSync(`${file}-shm`))) {
    let db: Database.Database | undefined;
    try {
      db = new Sqlite(file, { readonly: true, fileMustExist: true });
      db.prepare("SELECT 1 FROM journal LIMIT 1").get();
      return { db };
    } catch (e) {
      db?.close();
      if (!/unable to open|cannot open|CANTOPEN|READONLY/i.test(`${(e as Error).message} ${(e as NodeJS.ErrnoException).code ?? ""}`)) throw e;
    }
  }
  const dir = mkdtempSync(join(tmpdir(), "criteria-journal-copy-"));
  // Removed when the journal is closed (a follower copies again and again), or at exit.
  const remove = () => {
    process.off("exit", remove);
    rmSync(dir, { recursive: true, force: true });
  };
  process.once("exit", remove);
  const copy = join(dir, "journal.db");
  const stamp = stampOf(file);
  copyFileSync(file, copy);
  if (existsSync(wal)) copyFileSync(wal, `${copy}-wal`);
  return { db: new Sqlite(copy, { readonly: true, fileMustExist: true }), copied: { stamp, remove } };
}

/** The journal's and its write-ahead log's sizes and change times: a copy of them is stale when it differs. */
function stampOf(file: string): string {
  const one = (f: string) => {
    try {
      const st = statSync(f);
      return `${st.size}:${st.mtimeMs}`;
    } catch {
      return "-";
    }
  };
  return `${one(file)} ${one(`${file}-wal`)}`;
}

/**
 * The file in the way of state directory `stateDir`: itself, or the directory above it that
 * is a file (found by a new-user trial: `afile/sub` was said to be the file); the nearest
 * path that exists.
 */
function fileAbove(stateDir: string): string {
  for (let up = stateDir; ; up = dirname(up)) {
    if (existsSync(up)) return up;
    if (dirname(up) === up) return stateDir;
  }
}

/**
 * Refuses, before anything is opened or written, a state directory whose journal a reading
 * command (`runs`, `journal`, `signal`…) cannot use: none there; one that cannot be read (it
 * said "no journal", found by a new-user trial), a directory in its place, or a state
 * directory that is a file (each said otherwise); one cut to 0 bytes with no write-ahead log
 * (a failed copy or cache restore: it read as a journal with no runs, and the reading
 * command wrote empty tables into it, found by the same trial).
 * @throws JournalOpenError saying which
 */
function mustBeJournal(stateDir: string, file: string): void {
  let size: number;
  try {
    const st = statSync(file);
    if (st.isDirectory()) throw new JournalOpenError(`${file} is a directory, not a journal`);
    size = st.size;
  } catch (e) {
    if (e instanceof JournalOpenError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOTDIR") {
      throw new JournalOpenError(`${fileAbove(stateDir)} is a file, not a state directory (runs are journaled where criteria apply ran, or in --state-dir)`);
    }
    if (code === "ENOENT") throw new JournalOpenError(`no journal in ${stateDir} (runs are journaled where criteria apply ran, or in --state-dir)`);
    throw new JournalOpenError(`cannot read the journal in ${stateDir}: ${code === "EACCES" || code === "EPERM" ? "permission denied" : (code ?? String(e))}`);
  }
  const wal = (() => {
    try {
      return statSync(`${file}-wal`).size;
    } catch {
      return 0;
    }
  })();
  if (size === 0 && wal === 0) {
    throw new JournalOpenError(`${file} is empty (0 bytes), and criteria never leaves a journal empty: it was cut short (a failed copy or cache restore?); restore it, or remove it to start a new journal`);
  }
}
