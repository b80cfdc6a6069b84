/**
 * Channel steps in process (engine/run/channel-steps.ts) against a host that journals
 * into a list and folds what it writes into the run tree (the embedded broker's state, as
 * the runner's host does): what a post and a receive journal and in how many commits, the
 * message a receive takes (the earliest for it, from whom it asks, not one taken), a
 * receive that polls, times out, parks or is stopped, a receive that goes on in the attempt
 * that recorded it, and an agent's posts and receives (`criteria channel post|recv`).
 * docs/language.md, Channels; the channels issue, item 3. The same steps run end to end in
 * channels.test.ts and the worker tests; these reach the module where a mutant in it is seen.
 */
import { describe, expect, it } from "vitest";
import type { JournalEntry, NewEntry } from "../../engine/journal/entry.js";
import { JournalWriteError, MessageTakenError } from "../../engine/journal/errors.js";
import { applyEntry, channelKey, foldEntries } from "../../engine/journal/fold.js";
import type { AppendOptions } from "../../engine/journal/journal.js";
import { agentPost, agentRecv, channelOp, runChannelStep, type ChannelAttempt, type ChannelHost, type ChannelOp, type ChannelRef } from "../../engine/run/channel-steps.js";
import { MAX_MESSAGE_BYTES } from "../../engine/channels/endpoint.js";
import { EvalFailure } from "../../engine/run/evaluate.js";

const channel: ChannelRef = { name: "c", scope: "r" };

interface HostOptions {
  /** Message ids another process's receive took first: an append taking one is refused. */
  takenElsewhere?: string[];
  /** What `othersBusy()` answers, look by look (the last answer repeats); default never busy. */
  busy?: boolean[];
  /** What `park()` resolves with. */
  park?: Error;
  pollMs?: number;
  /** Entries other runs journal, read by the refresh of that number (1 = the first refresh). */
  arrivals?: Map<number, NewEntry[]>;
  /** An append that takes a message fails with this error. */
  failTaking?: Error;
  /** Aborts the run's signal during the sleep of that number (1 = the first). */
  abortInSleep?: number;
}

/** A host journaling into a list, folding it into its tree, with a clock it moves itself. */
function host(opts: HostOptions = {}) {
  let now = 1_000_000;
  let seq = 0;
  const tree = foldEntries([]);
  const journal: JournalEntry[] = [];
  const appends: { types: string[]; opts?: AppendOptions }[] = [];
  const slept: number[] = [];
  const parks: { until: number; what: string }[] = [];
  const woken: [ChannelRef, string, string][] = [];
  const waitingCounts: number[] = [];
  let waiting = 0;
  let refreshes = 0;
  let looks = 0;
  const controller = new AbortController();
  const taken = new Set(opts.takenElsewhere ?? []);
  const write = (entries: NewEntry[]) =>
    entries.map((e) => {
      const w = { ...e, seq: ++seq } as JournalEntry;
      journal.push(w);
      applyEntry(tree, w);
      return w;
    });
  const h: ChannelHost = {
    clock: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      if (slept.length === opts.abortInSleep) controller.abort();
      now += ms;
    },
    signal: controller.signal,
    interrupted: () => new Error("interrupted"),
    append: async (entries, o) => {
      if (opts.failTaking && o?.takes) throw opts.failTaking;
      if (o?.takes && taken.has(o.takes.id)) throw new MessageTakenError(o.takes.id);
      appends.push({ types: entries.map((e) => e.entry_type), ...(o ? { opts: o } : {}) });
      return write(entries);
    },
    entry: (run_id, step_id, attempt, entry_type, payload) => ({ run_id, step_id, attempt, entry_type, at_ms: now, payload }) as NewEntry,
    emit: () => undefined,
    tree,
    refresh: async () => {
      refreshes++;
      write(opts.arrivals?.get(refreshes) ?? []);
    },
    pollMs: opts.pollMs ?? 100,
    park: async (until, what) => {
      parks.push({ until, what });
      return opts.park;
    },
    othersBusy: () => {
      const busy = opts.busy ?? [false];
      return busy[Math.min(looks++, busy.length - 1)];
    },
    waiting: (delta) => {
      waiting += delta;
      waitingCounts.push(waiting);
    },
    wakeReceivers: async (c, to, from) => {
      woken.push([c, to, from]);
    },
  };
  const payloads = (type: string) => journal.filter((e) => e.entry_type === type).map((e) => e.payload);
  return { h, tree, journal, appends, slept, parks, woken, waitingCounts, controller, payloads, write, now: () => now };
}

/** A post by another run of the tree, as its record journals it. */
const posted = (id: string, from: string, to: string, body: unknown = `from ${from}`): NewEntry =>
  ({
    run_id: "other",
    step_id: "say",
    attempt: 1,
    entry_type: "effect.recorded",
    at_ms: 5,
    payload: { idempotency_key: `other/${id}`, visit: 1, adapter: "channel", kind: "post", channel: "c", channel_scope: "r", message: { id, from, to, body } },
  }) as NewEntry;

const attempt = (op: ChannelOp, more: Partial<ChannelAttempt> = {}): ChannelAttempt => ({ runId: "r", step: "ask", key: "r/ask#1", attempt: 0, tag: { visit: 1 }, channel, op, ...more });
const recv = (as: string, timeoutMs: number, from?: string): ChannelOp => ({ kind: "recv", as, timeoutMs, ...(from !== undefined ? { from } : {}) });

describe("channelOp: a channel step's evaluated input", () => {
  const ch = { name: "c", participants: ["x", "y"] };
  const fails = (input: Record<string, unknown>) => {
    try {
      channelOp(input as never, ch, "w.hcl:3:5");
    } catch (e) {
      expect(e).toBeInstanceOf(EvalFailure);
      return (e as Error).message;
    }
    throw new Error("channelOp accepted it");
  };

  it("reads a post and a receive, the receive's sender optional", () => {
    expect(channelOp({ post: { from: "x", to: "y", body: { n: 1 } } }, ch, "at")).toStrictEqual({ kind: "post", from: "x", to: "y", body: { n: 1 } });
    expect(channelOp({ post: { from: "x", to: "y" } }, ch, "at")).toStrictEqual({ kind: "post", from: "x", to: "y", body: null });
    expect(channelOp({ post: { from: "x", to: "y", body: false } }, ch, "at")).toStrictEqual({ kind: "post", from: "x", to: "y", body: false });
    expect(channelOp({ recv: { as: "y", timeout: "2m" } }, ch, "at")).toStrictEqual({ kind: "recv", as: "y", from: undefined, timeoutMs: 120_000 });
    expect(channelOp({ recv: { as: "y", from: "x", timeout: "30s" } }, ch, "at")).toStrictEqual({ kind: "recv", as: "y", from: "x", timeoutMs: 30_000 });
    expect(channelOp({ recv: { as: "y", from: null, timeout: "1s" } }, ch, "at")).toStrictEqual({ kind: "recv", as: "y", from: undefined, timeoutMs: 1000 });
  });

  it("refuses anything but exactly one of post and recv, naming the position and the channel", () => {
    const only = 'w.hcl:3:5: channel "c": the input must be post = { from, to, body } or recv = { as, from, timeout }, and nothing else';
    expect(fails({})).toBe(only);
    expect(fails({ post: { from: "x", to: "y" }, recv: { as: "y", timeout: "1s" } })).toBe(only);
    expect(fails({ post: { from: "x", to: "y" }, note: "hi" })).toBe(only);
    expect(fails({ send: { from: "x" } })).toBe(only);
  });

  it("refuses a post or a receive that is not an object", () => {
    expect(fails({ post: null })).toBe('w.hcl:3:5: channel "c": post must be an object, not null');
    expect(fails({ recv: ["y"] })).toBe('w.hcl:3:5: channel "c": recv must be an object, not ["y"]');
    expect(fails({ post: "x to y" })).toBe('w.hcl:3:5: channel "c": post must be an object, not "x to y"');
    expect(fails({ post: "z".repeat(100) })).toBe(`w.hcl:3:5: channel "c": post must be an object, not "${"z".repeat(59)}`);
  });

  it("refuses a missing or foreign participant, listing the channel's", () => {
    expect(fails({ post: { to: "y" } })).toBe('w.hcl:3:5: channel "c": post needs "from"');
    expect(fails({ post: { from: "x", to: null } })).toBe('w.hcl:3:5: channel "c": post needs "to"');
    expect(fails({ recv: { timeout: "1s" } })).toBe('w.hcl:3:5: channel "c": recv needs "as"');
    expect(fails({ post: { from: "x", to: "z" } })).toBe('w.hcl:3:5: channel "c": to = "z" is not a participant (x, y)');
    expect(fails({ post: { from: 7, to: "y" } })).toBe('w.hcl:3:5: channel "c": from = 7 is not a participant (x, y)');
    expect(fails({ recv: { as: "y", from: "w", timeout: "1s" } })).toBe('w.hcl:3:5: channel "c": from = "w" is not a participant (x, y)');
    expect(fails({ recv: { as: ["x", "y"], timeout: "1s" } })).toBe('w.hcl:3:5: channel "c": as = ["x","y"] is not a participant (x, y)');
    expect(fails({ recv: { as: "q".repeat(100), timeout: "1s" } })).toBe(`w.hcl:3:5: channel "c": as = "${"q".repeat(59)} is not a participant (x, y)`);
  });

  it("refuses a message over 256 KiB of JSON, and takes one of exactly that", () => {
    const body = (bytes: number) => "a".repeat(bytes - 2); // JSON adds the two quotes
    expect(channelOp({ post: { from: "x", to: "y", body: body(MAX_MESSAGE_BYTES) } }, ch, "at").kind).toBe("post");
    expect(fails({ post: { from: "x", to: "y", body: body(MAX_MESSAGE_BYTES + 1) } })).toBe(`w.hcl:3:5: channel "c": the message is ${MAX_MESSAGE_BYTES + 1} bytes of JSON; a message is at most ${MAX_MESSAGE_BYTES} (256 KiB)`);
  });

  it("refuses a receive without a duration for its timeout", () => {
    expect(fails({ recv: { as: "y" } })).toBe('w.hcl:3:5: channel "c": recv needs a timeout, a duration such as "30s", not nothing');
    expect(fails({ recv: { as: "y", timeout: 30 } })).toBe('w.hcl:3:5: channel "c": recv needs a timeout, a duration such as "30s", not 30');
    expect(fails({ recv: { as: "y", timeout: "soon" } })).toBe('w.hcl:3:5: channel "c": recv needs a timeout, a duration such as "30s", not "soon"');
  });
});

describe("a post step", () => {
  it("records its message (delivering it) with the attempt's start in one commit that is not flushed, wakes the receiver, and leaves its confirmation for the step's completion", async () => {
    const t = host();
    const r = await runChannelStep(t.h, attempt({ kind: "post", from: "x", to: "y", body: { ask: "review" } }, { attempt: 2, tag: { visit: 3, iteration: 1 } }));
    const output = { id: "r/ask#1.1", channel: "c", from: "x", to: "y" };
    expect(t.appends).toStrictEqual([{ types: ["step.attempt.started", "effect.recorded"], opts: { sync: false } }]);
    expect(t.journal.map((e) => [e.run_id, e.step_id, e.attempt])).toStrictEqual([
      ["r", "ask", 3],
      ["r", "ask", 3],
    ]);
    expect(t.payloads("step.attempt.started")).toStrictEqual([{ idempotency_key: "r/ask#1", visit: 3, iteration: 1, adapter: "channel" }]);
    expect(t.payloads("effect.recorded")).toStrictEqual([
      { idempotency_key: "r/ask#1", visit: 3, iteration: 1, adapter: "channel", kind: "post", channel: "c", channel_scope: "r", message: { id: "r/ask#1.1", from: "x", to: "y", body: { ask: "review" } } },
    ]);
    expect(t.woken).toStrictEqual([[channel, "y", "x"]]);
    expect(r).toStrictEqual({
      outcome: "success",
      output,
      reason: "ok",
      pending: [{ run_id: "r", step_id: "ask", attempt: 3, entry_type: "effect.confirmed", at_ms: t.now(), payload: { idempotency_key: "r/ask#1", visit: 3, iteration: 1, outcome: "success", output, reason: "ok" } }],
      soft: true,
    });
    // The message is in the broker's state for a receive to take.
    expect(t.tree.channels.get(channelKey("r", "c"))!.messages.map((m) => m.id)).toStrictEqual(["r/ask#1.1"]);
  });

  it("is made as a new attempt even when asked to continue one (only a receive goes on in its attempt)", async () => {
    const t = host();
    await runChannelStep(t.h, attempt({ kind: "post", from: "x", to: "y", body: 1 }, { attempt: 4, continuing: true }));
    expect(t.journal.map((e) => e.attempt)).toStrictEqual([5, 5]);
    expect(t.appends[0].types).toStrictEqual(["step.attempt.started", "effect.recorded"]);
  });
});

describe("a receive step", () => {
  it("takes a message already there in the commit that records it, with the attempt's start (not flushed): the earliest one for it", async () => {
    const t = host();
    t.write([posted("m0", "x", "x"), posted("m1", "x", "y", { verdict: "ok" }), posted("m2", "x", "y")]);
    const m1 = t.journal[1];
    const start = t.now();
    const r = await runChannelStep(t.h, attempt(recv("y", 60_000)));
    expect(t.appends).toStrictEqual([{ types: ["step.attempt.started", "effect.recorded", "effect.confirmed"], opts: { takes: { id: "m1", after: m1.seq }, sync: false } }]);
    expect(t.payloads("effect.recorded").slice(3)).toStrictEqual([{ idempotency_key: "r/ask#1", visit: 1, adapter: "channel", kind: "recv", channel: "c", channel_scope: "r", recv: { as: "y", until_ms: start + 60_000 } }]);
    const output = { id: "m1", from: "x", body: { verdict: "ok" }, at: 5 };
    expect(t.payloads("effect.confirmed")).toStrictEqual([{ idempotency_key: "r/ask#1", visit: 1, outcome: "received", output, reason: "ok", received: { channel: "c", scope: "r", as: "y", id: "m1" } }]);
    expect(r).toStrictEqual({ outcome: "received", output, reason: "ok", pending: [], soft: true });
    expect(t.waitingCounts).toStrictEqual([]); // never waited
    expect([...t.tree.channels.get(channelKey("r", "c"))!.received]).toStrictEqual(["m1"]);
  });

  it("takes only what is for it, from whom it asks, and never a message a receive took; the channel's cursor moves past the taken ones", async () => {
    const t = host();
    t.write([posted("a", "x", "y"), posted("b", "z", "y"), posted("c", "x", "z"), posted("d", "x", "y"), posted("e", "z", "y")]);
    const take = async (op: ChannelOp, key: string) => (await runChannelStep(t.h, attempt(op, { key }))).output.id;
    expect(await take(recv("y", 1000, "z"), "k1")).toBe("b");
    expect(await take(recv("y", 1000), "k2")).toBe("a");
    expect(t.tree.channels.get(channelKey("r", "c"))!.open).toBe(0); // the cursor moves when a receive looks
    expect(await take(recv("y", 1000), "k3")).toBe("d");
    expect(t.tree.channels.get(channelKey("r", "c"))!.open).toBe(2);
    expect(await take(recv("z", 1000, "x"), "k4")).toBe("c");
    expect(await take(recv("y", 1000, "x"), "k5")).toBe(undefined); // none left from x: timed out
  });

  it("a message another process's receive took first: the record is committed alone and the receive takes the next one", async () => {
    const t = host({ takenElsewhere: ["m1"] });
    t.write([posted("m1", "x", "y"), posted("m2", "x", "y")]);
    const r = await runChannelStep(t.h, attempt(recv("y", 1000)));
    expect(t.appends).toStrictEqual([
      { types: ["step.attempt.started", "effect.recorded"], opts: { sync: false } },
      { types: ["effect.confirmed"], opts: { takes: { id: "m2", after: 2 }, sync: false } },
    ]);
    expect(r.output.id).toBe("m2");
    expect(r.pending).toStrictEqual([]);
    expect(t.waitingCounts).toStrictEqual([1, 0]);
  });

  it("a failed commit of a message already there, or of one that came while it waited, is the step's failure", async () => {
    const there = host({ failTaking: new JournalWriteError("disk full") });
    there.write([posted("m1", "x", "y")]);
    await expect(runChannelStep(there.h, attempt(recv("y", 1000)))).rejects.toBeInstanceOf(JournalWriteError);
    expect(there.appends).toStrictEqual([]);
    expect(there.slept).toStrictEqual([]);

    const came = host({ failTaking: new JournalWriteError("disk full"), busy: [true], arrivals: new Map([[1, [posted("m1", "x", "y")]]]) });
    await expect(runChannelStep(came.h, attempt(recv("y", 1000)))).rejects.toBeInstanceOf(JournalWriteError);
    expect(came.appends.map((a) => a.types)).toStrictEqual([["step.attempt.started", "effect.recorded"]]);
    expect(came.slept).toStrictEqual([100]);
    expect(came.waitingCounts).toStrictEqual([1, 0]);
  });

  it("a message that came while it waited and another process's receive took first: it takes the next one", async () => {
    const t = host({ takenElsewhere: ["m1"], busy: [true], arrivals: new Map([[1, [posted("m1", "x", "y"), posted("m2", "x", "y")]]]) });
    const r = await runChannelStep(t.h, attempt(recv("y", 1000)));
    expect(r.output.id).toBe("m2");
    expect(t.appends.at(-1)).toStrictEqual({ types: ["effect.confirmed"], opts: { takes: { id: "m2", after: 4 }, sync: false } });
    expect(t.slept).toStrictEqual([100]);
  });

  it("waits for a message posted later, reading the journal again every poll, while others of its run are busy", async () => {
    const t = host({ busy: [true], pollMs: 250, arrivals: new Map([[3, [posted("late", "x", "y", "here")]]]) });
    const r = await runChannelStep(t.h, attempt(recv("y", 60_000)));
    expect(t.slept).toStrictEqual([250, 250, 250]);
    expect(t.parks).toStrictEqual([]);
    expect(t.appends).toStrictEqual([
      { types: ["step.attempt.started", "effect.recorded"], opts: { sync: false } },
      { types: ["effect.confirmed"], opts: { takes: { id: "late", after: 3 }, sync: false } },
    ]);
    expect(r.output).toStrictEqual({ id: "late", from: "x", body: "here", at: 5 });
    expect(t.waitingCounts).toStrictEqual([1, 0]);
  });

  it("times out at its deadline, polling no later than it, with a confirmation for the completion", async () => {
    const t = host({ busy: [true], pollMs: 400 });
    const start = t.now();
    const r = await runChannelStep(t.h, attempt(recv("y", 1000)));
    expect(t.slept).toStrictEqual([400, 400, 200]);
    expect(t.now()).toBe(start + 1000);
    expect(r).toStrictEqual({
      outcome: "timeout",
      output: {},
      reason: "ok",
      pending: [{ run_id: "r", step_id: "ask", attempt: 1, entry_type: "effect.confirmed", at_ms: start + 1000, payload: { idempotency_key: "r/ask#1", visit: 1, outcome: "timeout", output: {}, reason: "ok" } }],
      soft: true,
    });
    expect(t.waitingCounts).toStrictEqual([1, 0]);
  });

  it("keeps the deadline an earlier attempt recorded", async () => {
    const t = host({ busy: [true], pollMs: 400 });
    const r = await runChannelStep(t.h, attempt(recv("y", 60_000), { untilMs: t.now() + 150 }));
    expect(t.slept).toStrictEqual([150]);
    expect(r.outcome).toBe("timeout");
    expect(t.payloads("effect.recorded")).toStrictEqual([{ idempotency_key: "r/ask#1", visit: 1, adapter: "channel", kind: "recv", channel: "c", channel_scope: "r", recv: { as: "y", until_ms: t.now() } }]);
  });

  it("parks once nothing else of its run is busy at two looks a poll apart, saying what it waits for", async () => {
    const parked = new Error("parked");
    const t = host({ park: parked, busy: [false, true, false, false] });
    const start = t.now();
    await expect(runChannelStep(t.h, attempt(recv("y", 5000, "x")))).rejects.toBe(parked);
    expect(t.slept).toStrictEqual([100, 100, 100]); // idle, busy, idle: then idle again, and parked
    expect(t.parks).toStrictEqual([{ until: start + 5000, what: 'a message on channel "c" for "y" from "x"' }]);
    expect(t.waitingCounts).toStrictEqual([1, 0]);
  });

  it("goes on polling when parking is not possible here, asking at every look", async () => {
    const t = host({ pollMs: 100 });
    const start = t.now();
    expect((await runChannelStep(t.h, attempt(recv("y", 300)))).outcome).toBe("timeout");
    expect(t.parks).toStrictEqual([
      { until: start + 300, what: 'a message on channel "c" for "y"' },
      { until: start + 300, what: 'a message on channel "c" for "y"' },
    ]);
  });

  it("goes on in the attempt that recorded it, journaling nothing again before it takes a message", async () => {
    const t = host({ busy: [true] });
    t.write([
      { run_id: "r", step_id: "ask", attempt: 2, entry_type: "effect.recorded", at_ms: 1, payload: { idempotency_key: "r/ask#1", visit: 1, adapter: "channel", kind: "recv", channel: "c", channel_scope: "r", recv: { as: "y", until_ms: t.now() + 500 } } } as NewEntry,
      posted("m", "x", "y"),
    ]);
    const r = await runChannelStep(t.h, attempt(recv("y", 60_000), { attempt: 2, continuing: true, untilMs: t.now() + 500 }));
    expect(t.appends).toStrictEqual([{ types: ["effect.confirmed"], opts: { takes: { id: "m", after: 2 }, sync: false } }]);
    expect(t.journal.at(-1)!.attempt).toBe(2);
    expect(r.outcome).toBe("received");
  });

  it("stops when its run is stopped: before taking a message, and while it waits", async () => {
    const before = host();
    before.write([posted("m", "x", "y")]);
    before.controller.abort();
    await expect(runChannelStep(before.h, attempt(recv("y", 1000), { attempt: 1, continuing: true }))).rejects.toThrow("interrupted");
    expect(before.appends).toStrictEqual([]);

    const during = host({ busy: [true], abortInSleep: 2, arrivals: new Map([[2, [posted("m", "x", "y")]]]) });
    await expect(runChannelStep(during.h, attempt(recv("y", 60_000)))).rejects.toThrow("interrupted");
    expect(during.slept).toStrictEqual([100, 100]);
    expect(during.payloads("effect.confirmed")).toStrictEqual([]); // the message that came is left for another receive
    expect(during.waitingCounts).toStrictEqual([1, 0]);
  });
});

describe("an agent's posts and receives (criteria channel post|recv)", () => {
  const step = { runId: "r", step: "talk", attempt: 1, tag: { visit: 1 }, key: "r/talk#1" };

  it("a post is its step's n-th: its own effect key, a message id that is the same when the step runs again, its record flushed", async () => {
    const t = host();
    const out = await agentPost(t.h, step, 3, channel, { from: "x", to: "y", body: "hi" });
    expect(out).toStrictEqual({ id: "r/talk#1.3", channel: "c", from: "x", to: "y" });
    expect(t.appends).toStrictEqual([{ types: ["effect.recorded"], opts: {} }, { types: ["effect.confirmed"], opts: { sync: false } }]);
    expect(t.payloads("effect.recorded")).toStrictEqual([{ idempotency_key: "r/talk#1.post.3", visit: 1, adapter: "channel", kind: "post", channel: "c", channel_scope: "r", message: { id: "r/talk#1.3", from: "x", to: "y", body: "hi" } }]);
    expect(t.payloads("effect.confirmed")).toStrictEqual([{ idempotency_key: "r/talk#1.post.3", visit: 1, outcome: "success", output: out, reason: "ok" }]);
    expect(t.woken).toStrictEqual([[channel, "y", "x"]]);
  });

  it("a receive takes a message there in one flushed commit; one made again after its confirmation gives the same message, journaling nothing", async () => {
    const t = host();
    t.write([posted("m", "x", "y", 42)]);
    const start = t.now();
    const first = await agentRecv(t.h, step, 2, channel, { as: "y", from: "x", timeoutMs: 9000 });
    expect(first).toStrictEqual({ outcome: "received", output: { id: "m", from: "x", body: 42, at: 5 } });
    expect(t.appends).toStrictEqual([{ types: ["effect.recorded", "effect.confirmed"], opts: { takes: { id: "m", after: 1 } } }]);
    expect(t.payloads("effect.recorded")[1]).toStrictEqual({ idempotency_key: "r/talk#1.recv.2", visit: 1, adapter: "channel", kind: "recv", channel: "c", channel_scope: "r", recv: { as: "y", from: "x", until_ms: start + 9000 } });
    expect(await agentRecv(t.h, step, 2, channel, { as: "y", timeoutMs: 9000 })).toStrictEqual(first);
    expect(t.appends).toHaveLength(1);
  });

  it("a receive that waits never parks (the agent holds its step), and one that timed out gives its timeout again", async () => {
    const t = host({ pollMs: 1000 });
    const r = await agentRecv(t.h, step, 1, channel, { as: "y", timeoutMs: 3000 });
    expect(r).toStrictEqual({ outcome: "timeout", output: {} });
    expect(t.parks).toStrictEqual([]);
    expect(t.slept).toStrictEqual([1000, 1000, 1000]);
    expect(t.appends).toStrictEqual([
      { types: ["effect.recorded"], opts: { sync: false } },
      { types: ["effect.confirmed"], opts: { sync: false } },
    ]);
    expect(await agentRecv(t.h, step, 1, channel, { as: "y", timeoutMs: 3000 })).toStrictEqual({ outcome: "timeout", output: {} });
    expect(t.appends).toHaveLength(2);
  });

  it("a receive that waits takes a message posted meanwhile in a flushed commit", async () => {
    const t = host({ arrivals: new Map([[1, [posted("m", "x", "y")]]]) });
    const r = await agentRecv(t.h, step, 1, channel, { as: "y", timeoutMs: 3000 });
    expect(r.outcome).toBe("received");
    expect(t.appends.at(-1)).toStrictEqual({ types: ["effect.confirmed"], opts: { takes: { id: "m", after: 2 } } });
    expect(t.waitingCounts).toStrictEqual([1, 0]);
  });
});
