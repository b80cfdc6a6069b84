/**
 * The engine over compiled graphs (docs/architecture.md, The engine): routing, iteration, bodies as nested
 * runs, branches, waits, approvals, policies, outputs, sessions, resume and locks.
 * Real SQLite journals in temp directories; adapters are the built-ins or small
 * counting adapters where a test must see what ran.
 */
import { spawn } from "node:child_process";
import { getEventListeners } from "node:events";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import type { Value } from "../../compiler/expr/value.js";
import { compile } from "../../compiler/index.js";
import { graphOf } from "./graph-of.js";
import type { Adapter, StepRequest, StepResult } from "../../engine/adapters/adapter.js";
import { adapterFor } from "../../engine/adapters/registry.js";
import type { JournalEntry, NewEntry } from "../../engine/journal/entry.js";
import { JournalWriteError, RunLockedError, SqliteJournal } from "../../engine/journal/sqlite-journal.js";
import type { RunEvent } from "../../engine/run/events.js";
import { RunInterrupted, RunParked, Runner, RunRefused, type RunnerOptions } from "../../engine/run/runner.js";
import { deliverSignal } from "../../engine/run/signals.js";

function setup(extra: Partial<RunnerOptions> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "criteria-state-"));
  const journal = new SqliteJournal(dir);
  const events: RunEvent[] = [];
  const runner = new Runner({ journal, adapterFor, baseDir: dir, events: (e) => events.push(e), pollMs: 5, ...extra });
  return { dir, journal, runner, events, entries: async (id: string) => (await journal.read(id)).entries };
}

const HEAD = (initial: string) => `workflow "t" {\n  version = "1"\n  initial_state = "${initial}"\n  target_state = "done"\n}\nstate "done" { terminal = true }\nstate "failed" {\n  terminal = true\n  success = false\n}\n`;

/** A counting adapter: records every execution and session open/close. */
function counting(answer: (req: StepRequest) => StepResult = () => ({ outcome: "success", output: {}, reason: "ok" })) {
  const calls: string[] = [];
  const opened: string[] = [];
  const closed: string[] = [];
  const adapter: Adapter = {
    type: "count",
    effectful: true,
    async open(_config, ctx) {
      opened.push(`${ctx.adapter_id}@${ctx.run_id}`);
      return {
        execute: async (req) => {
          calls.push(`${req.step}${req.each ? `[${req.each.index}]` : ""}`);
          return answer(req);
        },
        close: async () => void closed.push(`${ctx.adapter_id}@${ctx.run_id}`),
      };
    },
  };
  return { adapter, calls, opened, closed, adapterFor: (t: string) => (t === "count" ? adapter : adapterFor(t)) };
}

describe("routing", () => {
  it("runs a noop chain to its terminal state and journals each step", async () => {
    const g = await graphOf(`${HEAD("a")}
step "a" {
  adapter = "noop"
  input { label = "x" }
  outcome "success" { next = "b" }
}
step "b" {
  adapter = "noop"
  input { result = "failure" }
  outcome "success" { next = "done" }
  outcome "failure" { next = "failed" }
}`);
    const { runner, entries } = setup();
    const end = await runner.start(g, {}, "r1");
    expect(end).toMatchObject({ state: "failed", success: false });
    const types = (await entries("r1")).map((e) => `${e.entry_type}:${e.step_id}`);
    // noop has no side effects: its attempt is journaled with its completion, no effect entries.
    expect(types).toEqual(["run.spawned:", "step.attempt.started:a", "step.completed:a", "step.attempt.started:b", "step.completed:b", "run.completed:"]);
  });

  it("an undeclared outcome fails the run unless default_outcome routes it", async () => {
    const src = (dflt: string) => `${HEAD("a")}
step "a" {
  adapter = "noop"
  input { result = "weird" }
  ${dflt}
  outcome "success" { next = "done" }
}`;
    const { runner } = setup();
    const bad = await runner.start(await graphOf(src("")), {}, "r-bad");
    expect(bad).toMatchObject({ success: false, reason: "unknown_outcome" });
    expect(bad.detail).toContain('"weird"');
    const { runner: r2 } = setup();
    expect(await r2.start(await graphOf(src('default_outcome = "success"')), {}, "r-ok")).toMatchObject({ success: true, state: "done" });
  });

  it("a failed step with no outcome for its failure says so after the adapter's reason (found by a new-user trial)", async () => {
    const g = await graphOf(`${HEAD("a")}
adapter "shell" "default" {}
step "a" {
  target = adapter.shell.default
  input { command = "echo broken >&2; exit 3" }
  outcome "success" { next = "done" }
}`);
    const end = await setup().runner.start(g, {}, "r");
    expect(end).toMatchObject({ success: false });
    expect(end.detail).toMatch(/broken/);
    expect(end.detail).toMatch(/step "a" has no "failure" outcome to route it \(declared: success\)$/);
  });

  it("branches on expressions and journals the arm taken", async () => {
    const g = await graphOf(`${HEAD("a")}
variable "env" {
  type = "string"
  default = "prod"
}
step "a" {
  adapter = "noop"
  input { size = 3 }
  outcome "success" { next = "decide" }
}
branch "decide" {
  arm {
    when = var.env == "dev"
    next = "failed"
  }
  arm {
    when = steps.a.size > 2
    next = "done"
  }
  default { next = "failed" }
}`);
    const { runner, entries } = setup();
    expect(await runner.start(g, {}, "r")).toMatchObject({ state: "done", success: true });
    expect((await entries("r")).find((e) => e.entry_type === "branch.taken")?.payload).toMatchObject({ arm: 1, next: "done" });
    const { runner: r2 } = setup();
    expect(await r2.start(g, { env: "dev" }, "r")).toMatchObject({ state: "failed" });
  });

  it("a branch taken before a park is said once: the resumed run replays it silently, as it does a recorded step (a worker's every job of a run printed it again)", async () => {
    const g = await graphOf(`${HEAD("decide")}
branch "decide" {
  arm {
    when = true
    next = "gate"
  }
  default { next = "failed" }
}
wait "gate" {
  signal = "go"
  next = "done"
}`);
    const first = setup({ park: true });
    await expect(first.runner.start(g, {}, "r")).rejects.toBeInstanceOf(RunParked);
    expect(first.events.filter((e) => e.event === "branch.taken")).toHaveLength(1);
    await deliverSignal(first.journal, "r", "go", null, "t", Date.now());
    const events: RunEvent[] = [];
    const again = new Runner({ journal: first.journal, adapterFor, baseDir: first.dir, events: (e) => events.push(e), pollMs: 5 });
    expect(await again.resume("r")).toMatchObject({ state: "done", success: true });
    expect(events.map((e) => e.event)).not.toContain("branch.taken");
    expect(events.map((e) => e.event)).toContain("run.resumed");
    expect((await first.entries("r")).filter((e) => e.entry_type === "branch.taken")).toHaveLength(1);
  });

  it("evaluates workflow outputs at the end", async () => {
    const g = await graphOf(`${HEAD("a")}
step "a" {
  adapter = "noop"
  input { word = "hi" }
  outcome "success" { next = "done" }
}
output "shout" { value = upper(steps.a.word) }`);
    const { runner } = setup();
    expect((await runner.start(g, {}, "r")).outputs).toEqual({ shout: "HI" });
  });

  it("writes shared variables from outcomes and journals them", async () => {
    const g = await graphOf(`${HEAD("a")}
shared_variable "n" {
  type = "number"
  value = 1
}
step "a" {
  adapter = "noop"
  outcome "success" {
    next = "b"
    shared_writes = { n = shared.n + 1 }
  }
}
step "b" {
  adapter = "noop"
  input { seen = shared.n }
  outcome "success" { next = "done" }
}
output "n" { value = shared.n }`);
    const { runner, entries } = setup();
    expect((await runner.start(g, {}, "r")).outputs).toEqual({ n: 2 });
    expect((await entries("r")).find((e) => e.entry_type === "step.completed" && e.step_id === "a")?.payload).toMatchObject({ shared: { n: 2 } });
  });
});

describe("iteration and bodies", () => {
  const loop = (iter: string, body: string, extra = "") => `${HEAD("loop")}
step "loop" {
  ${iter}
  ${extra}
  workflow {
${body}
  }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "failed" }
}`;
  const ok = `step "work" {
  adapter = "noop"
  input = { i = each._idx, v = each.value }
  outcome "success" { next = "_continue" }
}`;

  it("count runs the body once per item as nested runs, outputs in order", async () => {
    const { runner, entries } = setup();
    const end = await runner.start(await graphOf(loop("count = 3", ok)), {}, "r");
    expect(end).toMatchObject({ state: "done", success: true });
    const spawned = (await entries("r")).filter((e) => e.entry_type === "run.spawned").map((e) => e.run_id);
    expect(spawned).toEqual(["r", "r/loop#1[0]", "r/loop#1[1]", "r/loop#1[2]"]);
    const child = (await entries("r")).find((e) => e.run_id === "r/loop#1[1]" && e.entry_type === "run.spawned")!;
    expect(child.payload).toMatchObject({ parent_run_id: "r", parent_step_id: "loop", iteration: 1 });
    const done = (await entries("r")).find((e) => e.entry_type === "step.completed" && e.step_id === "loop")!;
    expect(done.payload).toMatchObject({ outcome: "all_succeeded", output: [{ i: 0, v: 0 }, { i: 1, v: 1 }, { i: 2, v: 2 }], child_run_ids: ["r/loop#1[0]", "r/loop#1[1]", "r/loop#1[2]"] });
  });

  it("for_each over a map walks keys in order with each.key", async () => {
    const body = `step "work" {
  adapter = "noop"
  input = { k = each.key, v = each.value, last = each._last }
  outcome "success" { next = "_continue" }
}`;
    const { runner, entries } = setup();
    await runner.start(await graphOf(loop(`for_each = { b = 2, a = 1 }`, body)), {}, "r");
    const done = (await entries("r")).find((e): e is JournalEntry<"step.completed"> => e.entry_type === "step.completed" && e.step_id === "loop")!;
    expect(done.payload.output).toEqual([{ k: "a", v: 1, last: false }, { k: "b", v: 2, last: true }]);
  });

  it("an empty collection takes all_succeeded and says so", async () => {
    const { runner, events } = setup();
    expect(await runner.start(await graphOf(loop(`for_each = []`, ok)), {}, "r")).toMatchObject({ state: "done" });
    const e = events.find((x) => x.event === "step.completed" && x.step === "loop") as Extract<RunEvent, { event: "step.completed" }>;
    expect(e.detail).toContain("empty");
  });

  it("a body ending in a success = false state fails its item; on_failure = abort stops", async () => {
    const body = `step "work" {
  adapter = "noop"
  input { result = each._idx == 1 ? "failure" : "success" }
  outcome "success" { next = "_continue" }
  outcome "failure" { next = "broken" }
}
state "broken" {
  terminal = true
  success = false
}`;
    const { runner, entries } = setup();
    expect(await runner.start(await graphOf(loop("count = 3", body, `on_failure = "abort"`)), {}, "r")).toMatchObject({ state: "failed" });
    expect((await entries("r")).filter((e) => e.entry_type === "iteration.completed").map((e) => (e.payload as { success: boolean }).success)).toEqual([true, false]);
    const { runner: r2, entries: e2 } = setup();
    expect(await r2.start(await graphOf(loop("count = 3", body, `on_failure = "continue"`)), {}, "r")).toMatchObject({ state: "failed" });
    expect((await e2("r")).filter((e) => e.entry_type === "iteration.completed")).toHaveLength(3);
  });

  it("return leaves the iteration early, successfully", async () => {
    const body = `step "work" {
  adapter = "noop"
  input { result = each._idx == 1 ? "approved" : "success" }
  outcome "success" { next = "_continue" }
  outcome "approved" { next = "return" }
}`;
    const { runner, entries } = setup();
    expect(await runner.start(await graphOf(loop("count = 5", body)), {}, "r")).toMatchObject({ state: "done", success: true });
    expect((await entries("r")).filter((e) => e.entry_type === "iteration.completed")).toHaveLength(2);
  });

  it("a switch arm's return with an output ends the run with that projection as its outputs, as a step's does (a trial of the Go tool's docs: it was lost)", async () => {
    const g = await graphOf(`workflow "sw" {
  version = "1"
  initial_state = "s"
}
step "s" {
  adapter = "noop"
  input { n = 42 }
  outcome "success" { next = "pick" }
}
switch "pick" {
  match {
    condition = steps.s.n > 40
    next      = return
    output    = { answer = steps.s.n }
  }
  default = return
}`);
    const { runner } = setup();
    expect(await runner.start(g, {}, "r")).toMatchObject({ state: "return", success: true, outputs: { answer: 42 } });
  });

  it("a non-iterating body's failure becomes its step's failure, reason threaded through", async () => {
    const g = await graphOf(`${HEAD("outer")}
step "outer" {
  type = "workflow"
  workflow {
    step "inner" {
      adapter = "noop"
      input { result = "failure" }
      outcome "success" { next = "return" }
      outcome "failure" { next = "bad" }
    }
    state "bad" {
      terminal = true
      success = false
    }
  }
  outcome "success" { next = "done" }
}`);
    const { runner } = setup();
    const end = await runner.start(g, {}, "r");
    expect(end.success).toBe(false);
    expect(end.detail).toContain("r/outer#1 failed");
    expect(end.detail).toContain('reached state "bad"');
  });

  it("parallel runs items concurrently up to parallel_max, outputs in item order", async () => {
    let running = 0;
    let peak = 0;
    const c = counting((req) => ({ outcome: "success", output: { v: req.each!.value }, reason: "ok" }));
    const slow: Adapter = {
      ...c.adapter,
      async open(config, ctx) {
        const s = await c.adapter.open(config, ctx);
        return {
          execute: async (req) => {
            running++;
            peak = Math.max(peak, running);
            await new Promise((r) => setTimeout(r, 20));
            running--;
            return s.execute(req);
          },
          close: s.close,
        };
      },
    };
    const g = await graphOf(`${HEAD("fan")}
adapter "count" "default" {}
step "fan" {
  target = adapter.count.default
  parallel = ["a", "b", "c", "d", "e"]
  parallel_max = 2
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "failed" }
}`);
    const { runner, entries } = setup({ adapterFor: (t) => (t === "count" ? slow : adapterFor(t)) });
    expect(await runner.start(g, {}, "r")).toMatchObject({ state: "done" });
    expect(peak).toBe(2);
    expect((await entries("r")).find((e): e is JournalEntry<"step.completed"> => e.entry_type === "step.completed")?.payload.output).toEqual(["a", "b", "c", "d", "e"].map((v) => ({ v })));
  });
});

describe("sessions", () => {
  it("opens a session once per scope, a body uses the parent's live session, closes on scope end", async () => {
    const c = counting();
    const g = await graphOf(`${HEAD("a")}
adapter "count" "main" {}
step "a" {
  target = adapter.count.main
  outcome "success" { next = "loop" }
}
step "loop" {
  count = 2
  workflow {
    step "b" {
      target = adapter.count.main
      outcome "success" { next = "_continue" }
    }
  }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "failed" }
}`);
    const { runner } = setup({ adapterFor: c.adapterFor });
    await runner.start(g, {}, "r");
    expect(c.calls).toEqual(["a", "b[0]", "b[1]"]);
    expect(c.opened).toEqual(["adapter.count.main@r"]);
    expect(c.closed).toEqual(["adapter.count.main@r"]);
  });
});

describe("waits and approvals", () => {
  it("a duration wait sleeps through the injected clock", async () => {
    let now = 1_000_000;
    const slept: number[] = [];
    const g = await graphOf(`${HEAD("pause")}
wait "pause" {
  duration = "90s"
  next = "done"
}`);
    const { runner, entries } = setup({ clock: () => now, sleep: async (ms) => void (slept.push(ms), (now += ms)) });
    expect(await runner.start(g, {}, "r")).toMatchObject({ state: "done" });
    expect(slept).toEqual([90_000]);
    expect((await entries("r")).find((e) => e.entry_type === "wait.started")?.payload).toMatchObject({ until_ms: 1_090_000 });
  });

  it("a signal wait continues when the signal is delivered", async () => {
    const g = await graphOf(`${HEAD("gate")}
wait "gate" {
  signal = "deployed"
  next = "done"
}`);
    const { runner, journal } = setup();
    const run = runner.start(g, {}, "r");
    await new Promise((r) => setTimeout(r, 30));
    await deliverSignal(journal, "r", "deployed", { ok: true }, "test", Date.now());
    expect(await run).toMatchObject({ state: "done" });
  });

  it("approvals: auto-approve, or a recorded rejection", async () => {
    const g = await graphOf(`${HEAD("ask")}
approval "ask" {
  approvers = ["alice"]
  reason = "ship it?"
  outcome "approved" { next = "done" }
  outcome "rejected" { next = "failed" }
}`);
    const { runner } = setup({ autoApprove: true });
    expect(await runner.start(g, {}, "r")).toMatchObject({ state: "done" });
    const { runner: r2, journal, entries } = setup();
    const run = r2.start(g, {}, "r");
    await new Promise((r) => setTimeout(r, 30));
    await deliverSignal(journal, "r", "approval:ask", "rejected", "alice", Date.now());
    expect(await run).toMatchObject({ state: "failed" });
    expect((await entries("r")).find((e) => e.entry_type === "approval.decided")?.payload).toMatchObject({ decision: "rejected", by: "alice" });
  });
});

describe("policies", () => {
  it("max_total_steps and max_visits end a loop as a failure", async () => {
    const loopy = (extra: string) => `${HEAD("a")}
${extra}
step "a" {
  adapter = "noop"
  max_visits = 4
  outcome "success" { next = "b" }
}
step "b" {
  adapter = "noop"
  outcome "success" { next = "a" }
  outcome "failure" { next = "failed" }
}`;
    const { runner } = setup();
    const end = await runner.start(await graphOf(loopy("")), {}, "r");
    expect(end).toMatchObject({ success: false, reason: "policy_exceeded" });
    expect(end.detail).toContain("max_visits = 4");
    const { runner: r2 } = setup();
    const end2 = await r2.start(await graphOf(loopy("policy {\n  max_total_steps = 3\n}")), {}, "r");
    expect(end2.detail).toContain("max_total_steps = 3");
  });
});

describe("resume", () => {
  const G = `${HEAD("one")}
adapter "count" "default" {}
step "one" {
  target = adapter.count.default
  outcome "success" { next = "two" }
}
step "two" {
  target = adapter.count.default
  outcome "success" { next = "three" }
}
step "three" {
  target = adapter.count.default
  outcome "success" { next = "done" }
}`;

  it("re-uses completed steps, journals the interrupted attempt as interrupted, runs it again", async () => {
    const g = await graphOf(G);
    const ctl = new AbortController();
    const hang = counting((req) => {
      if (req.step === "two") {
        setTimeout(() => ctl.abort(), 5);
        return new Promise<StepResult>(() => {}) as unknown as StepResult;
      }
      return { outcome: "success", output: { step: req.step }, reason: "ok" };
    });
    const hanging: Adapter = {
      ...hang.adapter,
      async open(c, ctx) {
        const s = await hang.adapter.open(c, ctx);
        return {
          execute: (req) => Promise.race([s.execute(req), new Promise<StepResult>((res) => req.signal.addEventListener("abort", () => res({ outcome: "failure", output: {}, reason: "cancelled" })))]),
          close: s.close,
        };
      },
    };
    const s1 = setup({ adapterFor: (t) => (t === "count" ? hanging : adapterFor(t)), signal: ctl.signal });
    await expect(s1.runner.start(g, {}, "r")).rejects.toBeInstanceOf(RunInterrupted);
    expect(hang.calls).toEqual(["one", "two"]);
    const after = counting((req) => ({ outcome: "success", output: { step: req.step }, reason: "ok" }));
    const r2 = new Runner({ journal: s1.journal, adapterFor: after.adapterFor, baseDir: s1.dir });
    expect(await r2.resume("r")).toMatchObject({ state: "done", success: true });
    expect(after.calls).toEqual(["two", "three"]);
    // Stopped on purpose (Ctrl-C), so journaled as interrupted, not found crashed on resume.
    const stopped = (await s1.entries("r")).filter((e) => e.entry_type === "step.attempt.interrupted" || e.entry_type === "step.attempt.crashed");
    expect(stopped.map((e) => [e.entry_type, e.step_id, e.attempt])).toEqual([["step.attempt.interrupted", "two", 1]]);
    const started = (await s1.entries("r")).filter((e) => e.entry_type === "step.attempt.started" && e.step_id === "two");
    expect(started.map((e) => e.attempt)).toEqual([1, 2]);
  });

  it("a run stopped while its step's session opens: the step stops there, its effect not started, rather than waiting for a signal that never fires (found by CI: a stopping worker waited for ever)", async () => {
    const g = await graphOf(G);
    const ctl = new AbortController();
    const seen: boolean[] = [];
    const stopsAtOpen: Adapter = {
      type: "count",
      effectful: true,
      async open() {
        ctl.abort(); // SIGTERM while the attempt is journaled and its session opened
        return {
          execute: async (req) => {
            seen.push(req.signal.aborted);
            // Without the fix this step would wait for an abort that never comes; bounded here so the test fails fast.
            return req.signal.aborted ? { outcome: "failure", output: {}, reason: "cancelled" } : new Promise<StepResult>((res) => setTimeout(() => res({ outcome: "success", output: {}, reason: "ok" }), 500));
          },
          close: async () => undefined,
        };
      },
    };
    const s = setup({ adapterFor: (t) => (t === "count" ? stopsAtOpen : adapterFor(t)), signal: ctl.signal });
    await expect(s.runner.start(g, {}, "r")).rejects.toBeInstanceOf(RunInterrupted);
    // Stopped before its session was handed over: the adapter is not asked to run it at all.
    expect(seen).toEqual([]);
    const stopped = (await s.entries("r")).filter((e) => e.entry_type === "step.attempt.interrupted");
    expect(stopped.map((e) => [e.step_id, e.attempt])).toEqual([["one", 1]]);
  });

  it("never re-executes a confirmed effect whose step.completed was lost", async () => {
    const g = await graphOf(G);
    const c = counting();
    const s = setup({ adapterFor: c.adapterFor });
    await s.runner.start(g, {}, "r");
    // Drop everything after "two"'s effect.confirmed, as if killed between the two writes.
    const db = new Database(join(s.dir, "journal.db"));
    const confirmed = db.prepare("SELECT seq FROM journal WHERE step_id = 'two' AND entry_type = 'effect.confirmed'").get() as { seq: number };
    db.prepare("DELETE FROM journal WHERE seq > ?").run(confirmed.seq);
    db.close();
    const again = counting();
    const r2 = new Runner({ journal: s.journal, adapterFor: again.adapterFor, baseDir: s.dir });
    expect(await r2.resume("r")).toMatchObject({ state: "done" });
    expect(again.calls).toEqual(["three"]);
  });

  it("a failed journal append stops the run; resume continues from what was written", async () => {
    const g = await graphOf(G);
    const c = counting();
    class Flaky extends SqliteJournal {
      fail = true;
      override async append(root: string, entries: NewEntry[]): Promise<JournalEntry[]> {
        if (this.fail && entries.some((e) => e.entry_type === "step.completed" && e.step_id === "two")) throw new JournalWriteError("disk full");
        return super.append(root, entries);
      }
    }
    const dir = mkdtempSync(join(tmpdir(), "criteria-flaky-"));
    const journal = new Flaky(dir);
    await expect(new Runner({ journal, adapterFor: c.adapterFor, baseDir: dir }).start(g, {}, "r")).rejects.toBeInstanceOf(JournalWriteError);
    expect((await journal.read("r")).entries.some((e) => e.step_id === "two" && e.entry_type === "step.completed")).toBe(false);
    journal.fail = false;
    expect(await new Runner({ journal, adapterFor: c.adapterFor, baseDir: dir }).resume("r")).toMatchObject({ state: "done" });
    expect(c.calls).toEqual(["one", "two", "two", "three"]);
  });

  it("refuses a second live process on the same run", async () => {
    const g = await graphOf(G);
    const s = setup({ adapterFor: counting().adapterFor });
    await s.runner.start(g, {}, "r");
    const sleeper = spawn("sleep", ["30"]);
    try {
      const db = new Database(join(s.dir, "journal.db"));
      // A live holder renews its lease: it runs until well after now.
      db.prepare("INSERT OR REPLACE INTO locks (root_run_id, pid, host, acquired_ms, owner, epoch, expires_ms) VALUES ('r', ?, ?, 0, 'other', 1, ?)").run(sleeper.pid, (await import("node:os")).hostname(), Date.now() + 60_000);
      db.close();
      await expect(new Runner({ journal: s.journal, adapterFor, baseDir: s.dir }).resume("r")).rejects.toBeInstanceOf(RunLockedError);
    } finally {
      sleeper.kill();
    }
  });

  it("a dead holder's lock is taken over", async () => {
    const g = await graphOf(G);
    const s = setup({ adapterFor: counting().adapterFor });
    const db = new Database(join(s.dir, "journal.db"));
    db.prepare("INSERT INTO locks (root_run_id, pid, host, acquired_ms) VALUES ('r', 999999, ?, 0)").run((await import("node:os")).hostname());
    db.close();
    expect(await s.runner.start(g, {}, "r")).toMatchObject({ state: "done" });
  });

  it("resume of a finished run returns its recorded end", async () => {
    const g = await graphOf(G);
    const c = counting();
    const s = setup({ adapterFor: c.adapterFor });
    await s.runner.start(g, {}, "r");
    const again = await new Runner({ journal: s.journal, adapterFor: c.adapterFor, baseDir: s.dir }).resume("r");
    expect(again).toMatchObject({ state: "done", success: true });
    expect(c.calls).toHaveLength(3);
  });
});

describe("variables", () => {
  it("a required variable must be given", async () => {
    const g = await graphOf(`${HEAD("a")}
variable "who" { type = "string" }
step "a" {
  adapter = "noop"
  input { hi = "hello \${var.who}" }
  outcome "success" { next = "done" }
}`);
    await expect(setup().runner.start(g, {}, "r")).rejects.toThrow(/variable "who" is required/);
    const s = setup();
    await s.runner.start(g, { who: "ann" } as Record<string, Value>, "r");
    expect((await s.entries("r")).find((e): e is JournalEntry<"step.completed"> => e.entry_type === "step.completed")?.payload.output).toEqual({ hi: "hello ann" });
  });

  it("a value of the wrong type refuses the run, naming the variable, before anything is journaled", async () => {
    const g = await graphOf(`${HEAD("a")}
variable "n" { type = "number" }
step "a" {
  adapter = "noop"
  input { v = var.n + 1 }
  outcome "success" { next = "done" }
}`);
    const s = setup();
    const err = await s.runner.start(g, { n: "many" } as Record<string, Value>, "r").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunRefused);
    expect((err as Error).message).toMatch(/^input "n": /);
    expect(await s.entries("r")).toEqual([]);
    await s.runner.start(g, { n: "12" } as Record<string, Value>, "r2");
    // A string that is a number is converted, as the type says.
    expect((await s.entries("r2")).find((e): e is JournalEntry<"step.completed"> => e.entry_type === "step.completed")?.payload.output).toEqual({ v: 13 });
  });
});

describe("step events", () => {
  it("carry a step's output whole up to 8 KiB of JSON, and only its size above (the journal keeps all of it)", async () => {
    const sized = (bytes: number) => "x".repeat(bytes - '{"s":""}'.length);
    const c = counting((req) => ({ outcome: "success", output: { s: sized(req.step === "a" ? 8192 : 8193) }, reason: "ok" }));
    const g = await graphOf(`${HEAD("a")}
adapter "count" "c" {}
step "a" {
  target = adapter.count.c
  outcome "success" { next = "b" }
}
step "b" {
  target = adapter.count.c
  outcome "success" { next = "done" }
}`);
    const s = setup({ adapterFor: c.adapterFor });
    await s.runner.start(g, {}, "r");
    const done = s.events.filter((e): e is Extract<RunEvent, { event: "step.completed" }> => e.event === "step.completed");
    expect(done.map((e) => ("output" in e ? JSON.stringify(e.output).length : -1))).toEqual([8192, -1]);
    expect(done.map((e) => ("output_bytes" in e ? e.output_bytes : -1))).toEqual([-1, 8193]);
    const completed = (await s.entries("r")).filter((e): e is JournalEntry<"step.completed"> => e.entry_type === "step.completed");
    expect(completed.map((e) => JSON.stringify(e.payload.output).length)).toEqual([8192, 8193]);
  });
});

describe("regressions from the new-user sweep", () => {
  it("a wait longer than a Node timer holds (2^31 ms) really waits, in chunks", async () => {
    let now = 0;
    const slept: number[] = [];
    const g = await graphOf(`${HEAD("pause")}
wait "pause" {
  duration = "600h"
  next = "done"
}`);
    const { runner } = setup({ clock: () => now, sleep: async (ms) => void (slept.push(ms), (now += ms)) });
    expect(await runner.start(g, {}, "r")).toMatchObject({ state: "done" });
    expect(slept.reduce((a, b) => a + b, 0)).toBe(600 * 3_600_000);
  });

  it("a count larger than max_total_steps fails with policy_exceeded before building items", async () => {
    const g = await graphOf(`${HEAD("loop")}
variable "n" { type = "number" }
step "loop" {
  count = var.n
  workflow {
    step "w" {
      adapter = "noop"
      outcome "success" { next = "_continue" }
    }
  }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "failed" }
}`);
    const end = await setup().runner.start(g, { n: 100_000_000 }, "r");
    expect(end).toMatchObject({ success: false, reason: "policy_exceeded" });
  });

  it("a branch whose when is not a bool fails the run instead of silently taking default", async () => {
    const g = await graphOf(`${HEAD("pick")}
variable "mode" {
  type = "string"
  default = "fast"
}
branch "pick" {
  arm {
    when = var.mode
    next = "done"
  }
  default { next = "failed" }
}`);
    const end = await setup().runner.start(g, {}, "r");
    expect(end).toMatchObject({ success: false, reason: "eval_error" });
    expect(end.detail).toContain('"when" must be true or false');
  });

  it("a run ending in a success = false state says failure_state", async () => {
    const g = await graphOf(`${HEAD("a")}
step "a" {
  adapter = "noop"
  outcome "success" { next = "failed" }
}`);
    expect(await setup().runner.start(g, {}, "r")).toMatchObject({ state: "failed", success: false, reason: "failure_state" });
  });

  it("a run found held elsewhere leaves no listener on the caller's signal (found by a trial: a worker's busy retries leaked one each)", async () => {
    const g = await graphOf(`${HEAD("a")}
step "a" {
  adapter = "noop"
  outcome "success" { next = "done" }
}`);
    const stop = new AbortController();
    const s = setup({ signal: stop.signal });
    expect(await s.runner.start(g, {}, "r")).toMatchObject({ state: "done" });
    expect(getEventListeners(stop.signal, "abort")).toHaveLength(0);
    // Held: another runner of this process has the lease.
    await s.journal.lock("r");
    for (let i = 0; i < 3; i++) {
      const busy = new Runner({ journal: s.journal, adapterFor, baseDir: s.dir, signal: stop.signal });
      await expect(busy.resume("r")).rejects.toBeInstanceOf(RunLockedError);
      const again = new Runner({ journal: s.journal, adapterFor, baseDir: s.dir, signal: stop.signal });
      await expect(again.start(g, {}, "r")).rejects.toBeInstanceOf(RunLockedError);
    }
    expect(getEventListeners(stop.signal, "abort")).toHaveLength(0);
  });

  it("waiting adds no abort listeners per poll (no MaxListenersExceededWarning)", async () => {
    const g = await graphOf(`${HEAD("gate")}
wait "gate" {
  signal = "go"
  next = "done"
}`);
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on("warning", onWarning);
    try {
      const s = setup({ sleep: undefined, pollMs: 1 });
      const run = s.runner.start(g, {}, "r");
      await new Promise((r) => setTimeout(r, 150));
      void deliverSignal(s.journal, "r", "go", null, "t", Date.now());
      expect(await run).toMatchObject({ state: "done" });
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings).not.toContain("MaxListenersExceededWarning");
  });
});

describe("environments", () => {
  it("a step's environment variables reach its shell process", async () => {
    const g = await graphOf(`${HEAD("a")}
environment "shell" "ci" {
  variables = { GREETING = "hello", N = 2 }
}
adapter "shell" "default" {}
step "a" {
  target = adapter.shell.default
  environment = "shell.ci"
  input { command = "echo $GREETING-$N" }
  outcome "success" { next = "done" }
}`);
    const s = setup();
    expect(await s.runner.start(g, {}, "r")).toMatchObject({ state: "done" });
    expect((await s.entries("r")).find((e): e is JournalEntry<"step.completed"> => e.entry_type === "step.completed")?.payload.output).toMatchObject({ stdout: "hello-2\n" });
  });
});

describe("retries across a resume", () => {
  it("the retry budget counts attempts of earlier processes: max_step_retries = 2 means 3 attempts in all", async () => {
    const g = await graphOf(`${HEAD("flaky")}
policy {
  max_step_retries = 2
}
adapter "count" "default" {}
step "flaky" {
  target = adapter.count.default
  outcome "success" { next = "done" }
  outcome "failure" { next = "failed" }
}`);
    const c = counting(() => ({ outcome: "failure", output: {}, reason: "timeout", detail: "timed out" }));
    class StopsBeforeRetry extends SqliteJournal {
      fail = true;
      override async append(root: string, entries: NewEntry[]): Promise<JournalEntry[]> {
        // Dies as the second attempt starts: the first attempt's failure is already journaled.
        if (this.fail && entries.some((e) => e.entry_type === "step.attempt.started" && e.attempt === 2)) throw new JournalWriteError("killed");
        return super.append(root, entries);
      }
    }
    const dir = mkdtempSync(join(tmpdir(), "criteria-retry-"));
    const journal = new StopsBeforeRetry(dir);
    await expect(new Runner({ journal, adapterFor: c.adapterFor, baseDir: dir }).start(g, {}, "r")).rejects.toBeInstanceOf(JournalWriteError);
    expect(c.calls).toHaveLength(1);
    journal.fail = false;
    const end = await new Runner({ journal, adapterFor: c.adapterFor, baseDir: dir }).resume("r");
    expect(end).toMatchObject({ state: "failed" });
    expect(c.calls).toHaveLength(3);
    // Resuming the finished run executes nothing more.
    await new Runner({ journal, adapterFor: c.adapterFor, baseDir: dir }).resume("r");
    expect(c.calls).toHaveLength(3);
  });
});

describe("expressions nested in objects and lists", () => {
  const expected = { flat: "hello world", nested: { greeting: "hello world", n: 3, who: "world" }, list: ["WORLD", "world"] };
  it("HCL: input values that are objects and lists are evaluated whole", async () => {
    const g = await graphOf(`${HEAD("s")}
variable "who" {
  type = "string"
  default = "world"
}
step "s" {
  adapter = "noop"
  input {
    flat   = "hello \${var.who}"
    nested = { greeting = "hello \${var.who}", n = 1 + 2, who = var.who }
    list   = [upper(var.who), var.who]
  }
  outcome "success" {
    next   = "done"
    output = { deep = { who = var.who, sum = 1 + 2 } }
  }
}`);
    const s = setup();
    await s.runner.start(g, {}, "r");
    expect((await s.entries("r")).find((e): e is JournalEntry<"step.completed"> => e.entry_type === "step.completed")?.payload.output).toEqual({ ...expected, deep: { who: "world", sum: 3 } });
  });

  it("YAML: templates inside maps and lists are evaluated, and checked at their own positions", async () => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-yaml-nested-"));
    const file = join(dir, "w.yaml");
    const yaml = (ref: string) => `workflow: { name: w, version: "1", initial_state: s, target_state: done }
variables:
  who: { type: string, default: world }
steps:
  s:
    adapter: noop
    input:
      flat: "hello \${var.who}"
      nested: { greeting: "hello \${var.who}", n: "\${1 + 2}", who: "\${${ref}}" }
      list: ["\${upper(var.who)}", "\${var.who}"]
    outcomes: { success: done }
states:
  done: { terminal: true }
`;
    writeFileSync(file, yaml("var.who"));
    const c = await compile(file);
    expect(c.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const s = setup();
    await s.runner.start(c.graph!, {}, "r");
    expect((await s.entries("r")).find((e): e is JournalEntry<"step.completed"> => e.entry_type === "step.completed")?.payload.output).toEqual(expected);
    writeFileSync(file, yaml("var.wh"));
    const bad = await compile(file);
    expect(bad.diagnostics.map((d) => [d.code, d.range.start.line, d.range.start.column])).toEqual([["unknown_reference", 9, 70]]);
  });
});

describe("signal waits", () => {
  const src = `${HEAD("gate")}
wait "gate" {
  signal = "go"
  duration = "10m"
  outcome "timeout" { next = "failed" }
  outcome "received" { next = "done" }
}`;
  it("a delivered signal takes the received outcome, whatever the declaration order", async () => {
    const g = await graphOf(src);
    const s = setup();
    const run = s.runner.start(g, {}, "r");
    await new Promise((r) => setTimeout(r, 30));
    void deliverSignal(s.journal, "r", "go", null, "t", Date.now());
    expect(await run).toMatchObject({ state: "done" });
  });
  it("with a duration, no signal in time takes the timeout outcome", async () => {
    let now = 0;
    const g = await graphOf(src);
    const s = setup({ clock: () => now, sleep: async (ms) => void (now += ms) });
    expect(await s.runner.start(g, {}, "r")).toMatchObject({ state: "failed" });
    expect((await s.entries("r")).find((e) => e.entry_type === "wait.completed")?.payload).toMatchObject({ outcome: "timeout", next: "failed" });
  });
});

describe("locks held by processes that are gone", () => {
  it("a zombie (killed, not yet reaped) does not hold the run", async () => {
    const g = await graphOf(`${HEAD("a")}
step "a" {
  adapter = "noop"
  outcome "success" { next = "done" }
}`);
    const s = setup();
    // A grandchild that exits under a parent that never waits (it exec'd sleep) stays a
    // zombie; it exits only after the exec, so the shell cannot have reaped it first.
    const { spawn: sp } = await import("node:child_process");
    const { readFileSync } = await import("node:fs");
    const parent = sp("sh", ["-c", 'sh -c "sleep 0.3; exit 0" & echo $!; exec sleep 5'], { stdio: ["ignore", "pipe", "ignore"] });
    try {
      const pid = Number(await new Promise<string>((r) => parent.stdout!.once("data", (d) => r(String(d).trim()))));
      await new Promise((r) => setTimeout(r, 700));
      expect(readFileSync(`/proc/${pid}/stat`, "utf8")).toMatch(/\) Z /);
      const db = new Database(join(s.dir, "journal.db"));
      db.prepare("INSERT INTO locks (root_run_id, pid, host, acquired_ms) VALUES ('r', ?, ?, 0)").run(pid, (await import("node:os")).hostname());
      db.close();
      expect(await s.runner.start(g, {}, "r")).toMatchObject({ state: "done" });
    } finally {
      parent.kill();
    }
  });
});

describe("on_crash", () => {
  const crashy = () => {
    let n = 0;
    return counting(() => (n++ === 0 ? { outcome: "failure", output: {}, reason: "crashed", detail: "adapter process died" } : { outcome: "success", output: {}, reason: "ok" }));
  };
  const wf = (onCrash: string) => `${HEAD("a")}
adapter "count" "default" {
  on_crash = "${onCrash}"
}
step "a" {
  target = adapter.count.default
  outcome "success" { next = "b" }
  outcome "failure" { next = "b" }
}
step "b" {
  target = adapter.count.default
  outcome "success" { next = "done" }
  outcome "failure" { next = "failed" }
}`;
  it("respawn opens a fresh session after a crash", async () => {
    const c = crashy();
    const s = setup({ adapterFor: c.adapterFor });
    expect(await s.runner.start(await graphOf(wf("respawn")), {}, "r")).toMatchObject({ state: "done" });
    expect(c.opened).toHaveLength(2);
  });
  it("fail keeps the session and routes the crash as a failure", async () => {
    const c = crashy();
    const s = setup({ adapterFor: c.adapterFor });
    expect(await s.runner.start(await graphOf(wf("fail")), {}, "r")).toMatchObject({ state: "done" });
    expect(c.opened).toHaveLength(1);
  });
  it("abort_run ends the run at the crash", async () => {
    const c = crashy();
    const s = setup({ adapterFor: c.adapterFor });
    const end = await s.runner.start(await graphOf(wf("abort_run")), {}, "r");
    expect(end).toMatchObject({ success: false, reason: "crashed" });
    expect(end.detail).toContain("abort_run");
    expect(c.calls).toEqual(["a"]);
  });
});

describe("typed outputs", () => {
  const wf = (type: string, value: string) => `${HEAD("a")}
step "a" {
  adapter = "noop"
  input { text = "42" }
  outcome "success" { next = "done" }
}
output "o" {
  type  = "${type}"
  value = ${value}
}`;
  it("converts to the declared type", async () => {
    expect((await setup().runner.start(await graphOf(wf("number", "steps.a.text")), {}, "r")).outputs).toEqual({ o: 42 });
  });
  it("fails the run when the value does not fit", async () => {
    const end = await setup().runner.start(await graphOf(wf("list(string)", "steps.a.text")), {}, "r");
    expect(end).toMatchObject({ success: false, reason: "eval_error" });
    expect(end.detail).toContain('output "o"');
  });
});
