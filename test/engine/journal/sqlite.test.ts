/**
 * The SQLite journal against the Journal contract (a real database file per test), and
 * what only the embedded store does: open errors, the torn write-ahead log note.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { JournalOpenError } from "../../../engine/journal/errors.js";
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
    expect(() => new SqliteJournal(file)).toThrow(`cannot open the journal ${join(file, "journal.db")}: it is not a directory`);
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
