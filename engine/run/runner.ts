import { createHash } from "node:crypto";
import { setMaxListeners } from "node:events";
import { afterEffect } from "./fault.js";
import { dirname, relative, resolve as resolvePath } from "node:path";
import { DEFAULT_POLICY, type Graph, type GraphExpr, type GraphStep } from "../../compiler/build/graph.js";
import { STEP_WIDE_OUTCOMES } from "../../compiler/decode/spec.js";
import { expectedOf } from "../../compiler/build/graph-edges.js";
import { parseType } from "../../compiler/decode/types.js";
import type { FunctionTable, Value } from "../../compiler/expr/value.js";
import { itemLabel } from "./item-label.js";
import type { Adapter, Reason, StepRequest, StepResult } from "../adapters/adapter.js";
import type { JournalEntry, NewEntry, Payloads } from "../journal/entry.js";
import { applyEntry, channelKey, foldEntries, RETRYABLE, signalFor, waitingIn, type RunRecord, type TreeRecord } from "../journal/fold.js";
import type { AppendOptions, Journal } from "../journal/journal.js";
import { JournalReadError, JournalWriteError, LeaseLostError } from "../journal/errors.js";
import { placeFlag, storeOption } from "../journal/state-dir.js";
import { chainOf, DeadlineExceeded, deadlineOf, ownerOf, rootOf, subworkflowOf, type Frame } from "./frame.js";
import { MEMORY_BUDGET_BYTES, memoryNamespace, queryOf, type MemoryProvider } from "./memory.js";
import { conform, EvalFailure, engineFunctions, evalExpr, evalMap } from "./evaluate.js";
import { DataStore } from "./data-store.js";
import { outcomeEffects, type OutcomeEffects } from "./outcome-effects.js";
import { MIN_SECRET_LENGTH, Redactor } from "./redact.js";
import { resolveSecrets, secretReaders } from "./secrets.js";
import { preflight } from "./preflight.js";
import type { RunEvent } from "./events.js";
import { openWithin, SessionScope } from "./sessions.js";
import { orphanFile, reapOrphan } from "../adapters/run-process.js";
import { idempotencyKey, newRunId, specHash } from "./identity.js";
import { iterationItems } from "./iteration-items.js";
import { outcomesToName, runApproval, runWait, type NodeHost, type NodeRun } from "./wait-nodes.js";
import { signalCommand } from "./signal-command.js";
import { shellWord } from "../shell-word.js";
import { agentPost, agentRecv, channelOp, runChannelStep, type ChannelHost } from "./channel-steps.js";
import { ChannelEndpoint } from "../channels/endpoint.js";
import { defaultSleep, MAX_TIMER_MS } from "./sleep.js";
import { childFailureDetail } from "./child-failure.js";
import { ChildrenPending, firstOf, NotThisUnit, sharesCallerSessions, UnitEnded, unitOf, within } from "./child-jobs.js";
import { workflowDir } from "./workflow-dir.js";
import { positionsRelativeTo } from "./positions.js";

/** How a run (root or nested) ended. */
export interface RunEnd {
  run_id: string;
  /** The terminal state, or `_continue` / `return` for bodies, or "" when the run failed outside a state. */
  state: string;
  success: boolean;
  reason: Reason;
  detail?: string;
  outputs: Record<string, Value>;
  /**
   * The run's step outputs merged in completion order (later keys win): a body's result
   * when it declares no `output` blocks, so `steps.loop[i].k` reads what its steps produced.
   */
  merged_output?: Record<string, Value>;
  /** Ended by `return` from an outcome with an `output` projection: that projection (a module's or the root's outputs). */
  returned?: Record<string, Value>;
  /** From `resume`: the run had ended before it was called (its end read from the journal, nothing run). */
  already?: true;
}

/** What one execution of a step (or of one item) ends with. */
interface ItemOutcome {
  outcome: string;
  output: Record<string, Value>;
  reason: Reason;
  detail?: string;
  /** Entries written with the completion, in one transaction. */
  pending: NewEntry[];
  child_run_ids?: string[];
  /** Each child run's final state, in the order of `child_run_ids`. */
  child_states?: string[];
  /** An item's own outcome already took effect and chose the step's route (`exit` of an iteration). */
  routed?: boolean;
  /** With `routed`: the item's `output` projection when its outcome leads to `return` (a top-level `return` makes it the run's outputs). */
  projection?: Record<string, Value>;
  /** Its completion needs no flush of its own: doing it again is harmless (a channel step, channel-steps.ts). */
  soft?: boolean;
}

/** What a step visit ends with (an iterating step's output is the list of its items'). */
type StepOutcome = Omit<ItemOutcome, "output"> & { output: Record<string, Value> | Record<string, Value>[] };

/** How a child run is called (docs/architecture.md, Nested runs: one code path for all three). */
interface ChildCall {
  kind: "body" | "subworkflow" | "flow";
  graph: Graph;
  vars: Record<string, Value>;
  /** The child's `input` namespace. */
  input: Record<string, Value>;
  /** A module's run sees nothing of its caller but what the call passes. */
  isolated: boolean;
  /** The calling step's `timeout`, as a signal that aborts when it passes. */
  deadline?: { ms: number; signal: AbortSignal };
}

/** What the runner needs from outside: the journal, adapters, a clock, an event sink. */
export interface RunnerOptions {
  journal: Journal;
  /** The adapter for a plugin type (built in or out-of-process). */
  adapterFor: (type: string) => Adapter;
  /** Directory relative paths in the workflow resolve against. */
  baseDir: string;
  /** Milliseconds since the epoch; injectable so tests are exact . */
  clock?: () => number;
  /** Sleeps `ms` (injectable with the clock). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  events?: (e: RunEvent) => void;
  /** Approve every approval node (`criteria apply --auto-approve`). */
  autoApprove?: boolean;
  /** How often a waiting run looks for signals and decisions (ms). */
  pollMs?: number;
  /**
   * A NATS broker (`nats://host:port`, `--broker`) the channel endpoint also answers on, for
   * agents on other machines (engine/channels/endpoint.ts); without it, 127.0.0.1 only.
   */
  broker?: string;
  /** Aborting stops the run where it stands, resumable (SIGINT/SIGTERM). */
  signal?: AbortSignal;
  /** Where memory packs come from (default: the journal's own FTS5 index). */
  memory?: MemoryProvider;
  /** Park instead of waiting for an approval or a signal (`--no-wait`; the default in CI). */
  park?: boolean;
  /**
   * Park at a duration wait too, instead of sleeping through it (`criteria worker`: a
   * timer job advances the run when it is due). Implies nothing without `park`.
   */
  parkTimers?: boolean;
  /**
   * Only submit the run (`criteria apply --detach`): journal its `run.spawned`, waking the
   * workers that share the store, and end with {@link RunSubmitted}.
   */
  submit?: boolean;
  /**
   * Spawn child runs into jobs of their own (`criteria worker`; the scale-out issue, item 4):
   * a child that inherits no session it cannot re-open elsewhere (child-jobs.ts) is
   * journaled `detached` with a wake-up for its job, and its parent parks
   * ({@link RunParked}) until it ends. Implies nothing without `park`.
   */
  detachChildren?: boolean;
  /** Take the run's lease even from a live holder (`criteria resume --force`). */
  force?: boolean;
  /** Resume past a damaged journal entry, setting it and what follows aside (`--discard-damaged`). */
  discardDamaged?: boolean;
  /**
   * Where a resumed run finds its secret variables again (never journaled): raw text by
   * name (`criteria resume --var`), else the environment's `CRITERIA_VAR_<name>`.
   */
  secretVars?: Record<string, string>;
  /** Whether an adapter type can be served from a module directory (built in or installed); unchecked when absent. */
  adapterExists?: (type: string, dir: string) => boolean;
}

/** A run was stopped from outside (SIGINT): nothing is completed; `criteria resume` continues it. */
export class RunInterrupted extends Error {
  /**
   * @param waiting what the run tree waited for when it was stopped, on a store whose workers
   *   a decision or a signal wakes (`approval "ok"`, `signal "go"`; fold.ts `waitingIn`): it
   *   goes on there once that comes, not only by `criteria resume`
   */
  constructor(
    readonly runId: string,
    readonly waiting: string[] = [],
  ) {
    super(`run ${runId} interrupted`);
  }
}

/** A run cannot start or resume (it exists, is unknown, or lacks a required variable). */
export class RunRefused extends Error {
  /** @param usage true when the command line was at fault (a missing `--var`, a taken `--run-id`): exit 2 */
  constructor(
    message: string,
    readonly usage = false,
  ) {
    super(message);
  }
}

/**
 * The run reached an approval or a signal wait with no decision yet, in non-interactive
 * mode (`--no-wait`, the default in CI): it is parked, everything journaled, and
 * `criteria approve|reject|signal` then `criteria resume` continue it.
 */
export class RunParked extends Error {
  constructor(
    readonly runId: string,
    message: string,
    /** When the wait it is parked at times out or elapses (ms since the epoch), if it does. */
    readonly untilMs?: number,
    /** What it waits for, with the command that gives it (`signal "go": deliver it with ...`). */
    readonly waitingFor: string = message,
  ) {
    super(message);
  }
}

/** A run cannot go on here: its secret variables (never journaled) are not in this process's environment. */
export class RunNeedsSecrets extends RunRefused {
  /** @param names the secret variables missing */
  constructor(
    message: string,
    readonly names: readonly string[],
  ) {
    super(message, true);
  }
}

/** The run was submitted to the workers (`criteria apply --detach`): its `run.spawned` is journaled, nothing ran here. */
export class RunSubmitted extends Error {
  /** @param flag what the commands it suggests add to find the journal again (` --store URL`), "" for none */
  constructor(readonly runId: string, flag = "") {
    super(`submitted run ${runId}: a worker sharing the store runs it (criteria runs${flag} and criteria journal ${runId}${flag} follow it)`);
  }
}


/** An abort signal any number of parallel steps may listen to. */
function unlimited(s: AbortSignal): AbortSignal {
  setMaxListeners(0, s);
  return s;
}

/** The largest step output an event carries (the journal keeps all of it). */
const EVENT_OUTPUT_BYTES = 8192;

/** A step's output for its event: whole when small, else a note of its size. */
function boundedOutput(output: Value): { output: Value } | { output_bytes: number } {
  const bytes = Buffer.byteLength(JSON.stringify(output) ?? "");
  return bytes <= EVENT_OUTPUT_BYTES ? { output } : { output_bytes: bytes };
}

/**
 * A value bound to a variable (`what` says where from: `input "n"`, `CRITERIA_VAR_n`):
 * converted to its type, or the run is refused (a secret's value not shown).
 */
function conformOrRefuse(type: string, v: Value, what: string, secret?: boolean): Value {
  try {
    return conform(type, v, what, secret);
  } catch (e) {
    throw new RunRefused((e as Error).message);
  }
}

/** Merges a step's output into its run's merged output (objects only; lists of items are not merged). */
function merge(f: Frame, output: Value): void {
  if (output !== null && typeof output === "object" && !Array.isArray(output)) Object.assign(f.merged, output);
}

/**
 * Runs a compiled graph with its journal (docs/architecture.md, The engine). Every
 * decision is journaled before it takes effect; on resume the journal is folded
 * (linear, once) and the walk re-uses every completed step, iteration, branch, wait
 * and approval from it without executing anything, marks an interrupted attempt
 * `crashed`, and continues. A confirmed effect is never executed again.
 *
 * Errors: a failed step or policy ends the run as a failure in the journal
 * (`run.completed` with a reason); only journal write failures and interruption escape.
 */
export class Runner {
  private readonly clock: () => number;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** The standard functions per directory (`file()` reads relative to the run's module). */
  private readonly functionTables = new Map<string, FunctionTable>();
  private readonly abort: AbortController = new AbortController();
  private tree: TreeRecord = foldEntries([]);
  /**
   * The journal is read through this seq: every entry of the tree at or below it is folded.
   * This runner's own appends do not move it (other processes' entries may lie below them,
   * unread: a post by another job, a signal), so reads go on from here ({@link readNew}).
   */
  private readThrough = 0;
  /** Seqs this runner wrote above {@link readThrough}: folded when written, skipped when read. */
  private readonly ownAhead = new Set<number>();
  /** Steps of this runner executing now (adapters, agents, channel steps; not child runs). */
  private leavesRunning = 0;
  /** Of those, channel receives waiting for a message. */
  private receivesWaiting = 0;
  private rootId = "";
  /** Stops listening to the caller's abort signal (called when start or resume ends). */
  private detach: () => void = () => undefined;
  /**
   * The run whose lease this runner holds and inside which alone it writes: the root, or a
   * child run advanced in its own job (the runs around it are only replayed).
   */
  private unit = "";
  private totalSteps = 0;
  private warned = new Set<string>();
  /** The secrets this run holds, masked wherever it records or shows anything. */
  private readonly redactor = new Redactor();

  constructor(private readonly opts: RunnerOptions) {
    this.clock = opts.clock ?? Date.now;
    this.sleep = opts.sleep ?? defaultSleep;
    // Removed when the run ends (a worker's signal outlives thousands of runs: found by a
    // new-user trial, each job's Runner was kept alive by its listener).
    const stop = () => this.abort.abort();
    opts.signal?.addEventListener("abort", stop, { once: true });
    this.detach = () => opts.signal?.removeEventListener("abort", stop);
    // Every running step (up to parallel_max of them) listens: no listener limit warning.
    setMaxListeners(0, this.abort.signal);
  }

  /** Every event passes the redaction registry: no secret leaves in one. */
  private emit(e: RunEvent) {
    this.opts.events?.(this.redactor.redactKeeping({ ...e, at_ms: this.clock() } as RunEvent));
  }

  /**
   * Journals entries (their payloads masked of every secret) and folds them into the tree;
   * `opts.wake` is passed on only when this run parks (the workers then advance it).
   * Appends and journal reads of this runner happen one at a time (parallel items append
   * concurrently), appends in call order: the tree is folded in `seq` order whatever the
   * store. Where the store has group commit (`Journal.appendGroup`), the appends asked in
   * one turn of the event loop are written together in the next one, a read asked
   * meanwhile going first (it sees none of them, all of which come after what it reads).
   */
  private append(entries: NewEntry[], opts: AppendOptions = {}): Promise<JournalEntry[]> {
    // A child run's job writes only inside it; what it replays around it is another job's.
    const foreign = entries.find((e) => !within(e.run_id, this.unit));
    if (foreign) return Promise.reject(new NotThisUnit(foreign.run_id));
    if (!this.redactor.empty) entries = entries.map((e) => ({ ...e, payload: this.masked(e) }) as NewEntry);
    // Timers are handed to workers only by a parking run: one that waits handles its own.
    // Wake-ups for now (a submission, a detached child's end waking its parent) always go.
    if (opts.wake) {
      const wakes = [opts.wake].flat().filter((w) => w.atMs === undefined || this.opts.park || this.opts.submit);
      // A timer or a submission wakes this job's own run (its lease unit) unless told otherwise.
      opts = { ...opts, wake: wakes.length > 0 ? wakes.map((w) => ({ ...w, runs: w.runs ?? [this.unit] })) : undefined };
    }
    opts = { ...opts, lease: this.unit };
    const journal = this.opts.journal;
    if (!journal.appendGroup) {
      return this.serially(async () => {
        const written = await journal.append(this.rootId, entries, opts);
        this.folded(written);
        return written;
      });
    }
    // Group commit: the appends asked in one turn of the event loop (parallel items, a
    // channel's sender and receiver) go in one commit, in the order asked.
    return new Promise((resolve, reject) => {
      const first = this.grouping.length === 0;
      this.grouping.push({ entries, opts, resolve, reject });
      if (first) setImmediate(() => void this.serially(() => this.writeGroup()));
    });
  }

  /** Appends asked and not yet written ({@link append}'s group commit). */
  private grouping: { entries: NewEntry[]; opts: AppendOptions; resolve: (e: JournalEntry[]) => void; reject: (e: unknown) => void }[] = [];

  /** Writes the appends asked so far in one group commit; each caller gets its entries or its refusal. */
  private async writeGroup(): Promise<void> {
    const group = this.grouping;
    this.grouping = [];
    let results: (JournalEntry[] | Error)[];
    try {
      results = await this.opts.journal.appendGroup!(this.rootId, group.map(({ entries, opts }) => ({ entries, opts })));
    } catch (e) {
      for (const a of group) a.reject(e);
      return;
    }
    group.forEach((a, i) => {
      const r = results[i];
      if (r instanceof Error) return a.reject(r);
      this.folded(r);
      a.resolve(r);
    });
  }

  /** Folds entries this runner wrote into the tree, in seq order, and moves the read mark. */
  private folded(written: JournalEntry[]): void {
    for (const e of written) {
      applyEntry(this.tree, e);
      // Right after the mark nothing can lie between: the mark moves (one writer, as on SQLite, keeps the set empty).
      if (e.seq === this.readThrough + 1) this.readThrough = e.seq;
      else if (e.seq > this.readThrough) this.ownAhead.add(e.seq);
    }
    // A receive of this process waiting for a message looks again at once (others poll).
    if (written.some((e) => e.entry_type === "effect.recorded" && (e.payload as Payloads["effect.recorded"]).kind === "post")) this.posted.dispatchEvent(new Event("post"));
  }

  /** Fires when this runner journals a channel post (channel-steps.ts `ChannelHost.sleep`). */
  private readonly posted = new EventTarget();

  /** The tail of this runner's journal operations: each starts when the one before it has ended. */
  private journalQueue: Promise<unknown> = Promise.resolve();

  /** Runs `op` after every journal operation queued before it (see {@link append}). */
  private serially<T>(op: () => Promise<T>): Promise<T> {
    const done = this.journalQueue.then(op);
    this.journalQueue = done.catch(() => undefined);
    return done;
  }

  private entry<T extends keyof Payloads>(run_id: string, step_id: string, attempt: number, entry_type: T, payload: Payloads[T]): NewEntry {
    return { run_id, step_id, attempt, entry_type, at_ms: this.clock(), payload } as NewEntry;
  }

  /**
   * Starts a new root run of `graph` with the given variable values.
   * @param input the run's `input` namespace (`criteria apply --input`): what a flow reads as `input.*`
   * @param source the files it was compiled from (journaled: `resume` says when they changed)
   */
  async start(graph: Graph, inputs: Record<string, Value>, runId?: string, input: Record<string, Value> = {}, source?: { entry: string; hash: string }): Promise<RunEnd> {
    this.rootId = this.unit = runId ?? newRunId(this.clock());
    try {
      await this.firstLease(this.rootId);
    } catch (e) {
      throw await this.notStarted(e, true);
    }
    try {
      const existing = await this.opts.journal.run(this.rootId);
      if (existing) {
        // An ended run is not continued (found by a new-user trial: "continue it" of a finished run, without its --store).
        if (existing.status !== "active") throw new RunRefused(`run ${this.rootId} already exists and has ended (${existing.status}); choose another --run-id (criteria journal ${this.rootId}${this.storeFlag()} shows it)`, true);
        // One whose first entry is damaged cannot be resumed: resume is not offered (found by a
        // user trial: resume sent back to apply, and apply --run-id of it to resume).
        const damage = await this.opts.journal.scan(this.rootId, () => undefined);
        const report = damage ? await this.opts.journal.damageReport(this.rootId, damage.seq) : undefined;
        if (report?.first) throw new RunRefused(`run ${this.rootId} already exists, and cannot be resumed: its first entry (${report.seq}), which holds its workflow, fails its checksum; leave out --run-id for a new run of the workflow, or choose another`, true);
        throw new RunRefused(`run ${this.rootId} already exists; continue it with criteria resume ${this.rootId}${this.storeFlag()}, or choose another --run-id`, true);
      }
      // A broker given for the run's channels is reached before anything runs.
      if (this.opts.broker && hasChannels(graph)) await this.startEndpoint();
      return this.shown(await this.root(graph, inputs, input, this.opts.baseDir, source));
    } catch (e) {
      throw this.maskError(this.parkedIfPending(await this.notStarted(this.lostIfFenced(e))));
    } finally {
      this.detach();
      await this.closeEndpoint();
      await this.giveBack(this.rootId);
    }
  }

  /**
   * `e` as `start` throws it: a journal write that failed before anything of the run was
   * written (a read-only or full journal) leaves nothing to resume, so it becomes a
   * refusal (exit 1) rather than "resume continues" (found by a new-user trial); when the
   * journal cannot be read to tell (a server lost), a refusal that says so.
   * @param leaseOnly the write was the run's first lease, which makes no run
   */
  private async notStarted(e: unknown, leaseOnly = false): Promise<unknown> {
    if (!(e instanceof JournalWriteError)) return e;
    const made = leaseOnly ? undefined : await this.opts.journal.run(this.rootId).catch(() => null);
    if (made) {
      // The run was made: the message names it (criteria resume <run> continues).
      (e as JournalWriteError & { runId?: string }).runId ??= this.rootId;
      return e;
    }
    // Unread, a commit whose answer was lost may have made it: not said to be missing.
    if (made === null) return new RunRefused(`${e.message}; whether run ${this.rootId} was created cannot be read either: once the store answers, criteria journal ${this.rootId}${this.storeFlag()} shows it if it was (then criteria resume continues it), else apply again`);
    return new RunRefused(`${e.message}; nothing was started (run ${this.rootId} was not created): ${this.writeAdvice(e)}`);
  }

  /**
   * What to do about a write that failed before a run was made: wait for a database server
   * that did not answer, or check the store's permissions and space (a state directory's
   * for the embedded journal, the database's for a shared store; a new-user trial was told
   * of a state directory when a PostgreSQL server had restarted).
   */
  private writeAdvice(e: JournalWriteError): string {
    if (e.unreachable) return "apply again once the database server answers";
    if (!this.opts.journal.besideCheckout) return "check that the database accepts this user's writes and has free space, then apply again";
    return "check the state directory's permissions and free space, then apply again";
  }

  /**
   * Resumes a root run from its journal (the graph is read from its `run.spawned`).
   * Refuses a journal with a damaged entry ({@link JournalDamagedError}) unless
   * `discardDamaged`: then the entries from the damage on are set aside first. The
   * workflow's directory is found again where the run left it relative to the journal
   * (a checkout that moved with its `.criteria/`), else where it was, else `workdir`.
   * `runId` may also be a child run spawned into a job of its own ({@link RunnerOptions.detachChildren}):
   * then its tree is replayed down to it, and it alone is advanced, under its own lease,
   * to its end (which wakes its parent's job) or a park.
   * @throws RunLockedError, JournalDamagedError, RunRefused, RunInterrupted, RunParked
   */
  async resume(runId: string, opts: { workdir?: string } = {}): Promise<RunEnd> {
    this.rootId = this.unit = runId;
    // Which tree it is in never changes: read while the lease is taken (a worker's next run
    // starts a round trip sooner), and waited for once it is held.
    const row = this.opts.journal.run(runId);
    row.catch(() => undefined);
    await this.firstLease(runId);
    try {
      const rootId = (await row)?.root_run_id ?? runId;
      this.rootId = rootId;
      this.tree = foldEntries([]);
      let damage = await this.opts.journal.scan(rootId, (e) => applyEntry(this.tree, e));
      if (damage && this.opts.discardDamaged) {
        const report = await this.opts.journal.damageReport(rootId, damage.seq);
        // Nothing before the damage to resume from: set nothing aside.
        if (report.first) throw report.naming(this.storeFlag());
        const moved = await this.opts.journal.quarantine(rootId, damage.seq, this.clock());
        this.emit({ event: "warning", run_id: rootId, message: `--discard-damaged: set aside ${moved} journal entries from entry ${damage.seq} on (the journal's quarantine keeps them)${report.steps.length ? `; ${report.steps.length === 1 ? "step" : "steps"} ${report.steps.map((x) => `"${x}"`).join(", ")} ${report.steps.length === 1 ? "runs" : "run"} again` : ""}` });
        this.tree = foldEntries([]);
        damage = await this.opts.journal.scan(rootId, (e) => applyEntry(this.tree, e));
        if (!damage) {
          this.readThrough = this.tree.lastSeq;
          await this.append([this.entry(rootId, "", 0, "run.damage_discarded", { from_seq: report.seq, entries: moved, steps: report.steps })]);
        }
      }
      if (damage) throw (await this.opts.journal.damageReport(rootId, damage.seq)).naming(this.storeFlag());
      this.readThrough = this.tree.lastSeq;
      const root = this.tree.runs.get(rootId);
      if (!root?.spawned?.graph) throw new RunRefused(`no run ${rootId} in the journal (criteria runs${this.storeFlag()} lists them)`);
      const unit = this.tree.runs.get(runId);
      if (runId !== rootId && !unit?.spawned?.detached) {
        throw new RunRefused(`run ${runId} is a child run that runs in its parent's job: resume its root run, criteria resume ${rootId}${this.storeFlag()}`, true);
      }
      if (unit?.completed) return { ...this.endFromRecord(runId, unit.completed), already: true };
      const dir = this.workdirOf(rootId, root.spawned, opts.workdir, root.relocated);
      const rel = root.spawned.positions_rel;
      const graph = rel === undefined ? (root.spawned.graph as Graph) : positionsRelativeTo(root.spawned.graph as Graph, resolvePath(dir, rel), process.cwd());
      if (this.opts.broker && hasChannels(graph)) await this.startEndpoint();
      // Said in the journal, so a later resume, or a worker, finds the files there too.
      if (opts.workdir !== undefined && dir !== (root.relocated ?? root.spawned.base_dir)) await this.append([this.entry(rootId, "", 0, "run.relocated", { base_dir: dir })]);
      return this.shown(await this.root(graph, this.secretsAgain(graph, root.spawned), root.spawned.input ?? {}, dir, root.spawned.source));
    } catch (e) {
      if (e instanceof UnitEnded) return this.shown(e.end as RunEnd);
      throw this.maskError(this.parkedIfPending(this.lostIfFenced(e)));
    } finally {
      this.detach();
      await this.closeEndpoint();
      await this.giveBack(runId);
    }
  }

  /**
   * The variables a resumed run was started with: the journaled ones, and its secret
   * ones again from `--var` or `CRITERIA_VAR_<name>` (they were never journaled).
   * @throws RunRefused (usage) naming each secret variable given neither way
   */
  private secretsAgain(graph: Graph, spawned: Payloads["run.spawned"]): Record<string, Value> {
    const inputs = { ...spawned.inputs };
    const missing: string[] = [];
    for (const name of spawned.secret_variables ?? []) {
      const given = this.opts.secretVars?.[name];
      const raw = given ?? process.env[`CRITERIA_VAR_${name}`];
      if (raw === undefined) {
        missing.push(name);
        continue;
      }
      const type = graph.variables.find((v) => v.name === name)?.type;
      inputs[name] = type ? conformOrRefuse(type, raw, `${given === undefined ? `CRITERIA_VAR_${name}` : `--var ${name}`}: variable "${name}"`, true) : raw;
    }
    if (missing.length > 0) {
      throw new RunNeedsSecrets(`secret variable${missing.length > 1 ? "s" : ""} ${missing.map((n) => `"${n}"`).join(", ")} ${missing.length > 1 ? "are" : "is"} not journaled: pass ${missing.map((n) => `--var ${n}=... (or CRITERIA_VAR_${n})`).join(" and ")} to resume`, missing);
    }
    return inputs;
  }

  /**
   * What leaves the runner for an error the walk ended with: child runs pending in their
   * own jobs park this run; a replay that found no way to its unit refuses (never seen: a
   * safeguard); anything else as it is.
   */
  private parkedIfPending(e: unknown): unknown {
    if (e instanceof ChildrenPending) {
      const what = `child run${e.runIds.length > 1 ? "s" : ""} ${e.runIds.join(", ")} (advanced by workers)`;
      return new RunParked(this.unit, `run ${this.unit} is parked, waiting for ${what}; it goes on when ${e.runIds.length > 1 ? "they end" : "it ends"}`, undefined, what);
    }
    if (e instanceof NotThisUnit) return new RunRefused(`run ${this.unit} cannot be advanced alone: replaying its tree reached run ${e.runId}, which another job advances`);
    return e;
  }

  /** A park at a wait or an approval that also waits for child runs in their own jobs. */
  private alsoWaiting(p: RunParked, children: string[]): RunParked {
    const what = `${p.waitingFor}, and child run${children.length > 1 ? "s" : ""} ${children.join(", ")} (advanced by workers)`;
    return new RunParked(p.runId, `${p.message}; it also waits for child run${children.length > 1 ? "s" : ""} ${children.join(", ")} (advanced by workers)`, p.untilMs, what);
  }

  /**
   * The lease a start or a resume begins with: refused (held elsewhere), the runner lets go
   * of the caller's signal as its end would (found by a trial: each of a worker's busy
   * retries left a listener, and its Runner, on the worker's signal).
   */
  private async firstLease(runId: string): Promise<void> {
    try {
      await this.takeLease(runId);
    } catch (e) {
      this.detach();
      throw e;
    }
  }

  /** Takes the run's lease, saying what it took over. */
  private async takeLease(runId: string): Promise<void> {
    const note = await this.opts.journal.lock(runId, { force: this.opts.force === true });
    this.leaseEpochs.set(runId, this.opts.journal.heldEpoch(runId));
    this.leaseWatches.set(runId, this.opts.journal.onLeaseLost(runId, (e) => this.leaseGone(runId, e)));
    if (note) this.emit({ event: "warning", run_id: runId, message: note });
  }

  /** The epoch of each lease this runner took: it gives back only those ({@link Journal.unlock}). */
  private readonly leaseEpochs = new Map<string, number | undefined>();
  /** What stops listening for the loss of each lease this runner took. */
  private readonly leaseWatches = new Map<string, () => void>();
  /** The loss of a lease this runner held, once one is lost: the run stops with it. */
  private leaseLost: LeaseLostError | undefined;

  /**
   * A lease this runner holds is lost (taken over, or not renewed for a lease period): the
   * run stops where it stands, as if interrupted, its running steps' processes stopped
   * (SIGTERM, then SIGKILL), so a frozen or fenced holder's step does not run on beside the
   * new holder's re-run of it (the scale-out issue, from a new-user trial). Nothing more is
   * journaled: every append would be refused.
   */
  private leaseGone(runId: string, e: LeaseLostError): void {
    if (this.leaseLost || this.abort.signal.aborted) return;
    this.leaseLost = e;
    this.emit({ event: "warning", run_id: runId, message: `${e.message.replace(/; it stopped without writing anything more$/, "")}: stopping what it was running here` });
    this.abort.abort();
  }

  /** `e` as the run ends with it: an interruption that a lost lease caused is that loss. */
  private lostIfFenced(e: unknown): unknown {
    return this.leaseLost && (e instanceof RunInterrupted || e instanceof LeaseLostError) ? this.leaseLost : e;
  }

  /** Gives back the lease this runner took on `runId` (not one another runner of this process took since). */
  private giveBack(runId: string): Promise<void> {
    const epoch = this.leaseEpochs.get(runId);
    this.leaseEpochs.delete(runId);
    this.leaseWatches.get(runId)?.();
    this.leaseWatches.delete(runId);
    return this.opts.journal.unlock(runId, epoch);
  }

  /**
   * The directory a resumed run's relative paths resolve against ({@link workflowDir}).
   * @throws RunRefused before anything runs when none exists
   */
  private workdirOf(runId: string, spawned: Payloads["run.spawned"], workdir: string | undefined, relocated: string | undefined): string {
    const dir = workflowDir(this.opts.journal.stateDir, spawned, workdir, relocated);
    if (dir !== undefined) return dir;
    if (workdir !== undefined) throw new RunRefused(`--workdir ${workdir} is not a directory`, true);
    // Named as a command (a worker has no --workdir: found by a new-user trial); with a
    // shared store, --detach hands it back to the workers with the directory journaled.
    throw new RunRefused(`the run's workflow directory ${relocated ?? spawned.base_dir ?? "(unknown)"} no longer exists (was the checkout moved?); put its files back there, or say where they are now: criteria resume ${runId}${this.storeFlag()} --workdir DIR (the directory that holds the workflow now)${this.opts.journal.besideCheckout ? "" : "; add --detach to have the workers continue it there, or --wait to finish it here"}`);
  }

  private endFromRecord(runId: string, c: Payloads["run.completed"]): RunEnd {
    return { run_id: runId, state: c.state, success: c.success, reason: c.reason, detail: c.detail, outputs: c.outputs, ...(c.result ? { merged_output: c.result } : {}) };
  }

  private async root(graph: Graph, given: Record<string, Value>, input: Record<string, Value>, baseDir: string, source?: { entry: string; hash: string }): Promise<RunEnd> {
    const expects = expectedOf(graph);
    if (expects.length > 0) {
      throw new RunRefused(`workflow "${graph.name}" expects ${expects.join(", ")} from its caller; run it from a workflow that passes them (subworkflow { adapters = [...] agents = [...] }, or for a flow used as an agent, agent { use = "..." adapters = [...] })`);
    }
    this.baseDir = baseDir;
    const refused = preflight(graph, baseDir, this.opts.adapterExists);
    if (refused.length > 0) throw new RunRefused(`the run cannot start:\n  ${refused.join("\n  ")}`);
    const fns = this.functionsAt(this.dirOf(graph));
    const vars: Record<string, Value> = {};
    for (const v of graph.variables) {
      let value: Value;
      if (Object.prototype.hasOwnProperty.call(given, v.name)) value = given[v.name];
      else if (Object.prototype.hasOwnProperty.call(input, v.name)) value = input[v.name];
      else if (v.default) value = evalExpr(v.default, {}, fns);
      // Submitted to the workers: they give its value (a secret is never journaled).
      else if (v.secret && this.opts.submit) continue;
      else throw new RunRefused(`variable "${v.name}" is required: pass --var ${v.name}=...`, true);
      vars[v.name] = v.type ? conformOrRefuse(v.type, value, `input "${v.name}"`, v.secret) : value;
    }
    const secretVariables = graph.variables.filter((v) => v.secret).map((v) => v.name);
    for (const name of secretVariables) if (Object.prototype.hasOwnProperty.call(vars, name)) this.registerSecret(vars[name], `secret variable "${name}"`, this.rootId, keysAreData(graph.variables.find((v) => v.name === name)?.type));
    // The secret variables a resume asks for again: those given, and those a submitted run leaves to its workers.
    const askedAgain = secretVariables.filter((n) => Object.prototype.hasOwnProperty.call(given, n) || !Object.prototype.hasOwnProperty.call(vars, n));
    for (const e of secretReaders(graph)) this.redactor.withhold(e.at, e.end);
    const shared: Record<string, Value> = {};
    for (const s of graph.shared_variables) shared[s.name] = s.value ? evalExpr(s.value, { var: vars }, fns) : null;
    this.shared = shared;
    const identity = graph.identity ?? (graph.memory ? graph.name : undefined);
    return this.runGraph(
      { kind: "body", graph, vars, input, isolated: true },
      this.rootId,
      undefined,
      undefined,
      {
        workflow: graph.name,
        spec_hash: specHash(graph),
        ...(identity ? { identity } : {}),
        // Secret values are not journaled (masking alone kept an object's undeclared keys and a
        // map's keys in plain: a new-user trial); resume asks for them again.
        inputs: Object.fromEntries(Object.entries(given).filter(([k]) => !secretVariables.includes(k))),
        ...(askedAgain.length > 0 ? { secret_variables: askedAgain } : {}),
        ...(Object.keys(input).length > 0 ? { input } : {}),
        graph,
        base_dir: baseDir,
        ...(this.opts.journal.besideCheckout ? { base_dir_rel: relative(this.opts.journal.stateDir, baseDir) || "." } : {}),
        // The graph's positions are relative to where it was compiled: this process's directory.
        positions_rel: relative(baseDir, process.cwd()) || ".",
        ...(source ? { source } : {}),
      },
    );
  }

  private shared: Record<string, Value> = {};
  private baseDir = "";

  /**
   * An entry's payload with every secret masked, except a root's compiled graph: that is
   * the workflow's source (a secret variable's default is written there in plain, which
   * validate warns about), and resume runs it.
   */
  private masked(e: NewEntry): NewEntry["payload"] {
    if (e.entry_type === "run.spawned" && "graph" in e.payload && e.payload.graph !== undefined) {
      const { graph, ...rest } = e.payload;
      return { ...this.redactor.redactKeeping(rest), graph } as NewEntry["payload"];
    }
    return this.redactor.redactKeeping(e.payload);
  }

  /**
   * A run's end as it leaves the runner, masked as its journaled `run.completed` is (a
   * worker logs its detail: found by an audit, the detail of an expression reading a
   * secret was withheld in the journal and the events, shown in the worker's log).
   */
  private shown(end: RunEnd): RunEnd {
    return this.redactor.redactKeeping(end);
  }

  /** An error leaving the runner, its message masked of every secret (the CLI prints it). */
  private maskError(e: unknown): unknown {
    if (e instanceof Error && !this.redactor.empty) e.message = this.redactor.redact(e.message);
    return e;
  }

  /** Registers a secret value for masking; warns once when it is too short to mask. */
  private registerSecret(v: Value, what: string, runId: string, keysToo = false): void {
    if (v === undefined) return;
    if (!this.redactor.add(v, keysToo) && !this.warned.has(`secret:${what}`)) {
      this.warned.add(`secret:${what}`);
      const why = typeof v === "boolean" ? "is true or false, which are everywhere" : `has a value shorter than ${MIN_SECRET_LENGTH} characters`;
      this.emit({ event: "warning", run_id: runId, message: `${what} ${why}: criteria cannot mask it in what it records and shows` });
    }
  }

  /** Each declared output of `f` that evaluates now, converted to its type; the others left out. */
  private outputsSoFar(f: Frame): Record<string, Value> {
    const out: Record<string, Value> = {};
    for (const o of f.graph.outputs) {
      if (!o.value) continue;
      try {
        const v = evalExpr(o.value, this.namespaces(f), this.fns(f));
        out[o.name] = o.type ? typedOutput(o, v) : v;
      } catch {
        // needs a step that did not run
      }
    }
    return out;
  }

  /** The directory a module's relative paths resolve against (`file()`, adapters' scripts). */
  private dirOf(g: Graph): string {
    return g.dir ? resolvePath(this.baseDir, g.dir) : this.baseDir;
  }

  /** The directory of the module a run belongs to (a body belongs to its enclosing module). */
  private frameDir(f: Frame): string {
    let x = f;
    while (!x.isolated && x.parent) x = x.parent;
    return this.dirOf(x.graph);
  }

  /** The standard functions for a directory (`file()` confined to it), made once each. */
  private functionsAt(dir: string): FunctionTable {
    let t = this.functionTables.get(dir);
    if (!t) {
      t = engineFunctions(dir);
      this.functionTables.set(dir, t);
    }
    return t;
  }

  private fns(f: Frame): FunctionTable {
    return this.functionsAt(this.frameDir(f));
  }

  private namespaces(f: Frame): Record<string, Value> {
    let each: Value = null;
    let memory: Value = null;
    for (let x: Frame | undefined = f; x; x = x.parent) {
      if (each === null && x.each) each = x.each;
      if (memory === null && x.memory !== undefined) memory = x.memory;
      if (x.isolated) break;
    }
    // A `while` item is an `each` with total -1 (the Go tool's cursor for an unbounded loop).
    const loop = each !== null && (each as Record<string, Value>)._total === -1 ? { index: (each as Record<string, Value>)._idx, first: (each as Record<string, Value>)._first, _prev: (each as Record<string, Value>)._prev } : null;
    return {
      var: f.vars,
      local: this.locals(f),
      each,
      while: loop,
      steps: f.outputs,
      shared: this.shared,
      input: f.inputs,
      memory,
      data: f.data.empty ? {} : f.data.namespace(),
      path: { module: this.frameDir(f), root: this.baseDir, cwd: process.cwd() },
    };
  }

  private locals(f: Frame): Record<string, Value> {
    if (f.locals) return f.locals;
    const out: Record<string, Value> = { ...(f.parent && !f.isolated ? this.locals(f.parent) : {}) };
    f.locals = out;
    for (const l of f.graph.locals) {
      const ns = { var: f.vars, local: out, each: f.each ?? null, steps: f.outputs, shared: this.shared, input: f.inputs, memory: f.memory ?? null, path: { module: this.frameDir(f), root: this.baseDir, cwd: process.cwd() } };
      out[l.name] = evalExpr(l.value, ns, this.fns(f));
    }
    return out;
  }

  /**
   * Walks one graph as one run (root or nested) until a state, `_continue` or `return`.
   * Journals `run.spawned` first (a resumed run finds it and goes on), a memory pack when
   * the graph asks for one, and `run.completed` last, with the result its caller reads.
   */
  private async runGraph(call: ChildCall, runId: string, parent: Frame | undefined, each: Record<string, Value> | undefined, spawn: Payloads["run.spawned"]): Promise<RunEnd> {
    const graph = call.graph;
    let rec = this.tree.runs.get(runId);
    if (!rec?.spawned) {
      // No child run begins once its caller is stopping (found by a new-user trial: an item
      // ending as Ctrl-C came let the next one be spawned after it).
      if (parent?.signal.aborted) throw this.stopped(parent);
      await this.append([this.entry(runId, "", 0, "run.spawned", spawn)], !parent && this.opts.submit ? { wake: {} } : {});
      if (!parent && this.opts.submit) throw new RunSubmitted(runId, this.storeFlag());
      rec = this.tree.runs.get(runId)!;
      if (!parent) this.emit({ event: "run.started", run_id: runId, workflow: graph.name });
    } else if (runId === this.unit) this.emit({ event: "run.resumed", run_id: runId, workflow: graph.name });
    if (rec.completed) {
      // Ended before (a resumed caller's step that had not recorded it): its steps count.
      if (parent) this.charge(parent, this.stepsOf(runId));
      return this.endFromRecord(runId, rec.completed);
    }
    const sessions = new SessionScope({
      run_id: runId,
      base_dir: call.isolated || !parent ? this.dirOf(graph) : this.frameDir(parent),
      state_dir: this.opts.journal.stateDir,
      // A plugin's stderr is shown, masked like everything else the run shows.
      log: (line) => process.stderr.write(`${this.redactor.redact(line)}\n`),
    });
    // `steps.*` as seen from this run: a body sees the enclosing runs' outputs (they wait
    // while this run goes on), then its own, added as its steps complete. O(1) per step.
    const outputs = Object.assign(Object.create(null) as Record<string, Value>, call.isolated ? undefined : parent?.outputs);
    let data: DataStore;
    try {
      const fns = call.isolated || !parent ? this.functionsAt(this.dirOf(graph)) : this.fns(parent);
      data = call.isolated || !parent ? new DataStore(graph.data ?? [], undefined, fns) : DataStore.forBody(graph.data, parent.data, fns);
    } catch (e) {
      if (!(e instanceof EvalFailure)) throw e;
      return this.completed(rec, this.fail(runId, "eval_error", e.message), {}, 0);
    }
    const f: Frame = {
      graph,
      runId,
      parent,
      sessions,
      vars: call.vars,
      each,
      inputs: call.input,
      outputs,
      rec,
      data,
      merged: Object.create(null) as Record<string, Value>,
      isolated: call.isolated,
      depth: parent ? parent.depth + 1 : 0,
      spent: { steps: 0 },
      signal: call.deadline ? unlimited(AbortSignal.any([parent?.signal ?? this.abort.signal, call.deadline.signal])) : (parent?.signal ?? this.abort.signal),
      ...(call.deadline ? { deadline: call.deadline } : {}),
    };
    if (graph.memory?.script) f.memory = await this.memoryFor(f, spawn.identity ?? graph.name);
    let end: RunEnd;
    try {
      end = await this.walk(f);
    } catch (e) {
      if (e instanceof EvalFailure) end = this.fail(runId, "eval_error", e.message);
      else if (e instanceof DeadlineExceeded && e.runId === runId && !this.abort.signal.aborted) {
        // The calling step's timeout passed: this run ends (journaled), the step times out.
        end = this.fail(runId, "timeout", `the step's timeout of ${e.ms} ms passed while run ${runId} was running`);
      } else {
        // Interrupted, or the journal could not be written: close sessions (LIFO) and stop;
        // the journal holds everything up to here, so `criteria resume` continues.
        await sessions.close();
        // Stopped while waiting for a decision or a signal, on a store with workers: what comes
        // wakes them, and they go on with it (found by a new-user trial: "continue it with
        // criteria resume" was said, and a worker finished the run once it was approved).
        if (this.abort.signal.aborted && runId === this.rootId) {
          const woken = this.opts.journal.besideCheckout ? [] : waitingIn(this.tree).filter((w) => w.kind === "approval" || w.kind === "signal");
          throw new RunInterrupted(this.rootId, woken.map((w) => w.text));
        }
        throw this.abort.signal.aborted && !(e instanceof RunInterrupted) ? new RunInterrupted(this.rootId) : e;
      }
    }
    const closeErrors = await sessions.close();
    for (const m of closeErrors) this.emit({ event: "warning", run_id: runId, message: m });
    if (end.success && end.returned && (call.isolated || !parent)) {
      // `return` with an `output` projection: the projection is the run's outputs (over its output blocks).
      end.outputs = end.returned;
    } else if (end.success) {
      try {
        end.outputs = evalMap(Object.fromEntries(graph.outputs.filter((o) => o.value).map((o) => [o.name, o.value!])), this.namespaces(f), this.fns(f));
        for (const o of graph.outputs) if (o.type && o.name in end.outputs) end.outputs[o.name] = typedOutput(o, end.outputs[o.name]);
      } catch (e) {
        // The run fails; its outputs are those that evaluate and convert, never the one
        // that did not (it was printed raw beside the failure; found by a new-user trial).
        end = { ...end, success: false, reason: "eval_error", detail: (e as Error).message, outputs: this.outputsSoFar(f) };
      }
    } else if (parent && call.isolated) {
      // A module that failed still gives its caller the outputs it can (its failure route
      // may report them); those that need what never ran are left out.
      end.outputs = this.outputsSoFar(f);
    }
    end.merged_output = f.merged;
    // A nested run that declares no outputs gives its caller its steps' merged outputs:
    // journaled, so a resumed caller reads the same result.
    return this.completed(rec, end, parent && graph.outputs.length === 0 && Object.keys(f.merged).length > 0 ? { result: { ...f.merged } } : {}, f.spent.steps);
  }

  /**
   * Journals a run's end: `run.completed`, waking its parent's job when the run was
   * advanced in a job of its own. The end of the run a child job advances unwinds the
   * replay around it ({@link UnitEnded}). `steps`: what the run used of the step budget.
   */
  private async completed(rec: RunRecord, end: RunEnd, result: { result?: Record<string, Value> }, steps: number): Promise<RunEnd> {
    const runId = rec.run_id;
    const parentId = rec.spawned?.parent_run_id;
    const wake = rec.spawned?.detached && parentId !== undefined ? { wake: { runs: [unitOf(this.tree, this.rootId, parentId)] } } : {};
    // The unit's end is this runner's last write under its lease: given back in the same commit.
    await this.append([this.entry(runId, "", 0, "run.completed", { state: end.state, success: end.success, reason: end.reason, ...(end.detail ? { detail: end.detail } : {}), outputs: end.outputs, ...result, steps })], { ...wake, ...(runId === this.unit ? { release: true } : {}) });
    if (runId === this.unit) this.emit({ event: "run.completed", run_id: runId, state: end.state, success: end.success, reason: end.reason, detail: end.detail, outputs: end.outputs });
    if (runId === this.unit && runId !== this.rootId) throw new UnitEnded(end);
    return end;
  }

  /**
   * The memory pack of a run whose header sets `memory { script = true }` (docs/language.md, Composition):
   * recalled once, before its first step (which consumes it), and journaled; a resumed
   * run re-uses the journaled pack and never recalls again.
   */
  private async memoryFor(f: Frame, identity: string): Promise<Value> {
    if (!f.rec.memory) {
      const query = queryOf(f.inputs);
      const provider = this.opts.memory ?? this.opts.journal;
      const items = await provider.recall(identity, query, MEMORY_BUDGET_BYTES, f.runId);
      const bytes = items.reduce((n, i) => n + Buffer.byteLength(i.text), 0);
      await this.append([this.entry(f.runId, f.graph.initial_state, 0, "memory.injected", { consuming_step_id: f.graph.initial_state, identity, query, items, bytes, budget_bytes: MEMORY_BUDGET_BYTES })]);
    }
    return memoryNamespace(f.rec.memory!.items);
  }

  private fail(runId: string, reason: Reason, detail: string): RunEnd {
    return { run_id: runId, state: "", success: false, reason, detail, outputs: {} };
  }

  private async walk(f: Frame): Promise<RunEnd> {
    const g = f.graph;
    const visits = new Map<string, number>();
    const steps = new Map(g.steps.map((s) => [s.name, s]));
    const states = new Map(g.states.map((s) => [s.name, s]));
    const branches = new Map(g.branches.map((b) => [b.name, b]));
    const waits = new Map(g.waits.map((w) => [w.name, w]));
    const approvals = new Map(g.approvals.map((a) => [a.name, a]));
    let node = g.initial_state;
    let returned: Record<string, Value> | undefined;
    for (;;) {
      if (f.signal.aborted) throw this.stopped(f);
      if (node === "_continue" || node === "return") return { run_id: f.runId, state: node, success: true, reason: "ok", outputs: {}, ...(returned ? { returned } : {}) };
      const state = states.get(node);
      if (state) return { run_id: f.runId, state: node, success: state.success, reason: state.success ? "ok" : "failure_state", ...(state.success ? {} : { detail: `reached state "${node}" (success = false)` }), outputs: {} };
      const visit = (visits.get(node) ?? 0) + 1;
      visits.set(node, visit);
      const step = steps.get(node);
      if (step) {
        const r = await this.step(f, step, visit);
        if (!r.next) return this.fail(f.runId, r.reason, r.detail ?? `step "${node}" failed`);
        // A body item that goes on to the next item from a failed step has failed: its loop
        // goes on, and ends any_failed, as an adapter step's item does (the upstream spec,
        // Aggregate outcomes: "at least one iteration produced a non-success outcome"; seed
        // 001's body routes failure to _continue; found by a new-user trial: it all_succeeded).
        if (r.next === "_continue" && (r.reason !== "ok" || r.outcome === "failure")) {
          const reason = r.reason === "ok" ? "adapter_failed" : r.reason;
          return { run_id: f.runId, state: "_continue", success: false, reason, detail: `step "${node}" failed (${r.detail ?? reason}); the loop goes on to its next item`, outputs: {} };
        }
        returned = r.projection;
        node = r.next;
        continue;
      }
      const branch = branches.get(node);
      if (branch) {
        let taken = f.rec.branches.get(`${node}#${visit}`);
        if (!taken) {
          const ns = this.namespaces(f);
          let arm = -1;
          for (let i = 0; i < branch.arms.length; i++) {
            const v = evalExpr(branch.arms[i].when, ns, this.fns(f));
            if (v !== true && v !== false && v !== "true" && v !== "false") {
              throw new EvalFailure(`${branch.arms[i].when.at}: ${branch.switch ? `switch "${node}" match ${i + 1}: "condition"` : `branch "${node}" arm ${i + 1}: "when"`} must be true or false, not ${JSON.stringify(v)}`);
            }
            if (v === true || v === "true") {
              arm = i;
              break;
            }
          }
          const next = arm >= 0 ? branch.arms[arm].next : branch.default;
          if (next === undefined) return this.fail(f.runId, "unknown_outcome", `${branch.switch ? "switch" : "branch"} "${node}": no ${branch.switch ? "condition held" : "arm matched"} and there is no default`);
          // The arm's `output` becomes steps.<node> before its target is entered.
          const out = arm >= 0 ? branch.arms[arm].output : branch.default_output;
          const output = out ? evalMap(out, ns, this.fns(f)) : undefined;
          await this.append([this.entry(f.runId, node, 0, "branch.taken", { visit, arm, next, ...(output ? { output } : {}) })]);
          taken = f.rec.branches.get(`${node}#${visit}`)!;
          // Said once, when taken: a resumed run (or a worker's next job of it) replays it silently, as it does a recorded step.
          this.emit({ event: "branch.taken", run_id: f.runId, node, next: taken.next, arm: taken.arm });
        }
        if (taken.output) {
          f.outputs[node] = taken.output;
          merge(f, taken.output);
        }
        // An arm's `return` with an `output` ends the run with that projection, as a step's
        // outcome does (found by a trial of the Go tool's docs: the projection was lost).
        returned = taken.next === "return" ? taken.output : undefined;
        node = taken.next;
        continue;
      }
      const wait = waits.get(node);
      if (wait) {
        const w = await runWait(this.nodeHost(f), this.nodeRun(f), wait, visit);
        if (!w.next) return this.fail(f.runId, "unknown_outcome", `wait "${node}" ended with "${w.outcome}" but has no outcome for it (and no next)`);
        node = w.next;
        continue;
      }
      const approval = approvals.get(node);
      if (approval) {
        const { next, decision } = await runApproval(this.nodeHost(f), this.nodeRun(f), approval, visit);
        if (!next && decision === "timeout") return this.fail(f.runId, "timeout", `approval "${node}" got no decision before its timeout, and it has no "timeout" outcome`);
        if (!next) return this.fail(f.runId, "rejected", `approval "${node}" was ${decision}${decision === "approved" ? `, and it has no "approved" outcome` : ""}`);
        node = next;
        continue;
      }
      return this.fail(f.runId, "unknown_outcome", `no node "${node}" in workflow "${g.name}"`);
    }
  }

  /**
   * Said of max_total_steps when a nested run exceeds it: the budget is the root workflow's,
   * over the whole run tree (found by a new-user trial: a 300-deep chain stopped at depth
   * ~100 with no word that the steps above had counted).
   */
  private treeWide(f: Frame): string {
    return f.runId === this.rootId ? "" : ` (the root workflow's policy: the steps of every run in the tree count toward it)`;
  }

  /** Counts `n` step visits (or while iterations) of run `f` toward max_total_steps: the tree's count, and `f`'s and its callers'. */
  private charge(f: Frame, n: number): void {
    this.totalSteps += n;
    for (let g: Frame | undefined = f; g; g = g.parent) g.spent.steps += n;
  }

  /**
   * What child run `runId`, ended, used of the step budget: as its `run.completed` says;
   * for one journaled before that was kept, the step visits recorded in it and below it.
   */
  private stepsOf(runId: string): number {
    const kept = this.tree.runs.get(runId)?.completed?.steps;
    if (kept !== undefined) return kept;
    let visits = 0;
    for (const [id, r] of this.tree.runs) if (id === runId || id.startsWith(`${runId}/`)) visits += r.steps.size;
    return visits;
  }

  /** Policies checked before a step visit starts (max_total_steps, max_visits, the warn threshold). */
  private policy(f: Frame, step: GraphStep, visit: number): string | undefined {
    const root = this.rootGraph(f);
    this.charge(f, 1);
    if (this.totalSteps > root.policy.max_total_steps) return `policy max_total_steps = ${root.policy.max_total_steps} exceeded at step "${step.name}"${this.treeWide(f)}`;
    const maxVisits = this.maxVisits(f, step);
    if (maxVisits !== undefined && visit > maxVisits) return `step "${step.name}" visited more than max_visits = ${maxVisits} times`;
    const warnKey = `${f.runId}\u0000${step.name}`;
    if (root.policy.max_visits_warn_threshold > 0 && visit >= root.policy.max_visits_warn_threshold && !this.warned.has(warnKey)) {
      this.warned.add(warnKey);
      this.emit({ event: "warning", run_id: f.runId, message: `step "${step.name}" has been visited ${visit} times (max_visits_warn_threshold)` });
    }
    return undefined;
  }

  private rootGraph(f: Frame): Graph {
    return rootOf(f).graph;
  }

  /** One visit of a step: recorded → re-used; else executed, routed and journaled. */
  private async step(f: Frame, step: GraphStep, visit: number): Promise<{ next?: string; outcome: string; reason: Reason; detail?: string; projection?: Record<string, Value> }> {
    const recorded = f.rec.steps.get(`${step.name}#${visit}`);
    const over = this.policy(f, step, visit);
    if (recorded) {
      f.outputs[step.name] = recorded.output as Value;
      merge(f, recorded.output as Value);
      // Its items' own writes first (in index order), then its outcome's, as they were applied.
      for (let i = 0; step.iteration && f.rec.iterations.has(`${step.name}#${visit}#${i}`); i++) {
        const item = f.rec.iterations.get(`${step.name}#${visit}#${i}`)!;
        f.data.apply(item.data);
        if (item.shared) Object.assign(this.shared, item.shared);
        // What the visit counted toward max_total_steps beyond itself (found by a new-user
        // trial: a resumed loop over a subworkflow ran on past the budget): each while iteration...
        if (step.iteration.kind === "while") this.charge(f, 1);
      }
      // ...and its child runs' steps.
      for (const id of recorded.child_run_ids ?? []) this.charge(f, this.stepsOf(id));
      if (recorded.shared) Object.assign(this.shared, recorded.shared);
      f.data.apply(recorded.data);
      return { next: recorded.next || undefined, outcome: recorded.outcome, reason: recorded.reason, detail: recorded.detail, ...(recorded.projection ? { projection: recorded.projection } : {}) };
    }
    if (over) {
      await this.append([this.entry(f.runId, step.name, 0, "step.completed", { visit, outcome: "", next: "", output: {}, reason: "policy_exceeded", detail: over })]);
      return { outcome: "", reason: "policy_exceeded", detail: over };
    }
    const started = this.clock();
    this.emit({ event: "step.started", run_id: f.runId, step: step.name, visit });
    // The step-entry snapshot: the expressions of this visit, writes included, read it.
    const ns = this.namespaces(f);
    let result: StepOutcome;
    try {
      result = step.iteration ? await this.iterate(f, step, visit) : await this.once(f, step, visit, undefined, undefined);
    } catch (e) {
      if (e instanceof EvalFailure) result = { outcome: "", output: {}, reason: e.reason, detail: e.message, pending: [] };
      else throw e;
    }
    // on_crash = "abort_run": a crashed adapter ends the run, whatever the outcomes say.
    const abortRun = result.reason === "crashed" && this.onCrash(f, step) === "abort_run";
    if (abortRun) result = { ...result, outcome: "", detail: `${result.detail ?? "the adapter crashed"} (on_crash = "abort_run")` };
    let { name: outcomeName, outcome, reason, detail } = this.route(f, step, result, abortRun);
    let output = result.output;
    let effects: OutcomeEffects | undefined;
    if (outcome && !result.routed) {
      try {
        // Older files read the step's own output as steps.<self> in its projections.
        f.outputs[step.name] = output as Value;
        // An iterating step's aggregate outcome reads what its items wrote (the upstream
        // spec: write after a for_each, while or parallel step reads the accumulated state).
        const snapshot = step.iteration ? this.namespaces(f) : ns;
        effects = outcomeEffects(outcome, output, { ...snapshot, steps: f.outputs }, this.fns(f), f.data);
        output = effects.output;
      } catch (e) {
        outcome = undefined;
        reason = "eval_error";
        detail = (e as Error).message;
      }
    }
    const next = outcome?.next ?? "";
    // A `return` with an `output` projection: the outcome's own, or the item's that chose it (an
    // iterating step; found by a new-user trial: a for_each item's `return` lost its projection).
    const projection = next === "return" ? (effects?.projection ?? (result.routed ? result.projection : undefined)) : undefined;
    await this.append([
      ...result.pending,
      this.entry(f.runId, step.name, 0, "step.completed", {
        visit,
        outcome: outcome ? outcomeName : result.outcome,
        next,
        output,
        reason,
        ...(detail ? { detail } : {}),
        ...(result.child_run_ids ? { child_run_ids: result.child_run_ids, ...(result.child_states ? { child_states: result.child_states } : {}) } : {}),
        ...(effects?.shared ? { shared: effects.shared } : {}),
        ...(effects?.data ? { data: effects.data } : {}),
        ...(projection ? { projection } : {}),
      }),
    ], result.soft ? { sync: false } : {});
    if (effects?.shared) Object.assign(this.shared, effects.shared);
    f.data.apply(effects?.data);
    f.outputs[step.name] = output as Value;
    merge(f, output as Value);
    this.emit({ event: "step.completed", run_id: f.runId, step: step.name, visit, outcome: outcome ? outcomeName : result.outcome, next, reason, detail, ...(reason !== "ok" && step.at ? { at: step.at } : {}), ms: this.clock() - started, ...boundedOutput(output) });
    return { next: next || undefined, outcome: outcome ? outcomeName : result.outcome, reason, detail, ...(projection ? { projection } : {}) };
  }

  /**
   * The declared outcome a step's result takes (the upstream spec, "Outcome model"):
   * the one named like the result; else the older `default_outcome`; else `outcome
   * "default"` (said in a warning, as the Go tool's `step.outcome.defaulted` event);
   * else, when the step declares one outcome and the adapter just succeeded, that one
   * (the implicit default). An evaluation error, a policy stop or `on_crash =
   * "abort_run"` takes no outcome: the run fails with the reason.
   */
  private route(f: Frame, step: GraphStep, result: StepOutcome, abortRun: boolean): { name: string; outcome?: GraphStep["outcomes"][number]; reason: Reason; detail?: string } {
    const find = (n: string) => step.outcomes.find((o) => o.name === n);
    let name = result.outcome;
    let outcome = find(name);
    const { reason } = result;
    const routable = !abortRun && reason !== "eval_error" && reason !== "policy_exceeded";
    if (!outcome && routable && step.default_outcome) {
      name = step.default_outcome;
      outcome = find(name);
    }
    if (!outcome && routable && find("default")) {
      this.emit({ event: "warning", run_id: f.runId, message: `step "${step.name}" ended in outcome "${result.outcome}", which it does not declare: outcome "default" taken` });
      name = "default";
      outcome = find(name);
    }
    if (!outcome && reason === "ok" && result.outcome === "success" && step.outcomes.length === 1 && !step.iteration) {
      name = step.outcomes[0].name;
      outcome = step.outcomes[0];
    }
    if (outcome) return { name, outcome, reason: result.reason, ...(result.detail ? { detail: result.detail } : {}) };
    if (reason === "ok") {
      return { name, reason: "unknown_outcome", detail: `step "${step.name}" ended in outcome "${result.outcome}", which it does not declare (declared: ${step.outcomes.map((o) => o.name).join(", ")})` };
    }
    const detail = result.detail ?? `step "${step.name}" failed (${reason})`;
    // An evaluation error, a policy stop or abort_run is never routed: no outcome is missing.
    if (!routable) return { name, reason, detail };
    const declared = step.outcomes.length > 0 ? ` (declared: ${step.outcomes.map((o) => o.name).join(", ")})` : "";
    return { name, reason, detail: `${detail}; step "${step.name}" has no "${result.outcome || "failure"}" outcome to route it${declared}` };
  }

  /**
   * Runs every item of an iterating step: sequentially (`count`, `for_each`; `while`
   * while its condition holds, re-evaluated before each item), or up to `parallel_max`
   * at once. An item whose result names one of the step's own (non-aggregate) outcomes
   * takes it: its projection, `write` blocks and `shared_writes` apply per item, and
   * unless it leads to `_continue` the loop ends and the step takes that outcome (the
   * upstream spec, "The `_continue` target"). Recorded items are re-used with their
   * writes, so a resumed `while` re-evaluates its condition where it stopped.
   */
  private async iterate(f: Frame, step: GraphStep, visit: number): Promise<StepOutcome> {
    const it = step.iteration!;
    const isWhile = it.kind === "while";
    const items = isWhile ? [] : iterationItems(evalExpr(it.expr, this.namespaces(f), this.fns(f)), it.kind, it.expr.at, this.rootGraph(f).policy.max_total_steps);
    const total = isWhile ? -1 : items.length;
    const outputs: Record<string, Value>[] = [];
    const childIds: string[] = [];
    const childStates: string[] = [];
    let failed = 0;
    let stop = false;
    let crashed: string | undefined;
    let policyStop: string | undefined;
    let exit: string | undefined;
    let exitProjection: Record<string, Value> | undefined;
    const eachOf = (i: number, prev: Value): Record<string, Value> =>
      isWhile
        ? { value: null, key: i, _idx: i, _total: -1, _first: i === 0, _last: false, _prev: prev }
        : { value: items[i].value, key: items[i].key, _idx: i, _total: total, _first: i === 0, _last: i === total - 1, _prev: prev };
    const runItem = async (i: number, prev: Value): Promise<void> => {
      const key = `${step.name}#${visit}#${i}`;
      let done = f.rec.iterations.get(key);
      // A recorded item's child run is not walked again: its steps count as they did.
      if (done?.child_run_id) this.charge(f, this.stepsOf(done.child_run_id));
      if (!done) {
        const each = eachOf(i, prev);
        // The item-entry snapshot its own outcome's writes read.
        const itemNs = this.namespaces({ ...f, each });
        const r = await this.once(f, step, visit, i, each);
        if (r.reason === "crashed" && this.onCrash(f, step) === "abort_run") crashed = r.detail ?? "the adapter crashed";
        let success = r.reason === "ok" && (r.outcome === "success" || r.outcome === "return" || step.target.kind !== "body" ? r.outcome !== "failure" : false);
        let output = Array.isArray(r.output) ? {} : r.output;
        let reason = r.reason;
        let detail = r.detail;
        let effects: OutcomeEffects | undefined;
        const own = crashed === undefined && reason !== "eval_error" && reason !== "policy_exceeded" ? step.outcomes.find((o) => o.name === r.outcome && !STEP_WIDE_OUTCOMES.has(o.name)) : undefined;
        if (own) {
          try {
            effects = outcomeEffects(own, output, itemNs, this.fns(f), f.data);
            output = effects.output as Record<string, Value>;
          } catch (e) {
            if (!(e instanceof EvalFailure)) throw e;
            success = false;
            reason = "eval_error";
            detail = e.message;
          }
        }
        await this.append([
          ...r.pending,
          this.entry(f.runId, step.name, 0, "iteration.completed", {
            visit,
            index: i,
            outcome: r.outcome,
            success: success || step.on_failure === "ignore",
            output,
            ...(r.child_run_ids?.[0] ? { child_run_id: r.child_run_ids[0] } : {}),
            ...(r.child_states?.[0] !== undefined ? { child_state: r.child_states[0] } : {}),
            reason,
            ...(reason === "policy_exceeded" && detail ? { detail } : {}),
            ...(effects?.data ? { data: effects.data } : {}),
            ...(effects?.shared ? { shared: effects.shared } : {}),
            ...(effects && own!.next !== "_continue" ? { exit: own!.name } : {}),
            ...(effects?.projection && own!.next === "return" ? { projection: effects.projection } : {}),
          }),
        ], r.soft ? { sync: false } : {});
        done = f.rec.iterations.get(key)!;
        this.emit({
          event: "iteration.completed",
          run_id: f.runId,
          step: step.name,
          index: i,
          total,
          // A map's item is named by its key (found by a new-user trial: `[1/2]` said not which).
          ...(!isWhile && typeof items[i].key === "string" ? { key: items[i].key as string } : {}),
          outcome: done.outcome,
          success: done.success,
          reason: done.reason,
          ...(detail ? { detail } : {}),
          ...(!done.success && step.at ? { at: step.at } : {}),
          ...(typeof done.output.exit_code === "number" ? { exit_code: done.output.exit_code } : {}),
        });
      }
      f.data.apply(done.data);
      if (done.shared) Object.assign(this.shared, done.shared);
      outputs[i] = done.output;
      if (done.child_run_id) {
        childIds[i] = done.child_run_id;
        childStates[i] = done.child_state ?? "";
      }
      if (!done.success) {
        failed++;
        if (step.on_failure === "abort" || crashed !== undefined) stop = true;
      }
      // A policy stop in an item's child run is the tree's: no other item starts, and the
      // step takes no outcome (found by a new-user trial: each item of a for_each ran out of
      // budget in turn, and the step still took any_failed; the run succeeded).
      if (done.reason === "policy_exceeded" && policyStop === undefined) {
        policyStop = done.detail ?? `an item of step "${step.name}" stopped at a policy limit`;
        stop = true;
      }
      // `return` in an item leaves a sequential loop (the review loop's early exit); in a
      // parallel step it ends only its own item, so which items run does not depend on how
      // many run at once (found by a new-user trial: with parallel_max the items not yet
      // started were skipped, the step still all_succeeded).
      if (done.outcome === "return" && it.kind !== "parallel") stop = true;
      if (done.exit !== undefined && exit === undefined) {
        exit = done.exit;
        exitProjection = done.projection;
        stop = true;
      }
    };
    if (it.kind === "parallel") {
      const limit = Math.max(1, it.parallel_max_expr ? this.compileTimeInt(f, it.parallel_max_expr, "parallel_max") : (it.parallel_max ?? total));
      let next = 0;
      // Every item in flight ends (settles) before the step does, whatever another ended
      // with: nothing runs on behind a park, an interruption or a lost lease. An item that
      // parks, or waits for child runs in their own jobs, keeps its place among the
      // `parallel_max` until the run is advanced again; one that belongs to another job
      // (replayed around the child run a job advances) gives its place up.
      const errors: unknown[] = [];
      const worker = async () => {
        while (!stop && next < total) {
          try {
            await runItem(next++, null);
          } catch (e) {
            if (e instanceof NotThisUnit) continue;
            errors.push(e);
            if (!(e instanceof ChildrenPending) && !(e instanceof RunParked)) stop = true;
            return;
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(limit, total) }, worker));
      if (errors.length > 0) throw firstOf(errors, { is: (e) => e instanceof RunParked, with: (p, children) => this.alsoWaiting(p as RunParked, children) });
      // Items that had started when another one stopped the loop (a `return`) run to their end
      // in a live run: a resumed one finishes them too, and counts them (found by the channels'
      // kill test: a resumed parallel step lost the items after a returning one).
      const stepId = visit > 1 ? `${step.name}@${visit}` : step.name;
      const started = (i: number) =>
        f.rec.iterations.has(`${step.name}#${visit}#${i}`) || this.tree.runs.has(`${f.runId}/${step.name}#${visit}[${i}]`) || f.rec.attempts.has(idempotencyKey(f.runId, stepId, i));
      for (let i = 0; i < total; i++) if (outputs[i] === undefined && started(i)) await runItem(i, null);
    } else if (isWhile) {
      const maxVisits = this.maxVisits(f, step);
      const maxTotal = this.rootGraph(f).policy.max_total_steps;
      let prev: Value = null;
      for (let i = 0; !stop; i++) {
        if (!f.rec.iterations.has(`${step.name}#${visit}#${i}`)) {
          const holds = evalExpr(it.expr, this.namespaces({ ...f, each: eachOf(i, prev) }), this.fns(f));
          if (typeof holds !== "boolean") throw new EvalFailure(`${it.expr.at}: step "${step.name}": while must be true or false, not ${JSON.stringify(holds)?.slice(0, 60)}`);
          if (!holds) break;
          if (maxVisits !== undefined && i >= maxVisits) {
            return { outcome: "", output: outputs, reason: "policy_exceeded", detail: `step "${step.name}": its while condition still holds after max_visits = ${maxVisits} iterations`, pending: [] };
          }
        }
        this.charge(f, 1);
        if (this.totalSteps > maxTotal) {
          return { outcome: "", output: outputs, reason: "policy_exceeded", detail: `policy max_total_steps = ${maxTotal} exceeded in the while loop of step "${step.name}"${this.treeWide(f)}`, pending: [] };
        }
        await runItem(i, prev);
        prev = outputs[i];
      }
    } else {
      let prev: Value = null;
      for (let i = 0; i < total && !stop; i++) {
        await runItem(i, prev);
        prev = outputs[i];
      }
    }
    const ran = outputs.filter((o) => o !== undefined);
    const children = childIds.some(Boolean) ? { child_run_ids: childIds.filter(Boolean), child_states: childStates.filter((_, i) => childIds[i]) } : {};
    if (crashed !== undefined) return { outcome: "", output: ran, reason: "crashed" as Reason, detail: crashed, pending: [] as NewEntry[], ...children };
    if (policyStop !== undefined) return { outcome: "", output: ran, reason: "policy_exceeded" as Reason, detail: policyStop, pending: [] as NewEntry[], ...children };
    if (exit !== undefined) return { outcome: exit, output: ran, reason: "ok" as Reason, pending: [] as NewEntry[], routed: true, ...(exitProjection ? { projection: exitProjection } : {}), ...children };
    // Without an any_failed (or default) outcome, failed items fall through to all_succeeded
    // (the Go tool's rule; validate warns about it).
    const declaresFailure = step.outcomes.some((o) => o.name === "any_failed" || o.name === "default");
    return {
      outcome: failed > 0 && declaresFailure ? "any_failed" : "all_succeeded",
      output: ran,
      reason: "ok" as Reason,
      ...(total === 0 ? { detail: `${it.kind} is empty: nothing to iterate, so all_succeeded` } : {}),
      pending: [] as NewEntry[],
      ...children,
    };
  }

  /**
   * `parallel_max` / `max_visits` written as an expression of `var.*` / `local.*`: a
   * whole number of at least `min`, or {@link EvalFailure} naming the position.
   */
  private compileTimeInt(f: Frame, e: GraphExpr, what: string, min = 1): number {
    const v = evalExpr(e, this.namespaces(f), this.fns(f));
    if (typeof v !== "number" || !Number.isInteger(v) || v < min) throw new EvalFailure(`${e.at}: ${what} must be a whole number of at least ${min}, not ${JSON.stringify(v)}`);
    return v;
  }

  /** A step's max_visits (its expression evaluated); undefined when unlimited (absent, or the Go tool's 0). */
  private maxVisits(f: Frame, step: GraphStep): number | undefined {
    const n = step.max_visits_expr ? this.compileTimeInt(f, step.max_visits_expr, "max_visits", 0) : step.max_visits;
    return n === 0 ? undefined : n;
  }

  /**
   * One execution of a step (or of one item of an iterating step): its body as a child
   * run, or its adapter/agent session. Re-uses a confirmed effect; retries adapter
   * errors up to `max_step_retries`. Entries that need not precede execution come back
   * in `pending` to be written with the completion, in one transaction.
   */
  private async once(
    f: Frame,
    step: GraphStep,
    visit: number,
    iteration: number | undefined,
    each: Record<string, Value> | undefined,
  ): Promise<ItemOutcome> {
    const call = this.childCall(f, step, each);
    if (call) return this.spawnChild(f, step, visit, iteration, each, call);
    this.leavesRunning++;
    try {
      return await this.leaf(f, step, visit, iteration, each);
    } finally {
      this.leavesRunning--;
    }
  }

  /** {@link once} for a step that runs no child: an adapter, an agent or a channel. */
  private async leaf(
    f: Frame,
    step: GraphStep,
    visit: number,
    iteration: number | undefined,
    each: Record<string, Value> | undefined,
  ): Promise<ItemOutcome> {
    if (step.target.kind !== "adapter" && step.target.kind !== "agent" && step.target.kind !== "channel") {
      return { outcome: "failure", output: {}, reason: "adapter_error", detail: `step "${step.name}": ${step.target.kind} targets cannot run yet`, pending: [] };
    }
    const stepId = visit > 1 ? `${step.name}@${visit}` : step.name;
    const key = idempotencyKey(f.runId, stepId, iteration);
    const rec = f.rec.attempts.get(key);
    const tag = { visit, ...(iteration !== undefined ? { iteration } : {}) };
    const retries = this.rootGraph(f).policy.max_step_retries;
    // The journal's last word on this work: a confirmed result of the latest attempt is
    // final (never executed again) unless it is a retryable failure with budget left,
    // counted over the whole run, so a resumed run does not get a fresh retry budget.
    if (rec?.confirmed && rec.confirmedAttempt === rec.started && (!RETRYABLE.has(rec.confirmed.reason) || rec.transientFailures > retries)) {
      const c = rec.confirmed;
      return { outcome: c.outcome, output: c.output, reason: c.reason, detail: c.detail, pending: [] };
    }
    const pending: NewEntry[] = [];
    let attempt = rec?.started ?? 0;
    const named = `step "${step.name}"${iteration !== undefined ? ` [${itemLabel(iteration, typeof each?._total === "number" ? each._total : -1, typeof each?.key === "string" ? each.key : undefined)}]` : ""}`;
    // A channel receive recorded and not confirmed (parked under workers, or its process
    // died while it waited: it had taken nothing) goes on in the same attempt.
    const continuing = step.target.kind === "channel" && rec !== undefined && rec.started > 0 && rec.recvAttempt === rec.started && rec.confirmedAttempt !== rec.started && !rec.crashed.has(rec.started);
    if (!continuing && rec && rec.started > 0 && rec.confirmedAttempt !== rec.started && !rec.crashed.has(rec.started)) {
      await this.append([this.entry(f.runId, step.name, rec.started, "step.attempt.crashed", { idempotency_key: key, ...tag })]);
      // The killed criteria process may have left the attempt's processes running: stop
      // them before the work runs again, so the two never overlap.
      const reaped = await reapOrphan(orphanFile(this.opts.journal.stateDir, key));
      // Nothing left to stop: it may have done its work before it ended (README, the
      // at-least-once window; found by a new-user trial: an effect ran twice, unsaid).
      const again = reaped
        ? "its leftover processes were stopped; running it again"
        : "it may have done its work all the same: running it again with the same $CRITERIA_IDEMPOTENCY_KEY, by which it can tell";
      this.emit({ event: "warning", run_id: f.runId, message: `${named} attempt ${rec.started} ended without a result (the criteria process running it stopped, or lost the run, first); ${again}` });
    } else if (rec && rec.started > 0 && rec.confirmedAttempt !== rec.started && rec.interrupted.has(rec.started)) {
      this.emit({ event: "warning", run_id: f.runId, message: `${named} attempt ${rec.started} was interrupted; running it again` });
    }
    if (step.target.kind === "channel") return this.channelStep(f, step, step.target.name, { key, attempt, tag, untilMs: rec?.recvUntil, continuing }, each);
    const { adapter, sessionId, sessions, config, agent, secrets } = this.targetOf(f, step);
    const onCrash = this.onCrash(f, step);
    if (step.lifecycle) {
      // Older files open and close agent sessions explicitly (`lifecycle = "open" | "close"`):
      // the step manages the session and executes nothing.
      if (step.lifecycle === "open") await sessions.get(sessionId, () => ({ adapter, config: config() }));
      else await sessions.discard(sessionId);
      pending.push(this.entry(f.runId, step.name, attempt + 1, "step.attempt.started", { idempotency_key: key, ...tag, adapter: adapter.type }));
      pending.push(this.entry(f.runId, step.name, attempt + 1, "effect.confirmed", { idempotency_key: key, ...tag, outcome: "success", output: { session: step.lifecycle === "open" ? "opened" : "closed" }, reason: "ok" }));
      return { outcome: "success", output: { session: step.lifecycle === "open" ? "opened" : "closed" }, reason: "ok", pending };
    }
    const ns = this.namespaces(each ? { ...f, each } : f);
    const item = (ns.each ?? undefined) as Record<string, Value> | undefined;
    const evaluated = step.input_expr ? evalExpr(step.input_expr, ns, this.fns(f)) : evalMap(step.input, ns, this.fns(f));
    if (evaluated === null || typeof evaluated !== "object" || Array.isArray(evaluated)) {
      throw new EvalFailure(`${step.input_expr?.at ?? step.name}: step "${step.name}": input must be an object, not ${JSON.stringify(evaluated)?.slice(0, 60)}`);
    }
    const input = evaluated;
    // The step's environment (its own, else the workflow's): variables become the
    // process environment of shell steps and agent CLIs.
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(step.environment ? evalMap(step.environment.variables, ns, this.fns(f)) : {})) {
      env[k] = typeof v === "string" ? v : JSON.stringify(v);
    }
    // Secrets (the adapter's `secrets`, the step's `secret_input`) reach the step's process
    // as environment variables, never as input or config, and are masked everywhere.
    const secretEnv = { ...secrets(), ...(step.secret_input ? evalMap(step.secret_input, ns, this.fns(f)) : {}) };
    for (const [k, v] of Object.entries(secretEnv)) {
      this.registerSecret(v, `secret "${k}" of step "${step.name}"`, f.runId);
      env[k] = typeof v === "string" ? v : JSON.stringify(v);
    }
    for (;;) {
      attempt++;
      const started = this.entry(f.runId, step.name, attempt, "step.attempt.started", { idempotency_key: key, ...tag, adapter: adapter.type });
      if (adapter.effectful) {
        // Journaled before the effect, not flushed: a power loss that takes it also takes
        // the effect's confirmation, and an unconfirmed attempt runs again either way.
        await this.append([started, this.entry(f.runId, step.name, attempt, "effect.recorded", { idempotency_key: key, adapter: adapter.type, ...tag })], { sync: false });
      } else pending.push(started);
      // The step's timeout bounds the wait for its session too (an adapter's handshake).
      const opened = await openWithin(sessions.get(sessionId, () => ({ adapter, config: config() })), step.timeout_ms, f.signal);
      const session = "session" in opened ? opened.session : undefined;
      const waitedMs = opened.waitedMs;
      const access = session ? await this.channelAccess(f, step, key, attempt, tag) : undefined;
      // Its agent's channel effects are journaled as it goes: its attempt comes first.
      if (access && !adapter.effectful) await this.append(pending.splice(pending.indexOf(started), 1), { sync: false });
      const ctl = new AbortController();
      const onAbort = () => ctl.abort();
      f.signal.addEventListener("abort", onAbort, { once: true });
      // Stopped while this attempt was being journaled or its session opened: a listener
      // added now never fires, and the step would run to its end (found by CI: a stopping
      // worker waited for ever on a step that waited for a file).
      if (f.signal.aborted) onAbort();
      const req: StepRequest = {
        run_id: f.runId,
        step: step.name,
        attempt,
        visit,
        idempotency_key: key,
        input,
        // Timeouts past what a Node timer holds (~24.8 days) are held to that.
        // What the session's opening left of it (at least 1 ms: 0 would be no limit to an adapter).
        ...(step.timeout_ms !== undefined ? { timeout_ms: Math.max(1, Math.min(step.timeout_ms - waitedMs, MAX_TIMER_MS)) } : {}),
        env: access ? { ...env, ...access.env } : env,
        allow_tools: step.allow_tools,
        ...(agent ? { agent } : {}),
        outcomes: step.outcomes.map((o) => o.name),
        ...(item ? { each: { index: item._idx as number, total: item._total as number, key: item.key, value: item.value } } : {}),
        signal: ctl.signal,
      };
      let res: StepResult;
      try {
        res = session
          ? await session.execute(req)
          : { outcome: "failure", output: {}, reason: f.signal.aborted ? "cancelled" : "timeout", detail: `its ${adapter.type} session did not open within the step's timeout (${waitedMs} ms)` };
      } finally {
        f.signal.removeEventListener("abort", onAbort);
        access?.release();
      }
      if (adapter.effectful) afterEffect();
      // A secret the step printed is masked in its output, live as on resume.
      if (!this.redactor.empty) res = this.redactor.redactKeeping(res);
      if (f.signal.aborted) {
        const stop = this.stopped(f);
        // Stopped on purpose (not a crash): say so in the journal when the attempt is there.
        if (adapter.effectful) {
          try {
            await this.append([this.entry(f.runId, step.name, attempt, "step.attempt.interrupted", { idempotency_key: key, ...tag, cause: stop instanceof DeadlineExceeded ? "timeout" : "signal" })]);
          } catch {
            // the journal cannot be written: resume marks the attempt crashed instead
          }
        }
        throw stop;
      }
      const confirmed = this.entry(f.runId, step.name, attempt, "effect.confirmed", { idempotency_key: key, ...tag, outcome: res.outcome, output: res.output, reason: res.reason, ...(res.detail ? { detail: res.detail } : {}) });
      // on_crash (the step's, else its adapter's or agent's): `respawn` opens a fresh
      // session for what comes next; `fail` (the default) keeps the dead one.
      if (res.reason === "crashed" && onCrash === "respawn") await sessions.discard(sessionId);
      if (RETRYABLE.has(res.reason)) {
        // A retryable failure is journaled at once: it spends retry budget even if the
        // process dies before the next attempt.
        await this.append([...pending.splice(0), confirmed]);
        if (f.rec.attempts.get(key)!.transientFailures <= retries && !(res.reason === "crashed" && onCrash === "abort_run")) {
          this.emit({ event: "warning", run_id: f.runId, message: `step "${step.name}" attempt ${attempt} failed (${res.reason}); retrying` });
          continue;
        }
        return { outcome: res.outcome, output: res.output, reason: res.reason, detail: res.detail, pending: [] };
      }
      // An effectful result is confirmed on its own entry (resume re-uses it even if the
      // step's completion was never written). A side-effect-free adapter's attempt is
      // written with its completion in one transaction, which records the result already.
      if (adapter.effectful) pending.push(confirmed);
      return { outcome: res.outcome, output: res.output, reason: res.reason, detail: res.detail, pending };
    }
  }

  /**
   * One attempt of a step that targets channel `name` (channel-steps.ts): the channel as
   * declared by the run or an enclosing one, the step's input evaluated into its operation.
   * @throws EvalFailure when the input is not a post or a receive of the channel's participants
   */
  private async channelStep(
    f: Frame,
    step: GraphStep,
    name: string,
    at: { key: string; attempt: number; tag: { visit: number; iteration?: number }; untilMs?: number; continuing?: boolean },
    each: Record<string, Value> | undefined,
  ): Promise<ItemOutcome> {
    // The nearest declaration: a body's or module's own channel of a name shadows its caller's.
    let channel: Graph["channels"][number] | undefined;
    let scope = "";
    for (let g: Frame | undefined = f; g && !channel; g = g.parent) {
      channel = g.graph.channels.find((c) => c.name === name);
      scope = g.runId;
    }
    if (!channel) throw new EvalFailure(`step "${step.name}": channel "${name}" is not declared here`);
    const ns = this.namespaces(each ? { ...f, each } : f);
    const input = step.input_expr ? evalExpr(step.input_expr, ns, this.fns(f)) : evalMap(step.input, ns, this.fns(f));
    if (input === null || typeof input !== "object" || Array.isArray(input)) throw new EvalFailure(`${step.input_expr?.at ?? step.name}: step "${step.name}": input must be an object`);
    const where = step.input_expr?.at ?? Object.values(step.input)[0]?.at ?? `step "${step.name}"`;
    const op = channelOp(input, channel, where);
    return runChannelStep(this.channelHost(f), { runId: f.runId, step: step.name, channel: { name, scope }, op, ...at });
  }

  /** What channel steps and agents' channel calls of run `f` may use of the runner (channel-steps.ts). */
  private channelHost(f: Frame): ChannelHost {
    return {
      clock: this.clock,
      // Sleeps until the next poll, or until this runner journals a post.
      sleep: async (ms, signal) => {
        const woken = new AbortController();
        const wake = () => woken.abort();
        this.posted.addEventListener("post", wake, { once: true });
        signal.addEventListener("abort", wake, { once: true });
        if (signal.aborted) wake();
        try {
          await this.sleep(ms, woken.signal);
        } finally {
          this.posted.removeEventListener("post", wake);
          signal.removeEventListener("abort", wake);
        }
      },
      signal: f.signal,
      interrupted: () => this.stopped(f),
      append: (entries, opts) => this.append(entries, opts),
      entry: (...a) => this.entry(...a),
      emit: (e) => this.emit(e),
      tree: this.tree,
      refresh: () => this.readNew(),
      pollMs: this.opts.pollMs ?? 250,
      // Under workers a receive with nothing to take parks like a signal wait: its job ends,
      // and its deadline goes to the queue first (a receive that never parks leaves no timer).
      park: async (untilMs, what) => {
        if (!this.opts.park || !this.opts.parkTimers || untilMs <= this.clock()) return undefined;
        await this.append([], { wake: { atMs: untilMs } });
        const waiting = `${what} (until ${new Date(untilMs).toISOString()}, then its timeout outcome)`;
        return new RunParked(this.unit, `run ${this.unit} is parked, waiting for ${waiting}`, untilMs, waiting);
      },
      othersBusy: () => this.leavesRunning - this.receivesWaiting > 0,
      waiting: (delta) => void (this.receivesWaiting += delta),
      wakeReceivers: async (channel, to, from) => {
        if (!this.opts.park || !this.opts.parkTimers) return;
        // Read after the post was journaled: a receive recorded before it is in the tree now
        // (one recorded after it reads the journal before it parks, and sees the post).
        await this.readNew();
        const key = channelKey(channel.scope, channel.name);
        const units = new Set<string>();
        for (const r of this.tree.receiving.values()) if (r.channel === key && r.as === to && (r.from === undefined || r.from === from)) units.add(unitOf(this.tree, this.rootId, r.run_id));
        if (units.size > 0) await this.append([], { wake: { runs: [...units] } });
      },
    };
  }

  /**
   * Channel access for an attempt of a step whose agent takes part in channels of its run
   * (or of enclosing runs): the endpoint is started on first use; the attempt is admitted
   * with a token of its own, registered as a secret. Undefined for any other step.
   */
  private async channelAccess(f: Frame, step: GraphStep, key: string, attempt: number, tag: { visit: number; iteration?: number }): Promise<{ env: Record<string, string>; release(): void } | undefined> {
    if (step.target.kind !== "agent") return undefined;
    const agent = step.target.name;
    // The channels visible here whose participants include the agent: the nearest
    // declaration of each name (a body's or module's own shadows its caller's), with its run.
    const channels = new Map<string, string[]>();
    const scopes = new Map<string, string>();
    for (let g: Frame | undefined = f; g; g = g.parent) {
      for (const c of g.graph.channels) {
        if (scopes.has(c.name)) continue;
        scopes.set(c.name, g.runId);
        if (c.participants.includes(agent)) channels.set(c.name, c.participants);
      }
    }
    if (channels.size === 0) return undefined;
    const endpoint = await this.startEndpoint();
    // The step's attempt ending stops what its agent still waits for (a killed process's receive).
    const ended = new AbortController();
    const host = { ...this.channelHost(f), signal: AbortSignal.any([f.signal, ended.signal]) };
    const who = { runId: f.runId, step: step.name, attempt, tag, key };
    const ref = (name: string) => ({ name, scope: scopes.get(name)! });
    const admitted = endpoint.admit(f.runId, key, attempt, {
      agent,
      channels,
      post: (channel, op, n) => agentPost(host, who, n, ref(channel), op),
      recv: (channel, op, n) => agentRecv(host, who, n, ref(channel), op),
    });
    this.registerSecret(admitted.token, `the channel credentials of step "${step.name}"`, f.runId);
    return {
      env: admitted.env,
      release: () => {
        ended.abort();
        admitted.release();
      },
    };
  }

  /**
   * The channel endpoint, started on first use (with the NATS broker when one is given).
   * @throws RunRefused when the broker cannot be reached, saying so without a stack trace
   */
  private startEndpoint(): Promise<ChannelEndpoint> {
    this.endpoint ??= ChannelEndpoint.start({ broker: this.opts.broker, workspace: createHash("sha256").update(this.rootId).digest("hex").slice(0, 16) }).catch((e: unknown) => {
      this.endpoint = undefined;
      throw new RunRefused(`cannot reach the NATS broker ${this.opts.broker}: ${(e as Error).message}`);
    });
    return this.endpoint;
  }

  /** The channel endpoint of this runner, once a step needed it (closed when the runner stops). */
  private endpoint?: Promise<ChannelEndpoint>;

  /** Closes the channel endpoint, if one was started. */
  private async closeEndpoint(): Promise<void> {
    const e = this.endpoint;
    this.endpoint = undefined;
    if (e) await (await e.catch(() => undefined))?.close();
  }

  /** The step's on_crash, else its adapter's or agent's (wherever declared), else `fail`. */
  private onCrash(f: Frame, step: GraphStep): string {
    if (step.on_crash) return step.on_crash;
    const t = step.target;
    const declared = t.kind === "agent" ? ownerOf(f, "agents", t.name)?.decl.on_crash : t.kind === "adapter" ? ownerOf(f, "adapters", t.id)?.decl.on_crash : undefined;
    return declared ?? "fail";
  }

  /**
   * The session a step runs on: the adapter or agent as declared by the run that owns it
   * (an inherited entry is the enclosing run's, an expected one the caller's), its
   * session in that run's scope, and its config evaluated there.
   */
  private targetOf(f: Frame, step: GraphStep) {
    if (step.target.kind === "agent") {
      const name = step.target.name;
      const owner = ownerOf(f, "agents", name);
      if (!owner) throw new EvalFailure(`step "${step.name}": agent "${name}" is not declared by this run or its callers`);
      const a = owner.decl;
      const type = a.adapter ?? a.cli ?? "local";
      const ns = () => this.namespaces(owner.frame);
      return {
        adapter: this.opts.adapterFor(type),
        sessionId: `agent.${name}`,
        sessions: owner.frame.sessions,
        config: () => ({ ...evalMap(a.config, ns(), this.fns(owner.frame)), ...(a.model ? { model: a.model } : {}), ...(a.cli ? { cli: a.cli } : {}) }),
        agent: { name, ...(a.model ? { model: a.model } : {}), config: evalMap(a.config, ns(), this.fns(owner.frame)) },
        secrets: () => ({}) as Record<string, Value>,
      };
    }
    const id = (step.target as { id: string }).id;
    const owner = ownerOf(f, "adapters", id);
    if (!owner) throw new EvalFailure(`step "${step.name}": adapter "${id}" is not declared by this run or its callers`);
    const a = owner.decl;
    return {
      adapter: this.opts.adapterFor(a.type),
      sessionId: `adapter.${id}`,
      sessions: owner.frame.sessions,
      config: () => evalMap(a.config, this.namespaces(owner.frame), this.fns(owner.frame)),
      agent: undefined,
      secrets: () => (a.secrets ? resolveSecrets(evalMap(a.secrets, this.namespaces(owner.frame), this.fns(owner.frame)), a.at ?? a.id) : {}),
    };
  }

  /**
   * What a step runs as a child run, if it does (docs/language.md, Composition): its inline or `workflow_file`
   * body (sees everything around it), a subworkflow (an isolated module whose variables
   * the declaration's `input` and the step's `input` bind), or a flow used as an agent
   * (an isolated module whose `input` is the step's input; same-named keys bind its
   * variables). Undefined for adapter and plain agent steps.
   */
  private childCall(f: Frame, step: GraphStep, each: Record<string, Value> | undefined): ChildCall | undefined {
    const t = step.target;
    if (t.kind === "body" && step.body) {
      const g = step.body;
      const vars = { ...f.vars };
      for (const v of g.variables) if (v.default) vars[v.name] = evalExpr(v.default, this.namespaces(f), this.fns(f));
      return { kind: "body", graph: g, vars, input: f.inputs, isolated: false };
    }
    const ns = () => this.namespaces(each ? { ...f, each } : f);
    if (t.kind === "subworkflow") {
      const decl = subworkflowOf(f, t.name);
      const g = decl ? this.rootGraph(f).modules?.[decl.module] : undefined;
      if (!decl || !g) throw new EvalFailure(`step "${step.name}": subworkflow "${t.name}" is not in the compiled graph`);
      const bound = { ...evalMap(decl.input, this.namespaces(f), this.fns(f)), ...evalMap(step.input, ns(), this.fns(f)) };
      const at = (name: string) => step.input[name]?.at ?? decl.input[name]?.at;
      return { kind: "subworkflow", graph: g, vars: this.bindVariables(g, bound, `subworkflow "${t.name}"`, at), input: bound, isolated: true };
    }
    if (t.kind === "agent") {
      const agent = ownerOf(f, "agents", t.name)?.decl;
      if (!agent?.flow) return undefined;
      const g = this.rootGraph(f).modules?.[agent.flow.module];
      if (!g) throw new EvalFailure(`step "${step.name}": the flow of agent "${t.name}" is not in the compiled graph`);
      const evaluated = step.input_expr ? evalExpr(step.input_expr, ns(), this.fns(f)) : evalMap(step.input, ns(), this.fns(f));
      if (evaluated === null || typeof evaluated !== "object" || Array.isArray(evaluated)) {
        throw new EvalFailure(`${step.input_expr?.at ?? step.name}: step "${step.name}": input must be an object, not ${JSON.stringify(evaluated)?.slice(0, 60)}`);
      }
      const at = (name: string) => step.input[name]?.at ?? step.input_expr?.at;
      return { kind: "flow", graph: g, vars: this.bindVariables(g, evaluated, `flow "${g.name}"`, at), input: evaluated, isolated: true };
    }
    return undefined;
  }

  /**
   * A module's variables from the values bound to them (converted to their types), else their
   * defaults. A value that does not convert is an EvalFailure at the `file:line:col` that bound
   * it, when `at` knows it (found by a new-user trial: the message had no position).
   */
  private bindVariables(g: Graph, bound: Record<string, Value>, what: string, at: (name: string) => string | undefined): Record<string, Value> {
    const vars: Record<string, Value> = {};
    const fns = this.functionsAt(this.dirOf(g));
    for (const v of g.variables) {
      // The value bound (said with where it was bound), else the default; converted in one place.
      let value: Value;
      let label = `${what} variable "${v.name}"`;
      if (Object.prototype.hasOwnProperty.call(bound, v.name)) {
        value = bound[v.name];
        const where = at(v.name);
        if (where) label = `${where}: ${label}`;
      } else if (v.default) value = evalExpr(v.default, {}, fns);
      else throw new EvalFailure(`${what}: variable "${v.name}" is required and was not passed`);
      vars[v.name] = v.type ? conform(v.type, value, label, v.secret) : value;
      if (v.secret) this.registerSecret(vars[v.name], `${what} secret variable "${v.name}"`, this.rootId, keysAreData(v.type));
    }
    return vars;
  }

  /**
   * Runs a child run for a step (one code path for bodies, subworkflows and flows used as
   * agents; docs/architecture.md, Nested runs). Its id is deterministic (`parent/step#visit[item]`),
   * so a resumed parent finds it: a completed child is not run again, an interrupted one
   * resumes inside. Its terminal state decides the step's outcome: `success` (or `return`
   * from an iteration), else `failure` with the child's reason threaded through.
   */
  private async spawnChild(f: Frame, step: GraphStep, visit: number, iteration: number | undefined, each: Record<string, Value> | undefined, call: ChildCall): Promise<ItemOutcome> {
    const childId = `${f.runId}/${step.name}#${visit}${iteration !== undefined ? `[${iteration}]` : ""}`;
    const max = this.rootGraph(f).policy.max_depth ?? DEFAULT_POLICY.max_depth!;
    if (f.depth + 1 > max) {
      return { outcome: "", output: {}, reason: "policy_exceeded", detail: `runs would nest ${f.depth + 1} deep, past policy max_depth = ${max}: ${chainOf(f)} > ${call.graph.name}`, pending: [] };
    }
    const g = call.graph;
    const identity = call.kind === "body" ? g.identity : (g.identity ?? g.name);
    const spawn: Payloads["run.spawned"] = {
      workflow: g.name,
      spec_hash: specHash(g),
      ...(identity ? { identity } : {}),
      parent_run_id: f.runId,
      parent_step_id: step.name,
      ...(iteration !== undefined ? { iteration } : {}),
      call: call.kind,
      inputs: call.kind === "body" ? {} : call.vars,
      ...(call.kind === "flow" ? { input: call.input } : {}),
      ...(each ? { each: { index: each._idx as number, total: each._total as number, key: each.key, value: each.value, prev: each._prev } } : {}),
    };
    const release = await this.placeChild(childId, g, spawn, step.timeout_ms);
    // The step's timeout bounds its child run (counted from its spawn, also across a resume).
    let timer: NodeJS.Timeout | undefined;
    if (step.timeout_ms !== undefined) {
      const ctl = new AbortController();
      const since = this.tree.runs.get(childId)?.spawned_at_ms ?? this.clock();
      const left = step.timeout_ms - (this.clock() - since);
      // Already past (a child job woken at its deadline): stopped before it waits again.
      if (left <= 0) ctl.abort();
      else timer = setTimeout(() => ctl.abort(), Math.min(left, MAX_TIMER_MS));
      call = { ...call, deadline: { ms: step.timeout_ms, signal: ctl.signal } };
    }
    const end = await this.runGraph(call, childId, f, each, spawn).finally(async () => {
      clearTimeout(timer);
      await release?.();
    });
    // A module's result is its declared outputs (its internals stay inside); a body's, or a
    // module's that declares none, its steps' merged outputs.
    const declares = g.outputs.length > 0;
    const output = Object.keys(end.outputs).length > 0 || (call.isolated && declares) ? end.outputs : (end.merged_output ?? {});
    // A child that failed is a failure, even one that failed after its `return` (its outputs
    // did not evaluate: found by a new-user trial, the caller took "success" and the run succeeded).
    // A body's `return` ends its caller's loop (an early exit); an isolated module's is only how
    // it ends (found by a trial: a module ending by return ran one item of its caller's for_each).
    const outcome = !end.success ? (end.reason === "policy_exceeded" ? "" : "failure") : end.state === "return" && !call.isolated ? "return" : "success";
    return {
      outcome: iteration === undefined && outcome === "return" ? "success" : outcome,
      output,
      // A policy stop below is the tree's (its limits are the root's): it takes no outcome here either.
      reason: end.success ? "ok" : end.reason === "timeout" || end.reason === "policy_exceeded" ? end.reason : "child_failed",
      ...(end.success ? {} : { detail: childFailureDetail(call.kind === "body" ? `nested run ${childId}` : `${call.kind === "flow" ? "flow" : "subworkflow"} "${g.name}" (run ${childId})`, end) }),
      pending: [],
      child_run_ids: [childId],
      child_states: [end.state],
    };
  }

  /**
   * Where child run `childId` runs (the scale-out issue, item 4), before it runs here:
   * - ended: here (its journaled end is read back);
   * - on the way to the run a child job advances, or that run: here (replayed into);
   * - outside that run: not here ({@link NotThisUnit});
   * - spawned into a job of its own, or to be (workers, a child that inherits no session it
   *   cannot re-open elsewhere): its `run.spawned` is journaled `detached` with its job's
   *   wake-up (and another at the calling step's deadline, `timeoutMs` from now, so a child
   *   parked past it ends `timeout`), and this run waits for it ({@link ChildrenPending});
   * - spawned detached but run by a process without workers (`criteria resume`): here,
   *   under the child's own lease (refused while a worker holds it).
   * @returns how to give back a lease taken here
   */
  private async placeChild(childId: string, g: Graph, spawn: Payloads["run.spawned"], timeoutMs: number | undefined): Promise<(() => Promise<void>) | undefined> {
    const rec = this.tree.runs.get(childId);
    if (rec?.completed || within(this.unit, childId)) return undefined;
    if (!within(childId, this.unit)) throw new NotThisUnit(childId);
    const detached = rec?.spawned ? rec.spawned.detached === true : this.opts.detachChildren === true && this.opts.park === true && !sharesCallerSessions(g, (type) => this.stateless(type));
    if (!detached) return undefined;
    if (this.opts.detachChildren && this.opts.park) {
      if (!rec?.spawned) {
        const deadline = timeoutMs !== undefined ? [{ runs: [childId], atMs: this.clock() + timeoutMs }] : [];
        await this.append([this.entry(childId, "", 0, "run.spawned", { ...spawn, detached: true })], { wake: [{ runs: [childId] }, ...deadline] });
      }
      throw new ChildrenPending([childId]);
    }
    await this.takeLease(childId);
    return () => this.giveBack(childId);
  }

  /** Whether sessions of adapter type `type` keep nothing between steps ({@link Adapter.stateless}); false when unknown. */
  private stateless(type: string): boolean {
    try {
      return this.opts.adapterFor(type).stateless === true;
    } catch {
      return false;
    }
  }

  /**
   * Waits until an unconsumed signal named `name`, addressed to run `f` or one of its
   * ancestors, is in the journal (polling); the closest addressee's first, then the oldest. With a deadline `untilMs`, only a signal given
   * by then counts: one given later (the run parked, then resumed after both) is left for a
   * later wait of that name, and this one ends `timeout` — the deadline decides, as a
   * Temporal timer does (found by a new-user trial: an approval given a day late won).
   */
  private async awaitSignal(f: Frame, name: string, untilMs?: number): Promise<JournalEntry<"signal.received"> | undefined> {
    for (;;) {
      // The one addressed most closely first, then the oldest: one given to the root goes to
      // whichever item asks first (found by a new-user trial: an item took the root's
      // approval and left its own rejection to nobody).
      const hit = signalFor(this.tree, name, f.runId, untilMs);
      if (hit) {
        this.tree.consumed.add(hit.seq);
        return hit;
      }
      if (f.signal.aborted) throw this.stopped(f);
      if (this.opts.park && (untilMs === undefined || untilMs > this.clock())) {
        // A wait with only named outcomes (approved / rejected) is ended by a signal naming one.
        throw this.parked(name, untilMs, name.startsWith("approval:") ? undefined : outcomesToName(f.graph.waits, name));
      }
      const left = untilMs === undefined ? Infinity : untilMs - this.clock();
      if (left <= 0) return undefined;
      await this.sleep(Math.min(this.opts.pollMs ?? 250, left), f.signal);
      try {
        await this.readNew();
      } catch (e) {
        // A server that does not answer (a restart) is waited out, as appends wait it out: the
        // next poll reads again; past a lease period the lease is lost and the run stops (found
        // by a new-user trial: a foreground apply parked at a signal wait died of a restart).
        if (!(e instanceof JournalReadError && e.unreachable)) throw e;
      }
    }
  }

  /**
   * Folds what the tree's journal holds past {@link readThrough}: what other processes wrote
   * (signals, posts, other jobs' entries), skipping this runner's own (folded when written).
   * Reading on from the highest seq folded instead lost another job's entry whose seq lay
   * below one of this runner's own (found by a new-user trial: a receive parked with its
   * message in the journal, and a post found no receive to wake).
   */
  private async readNew(): Promise<void> {
    await this.serially(() =>
      this.opts.journal.scan(
        this.rootId,
        (e) => {
          if (!this.ownAhead.delete(e.seq)) applyEntry(this.tree, e);
          this.readThrough = e.seq;
        },
        this.readThrough,
      ),
    );
  }

  /** What wait and approval nodes of run `f` may use of the runner (wait-nodes.ts). */
  private nodeHost(f: Frame): NodeHost {
    return {
      clock: this.clock,
      sleep: this.sleep,
      signal: f.signal,
      interrupted: () => this.stopped(f),
      append: (entries, opts) => this.append(entries, opts),
      parkTimer: (untilMs) => (this.opts.park && this.opts.parkTimers && untilMs > this.clock() ? new RunParked(this.unit, `run ${this.unit} is parked until ${new Date(untilMs).toISOString()} (a duration wait)`, untilMs, `${new Date(untilMs).toISOString()} (a duration wait)`) : undefined),
      entry: (...a) => this.entry(...a),
      emit: (e) => this.emit(e),
      awaitSignal: (name, untilMs) => this.awaitSignal(f, name, untilMs),
      autoApprove: this.opts.autoApprove === true,
    };
  }

  /**
   * The run parks at a wait for `name` (a signal, or `approval:<node>`): what to do next, said
   * once. `outcomes`: the wait's, when a signal must name one of them (it has no route for one
   * that names none; found by a trial of the Go tool's docs: the command suggested was refused).
   */
  private parked(name: string, untilMs?: number, outcomes?: string[]): RunParked {
    const r = this.rootId;
    const until = untilMs !== undefined ? ` (until ${new Date(untilMs).toISOString()}, then its timeout route)` : "";
    const node = shellWord(name.slice(9));
    const what = name.startsWith("approval:")
      ? `approval "${name.slice(9)}"${until}: decide with criteria approve ${shellWord(r)} ${node}${this.storeFlag()} (or criteria reject ${shellWord(r)} ${node}${this.storeFlag()})`
      : `signal "${name}"${until}: deliver it with ${signalCommand(r, name, this.storeFlag(), outcomes)}`;
    return new RunParked(this.unit, `run ${this.unit} is parked, waiting for ${what}, then continue it with criteria resume ${shellWord(this.unit)}${this.storeFlag()}`, untilMs, what);
  }

  /** What the commands this runner suggests need to find its journal again: `--store` for a database (its URL without a password). */
  private storeFlag(): string {
    const j = this.opts.journal;
    if (!j.besideCheckout) return storeOption(j.location);
    // A state directory other than the default is named, so the command works as printed
    // (found by a new-user trial: copied, it looked in ./.criteria).
    return placeFlag(dirname(j.location));
  }

  /** Why run `f` stops now that its signal is aborted: a step timeout around it, or an interruption. */
  private stopped(f: Frame): Error {
    return (!this.abort.signal.aborted && deadlineOf(f)) || new RunInterrupted(this.rootId);
  }

  private nodeRun(f: Frame): NodeRun {
    return { runId: f.runId, rec: f.rec, evaluate: (e) => evalExpr(e, this.namespaces(f), this.fns(f)) };
  }

  /** Stops the run where it stands (resumable). */
  interrupt(): void {
    this.abort.abort();
  }
}

/**
 * An output's value converted to its declared type (`conform`).
 * @throws EvalFailure naming where the output's value is written, `output "n" (file:line:col): …`
 *   (a new-user trial: a subworkflow's output of the wrong type failed its caller's step with
 *   no place in the subworkflow's file). Not `file:line:col: …` first: that is how an
 *   expression's own failure reads, withheld whole when it reads a secret (redact.ts).
 */
function typedOutput(o: Graph["outputs"][number], v: Value): Value {
  return conform(o.type!, v, `output "${o.name}"${o.value ? ` (${o.value.at})` : ""}`, o.secret);
}

/** Whether a graph, its bodies or its modules declare a channel. */
function hasChannels(g: Graph): boolean {
  return g.channels.length > 0 || g.steps.some((s) => s.body !== undefined && hasChannels(s.body)) || Object.values(g.modules ?? {}).some(hasChannels);
}

/**
 * Whether the keys of a variable's value are data, part of a secret one: of a `map(...)`, of
 * `any` or an undeclared type; not of an `object({...})`, whose keys are the workflow's own
 * names (found by a new-user trial: a secret map's keys were journaled and shown).
 */
function keysAreData(type: string | undefined): boolean {
  const kind = type === undefined ? undefined : parseType(type).type?.kind;
  return kind === undefined || kind === "map" || kind === "any";
}
