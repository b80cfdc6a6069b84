/**
 * The runner's child runs and waits in process (engine/run/runner.ts: childCall, bindVariables,
 * spawnChild, awaitSignal, parked): what StrykerJS left of lines 1,450-1,860, each test
 * written against a mutant that survived (a variable's conversion error without its
 * position, the max_depth boundary, a module's outputs, a wait's deadline on resume, what a
 * parked run says).
 */
import { describe, expect, it } from "vitest";
import type { JournalEntry, NewEntry } from "../../engine/journal/entry.js";
import type { AppendOptions } from "../../engine/journal/journal.js";
import { RunParked } from "../../engine/run/runner.js";
import { deliverSignal } from "../../engine/run/signals.js";
import { graphOf } from "./graph-of.js";
import { HEAD, ok, projectGraph as project, scripted, setup } from "./runner-fixtures.js";

const completed = (es: JournalEntry[], step: string) => es.filter((e): e is JournalEntry<"step.completed"> => e.entry_type === "step.completed" && e.step_id === step);

/** A module `m` with variable `count` (number) and one scripted step. */
const MODULE = `workflow {\n  name = "m"\n  version = "1"\n  initial_state = "s"\n  target_state = "done"\n}\nvariable "count" { type = number }\nadapter "script" "default" {}\nstep "s" {\n  target = adapter.script.default\n  input { n = var.count }\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n`;

describe("a subworkflow's variables", () => {
  it("a bound value that does not convert fails the step at the file:line:col that bound it (a new-user trial: no position)", async () => {
    const g = await project({
      "main.hcl": `${HEAD("call")}variable "c" {\n  type    = string\n  default = "abc"\n}\nsubworkflow "m" {\n  source = "./m"\n  input  = { count = var.c }\n}\nstep "call" {\n  target = subworkflow.m\n  outcome "success" { next = "done" }\n  outcome "failure" { next = "failed" }\n}\n`,
      "m/main.hcl": MODULE,
    });
    const s = setup();
    const script = scripted(() => ok());
    const end = await s.runner({ adapterFor: script.adapterFor }).start(g, {}, "r");
    expect(end.success).toBe(false);
    const [call] = completed(await s.entries("r"), "call");
    expect(call.payload.reason).toBe("eval_error");
    // The binding is written on line 17 of main.hcl (HEAD takes 10 lines), its value at column 22.
    expect(call.payload.detail).toMatch(/\/main\.hcl:17:22: subworkflow "m" variable "count": "abc" is not a number/);
    expect(script.seen).toEqual([]);
  });

  it("a value bound on the step wins over the block's, and is converted to the variable's type", async () => {
    const g = await project({
      "main.hcl": `${HEAD("call")}subworkflow "m" {\n  source = "./m"\n  input  = { count = 1 }\n}\nstep "call" {\n  target = subworkflow.m\n  input { count = "7" }\n  outcome "success" { next = "done" }\n}\n`,
      "m/main.hcl": MODULE,
    });
    const s = setup();
    const script = scripted(() => ok());
    expect(await s.runner({ adapterFor: script.adapterFor }).start(g, {}, "r")).toMatchObject({ success: true });
    expect(script.seen.map((r) => r.input.n)).toEqual([7]);
  });
});

describe("a module's result", () => {
  const CALLER = `${HEAD("call")}subworkflow "m" { source = "./m" }\nadapter "script" "default" {}\nstep "call" {\n  target = subworkflow.m\n  outcome "success" { next = "after" }\n}\nstep "after" {\n  target = adapter.script.default\n  input { got = jsonencode(steps.call) }\n  outcome "success" { next = "done" }\n}\n`;
  const module = (outputs: string) => `workflow {\n  name = "m"\n  version = "1"\n  initial_state = "s"\n  target_state = "done"\n}\nadapter "script" "default" {}\nstep "s" {\n  target = adapter.script.default\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n${outputs}`;

  it("is its declared outputs when it declares some, else its steps' merged outputs", async () => {
    for (const [outputs, want] of [
      [`output "total" { value = steps.s.inner + 1 }\n`, { total: 42 }],
      ["", { inner: 41 }],
    ] as const) {
      const g = await project({ "main.hcl": CALLER, "m/main.hcl": module(outputs) });
      const s = setup();
      const script = scripted((req) => (req.step === "s" ? ok({ inner: 41 }) : ok()));
      expect(await s.runner({ adapterFor: script.adapterFor }).start(g, {}, "r")).toMatchObject({ success: true });
      const after = script.seen.find((r) => r.step === "after");
      expect(JSON.parse(after!.input.got as string), outputs || "no outputs").toEqual(want);
    }
  });
});

describe("policy max_depth", () => {
  const nested = (levels: number) => {
    let body = `step "leaf" {\n  target = adapter.script.default\n  outcome "success" { next = "return" }\n}\n`;
    for (let i = 0; i < levels - 1; i++) body = `step "in${i}" {\n  workflow {\n${body}  }\n  outcome "success" { next = "return" }\n}\n`;
    return `${HEAD("top", "  policy {\n    max_depth = 2\n  }\n")}adapter "script" "default" {}\nstep "top" {\n  workflow {\n${body}  }\n  outcome "success" { next = "done" }\n}\n`;
  };

  it("runs nesting exactly max_depth deep, and refuses one level more at run time, naming the chain", async () => {
    const s = setup();
    const script = scripted(() => ok());
    const g = await project({ "main.hcl": nested(2) });
    expect(await s.runner({ adapterFor: script.adapterFor }).start(g, {}, "r2")).toMatchObject({ success: true });
    expect(script.seen.map((r) => r.run_id)).toEqual(["r2/top#1/in0#1"]);
    // One level more: compiled with a larger bound, run under max_depth = 2 (a graph journaled before a policy change).
    const deeper = await project({ "main.hcl": nested(3).replace("max_depth = 2", "max_depth = 3") });
    deeper.policy.max_depth = 2;
    const end = await s.runner({ adapterFor: script.adapterFor }).start(deeper, {}, "r3");
    expect(end.success).toBe(false);
    const failed = (await s.entries("r3")).filter((e): e is JournalEntry<"step.completed"> => e.entry_type === "step.completed").find((e) => e.payload.reason === "policy_exceeded");
    expect(failed?.payload.detail).toBe("runs would nest 3 deep, past policy max_depth = 2: t > top.body > in1.body > in0.body");
  });
});

describe("a signal wait's deadline on resume", () => {
  const WAIT = `${HEAD("gate")}wait "gate" {\n  signal  = "go"\n  timeout = "1s"\n  outcome "received" { next = "done" }\n  outcome "timeout" { next = "failed" }\n}\n`;

  it("parked until its deadline, it says what it waits for and until when, with the commands that give it", async () => {
    const g = await project({ "main.hcl": WAIT });
    const s = setup({ park: true });
    const parked = await s.runner().start(g, {}, "p").catch((e: unknown) => e);
    expect(parked).toBeInstanceOf(RunParked);
    const p = parked as RunParked;
    expect(p.untilMs).toBeGreaterThan(Date.now());
    const flag = ` --state-dir ${s.dir}`;
    expect(p.waitingFor).toBe(`signal "go" (until ${new Date(p.untilMs!).toISOString()}, then its timeout route): deliver it with criteria signal p go${flag}`);
    expect(p.message).toBe(`run p is parked, waiting for ${p.waitingFor}, then continue it with criteria resume p${flag}`);
  });

  it("a signal given before the deadline is taken even when the run resumes after it; one given after it is left, and the timeout route taken", async () => {
    const g = await project({ "main.hcl": WAIT });
    for (const [given, want] of [
      ["before", { state: "done", success: true }],
      ["after", { state: "failed", success: false }],
    ] as const) {
      const s = setup({ park: true });
      const parked = (await s.runner().start(g, {}, "w").catch((e: unknown) => e)) as RunParked;
      expect(parked).toBeInstanceOf(RunParked);
      const until = parked.untilMs!;
      if (given === "before") await deliverSignal(s.journal, "w", "go", null, "t", until - 100);
      await new Promise((r) => setTimeout(r, until - Date.now() + 50));
      if (given === "after") await deliverSignal(s.journal, "w", "go", null, "t", Date.now());
      // Resumed past the deadline, still parking: it does not park again.
      expect(await s.runner().resume("w"), given).toMatchObject(want);
      const taken = (await s.entries("w")).filter((e) => e.entry_type === "wait.completed").map((e) => (e.payload as { outcome: string }).outcome);
      expect(taken).toEqual([given === "before" ? "received" : "timeout"]);
    }
  });
});

describe("an approval a run parks at", () => {
  it("says how to decide it: approve or reject, with the run and the node", async () => {
    const g = await project({ "main.hcl": `${HEAD("ask")}approval "ask" {\n  outcome "approved" { next = "done" }\n  outcome "rejected" { next = "failed" }\n}\n` });
    const s = setup({ park: true });
    const parked = (await s.runner().start(g, {}, "a").catch((e: unknown) => e)) as RunParked;
    expect(parked).toBeInstanceOf(RunParked);
    expect(parked.untilMs).toBeUndefined();
    expect(parked.waitingFor).toBe(`approval "ask": decide with criteria approve a ask --state-dir ${s.dir} (or criteria reject a ask --state-dir ${s.dir})`);
  });
});

describe("a run that is stopping", () => {
  it("begins no child run: an item ending as the stop comes does not let the next one be spawned (found by a new-user trial: Ctrl-C, then run.spawned of the next item)", async () => {
    const g = await graphOf(`${HEAD("loop")}adapter "script" "default" {}
step "loop" {
  parallel     = ["a", "b", "c"]
  parallel_max = 2
  workflow {
    step "work" {
      target = adapter.script.default
      input = { v = each.value }
      outcome "success" { next = "_continue" }
    }
  }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "failed" }
}
`);
    const s = setup();
    const stop = new AbortController();
    // The stop comes right after item 0's run is journaled complete: item 1 is still in
    // flight (it ends when stopped), item 2 not begun.
    const completes0 = (entries: { entry_type: string; run_id: string }[]) => entries.some((e) => e.entry_type === "run.completed" && e.run_id === "r/loop#1[0]");
    const journal = new Proxy(s.journal, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver) as unknown;
        if (typeof v !== "function") return v;
        const f = (v as (...a: unknown[]) => Promise<unknown>).bind(target);
        if (prop === "append")
          return async (root: string, entries: NewEntry[], o?: AppendOptions) => {
            const written = await f(root, entries, o);
            if (completes0(entries)) stop.abort();
            return written;
          };
        if (prop === "appendGroup")
          return async (root: string, list: { entries: NewEntry[] }[]) => {
            const written = await f(root, list);
            if (completes0(list.flatMap((a) => a.entries))) stop.abort();
            return written;
          };
        return f;
      },
    });
    const a = scripted((req) => (req.input.v === "b" ? new Promise((resolve) => req.signal!.addEventListener("abort", () => resolve(ok()), { once: true })) : ok()));
    await expect(s.runner({ journal, adapterFor: a.adapterFor, signal: stop.signal }).start(g, {}, "r")).rejects.toThrow(/interrupted|stopped/);
    const spawned = (await s.entries("r")).filter((e) => e.entry_type === "run.spawned").map((e) => e.run_id);
    expect(spawned).toEqual(["r", "r/loop#1[0]", "r/loop#1[1]"]);
    // Resumed, the run goes on from there: item 2 runs once, and the step succeeds.
    const again = scripted(() => ok());
    expect(await s.runner({ adapterFor: again.adapterFor }).resume("r")).toMatchObject({ state: "done" });
    expect(again.seen.map((r) => r.input.v).sort()).toEqual(["b", "c"]);
  });
});

describe("a subworkflow's variables its caller does not bind", () => {
  /** Module `m`: one scripted step given `var.count` and `var.label`, its output `said`. */
  const MOD = (vars: string, step = "") =>
    `workflow {\n  name = "m"\n  version = "1"\n  initial_state = "s"\n  target_state = "done"\n}\n${vars}\nadapter "script" "default" {}\nstep "s" {\n  target = adapter.script.default\n  input {\n    n = var.count\n    label = var.label\n  }\n${step}  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\noutput "said" { value = steps.s.said }\n`;
  const CALLER = (input = "") => `${HEAD("call")}subworkflow "m" {\n  source = "./m"\n${input}}\nstep "call" {\n  target = subworkflow.m\n  outcome "success" { next = "done" }\n}\noutput "o" { value = steps.call.said }\n`;

  it("take their defaults, converted to their types (an untyped one as written)", async () => {
    const g = await project({ "main.hcl": CALLER(), "m/main.hcl": MOD(`variable "count" {\n  type = number\n  default = "4"\n}\nvariable "label" { default = 5 }`) });
    const a = scripted(() => ok({ said: "x" }));
    expect(await setup().runner({ adapterFor: a.adapterFor }).start(g, {}, "r")).toMatchObject({ state: "done" });
    expect(a.seen.map((r) => r.input)).toEqual([{ n: 4, label: 5 }]);
  });

  it("a secret one bound to a plain value is masked in what the module returns, as the caller's own secrets are", async () => {
    const g = await project({
      "main.hcl": CALLER(`  input = { label = "hunter2-secret" }\n`),
      "m/main.hcl": MOD(`variable "count" {\n  type = number\n  default = 4\n}\nvariable "label" {\n  type = string\n  secret = true\n}`, `  secret_input { L = var.label }\n`).replace("label = var.label", 'label = "plain"'),
    });
    const a = scripted((r) => ok({ said: `token ${r.env.L}` }));
    const end = await setup().runner({ adapterFor: a.adapterFor }).start(g, {}, "r");
    expect(a.seen[0].env.L).toBe("hunter2-secret");
    expect(end).toMatchObject({ state: "done", outputs: { o: "token ***" } });
  });
});
