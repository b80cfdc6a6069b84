/**
 * Wait and approval nodes in process (engine/run/wait-nodes.ts) against a host that
 * records what they journal and emit, on the runner's side of `NodeHost` (the seam the
 * runner lends them): exactly what is journaled at start and at the end (deadlines,
 * the worker wake-up, the signal consumed), the route each ending takes, a resumed node
 * that waits only what remains and never asks twice (its record folded from the entries
 * it journaled), interruption, parking, and a signal taken by another wait first.
 * docs/language.md, Waits and approvals. The same nodes run end to end in runner.test.ts
 * and the CLI tests; these reach the module where a mutant in it is seen.
 */
import { describe, expect, it } from "vitest";
import type { Graph, GraphOutcome } from "../../compiler/build/graph.js";
import type { JournalEntry, NewEntry } from "../../engine/journal/entry.js";
import { SignalTakenError } from "../../engine/journal/errors.js";
import { emptyRecord, foldEntries } from "../../engine/journal/fold.js";
import type { AppendOptions } from "../../engine/journal/journal.js";
import type { RunEvent } from "../../engine/run/events.js";
import { runApproval, runWait, type NodeHost, type NodeRun } from "../../engine/run/wait-nodes.js";

const out = (name: string, next: string): GraphOutcome => ({ name, next, output: {}, shared_writes: {} });
type Wait = Graph["waits"][number];
type Approval = Graph["approvals"][number];

/** A host that journals into a list, with a clock it moves itself and signals given in advance. */
function host(opts: { signals?: (JournalEntry<"signal.received"> | undefined)[]; autoApprove?: boolean; park?: Error; taken?: number[]; failAppend?: Error } = {}) {
  let now = 1_000_000;
  let seq = 0;
  const journal: JournalEntry[] = [];
  const appends: { types: string[]; opts?: AppendOptions }[] = [];
  const events: RunEvent[] = [];
  const slept: number[] = [];
  const asked: { name: string; until?: number }[] = [];
  const controller = new AbortController();
  const signals = [...(opts.signals ?? [])];
  const h: NodeHost = {
    clock: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      now += Math.max(0, ms);
    },
    signal: controller.signal,
    interrupted: () => new Error("interrupted"),
    append: async (entries: NewEntry[], o?: AppendOptions) => {
      if (opts.failAppend && entries.some((e) => e.entry_type.endsWith(".completed") || e.entry_type.endsWith(".decided"))) throw opts.failAppend;
      if (o?.consumes !== undefined && opts.taken?.includes(o.consumes)) throw new SignalTakenError(o.consumes);
      appends.push({ types: entries.map((e) => e.entry_type), ...(o ? { opts: o } : {}) });
      const written = entries.map((e) => ({ ...e, seq: ++seq, at_ms: now }) as JournalEntry);
      journal.push(...written);
      return written;
    },
    parkTimer: () => opts.park,
    entry: (run_id, step_id, attempt, entry_type, payload) => ({ run_id, step_id, attempt, entry_type, payload }) as NewEntry,
    emit: (e) => events.push(e),
    awaitSignal: async (name, until) => {
      asked.push({ name, ...(until !== undefined ? { until } : {}) });
      return signals.shift();
    },
    autoApprove: opts.autoApprove ?? false,
  };
  /** The node's run, its record folded from what was journaled so far (as a resume reads it). */
  const run = (evaluate: NodeRun["evaluate"] = () => null): NodeRun => ({ runId: "r", rec: foldEntries(journal).runs.get("r") ?? emptyRecord("r"), evaluate });
  const payloads = (type: string) => journal.filter((e) => e.entry_type === type).map((e) => e.payload);
  return { h, run, journal, appends, events, slept, asked, controller, payloads, advance: (ms: number) => (now += ms), now: () => now };
}

const signal = (seq: number, name: string, payload?: unknown, by?: string): JournalEntry<"signal.received"> =>
  ({ seq, run_id: "r", step_id: "", attempt: 0, entry_type: "signal.received", at_ms: 0, payload: { name, ...(payload !== undefined ? { payload } : {}), ...(by ? { by } : {}) } }) as JournalEntry<"signal.received">;

describe("a duration wait", () => {
  const w: Wait = { name: "pause", duration_ms: 5000, outcomes: [out("success", "s"), out("elapsed", "e")] };

  it("journals its deadline (and asks the workers to wake the run then), sleeps, and ends elapsed by the first fitting outcome", async () => {
    const t = host();
    const start = t.now();
    expect(await runWait(t.h, t.run(), w, 2)).toEqual({ outcome: "elapsed", next: "e" });
    expect(t.appends).toStrictEqual([{ types: ["wait.started"], opts: { wake: { atMs: start + 5000 } } }, { types: ["wait.completed"] }]);
    expect(t.payloads("wait.started")).toStrictEqual([{ visit: 2, until_ms: start + 5000 }]);
    expect(t.payloads("wait.completed")).toStrictEqual([{ visit: 2, outcome: "elapsed", next: "e" }]);
    expect(t.slept).toEqual([5000]);
    expect(t.events).toStrictEqual([
      { event: "wait.started", run_id: "r", node: "pause", until_ms: start + 5000 },
      { event: "wait.completed", run_id: "r", node: "pause", outcome: "elapsed", next: "e" },
    ]);
    expect(t.journal.every((e) => e.step_id === "pause" && e.attempt === 0 && e.run_id === "r")).toBe(true);
  });

  it("routes: next when set; else elapsed, timeout or success in that order; else its only outcome; else nothing", async () => {
    const route = async (x: Partial<Wait>) => (await runWait(host().h, host().run(), { name: "p", duration_ms: 1, outcomes: [], ...x }, 0)).next;
    expect(await route({ next: "n", outcomes: [out("elapsed", "e")] })).toBe("n");
    expect(await route({ outcomes: [out("success", "s"), out("timeout", "t")] })).toBe("t");
    expect(await route({ outcomes: [out("success", "s")] })).toBe("s");
    expect(await route({ outcomes: [out("other", "o")] })).toBe("o");
    expect(await route({ outcomes: [out("a", "x"), out("b", "y")] })).toBe("");
  });

  it("resumed after its start, sleeps only what remains and journals no second start; ended, it is not run again", async () => {
    const t = host();
    await t.h.append([t.h.entry("r", "pause", 0, "wait.started", { visit: 0, until_ms: t.now() + 5000 })]);
    t.advance(3800);
    expect(await runWait(t.h, t.run(), w, 0)).toEqual({ outcome: "elapsed", next: "e" });
    expect(t.slept).toEqual([1200]);
    expect(t.appends.map((a) => a.types[0])).toEqual(["wait.started", "wait.completed"]);
    const again = await runWait(t.h, t.run(), w, 0);
    expect(again).toEqual({ outcome: "elapsed", next: "e" });
    expect(t.appends).toHaveLength(2);
    // Another visit is another wait.
    await runWait(t.h, t.run(), w, 1);
    expect(t.appends).toHaveLength(4);
  });

  it("interrupted before or during its sleep, journals no end; parked by the runner, throws what the runner gave", async () => {
    const before = host();
    before.controller.abort();
    await expect(runWait(before.h, before.run(), w, 0)).rejects.toThrow("interrupted");
    expect(before.slept).toEqual([]);
    const during = host();
    during.h.sleep = async () => during.controller.abort();
    await expect(runWait(during.h, during.run(), w, 0)).rejects.toThrow("interrupted");
    expect(during.payloads("wait.completed")).toStrictEqual([]);
    const parked = host({ park: new Error("parked until then") });
    await expect(runWait(parked.h, parked.run(), w, 0)).rejects.toThrow("parked until then");
    expect(parked.slept).toEqual([]);
    expect(parked.payloads("wait.started")).toHaveLength(1);
  });
});

describe("a signal wait", () => {
  it("journals the signal it waits for (no deadline, no wake-up), consumes the one received, keeps its payload, and routes by the signal's name first", async () => {
    const w: Wait = { name: "gate", signal: "go", outcomes: [out("received", "r"), out("go", "g")] };
    const t = host({ signals: [signal(7, "go", { ok: true })] });
    expect(await runWait(t.h, t.run(), w, 0)).toEqual({ outcome: "received", next: "g" });
    expect(t.appends).toStrictEqual([{ types: ["wait.started"], opts: {} }, { types: ["wait.completed"], opts: { consumes: 7 } }]);
    expect(t.payloads("wait.started")).toStrictEqual([{ visit: 0, signal: "go" }]);
    expect(t.payloads("wait.completed")).toStrictEqual([{ visit: 0, outcome: "received", next: "g", signal_seq: 7, signal_payload: { ok: true } }]);
    expect(t.asked).toEqual([{ name: "go" }]);
    // Its end is said, as an approval's decision is (a new-user trial: a resumed wait said nothing more).
    expect(t.events).toStrictEqual([
      { event: "wait.started", run_id: "r", node: "gate", signal: "go" },
      { event: "wait.completed", run_id: "r", node: "gate", outcome: "received", next: "g", signal: "go" },
    ]);
  });

  it("routes a received signal to received, signal or success in that order; a signal without payload records none", async () => {
    for (const [names, next] of [[["success", "signal"], "signal"], [["success"], "success"], [["received", "success"], "received"]] as const) {
      const t = host({ signals: [signal(1, "go")] });
      const r = await runWait(t.h, t.run(), { name: "g", signal: "go", outcomes: names.map((n) => out(n, n)).concat([out("timeout", "t")]) }, 0);
      expect(r.next).toBe(next);
      expect(t.payloads("wait.completed")[0]).not.toHaveProperty("signal_payload");
    }
  });

  it("with a duration, waits for the signal until the deadline and ends timeout without one", async () => {
    const w: Wait = { name: "gate", signal: "go", duration_ms: 60_000, outcomes: [out("received", "r"), out("elapsed", "e")] };
    const t = host({ signals: [undefined] });
    const start = t.now();
    expect(await runWait(t.h, t.run(), w, 0)).toEqual({ outcome: "timeout", next: "e" });
    expect(t.asked).toEqual([{ name: "go", until: start + 60_000 }]);
    expect(t.appends[0]).toStrictEqual({ types: ["wait.started"], opts: { wake: { atMs: start + 60_000 } } });
    expect(t.payloads("wait.started")).toStrictEqual([{ visit: 0, until_ms: start + 60_000, signal: "go" }]);
    expect(t.payloads("wait.completed")).toStrictEqual([{ visit: 0, outcome: "timeout", next: "e" }]);
  });

  it("a signal another wait consumed first is passed over for the next one; any other journal failure is thrown", async () => {
    const t = host({ signals: [signal(3, "go"), signal(4, "go")], taken: [3] });
    expect(await runWait(t.h, t.run(), { name: "g", signal: "go", outcomes: [out("received", "r")] }, 0)).toEqual({ outcome: "received", next: "r" });
    expect(t.payloads("wait.completed")).toStrictEqual([{ visit: 0, outcome: "received", next: "r", signal_seq: 4 }]);
    const broken = host({ signals: [signal(3, "go")], failAppend: new Error("disk full") });
    await expect(runWait(broken.h, broken.run(), { name: "g", signal: "go", outcomes: [] }, 0)).rejects.toThrow("disk full");
  });
});

describe("an approval", () => {
  const a: Approval = { name: "ship", approvers: ["ops", "lead"], reason: { kind: "literal", text: "", value: "", at: "w.hcl:1:1" }, outcomes: [out("approved", "go"), out("rejected", "stop")] };

  it("auto-approved: asks no one (looks once, without waiting, for a decision given before), journals the decision by --auto-approve, routes it", async () => {
    const t = host({ autoApprove: true });
    expect(await runApproval(t.h, t.run(() => "why not"), a, 1)).toEqual({ next: "go", decision: "approved" });
    expect(t.payloads("approval.requested")).toStrictEqual([{ visit: 1, approvers: ["ops", "lead"], reason: "why not" }]);
    expect(t.payloads("approval.decided")).toStrictEqual([{ visit: 1, decision: "approved", by: "--auto-approve", outcome: "approved", next: "go" }]);
    expect(t.appends.map((x) => x.opts)).toEqual([{}, undefined]);
    expect(t.asked).toEqual([{ name: "approval:ship", until: t.now() }]);
    expect(t.events).toStrictEqual([{ event: "approval.decided", run_id: "r", node: "ship", decision: "approved" }]);
  });

  it("with --auto-approve, a decision already given wins: a rejection routes to rejected (found by a new-user trial: it was approved)", async () => {
    const t = host({ autoApprove: true, signals: [signal(5, "approval:ship", "rejected", "alice")] });
    expect(await runApproval(t.h, t.run(), a, 1)).toEqual({ next: "stop", decision: "rejected" });
    expect(t.payloads("approval.decided")).toStrictEqual([{ visit: 1, decision: "rejected", by: "alice", outcome: "rejected", next: "stop", signal_seq: 5 }]);
  });

  it("decided by a person: the signal consumed, who decided and the route journaled; a rejection routes to rejected", async () => {
    const t = host({ signals: [signal(9, "approval:ship", "rejected", "alice")] });
    expect(await runApproval(t.h, t.run(() => 42), a, 0)).toEqual({ next: "stop", decision: "rejected" });
    expect(t.asked).toEqual([{ name: "approval:ship" }]);
    expect(t.payloads("approval.requested")).toStrictEqual([{ visit: 0, approvers: ["ops", "lead"], reason: "42" }]);
    expect(t.payloads("approval.decided")).toStrictEqual([{ visit: 0, decision: "rejected", by: "alice", outcome: "rejected", next: "stop", signal_seq: 9 }]);
    expect(t.appends[1]).toStrictEqual({ types: ["approval.decided"], opts: { consumes: 9 } });
    expect(t.events.map((e) => e.event)).toEqual(["approval.requested", "approval.decided"]);
    expect(t.events[0]).toEqual({ event: "approval.requested", run_id: "r", node: "ship", approvers: ["ops", "lead"], reason: "42" });
    const yes = host({ signals: [signal(2, "approval:ship", "approved")] });
    expect(await runApproval(yes.h, yes.run(), { ...a, reason: undefined }, 0)).toEqual({ next: "go", decision: "approved" });
    expect(yes.payloads("approval.requested")).toStrictEqual([{ visit: 0, approvers: ["ops", "lead"] }]);
  });

  it("with a timeout: the deadline journaled with a wake-up; no decision by then is timeout, routed when declared, else no route", async () => {
    const t = host({ signals: [undefined] });
    const start = t.now();
    expect(await runApproval(t.h, t.run(() => ""), { ...a, timeout_ms: 1000 }, 0)).toEqual({ next: undefined, decision: "timeout" });
    expect(t.asked).toEqual([{ name: "approval:ship", until: start + 1000 }]);
    expect(t.appends[0]).toStrictEqual({ types: ["approval.requested"], opts: { wake: { atMs: start + 1000 } } });
    expect(t.payloads("approval.requested")).toStrictEqual([{ visit: 0, approvers: ["ops", "lead"], until_ms: start + 1000 }]);
    expect(t.payloads("approval.decided")).toStrictEqual([{ visit: 0, decision: "timeout", outcome: "timeout", next: "" }]);
    const routed = host({ signals: [undefined] });
    expect(await runApproval(routed.h, routed.run(() => ""), { ...a, timeout_ms: 1, outcomes: [...a.outcomes, out("timeout", "late")] }, 0)).toEqual({ next: "late", decision: "timeout" });
  });

  it("resumed: asks again with the journaled reason and deadline (no second request); decided, returns the decision; a decision taken by another wait is passed over", async () => {
    const t = host({ signals: [signal(5, "approval:ship", "approved", "bob"), signal(6, "approval:ship", "approved", "carol")], taken: [5] });
    await t.h.append([t.h.entry("r", "ship", 0, "approval.requested", { visit: 0, approvers: ["ops"], reason: "journaled", until_ms: 5_000_000 })]);
    const evaluated: unknown[] = [];
    expect(await runApproval(t.h, t.run((e) => (evaluated.push(e), "new")), a, 0)).toEqual({ next: "go", decision: "approved" });
    expect(evaluated).toEqual([]);
    expect(t.asked).toEqual([{ name: "approval:ship", until: 5_000_000 }, { name: "approval:ship", until: 5_000_000 }]);
    expect(t.events[0]).toMatchObject({ event: "approval.requested", reason: "journaled" });
    expect(t.payloads("approval.requested")).toHaveLength(1);
    expect(t.payloads("approval.decided")).toStrictEqual([{ visit: 0, decision: "approved", by: "carol", outcome: "approved", next: "go", signal_seq: 6 }]);
    const again = await runApproval(t.h, t.run(), a, 0);
    expect(again).toEqual({ next: "go", decision: "approved" });
    expect(t.payloads("approval.decided")).toHaveLength(1);
    // A recorded decision without a route returns none.
    const none = host();
    await none.h.append([none.h.entry("r", "ship", 0, "approval.decided", { visit: 0, decision: "timeout", outcome: "timeout", next: "" })]);
    expect(await runApproval(none.h, none.run(), a, 0)).toEqual({ next: undefined, decision: "timeout" });
  });
});
