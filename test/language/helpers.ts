/**
 * Runs `bin/criteria` as a real process on a fresh state directory and reads the
 * journal it wrote (a real SQLite file).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JournalEntry } from "../../engine/journal/entry.js";
import { SqliteJournal } from "../../engine/journal/sqlite-journal.js";

export const repo = join(import.meta.dirname, "..", "..");
export const shared = join(repo, "..", "shared", "criteria");
const bin = join(repo, "bin", "criteria");

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
  /** NDJSON events of `-o json`, parsed. */
  events: Record<string, unknown>[];
}

/** `criteria <args>` with CI unset (approvals and signals wait unless `--no-wait`). */
export function cli(args: string[], env: Record<string, string> = {}): CliResult {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", env: { ...process.env, CI: "", ...env }, timeout: 60_000 });
  const events: Record<string, unknown>[] = [];
  for (const l of r.stdout.split("\n")) {
    if (!l.startsWith("{") || !l.endsWith("}")) continue;
    try {
      events.push(JSON.parse(l) as Record<string, unknown>);
    } catch {
      // a line of pretty-printed JSON (validate --format json), not an event
    }
  }
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, events };
}

/** A fresh state directory. */
export function stateDir(): string {
  return mkdtempSync(join(tmpdir(), "criteria-lang-"));
}

/** Every journal entry of run `runId` (and its nested runs) in `state`. */
export async function journal(state: string, runId: string): Promise<JournalEntry[]> {
  const j = new SqliteJournal(state);
  try {
    return (await j.read(runId)).entries;
  } finally {
    await j.close();
  }
}

/** `criteria apply PATH -o json` with run id `r`; returns the result, its journal and the run.completed event. */
export async function apply(path: string, extra: string[] = [], env: Record<string, string> = {}) {
  const state = stateDir();
  const r = cli(["apply", path, "--state-dir", state, "--run-id", "r", "-o", "json", ...extra], env);
  const completed = r.events.find((e) => e.event === "run.completed");
  return { ...r, state, entries: await journal(state, "r"), completed };
}
