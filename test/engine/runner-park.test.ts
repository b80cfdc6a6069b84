/**
 * engine/run/runner.ts, in process: what a worker's runner (`park`, `parkTimers`,
 * `detachChildren`) hands to the queue and what it leaves to itself — a channel receive
 * with nothing to take parks with its deadline as a timer; a post wakes exactly the
 * parked receives it can satisfy (channel, `as`, `from`); a detached child's run.spawned
 * carries its own wake-up and the calling step's deadline; a duration wait and a signal
 * wait park only while their deadline is ahead, and a run that is not a worker's waits
 * itself. Also which signal a wait takes (the closest addressee's, then the oldest, none
 * given after its deadline) and an agent's own `on_crash`. What Stryker's pass over
 * runner.ts lines 1,450–1,866 left alive: these paths ran only in worker processes.
 * The scale-out issue, items 3 and 4; docs/language.md, Channels and Waits.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { JournalEntry } from "../../engine/journal/entry.js";
import type { WakeUp } from "../../engine/journal/journal.js";
import type { SqliteJournal } from "../../engine/journal/sqlite-journal.js";
import { adapterFor } from "../../engine/adapters/registry.js";
import { RunParked, Runner, type RunnerOptions } from "../../engine/run/runner.js";
import { deliverSignal } from "../../engine/run/signals.js";
import { graphOf } from "./graph-of.js";
import { HEAD, recorded, rejection, scripted, setup } from "./runner-fixtures.js";

const journals: SqliteJournal[] = [];
afterEach(async () => {
  for (const j of journals.splice(0)) await j.close();
});

/** A recorded journal, closed after the test, and runners over it on a clock the test moves. */
function world(start = 1_000_000) {
  const r = recorded();
  journals.push(r.inner);
  const clock = { now: start };
  const runner = (extra: Partial<RunnerOptions> = {}) =>
    new Runner({ journal: r.journal, adapterFor, baseDir: r.dir, pollMs: 5, clock: () => clock.now, sleep: async (ms) => void (clock.now += ms), ...extra });
  /** A worker's runner: parks, hands timers to the queue, runs children in jobs of their own. */
  const job = () => runner({ park: true, parkTimers: true, detachChildren: true });
  const wakes = (from = 0): WakeUp[] => r.appends.slice(from).flatMap((a) => [a.opts.wake ?? []].flat());
  const entries = async (id: string): Promise<JournalEntry[]> => (await r.inner.read(id)).entries;
  return { ...r, clock, runner, job, wakes, entries };
}

/** Agents x, y and z (each spawned by a step, as channels require), then `next`. */
const AGENTS = (next: string) => `agent "x" { adapter = "noop" }
agent "y" { adapter = "noop" }
agent "z" { adapter = "noop" }
step "x_work" {
  target = agent.x
  outcome "success" { next = "y_work" }
}
step "y_work" {
  target = agent.y
  outcome "success" { next = "z_work" }
}
step "z_work" {
  target = agent.z
  outcome "success" { next = "${next}" }
}
`;

/**
 * Items in jobs of their own: "post" posts x → y on channel c; "y" receives as y on c,
 * "z" as z on c, "y_from_z" as y from z on c, "d" as y on channel d; each receive bounded by 1m.
 */
const PANEL = `${HEAD("x_work")}${AGENTS("fan")}channel "c" {
  participants = [agent.x, agent.y, agent.z]
}
channel "d" {
  participants = [agent.x, agent.y, agent.z]
}
step "fan" {
  parallel     = ["y", "z", "y_from_z", "d", "post"]
  parallel_max = 5
  workflow {
    initial_state = "pick"
    switch "pick" {
      match {
        condition = each.value == "post"
        next      = "say"
      }
      match {
        condition = each.value == "y_from_z"
        next      = "hear_from_z"
      }
      match {
        condition = each.value == "d"
        next      = "hear_d"
      }
      default { next = "hear" }
    }
    step "say" {
      target = channel.c
      input { post = { from = "x", to = "y", body = "hi" } }
      outcome "success" { next = "_continue" }
    }
    step "hear" {
      target = channel.c
      input { recv = { as = each.value, timeout = "1m" } }
      outcome "received" { next = "_continue" }
      outcome "timeout" { next = "_continue" }
    }
    step "hear_from_z" {
      target = channel.c
      input { recv = { as = "y", from = "z", timeout = "1m" } }
      outcome "received" { next = "_continue" }
      outcome "timeout" { next = "_continue" }
    }
    step "hear_d" {
      target = channel.d
      input { recv = { as = "y", timeout = "1m" } }
      outcome "received" { next = "_continue" }
      outcome "timeout" { next = "_continue" }
    }
  }
  outcome "all_succeeded" { next = "done" }
}
output "heard" { value = [for o in steps.fan : try(o.body, "-")] }
`;

const item = (i: number) => `r/fan#1[${i}]`;

describe("channel receives under workers", () => {
  it("a receive with nothing to take parks, its deadline handed to the queue; a post wakes only the receives it can satisfy; each ends as one process would end it", async () => {
    const w = world();
    const g = await graphOf(PANEL);
    // The root's job spawns five items in jobs of their own, each with its wake-up, and parks.
    expect(await rejection(w.job().start(g, {}, "r"))).toBeInstanceOf(RunParked);
    expect(w.wakes()).toEqual([0, 1, 2, 3, 4].map((i) => ({ runs: [item(i)] })));
    const spawned = (await w.entries("r")).filter((e) => e.entry_type === "run.spawned" && e.run_id !== "r");
    expect(spawned.map((e) => [e.run_id, (e as JournalEntry<"run.spawned">).payload.detached])).toEqual([0, 1, 2, 3, 4].map((i) => [item(i), true]));

    // The four receives park: each hands its deadline (1m after it began to wait, as journaled) to the queue, for its own job.
    const until: number[] = [];
    for (const i of [0, 1, 2, 3]) {
      const before = w.appends.length;
      const began = w.clock.now;
      const parked = await rejection(w.job().resume(item(i)));
      expect(parked, `item ${i}`).toBeInstanceOf(RunParked);
      const recorded = (await w.entries("r")).find((e): e is JournalEntry<"effect.recorded"> => e.entry_type === "effect.recorded" && e.run_id === item(i))!;
      until[i] = recorded.payload.recv!.until_ms;
      expect(until[i]).toBeGreaterThanOrEqual(began + 60_000);
      expect((parked as RunParked).untilMs).toBe(until[i]);
      expect(w.wakes(before)).toEqual([{ runs: [item(i)], atMs: until[i] }]);
    }
    expect((await rejection(w.job().resume(item(0)))) as RunParked).toMatchObject({
      waitingFor: `a message on channel "c" for "y" (until ${new Date(until[0]).toISOString()}, then its timeout outcome)`,
    });

    // The post wakes item 0 only: not z (another "as"), not y from z (another sender), not
    // channel d; then the item's end wakes its parent.
    const before = w.appends.length;
    expect(await w.job().resume(item(4))).toMatchObject({ run_id: item(4), success: true });
    expect(w.wakes(before)).toEqual([{ runs: [item(0)] }, { runs: ["r"] }]);

    // Item 0 takes the message; the others park again before their deadline (the same one) and end `timeout` at it.
    expect(await w.job().resume(item(0))).toMatchObject({ success: true });
    w.clock.now = until[1] - 30_000;
    expect(await rejection(w.job().resume(item(1)))).toMatchObject({ untilMs: until[1] });
    w.clock.now = Math.max(...until);
    for (const i of [1, 2, 3]) expect(await w.job().resume(item(i)), `item ${i}`).toMatchObject({ success: true });
    const end = await w.job().resume("r");
    expect(end).toMatchObject({ state: "done", outputs: { heard: ["hi", "-", "-", "-", "-"] } });
    const outcomes = (await w.entries("r")).filter((e) => e.entry_type === "step.completed" && e.step_id.startsWith("hear")).map((e) => [e.run_id, (e as JournalEntry<"step.completed">).payload.outcome]);
    expect(outcomes.sort()).toEqual([
      [item(0), "received"],
      [item(1), "timeout"],
      [item(2), "timeout"],
      [item(3), "timeout"],
    ]);
    // A parked receive goes on in its attempt each time its job runs again: never taken for
    // one that ended without a result (crashed), never run again as a new attempt.
    const all = await w.entries("r");
    expect(all.filter((e) => e.entry_type === "step.attempt.crashed" || e.entry_type === "step.attempt.interrupted")).toEqual([]);
    expect(all.filter((e) => e.step_id.startsWith("hear") && e.entry_type.startsWith("step.attempt")).map((e) => e.attempt)).toEqual([1, 1, 1, 1]);
  });

  it("a run that is not a worker's (no park, or park without timers) waits at a receive itself and wakes no one", async () => {
    const g = await graphOf(`${HEAD("x_work")}${AGENTS("hear")}channel "c" {
  participants = [agent.x, agent.y, agent.z]
}
step "hear" {
  target = channel.c
  input { recv = { as = "y", timeout = "1m" } }
  outcome "received" { next = "done" }
  outcome "timeout" { next = "say" }
}
step "say" {
  target = channel.c
  input { post = { from = "x", to = "y", body = "late" } }
  outcome "success" { next = "done" }
}
`);
    for (const extra of [{}, { park: true }]) {
      const w = world();
      const start = w.clock.now;
      expect(await w.runner(extra).start(g, {}, "r"), JSON.stringify(extra)).toMatchObject({ state: "done", success: true });
      expect(w.clock.now).toBeGreaterThanOrEqual(start + 60_000);
      expect(w.wakes(), JSON.stringify(extra)).toEqual([]);
    }
  });
});

describe("child runs in jobs of their own", () => {
  const BODY = (timeout: string) => `${HEAD("loop")}step "loop" {
  count = 1
  ${timeout}
  workflow {
    step "work" {
      target = adapter.noop.default
      outcome "success" { next = "_continue" }
    }
  }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "failed" }
}
adapter "noop" "default" {}
`;

  it("a child spawned detached wakes its own job, and the calling step's deadline too when it has one (from the clock when spawned)", async () => {
    const plain = world();
    expect(await rejection(plain.job().start(await graphOf(BODY("")), {}, "r"))).toBeInstanceOf(RunParked);
    expect(plain.wakes()).toEqual([{ runs: ["r/loop#1[0]"] }]);

    const bounded = world(5_000_000);
    expect(await rejection(bounded.job().start(await graphOf(BODY(`timeout = "5m"`)), {}, "r"))).toBeInstanceOf(RunParked);
    expect(bounded.wakes()).toEqual([{ runs: ["r/loop#1[0]"] }, { runs: ["r/loop#1[0]"], atMs: 5_000_000 + 300_000 }]);
    const spawn = bounded.appends.find((a) => a.types.includes("run.spawned") && a.opts.wake !== undefined)!;
    expect(spawn.types).toEqual(["run.spawned"]);
  });

  it("a child spawned detached and continued by a process without workers runs there, under its own lease, given back after", async () => {
    const w = world();
    const g = await graphOf(BODY(""));
    expect(await rejection(w.job().start(g, {}, "r"))).toBeInstanceOf(RunParked);
    // criteria resume: no workers; it runs the child itself.
    expect(await w.runner().resume("r")).toMatchObject({ state: "done", success: true });
    // Its lease was given back: a worker's job may take the child again (it finds it ended).
    expect(await w.job().resume("r/loop#1[0]")).toMatchObject({ success: true });
  });

  it("a child spawned detached and continued by a process that parks but has no workers (no detachChildren) runs there too", async () => {
    const w = world();
    const g = await graphOf(BODY(""));
    expect(await rejection(w.job().start(g, {}, "r"))).toBeInstanceOf(RunParked);
    expect(await w.runner({ park: true }).resume("r")).toMatchObject({ state: "done", success: true });
    // And one with workers' children but no parking (it cannot hand a child over): the same.
    const v = world();
    expect(await rejection(v.job().start(g, {}, "r"))).toBeInstanceOf(RunParked);
    expect(await v.runner({ detachChildren: true }).resume("r")).toMatchObject({ state: "done", success: true });
  });

  it("a child already recorded as spawned is not spawned again when its parent's job runs again", async () => {
    const w = world();
    const g = await graphOf(BODY(""));
    expect(await rejection(w.job().start(g, {}, "r"))).toBeInstanceOf(RunParked);
    const before = w.appends.length;
    const again = await rejection(w.job().resume("r"));
    expect(again).toBeInstanceOf(RunParked);
    expect(w.appends.slice(before).filter((a) => a.types.includes("run.spawned"))).toEqual([]);
    expect(w.wakes(before)).toEqual([]);
  });
});

describe("what a parked run says it waits for", () => {
  /**
   * Items of a parallel step over `items`: each asks adapter "route" (a session that is not
   * stateless, so the items stay in the root's job), which answers the item's value as its
   * outcome: "hold" waits for signal "go" (parks here), "spawn" runs a body on the
   * stateless noop adapter (a child run in a job of its own).
   */
  const MIXED = (items: string[]) => `${HEAD("loop")}adapter "route" "default" {}
adapter "noop" "default" {}
step "loop" {
  parallel     = ${JSON.stringify(items)}
  parallel_max = ${items.length}
  workflow {
    initial_state = "route"
    step "route" {
      target = adapter.route.default
      input  = { v = each.value }
      outcome "hold" { next = "gate" }
      outcome "spawn" { next = "inner" }
    }
    wait "gate" {
      signal = "go"
      next   = "_continue"
    }
    step "inner" {
      workflow {
        initial_state = "work"
        target_state  = "ok"
        step "work" {
          target = adapter.noop.default
          outcome "success" { next = "ok" }
        }
        state "ok" { terminal = true }
      }
      outcome "success" { next = "_continue" }
    }
  }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "failed" }
}
`;
  const route = scripted((req) => ({ outcome: String(req.input.v), output: {}, reason: "ok" }));
  const routed = (t: string) => (t === "route" ? route.adapterFor("script") : adapterFor(t));
  const job = (w: ReturnType<typeof world>) => w.runner({ park: true, parkTimers: true, detachChildren: true, adapterFor: routed });

  it("waiting for one child run: it goes on when it ends; for two: when they end", async () => {
    const one = world();
    const p1 = (await rejection(job(one).start(await graphOf(MIXED(["spawn"])), {}, "r"))) as RunParked;
    expect(p1).toBeInstanceOf(RunParked);
    expect(p1.message).toBe("run r is parked, waiting for child run r/loop#1[0]/inner#1 (advanced by workers); it goes on when it ends");
    const two = world();
    const p2 = (await rejection(job(two).start(await graphOf(MIXED(["spawn", "spawn"])), {}, "r"))) as RunParked;
    expect(p2.message).toBe("run r is parked, waiting for child runs r/loop#1[0]/inner#1, r/loop#1[1]/inner#1 (advanced by workers); it goes on when they end");
  });

  it("a park at a wait while other items wait for child runs says both, the children named once each", async () => {
    const one = world();
    const p1 = (await rejection(job(one).start(await graphOf(MIXED(["hold", "spawn"])), {}, "r"))) as RunParked;
    expect(p1).toBeInstanceOf(RunParked);
    expect(p1.waitingFor).toBe(`signal "go": deliver it with criteria signal r go --state-dir ${one.dir}, and child run r/loop#1[1]/inner#1 (advanced by workers)`);
    expect(p1.message).toMatch(/; it also waits for child run r\/loop#1\[1\]\/inner#1 \(advanced by workers\)$/);
    const two = world();
    const p2 = (await rejection(job(two).start(await graphOf(MIXED(["spawn", "hold", "spawn"])), {}, "r"))) as RunParked;
    expect(p2.waitingFor).toBe(`signal "go": deliver it with criteria signal r go --state-dir ${two.dir}, and child runs r/loop#1[0]/inner#1, r/loop#1[2]/inner#1 (advanced by workers)`);
    expect(p2.message).toMatch(/^run r is parked, .*; it also waits for child runs r\/loop#1\[0\]\/inner#1, r\/loop#1\[2\]\/inner#1 \(advanced by workers\)$/);
  });
});

describe("waits under workers", () => {
  const NAP = `${HEAD("nap")}wait "nap" {\n  duration = "60s"\n  next = "done"\n}\n`;
  const GATE = `${HEAD("gate")}wait "gate" {
  signal  = "go"
  timeout = "60s"
  outcome "received" { next = "done" }
  outcome "timeout" { next = "failed" }
}
`;

  it("a duration wait parks until its end, said with the time; at its end it goes on; park without timers sleeps itself", async () => {
    const w = world();
    const g = await graphOf(NAP);
    const parked = await rejection(w.job().start(g, {}, "w"));
    expect(parked).toBeInstanceOf(RunParked);
    const at = new Date(1_060_000).toISOString();
    expect(parked).toMatchObject({ untilMs: 1_060_000, waitingFor: `${at} (a duration wait)`, message: `run w is parked until ${at} (a duration wait)` });
    w.clock.now = 1_060_000;
    expect(await w.job().resume("w")).toMatchObject({ state: "done" });

    const own = world();
    expect(await own.runner({ park: true }).start(g, {}, "w")).toMatchObject({ state: "done" });
    expect(own.clock.now).toBe(1_060_000);
  });

  it("a signal wait with a deadline parks while the deadline is ahead; at the deadline it ends timeout", async () => {
    const w = world();
    const g = await graphOf(GATE);
    const parked = await rejection(w.job().start(g, {}, "g"));
    expect(parked).toMatchObject({ untilMs: 1_060_000 });
    w.clock.now = 1_060_000;
    expect(await w.job().resume("g")).toMatchObject({ state: "failed" });
  });

  it("a signal given exactly at the deadline counts; one given after it is left", async () => {
    for (const [at, state] of [
      [1_060_000, "done"],
      [1_060_001, "failed"],
    ] as const) {
      const w = world();
      const g = await graphOf(GATE);
      await rejection(w.job().start(g, {}, "g"));
      await deliverSignal(w.inner, "g", "go", undefined, undefined, at);
      w.clock.now = 1_070_000;
      expect(await w.job().resume("g"), `signal at ${at}`).toMatchObject({ state });
    }
  });

  it("of two signals to the same run, the oldest is taken; one addressed to the waiting item before one to its root", async () => {
    const OUTCOMES = `${HEAD("gate")}wait "gate" {
  signal = "go"
  outcome "received" { next = "done" }
  outcome "left" { next = "failed" }
}
`;
    const w = world();
    const g = await graphOf(OUTCOMES);
    await rejection(w.job().start(g, {}, "g"));
    await deliverSignal(w.inner, "g", "go", { outcome: "received" }, undefined, 1_000_001);
    await deliverSignal(w.inner, "g", "go", { outcome: "left" }, undefined, 1_000_002);
    expect(await w.job().resume("g")).toMatchObject({ state: "done" });

    const ITEMS = `${HEAD("loop")}step "loop" {
  parallel = ["a"]
  workflow {
    initial_state = "gate"
    wait "gate" {
      signal = "go"
      outcome "received" { next = "_continue" }
      outcome "left" { next = "_continue" }
    }
  }
  outcome "all_succeeded" { next = "done" }
}
output "took" { value = [for o in steps.loop : o] }
`;
    const t = world();
    const items = await graphOf(ITEMS);
    await rejection(t.job().start(items, {}, "r"));
    await rejection(t.job().resume("r/loop#1[0]"));
    // The root's first, then the item's own: the item's is taken.
    await deliverSignal(t.inner, "r", "go", { outcome: "left" }, undefined, 1_000_001);
    await deliverSignal(t.inner, "r", "go", { outcome: "received" }, undefined, 1_000_002, ["r/loop#1[0]"], "r/loop#1[0]");
    await t.job().resume("r/loop#1[0]");
    const took = (await t.entries("r")).filter((e) => e.entry_type === "wait.completed");
    expect(took.map((e) => (e as JournalEntry<"wait.completed">).payload.outcome)).toEqual(["received"]);
  });
});

describe("on_crash declared by an agent", () => {
  it("an agent's on_crash = \"abort_run\" ends the run at its step's crash, untried again; an adapter's the same", async () => {
    for (const decl of [`agent "a" {\n  adapter  = "script"\n  on_crash = "abort_run"\n}\n`, `adapter "script" "a" {\n  on_crash = "abort_run"\n}\n`]) {
      const target = decl.startsWith("agent") ? "agent.a" : "adapter.script.a";
      const g = await graphOf(`${HEAD("one", "  policy {\n    max_step_retries = 1\n  }\n")}${decl}step "one" {
  target = ${target}
  outcome "success" { next = "done" }
  outcome "failure" { next = "failed" }
}`);
      const a = scripted(() => ({ outcome: "failure", output: {}, reason: "crashed", detail: "gone" }));
      const end = await setup().runner({ adapterFor: a.adapterFor }).start(g, {}, "r");
      expect(a.seen, target).toHaveLength(1);
      expect(end, target).toMatchObject({ state: "", success: false, reason: "crashed", detail: 'gone (on_crash = "abort_run")' });
    }
  });
});
