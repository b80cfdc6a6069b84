import type Database from "better-sqlite3";
import { createRequire } from "node:module";
import { crc32 } from "node:zlib";
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { procStat } from "../process-info.js";
import { canonicalJson } from "./canonical-json.js";
import type { EntryType, JournalEntry, MemoryItem, NewEntry } from "./entry.js";

/** A run summary from the `runs` index (derived from the journal, written in the same transactions). */
export interface RunRow {
  run_id: string;
  root_run_id: string;
  parent_run_id: string | null;
  workflow: string;
  status: "active" | "succeeded" | "failed";
  created_ms: number;
  updated_ms: number;
  final_state: string | null;
  /** The run's identity (a flow's header `identity`, else its name), when it has one. */
  identity: string | null;
}

/** Refusal to run: another live process holds the run (issue #3: "never allowed to double-run"). */
export class RunLockedError extends Error {
  constructor(
    readonly runId: string,
    readonly pid: number,
    readonly host: string,
  ) {
    super(`run ${runId} is being executed by process ${pid} on ${host}`);
  }
}

/** The journal could not be opened (the state dir is a file, read-only, or not a journal). */
export class JournalOpenError extends Error {}

/** The journal could not be written: the step that asked fails; nothing half-written remains. */
export class JournalWriteError extends Error {}

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
`;

/**
 * The embedded journal store (DESIGN.md, Engine): SQLite through better-sqlite3 12,
 * WAL with `synchronous=FULL` (a committed entry survives power loss), in
 * `<stateDir>/journal.db`. Entries are appended only inside transactions, each with a
 * sha256 checksum of its canonical form; a torn WAL tail (a write cut short by a kill
 * or a full disk) is detected on open and SQLite recovers to the last whole commit.
 *
 * Fault injection for the crash matrix: with `CRITERIA_FAULT_KILL_AFTER_SEQ=N` in the
 * environment, the process SIGKILLs itself right after the commit holding entry N.
 */
export class SqliteJournal {
  private readonly db!: Database.Database;
  private readonly insert: Database.Statement;
  private readonly upsertRun: Database.Statement;
  private readonly finishRun: Database.Statement;
  private readonly identityOf: Database.Statement;
  private readonly remember: Database.Statement;
  private readonly maxSeq: Database.Statement;
  private readonly readRows: Database.Statement;
  private readonly killAfter: number | undefined;
  /** Notes from opening (e.g. a torn tail that was recovered). */
  readonly notes: string[] = [];

  /**
   * Opens (creating if needed) the journal under `stateDir`.
   * @throws Error when the database cannot be opened (permissions, not a database)
   */
  constructor(
    readonly stateDir: string,
    /** `FULL` (default: a commit survives power loss). `OFF` only for benchmarks that build big journals fast. */
    opts: { synchronous?: "FULL" | "OFF"; mustExist?: boolean } = {},
  ) {
    const file = join(stateDir, "journal.db");
    if (opts.mustExist && !existsSync(file)) throw new JournalOpenError(`no journal in ${stateDir} (runs are journaled where criteria apply ran, or in --state-dir)`);
    try {
      mkdirSync(stateDir, { recursive: true });
      const torn = tornWalTail(file);
      if (torn) this.notes.push(torn);
      // Loaded on first use: `criteria validate` never pays for the native module.
      const Sqlite = createRequire(import.meta.url)("better-sqlite3") as typeof Database;
      this.db = new Sqlite(file);
      this.db.pragma("journal_mode = WAL");
      this.db.pragma(`synchronous = ${opts.synchronous === "OFF" ? "OFF" : "FULL"}`);
      this.db.pragma("busy_timeout = 10000");
      this.db.exec(SCHEMA);
      // Journals written before runs had identities gain the column (NULL for old runs).
      const cols = this.db.prepare("PRAGMA table_info(runs)").all() as { name: string }[];
      if (!cols.some((c) => c.name === "identity")) this.db.exec("ALTER TABLE runs ADD COLUMN identity TEXT");
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      const why = err.code === "EEXIST" || err.code === "ENOTDIR" ? "it is not a directory" : err.code === "EACCES" || /readonly|read-only|unable to open/i.test(err.message) ? "it cannot be written (permissions?)" : err.message;
      throw new JournalOpenError(`cannot open the journal in ${stateDir}: ${why}`);
    }
    this.insert = this.db.prepare(
      "INSERT INTO journal (seq, root_run_id, run_id, step_id, attempt, entry_type, at_ms, payload, checksum) VALUES (@seq, @root, @run_id, @step_id, @attempt, @entry_type, @at_ms, @payload, @checksum)",
    );
    this.upsertRun = this.db.prepare(
      "INSERT OR IGNORE INTO runs (run_id, root_run_id, parent_run_id, workflow, status, created_ms, updated_ms, identity) VALUES (?, ?, ?, ?, 'active', ?, ?, ?)",
    );
    this.finishRun = this.db.prepare("UPDATE runs SET status = ?, updated_ms = ?, final_state = ? WHERE run_id = ?");
    this.identityOf = this.db.prepare("SELECT identity FROM runs WHERE run_id = ?").pluck();
    this.remember = this.db.prepare("INSERT INTO memory (identity, run_id, at_ms, text) VALUES (?, ?, ?, ?)");
    this.maxSeq = this.db.prepare("SELECT COALESCE(MAX(seq), 0) AS m FROM journal");
    this.readRows = this.db
      .prepare("SELECT seq, run_id, step_id, attempt, entry_type, at_ms, payload, checksum FROM journal WHERE root_run_id = ? AND seq > ? ORDER BY seq")
      .raw(true);
    const k = process.env.CRITERIA_FAULT_KILL_AFTER_SEQ;
    this.killAfter = k !== undefined && /^\d+$/.test(k) ? Number(k) : undefined;
  }

  /** The next seq, read inside the write transaction (another process may have appended a signal). */
  private nextSeq(): number {
    return (this.maxSeq.get() as { m: number }).m + 1;
  }

  /**
   * Appends entries of one run tree atomically (all or none) and returns them with
   * their `seq`. Also maintains the `runs` index in the same transaction.
   * @throws JournalWriteError when the write fails (disk full, read-only, locked too long)
   */
  append(rootRunId: string, entries: NewEntry[]): JournalEntry[] {
    const out: JournalEntry[] = [];
    const tx = this.db.transaction(() => {
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
    });
    try {
      tx.immediate();
    } catch (err) {
      throw new JournalWriteError(`journal append failed: ${(err as Error).message}`);
    }
    if (this.killAfter !== undefined && out.some((e) => e.seq >= this.killAfter!)) process.kill(process.pid, "SIGKILL");
    return out;
  }

  /**
   * Every entry of a run tree in `seq` order, checksums verified. A row whose checksum
   * does not match ends the read (everything before it is kept) and is reported in
   * `corrupt`.
   */
  read(rootRunId: string, afterSeq = 0): { entries: JournalEntry[]; corrupt?: string } {
    const entries: JournalEntry[] = [];
    const corrupt = this.scan(rootRunId, (e) => void entries.push(e), afterSeq);
    return corrupt ? { entries, corrupt } : { entries };
  }

  /**
   * Streams a run tree's entries in `seq` order to `visit` (no array of the whole
   * journal: resume folds as it reads). Returns a note when a checksum fails; the
   * entries before it have been visited.
   */
  scan(rootRunId: string, visit: (e: JournalEntry) => void, afterSeq = 0): string | undefined {
    const rows = this.readRows.iterate(rootRunId, afterSeq) as IterableIterator<[number, string, string, number, string, number, string, number]>;
    for (const [seq, run_id, step_id, attempt, entry_type, at_ms, payload, sum] of rows) {
      if (checksum(seq, rootRunId, run_id, step_id, attempt, entry_type, at_ms, payload) !== sum) {
        return `entry ${seq} fails its checksum; reading stopped before it`;
      }
      visit({ seq, run_id, step_id, attempt, entry_type: entry_type as EntryType, at_ms, payload: JSON.parse(payload) } as JournalEntry);
    }
    return undefined;
  }

  /**
   * Earlier runs of `identity` for a memory pack (seed 000, A3): the runs whose
   * remembered outputs best match `query` (SQLite FTS5, bm25), then the newest, as many
   * as fit in `budgetBytes` of text (UTF-8). Runs of the tree `excludeRoot` are skipped.
   */
  recall(identity: string, query: string, budgetBytes: number, excludeRoot: string): MemoryItem[] {
    const terms = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}_]{2,}/gu) ?? [])].slice(0, 32);
    const exclude = `${excludeRoot}/%`;
    const rows = (
      terms.length > 0
        ? this.db
            .prepare("SELECT run_id, at_ms, text FROM memory WHERE memory MATCH ? AND identity = ? AND run_id != ? AND run_id NOT LIKE ? ORDER BY bm25(memory), at_ms DESC LIMIT 200")
            .all(terms.map((t) => `"${t}"`).join(" OR "), identity, excludeRoot, exclude)
        : []
    ) as MemoryItem[];
    const recent = this.db.prepare("SELECT run_id, at_ms, text FROM memory WHERE identity = ? AND run_id != ? AND run_id NOT LIKE ? ORDER BY at_ms DESC LIMIT 200").all(identity, excludeRoot, exclude) as MemoryItem[];
    const out: MemoryItem[] = [];
    const seen = new Set<string>();
    let left = budgetBytes;
    for (const r of [...rows, ...recent]) {
      if (seen.has(r.run_id) || left <= 0) continue;
      seen.add(r.run_id);
      const bytes = Buffer.byteLength(r.text);
      const text = bytes <= left ? r.text : Buffer.from(r.text).subarray(0, left).toString("utf8").replace(/\uFFFD$/, "");
      out.push({ run_id: r.run_id, at_ms: Number(r.at_ms), text });
      left -= Buffer.byteLength(text);
    }
    return out;
  }

  /** Runs, newest first; `roots` limits to root runs. */
  runs(opts: { roots?: boolean; limit?: number } = {}): RunRow[] {
    const where = opts.roots ? "WHERE parent_run_id IS NULL" : "";
    return this.db.prepare(`SELECT * FROM runs ${where} ORDER BY created_ms DESC, run_id DESC LIMIT ?`).all(opts.limit ?? 1000) as RunRow[];
  }

  /** One run's row, or undefined. */
  run(runId: string): RunRow | undefined {
    return this.db.prepare("SELECT * FROM runs WHERE run_id = ?").get(runId) as RunRow | undefined;
  }

  /**
   * Takes the run tree's lock for this process. A lock held by a live process (same
   * host, pid alive) is refused with {@link RunLockedError}; a dead holder's lock (a
   * killed run) is taken over.
   */
  lock(rootRunId: string, nowMs: number): void {
    const host = hostname();
    const tx = this.db.transaction(() => {
      const row = this.db.prepare("SELECT pid, host, start_ticks FROM locks WHERE root_run_id = ?").get(rootRunId) as { pid: number; host: string; start_ticks: string | null } | undefined;
      if (row && row.pid !== process.pid && (row.host !== host || alive(row.pid, row.start_ticks))) throw new RunLockedError(rootRunId, row.pid, row.host);
      this.db
        .prepare("INSERT OR REPLACE INTO locks (root_run_id, pid, host, acquired_ms, start_ticks) VALUES (?, ?, ?, ?, ?)")
        .run(rootRunId, process.pid, host, nowMs, processStart(process.pid) ?? null);
    });
    tx.immediate();
  }

  /** Releases this process's lock on the run tree. */
  unlock(rootRunId: string): void {
    this.db.prepare("DELETE FROM locks WHERE root_run_id = ? AND pid = ?").run(rootRunId, process.pid);
  }

  close(): void {
    this.db.close();
  }
}


/** The text a run leaves in memory: its outputs, one `name: value` per line. */
function memoryText(outputs: Record<string, unknown>): string {
  return Object.entries(outputs)
    .map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join("\n");
}

/**
 * CRC-32 of an entry's fields: detects a torn or corrupted row (not tampering, which
 * needs a key). CRC-32 rather than a cryptographic hash: it is checked for every entry
 * on every resume.
 */
function checksum(seq: number, root: string, runId: string, stepId: string, attempt: number, type: string, atMs: number, payload: string): number {
  return crc32(`${seq}\0${root}\0${runId}\0${stepId}\0${attempt}\0${type}\0${atMs}\0${payload}`);
}

/**
 * Whether the lock holder still runs: the pid exists, is not a zombie (a SIGKILLed
 * process its parent has not reaped yet), and, where the start time was recorded,
 * started when the lock was taken (a reused pid is another process).
 */
function alive(pid: number, startTicks: string | null): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const stat = procStat(pid);
  if (stat === undefined) return true; // no /proc: trust kill(0)
  if (stat.state === "Z" || stat.state === "X") return false;
  return startTicks === null || stat.start === startTicks;
}

function processStart(pid: number): string | undefined {
  return procStat(pid)?.start;
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
