import type { Value } from "../../compiler/expr/value.js";
import type { Reason } from "../adapters/adapter.js";

/**
 * Progress events of a run, for the CLI (live progress on a TTY, NDJSON when piped or
 * with `--output json`). Events describe; the journal is the record.
 */
export type RunEvent = { at_ms?: number } & (
  | { event: "run.started" | "run.resumed"; run_id: string; workflow: string }
  | { event: "run.completed"; run_id: string; state: string; success: boolean; reason: Reason; detail?: string; outputs: Record<string, Value> }
  | { event: "step.started"; run_id: string; step: string; visit: number }
  | {
      event: "step.completed";
      run_id: string;
      step: string;
      visit: number;
      outcome: string;
      next: string;
      reason: Reason;
      detail?: string;
      /** Where the step is declared (`file:line:col`), on a step that failed (found by a new-user trial: an adapter's failure said no place). */
      at?: string;
      ms: number;
      /** The step's output when its JSON is at most 8 KiB; else `output_bytes` says how big it is. */
      output?: Value;
      output_bytes?: number;
    }
  /**
   * An item ended: `index` from 0 of `total` (-1 for a `while` loop), `key` when it is a map's;
   * `at`: where the step is declared, on an item that failed (as a failed step's).
   */
  | { event: "iteration.completed"; run_id: string; step: string; index: number; total: number; key?: string; outcome: string; success: boolean; reason: Reason; detail?: string; at?: string; exit_code?: number }
  | { event: "branch.taken"; run_id: string; node: string; next: string; arm: number }
  /** `outcomes`: the wait's, when a signal must name one of them (it routes no plain `received`). */
  | { event: "wait.started"; run_id: string; node: string; until_ms?: number; signal?: string; outcomes?: string[] }
  /**
   * A wait ended: its signal received (`signal` set: the outcome its payload named, or
   * `received`), `timeout` or `elapsed` (no `signal`).
   */
  | { event: "wait.completed"; run_id: string; node: string; outcome: string; next: string; signal?: string }
  | { event: "approval.requested"; run_id: string; node: string; approvers: string[]; reason?: string }
  | { event: "approval.decided"; run_id: string; node: string; decision: string }
  | { event: "warning"; run_id: string; message: string }
  /** What a worker did with a run (`criteria worker`): advanced it, parked it, handed it back. */
  | { event: "worker.note"; run_id: string; message: string }
);
