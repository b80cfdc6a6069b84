import type { Value } from "../../compiler/expr/value.js";
import type { Reason } from "../adapters/adapter.js";

/**
 * Journal entries (docs/architecture.md, The engine: the journal is truth): append-only
 * `{seq, run_id, step_id, attempt, entry_type, at_ms, payload}`, stored as canonical
 * JSON. `seq` is global and gap-free in the store; `at_ms` is milliseconds since the
 * epoch from the runner's injectable clock. The payload shape is fixed per type.
 */
export interface JournalEntry<T extends EntryType = EntryType> {
  seq: number;
  run_id: string;
  /** The step (or node) the entry is about; "" for run-level entries. */
  step_id: string;
  /** Attempt number (0 for entries that are not about an attempt). */
  attempt: number;
  entry_type: T;
  at_ms: number;
  payload: Payloads[T];
}

/** A new entry before the store gives it a `seq`. */
export type NewEntry = { [T in EntryType]: Omit<JournalEntry<T>, "seq"> }[EntryType];

/** Payload shape of each entry type. */
export interface Payloads {
  /** A run (root or nested) begins. */
  "run.spawned": {
    workflow: string;
    /** sha256 of the compiled graph's canonical JSON: resume refuses a changed workflow. */
    spec_hash: string;
    identity?: string;
    parent_run_id?: string;
    parent_step_id?: string;
    /** Iteration index within the parent step, for bodies. */
    iteration?: number;
    /**
     * Only on the root: variables that are secrets. Their values are never journaled
     * (masked in `inputs`); `resume` takes them again from `--var` or `CRITERIA_VAR_<name>`.
     */
    secret_variables?: string[];
    /** Variables given to the run (root, or a subworkflow's bindings); `{}` for a body. */
    inputs: Record<string, Value>;
    /** The `input` namespace: `apply --input`, or the step input a flow used as an agent is called with. */
    input?: Record<string, Value>;
    /** How the run was called: `body`, `subworkflow` or `flow` (absent on the root). */
    call?: "body" | "subworkflow" | "flow";
    /**
     * A child run advanced in a job of its own, under its own lease (workers; the scale-out
     * issue, item 4): its parent parks until its `run.completed`, which wakes the parent's job.
     */
    detached?: boolean;
    each?: { index: number; total: number; key: Value; value: Value; prev?: Value };
    /** Only on the root: the compiled graph, so `resume` needs no source files. */
    graph?: unknown;
    /** Only on the root: the directory relative paths resolve against (adapters' base_dir). */
    base_dir?: string;
    /** Only on the root: the same, relative to the journal's directory (found again after the checkout moved). */
    base_dir_rel?: string;
    /**
     * Only on the root: the directory the graph's positions (`file:line:col`) are relative to
     * — where the run was applied from — relative to `base_dir`; a resume from elsewhere
     * shows them relative to its own directory (engine/run/positions.ts).
     */
    positions_rel?: string;
    /**
     * Only on the root, when started from files: the PATH relative to `base_dir`, a hash of
     * every file read, and the `--root` and allowed paths modules came from (relative to `base_dir`).
     */
    source?: { entry: string; hash: string; root?: string; allowed?: string[] };
  };
  /**
   * Only on a root run: its workflow's directory is `base_dir` from now on (an absolute
   * path), where `run.spawned` said another (`criteria resume RUN --workdir DIR`, the
   * checkout moved). Appended by the process that resumes it, or without a lease by
   * `resume --detach --workdir`, so the workers that advance it look there (the scale-out
   * issue: `--workdir` did not reach them). The last one counts.
   */
  "run.relocated": { base_dir: string };
  /**
   * Only on a root run: `criteria resume RUN --discard-damaged` set aside the tree's entries
   * from `from_seq` on (`entries` of them: the damaged one and all after it; the journal's
   * quarantine table keeps them), and the `steps` they had finished run again. Appended
   * right after, by the resume that did it, so the record says what was dropped and when
   * (found by a new-user trial: nothing in the journal showed it).
   */
  "run.damage_discarded": { from_seq: number; entries: number; steps: string[] };
  /**
   * A memory pack recalled for a run whose header sets `memory { script = true }` (seed
   * 000, A3), before its first step, which consumes it. Resume re-uses it, never recalls.
   */
  "memory.injected": { consuming_step_id: string; identity: string; query: string; items: MemoryItem[]; bytes: number; budget_bytes: number };
  /** An attempt at a step visit begins (for effectful adapters, before executing). */
  "step.attempt.started": { idempotency_key: string; visit: number; iteration?: number; adapter?: string };
  /** An interrupted attempt found on resume: the process running it died before its result. */
  "step.attempt.crashed": { idempotency_key: string; visit: number; iteration?: number };
  /** An attempt stopped on purpose (a signal to criteria, the timeout of a step around it) before its result. */
  "step.attempt.interrupted": { idempotency_key: string; visit: number; iteration?: number; cause: "signal" | "timeout" };
  /**
   * An effect is about to happen: an effectful adapter is about to be invoked (`kind`
   * absent or `adapter`), or a channel step posts a message (`post`: the message, which
   * recording delivers to the embedded broker) or starts receiving one (`recv`: who
   * receives, from whom, until when). One effect protocol for all three (the channels issue).
   */
  "effect.recorded": {
    idempotency_key: string;
    adapter: string;
    visit: number;
    iteration?: number;
    kind?: "adapter" | "post" | "recv";
    channel?: string;
    /** The run that declares the channel: channels of one name in different runs (a module, a body's items) are different channels. */
    channel_scope?: string;
    message?: ChannelMessage;
    recv?: { as: string; from?: string; until_ms: number };
  };
  /**
   * The effect's result is final; resume re-uses it and never re-executes. A channel
   * receive names the message it took (`received`): no receive takes it again.
   */
  "effect.confirmed": {
    idempotency_key: string;
    visit: number;
    iteration?: number;
    outcome: string;
    output: Record<string, Value>;
    reason: Reason;
    detail?: string;
    received?: { channel: string; scope?: string; as: string; id: string };
  };
  /** One item of an iterating step finished. */
  "iteration.completed": {
    visit: number;
    index: number;
    outcome: string;
    success: boolean;
    output: Record<string, Value>;
    child_run_id?: string;
    child_state?: string;
    reason: Reason;
    /** Why a policy stop (`reason` policy_exceeded) stopped the item: its child run's limit, as said. */
    detail?: string;
    /** The item's own outcome took effect: its `write` blocks and `shared_writes`, as applied. */
    data?: Record<string, Value>;
    shared?: Record<string, Value>;
    /** The item's outcome leads elsewhere than `_continue`: the loop ends and the step takes that outcome. */
    exit?: string;
    /** That outcome leads to `return` with an `output` projection: the projection alone (at the top level, the run's outputs). */
    projection?: Record<string, Value>;
  };
  /** A step visit finished: the outcome taken and the node it leads to. */
  "step.completed": {
    visit: number;
    outcome: string;
    next: string;
    output: Record<string, Value> | Record<string, Value>[];
    reason: Reason;
    detail?: string;
    child_run_ids?: string[];
    /** The final state of each child run, in the order of `child_run_ids`. */
    child_states?: string[];
    shared?: Record<string, Value>;
    /** `write` blocks of the outcome taken, as applied (converted to their types). */
    data?: Record<string, Value>;
    /** When `next` is `return`: the outcome's `output` projection (a top-level return makes it the run's outputs). */
    projection?: Record<string, Value>;
  };
  /** A branch chose an arm (`arm` -1: the default); `output` is what the arm stored as `steps.<node>`. */
  "branch.taken": { visit: number; arm: number; next: string; output?: Record<string, Value> };
  "wait.started": { visit: number; until_ms?: number; signal?: string };
  "wait.completed": { visit: number; outcome: string; next: string; signal_seq?: number; signal_payload?: Value };
  "approval.requested": { visit: number; approvers: string[]; reason?: string; until_ms?: number };
  "approval.decided": { visit: number; decision: "approved" | "rejected" | "timeout"; by?: string; outcome: string; next: string; signal_seq?: number };
  /** A signal or decision delivered from outside (`criteria signal`, `approve`, `reject`). */
  "signal.received": { name: string; payload?: Value; by?: string };
  /** The run ended. */
  "run.completed": {
    state: string;
    success: boolean;
    reason: Reason;
    detail?: string;
    outputs: Record<string, Value>;
    /** A nested run without `output` blocks: its steps' outputs merged, which its caller reads. */
    result?: Record<string, Value>;
    /** What the run and the runs it started used of the root's `max_total_steps` (absent in journals written before it was kept). */
    steps?: number;
  };
}

/**
 * A message posted on a channel: its id is deterministic (the posting step's idempotency
 * key and its sequence in the step), so a post made again after a crash is the same message.
 */
export interface ChannelMessage {
  id: string;
  from: string;
  to: string;
  body: Value;
}

/** One earlier run's outputs recalled into a memory pack. */
export interface MemoryItem {
  run_id: string;
  at_ms: number;
  text: string;
}

/** Every entry type. */
export type EntryType = keyof Payloads;
