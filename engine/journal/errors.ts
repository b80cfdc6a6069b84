/**
 * What can go wrong with the journal, as values the CLI turns into one line and an exit
 * code (every storage failure is a user error with the path, never a stack
 * trace, and the run stays resumable).
 */

/** Refusal to run: another live process holds the run's lease (docs/architecture.md, The engine: a run is never run by two processes at once). */
export class RunLockedError extends Error {
  constructor(
    readonly runId: string,
    readonly pid: number,
    readonly host: string,
    /** When the holder's lease runs out unless it renews it (ms since the epoch). */
    readonly expiresMs?: number,
  ) {
    super(
      `run ${runId} is being executed by process ${pid} on ${host}${expiresMs !== undefined ? `, whose lease runs until ${new Date(expiresMs).toISOString()} unless it renews it` : ""}`,
    );
  }
}

/** A storage problem of the journal: reported as one line with its path, never as a crash. */
export class JournalError extends Error {}

/** The journal could not be opened (the state dir is a file, read-only, or not a journal). */
export class JournalOpenError extends JournalError {
  /**
   * True when the store did not answer (no server listening yet, a restart, no answer in
   * time): the same open may succeed later. False for what waiting does not mend (a refused
   * login, a missing database, a damaged journal).
   */
  readonly unreachable: boolean;

  constructor(message: string, opts: { unreachable?: boolean } = {}) {
    super(message);
    this.unreachable = opts.unreachable ?? false;
  }
}

/** The journal could not be written: the step that asked fails; nothing half-written remains. */
export class JournalWriteError extends JournalError {
  /** True when the store did not answer (a database server lost or restarting): the same write may succeed later. */
  readonly unreachable: boolean;

  constructor(message: string, opts: { unreachable?: boolean } = {}) {
    super(message);
    this.unreachable = opts.unreachable ?? false;
  }
}

/**
 * The {@link JournalWriteError} for `e`, a failed write of the journal at `location` (a
 * database URL without its password, or a file): its reason in words ({@link storageReason}),
 * `unreachable` when the store did not answer ({@link storeUnreachable}).
 */
export function journalWriteError(location: string, e: unknown): JournalWriteError {
  return new JournalWriteError(`cannot write the journal ${location}: ${storageReason(e)}`, { unreachable: storeUnreachable(e) });
}

/** The journal could not be read (a damaged database page, an I/O error, a server that does not answer). */
export class JournalReadError extends JournalError {
  /** True when the store did not answer (a restart, no server listening yet): the same read may succeed later. */
  readonly unreachable: boolean;

  constructor(message: string, opts: { unreachable?: boolean } = {}) {
    super(message);
    this.unreachable = opts.unreachable ?? false;
  }
}

/**
 * An entry fails its checksum (a corrupted journal must not re-run finished
 * work). Resume refuses unless told to set the damaged entries aside.
 */
export class JournalDamagedError extends JournalError {
  constructor(
    readonly runId: string,
    /** The first damaged entry. */
    readonly seq: number,
    /** Entries from it to the end of the run tree: what resuming past it would lose. */
    readonly lost: number,
    /** Steps that completed in those entries (they would run again). */
    readonly steps: string[],
    /**
     * The damaged entry is the run's first (`run.spawned`, which holds its compiled
     * workflow): nothing is left to resume from, so setting entries aside is not offered
     * (found by a new-user trial: following the hint made the run vanish).
     */
    readonly first = false,
    /**
     * The run tree's last entry before the damage: where a resume past it starts. Not
     * `seq - 1`, which may be another run's entry or one an earlier discard set aside
     * (found by a new-user trial).
     */
    readonly resumeFrom = seq - 1,
    /**
     * What the commands the message suggests add to find the journal again (` --state-dir DIR`,
     * ` --store URL`), "" for the default one: see {@link naming}.
     */
    readonly flag = "",
    /**
     * How the run ended (`succeeded in state "done"`), when it has: it needs no resume, so
     * none is suggested (found by a user trial: journal sent an ended run to resume
     * --discard-damaged, which said it had ended).
     */
    readonly ended?: string,
  ) {
    super(damageText(runId, seq, lost, steps, first, resumeFrom, flag, ended));
  }

  /**
   * The same report, the commands its message suggests naming the journal as `flag` does
   * (found by a new-user trial: with a --state-dir of its own, the resume it suggested found
   * no run), and saying the run `ended` (how) when it has. The journal that reports the damage
   * does not know how the user named it.
   */
  naming(flag: string, ended?: string): JournalDamagedError {
    return new JournalDamagedError(this.runId, this.seq, this.lost, this.steps, this.first, this.resumeFrom, flag, ended);
  }
}

/** The message of a {@link JournalDamagedError}: what is lost, and the command that goes on from it. */
function damageText(runId: string, seq: number, lost: number, steps: string[], first: boolean, resumeFrom: number, flag: string, ended: string | undefined): string {
  const head = `journal entry ${seq} of run ${runId} fails its checksum`;
  const after = `${lost - 1} entr${lost - 1 === 1 ? "y" : "ies"} after it`;
  // An ended run: nothing to resume, nothing to start again; what can be read is all there is.
  if (ended !== undefined) {
    return first
      ? `${head}: it is the run's first entry, so nothing of the run can be read; the run had ended (${ended}) and needs no resume`
      : `${head}, so it and the ${after} cannot be read; the run had ended (${ended}) and needs no resume`;
  }
  // Its id stays taken: apply --run-id of it is refused (found by a user trial: that refusal sent back to resume).
  if (first) {
    return `${head}: it is the run's first entry, which holds its workflow, so the run cannot be resumed, and nothing of it can be read before that entry; its entries stay in the journal, and its id stays taken: criteria apply PATH${flag} starts the workflow afresh as a new run (leave out --run-id ${runId}, or give another)`;
  }
  return (
    `${head}: resuming would lose it and the ${after}` +
    (steps.length ? `, and run again ${steps.length === 1 ? "step" : "steps"} ${steps.map((s) => `"${s}"`).join(", ")} that had finished` : "") +
    `; criteria resume ${runId}${flag} --discard-damaged sets them aside (kept in the journal's quarantine) and resumes from entry ${resumeFrom}`
  );
}

/**
 * An append refused by a condition the caller set (journal.ts `AppendOptions`), checked in its
 * transaction: nothing was written, and the caller decides again from what is there now.
 */
export class AppendRefusedError extends Error {}

/**
 * The signal (or decision) an append meant to consume was consumed first by another wait
 * of the run tree ({@link AppendOptions.consumes}): nothing was written; the wait goes on
 * waiting. Jobs advancing runs of one tree on several workers race for one signal so.
 */
export class SignalTakenError extends AppendRefusedError {
  constructor(readonly seq: number) {
    super(`journal entry ${seq} (a signal or a decision) was consumed by another wait first`);
  }
}

/**
 * A run the append named in {@link AppendOptions.unlessEnded} has ended: nothing was written
 * (a signal to it would wait for a wait that never comes).
 */
export class RunEndedError extends AppendRefusedError {
  constructor(readonly runId: string) {
    super(`run ${runId} has ended`);
  }
}

/**
 * The channel message an append's receive meant to take was taken first by another
 * receive of the run tree ({@link AppendOptions.takes}): nothing was written; the receive
 * looks for the next message.
 */
export class MessageTakenError extends AppendRefusedError {
  constructor(readonly id: string) {
    super(`channel message ${id} was received by another receive first`);
  }
}

/** This process's lease on a run was taken over (it expired, or `--force`): it may not write. */
export class LeaseLostError extends Error {
  constructor(readonly runId: string, now: string) {
    super(`this process can no longer write run ${runId}: ${now}; it stopped without writing anything more`);
  }
}

/** {@link storageReason}'s words for a database SQLite cannot read as one. */
export const DAMAGED = "the journal database is damaged";

/** A plain account of an SQLite, PostgreSQL or file-system error, for a one-line message. */
export function storageReason(e: unknown): string {
  const code = String((e as { code?: string }).code ?? "");
  const msg = (e as Error)?.message ?? String(e);
  const pg = postgresReason(code, msg);
  if (pg) return pg;
  if (code === "SQLITE_FULL" || /disk is full|ENOSPC/i.test(msg)) return "the disk is full";
  if (code.startsWith("SQLITE_READONLY") || /readonly|read-only|EROFS/i.test(msg)) return "the journal is read-only";
  if (code === "SQLITE_CORRUPT" || code === "SQLITE_NOTADB" || /malformed|not a database|vtable constructor failed/i.test(msg)) return DAMAGED;
  if (code.startsWith("SQLITE_IOERR") || /disk I\/O error|EFBIG|EIO/i.test(msg)) return /^disk I\/O error$/i.test(msg) ? "a disk I/O error (is the disk full, or failing?)" : `a disk I/O error (${msg})`;
  if (code === "SQLITE_BUSY" || /database is locked/i.test(msg)) return "the journal stayed locked by another process for too long";
  return msg;
}

/**
 * Whether a PostgreSQL connection error means the server did not answer, rather than that it
 * refused (`storageReason`'s "no PostgreSQL server answers there", "does not answer", "went
 * away", and an unreachable network): waiting may mend it.
 */
export function storeUnreachable(e: unknown): boolean {
  const code = String((e as { code?: string }).code ?? "");
  const msg = (e as Error)?.message ?? String(e);
  if ((code === "ECONNREFUSED" || code === "ENOENT") && /connect /.test(msg)) return true;
  if (["ETIMEDOUT", "ECONNRESET", "EPIPE", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN", "57P01", "57P02", "57P03"].includes(code)) return true;
  return /timeout exceeded when trying to connect|connection timeout|Connection terminated|connection error and is not queryable/i.test(msg);
}

/** PostgreSQL's and its connection's errors (SQLSTATE codes, socket errors), or undefined for others. */
function postgresReason(code: string, msg: string): string | undefined {
  if ((code === "ECONNREFUSED" || code === "ENOENT") && /connect /.test(msg)) return `no PostgreSQL server answers there: is it running? (${msg})`;
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return `the host is unknown (${msg})`;
  if (code === "28P01" || code === "28000") return `the server refused the login (${msg})`;
  if (code === "3D000") return `the database does not exist (${msg})`;
  if (code === "42501") return `permission denied (${msg})`;
  if (code === "53100") return "the database's disk is full";
  if (code === "25006") return "the database is read-only";
  if (/timeout exceeded when trying to connect|connection timeout/i.test(msg)) return "the database server does not answer (no answer in 10 s)";
  if (code === "57P01" || code === "57P02" || code === "57P03" || /Connection terminated/i.test(msg)) return `the database server went away (${msg})`;
  return undefined;
}

/**
 * The run tree had an entry newer than the one the caller read ({@link
 * AppendOptions.ifLastSeq}): nothing was written; the caller reads again and decides again
 * (an approval's decision, given only while no decision is given to it: found by a new-user
 * trial, where `approve` and `reject` run at once were both taken).
 */
export class TreeChangedError extends AppendRefusedError {
  constructor(readonly seq: number) {
    super(`the run tree has entries after journal entry ${seq}, the newest one read`);
  }
}
