import { parseDuration } from "../../compiler/decode/durations.js";
import type { Value } from "../../compiler/expr/value.js";
import type { Reason } from "../adapters/adapter.js";
import type { JournalEntry, NewEntry, Payloads } from "../journal/entry.js";
import type { AppendOptions } from "../journal/journal.js";
import { channelKey, type TreeRecord } from "../journal/fold.js";
import { MAX_MESSAGE_BYTES } from "../channels/endpoint.js";
import { canonicalJson } from "../journal/canonical-json.js";
import { MessageTakenError } from "../journal/errors.js";
import { EvalFailure } from "./evaluate.js";
import type { RunEvent } from "./events.js";

/**
 * Declarative channel steps (the channels issue, item 3; seed 002): `post` and `recv` on
 * a channel are effects on the one effect protocol (record → deliver → confirm), kinds
 * `post` and `recv`. The embedded broker is the run tree's journal itself: recording a
 * post delivers it (its id is deterministic, so a post made again after a crash is the
 * same message), and a receive takes the earliest message for it, in journal order, that
 * no receive has taken, and confirms it at once, naming it. So a resumed run re-uses a
 * confirmed receive and sees each message once; concurrent posts are ordered by the journal.
 */

/** A channel step's operation, from its evaluated input. */
export type ChannelOp = { kind: "post"; from: string; to: string; body: Value } | { kind: "recv"; as: string; from?: string; timeoutMs: number };

/**
 * Reads a channel step's evaluated input (`post = { from, to, body }` or
 * `recv = { as, from, timeout }`), checking what the compiler could not when the values
 * were expressions (compiler/check/check-channels.ts checks written text).
 * @param at the input's source position, for the error
 * @throws EvalFailure naming the position, the field and what is allowed
 */
export function channelOp(input: Record<string, Value>, channel: { name: string; participants: string[] }, at: string): ChannelOp {
  const fail = (why: string) => new EvalFailure(`${at}: channel "${channel.name}": ${why}`);
  const ops = Object.keys(input).filter((k) => k === "post" || k === "recv");
  if (ops.length !== 1 || Object.keys(input).length !== 1) throw fail("the input must be post = { from, to, body } or recv = { as, from, timeout }, and nothing else");
  const o = input[ops[0]];
  if (o === null || typeof o !== "object" || Array.isArray(o)) throw fail(`${ops[0]} must be an object, not ${JSON.stringify(o)?.slice(0, 60)}`);
  const participant = (field: string, optional = false): string | undefined => {
    const v = o[field];
    if (v === undefined || v === null) {
      if (optional) return undefined;
      throw fail(`${ops[0]} needs "${field}"`);
    }
    if (typeof v !== "string" || !channel.participants.includes(v)) throw fail(`${field} = ${JSON.stringify(v)?.slice(0, 60)} is not a participant (${channel.participants.join(", ")})`);
    return v;
  };
  if (ops[0] === "post") {
    const body = o.body ?? null;
    const size = Buffer.byteLength(JSON.stringify(body));
    if (size > MAX_MESSAGE_BYTES) throw fail(`the message is ${size} bytes of JSON; a message is at most ${MAX_MESSAGE_BYTES} (${MAX_MESSAGE_BYTES / 1024} KiB)`);
    return { kind: "post", from: participant("from")!, to: participant("to")!, body };
  }
  const t = o.timeout;
  const timeoutMs = typeof t === "string" ? parseDuration(t) : undefined;
  if (timeoutMs === undefined) throw fail(`recv needs a timeout, a duration such as "30s", not ${JSON.stringify(t) ?? "nothing"}`);
  return { kind: "recv", as: participant("as")!, from: participant("from", true), timeoutMs };
}

/** What a channel step may use of the runner. */
export interface ChannelHost {
  clock(): number;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** The step's run's abort signal (an interruption, a step timeout). */
  signal: AbortSignal;
  interrupted(): Error;
  append(entries: NewEntry[], opts?: AppendOptions): Promise<JournalEntry[]>;
  entry<T extends keyof Payloads>(run_id: string, step_id: string, attempt: number, entry_type: T, payload: Payloads[T]): NewEntry;
  emit(e: RunEvent): void;
  /** The tree as folded so far (its channels are the broker's state). */
  tree: TreeRecord;
  /** Reads the journal's new entries of the tree into `tree` (posts by other runs, other processes). */
  refresh(): Promise<void>;
  /** How often a receive looks for new messages (ms). */
  pollMs: number;
  /**
   * The error a channel step's receive parks with instead of polling (`criteria worker`:
   * its job ends and the lease is given back; a post to it or its deadline, journaled as a
   * timer wake-up before this resolves, wakes the run), or undefined when the receive waits
   * here. `what` says what it waits for.
   */
  park(untilMs: number, what: string): Promise<Error | undefined>;
  /** Whether other steps of this process's run are executing (and may post): a receive then waits here instead of parking. */
  othersBusy(): boolean;
  /** Counts a receive in (+1) or out (-1) of waiting for a message: a waiting receive is not busy. */
  waiting(delta: 1 | -1): void;
  /**
   * After a post to `to` from `from` on `channel` is journaled: wakes the jobs of the runs
   * whose receives may be waiting for it (under workers; nothing otherwise).
   */
  wakeReceivers(channel: ChannelRef, to: string, from: string): Promise<void>;
}

/** A channel as declared: its name and the run that declares it (its scope). */
export interface ChannelRef {
  name: string;
  scope: string;
}

/** One attempt at a channel step: which step, which attempt came before, and the earlier receive's deadline. */
export interface ChannelAttempt {
  runId: string;
  step: string;
  key: string;
  /** The last attempt started before this one (0 for none). */
  attempt: number;
  tag: { visit: number; iteration?: number };
  channel: ChannelRef;
  op: ChannelOp;
  /** A receive started by an earlier attempt ends when it would have: its deadline is kept. */
  untilMs?: number;
  /**
   * The receive of attempt `attempt` was recorded and not confirmed (it parked under
   * workers, or its process died while it waited): it goes on in that attempt, nothing
   * journaled again before it takes a message or times out.
   */
  continuing?: boolean;
}

/**
 * A channel step's result; `pending` is written with the step's completion, which needs no
 * flush of its own (`soft`): lost on a power failure, the step is done again harmlessly
 * (a post records the same message id; a confirmed receive is re-used).
 */
export interface ChannelResult {
  outcome: string;
  output: Record<string, Value>;
  reason: Reason;
  pending: NewEntry[];
  soft: true;
}

/** Who performs a channel effect: a step's attempt, and the effect's own idempotency key. */
export interface ChannelActor {
  runId: string;
  step: string;
  attempt: number;
  tag: { visit: number; iteration?: number };
  /** The effect's idempotency key (a channel step's own; `<step key>.post.<n>` for an agent's n-th post). */
  key: string;
}

/**
 * Posts `message` on `channel`: its record delivers it (journaled; flushed unless `soft`,
 * see {@link runChannelStep}); returns the post's output `{ id, channel, from, to }` and its
 * confirmation, to be written after.
 *
 * A message the journal already holds (the same post made again: the step ran again after
 * a crash, and ids are deterministic) is not recorded again: the first record is the
 * message, delivered once, and the journal keeps one body per id (found by an audit of
 * seed 002: a redone agent's post was journaled a second time with its new text, which
 * was never delivered). `replayed` then says whether this post's body was the same.
 */
async function postMessage(
  h: ChannelHost,
  who: ChannelActor,
  channel: ChannelRef,
  message: { id: string; from: string; to: string; body: Value },
  before: NewEntry[] = [],
  soft = false,
): Promise<{ output: Record<string, Value>; confirmed: NewEntry; replayed?: { sameBody: boolean } }> {
  const base = { idempotency_key: who.key, ...who.tag };
  const output = { id: message.id, channel: channel.name, from: message.from, to: message.to };
  const confirmed = h.entry(who.runId, who.step, who.attempt, "effect.confirmed", { ...base, outcome: "success", output, reason: "ok" });
  const earlier = h.tree.channels.get(channelKey(channel.scope, channel.name))?.messages.find((m) => m.id === message.id);
  if (earlier) {
    if (before.length > 0) await h.append(before, soft ? { sync: false } : {});
    return { output, confirmed, replayed: { sameBody: canonicalJson(earlier.body) === canonicalJson(message.body) } };
  }
  await h.append([...before, h.entry(who.runId, who.step, who.attempt, "effect.recorded", { ...base, adapter: "channel", kind: "post", channel: channel.name, channel_scope: channel.scope, message })], soft ? { sync: false } : {});
  await h.wakeReceivers(channel, message.to, message.from);
  return { output, confirmed };
}

/**
 * Receives on `channel` as `op.as` (from `op.from` when given) until `until` (ms): records
 * the receive (not flushed: lost, the receive only starts again; not again when `how.recorded`),
 * then takes the earliest message for it that no receive took and confirms it at once,
 * naming it (so no other receive, in this process or another, takes it); a message already
 * there when the receive starts is taken in the record's own commit. Returns `received`
 * with `{ id, from, body, at }`, or `timeout` with `{}` and the confirmation to write after.
 * With `how.park`, a receive with nothing to take parks instead of polling ({@link ChannelHost.park};
 * when, see {@link takeMessage}), once it has read the journal again after its record: a post
 * journaled before that read is seen, and one journaled after it finds the record and wakes the run.
 * @throws the host's interruption when the run is stopped while receiving; the host's park;
 *   JournalWriteError, LeaseLostError
 */
async function receiveMessage(
  h: ChannelHost,
  who: ChannelActor,
  channel: ChannelRef,
  op: { as: string; from?: string },
  until: number,
  before: NewEntry[] = [],
  how: { recorded?: boolean; park?: boolean; soft?: boolean } = {},
): Promise<{ outcome: "received" | "timeout"; output: Record<string, Value>; confirmed?: NewEntry }> {
  const base = { idempotency_key: who.key, ...who.tag };
  if (!how.recorded) {
    const recv = { as: op.as, ...(op.from ? { from: op.from } : {}), until_ms: until };
    const recorded = h.entry(who.runId, who.step, who.attempt, "effect.recorded", { ...base, adapter: "channel", kind: "recv", channel: channel.name, channel_scope: channel.scope, recv });
    // A message already there is taken in the record's own commit (one commit, not two);
    // taken meanwhile by another process, the commit is refused whole and the receive goes the long way.
    const ready = waitingFor(h, channel, op);
    if (ready) {
      const { output, confirmed } = taken(h, who, channel, op, ready);
      ready.took(); // no other receive of this process looks at it again
      try {
        await h.append([...before, recorded, confirmed], { takes: { id: ready.id, after: ready.seq }, ...(how.soft ? { sync: false } : {}) });
        return { outcome: "received", output };
      } catch (e) {
        if (!(e instanceof MessageTakenError)) throw e;
      }
    }
    await h.append([...before, recorded], { sync: false });
  }
  h.waiting(1);
  try {
    return await takeMessage(h, who, channel, op, until, how.park === true, how.soft === true);
  } finally {
    h.waiting(-1);
  }
}

/**
 * The waiting part of {@link receiveMessage}. With `park`, it parks once nothing else of the
 * run in this process is executing at two looks a poll apart (a sibling item about to post
 * would otherwise make it park and be woken through the queue, seconds later: found by a
 * new-user trial, a conversation between items of one job was 75 times slower), the journal
 * read again after its record in between.
 */
async function takeMessage(
  h: ChannelHost,
  who: ChannelActor,
  channel: ChannelRef,
  op: { as: string; from?: string },
  until: number,
  park: boolean,
  soft: boolean,
): Promise<{ outcome: "received" | "timeout"; output: Record<string, Value>; confirmed?: NewEntry }> {
  const base = { idempotency_key: who.key, ...who.tag };
  let idleLooks = 0;
  for (;;) {
    // Stopped (the run, or the step whose agent asked): take nothing more.
    if (h.signal.aborted) throw h.interrupted();
    const m = waitingFor(h, channel, op);
    if (m) {
      const { output, confirmed } = taken(h, who, channel, op, m);
      // Taken here, at once: no other receive of this process looks at it again.
      m.took();
      try {
        await h.append([confirmed], { takes: { id: m.id, after: m.seq }, ...(soft ? { sync: false } : {}) });
      } catch (e) {
        if (e instanceof MessageTakenError) continue; // another process's receive took it: the next one
        throw e;
      }
      return { outcome: "received", output };
    }
    if (h.signal.aborted) throw h.interrupted();
    const left = until - h.clock();
    if (left <= 0) return { outcome: "timeout", output: {}, confirmed: h.entry(who.runId, who.step, who.attempt, "effect.confirmed", { ...base, outcome: "timeout", output: {}, reason: "ok" }) };
    idleLooks = park && !h.othersBusy() ? idleLooks + 1 : 0;
    if (idleLooks >= 2) {
      const parked = await h.park(until, `a message on channel "${channel.name}" for "${op.as}"${op.from ? ` from "${op.from}"` : ""}`);
      if (parked) throw parked;
    }
    await h.sleep(Math.min(h.pollMs, left), h.signal);
    await h.refresh();
  }
}

/** The earliest message on `channel` for `op.as` (from `op.from` when given) that no receive took, as the run tree holds them; `took()` marks it taken in the tree. */
function waitingFor(h: ChannelHost, channel: ChannelRef, op: { as: string; from?: string }): { id: string; seq: number; from: string; body: Value; at_ms: number; took(): void } | undefined {
  const c = h.tree.channels.get(channelKey(channel.scope, channel.name));
  if (!c) return undefined;
  // Past the received ones at the front at once (a stream of messages would be read from its start for each).
  while (c.open < c.messages.length && c.received.has(c.messages[c.open].id)) c.open++;
  let m: (typeof c.messages)[number] | undefined;
  for (let i = c.open; i < c.messages.length && !m; i++) {
    const x = c.messages[i];
    if (x.to === op.as && (op.from === undefined || x.from === op.from) && !c.received.has(x.id)) m = x;
  }
  return m && { id: m.id, seq: m.seq, from: m.from, body: m.body, at_ms: m.at_ms, took: () => void c!.received.add(m.id) };
}

/** A receive's output for message `m`, and its confirmation naming the message. */
function taken(h: ChannelHost, who: ChannelActor, channel: ChannelRef, op: { as: string }, m: { id: string; from: string; body: Value; at_ms: number }): { output: Record<string, Value>; confirmed: NewEntry } {
  const output = { id: m.id, from: m.from, body: m.body, at: m.at_ms };
  const received = { channel: channel.name, scope: channel.scope, as: op.as, id: m.id };
  return { output, confirmed: h.entry(who.runId, who.step, who.attempt, "effect.confirmed", { idempotency_key: who.key, ...who.tag, outcome: "received", output, reason: "ok", received }) };
}

/**
 * Runs one attempt of a channel step. A post records its message (delivering it) and
 * ends `success` with `{ id, channel, from, to }`; its confirmation is written with the
 * completion. A receive records who receives, then waits for a message to it (from
 * `from` when given) until its deadline: it ends `received` with `{ id, from, body, at }`
 * (confirmed at once, so no other receive takes it), or `timeout` with `{}`.
 *
 * Nothing of a channel step is flushed on its own (docs/architecture.md, What is flushed):
 * no process outside the journal acts on a step's post or receive before a later commit
 * that is flushed (an effect's record, a run's end, an agent's receive), and commits reach
 * the disk in order, so that one makes them durable too; a power cut before it loses them
 * together, and the run posts and receives again the same messages (their ids are
 * deterministic). An agent's post and receive (`agentPost`, `agentRecv`) are flushed: the
 * agent acts on the endpoint's answer at once.
 * @throws the host's interruption when the run is stopped while receiving; JournalWriteError, LeaseLostError
 */
export async function runChannelStep(h: ChannelHost, a: ChannelAttempt): Promise<ChannelResult> {
  const continuing = a.continuing === true && a.op.kind === "recv";
  const who: ChannelActor = { runId: a.runId, step: a.step, attempt: continuing ? a.attempt : a.attempt + 1, tag: a.tag, key: a.key };
  const started = h.entry(a.runId, a.step, who.attempt, "step.attempt.started", { idempotency_key: a.key, ...a.tag, adapter: "channel" });
  if (a.op.kind === "post") {
    const { output, confirmed } = await postMessage(h, who, a.channel, { id: `${a.key}.1`, from: a.op.from, to: a.op.to, body: a.op.body }, [started], true);
    return { outcome: "success", output, reason: "ok", pending: [confirmed], soft: true };
  }
  const r = await receiveMessage(h, who, a.channel, a.op, a.untilMs ?? h.clock() + a.op.timeoutMs, continuing ? [] : [started], { recorded: continuing, park: true, soft: true });
  return { outcome: r.outcome, output: r.output, reason: "ok", pending: r.confirmed ? [r.confirmed] : [], soft: true };
}

/**
 * An agent's n-th post of a step's attempt (`criteria channel post`, the local adapter's
 * script): message id `<step key>.<n>`, so the same post made again when the step runs
 * again after a crash is the same message. Confirmed at once (soft).
 * Returns `{ id, channel, from, to }`; for a post an earlier attempt of the step already
 * made, nothing is journaled again and the answer adds `replayed: true`, and
 * `body_dropped: true` when this body differs from the one delivered (an agent's retry
 * rarely writes the same text; the first post stands, as a request repeated under an
 * idempotency key gets the first one's result).
 */
export async function agentPost(h: ChannelHost, step: ChannelActor, n: number, channel: ChannelRef, op: { from: string; to: string; body: Value }): Promise<Record<string, Value>> {
  const who = { ...step, key: `${step.key}.post.${n}` };
  const { output, confirmed, replayed } = await postMessage(h, who, channel, { id: `${step.key}.${n}`, ...op });
  if (replayed) {
    // Its confirmation too, unless the earlier attempt wrote it before it ended.
    if (!h.tree.runs.get(step.runId)?.attempts.get(who.key)?.confirmed) await h.append([confirmed], { sync: false });
    return { ...output, replayed: true, ...(replayed.sameBody ? {} : { body_dropped: true }) };
  }
  await h.append([confirmed], { sync: false });
  return output;
}

/**
 * An agent's n-th receive of a step's attempt (`criteria channel recv`). When the step runs
 * again after a crash, a receive the journal already confirmed gives the same message
 * again (the receiver sees each message once, whatever the step's attempts); otherwise as
 * {@link receiveMessage}, with the deadline `timeoutMs` from now.
 */
export async function agentRecv(
  h: ChannelHost,
  step: ChannelActor,
  n: number,
  channel: ChannelRef,
  op: { as: string; from?: string; timeoutMs: number },
): Promise<{ outcome: "received" | "timeout"; output: Record<string, Value> }> {
  const key = `${step.key}.recv.${n}`;
  const done = h.tree.runs.get(step.runId)?.attempts.get(key)?.confirmed;
  if (done) return { outcome: done.outcome === "received" ? "received" : "timeout", output: done.output };
  const r = await receiveMessage(h, { ...step, key }, channel, op, h.clock() + op.timeoutMs);
  if (r.confirmed) await h.append([r.confirmed], { sync: false });
  return { outcome: r.outcome, output: r.output };
}
