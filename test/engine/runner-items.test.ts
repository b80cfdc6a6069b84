/**
 * The items of an iterating step, in process (engine/run/runner.ts: iterate): which items
 * succeed (an adapter's `failure`, `on_failure = "ignore"`), an item's own outcome whose
 * projection fails to evaluate, what `iteration.completed` events carry, a `while` whose
 * condition is no bool, items' shared writes, an empty `count`, a parallel step left through
 * an item's own outcome (the first to leave decides; a resumed run finishes the items that
 * had started, and starts none other). The CLI tests reach these
 * through the built bundle, which mutants of the source never reach (what StrykerJS's
 * pass over runner.ts lines 1,100–1,450 left: 66.2% killed).
 */
import { describe, expect, it } from "vitest";
import { JournalWriteError } from "../../engine/journal/errors.js";
import type { NewEntry } from "../../engine/journal/entry.js";
import type { Journal } from "../../engine/journal/journal.js";
import type { RunEvent } from "../../engine/run/events.js";
import { deliverSignal } from "../../engine/run/signals.js";
import { graphOf } from "./graph-of.js";
import { HEAD, cutAt, ok, scripted, setup } from "./runner-fixtures.js";

/** A for_each step over ["a", "b", "c"] on the script adapter, with `extra` fields and outcomes. */
const ITEMS = (extra: string, outcomes = `outcome "all_succeeded" { next = "done" }\n  outcome "any_failed" { next = "failed" }`) => `${HEAD("items")}
adapter "script" "default" {}
shared_variable "last" {
  type = "string"
  value = "none"
}
step "items" {
  target   = adapter.script.default
  for_each = ["a", "b", "c"]
  input { item = each.value }
  ${extra}
  ${outcomes}
}`;

/** The payloads of the run's iteration.completed entries, as [index, success, reason]. */
async function items(s: ReturnType<typeof setup>): Promise<[number, boolean, string][]> {
  return (await s.entries("r")).filter((e) => e.entry_type === "iteration.completed").map((e) => {
    const p = e.payload as { index: number; success: boolean; reason: string };
    return [p.index, p.success, p.reason];
  });
}

/**
 * `journal` refusing, once, the first append (or group commit) holding an entry that
 * `refuse` picks, as a full disk would: nothing of that append is written.
 */
function refusingOnce(journal: Journal, refuse: (e: NewEntry) => boolean): Journal {
  let refused = false;
  return new Proxy(journal, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (prop !== "append" && prop !== "appendGroup") return typeof v === "function" ? (v as (...x: unknown[]) => unknown).bind(target) : v;
      return async (root: string, ...rest: unknown[]) => {
        const lists = prop === "append" ? [rest[0] as NewEntry[]] : (rest[0] as { entries: NewEntry[] }[]).map((x) => x.entries);
        if (!refused && lists.some((l) => l.some(refuse))) {
          refused = true;
          throw new JournalWriteError("the disk is full");
        }
        return (v as (...x: unknown[]) => unknown).call(target, root, ...rest);
      };
    },
  });
}

const iterationEvents = (events: RunEvent[]) => events.filter((e) => e.event === "iteration.completed") as Extract<RunEvent, { event: "iteration.completed" }>[];

describe("which items succeed", () => {
  const answer = (req: { input: Record<string, unknown> }) => (req.input.item === "b" ? { outcome: "failure", output: { exit_code: 3 }, reason: "ok" as const } : ok({ exit_code: 0 }));

  it("an item whose adapter answers failure fails: the step takes any_failed; its event says where the step is and the exit code", async () => {
    const s = setup();
    const a = scripted(answer);
    expect(await s.runner({ adapterFor: a.adapterFor }).start(await graphOf(ITEMS(`on_failure = "continue"`)), {}, "r")).toMatchObject({ state: "failed" });
    expect(await items(s)).toEqual([
      [0, true, "ok"],
      [1, false, "ok"],
      [2, true, "ok"],
    ]);
    const ev = iterationEvents(s.events);
    expect(ev.map((e) => [e.index, e.success, e.exit_code])).toEqual([
      [0, true, 0],
      [1, false, 3],
      [2, true, 0],
    ]);
    // Only the failed item's event points at the step.
    expect(ev.map((e) => e.at !== undefined)).toEqual([false, true, false]);
    expect(ev[1].at).toMatch(/w\.hcl:\d+:\d+$/);
  });

  it('on_failure = "ignore": the failed item is journaled as a success, and the step takes all_succeeded', async () => {
    const s = setup();
    const a = scripted(answer);
    expect(await s.runner({ adapterFor: a.adapterFor }).start(await graphOf(ITEMS(`on_failure = "ignore"`)), {}, "r")).toMatchObject({ state: "done", success: true });
    expect((await items(s)).map(([, success]) => success)).toEqual([true, true, true]);
    // A loop that ran items says nothing of an empty one.
    expect((await s.entries("r")).find((e) => e.entry_type === "step.completed")?.payload).not.toHaveProperty("detail");
  });

  it("an adapter step's item that ends in an outcome of its own (not failure) succeeds", async () => {
    const s = setup();
    const a = scripted(() => ({ outcome: "passed", output: {}, reason: "ok" as const }));
    const g = await graphOf(ITEMS(``, `outcome "passed" { next = continue }\n  outcome "all_succeeded" { next = "done" }\n  outcome "any_failed" { next = "failed" }`));
    expect(await s.runner({ adapterFor: a.adapterFor }).start(g, {}, "r")).toMatchObject({ state: "done", success: true });
    expect((await items(s)).map(([, success]) => success)).toEqual([true, true, true]);
  });

  it("an item's own outcome whose projection fails to evaluate fails the item with eval_error, saying why", async () => {
    const s = setup();
    const a = scripted(() => ok({ word: "abc" }));
    const g = await graphOf(
      ITEMS(
        `on_failure = "continue"`,
        `outcome "success" {
    next   = continue
    output = { n = tonumber(step.output.word) }
  }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "failed" }`,
      ),
    );
    expect(await s.runner({ adapterFor: a.adapterFor }).start(g, {}, "r")).toMatchObject({ state: "failed" });
    expect(await items(s)).toEqual([
      [0, false, "eval_error"],
      [1, false, "eval_error"],
      [2, false, "eval_error"],
    ]);
    expect(iterationEvents(s.events)[0].detail).toMatch(/abc/);
  });

  it("an item's own outcome's shared writes are in force for the items after it and the steps after the loop", async () => {
    const s = setup();
    const a = scripted((req) => ok({ saw: req.input.saw ?? null }));
    const g = await graphOf(`${ITEMS(
      `input { saw = shared.last }`,
      `outcome "success" {
    next = continue
    shared_writes = { last = each.value }
  }
  outcome "all_succeeded" { next = "after" }
  outcome "any_failed" { next = "failed" }`,
    ).replace("input { item = each.value }\n", "")}
step "after" {
  target = adapter.script.default
  input { saw = shared.last }
  outcome "success" { next = "done" }
}`);
    expect(await s.runner({ adapterFor: a.adapterFor }).start(g, {}, "r")).toMatchObject({ state: "done" });
    expect(a.seen.map((r) => [r.step, r.input.saw])).toEqual([
      ["items", "none"],
      ["items", "a"],
      ["items", "b"],
      ["after", "c"],
    ]);
  });
});

describe("loops at their edges", () => {
  it("a while condition that gives no bool fails the step with eval_error naming the value", async () => {
    const g = await graphOf(`${HEAD("loop")}
adapter "script" "default" {}
variable "go" { default = "yes" }
step "loop" {
  target = adapter.script.default
  while  = var.go
  outcome "success" { next = continue }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "failed" }
}`);
    const s = setup();
    const end = await s.runner({ adapterFor: scripted(() => ok()).adapterFor }).start(g, {}, "r");
    expect(end).toMatchObject({ success: false, reason: "eval_error" });
    expect(end.detail).toMatch(/step "loop": while must be true or false, not "yes"$/);
  });

  it("count = 0 runs nothing and says so: all_succeeded, with the reason in its detail", async () => {
    const g = await graphOf(`${HEAD("none")}
adapter "script" "default" {}
step "none" {
  target = adapter.script.default
  count  = 0
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "failed" }
}`);
    const s = setup();
    const a = scripted(() => ok());
    expect(await s.runner({ adapterFor: a.adapterFor }).start(g, {}, "r")).toMatchObject({ state: "done", success: true });
    expect(a.seen).toEqual([]);
    const done = (await s.entries("r")).find((e) => e.entry_type === "step.completed");
    expect(done?.payload).toMatchObject({ outcome: "all_succeeded", detail: "count is empty: nothing to iterate, so all_succeeded", output: [] });
    expect(done?.payload).not.toHaveProperty("child_run_ids");
  });

  it("a while condition's value that is no bool is named by its first 60 characters", async () => {
    const g = await graphOf(`${HEAD("loop")}
adapter "script" "default" {}
variable "go" { default = "${"y".repeat(100)}" }
step "loop" {
  target = adapter.script.default
  while  = var.go
  outcome "all_succeeded" { next = "done" }
}`);
    const end = await setup().runner({ adapterFor: scripted(() => ok()).adapterFor }).start(g, {}, "r");
    expect(end.detail).toMatch(new RegExp(`while must be true or false, not "${"y".repeat(59)}$`));
  });

  it("a while loop stopped by max_visits or max_total_steps completes its step with no outcome", async () => {
    for (const [policy, extra] of [
      ["", "max_visits = 2"],
      ["  policy {\n    max_total_steps = 3\n  }\n", ""],
    ]) {
      const g = await graphOf(`${HEAD("loop", policy)}
adapter "script" "default" {}
step "loop" {
  target = adapter.script.default
  while  = true
  ${extra}
  outcome "all_succeeded" { next = "done" }
}`);
      const s = setup();
      expect(await s.runner({ adapterFor: scripted(() => ok()).adapterFor }).start(g, {}, "r")).toMatchObject({ success: false, reason: "policy_exceeded" });
      const done = (await s.entries("r")).find((e) => e.entry_type === "step.completed");
      expect(done?.payload, policy + extra).toMatchObject({ outcome: "", next: "", reason: "policy_exceeded" });
    }
  });
});

describe("an item whose adapter crashes", () => {
  /** Item "b" crashes (with `detail`, or none); the others succeed. */
  const crashing = (detail?: string) => scripted((req) => (req.input.item === "b" ? { outcome: "", output: {}, reason: "crashed" as const, ...(detail ? { detail } : {}) } : ok()));

  it('on_crash = "abort_run": the loop stops at the crash and the step ends crashed with the adapter\'s detail, or says the adapter crashed', async () => {
    for (const [detail, said] of [
      ["segfault in the tool", "segfault in the tool"],
      [undefined, "the adapter crashed"],
    ] as const) {
      const s = setup();
      const a = crashing(detail);
      const end = await s.runner({ adapterFor: a.adapterFor }).start(await graphOf(ITEMS(`on_crash = "abort_run"\n  on_failure = "continue"`)), {}, "r");
      expect(a.seen.map((r) => r.input.item), `${said}: item c never runs`).toEqual(["a", "b"]);
      expect(end).toMatchObject({ success: false, reason: "crashed", detail: `${said} (on_crash = "abort_run")` });
      const done = (await s.entries("r")).find((e) => e.entry_type === "step.completed");
      expect(done?.payload).toMatchObject({ outcome: "", reason: "crashed", detail: `${said} (on_crash = "abort_run")`, output: [{}, {}] });
    }
  });

  it('on_crash = "abort_run" stops the loop at a crash only: an item that fails otherwise is a failed item, and the loop goes on', async () => {
    const s = setup();
    const a = scripted((req) => (req.input.item === "b" ? { outcome: "failure", output: {}, reason: "adapter_failed" as const, detail: "exit 1" } : ok()));
    const end = await s.runner({ adapterFor: a.adapterFor }).start(await graphOf(ITEMS(`on_crash = "abort_run"\n  on_failure = "continue"`)), {}, "r");
    expect(a.seen.map((r) => r.input.item)).toEqual(["a", "b", "c"]);
    expect(end).toMatchObject({ state: "failed", reason: "failure_state" });
  });

  it('on_crash = "fail": the crashed item fails and the loop goes on (on_failure = "continue") to any_failed', async () => {
    const s = setup();
    const a = crashing("segfault");
    const end = await s.runner({ adapterFor: a.adapterFor }).start(await graphOf(ITEMS(`on_crash = "fail"\n  on_failure = "continue"`)), {}, "r");
    expect(a.seen.map((r) => r.input.item)).toEqual(["a", "b", "c"]);
    expect(end).toMatchObject({ state: "failed" });
    expect(await items(s)).toEqual([
      [0, true, "ok"],
      [1, false, "crashed"],
      [2, true, "ok"],
    ]);
  });
});

describe("a parallel step left through an item's own outcome", () => {
  /** Parallel items ("a", "b", "c" unless given), two at a time, leaving through "found" (to done) or "other" (to failed). */
  const EXITS = (list = '["a", "b", "c"]') => `${HEAD("items")}
adapter "script" "default" {}
step "items" {
  target       = adapter.script.default
  parallel     = ${list}
  parallel_max = 2
  input { item = each.value }
  outcome "found" {
    next   = "done"
    output = { item = step.output.item }
  }
  outcome "other" { next = "failed" }
  outcome "success" { next = continue }
  outcome "all_succeeded" { next = "failed" }
}`;
  const later = <T>(ms: number, v: T) => new Promise<T>((r) => setTimeout(() => r(v), ms));

  it("the first item to leave decides; the item running beside it runs to its end; none other starts", async () => {
    const s = setup();
    const a = scripted((req) => (req.input.item === "a" ? { outcome: "found", output: { item: "a" }, reason: "ok" as const } : later(40, { outcome: "other", output: { item: "b" }, reason: "ok" as const })));
    expect(await s.runner({ adapterFor: a.adapterFor }).start(await graphOf(EXITS()), {}, "r")).toMatchObject({ state: "done", success: true });
    expect(a.seen.map((r) => r.input.item)).toEqual(["a", "b"]);
    const done = (await s.entries("r")).find((e) => e.entry_type === "step.completed");
    expect(done?.payload).toMatchObject({ outcome: "found", next: "done" });
    // An exit that is not a return journals no projection of its item, and an item without an exit code has none in its event.
    for (const e of (await s.entries("r")).filter((x) => x.entry_type === "iteration.completed")) expect(e.payload).not.toHaveProperty("projection");
    for (const e of iterationEvents(s.events)) expect(e).not.toHaveProperty("exit_code");
  });

  it("killed after the leaving item's end: the resumed run finishes the item that had started after it, and starts none other", async () => {
    // "a" ends at once and "c" takes its place; "b" leaves while "c" runs; "d" never starts.
    const g = await graphOf(EXITS('["a", "b", "c", "d"]'));
    const first = scripted((req) => (req.input.item === "a" ? ok({ item: "a" }) : req.input.item === "b" ? later(30, { outcome: "found", output: { item: "b" }, reason: "ok" as const }) : later(80, ok({ item: "c" }))));
    const s = await cutAt(g, (e) => e.entry_type === "iteration.completed" && (e.payload as { index: number }).index === 1, first.adapterFor);
    expect(first.seen.map((r) => r.input.item)).toEqual(["a", "b", "c"]);
    const kept = await s.entries("r");
    expect(kept.filter((e) => e.entry_type === "iteration.completed").map((e) => (e.payload as { index: number }).index)).toEqual([0, 1]);
    expect(kept.filter((e) => e.entry_type === "step.attempt.started").map((e) => (e.payload as { iteration: number }).iteration)).toEqual([0, 1, 2]);
    const again = scripted((req) => ok({ item: `${req.input.item as string} again` }));
    expect(await s.runner({ adapterFor: again.adapterFor }).resume("r")).toMatchObject({ state: "done", success: true });
    expect(again.seen.map((r) => [r.input.item, r.attempt])).toEqual([["c", 2]]);
    const done = (await s.entries("r")).find((e) => e.entry_type === "step.completed");
    expect(done?.payload).toMatchObject({ outcome: "found", output: [{ item: "a" }, { item: "b" }, { item: "c again" }] });
  });
});

describe("how a loop ends", () => {
  /** Items "a", "b", "c"; "b" fails. */
  const failB = () => scripted((req) => (req.input.item === "b" ? { outcome: "failure", output: { n: 2 }, reason: "ok" as const } : ok({ n: req.input.item === "a" ? 1 : 3 })));

  it("a failed item with no any_failed or default outcome falls through to all_succeeded (the Go tool's rule); a default outcome takes it", async () => {
    const fallThrough = setup();
    const g = await graphOf(ITEMS(`on_failure = "continue"`, `outcome "all_succeeded" { next = "done" }`));
    expect(await fallThrough.runner({ adapterFor: failB().adapterFor }).start(g, {}, "r")).toMatchObject({ state: "done", success: true });
    const byDefault = setup();
    const d = await graphOf(ITEMS(`on_failure = "continue"`, `outcome "all_succeeded" { next = "done" }\n  outcome "default" { next = "failed" }`));
    expect(await byDefault.runner({ adapterFor: failB().adapterFor }).start(d, {}, "r")).toMatchObject({ state: "failed" });
    const done = (await byDefault.entries("r")).find((e) => e.entry_type === "step.completed");
    // any_failed, taken by the default outcome.
    expect(done?.payload).toMatchObject({ outcome: "default", next: "failed" });
  });

  it('parallel, one at a time, on_failure = "abort": the items after the failed one never start, and the step\'s output lists only those that ran', async () => {
    const s = setup();
    const a = failB();
    const g = await graphOf(ITEMS(`on_failure = "abort"\n  parallel_max = 1`).replace(`for_each = ["a", "b", "c"]`, `parallel = ["a", "b", "c"]`));
    expect(await s.runner({ adapterFor: a.adapterFor }).start(g, {}, "r")).toMatchObject({ state: "failed" });
    expect(a.seen.map((r) => r.input.item)).toEqual(["a", "b"]);
    const done = (await s.entries("r")).find((e) => e.entry_type === "step.completed");
    expect(done?.payload).toMatchObject({ outcome: "any_failed", output: [{ n: 1 }, { n: 2 }] });
  });

  /** Step "items" iterating (`iterate`) over a body whose one step goes on to `next`. */
  const BODY = (iterate: string, next: string) => `${HEAD("items")}
adapter "script" "default" {}
step "items" {
  ${iterate}
  workflow {
    initial_state = "inner"
    target_state  = "ok"
    step "inner" {
      target = adapter.script.default
      input { item = each.value }
      outcome "success" { next = "${next}" }
    }
    state "ok" { terminal = true }
  }
  outcome "all_succeeded" { next = "done" }
}`;

  it("a body's return leaves a sequential loop, but ends only its own item in a parallel one (whatever parallel_max)", async () => {
    const seq = scripted(() => ok());
    await setup().runner({ adapterFor: seq.adapterFor }).start(await graphOf(BODY(`for_each = ["a", "b", "c"]`, "return")), {}, "r");
    expect(seq.seen.map((r) => r.input.item)).toEqual(["a"]);
    const par = scripted(() => ok());
    await setup().runner({ adapterFor: par.adapterFor }).start(await graphOf(BODY(`parallel = ["a", "b", "c"]\n  parallel_max = 1`, "return")), {}, "r");
    expect(par.seen.map((r) => r.input.item)).toEqual(["a", "b", "c"]);
  });

  /** Step "items" over a body whose step routes both its outcomes to `_continue` (seed 001's loop). */
  const CONTINUE = `${HEAD("items")}
adapter "script" "default" {}
step "items" {
  for_each = ["a", "b", "c"]
  workflow {
    step "inner" {
      target = adapter.script.default
      input { item = each.value }
      outcome "success" { next = "_continue" }
      outcome "failure" { next = "_continue" }
    }
  }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "failed" }
}`;

  it("a body item whose step fails and goes on to _continue has failed: the loop goes on, and ends any_failed", async () => {
    for (const failure of [{ outcome: "failure", output: {}, reason: "ok" as const }, { outcome: "failure", output: {}, reason: "adapter_error" as const, detail: "no such CLI" }]) {
      const s = setup();
      const a = scripted((req) => (req.input.item === "b" ? failure : ok()));
      expect(await s.runner({ adapterFor: a.adapterFor }).start(await graphOf(CONTINUE), {}, "r")).toMatchObject({ state: "failed", success: false });
      expect(a.seen.map((r) => r.input.item)).toEqual(["a", "b", "c"]);
      expect(await items(s)).toEqual([
        [0, true, "ok"],
        [1, false, "child_failed"],
        [2, true, "ok"],
      ]);
      const ended = (await s.entries("r")).filter((e) => e.entry_type === "run.completed" && e.run_id !== "r").map((e) => e.payload as { state: string; success: boolean; reason: string; detail?: string });
      expect(ended.map((p) => [p.state, p.success])).toEqual([
        ["_continue", true],
        ["_continue", false],
        ["_continue", true],
      ]);
      expect(ended[1]).toMatchObject({ reason: failure.reason === "ok" ? "adapter_failed" : "adapter_error", detail: `step "inner" failed (${failure.detail ?? "adapter_failed"}); the loop goes on to its next item` });
    }
  });

  it("a body item that failed into _continue, interrupted before its nested run's end was journaled, is replayed as a failure", async () => {
    const s = setup();
    const a = scripted((req) => (req.input.item === "b" ? { outcome: "failure", output: {}, reason: "ok" as const } : ok()));
    // The journal refuses the end of item b's nested run, once: its step "inner" is journaled, the run's end is not.
    const journal = refusingOnce(s.journal, (e) => e.entry_type === "run.completed" && e.run_id.endsWith("[1]"));
    await expect(s.runner({ journal, adapterFor: a.adapterFor }).start(await graphOf(CONTINUE), {}, "r")).rejects.toBeInstanceOf(JournalWriteError);
    expect(a.seen.map((r) => r.input.item)).toEqual(["a", "b"]);
    const again = scripted(() => ok());
    expect(await s.runner({ adapterFor: again.adapterFor }).resume("r")).toMatchObject({ state: "failed", success: false });
    // Item b's step was not run again: its journaled failure decided; only item c ran.
    expect(again.seen.map((r) => r.input.item)).toEqual(["c"]);
    expect(await items(s)).toEqual([
      [0, true, "ok"],
      [1, false, "child_failed"],
      [2, true, "ok"],
    ]);
  });

  it("a nested run that ended, its item's end refused by the journal, is read back on resume: not walked again, its end journaled once", async () => {
    const s = setup();
    const a = scripted(() => ok());
    const journal = refusingOnce(s.journal, (e) => e.entry_type === "iteration.completed" && e.run_id === "r" && (e.payload as { index: number }).index === 1);
    await expect(s.runner({ journal, adapterFor: a.adapterFor }).start(await graphOf(CONTINUE), {}, "r")).rejects.toBeInstanceOf(JournalWriteError);
    expect(a.seen.map((r) => r.input.item)).toEqual(["a", "b"]);
    const ends = async () => (await s.entries("r")).filter((e) => e.entry_type === "run.completed").map((e) => e.run_id);
    expect(await ends()).toEqual(["r/items#1[0]", "r/items#1[1]"]);
    const again = scripted(() => ok());
    expect(await s.runner({ adapterFor: again.adapterFor }).resume("r")).toMatchObject({ state: "done", success: true });
    expect(again.seen.map((r) => r.input.item)).toEqual(["c"]);
    expect(await ends()).toEqual(["r/items#1[0]", "r/items#1[1]", "r/items#1[2]", "r"]);
  });

  it("resumed after its loop ran, the journaled any_failed stands: nothing runs again", async () => {
    const s = setup({ park: true });
    const a = scripted((req) => (req.input.item === "b" ? { outcome: "failure", output: {}, reason: "ok" as const } : ok()));
    const g = await graphOf(CONTINUE.replace('outcome "any_failed" { next = "failed" }', 'outcome "any_failed" { next = "gate" }') + '\nwait "gate" {\n  signal = "go"\n  next = "failed"\n}\n');
    await expect(s.runner({ adapterFor: a.adapterFor }).start(g, {}, "r")).rejects.toThrow(/parked/);
    await deliverSignal(s.journal, "r", "go", null, "test", Date.now());
    const again = scripted(() => ok());
    expect(await s.runner({ adapterFor: again.adapterFor }).resume("r")).toMatchObject({ state: "failed" });
    expect(again.seen).toEqual([]);
  });

  it("body items: each iteration names its nested run and the state it ended in, and the step lists them all", async () => {
    const g = await graphOf(BODY(`for_each = ["a", "b"]`, "ok"));
    const s = setup();
    expect(await s.runner({ adapterFor: scripted(() => ok()).adapterFor }).start(g, {}, "r")).toMatchObject({ state: "done" });
    const es = await s.entries("r");
    const its = es.filter((e) => e.run_id === "r" && e.entry_type === "iteration.completed").map((e) => e.payload as { child_run_id?: string; child_state?: string });
    expect(its.map((p) => p.child_state)).toEqual(["ok", "ok"]);
    expect(its.map((p) => typeof p.child_run_id)).toEqual(["string", "string"]);
    expect(new Set(its.map((p) => p.child_run_id)).size).toBe(2);
    const done = es.find((e) => e.run_id === "r" && e.entry_type === "step.completed")?.payload as { child_run_ids?: string[]; child_states?: string[] };
    expect(done.child_run_ids).toEqual(its.map((p) => p.child_run_id));
    expect(done.child_states).toEqual(["ok", "ok"]);
  });
});
