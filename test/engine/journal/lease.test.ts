/**
 * engine/journal/lease.ts: the takeover rule both stores apply, who counts as alive, and
 * the SQLite lease noticing its journal file deleted under a running run.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { JournalOpenError, LeaseLostError, RunLockedError } from "../../../engine/journal/errors.js";
import { alive, holderOf, leaseTtlFromEnv, ownerToken, takeOver, type LeaseState } from "../../../engine/journal/lease.js";
import { SqliteJournal } from "../../../engine/journal/sqlite-journal.js";
import { procStat } from "../../../engine/process-info.js";

const NOW = Date.UTC(2026, 5, 1);
const lease = (over: Partial<LeaseState> = {}): LeaseState => ({ pid: process.pid, host: hostname(), start_ticks: procStat(process.pid)!.start, owner: "someone", expiresMs: NOW + 1000, ...over });
/** A pid that is not running (a child that has exited and been reaped). */
const deadPid = (): number => spawnSync("true").pid!;

describe("takeOver", () => {
  it("takes its own lease, and one given back, without a note", () => {
    expect(takeOver("r", lease({ owner: "me" }), "me", NOW, false)).toBeUndefined();
    expect(takeOver("r", lease({ pid: 0 }), "me", NOW, false)).toBeUndefined();
  });

  it("takes an expired lease (expiry at this very ms included), saying whose and when", () => {
    expect(takeOver("r", lease({ host: "elsewhere", pid: 7, expiresMs: NOW }), "me", NOW, false)).toBe("took over run r from process 7 on elsewhere, whose lease expired at 2026-06-01T00:00:00.000Z");
  });

  it("takes a live-looking lease of a dead process of this host", () => {
    const pid = deadPid();
    expect(takeOver("r", lease({ pid }), "me", NOW, false)).toBe(`took over run r from process ${pid} on ${hostname()}, which is gone`);
  });

  it("refuses a live holder's unexpired lease, unless forced", () => {
    const live = lease({ host: "elsewhere", pid: 7, expiresMs: NOW + 1 });
    expect(() => takeOver("r", live, "me", NOW, false)).toThrow(RunLockedError);
    expect(() => takeOver("r", lease(), "me", NOW, false)).toThrow(`run r is being executed by process ${process.pid} on ${hostname()}`);
    expect(takeOver("r", live, "me", NOW, true)).toBe("--force: took run r from process 7 on elsewhere, whose lease ran until 2026-06-01T00:00:00.001Z; if it still runs, it stops what it runs at its next heartbeat, and can no longer write to the journal");
  });
});

describe("holderOf", () => {
  it("says nobody holds a lease given back", () => {
    expect(holderOf(lease({ pid: 0 }), NOW)).toBeUndefined();
  });

  it("a holder is alive while its lease runs and, on this host, its process lives", () => {
    expect(holderOf(lease(), NOW)).toEqual({ pid: process.pid, host: hostname(), expiresMs: NOW + 1000, alive: true });
    expect(holderOf(lease(), NOW + 1000)?.alive).toBe(false);
    expect(holderOf(lease({ pid: deadPid() }), NOW)?.alive).toBe(false);
    // Another host's process cannot be looked at: its lease decides.
    expect(holderOf(lease({ host: "elsewhere", pid: deadPid() }), NOW)?.alive).toBe(true);
  });
});

describe("alive", () => {
  it("this process is; a reaped one is not; a reused pid (another start time) is not", () => {
    expect(alive(process.pid, null)).toBe(true);
    expect(alive(process.pid, procStat(process.pid)!.start)).toBe(true);
    expect(alive(process.pid, "1")).toBe(false);
    expect(alive(deadPid(), null)).toBe(false);
  });

  it("owner tokens name the host and process, and differ per journal", () => {
    const a = ownerToken();
    expect(a).toMatch(new RegExp(`^${hostname()}:${process.pid}:[0-9a-f]{8}$`));
    expect(ownerToken()).not.toBe(a);
  });
});

describe("SQLite lease: the journal file deleted under a run", () => {
  it("the next append after it is refused, saying so", async () => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-lease-"));
    const j = new SqliteJournal(dir, { leaseTtlMs: 60_000 });
    try {
      await j.lock("r");
      rmSync(join(dir, "journal.db"));
      await new Promise((r) => setTimeout(r, 1100)); // the file is looked at once a second at most
      const e = await j.append("r", [{ run_id: "r", step_id: "", attempt: 0, entry_type: "signal.received", at_ms: 1, payload: { name: "x" } }]).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(LeaseLostError);
      expect((e as Error).message).toBe(`this process can no longer write run r: the journal ${join(dir, "journal.db")} was deleted or replaced while the run was going on; it stopped without writing anything more`);
    } finally {
      await j.close();
    }
  });

  it("an append that ends a run looks at the file at once; others within the second do not", async () => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-lease-"));
    const j = new SqliteJournal(dir, { leaseTtlMs: 60_000 });
    try {
      await j.lock("r");
      const signal = { run_id: "r", step_id: "", attempt: 0, entry_type: "signal.received", at_ms: 1, payload: { name: "x" } } as const;
      await j.append("r", [signal]); // looks at the file: the second starts now
      rmSync(join(dir, "journal.db"));
      await j.append("r", [{ ...signal, at_ms: 2 }]); // within the second: not looked at
      const end = await j.append("r", [{ run_id: "r", step_id: "", attempt: 0, entry_type: "run.completed", at_ms: 3, payload: { state: "done", success: true, reason: "ok", outputs: {} } }]).catch((x: unknown) => x);
      expect(end).toBeInstanceOf(LeaseLostError);
      expect((end as Error).message).toMatch(/was deleted or replaced while the run was going on/);
    } finally {
      await j.close();
    }
  });
});

describe("CRITERIA_LEASE_TTL_MS", () => {
  it("unset or empty is 30 s; a whole number from 100 to a day is taken as it is", () => {
    expect(leaseTtlFromEnv(undefined)).toBe(30_000);
    expect(leaseTtlFromEnv(" ")).toBe(30_000);
    expect(leaseTtlFromEnv("100")).toBe(100);
    expect(leaseTtlFromEnv(" 2000 ")).toBe(2000);
    expect(leaseTtlFromEnv("86400000")).toBe(86_400_000);
  });

  it.each(["abc", "0", "99", "-5", "1.5", "1e3", "86400001", "99999999999999999999"])("%s is refused, naming the variable and the range (a new-user trial: 0 and abc were 30 s, -5 a PostgreSQL error)", (value) => {
    expect(() => leaseTtlFromEnv(value)).toThrow(JournalOpenError);
    expect(() => leaseTtlFromEnv(value)).toThrow(`CRITERIA_LEASE_TTL_MS: "${value}" is not a lease period (a whole number of milliseconds from 100 to 86,400,000; 30000, 30 s, when unset)`);
  });
});
