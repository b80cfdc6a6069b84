import type { ChannelMessage, JournalEntry, Payloads } from "./entry.js";

/** What the journal says about one run: the fold of its entries (docs/architecture.md, Resume). */
export interface RunRecord {
  run_id: string;
  spawned?: Payloads["run.spawned"];
  /** When `run.spawned` was journaled (a resumed child's timeout counts from it). */
  spawned_at_ms?: number;
  completed?: Payloads["run.completed"];
  /** The workflow's directory since the last `run.relocated` (a root run), when one was journaled. */
  relocated?: string;
  /** `step.completed` by `node#visit`. */
  steps: Map<string, Payloads["step.completed"]>;
  /** Attempts by idempotency key: highest attempt started, crashed attempts, the confirmed effect. */
  attempts: Map<string, AttemptRecord>;
  /** `iteration.completed` by `node#visit#index`. */
  iterations: Map<string, Payloads["iteration.completed"]>;
  branches: Map<string, Payloads["branch.taken"]>;
  waits: Map<string, { started?: JournalEntry<"wait.started">; completed?: Payloads["wait.completed"] }>;
  approvals: Map<string, { requested?: Payloads["approval.requested"]; decided?: Payloads["approval.decided"] }>;
  /** The memory pack recalled for the run, if any. */
  memory?: Payloads["memory.injected"];
}

export interface AttemptRecord {
  /** Highest attempt number started. */
  started: number;
  /** Attempt numbers that ended without a result: found crashed on resume, or interrupted. */
  crashed: Set<number>;
  /** Of those, the ones stopped on purpose (`step.attempt.interrupted`). */
  interrupted: Set<number>;
  /** The last confirmed result. Final unless a retryable failure (see `transientFailures`). */
  confirmed?: Payloads["effect.confirmed"];
  /** The attempt `confirmed` belongs to: a later started attempt supersedes it. */
  confirmedAttempt: number;
  /** Confirmed results that were retryable failures (adapter_error, crashed, timeout): the retry budget spent. */
  transientFailures: number;
  /** The attempts counted in `transientFailures` (so folding an entry twice counts it once). */
  transientAttempts: Set<number>;
  /** A channel receive's deadline, as its first attempt recorded it (later attempts keep it). */
  recvUntil?: number;
  /** The attempt that last recorded a channel receive (one recorded and not confirmed goes on in it). */
  recvAttempt?: number;
}

/** Results the runner retries, within `policy.max_step_retries`. */
export const RETRYABLE = new Set(["adapter_error", "crashed", "timeout"]);

/** The fold of a whole run tree. */
export interface TreeRecord {
  runs: Map<string, RunRecord>;
  /** Signals delivered to the tree, in journal order. */
  signals: JournalEntry<"signal.received">[];
  /** Seqs of signals already consumed by waits/approvals. */
  consumed: Set<number>;
  /** Each channel's messages, in journal order (one per id), and the ids a receive took. */
  channels: Map<string, ChannelRecord>;
  /**
   * Channel receives recorded and not confirmed, by idempotency key: who may be waiting for
   * a message (a post wakes their runs' jobs under workers). One whose step ended otherwise
   * (a crash) stays: waking it is harmless.
   */
  receiving: Map<string, { run_id: string; channel: string; as: string; from?: string }>;
  lastSeq: number;
}

/** What the tree's journal says of one channel: the embedded broker's whole state. */
export interface ChannelRecord {
  messages: (ChannelMessage & { seq: number; at_ms: number })[];
  /** The ids of `messages`. */
  ids: Set<string>;
  received: Set<string>;
  /** Every message before this index of `messages` is received (a cursor receives move on; only `received` grows). */
  open: number;
}

/** The key of channel `name` declared by run `scope` in {@link TreeRecord.channels}. */
export function channelKey(scope: string | undefined, name: string): string {
  return `${scope ?? ""}\u0000${name}`;
}

/** The record of the channel with `key` ({@link channelKey}) in `tree`, created empty on first use. */
export function channelOf(tree: TreeRecord, key: string): ChannelRecord {
  let c = tree.channels.get(key);
  if (!c) tree.channels.set(key, (c = { messages: [], ids: new Set(), received: new Set(), open: 0 }));
  return c;
}

/**
 * The signal a wait of run `runId` for `name` (`approval:<node>` for a decision) takes, as the
 * runner takes it (engine/run/runner.ts `awaitSignal`): one journaled and not yet taken (nor
 * in `taken`), sent to `runId` or to a run above it, and given by `untilMs` when the wait has
 * a deadline (one given later answers nothing: the node takes its timeout route, as a
 * Temporal timer decides); the one addressed most closely first (this run's own before its
 * parent's: a decision given to one parallel item is that item's), then the oldest.
 */
export function signalFor(tree: TreeRecord, name: string, runId: string, untilMs?: number, taken?: ReadonlySet<number>): JournalEntry<"signal.received"> | undefined {
  let hit: JournalEntry<"signal.received"> | undefined;
  for (const s of tree.signals) {
    if (s.payload.name !== name || tree.consumed.has(s.seq) || taken?.has(s.seq) || (untilMs !== undefined && s.at_ms > untilMs)) continue;
    if (s.run_id !== runId && !runId.startsWith(`${s.run_id}/`)) continue;
    if (!hit || s.run_id.length > hit.run_id.length) hit = s;
  }
  return hit;
}

/**
 * The signals and decisions journaled and not yet taken, each given to one open wait or
 * approval as the runner takes them ({@link signalFor}; one ends one): `take(name, runId,
 * untilMs)` gives the one the wait of `runId` for `name` would take, or undefined.
 */
function givenSignals(tree: TreeRecord): (name: string, runId: string, untilMs?: number) => JournalEntry<"signal.received"> | undefined {
  const taken = new Set<number>();
  return (name, runId, untilMs) => {
    const s = signalFor(tree, name, runId, untilMs, taken);
    if (s) taken.add(s.seq);
    return s;
  };
}

/**
 * What a run tree is parked on (`criteria runs`): the open waits (`signal "go"`, `the time
 * (wait "pause")`) and approvals (`approval "gate"`) of its runs that have not ended, run by
 * run, then its channel receives (`a message on channel "c"`); each once (by its words);
 * empty when nothing of it waits. A wait or an approval whose signal or decision is given and
 * not yet taken ({@link answeredIn}) no longer waits; one given ends one of several waiting
 * (found by a new-user trial: a decision for one of two parallel approvals "gate" read as if
 * it ended both).
 */
export function waitingIn(tree: TreeRecord): Waiting[] {
  const out = new Map<string, Waiting>();
  const add = (w: Omit<Waiting, "text">, text: string) => out.set(text, { ...w, text });
  const take = givenSignals(tree);
  for (const r of tree.runs.values()) {
    if (r.completed) continue;
    for (const [k, w] of r.waits) {
      if (!w.started || w.completed) continue;
      const signal = w.started.payload.signal;
      const node = k.slice(0, k.lastIndexOf("#"));
      if (signal !== undefined) {
        if (!take(signal, r.run_id)) add({ kind: "signal", name: signal }, `signal "${signal}"`);
      } else add({ kind: "time", name: node }, `the time (wait "${node}")`);
    }
    for (const [k, a] of r.approvals) {
      const node = k.slice(0, k.lastIndexOf("#"));
      if (a.requested && !a.decided && !take(`approval:${node}`, r.run_id)) add({ kind: "approval", name: node }, `approval "${node}"`);
    }
  }
  for (const x of tree.receiving.values()) {
    const name = x.channel.slice(x.channel.indexOf("\u0000") + 1);
    if (!tree.runs.get(x.run_id)?.completed) add({ kind: "message", name }, `a message on channel "${name}"`);
  }
  return [...out.values()];
}

/**
 * One thing a run tree waits for ({@link waitingIn}): a signal by its name, the time of a
 * duration wait by the wait's name, an approval by its node's name, or a message by its
 * channel's name; `text` says it in `criteria runs`'s words (`signal "go"`). Kinds and names
 * are given so that what answers it can be named without reading the words back.
 */
export interface Waiting {
  kind: "signal" | "time" | "approval" | "message";
  name: string;
  text: string;
}

/**
 * The signal waits and approvals of a run tree not ended, still open, that have a journaled
 * deadline: each named as `runs` says it (`wait "hold"`, `approval "gate"`) with its deadline
 * (ms since the epoch), run by run, waits first.
 */
export function openDeadlines(tree: TreeRecord): { text: string; untilMs: number }[] {
  const out: { text: string; untilMs: number }[] = [];
  for (const r of tree.runs.values()) {
    if (r.completed) continue;
    for (const [k, w] of r.waits) {
      const p = w.started?.payload;
      if (p?.signal !== undefined && !w.completed && p.until_ms !== undefined) out.push({ text: `wait "${k.slice(0, k.lastIndexOf("#"))}"`, untilMs: p.until_ms });
    }
    for (const [k, a] of r.approvals) {
      const until = a.requested?.until_ms;
      if (!a.decided && until !== undefined) out.push({ text: `approval "${k.slice(0, k.lastIndexOf("#"))}"`, untilMs: until });
    }
  }
  return out;
}

/**
 * The signal waits and approvals of a run tree not ended whose journaled deadline is past at
 * `nowMs` (`approval "gate"`): the run is no longer waiting for them, it takes their timeout
 * route when it goes on (found by a new-user trial: `runs` still said "give it" after an
 * approval's deadline, which approve then refused).
 */
export function timedOutIn(tree: TreeRecord, nowMs: number): string[] {
  return [...new Set(openDeadlines(tree).filter((d) => d.untilMs <= nowMs).map((d) => d.text))];
}

/**
 * The waits and approvals of a run tree not ended whose signal or decision is journaled and
 * not yet taken (`signal "go" given`, `approval "ok" approved`, `approval "ok" rejected`): the run is ready to go on, and is no longer
 * waiting for them, whatever {@link waitingIn} says (found by a new-user trial: a run whose
 * worker gave up on it was listed as waiting for an approval already given). A signal counts
 * for a wait of the run it was sent to or of any run below that one.
 */
export function answeredIn(tree: TreeRecord): string[] {
  // Given to the run or to any run above it, as the runner's awaitSignal takes it (found
  // writing a test: one given to a run between the root and the waiting one did not count).
  const pending = givenSignals(tree);
  const out: string[] = [];
  for (const r of tree.runs.values()) {
    if (r.completed) continue;
    // One given after the deadline answers nothing (found by a new-user trial: runs said
    // "its signal given" after a timeout).
    for (const w of r.waits.values()) {
      const signal = w.started?.payload.signal;
      const given = signal !== undefined && !w.completed ? pending(signal, r.run_id, w.started?.payload.until_ms) : undefined;
      if (given) out.push(`signal "${signal}" given`);
    }
    for (const [k, a] of r.approvals) {
      const name = k.slice(0, k.lastIndexOf("#"));
      // Which way it was decided (found by a new-user trial: a rejection read "given", as an approval).
      const given = a.requested && !a.decided ? pending(`approval:${name}`, r.run_id, a.requested.until_ms) : undefined;
      if (given) out.push(`approval "${name}" ${given.payload.payload === "rejected" ? "rejected" : "approved"}`);
    }
  }
  return [...new Set(out)];
}

/** An empty record for a run. */
export function emptyRecord(runId: string): RunRecord {
  return { run_id: runId, steps: new Map(), attempts: new Map(), iterations: new Map(), branches: new Map(), waits: new Map(), approvals: new Map() };
}

/**
 * Folds journal entries into per-run records in one pass: O(entries), no replay of
 * adapters (docs/architecture.md, Resume: cost is linear in the journal). Applying the same entries
 * again gives the same record; the runner folds what it appends as it goes, so a live
 * run and a resumed one hold the same state.
 */
export function foldEntries(entries: Iterable<JournalEntry>, into?: TreeRecord): TreeRecord {
  const tree: TreeRecord = into ?? { runs: new Map(), signals: [], consumed: new Set(), channels: new Map(), receiving: new Map(), lastSeq: 0 };
  for (const e of entries) applyEntry(tree, e);
  return tree;
}

/** Applies one entry to the tree record. */
export function applyEntry(tree: TreeRecord, e: JournalEntry): void {
  tree.lastSeq = Math.max(tree.lastSeq, e.seq);
  let r = tree.runs.get(e.run_id);
  if (!r) {
    r = emptyRecord(e.run_id);
    tree.runs.set(e.run_id, r);
  }
  const p = e.payload as never;
  switch (e.entry_type) {
    case "run.spawned":
      r.spawned = p;
      r.spawned_at_ms = e.at_ms;
      break;
    case "run.completed":
      r.completed = p;
      break;
    case "run.relocated":
      r.relocated = (p as Payloads["run.relocated"]).base_dir;
      break;
    case "memory.injected":
      r.memory = p;
      break;
    case "step.completed": {
      const c = p as Payloads["step.completed"];
      r.steps.set(`${e.step_id}#${c.visit}`, c);
      break;
    }
    case "step.attempt.started":
    case "step.attempt.crashed":
    case "step.attempt.interrupted":
    case "effect.recorded":
    case "effect.confirmed": {
      const a = p as { idempotency_key: string };
      let rec = r.attempts.get(a.idempotency_key);
      if (!rec) {
        rec = { started: 0, crashed: new Set(), interrupted: new Set(), confirmedAttempt: 0, transientFailures: 0, transientAttempts: new Set() };
        r.attempts.set(a.idempotency_key, rec);
      }
      if (e.entry_type === "step.attempt.started") rec.started = Math.max(rec.started, e.attempt);
      else if (e.entry_type === "step.attempt.crashed") rec.crashed.add(e.attempt);
      else if (e.entry_type === "step.attempt.interrupted") {
        rec.crashed.add(e.attempt);
        rec.interrupted.add(e.attempt);
      }
      else if (e.entry_type === "effect.recorded") {
        // A post's record is its delivery: the first record of an id is the message (a post
        // made again after a crash records the same id, and is the same message).
        const recv = (p as Payloads["effect.recorded"]).recv;
        if (recv && rec.recvUntil === undefined) rec.recvUntil = recv.until_ms;
        if (recv) {
          rec.recvAttempt = e.attempt;
          const { channel, channel_scope } = p as Payloads["effect.recorded"];
          if (channel !== undefined) tree.receiving.set(a.idempotency_key, { run_id: e.run_id, channel: channelKey(channel_scope, channel), as: recv.as, ...(recv.from !== undefined ? { from: recv.from } : {}) });
        }
        const m = (p as Payloads["effect.recorded"]).message;
        const ch = (p as Payloads["effect.recorded"]).channel;
        if (m && ch !== undefined) {
          const c = channelOf(tree, channelKey((p as Payloads["effect.recorded"]).channel_scope, ch));
          if (!c.ids.has(m.id)) {
            c.ids.add(m.id);
            c.messages.push({ ...m, seq: e.seq, at_ms: e.at_ms });
          }
        }
      } else if (e.entry_type === "effect.confirmed") {
        const c = p as Payloads["effect.confirmed"];
        tree.receiving.delete(a.idempotency_key);
        if (c.received) channelOf(tree, channelKey(c.received.scope, c.received.channel)).received.add(c.received.id);
        rec.confirmed = c;
        rec.confirmedAttempt = e.attempt;
        if (RETRYABLE.has(c.reason)) {
          rec.transientAttempts.add(e.attempt);
          rec.transientFailures = rec.transientAttempts.size;
        }
      }
      break;
    }
    case "iteration.completed": {
      const c = p as Payloads["iteration.completed"];
      r.iterations.set(`${e.step_id}#${c.visit}#${c.index}`, c);
      break;
    }
    case "branch.taken": {
      const c = p as Payloads["branch.taken"];
      r.branches.set(`${e.step_id}#${c.visit}`, c);
      break;
    }
    case "wait.started":
    case "wait.completed": {
      const c = p as { visit: number };
      const k = `${e.step_id}#${c.visit}`;
      const w = r.waits.get(k) ?? {};
      if (e.entry_type === "wait.started") w.started = e as JournalEntry<"wait.started">;
      else {
        w.completed = p;
        const seq = (p as Payloads["wait.completed"]).signal_seq;
        if (seq !== undefined) tree.consumed.add(seq);
      }
      r.waits.set(k, w);
      break;
    }
    case "approval.requested":
    case "approval.decided": {
      const c = p as { visit: number };
      const k = `${e.step_id}#${c.visit}`;
      const a = r.approvals.get(k) ?? {};
      if (e.entry_type === "approval.requested") a.requested = p;
      else {
        a.decided = p;
        const seq = (p as Payloads["approval.decided"]).signal_seq;
        if (seq !== undefined) tree.consumed.add(seq);
      }
      r.approvals.set(k, a);
      break;
    }
    case "signal.received":
      tree.signals.push(e as JournalEntry<"signal.received">);
      break;
  }
}
