import type Database from "better-sqlite3";
import { randomUUID } from "node:crypto";
import { statSync } from "node:fs";
import { hostname } from "node:os";
import { procStat } from "../process-info.js";
import { JournalOpenError, LeaseLostError, RunLockedError } from "./errors.js";
import type { AppendOptions, LeaseHolder } from "./journal.js";

/** Why an append naming a lease this process does not hold is refused ({@link AppendOptions.lease}). */
export const NOT_HELD = "it holds no lease on it (never taken, or given back)";

/**
 * Why a lease this process held is no longer its own: another process took it after it
 * expired, or someone took it away (`criteria unlock`, `resume --force`). One wording for
 * all (a new-user trial read "another process took it over" after an unlock nobody followed).
 */
export const LEASE_TAKEN = "its lease was taken away (by criteria unlock or resume --force, or by another process after it expired)";

/**
 * Why a lease this process could not renew for a whole lease period is no longer counted
 * on: by then another process may have taken it over (its holder cannot tell), so what it
 * was running is stopped, as when the lease is known to be taken.
 */
export function leaseRanOut(ms: number): string {
  return `its lease ran out: it could not be renewed for ${(ms / 1000).toFixed(1)} s (the journal unreachable, or this process paused), and another process may have taken the run over since`;
}

/** A lease this process holds, as either store keeps it in memory. */
export interface HeldLease {
  epoch: number;
  /** The heartbeat renewing it every TTL/3. */
  timer: NodeJS.Timeout;
  /** Why it was lost; set once, after which every append naming it is refused. */
  lost?: string;
  /** When it was last known to be this process's (taken, or renewed), `performance.now()` ms: a monotonic clock. */
  renewedAt: number;
  /** Told once when it is lost ({@link Journal.onLeaseLost}). */
  listeners: Set<(error: LeaseLostError) => void>;
}

/**
 * Marks a held lease lost for `reason` (a lease lost stays lost, for its first reason)
 * and tells its listeners, once each, in a microtask (never inside the caller's
 * transaction, which may be the one that found the loss).
 * @returns the error an append naming the lease throws
 */
export function loseLease(root: string, h: HeldLease, reason: string): LeaseLostError {
  h.lost ??= reason;
  const error = new LeaseLostError(root, h.lost);
  const told = [...h.listeners];
  h.listeners.clear();
  if (told.length > 0) queueMicrotask(() => told.forEach((listener) => listener(error)));
  return error;
}

/**
 * Listens for the loss of the lease `h` on `root` ({@link Journal.onLeaseLost}); told at
 * once (in a microtask) when it is lost already. Nothing is told for no lease (`h` undefined).
 * @returns what stops listening
 */
export function watchLease(root: string, h: HeldLease | undefined, listener: (error: LeaseLostError) => void): () => void {
  if (!h) return () => undefined;
  if (h.lost) {
    const error = new LeaseLostError(root, h.lost);
    queueMicrotask(() => listener(error));
    return () => undefined;
  }
  h.listeners.add(listener);
  return () => void h.listeners.delete(listener);
}

/** How long a lease lasts unless renewed: 30 s (`CRITERIA_LEASE_TTL_MS` overrides it). */
export const DEFAULT_LEASE_TTL_MS = 30_000;

/** The lease periods `CRITERIA_LEASE_TTL_MS` may ask for, ms: 0.1 s to a day. */
const LEASE_TTL_RANGE = [100, 86_400_000] as const;

/**
 * The lease period `CRITERIA_LEASE_TTL_MS` asks for, ms; {@link DEFAULT_LEASE_TTL_MS} when it is
 * unset or empty. Found by a new-user trial: `0` and `abc` were taken for 30 s without a word,
 * and `-5` or `1` reached PostgreSQL as a session timeout it refused (`cannot open the journal`).
 * @throws JournalOpenError naming the variable, for anything but a whole number from 100 to 86,400,000
 */
export function leaseTtlFromEnv(value: string | undefined = process.env.CRITERIA_LEASE_TTL_MS): number {
  if (value === undefined || value.trim() === "") return DEFAULT_LEASE_TTL_MS;
  const ms = /^\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (ms >= LEASE_TTL_RANGE[0] && ms <= LEASE_TTL_RANGE[1]) return ms;
  throw new JournalOpenError(`CRITERIA_LEASE_TTL_MS: ${JSON.stringify(value.slice(0, 40))} is not a lease period (a whole number of milliseconds from ${LEASE_TTL_RANGE[0]} to ${LEASE_TTL_RANGE[1].toLocaleString("en")}; 30000, 30 s, when unset)`);
}

/** A lease row of the `locks` table. */
interface LeaseRow {
  pid: number;
  host: string;
  start_ticks: string | null;
  acquired_ms: number;
  owner: string | null;
  epoch: number | null;
  expires_ms: number | null;
}

/**
 * Leases on run trees (a run killed on one host must be resumable on
 * another): the holder renews its lease every TTL/3 (a heartbeat); anyone may take a
 * lease over once it has expired, at once when its holder is a dead process of this
 * host, or with `force`. Each takeover bumps the lease's epoch, and every append by a
 * holder checks, in the same transaction, that the lease is still its own (fencing): a
 * holder that lost its lease (paused, partitioned, a zombie) can never write again.
 * Times are this machine's wall clock (`Date.now()`), whatever clock the runner uses.
 */
export class Leases {
  private readonly held = new Map<string, HeldLease & { owner: string }>();
  private readonly owner = ownerToken();

  /** The journal file's inode when opened: a deleted or replaced file is noticed at the next heartbeat. */
  private readonly inode: number | undefined;
  /** When the file was last looked at from an append (it is looked at once a second at most). */
  private lastFileCheck = 0;
  private readonly leaseOf: Database.Statement;
  private readonly ttlMs: number;

  /**
   * @param file the journal's database file (watched: deleted mid-run, the lease is lost)
   * @param ttlMs how long a lease lasts unless renewed (default `CRITERIA_LEASE_TTL_MS`, else 30 s)
   */
  constructor(
    private readonly db: Database.Database,
    private readonly file: string,
    ttlMs?: number,
  ) {
    this.ttlMs = ttlMs ?? leaseTtlFromEnv();
    this.inode = inodeOf(file);
    this.leaseOf = db.prepare("SELECT owner, epoch FROM locks WHERE root_run_id = ?");
  }

  /**
   * Takes the lease on `root` for this process.
   * @param force take it even from a live holder whose lease has not expired
   * @returns what was taken over, to be said as a warning (undefined when nothing was)
   * @throws RunLockedError when a live holder's lease has not expired (and not `force`)
   */
  acquire(root: string, force = false): string | undefined {
    const now = Date.now();
    // Held here already: another runner of this process has it (two jobs for one run in a worker).
    const mine = this.held.get(root);
    if (mine && !mine.lost) throw new RunLockedError(root, process.pid, hostname());
    let note: string | undefined;
    const tx = this.db.transaction(() => {
      const row = this.db.prepare("SELECT pid, host, start_ticks, acquired_ms, owner, epoch, expires_ms FROM locks WHERE root_run_id = ?").get(root) as LeaseRow | undefined;
      const epoch = (row?.epoch ?? 0) + 1;
      if (row) note = takeOver(root, { ...row, expiresMs: row.expires_ms ?? row.acquired_ms + this.ttlMs }, this.owner, now, force);
      this.db
        .prepare("INSERT OR REPLACE INTO locks (root_run_id, pid, host, acquired_ms, start_ticks, owner, epoch, expires_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        .run(root, process.pid, hostname(), now, procStat(process.pid)?.start ?? null, this.owner, epoch, now + this.ttlMs);
      return epoch;
    });
    const renewedAt = performance.now();
    const epoch = tx.immediate();
    this.stopHeartbeat(root);
    const timer = setInterval(() => this.renew(root), Math.max(1, Math.floor(this.ttlMs / 3)));
    timer.unref();
    this.held.set(root, { owner: this.owner, epoch, timer, renewedAt, listeners: new Set() });
    return note;
  }

  /**
   * Extends this process's lease on `root`; notes a lost lease (the next append refuses, and
   * its listeners are told): taken, the journal file gone, or not renewed for a lease period.
   * A holder that was paused past its lease and finds it still its own goes on: no one took it.
   */
  private renew(root: string): void {
    const h = this.held.get(root);
    if (!h || h.lost) return;
    // SQLite keeps writing to a deleted file without complaint: stop rather than journal into nothing.
    if (inodeOf(this.file) !== this.inode) {
      loseLease(root, h, this.fileGone());
      return;
    }
    const now = performance.now();
    try {
      const r = this.db.prepare("UPDATE locks SET expires_ms = ? WHERE root_run_id = ? AND owner = ? AND epoch = ?").run(Date.now() + this.ttlMs, root, h.owner, h.epoch);
      if (r.changes === 0) loseLease(root, h, LEASE_TAKEN);
      else h.renewedAt = now;
    } catch {
      // A busy or full disk: the next append reports it; past a lease period, it is not counted on.
      if (now - h.renewedAt > this.ttlMs) loseLease(root, h, leaseRanOut(now - h.renewedAt));
    }
  }

  /** Why a lease is lost when the journal file is no longer the one opened. */
  private fileGone(): string {
    return `the journal ${this.file} was deleted or replaced while the run was going on`;
  }

  /** {@link Journal.onLeaseLost} for this store's leases. */
  watch(root: string, listener: (error: LeaseLostError) => void): () => void {
    return watchLease(root, this.held.get(root), listener);
  }

  /**
   * Inside an append transaction by this process: the lease on `root`, if this process
   * took one, is still its own. Appends by processes that hold no lease (a signal or an
   * approval delivered from another shell) are not fenced, unless `named`: the caller
   * says it holds this lease ({@link AppendOptions.lease}), so holding none is a loss.
   * @param fileNow look at the journal file now, not at most once a second: an append that
   *   ends a run must not be written into a deleted file (found by a test made exact: a run
   *   whose journal was deleted less than a second before its end exited 0)
   * @throws LeaseLostError
   */
  check(root: string, named = false, fileNow = false): void {
    const h = this.held.get(root);
    if (!h) {
      if (named) throw new LeaseLostError(root, NOT_HELD);
      return;
    }
    const now = Date.now();
    if (!h.lost && (fileNow || now - this.lastFileCheck >= 1000)) {
      this.lastFileCheck = now;
      if (inodeOf(this.file) !== this.inode) throw loseLease(root, h, this.fileGone());
    }
    if (h.lost) throw new LeaseLostError(root, h.lost);
    const row = this.leaseOf.get(root) as { owner: string | null; epoch: number | null } | undefined;
    if (row?.owner !== h.owner || row.epoch !== h.epoch) throw loseLease(root, h, LEASE_TAKEN);
  }

  /** The epoch of this process's lease on `root`, when it holds one. */
  epochOf(root: string): number | undefined {
    return this.held.get(root)?.epoch;
  }

  /**
   * Gives the lease back (kept as a released row, so epochs keep growing); with `epoch`,
   * only when that is the lease held (another runner of this process may hold a newer one). Never throws.
   */
  release(root: string, epoch?: number): void {
    const h = this.held.get(root);
    if (h && epoch !== undefined && h.epoch !== epoch) return;
    this.stopHeartbeat(root);
    this.held.delete(root);
    if (!h) return;
    try {
      this.db.prepare("UPDATE locks SET pid = 0, expires_ms = 0 WHERE root_run_id = ? AND owner = ? AND epoch = ?").run(root, h.owner, h.epoch);
    } catch {
      // a full or read-only disk: the lease runs out on its own
    }
  }

  /** Who holds `root`'s lease, and until when (for `criteria runs` and `criteria unlock`). */
  holder(root: string): LeaseHolder | undefined {
    const row = this.db.prepare("SELECT pid, host, start_ticks, acquired_ms, owner, epoch, expires_ms FROM locks WHERE root_run_id = ?").get(root) as LeaseRow | undefined;
    return row ? holderOf({ ...row, expiresMs: row.expires_ms ?? row.acquired_ms + this.ttlMs }, Date.now()) : undefined;
  }

  /** Ends every heartbeat (the journal is closing). */
  stopAll(): void {
    for (const root of [...this.held.keys()]) this.stopHeartbeat(root);
  }

  private stopHeartbeat(root: string): void {
    const h = this.held.get(root);
    if (h) clearInterval(h.timer);
  }
}

/** A lease as either store keeps it: who holds it and until when (`pid` 0: given back or broken). */
export interface LeaseState {
  pid: number;
  host: string;
  /** The holder's start time in clock ticks (/proc), where known: a reused pid is another process. */
  start_ticks: string | null;
  /** The holder's owner token (host, pid and a random part: one per open journal). */
  owner: string | null;
  /** When it runs out unless renewed, ms since the epoch by the store's clock. */
  expiresMs: number;
}

/**
 * Whether `owner` may take the lease `row` on `root` at `nowMs`, and what to say when it
 * takes one over (the same rule for every store): a lease that is its own, given back,
 * expired, or held by a dead process of this host is taken; a live one only with `force`.
 * @returns the note to say as a warning, or undefined when nothing was taken over
 * @throws RunLockedError when a live holder's lease runs and not `force`
 */
export function takeOver(root: string, row: LeaseState, owner: string, nowMs: number, force: boolean): string | undefined {
  if (row.owner === owner || row.pid === 0) return undefined;
  const who = `process ${row.pid} on ${row.host}`;
  if (row.expiresMs <= nowMs) return `took over run ${root} from ${who}, whose lease expired at ${new Date(row.expiresMs).toISOString()}`;
  if (row.host === hostname() && !alive(row.pid, row.start_ticks)) return `took over run ${root} from ${who}, which is gone`;
  if (force) return `--force: took run ${root} from ${who}, whose lease ran until ${new Date(row.expiresMs).toISOString()}; if it still runs, it stops what it runs at its next heartbeat, and can no longer write to the journal`;
  throw new RunLockedError(root, row.pid, row.host, row.expiresMs);
}

/** Who holds a lease at `nowMs`, or undefined when it was given back or broken. */
export function holderOf(row: LeaseState, nowMs: number): LeaseHolder | undefined {
  if (row.pid === 0) return undefined;
  const live = row.expiresMs > nowMs && (row.host !== hostname() || alive(row.pid, row.start_ticks));
  return { pid: row.pid, host: row.host, expiresMs: row.expiresMs, alive: live };
}

/** A token naming one open journal of this process as a lease owner. */
export function ownerToken(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

function inodeOf(file: string): number | undefined {
  try {
    return statSync(file).ino;
  } catch {
    return undefined;
  }
}

/**
 * Whether a process of this host still runs: the pid exists, is not a zombie (a
 * SIGKILLed process its parent has not reaped yet), and, where the start time was
 * recorded, started when the lease was taken (a reused pid is another process).
 */
export function alive(pid: number, startTicks: string | null): boolean {
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
