/**
 * engine/journal/errors.ts: every storage failure becomes one plain line (no driver
 * jargon, never a stack trace), and each refusal says what to do. Exact texts: a user
 * reads them, and the CLI tests only see a few.
 */
import { describe, expect, it } from "vitest";
import { JournalDamagedError, LeaseLostError, RunLockedError, storageReason, storeUnreachable } from "../../../engine/journal/errors.js";

const err = (code: string | undefined, message: string) => Object.assign(new Error(message), code === undefined ? {} : { code });

describe("storageReason", () => {
  it.each([
    ["SQLITE_FULL", "anything", "the disk is full"],
    [undefined, "write failed: ENOSPC", "the disk is full"],
    [undefined, "database or disk is full", "the disk is full"],
    ["SQLITE_READONLY_DBMOVED", "x", "the journal is read-only"],
    [undefined, "attempt to write a readonly database", "the journal is read-only"],
    [undefined, "EROFS: read-only file system", "the journal is read-only"],
    ["SQLITE_CORRUPT", "x", "the journal database is damaged"],
    ["SQLITE_NOTADB", "x", "the journal database is damaged"],
    [undefined, "database disk image is malformed", "the journal database is damaged"],
    [undefined, "file is not a database", "the journal database is damaged"],
    [undefined, "vtable constructor failed: memory", "the journal database is damaged"],
    ["SQLITE_IOERR_WRITE", "disk I/O error", "a disk I/O error (is the disk full, or failing?)"],
    [undefined, "EFBIG: file too large", "a disk I/O error (EFBIG: file too large)"],
    [undefined, "EIO: i/o error, write", "a disk I/O error (EIO: i/o error, write)"],
    ["SQLITE_BUSY", "x", "the journal stayed locked by another process for too long"],
    [undefined, "database is locked", "the journal stayed locked by another process for too long"],
    [undefined, "something else entirely", "something else entirely"],
    ["ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432", "no PostgreSQL server answers there: is it running? (connect ECONNREFUSED 127.0.0.1:5432)"],
    ["ENOENT", "connect ENOENT /tmp/.s.PGSQL.5432", "no PostgreSQL server answers there: is it running? (connect ENOENT /tmp/.s.PGSQL.5432)"],
    ["ENOENT", "open /x: no such file", "open /x: no such file"],
    ["ENOTFOUND", "getaddrinfo ENOTFOUND db", "the host is unknown (getaddrinfo ENOTFOUND db)"],
    ["EAI_AGAIN", "getaddrinfo EAI_AGAIN db", "the host is unknown (getaddrinfo EAI_AGAIN db)"],
    ["28P01", 'password authentication failed for user "me"', 'the server refused the login (password authentication failed for user "me")'],
    ["28000", "no pg_hba.conf entry", "the server refused the login (no pg_hba.conf entry)"],
    ["3D000", 'database "x" does not exist', 'the database does not exist (database "x" does not exist)'],
    ["42501", "permission denied for schema public", "permission denied (permission denied for schema public)"],
    ["53100", "could not extend file", "the database's disk is full"],
    ["25006", "cannot execute INSERT in a read-only transaction", "the database is read-only"],
    ["57P01", "terminating connection due to administrator command", "the database server went away (terminating connection due to administrator command)"],
    ["57P02", "crash shutdown", "the database server went away (crash shutdown)"],
    ["57P03", "the database system is starting up", "the database server went away (the database system is starting up)"],
    [undefined, "Connection terminated unexpectedly", "the database server went away (Connection terminated unexpectedly)"],
    [undefined, "timeout exceeded when trying to connect", "the database server does not answer (no answer in 10 s)"],
    [undefined, "Connection terminated due to connection timeout", "the database server does not answer (no answer in 10 s)"],
  ])("%s %s", (code, message, expected) => {
    expect(storageReason(err(code, message))).toBe(expected);
  });

  it("takes anything thrown, not only errors", () => {
    expect(storageReason("plain text")).toBe("plain text");
    expect(storageReason({ code: "SQLITE_FULL" })).toBe("the disk is full");
  });
});

describe("storeUnreachable: what waiting may mend (a worker started before its database waits for it)", () => {
  it.each([
    ["ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432", true],
    ["ENOENT", "connect ENOENT /run/postgresql/.s.PGSQL.5432", true],
    ["ETIMEDOUT", "read ETIMEDOUT", true],
    ["ECONNRESET", "read ECONNRESET", true],
    ["EHOSTUNREACH", "connect EHOSTUNREACH 10.0.0.9:5432", true],
    ["ENETUNREACH", "connect ENETUNREACH 10.0.0.9:5432", true],
    ["EAI_AGAIN", "getaddrinfo EAI_AGAIN db", true],
    ["57P01", "terminating connection due to administrator command", true],
    ["57P03", "the database system is starting up", true],
    [undefined, "timeout exceeded when trying to connect", true],
    [undefined, "Connection terminated unexpectedly", true],
    ["ENOENT", "ENOENT: no such file or directory, open 'x'", false],
    ["28P01", "password authentication failed for user \"u\"", false],
    ["3D000", "database \"d\" does not exist", false],
    ["ENOTFOUND", "getaddrinfo ENOTFOUND nohost", false],
    ["42501", "permission denied for schema public", false],
  ])("%s %s: %s", (code, message, want) => {
    expect(storeUnreachable(err(code, message))).toBe(want);
  });
});

describe("refusals say what to do", () => {
  it("RunLockedError names the holder and, when known, until when its lease runs", () => {
    const e = new RunLockedError("r1", 42, "ci-7", Date.UTC(2026, 0, 2, 3, 4, 5));
    expect(e.message).toBe("run r1 is being executed by process 42 on ci-7, whose lease runs until 2026-01-02T03:04:05.000Z unless it renews it");
    expect(e).toMatchObject({ runId: "r1", pid: 42, host: "ci-7", expiresMs: Date.UTC(2026, 0, 2, 3, 4, 5) });
    expect(new RunLockedError("r1", 42, "ci-7").message).toBe("run r1 is being executed by process 42 on ci-7");
  });

  it("JournalDamagedError counts what would be lost, naming finished steps", () => {
    expect(new JournalDamagedError("r", 7, 3, ["build", "test"]).message).toBe(
      'journal entry 7 of run r fails its checksum: resuming would lose it and the 2 entries after it, and run again steps "build", "test" that had finished; criteria resume r --discard-damaged sets them aside (kept in the journal\'s quarantine) and resumes from entry 6',
    );
    expect(new JournalDamagedError("r", 7, 2, ["build"]).message).toBe(
      'journal entry 7 of run r fails its checksum: resuming would lose it and the 1 entry after it, and run again step "build" that had finished; criteria resume r --discard-damaged sets them aside (kept in the journal\'s quarantine) and resumes from entry 6',
    );
    expect(new JournalDamagedError("r", 3, 1, []).message).toBe(
      "journal entry 3 of run r fails its checksum: resuming would lose it and the 0 entries after it; criteria resume r --discard-damaged sets them aside (kept in the journal's quarantine) and resumes from entry 2",
    );
  });

  it("JournalDamagedError.naming: its commands name the journal; of an ended run it suggests no resume; of a damaged first entry, a new run (found by a user trial)", () => {
    const r = new JournalDamagedError("r", 7, 3, [], false, 6);
    expect(r.naming(" --state-dir s").message).toContain("; criteria resume r --state-dir s --discard-damaged sets them aside");
    expect(r.naming(" --state-dir s", 'succeeded in state "done"').message).toBe('journal entry 7 of run r fails its checksum, so it and the 2 entries after it cannot be read; the run had ended (succeeded in state "done") and needs no resume');
    const first = new JournalDamagedError("r", 1, 5, [], true, 0);
    expect(first.naming(" --state-dir s").message).toMatch(/; its entries stay in the journal, and its id stays taken: criteria apply PATH --state-dir s starts the workflow afresh as a new run \(leave out --run-id r, or give another\)$/);
    expect(first.naming("", "failed").message).toBe("journal entry 1 of run r fails its checksum: it is the run's first entry, so nothing of the run can be read; the run had ended (failed) and needs no resume");
  });

  it("LeaseLostError says why and that nothing more was written", () => {
    expect(new LeaseLostError("r", "another process took it over").message).toBe("this process can no longer write run r: another process took it over; it stopped without writing anything more");
  });
});
