/**
 * Helpers for the pipeline tests: the real CLI in a real child process, real
 * signals and pipes, real journal files.
 */
import Database from "better-sqlite3";
import { spawn, spawnSync, type SpawnSyncReturns } from "node:child_process";
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JournalEntry } from "../../engine/journal/entry.js";
import { SqliteJournal } from "../../engine/journal/sqlite-journal.js";

export const repo = join(import.meta.dirname, "..", "..");
export const bin = join(repo, "bin", "criteria");

/** A fresh temporary directory (real path). */
export function temp(prefix = "criteria-pipe-"): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

/** Runs the CLI to its end. */
export function cli(args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string } = {}): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", env: { ...process.env, CI: "", ...opts.env }, cwd: opts.cwd, input: opts.input ?? "", timeout: 60_000 });
}

/** Starts the CLI in its own process group; resolves with the child. */
export function start(args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}) {
  return spawn(process.execPath, [bin, ...args], { env: { ...process.env, CI: "", ...opts.env }, cwd: opts.cwd, detached: true, stdio: ["ignore", "pipe", "pipe"] });
}

/** A run's journal entries (its whole tree). */
export async function entries(stateDir: string, runId: string): Promise<JournalEntry[]> {
  const j = new SqliteJournal(stateDir);
  try {
    return (await j.read(runId)).entries;
  } finally {
    await j.close();
  }
}

/** Waits until `cond` holds (polling), or fails after `ms`. */
export async function until(cond: () => boolean, ms = 15_000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The NDJSON lines of a command's stdout. */
export function ndjson(stdout: string): Record<string, unknown>[] {
  return stdout
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/**
 * Damages one journal entry of `state` in place (its checksum no longer matches): the first
 * entry matching `where` (SQL), its payload's `from` replaced by `to`. Returns its seq.
 */
export function damage(state: string, where: string, from: string, to: string): number {
  const db = new Database(join(state, "journal.db"));
  try {
    const row = db.prepare(`SELECT seq, payload FROM journal WHERE ${where}`).get() as { seq: number; payload: string };
    db.prepare("UPDATE journal SET payload = ? WHERE seq = ?").run(row.payload.replace(from, to), row.seq);
    return row.seq;
  } finally {
    db.close();
  }
}
