import { shown } from "../compiler/diagnostics/control-pictures.js";
import { CliError, EXIT, type Io } from "./io.js";

/** The engine, loaded when a run command starts (`validate` never loads SQLite). */
export const engine = () => import("../engine/index.js");

/** How a run command ended: its exit code (cli/io.ts `EXIT`) and what to say. */
export interface SessionEnd {
  code: number;
  /** `succeeded`, `failed`, `stopped` (resumable), `parked`, or `error` (nothing ran, or not to its end). */
  status: "succeeded" | "failed" | "stopped" | "parked" | "submitted" | "error";
  run_id?: string;
  message?: string;
}

/**
 * Runs one run command (`apply`, `resume`) as a pipeline expects:
 * - SIGINT, SIGTERM and SIGHUP are handled for the whole command: the first stops the run
 *   where it stands (resumable) and signals the steps' process groups; every further one
 *   SIGKILLs those groups at once, and the second ends the process 2 s later if the run has
 *   not stopped by then (a journal that does not answer — a database frozen, not down — kept
 *   it waiting for good: a new-user trial; Terraform's second interrupt likewise exits).
 *   Nothing criteria started outlives it.
 * - Every refusal and failure becomes an exit code of the one table and one line
 *   (`criteria: ...` on stderr), never a stack trace; with `json`, one final NDJSON event
 *   `{"event":"exit","code","status","run_id"?,"message"?}` ends the stream, whatever the ending.
 *
 * @param fn the command; returns how it ended, or throws an engine or CLI error
 * @param place the options that name the run's journal again in a suggested command (` --store …`), once known
 * @returns the exit code
 */
export async function runSession(io: Io, json: boolean, fn: (signal: AbortSignal) => Promise<SessionEnd>, place: () => string = () => ""): Promise<number> {
  const { RunInterrupted, RunLockedError, RunRefused, RunParked, RunSubmitted, JournalError, JournalWriteError, LeaseLostError, killLiveProcessGroups } = await engine();
  const ctl = new AbortController();
  let signals = 0;
  // The steps' process groups do not see the terminal's signals themselves: pass them on.
  let ended = false;
  const onSignal = () => {
    signals++;
    if (signals === 1) {
      ctl.abort();
      killLiveProcessGroups("SIGTERM");
      return;
    }
    killLiveProcessGroups("SIGKILL");
    if (signals === 2 && io.exit) {
      setTimeout(() => {
        if (ended) return;
        io.err("criteria: stopped at a second interrupt, without waiting for the journal, which does not answer: what it holds stands, and criteria resume continues the run\n");
        io.exit?.(EXIT.stopped);
      }, 2000).unref();
    }
  };
  const names = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
  for (const n of names) process.on(n, onSignal);
  let end: SessionEnd;
  try {
    end = await fn(ctl.signal);
  } catch (e) {
    const runId = (e as { runId?: string }).runId;
    if (e instanceof RunInterrupted) {
      // Stopped while it waited on a store with workers: what it waits for wakes them (a new-user trial: only resume was said).
      const woken = e.waiting.length > 0 ? `; it waited for ${e.waiting.join(", ")}: given, the workers sharing its store go on with it` : "";
      end = { code: EXIT.stopped, status: "stopped", run_id: e.runId, message: `run ${e.runId} stopped before its end${woken}; continue it with criteria resume ${e.runId}${place()}` };
    } else if (e instanceof RunSubmitted) end = { code: EXIT.ok, status: "submitted", run_id: e.runId, message: e.message };
    else if (e instanceof RunParked) end = { code: EXIT.parked, status: "parked", run_id: e.runId, message: e.message };
    else if (e instanceof RunLockedError) {
      // What to do next, said (found by a new-user trial): a nested run's lease is taken over
      // with its root's resume (run ids hold no "/" but a nested run's path).
      const root = e.runId.split("/")[0];
      end = { code: EXIT.problems, status: "error", run_id: runId, message: `${e.message}; refusing to run it twice: let that process end, or take the run over with criteria resume ${root} --force${place()} (that process can then no longer write)` };
    }
    // What next, said (a new-user trial: nothing did): the run may be another's now, or nobody's.
    else if (e instanceof LeaseLostError) end = { code: EXIT.stopped, status: "stopped", run_id: runId, message: `${e.message}; criteria runs${place()} says who holds it now` };
    else if (e instanceof JournalWriteError) end = { code: EXIT.stopped, status: "stopped", run_id: runId, message: `${e.message}; the journal holds everything before it: criteria resume${runId ? ` ${runId}` : ""}${place()} continues` };
    else if (e instanceof RunRefused) end = { code: e.usage ? EXIT.usage : EXIT.problems, status: "error", run_id: runId, message: e.message };
    else if (e instanceof JournalError) end = { code: EXIT.problems, status: "error", run_id: runId, message: e.message };
    else if (e instanceof CliError) end = { code: e.exitCode, status: "error", message: e.message };
    else throw e;
  } finally {
    ended = true;
    for (const n of names) process.off(n, onSignal);
    killLiveProcessGroups("SIGKILL");
  }
  if (json) io.out(JSON.stringify({ event: "exit", code: end.code, status: end.status, ...(end.run_id ? { run_id: end.run_id } : {}), ...(end.message ? { message: end.message } : {}) }) + "\n");
  if (end.status === "submitted") {
    if (!json) io.out(`${end.message}\n`);
  } else if (end.message && end.status !== "succeeded" && end.status !== "failed") io.err(`criteria: ${shown(end.message, true)}\n`);
  return end.code;
}
