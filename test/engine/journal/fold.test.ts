/**
 * The journal's fold (engine/journal/fold.ts; docs/architecture.md, Resume): what a
 * resumed run knows is exactly what its entries say. The crash matrix checks this
 * through real processes, which a mutation run cannot see into; this test pins the
 * fold itself, entry type by entry type, in process.
 */
import { describe, expect, it } from "vitest";
import type { JournalEntry } from "../../../engine/journal/entry.js";
import { answeredIn, foldEntries, signalFor, waitingIn } from "../../../engine/journal/fold.js";

let seq = 0;
/** An entry as the journal returns it (`seq` counting from 1). */
function e(run_id: string, step_id: string, attempt: number, entry_type: string, payload: object, at_ms = 1000 + seq): JournalEntry {
  return { seq: ++seq, run_id, step_id, attempt, entry_type, at_ms, payload } as unknown as JournalEntry;
}

describe("foldEntries", () => {
  seq = 0;
  const key = "k-build";
  const entries = [
    e("r", "", 0, "run.spawned", { graph: {} }, 500),
    e("r", "", 0, "memory.injected", { pack: "p" }),
    e("r", "build", 1, "step.attempt.started", { idempotency_key: key, visit: 1 }),
    e("r", "build", 1, "effect.recorded", { idempotency_key: key, visit: 1 }),
    e("r", "build", 1, "step.attempt.crashed", { idempotency_key: key }),
    e("r", "build", 2, "step.attempt.started", { idempotency_key: key, visit: 1 }),
    e("r", "build", 2, "effect.confirmed", { idempotency_key: key, outcome: "failure", output: {}, reason: "timeout" }),
    e("r", "build", 3, "step.attempt.started", { idempotency_key: key, visit: 1 }),
    e("r", "build", 3, "step.attempt.interrupted", { idempotency_key: key, cause: "signal" }),
    e("r", "build", 4, "step.attempt.started", { idempotency_key: key, visit: 1 }),
    e("r", "build", 4, "effect.confirmed", { idempotency_key: key, outcome: "success", output: { x: 1 }, reason: "ok" }),
    e("r", "build", 4, "step.completed", { visit: 1, outcome: "success", next: "fan", output: { x: 1 }, reason: "ok" }),
    e("r", "fan", 0, "iteration.completed", { visit: 1, index: 0, outcome: "success" }),
    e("r", "fan", 0, "iteration.completed", { visit: 1, index: 1, outcome: "failure" }),
    e("r", "route", 0, "branch.taken", { visit: 2, arm: 1, next: "hold" }),
    e("r", "hold", 0, "wait.started", { visit: 1, signal: "go" }),
    e("r", "", 0, "signal.received", { name: "go" }),
    e("r", "hold", 0, "wait.completed", { visit: 1, outcome: "received", signal_seq: 17 }),
    e("r", "gate", 0, "approval.requested", { visit: 1, approvers: ["a"] }),
    e("r", "gate", 0, "approval.decided", { visit: 1, decision: "approved", signal_seq: 99 }),
    e("r/child", "", 0, "run.spawned", { graph: {} }, 2000),
    e("r/child", "", 0, "run.completed", { state: "done", success: true, reason: "ok", outputs: {} }),
    e("r", "", 0, "run.completed", { state: "done", success: true, reason: "ok", outputs: { a: 1 } }),
  ];
  // Folded inside each test, not at collection: a mutation run activates a mutant only
  // while the tests that cover it run.
  const fold = () => {
    const tree = foldEntries(entries);
    return { tree, r: tree.runs.get("r")! };
  };

  it("keeps one record per run, and the last seq", () => {
    const { tree } = fold();
    expect([...tree.runs.keys()]).toEqual(["r", "r/child"]);
    expect(tree.lastSeq).toBe(entries.length);
    expect(tree.runs.get("r/child")!.completed).toEqual({ state: "done", success: true, reason: "ok", outputs: {} });
  });

  it("run spawn (with its time), memory and completion", () => {
    const { r } = fold();
    expect(r.spawned).toEqual({ graph: {} });
    expect(r.spawned_at_ms).toBe(500);
    expect(r.memory).toEqual({ pack: "p" });
    expect(r.completed).toEqual({ state: "done", success: true, reason: "ok", outputs: { a: 1 } });
  });

  it("attempts: the highest started, crashed and interrupted ones, the last confirmed result and the retry budget spent", () => {
    const { r } = fold();
    expect([...r.attempts.keys()]).toEqual([key]);
    const a = r.attempts.get(key)!;
    expect(a.started).toBe(4);
    expect([...a.crashed].sort()).toEqual([1, 3]);
    expect([...a.interrupted]).toEqual([3]);
    expect(a.confirmed).toEqual({ idempotency_key: key, outcome: "success", output: { x: 1 }, reason: "ok" });
    expect(a.confirmedAttempt).toBe(4);
    expect(a.transientFailures).toBe(1); // the timeout; the success spends nothing
  });

  it("steps by node#visit, iterations by node#visit#index, branches by node#visit", () => {
    const { r } = fold();
    expect([...r.steps.keys()]).toEqual(["build#1"]);
    expect(r.steps.get("build#1")!.next).toBe("fan");
    expect([...r.iterations.keys()]).toEqual(["fan#1#0", "fan#1#1"]);
    expect(r.iterations.get("fan#1#1")!.outcome).toBe("failure");
    expect([...r.branches.entries()]).toEqual([["route#2", { visit: 2, arm: 1, next: "hold" }]]);
  });

  it("waits and approvals by node#visit, the signals they consumed, and every signal in order", () => {
    const { tree, r } = fold();
    const w = r.waits.get("hold#1")!;
    expect(w.started?.entry_type).toBe("wait.started");
    expect(w.completed).toEqual({ visit: 1, outcome: "received", signal_seq: 17 });
    const ap = r.approvals.get("gate#1")!;
    expect(ap.requested).toEqual({ visit: 1, approvers: ["a"] });
    expect(ap.decided).toEqual({ visit: 1, decision: "approved", signal_seq: 99 });
    expect(tree.signals.map((s) => s.seq)).toEqual([17]);
    expect([...tree.consumed].sort((x, y) => x - y)).toEqual([17, 99]);
  });

  it("folding more entries into a tree continues it; the same entries again give the same record", () => {
    const { r } = fold();
    const again = foldEntries(entries.slice(0, 12));
    foldEntries(entries.slice(12), again);
    expect(again.runs.get("r")!.completed).toEqual(r.completed);
    expect(again.runs.get("r")!.attempts.get(key)!.started).toBe(4);
    const twice = foldEntries([...entries, ...entries]);
    expect(twice.runs.get("r")!.steps).toEqual(r.steps);
    expect(twice.runs.get("r")!.attempts.get(key)!.started).toBe(4);
    expect(twice.runs.get("r")!.attempts.get(key)!.transientFailures).toBe(1);
  });
});

describe("waitingIn: what a run tree is parked on (criteria runs)", () => {
  it("open signal and duration waits, approvals and channel receives of runs not ended, each once; nothing once they end", () => {
    seq = 0;
    const open = [
      e("r", "", 0, "run.spawned", { graph: {} }),
      e("r", "gate", 0, "wait.started", { visit: 1, signal: "go" }),
      e("r", "pause", 0, "wait.started", { visit: 2, until_ms: 9 }),
      e("r", "ok", 0, "approval.requested", { visit: 1, approvers: [] }),
      e("r/body#1[0]", "gate", 0, "wait.started", { visit: 1, signal: "go" }),
      e("r/ended", "late", 0, "approval.requested", { visit: 1, approvers: [] }),
      e("r/ended", "", 0, "run.completed", { success: true, state: "done", reason: "ok" }),
      e("r", "ask", 1, "effect.recorded", { idempotency_key: "r/ask#1", visit: 1, adapter: "channel", kind: "recv", channel: "talk", channel_scope: "r", recv: { as: "y", until_ms: 5 } }),
    ];
    const tree = foldEntries(open);
    expect(waitingIn(tree)).toStrictEqual([
      { kind: "signal", name: "go", text: 'signal "go"' },
      { kind: "time", name: "pause", text: 'the time (wait "pause")' },
      { kind: "approval", name: "ok", text: 'approval "ok"' },
      { kind: "message", name: "talk", text: 'a message on channel "talk"' },
    ]);
    foldEntries(
      [
        e("r", "gate", 0, "wait.completed", { visit: 1, outcome: "received", next: "x" }),
        e("r", "pause", 0, "wait.completed", { visit: 2, outcome: "elapsed", next: "x" }),
        e("r", "ok", 0, "approval.decided", { visit: 1, decision: "approved", outcome: "approved", next: "x" }),
        e("r/body#1[0]", "gate", 0, "wait.completed", { visit: 1, outcome: "received", next: "x" }),
        e("r", "ask", 1, "effect.confirmed", { idempotency_key: "r/ask#1", visit: 1, outcome: "timeout", output: {}, reason: "ok" }),
      ],
      tree,
    );
    expect(waitingIn(tree)).toStrictEqual([]);
  });
});

describe("waitingIn and answeredIn together: one decision given ends one of several waiting", () => {
  it("two parallel items wait at approval \"gate\": one decision leaves one waiting, two leave none (a new-user trial: one decided read as both)", () => {
    seq = 0;
    const tree = foldEntries([
      e("r", "", 0, "run.spawned", { graph: {} }),
      e("r/loop#1[0]", "", 0, "run.spawned", { graph: {} }),
      e("r/loop#1[1]", "", 0, "run.spawned", { graph: {} }),
      e("r/loop#1[0]", "gate", 0, "approval.requested", { visit: 1, approvers: [] }),
      e("r/loop#1[1]", "gate", 0, "approval.requested", { visit: 1, approvers: [] }),
      e("r/loop#1[0]", "hold", 0, "wait.started", { visit: 1, signal: "go" }),
      e("r/loop#1[1]", "hold", 0, "wait.started", { visit: 1, signal: "go" }),
    ]);
    expect(waitingIn(tree).map((w) => w.text)).toStrictEqual(['signal "go"', 'approval "gate"']);
    foldEntries([e("r", "", 0, "signal.received", { name: "approval:gate", payload: "approved" }), e("r", "", 0, "signal.received", { name: "go" })], tree);
    expect(answeredIn(tree)).toStrictEqual(['signal "go" given', 'approval "gate" approved']);
    expect(waitingIn(tree).map((w) => w.text)).toStrictEqual(['signal "go"', 'approval "gate"']);
    foldEntries([e("r", "", 0, "signal.received", { name: "approval:gate", payload: "rejected" }), e("r", "", 0, "signal.received", { name: "go" })], tree);
    expect(answeredIn(tree)).toStrictEqual(['signal "go" given', 'approval "gate" approved', 'approval "gate" rejected']);
    expect(waitingIn(tree)).toStrictEqual([]);
  });
});

describe("waitingIn and answeredIn take signals as the runner does (signalFor)", () => {
  it("an item's own decision is its, before one given to the root, whatever order the items were spawned in", () => {
    seq = 0;
    const tree = foldEntries([
      e("r", "", 0, "run.spawned", { graph: {} }),
      e("r/loop#1[1]", "", 0, "run.spawned", { graph: {} }),
      e("r/loop#1[0]", "", 0, "run.spawned", { graph: {} }),
      e("r/loop#1[1]", "gate", 0, "approval.requested", { visit: 1, approvers: [] }),
      e("r/loop#1[0]", "gate", 0, "approval.requested", { visit: 1, approvers: [] }),
      e("r", "", 0, "signal.received", { name: "approval:gate", payload: "rejected" }),
      e("r/loop#1[1]", "", 0, "signal.received", { name: "approval:gate", payload: "approved" }),
    ]);
    // Item 1 takes its own approval, item 0 the root's rejection: both answered.
    expect(answeredIn(tree)).toStrictEqual(['approval "gate" approved', 'approval "gate" rejected']);
    expect(waitingIn(tree)).toStrictEqual([]);
  });

  it("one given after a wait's deadline answers nothing, and is left for a later wait", () => {
    seq = 0;
    const tree = foldEntries([
      e("r", "", 0, "run.spawned", { graph: {} }),
      e("r", "hold", 0, "wait.started", { visit: 1, signal: "go", until_ms: 1500 }, 1000),
      e("r", "", 0, "signal.received", { name: "go" }, 2000),
    ]);
    expect(answeredIn(tree)).toStrictEqual([]);
    expect(signalFor(tree, "go", "r", 1500)).toBeUndefined();
    expect(signalFor(tree, "go", "r")?.at_ms).toBe(2000);
    expect(signalFor(tree, "go", "r/child#1")?.at_ms).toBe(2000);
    expect(signalFor(tree, "go", "other")).toBeUndefined();
  });
});

describe("answeredIn: waits and approvals whose signal or decision is journaled, not yet taken (criteria runs)", () => {
  it("a signal or a decision given while the run waits answers it until the wait takes it; one for another name, another run of the tree or one taken does not", () => {
    seq = 0;
    const tree = foldEntries([
      e("r", "", 0, "run.spawned", { graph: {} }),
      e("r", "hold", 0, "wait.started", { visit: 1, signal: "go" }),
      e("r", "ok", 0, "approval.requested", { visit: 1, approvers: [] }),
      e("r/body#1[0]", "", 0, "run.spawned", { graph: {} }),
      e("r/body#1[0]", "inner", 0, "wait.started", { visit: 1, signal: "deep" }),
      e("r/other", "", 0, "run.spawned", { graph: {} }),
      e("r/other", "", 0, "signal.received", { name: "deep" }), // sent to another run
      e("r", "", 0, "signal.received", { name: "stop" }), // no wait for it
    ]);
    expect(answeredIn(tree)).toStrictEqual([]);
    foldEntries([e("r", "", 0, "signal.received", { name: "approval:ok", payload: { decision: "approved" } })], tree);
    expect(answeredIn(tree)).toStrictEqual(['approval "ok" approved']);
    foldEntries([e("r", "", 0, "signal.received", { name: "go" })], tree); // seq 10
    expect(answeredIn(tree)).toStrictEqual(['signal "go" given', 'approval "ok" approved']);
    // Sent to the root: answers a wait of a run inside it too.
    foldEntries([e("r", "", 0, "signal.received", { name: "deep" })], tree);
    expect(answeredIn(tree)).toStrictEqual(['signal "go" given', 'approval "ok" approved', 'signal "deep" given']);
    foldEntries([e("r", "hold", 0, "wait.completed", { visit: 1, outcome: "received", signal_seq: 10, next: "x" })], tree);
    expect(answeredIn(tree)).toStrictEqual(['approval "ok" approved', 'signal "deep" given']);
  });

  it("a decision given to a run between the root and the waiting one answers it too (the runner lets any run above take it)", () => {
    seq = 0;
    const tree = foldEntries([
      e("r", "", 0, "run.spawned", { graph: {} }),
      e("r/call#1", "", 0, "run.spawned", { graph: {} }),
      e("r/call#1/loop#1[0]", "", 0, "run.spawned", { graph: {} }),
      e("r/call#1/loop#1[0]", "gate", 0, "approval.requested", { visit: 1, approvers: [] }),
    ]);
    expect(answeredIn(tree)).toStrictEqual([]);
    // Given to the item's sibling: not this one's.
    foldEntries([e("r/call#1/loop#1[1]", "", 0, "signal.received", { name: "approval:gate", payload: "approved" })], tree);
    expect(answeredIn(tree)).toStrictEqual([]);
    foldEntries([e("r/call#1", "", 0, "signal.received", { name: "approval:gate", payload: "approved" })], tree);
    expect(answeredIn(tree)).toStrictEqual(['approval "gate" approved']);
    // Which way: a rejection reads so (found by a new-user trial: it read "given" too).
    const rejected = foldEntries([e("r", "", 0, "run.spawned", { graph: {} }), e("r", "gate", 0, "approval.requested", { visit: 1, approvers: [] }), e("r", "", 0, "signal.received", { name: "approval:gate", payload: "rejected" })]);
    expect(answeredIn(rejected)).toStrictEqual(['approval "gate" rejected']);
  });
});
