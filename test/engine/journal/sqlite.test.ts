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
import { SqliteJournal } from "../../../engine/journal/sqlite-journal.js";
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
