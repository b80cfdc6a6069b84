import { parseDuration } from "../../compiler/decode/durations.js";
import type { Value } from "../../compiler/expr/value.js";
import type { Reason } from "../adapters/adapter.js";
import type { JournalEntry, NewEntry, Payloads } from "../journal/entry.js";
import type { AppendOptions } from "../journal/journal.js";
import type { TreeRecord } from "../journal/fold.js";
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
  if (ops[0] === "post") return { kind: "post", from: participant("from")!, to: participant("to")!, body: o.body ?? null };
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
}

/** One attempt at a channel step: which step, which attempt came before, and the earlier receive's deadline. */
export interface ChannelAttempt {
  runId: string;
  step: string;
  key: string;
  /** The last attempt started before this one (0 for none). */
  attempt: number;
  tag: { visit: number; iteration?: number };
  channel: string;
  op: ChannelOp;
  /** A receive started by an earlier attempt ends when it would have: its deadline is kept. */
  untilMs?: number;
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

/**
 * Runs one attempt of a channel step. A post records its message (delivering it) and
 * ends `success` with `{ id, channel, from, to }`; its confirmation is written with the
 * completion. A receive records who receives, then waits for a message to it (from
 * `from` when given) until its deadline: it ends `received` with `{ id, from, body, at }`
 * (confirmed at once, so no other receive takes it), or `timeout` with `{}`.
 * @throws the host's interruption when the run is stopped while receiving; JournalWriteError, LeaseLostError
 */
export async function runChannelStep(h: ChannelHost, a: ChannelAttempt): Promise<ChannelResult> {
  const attempt = a.attempt + 1;
  const base = { idempotency_key: a.key, ...a.tag };
  const started = h.entry(a.runId, a.step, attempt, "step.attempt.started", { ...base, adapter: "channel" });
  if (a.op.kind === "post") {
    const message = { id: `${a.key}.1`, from: a.op.from, to: a.op.to, body: a.op.body };
    await h.append([started, h.entry(a.runId, a.step, attempt, "effect.recorded", { ...base, adapter: "channel", kind: "post", channel: a.channel, message })]);
    const output = { id: message.id, channel: a.channel, from: message.from, to: message.to };
    return { outcome: "success", output, reason: "ok", pending: [h.entry(a.runId, a.step, attempt, "effect.confirmed", { ...base, outcome: "success", output, reason: "ok" })], soft: true };
  }
  const op = a.op;
  const until = a.untilMs ?? h.clock() + op.timeoutMs;
  // Not flushed: a power loss that takes it takes nothing else (the receive starts again, with a new deadline).
  await h.append([started, h.entry(a.runId, a.step, attempt, "effect.recorded", { ...base, adapter: "channel", kind: "recv", channel: a.channel, recv: { as: op.as, ...(op.from ? { from: op.from } : {}), until_ms: until } })], { sync: false });
  for (;;) {
    const c = h.tree.channels.get(a.channel);
    const m = c?.messages.find((x) => x.to === op.as && (op.from === undefined || x.from === op.from) && !c.received.has(x.id));
    if (m) {
      const output = { id: m.id, from: m.from, body: m.body, at: m.at_ms };
      // Taken here, at once: no other receive of this process looks at it again.
      c!.received.add(m.id);
      try {
        await h.append([h.entry(a.runId, a.step, attempt, "effect.confirmed", { ...base, outcome: "received", output, reason: "ok", received: { channel: a.channel, as: op.as, id: m.id } })], { takes: { id: m.id, after: m.seq } });
      } catch (e) {
        if (e instanceof MessageTakenError) continue; // another process's receive took it: the next one
        throw e;
      }
      return { outcome: "received", output, reason: "ok", pending: [], soft: true };
    }
    if (h.signal.aborted) throw h.interrupted();
    const left = until - h.clock();
    if (left <= 0) {
      const output = {};
      return { outcome: "timeout", output, reason: "ok", pending: [h.entry(a.runId, a.step, attempt, "effect.confirmed", { ...base, outcome: "timeout", output, reason: "ok" })], soft: true };
    }
    await h.sleep(Math.min(h.pollMs, left), h.signal);
    await h.refresh();
  }
}
