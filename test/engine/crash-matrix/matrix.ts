/**
 * The crash matrix (docs/architecture.md, The engine): the reference workflow runs in a real child process
 * that SIGKILLs itself right after journal entry N (CRITERIA_FAULT_KILL_AFTER_SEQ),
 * for every N from 1 to the last entry (an N committed with an earlier N's entry leaves the
 * same journal and is not run again); each run is resumed in a new process. Every
 * resumed run must end in the same state with the same outputs as an uninterrupted
 * run (its end pinned, its step and iteration records equal to an uninterrupted run's);
 * the journal before the resume ends with the commit holding entry N; every step line
 * written before the kill appears exactly once, and only the interrupted step's line
 * may appear twice (the documented at-least-once window: a step killed after its
 * process ran but before `effect.confirmed` was committed runs again).
 * One file per reference workflow (crash-*.test.ts) registers its matrix, so they run in
 * parallel; kills.test.ts holds the torn write and the orphaned processes.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { JournalEntry } from "../../../engine/journal/entry.js";
import { SqliteJournal } from "../../../engine/journal/sqlite-journal.js";

export const repo = join(import.meta.dirname, "..", "..", "..");
export const bin = join(repo, "bin", "criteria");
/**
 * The reference workflows: `crash_ref` (top-level steps, for_each, a count body) and
 * `crash_nested` (a subworkflow on a passed-in adapter and one of its own, a flow used
 * as an agent, an iterating subworkflow step) and `crash_v05` (data writes, while,
 * switch outputs), with the lines each writes.
 */
export const REFERENCES = [
  {
    name: "crash_ref",
    workflow: join(repo, "testdata", "engine", "crash_ref"),
    lines: ["prepare", "fan-a", "fan-b", "work-0", "check-0", "work-1", "check-1", "finish"],
    // Pinned, not taken from a reference run of the same binary: wrong-but-consistent outputs fail.
    // `steps`: what the run used of max_total_steps, the same however often it was killed.
    completed: { state: "done", success: true, reason: "ok", outputs: { summary: "ready\n/all-done\n" }, steps: 8 },
  },
  {
    name: "crash_nested",
    workflow: join(repo, "testdata", "engine", "crash_nested", "main.hcl"),
    lines: ["prepare", "stage-single-a", "stage-single-b", "helper-one", "helper-two", "stage-x-a", "stage-x-b", "stage-y-a", "stage-y-b", "finish"],
    completed: { state: "done", success: true, reason: "ok", outputs: { summary: "ready\n/helped: help with single/x,y/all-done\n" }, steps: 13 },
  },
  // v0.5: data writes, a while loop over a written value, a switch storing an output.
  {
    name: "crash_v05",
    workflow: join(repo, "testdata", "engine", "crash_v05", "main.hcl"),
    lines: ["seed", "drain-0", "drain-1", "drain-2", "finish-drained"],
    completed: { state: "done", success: true, reason: "ok", outputs: { left: 0 }, steps: 6 },
  },
];

/** Most entries one journal commit holds (an attempt's effect confirmation and its completion, ...). */
export const MAX_ENTRIES_PER_COMMIT = 3;

export function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", env: { ...process.env, ...env }, timeout: 60_000 });
}

export async function final(stateDir: string, runId: string) {
  const j = new SqliteJournal(stateDir);
  try {
    const entries = (await j.read(runId)).entries;
    const done = entries.find((e) => e.run_id === runId && e.entry_type === "run.completed");
    return { entries, completed: done?.payload };
  } finally {
    await j.close();
  }
}

export function lines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
}

/**
 * Every step and iteration record of a run tree (which step, which item, outcome,
 * output, data written), without run ids and times, sorted: what a resumed run must
 * reproduce besides its end.
 */
export function records(entries: JournalEntry[]): string[] {
  return entries
    .filter((e) => e.entry_type === "step.completed" || e.entry_type === "iteration.completed" || e.entry_type === "branch.taken")
    .map((e) => {
      const { at_ms: _at, ...payload } = e.payload as Record<string, unknown>;
      return JSON.stringify([e.entry_type, e.step_id, payload]);
    })
    .sort();
}

/** An uninterrupted run of a reference workflow: its end, its records and how many entries it journals. */
export async function referenceRun(workflow: string, LINES: string[]): Promise<{ completed: unknown; records: string[]; count: number; effects: number }> {
  const dir = mkdtempSync(join(tmpdir(), "criteria-ref-"));
  const log = join(dir, "log.txt");
  // The same run id as the killed runs (in its own state directory): child run ids, which
  // the records name, derive from it.
  const r = cli(["apply", workflow, "--var", `log=${log}`, "--state-dir", join(dir, "state"), "--run-id", "r", "--output", "json"]);
  expect(r.status, r.stderr).toBe(0);
  const f = await final(join(dir, "state"), "r");
  expect(lines(log)).toEqual(LINES);
  return { completed: f.completed, records: records(f.entries), count: f.entries.length, effects: f.entries.filter((e) => e.entry_type === "effect.recorded").length };
}

/** A run of `workflow` in a fresh directory with the fault injection `env`: the first process, then its journal and lines. */
export async function faulted(workflow: string, env: NodeJS.ProcessEnv, tag: string) {
  const dir = mkdtempSync(join(tmpdir(), `criteria-${tag}-`));
  const log = join(dir, "log.txt");
  const state = join(dir, "state");
  const first = cli(["apply", workflow, "--var", `log=${log}`, "--state-dir", state, "--run-id", "r", "--output", "json"], env);
  return { log, state, first, before: await final(state, "r"), linesBefore: lines(log) };
}

/**
 * Resumes run "r" of `state` when it was killed, then checks that it ended as pinned
 * with the uninterrupted run's step and iteration records. Returns the lines written.
 */
export async function resumeToTheEnd(run: Awaited<ReturnType<typeof faulted>>, killed: boolean, what: string, completed: unknown, reference: { records: string[] }): Promise<string[]> {
  if (killed) {
    const again = cli(["resume", "r", "--state-dir", run.state, "--output", "json"]);
    expect(again.status, `resume after ${what}: ${again.stderr}\n${again.stdout}`).toBe(0);
  }
  const after = await final(run.state, "r");
  expect(after.completed, what).toEqual(completed);
  expect(records(after.entries), `${what}: step and iteration records`).toEqual(reference.records);
  return lines(run.log);
}

/** Registers the crash matrix of one reference workflow: a kill after every effect, and after every journal entry. */
export function crashMatrix({ name, workflow, lines: LINES, completed: COMPLETED }: (typeof REFERENCES)[number]): void {
describe(`crash matrix: ${name}`, () => {
  let reference: { completed: unknown; records: string[]; count: number; effects: number };
  beforeAll(async () => {
    reference = await referenceRun(workflow, LINES);
  }, 120_000);

  // The window no journal entry marks: the effect ran, its confirmation was not written.
  it("resumes to the same end from a kill after every effect, before its confirmation", async () => {
    expect(reference.effects).toBeGreaterThan(0);
    let repeated = 0;
    for (let n = 1; n <= reference.effects; n++) {
      const run = await faulted(workflow, { CRITERIA_FAULT_KILL_AFTER_EFFECT: String(n) }, `effect-${n}`);
      expect(run.first.signal, `effect ${n}: ${run.first.stderr}`).toBe("SIGKILL");
      const confirmed = run.before.entries.filter((e) => e.entry_type === "effect.confirmed").length;
      const recorded = run.before.entries.filter((e) => e.entry_type === "effect.recorded").length;
      expect(recorded, `effect ${n}: the effect was recorded, not confirmed`).toBeGreaterThan(confirmed);
      const linesBefore = run.linesBefore;
      const got = await resumeToTheEnd(run, true, `effect ${n}`, COMPLETED, reference);
      for (const l of LINES) expect(got.filter((x) => x === l).length, `effect ${n}: ${l} in ${JSON.stringify(got)}`).toBeGreaterThanOrEqual(1);
      // Only effects that ran unconfirmed may run again: their lines are the last ones written.
      const unconfirmed = new Set(linesBefore.slice(confirmed));
      for (const l of new Set(got)) {
        const c = got.filter((x) => x === l).length;
        if (c > 1) {
          expect(unconfirmed.has(l), `effect ${n}: ${l} ran twice but was confirmed (${JSON.stringify(got)})`).toBe(true);
          expect(c).toBe(2);
          repeated++;
        }
      }
    }
    // The at-least-once window was exercised, not only allowed.
    expect(repeated).toBeGreaterThan(0);
    console.log(`crash matrix ${name}: ${reference.effects} kill points after an effect, ${repeated} effects ran again`);
  }, 600_000);

  it("the uninterrupted run ends as pinned", () => {
    expect(reference.completed).toEqual(COMPLETED);
  });

  it("resumes to the same end from a kill after every journal entry", async () => {
    let covered = 0;
    /** The distinct journals a kill left (by their last entry): commits of several entries make fewer than kill points. */
    const states = new Set<number>();
    let skipped = 0;
    for (let n = 1; n <= reference.count; n++) {
      // An entry committed with an earlier kill point's entry (one commit holds up to
      // MAX_ENTRIES_PER_COMMIT) is killed after at the end of that same commit: the same
      // journal, already resumed from. Not run again (a third of the matrix's processes).
      if (n <= Math.max(0, ...states)) {
        skipped++;
        continue;
      }
      const run = await faulted(workflow, { CRITERIA_FAULT_KILL_AFTER_SEQ: String(n) }, `crash-${n}`);
      const killed = run.first.signal === "SIGKILL";
      if (n < reference.count) expect(killed, `kill point ${n}: ${run.first.stderr}`).toBe(true);
      const before = run.before;
      // The kill happened at entry n: the journal ends with the commit that holds it.
      const last = before.entries.length === 0 ? 0 : before.entries[before.entries.length - 1].seq;
      if (killed) {
        expect(before.entries.map((e) => e.seq), `kill point ${n}: entries 1..${last} all there`).toEqual(Array.from({ length: last }, (_, i) => i + 1));
        expect(last, `kill point ${n}: the journal ends at ${last}`).toBeGreaterThanOrEqual(n);
        expect(last, `kill point ${n}: the journal ends at ${last}`).toBeLessThan(n + MAX_ENTRIES_PER_COMMIT);
        states.add(last);
      }
      const confirmedBefore = new Set(before.entries.filter((e) => e.entry_type === "effect.confirmed").map((e) => (e.payload as { idempotency_key: string }).idempotency_key));
      const linesBefore = run.linesBefore;
      const got = await resumeToTheEnd(run, killed, `kill point ${n}`, COMPLETED, reference);
      // Every expected line is there; none more than twice; at most one line twice.
      for (const l of LINES) {
        const c = got.filter((x) => x === l).length;
        expect(c, `kill point ${n}: line ${l} in ${JSON.stringify(got)}`).toBeGreaterThanOrEqual(1);
        expect(c).toBeLessThanOrEqual(2);
      }
      expect(got.length - LINES.length, `kill point ${n}: ${JSON.stringify(got)}`).toBeLessThanOrEqual(1);
      // A line whose effect was confirmed before the kill appears exactly once; the one
      // line that may appear twice is the interrupted step's: written, not yet confirmed.
      const confirmedLines = linesBefore.length - (linesBefore.length > confirmedBefore.size ? 1 : 0);
      for (const l of linesBefore.slice(0, confirmedLines)) expect(got.filter((x) => x === l).length, `kill point ${n}: ${l}`).toBe(1);
      const interrupted = linesBefore.length > confirmedLines ? linesBefore[linesBefore.length - 1] : undefined;
      for (const l of new Set(got)) {
        if (got.filter((x) => x === l).length > 1) expect(l, `kill point ${n}: only the interrupted step's line may repeat (${JSON.stringify(got)})`).toBe(interrupted);
      }
      covered++;
    }
    expect(covered + skipped).toBe(reference.count);
    console.log(`crash matrix ${name}: ${reference.count} kill points, ${covered} run (${states.size} killed, each a distinct journal state), ${skipped} committed with an earlier one and not run again`);
  }, 600_000);
});
}
