import type { Value } from "../../compiler/expr/value.js";

/**
 * Adapters: plugin types whose sessions execute steps (docs/architecture.md, The engine:
 * adapters have sessions, opened once per scope, closed last-in first-out). Built in: noop,
 * shell, local, and the agent CLIs; any other type is an out-of-process executable
 * `criteria-adapter-<type>` speaking NDJSON over stdio.
 */

/** What one step execution receives. All values are already evaluated. */
export interface StepRequest {
  run_id: string;
  /** The step's name. */
  step: string;
  /** 1-based attempt number of this visit (retries and crash recovery increase it). */
  attempt: number;
  /** 1-based visit number of the step in its run (a flat loop revisits a step). */
  visit: number;
  /** sha256(run_id ‖ step_id ‖ iteration): the same on every retry of the same work. */
  idempotency_key: string;
  /** The step's evaluated `input`. */
  input: Record<string, Value>;
  /** Kill the execution after this long (ms); undefined = no limit. */
  timeout_ms?: number;
  /** Extra environment variables for processes (from the step's environment). */
  env: Record<string, string>;
  /** Tools an agent may use (step allow_tools ∪ permissions.allow_tools). */
  allow_tools: string[];
  /** The agent the step targets, when it targets one. */
  agent?: { name: string; model?: string; config: Record<string, Value> };
  /** The step's declared outcome names, so agents can choose one. */
  outcomes: string[];
  /** The nearest iteration item: the step's own (count/for_each/parallel) or its enclosing body's. */
  each?: { index: number; total: number; key: Value; value: Value };
  /** Aborted when the run is cancelled or the step times out. */
  signal: AbortSignal;
}

/** Closed list of why a step ended as it did (journal `step.completed.reason`). */
export type Reason =
  | "ok"
  | "adapter_failed"
  | "adapter_error"
  | "timeout"
  | "crashed"
  | "policy_exceeded"
  | "child_failed"
  /** The run reached a state with `success = false`. */
  | "failure_state"
  | "unknown_outcome"
  | "eval_error"
  | "rejected"
  | "cancelled";

/** What a step execution returns. */
export interface StepResult {
  /** The outcome chosen: `success`/`failure` for processes, any declared name for agents. */
  outcome: string;
  /** Values exposed as `steps.<name>.<key>` (stdout, exit_code, answer, ...). */
  output: Record<string, Value>;
  /** Why, when not `ok`. */
  reason: Reason;
  /** A human-readable detail for failures (stderr tail, error message). */
  detail?: string;
}

/** An open session of an adapter: executes steps until closed. */
export interface Session {
  execute(req: StepRequest): Promise<StepResult>;
  /** Releases the session's resources; called once, LIFO with its siblings. */
  close(): Promise<void>;
}

/** What opening a session knows. */
export interface SessionContext {
  run_id: string;
  /** `<type>.<name>` of the adapter declaration. */
  adapter_id: string;
  /** Directory the workflow's relative paths resolve against (the workflow's directory). */
  base_dir: string;
  /** Where criteria keeps state (journal, scratch files). */
  state_dir: string;
  /**
   * Where the adapter's own diagnostic lines go (a plugin's stderr), one line per call:
   * the run masks its secrets in them before showing them. Absent: process.stderr.
   */
  log?: (line: string) => void;
  /**
   * Aborted when the run's sessions close while this one may still be opening (the run
   * ended, or the step that asked for it gave up at its timeout): an adapter whose `open`
   * waits for anything (a plugin's handshake) stops waiting, and leaves the session broken.
   */
  signal?: AbortSignal;
}

/** A plugin type. */
export interface Adapter {
  type: string;
  /**
   * True when executing may change the world (shell, agents): the runner journals the
   * attempt before executing, so a crash is seen as `crashed`. False (noop): the attempt
   * and its completion are journaled together, in one transaction.
   */
  effectful: boolean;
  /**
   * True when a session keeps nothing between steps (each step is a process or a
   * computation of its own: shell, noop), so a fresh session with the same config behaves
   * the same. A child run that inherits only such sessions from its caller may be
   * advanced in a job of its own, on another worker (the scale-out issue, item 4); one
   * that inherits any other (an agent's conversation, a plugin's process) stays in its
   * caller's job. Absent: false.
   */
  stateless?: boolean;
  open(config: Record<string, Value>, ctx: SessionContext): Promise<Session>;
}
