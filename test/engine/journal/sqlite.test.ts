/**
 * The SQLite journal against the Journal contract (a real database file per test), and
 * what only the embedded store does: open errors, the torn write-ahead log note.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import type { JournalEntry } from "../../../engine/journal/entry.js";
import { JournalOpenError, JournalWriteError } from "../../../engine/journal/errors.js";
import { SqliteJournal, tornWalTail } from "../../../engine/journal/sqlite-journal.js";
import { journalContract } from "./contract.js";

journalContract("SQLite", {
  async fresh() {
    const dir = mkdtempSync(join(tmpdir(), "criteria-journal-"));
    return {
      open: async (opts) => new SqliteJournal(dir, opts),
      corrupt: async (seq) => {
        const db = new Database(join(dir, "journal.db"));
        db.prepare("UPDATE journal SET payload = replace(payload, 'success', 'failure') WHERE seq = ?").run(seq);
        db.close();
      },
    };
  },
});

describe("SQLite journal: opening", () => {
  it("a state dir that is a file, or a missing journal when one must exist, is a JournalOpenError naming the path", () => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-journal-"));
    const file = join(dir, "f");
    writeFileSync(file, "");
    expect(() => new SqliteJournal(file)).toThrow(JournalOpenError);
    // Said as runs says it (a new-user trial: "cannot open the journal …/journal.db: it is not a directory"), naming the file, also when it is above the state dir.
    expect(() => new SqliteJournal(file)).toThrow(`${file} is a file, not a state directory; move it aside, or give --state-dir another directory`);
    expect(() => new SqliteJournal(join(file, "sub"))).toThrow(`${file} is a file, not a state directory; move it aside, or give --state-dir another directory`);
    expect(() => new SqliteJournal(join(dir, "none"), { mustExist: true })).toThrow(`no journal in ${join(dir, "none")}`);
  });

  it("a file that is not a database is refused as damaged", () => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-journal-"));
    writeFileSync(join(dir, "journal.db"), "not a database at all, but long enough to be read as a header...".repeat(20));
    expect(() => new SqliteJournal(dir)).toThrow(/cannot open the journal .*journal\.db: the journal database is damaged/);
  });

  it("says where it is", async () => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-journal-"));
    const j = new SqliteJournal(dir);
    expect(j.location).toBe(join(dir, "journal.db"));
    expect(j.stateDir).toBe(dir);
    expect(j.notes).toEqual([]);
    await j.close();
  });
});

describe("SQLite journal: a torn write-ahead log is noticed", () => {
  /** A WAL of `frames` whole frames of `pageSize`, plus `stray` bytes. */
  function wal(dir: string, pageSize: number, frames: number, stray: number): string {
    const header = Buffer.alloc(32);
    header.writeUInt32BE(0x377f0682, 0);
    header.writeUInt32BE(3007000, 4);
    header.writeUInt32BE(pageSize, 8);
    const db = join(dir, "journal.db");
    writeFileSync(db, "");
    writeFileSync(`${db}-wal`, Buffer.concat([header, Buffer.alloc(frames * (24 + pageSize) + stray)]));
    return db;
  }

  it("a tail shorter than a frame, or than the header, is reported; a whole log, an empty or absent one is not", () => {
    const dir = () => mkdtempSync(join(tmpdir(), "criteria-wal-"));
    expect(tornWalTail(wal(dir(), 4096, 2, 100))).toBe("journal: the last write to the write-ahead log was torn (100 stray bytes); recovered to the last whole commit");
    expect(tornWalTail(wal(dir(), 4096, 2, 0))).toBeUndefined();
    expect(tornWalTail(wal(dir(), 256, 1, 7))).toBeUndefined(); // not a page size SQLite writes: not judged
    const short = dir();
    writeFileSync(join(short, "journal.db"), "");
    writeFileSync(join(short, "journal.db-wal"), Buffer.alloc(10));
    expect(tornWalTail(join(short, "journal.db"))).toBe("journal: the write-ahead log is torn (10 bytes, shorter than its header); recovered to the last whole commit");
    const empty = dir();
    writeFileSync(join(empty, "journal.db"), "");
    writeFileSync(join(empty, "journal.db-wal"), "");
    expect(tornWalTail(join(empty, "journal.db"))).toBeUndefined();
    expect(tornWalTail(join(dir(), "journal.db"))).toBeUndefined();
    // A log without its database is not judged either.
    const lone = dir();
    writeFileSync(join(lone, "journal.db-wal"), Buffer.alloc(10));
    expect(tornWalTail(join(lone, "journal.db"))).toBeUndefined();
  });
});

describe("SQLite journal: group commit (appendGroup)", () => {
  const spawned = (run: string) => ({ run_id: run, step_id: "", attempt: 0, entry_type: "run.spawned" as const, at_ms: 1, payload: { workflow: "w", inputs: {}, spec_hash: "h" } });
  const signal = (name: string) => ({ run_id: "r", step_id: "", attempt: 0, entry_type: "signal.received" as const, at_ms: 2, payload: { name } });

  it("writes the appends in order in one commit; one refused leaves the others, and the rest of the group goes on", async () => {
    const j = new SqliteJournal(mkdtempSync(join(tmpdir(), "criteria-journal-")));
    try {
      await j.append("r", [spawned("r")]);
      const posted = await j.append("r", [{ run_id: "r", step_id: "p", attempt: 1, entry_type: "effect.recorded", at_ms: 3, payload: { idempotency_key: "k", visit: 1, adapter: "channel", kind: "post", channel: "c", message: { id: "m1", from: "a", to: "b", body: "hi" } } }]);
      const take = (key: string) => ({
        entries: [{ run_id: "r", step_id: key, attempt: 1, entry_type: "effect.confirmed" as const, at_ms: 4, payload: { idempotency_key: key, visit: 1, outcome: "received", output: {}, reason: "ok" as const, received: { channel: "c", as: "b", id: "m1" } } }],
        opts: { takes: { id: "m1", after: posted[0].seq } },
      });
      // The second take of one message is refused in the group; the signals around it are written.
      const results = await j.appendGroup("r", [{ entries: [signal("one")] }, take("x"), take("y"), { entries: [signal("two")], opts: { sync: false } }]);
      expect(results.map((r) => (r instanceof Error ? r.constructor.name : r.map((e) => e.entry_type)))).toEqual([["signal.received"], ["effect.confirmed"], "MessageTakenError", ["signal.received"]]);
      const seqs = results.filter((r): r is JournalEntry[] => !(r instanceof Error)).map((r) => r[0].seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect((await j.read("r")).entries.map((e) => `${e.entry_type} ${e.step_id}`)).toEqual(["run.spawned ", "effect.recorded p", "signal.received ", "effect.confirmed x", "signal.received "]);
    } finally {
      await j.close();
    }
  });

  it("a commit that fails fails every append of the group, and writes none of them", async () => {
    const j = new SqliteJournal(mkdtempSync(join(tmpdir(), "criteria-journal-")));
    try {
      await j.append("r", [spawned("r")]);
      // An entry that cannot be written (its payload has no JSON form): the whole transaction is rolled back.
      const bad = { run_id: "r", step_id: "", attempt: 0, entry_type: "signal.received" as const, at_ms: 5, payload: { name: 10n as unknown as string } };
      const results = await j.appendGroup("r", [{ entries: [signal("a")] }, { entries: [bad] }]);
      expect(results.every((r) => r instanceof JournalWriteError)).toBe(true);
      expect((await j.read("r")).entries.map((e) => e.entry_type)).toEqual(["run.spawned"]);
    } finally {
      await j.close();
    }
  });
});
