/**
 * Child runs advanced in jobs of their own (the scale-out issue, item 4), in process on a
 * real SQLite journal: what a worker's runner does with `detachChildren`, job by job, with
 * the jobs called by hand in the order a queue might run them. The same protocol on
 * PostgreSQL with real worker processes: test/engine/worker/child-jobs.test.ts.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Graph } from "../../compiler/build/graph.js";
import { graphOf } from "./graph-of.js";
import type { Adapter } from "../../engine/adapters/adapter.js";
import { adapterFor } from "../../engine/adapters/registry.js";
import type { JournalEntry } from "../../engine/journal/entry.js";
import { foldEntries } from "../../engine/journal/fold.js";
import { LeaseLostError, RunLockedError, SqliteJournal } from "../../engine/journal/sqlite-journal.js";
import { activeUnits, ChildrenPending, firstOf, NotThisUnit, sharesCallerSessions, UnitEnded, unitOf, within } from "../../engine/run/child-jobs.js";
import { RunParked, RunRefused, Runner, type RunnerOptions } from "../../engine/run/runner.js";
import { deliverSignal } from "../../engine/run/signals.js";
import { main } from "../../cli.js";
import { rejection } from "./runner-fixtures.js";

const HEAD = `workflow "t" {\n  version = "1"\n  initial_state = "loop"\n  target_state = "done"\n}\nstate "done" { terminal = true }\nstate "failed" {\n  terminal = true\n  success = false\n}\n`;

/** A parallel step whose items are bodies on `adapter` (declared by the workflow, inherited by the body). */
const fan = (adapter: string, max = 2) => `${HEAD}adapter "${adapter}" "default" {}
step "loop" {
  parallel     = ["a", "b", "c"]
  parallel_max = ${max}
  workflow {
    step "work" {
      target = adapter.${adapter}.default
      input = { v = each.value }
      outcome "success" { next = "_continue" }
    }
  }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "failed" }
}
output "all" { value = [for o in steps.loop : o.v] }
`;

/** A step iterating as `iteration` says over a body that waits for signal "go". */
const gated = (iteration: string) => `${HEAD}step "loop" {
  ${iteration}
  workflow {
    initial_state = "gate"
    wait "gate" {
      signal = "go"
      next   = "_continue"
    }
  }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "failed" }
}
`;

/** An adapter type `keep` whose sessions are not stateless (as an agent's conversation). */
const keep: Adapter = {
  type: "keep",
  effectful: false,
  async open() {
    return { execute: async (req) => ({ outcome: "success", output: { v: req.input.v ?? null }, reason: "ok" }), close: async () => {} };
  },
};

function setup() {
  const dir = mkdtempSync(join(tmpdir(), "criteria-cj-state-"));
  const journal = new SqliteJournal(dir);
  const runner = (extra: Partial<RunnerOptions> = {}) =>
    new Runner({ journal, adapterFor: (t) => (t === "keep" ? keep : adapterFor(t)), baseDir: dir, pollMs: 5, ...extra });
  /** A worker's runner: parks, detaches children. */
  const job = () => runner({ park: true, parkTimers: true, detachChildren: true });
  return { dir, journal, runner, job, entries: async (id: string) => (await journal.read(id)).entries };
}

describe("child runs in jobs of their own", () => {
  it("a parent parks for its detached children; each child's job writes only inside it; the parent ends as it would in one process", async () => {
    const g = await graphOf(fan("noop"));
    const { job, entries } = setup();
    // The root's job: items 0 and 1 spawned (parallel_max = 2), each with its own job; the root parks.
    const first = await rejection(job().start(g, {}, "r"));
    expect(first).toBeInstanceOf(RunParked);
    expect((first as RunParked).waitingFor).toBe("child runs r/loop#1[0], r/loop#1[1] (advanced by workers)");
    const spawned = (await entries("r")).filter((e): e is JournalEntry<"run.spawned"> => e.entry_type === "run.spawned");
    expect(spawned.map((e) => [e.run_id, e.payload.detached ?? false])).toEqual([
      ["r", false],
      ["r/loop#1[0]", true],
      ["r/loop#1[1]", true],
    ]);
    // Item 1's job: only its own run is written.
    let before = (await entries("r")).length;
    expect(await job().resume("r/loop#1[1]")).toMatchObject({ run_id: "r/loop#1[1]", success: true });
    let written = (await entries("r")).slice(before);
    expect(written.length).toBeGreaterThan(0);
    expect(written.filter((e) => !within(e.run_id, "r/loop#1[1]"))).toEqual([]);
    // Item 0's job replays item 1, ended but not yet recorded in the parent: it leaves that to the parent's job.
    before = (await entries("r")).length;
    expect(await job().resume("r/loop#1[0]")).toMatchObject({ run_id: "r/loop#1[0]", success: true });
    written = (await entries("r")).slice(before);
    expect(written.map((e) => e.run_id).every((id) => id === "r/loop#1[0]")).toBe(true);
    expect(written.at(-1)?.entry_type).toBe("run.completed");
    // A child job run again after its end does nothing.
    before = (await entries("r")).length;
    expect(await job().resume("r/loop#1[0]")).toMatchObject({ success: true });
    expect((await entries("r")).length).toBe(before);
    // The root's job again: items 0 and 1 recorded, item 2 spawned, parked again.
    const second = await rejection(job().resume("r"));
    expect((second as RunParked).waitingFor).toBe("child run r/loop#1[2] (advanced by workers)");
    expect(await job().resume("r/loop#1[2]")).toMatchObject({ success: true });
    const end = await job().resume("r");
    expect(end).toMatchObject({ state: "done", success: true, outputs: { all: ["a", "b", "c"] } });
    // The same as one process running it all.
    const plain = setup();
    expect(await plain.runner().start(g, {}, "r")).toMatchObject({ state: end.state, outputs: end.outputs });
    const output = async (en: JournalEntry[]) => en.find((e) => e.entry_type === "step.completed" && e.step_id === "loop")?.payload;
    expect(await output(await entries("r"))).toEqual(await output(await plain.entries("r")));
  });

  it("one signal ends one wait when two child jobs of the tree race for it; the other parks again", async () => {
    const g = await graphOf(gated(`parallel = ["a", "b"]`));
    const { journal, job, entries } = setup();
    await rejection(job().start(g, {}, "r"));
    for (const child of ["r/loop#1[0]", "r/loop#1[1]"]) expect(await rejection(job().resume(child))).toBeInstanceOf(RunParked);
    await deliverSignal(journal, "r", "go", undefined, undefined, Date.now());
    // Both jobs read the tree before either consumes the signal.
    const ends = await Promise.allSettled([job().resume("r/loop#1[0]"), job().resume("r/loop#1[1]")]);
    expect(ends.map((e) => e.status).sort()).toEqual(["fulfilled", "rejected"]);
    expect((ends.find((e) => e.status === "rejected") as PromiseRejectedResult).reason).toBeInstanceOf(RunParked);
    expect((await entries("r")).filter((e) => e.entry_type === "wait.completed")).toHaveLength(1);
    await deliverSignal(journal, "r", "go", undefined, undefined, Date.now());
    for (const child of ["r/loop#1[0]", "r/loop#1[1]"]) await job().resume(child);
    expect(await job().resume("r")).toMatchObject({ state: "done", success: true });
    expect((await entries("r")).filter((e) => e.entry_type === "wait.completed")).toHaveLength(2);
  });

  it("a signal addressed to one child is taken by that child's job only, not by its sibling's", async () => {
    const g = await graphOf(gated(`parallel = ["a", "b"]`));
    const { journal, job, entries } = setup();
    await rejection(job().start(g, {}, "r"));
    for (const child of ["r/loop#1[0]", "r/loop#1[1]"]) expect(await rejection(job().resume(child))).toBeInstanceOf(RunParked);
    await deliverSignal(journal, "r", "go", undefined, undefined, Date.now(), ["r"], "r/loop#1[1]");
    expect(await rejection(job().resume("r/loop#1[0]"))).toBeInstanceOf(RunParked);
    expect(await job().resume("r/loop#1[1]")).toMatchObject({ success: true });
    const taken = (await entries("r")).filter((e) => e.entry_type === "wait.completed");
    expect(taken.map((e) => e.run_id)).toEqual(["r/loop#1[1]"]);
  });

  it("criteria unlock CHILD of a child whose lease is given back ends nothing, least of all its root's lease", async () => {
    // Found by a trial: with no holder of the child's own lease, unlock fell through to the root's.
    const g = await graphOf(gated(`parallel = ["a", "b"]`));
    const { dir, job } = setup();
    await rejection(job().start(g, {}, "r"));
    expect(await rejection(job().resume("r/loop#1[0]"))).toBeInstanceOf(RunParked);
    // Another process holds the root (a worker advancing it).
    const other = new SqliteJournal(dir);
    await other.lock("r");
    const o = { stdout: "", stderr: "", color: false, isTTY: false, env: {}, out: (t: string) => void (o.stdout += t), err: (t: string) => void (o.stderr += t) };
    expect(await main(["unlock", "r/loop#1[0]", "--state-dir", dir], o)).toBe(0);
    expect(o.stdout).toBe("run r/loop#1[0] was not held by any process; nothing to unlock\n");
    expect(await other.append("r", [{ run_id: "r", step_id: "", attempt: 0, entry_type: "signal.received", at_ms: 1, payload: { name: "go" } }])).toHaveLength(1);
    await other.close();
  });

  it("a detached child parked past its calling step's timeout ends timeout when its job is woken at the deadline", async () => {
    const g = await graphOf(gated(`count   = 1\n  timeout = "1s"`));
    let now = 1_000_000;
    const { runner, entries } = setup();
    const job = () => runner({ park: true, parkTimers: true, detachChildren: true, clock: () => now });
    await rejection(job().start(g, {}, "r"));
    expect(await rejection(job().resume("r/loop#1[0]"))).toBeInstanceOf(RunParked);
    now += 999;
    expect(await rejection(job().resume("r/loop#1[0]"))).toBeInstanceOf(RunParked);
    now += 1;
    expect(await job().resume("r/loop#1[0]")).toMatchObject({ success: false, reason: "timeout", detail: "the step's timeout of 1000 ms passed while run r/loop#1[0] was running" });
    expect(await job().resume("r")).toMatchObject({ state: "failed" });
    const step = (await entries("r")).find((e) => e.entry_type === "iteration.completed")?.payload;
    expect(step).toMatchObject({ success: false, reason: "timeout" });
  });

  it("a child that inherits a session it cannot re-open elsewhere stays in its caller's job", async () => {
    const { job, entries } = setup();
    expect(await job().start(await graphOf(fan("keep")), {}, "r")).toMatchObject({ state: "done", outputs: { all: ["a", "b", "c"] } });
    const spawned = (await entries("r")).filter((e): e is JournalEntry<"run.spawned"> => e.entry_type === "run.spawned");
    expect(spawned).toHaveLength(4);
    expect(spawned.some((e) => e.payload.detached)).toBe(false);
  });

  it("a child that writes shared variables or data stays in its caller's job, so no write is lost (a new-user trial's file)", async () => {
    const g = await graphOf(`workflow {
  name          = "sharedloss"
  version       = "1"
  initial_state = "loop"
  target_state  = "done"
}
adapter "shell" "default" {}
shared_variable "hits" {
  type  = number
  value = 0
}
step "loop" {
  count = 3
  workflow {
    step "s" {
      target = adapter.shell.default
      input { command = "echo hit" }
      outcome "success" {
        next          = "_continue"
        shared_writes = { hits = shared.hits + 1 }
      }
      outcome "failure" { next = "_continue" }
    }
  }
  outcome "all_succeeded" { next = state.done }
  outcome "any_failed"    { next = state.done }
}
state "done" { terminal = true }
output "hits" { value = shared.hits }
`);
    const { job, entries } = setup();
    expect(await job().start(g, {}, "r")).toMatchObject({ state: "done", outputs: { hits: 3 } });
    expect((await entries("r")).some((e) => e.entry_type === "run.spawned" && (e.payload as { detached?: boolean }).detached)).toBe(false);
  });

  it("a child run that runs in its parent's job cannot be resumed alone: the message names its root", async () => {
    const { runner, dir } = setup();
    await runner().start(await graphOf(fan("noop")), {}, "r");
    const e = await rejection(runner().resume("r/loop#1[0]"));
    expect(e).toBeInstanceOf(RunRefused);
    // The journal is not the default one: the command names it.
    expect((e as Error).message).toBe(`run r/loop#1[0] is a child run that runs in its parent's job: resume its root run, criteria resume r --state-dir ${dir}`);
  });

  it("without workers, a detached child is run in process under its own lease, refused while someone else holds it", async () => {
    const g = await graphOf(fan("noop", 3));
    const { dir, job, runner } = setup();
    await rejection(job().start(g, {}, "r"));
    const other = new SqliteJournal(dir);
    await other.lock("r/loop#1[2]");
    const refused = await rejection(runner().resume("r"));
    expect(refused).toBeInstanceOf(RunLockedError);
    expect((refused as Error).message).toContain("r/loop#1[2]");
    await other.unlock("r/loop#1[2]");
    await other.close();
    expect(await runner().resume("r")).toMatchObject({ state: "done", outputs: { all: ["a", "b", "c"] } });
  });

  it("an append naming a lease this journal does not hold is refused (a runner's appends after it gave its lease back)", async () => {
    const { journal } = setup();
    const e = { run_id: "x", step_id: "", attempt: 0, entry_type: "signal.received" as const, at_ms: 1, payload: { name: "go" } };
    await expect(journal.append("x", [e], { lease: "x" })).rejects.toThrow(LeaseLostError);
    await journal.lock("x");
    await expect(journal.append("x", [e], { lease: "x" })).resolves.toHaveLength(1);
    await journal.unlock("x");
    await expect(journal.append("x", [e], { lease: "x" })).rejects.toThrow("it holds no lease on it (never taken, or given back)");
    // A process that names no lease (a signal from another shell) is not fenced.
    await expect(journal.append("x", [e])).resolves.toHaveLength(1);
  });

  it("the items of a parallel step still running finish before the run parks at another item's wait", async () => {
    // Before: the first item to park rejected the step at once, and the others went on
    // writing behind the parked run (after its lease was given back).
    const g = await graphOf(`${HEAD}adapter "shell" "default" {}
step "loop" {
  parallel = ["wait", "work"]
  workflow {
    initial_state = "pick"
    branch "pick" {
      arm {
        when = each.value == "wait"
        next = wait.gate
      }
      default = step.work
    }
    wait "gate" {
      signal = "go"
      next   = "_continue"
    }
    step "work" {
      target = adapter.shell.default
      input = { command = "sleep 0.3; echo worked" }
      outcome "success" { next = "_continue" }
    }
  }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "failed" }
}
`);
    const { runner, entries } = setup();
    const parked = await rejection(runner({ park: true }).start(g, {}, "r"));
    expect(parked).toBeInstanceOf(RunParked);
    const now = await entries("r");
    expect(now.some((e) => e.entry_type === "iteration.completed" && (e.payload as { index: number }).index === 1)).toBe(true);
  });
});

describe("lease units", () => {
  const spawned = (run_id: string, parent?: string, detached?: boolean): JournalEntry => ({
    seq: 0,
    run_id,
    step_id: "",
    attempt: 0,
    entry_type: "run.spawned",
    at_ms: 0,
    payload: { workflow: "w", spec_hash: "h", inputs: {}, ...(parent ? { parent_run_id: parent } : {}), ...(detached ? { detached } : {}) },
  });
  const tree = foldEntries([spawned("r"), spawned("r/a#1", "r", true), spawned("r/a#1/b#1", "r/a#1"), spawned("r/a#1/b#1/c#1", "r/a#1/b#1", true), spawned("r/d#1", "r")]);

  it("a run belongs to its nearest detached ancestor-or-self, else the root", () => {
    expect(unitOf(tree, "r", "r")).toBe("r");
    expect(unitOf(tree, "r", "r/a#1")).toBe("r/a#1");
    expect(unitOf(tree, "r", "r/a#1/b#1")).toBe("r/a#1");
    expect(unitOf(tree, "r", "r/a#1/b#1/c#1")).toBe("r/a#1/b#1/c#1");
    expect(unitOf(tree, "r", "r/d#1")).toBe("r");
    expect(unitOf(tree, "r", "r/unknown#1")).toBe("r");
  });

  it("the active units are the root and each detached child not yet ended", () => {
    expect(activeUnits(tree, "r")).toEqual(["r", "r/a#1", "r/a#1/b#1/c#1"]);
    const ended = foldEntries([{ seq: 9, run_id: "r/a#1", step_id: "", attempt: 0, entry_type: "run.completed", at_ms: 0, payload: { state: "done", success: true, reason: "ok", outputs: {} } }], tree);
    expect(activeUnits(ended, "r")).toEqual(["r", "r/a#1/b#1/c#1"]);
  });

  it("within is by whole run ids, not by prefix", () => {
    expect(within("r/a#1/b#1", "r/a#1")).toBe(true);
    expect(within("r/a#1", "r/a#1")).toBe(true);
    expect(within("r/a#10", "r/a#1")).toBe(false);
    expect(within("r", "r/a#1")).toBe(false);
  });

  it("a child shares its caller's sessions through an inherited agent or a stateful inherited adapter, also in a nested body", async () => {
    const stateless = (t: string) => t === "shell";
    const g = (adapters: [string, boolean][], agents: [string, boolean][] = [], body?: Graph) =>
      ({
        adapters: adapters.map(([id, inherited]) => ({ id, type: id.split(".")[0], name: id.split(".")[1], inherited, implicit: false, config: {} })),
        agents: agents.map(([name, inherited]) => ({ name, inherited, config: {} })),
        steps: body ? [{ body, outcomes: [] }] : [],
      }) as unknown as Graph;
    expect(sharesCallerSessions(g([["shell.default", true]]), stateless)).toBe(false);
    expect(sharesCallerSessions(g([["copilot.x", true]]), stateless)).toBe(true);
    expect(sharesCallerSessions(g([["copilot.x", false]]), stateless)).toBe(false);
    expect(sharesCallerSessions(g([], [["reviewer", true]]), stateless)).toBe(true);
    expect(sharesCallerSessions(g([], [["reviewer", false]]), stateless)).toBe(false);
    // A nested body inheriting what the child owns shares nothing with the child's caller; one inheriting beyond it does.
    expect(sharesCallerSessions(g([["copilot.x", false]], [["r", false]], g([["copilot.x", true]], [["r", true]])), stateless)).toBe(false);
    expect(sharesCallerSessions(g([], [], g([["copilot.x", true]])), stateless)).toBe(true);
    expect(sharesCallerSessions(g([], [], g([], [["r", true]])), stateless)).toBe(true);
  });

  it("of what parallel items ended with, the step ends with the unit's end, then a failure, then a park, then children pending", () => {
    class Parked extends Error {}
    const park = { is: (e: unknown) => e instanceof Parked, with: (p: Error, c: string[]) => new Parked(`${p.message} + ${c.join(",")}`) };
    const ended = new UnitEnded({});
    const failure = new Error("disk full");
    const pendingA = new ChildrenPending(["a"]);
    const pendingB = new ChildrenPending(["b"]);
    const other = new NotThisUnit("x");
    expect(firstOf([pendingA, failure, ended], park)).toBe(ended);
    expect(firstOf([pendingA, other, failure], park)).toBe(failure);
    expect((firstOf([pendingA, new Parked("gate"), pendingB], park) as Error).message).toBe("gate + a,b");
    const parkedAlone = new Parked("gate");
    expect(firstOf([other, parkedAlone], park)).toBe(parkedAlone);
    expect((firstOf([pendingA, other, pendingB], park) as ChildrenPending).runIds).toEqual(["a", "b"]);
    expect(firstOf([other], park)).toBe(other);
  });
});
