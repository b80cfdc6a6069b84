/**
 * The runner's child runs in process (engine/run/runner.ts: childCall, spawnChild): what a
 * child's `run.spawned` entry keeps for each kind of call (a body, an iteration of one, a
 * subworkflow, a flow used as an agent), a flow's input that is no object, how a failed
 * child is named in its step's detail, and a step's timeout bounding its child run. Each
 * test was written against mutants StrykerJS left alive in lines 1,450-1,860.
 */
import { describe, expect, it } from "vitest";
import type { JournalEntry } from "../../engine/journal/entry.js";
import { HEAD, ok, projectGraph as project, scripted, setup } from "./runner-fixtures.js";

const spawned = (es: JournalEntry[]) => es.filter((e): e is JournalEntry<"run.spawned"> => e.entry_type === "run.spawned" && e.run_id !== "r");
const completed = (es: JournalEntry[], step: string) => es.filter((e): e is JournalEntry<"step.completed"> => e.entry_type === "step.completed" && e.step_id === step && e.run_id === "r");

/** A one-step module named `name` whose step `s` (script adapter) reads `input.task` or a variable. */
const module = (header: string, input = "", extra = "") =>
  `workflow {\n${header}  version = "1"\n  initial_state = "s"\n  target_state = "done"\n}\n${extra}adapter "script" "default" {}\nstep "s" {\n  target = adapter.script.default\n${input}  outcome "success" { next = state.done }\n  outcome "failure" { next = state.failed }\n}\nstate "done" { terminal = true }\nstate "failed" {\n  terminal = true\n  success = false\n}\n`;

describe("what a child's run.spawned keeps", () => {
  it("an iteration of a body: its item (index, total, value), the body's name, no identity, and no inputs (it sees its caller's variables, which are not its own)", async () => {
    const g = await project({
      "main.hcl": `${HEAD("loop")}variable "who" {\n  type = string\n  default = "ops"\n}\nadapter "script" "default" {}\nstep "loop" {\n  for_each = ["x", "y"]\n  workflow {\n    initial_state = "one"\n    step "one" {\n      target = adapter.script.default\n      input { v = each.value }\n      outcome "success" { next = "_continue" }\n    }\n  }\n  outcome "all_succeeded" { next = "done" }\n  outcome "any_failed" { next = "failed" }\n}\n`,
    });
    const s = setup();
    const script = scripted(() => ok());
    expect(await s.runner({ adapterFor: script.adapterFor }).start(g, {}, "r")).toMatchObject({ success: true });
    const [first, second] = spawned(await s.entries("r"));
    expect(first.run_id).toBe("r/loop#1[0]");
    expect(first.payload).toMatchObject({ workflow: "loop.body", parent_run_id: "r", parent_step_id: "loop", iteration: 0, call: "body", inputs: {}, each: { index: 0, total: 2, value: "x" } });
    expect(first.payload.inputs).toEqual({});
    expect(first.payload).not.toHaveProperty("identity");
    expect(first.payload).not.toHaveProperty("input");
    expect(second.payload).toMatchObject({ iteration: 1, each: { index: 1, total: 2, value: "y" } });
  });

  it("a subworkflow: its name as identity, the variables bound, no iteration, no each, no input", async () => {
    const g = await project({
      "main.hcl": `${HEAD("call")}subworkflow "m" {\n  source = "./m"\n  input  = { count = 3 }\n}\nstep "call" {\n  target = subworkflow.m\n  outcome "success" { next = "done" }\n  outcome "failure" { next = "failed" }\n}\n`,
      "m/main.hcl": module(`  name = "m"\n`, `  input { n = var.count }\n`, `variable "count" { type = number }\n`),
    });
    const s = setup();
    const script = scripted(() => ok());
    expect(await s.runner({ adapterFor: script.adapterFor }).start(g, {}, "r")).toMatchObject({ success: true });
    const [child] = spawned(await s.entries("r"));
    expect(child.run_id).toBe("r/call#1");
    expect(child.payload).toMatchObject({ workflow: "m", identity: "m", parent_step_id: "call", call: "subworkflow", inputs: { count: 3 } });
    expect(child.payload.inputs).toEqual({ count: 3 });
    for (const k of ["iteration", "each", "input"]) expect(child.payload).not.toHaveProperty(k);
  });

  it("a flow used as an agent: its own identity (else its name), its input object, the variables it binds", async () => {
    for (const [header, identity] of [
      [`  name = "f"\n  identity = "team-f"\n`, "team-f"],
      [`  name = "f"\n`, "f"],
    ] as const) {
      const g = await project({
        "main.hcl": `workflow "t" {\n  version = "1"\n  initial_state = "ask"\n  target_state = "done"\n  use = ["./f.hcl"]\n}\nstate "done" { terminal = true }\nstate "failed" {\n  terminal = true\n  success = false\n}\nstep "ask" {\n  target = agent.f\n  input { task = "t1" }\n  outcome "success" { next = "done" }\n  outcome "failure" { next = "failed" }\n}\n`,
        "f.hcl": module(header, `  input { task = input.task }\n`),
      });
      const s = setup();
      const script = scripted(() => ok());
      expect(await s.runner({ adapterFor: script.adapterFor }).start(g, {}, "r")).toMatchObject({ success: true });
      const [child] = spawned(await s.entries("r"));
      expect(child.payload).toMatchObject({ workflow: "f", identity, call: "flow", input: { task: "t1" } });
      expect(script.seen.map((q) => q.input.task)).toEqual(["t1"]);
    }
  });
});

describe("what a flow used as an agent is given", () => {
  const caller = (input: string) =>
    `workflow "t" {\n  version = "1"\n  initial_state = "ask"\n  target_state = "done"\n  use = ["./f.hcl"]\n}\nvariable "l" {\n  type = list(string)\n  default = ["a", "b"]\n}\nstate "done" { terminal = true }\nstate "failed" {\n  terminal = true\n  success = false\n}\nstep "ask" {\n  target = agent.f\n${input}  outcome "success" { next = "done" }\n  outcome "failure" { next = "failed" }\n}\n`;
  const flow = module(`  name = "f"\n`, `  input { n = var.count }\n`, `variable "count" { type = number }\n`);

  it("an input that is no object fails the step where it is written, quoting the value; nothing runs", async () => {
    const g = await project({ "main.hcl": caller(`  input = var.l\n`), "f.hcl": flow });
    const s = setup();
    const script = scripted(() => ok());
    expect(await s.runner({ adapterFor: script.adapterFor }).start(g, {}, "r")).toMatchObject({ success: false });
    const [step] = completed(await s.entries("r"), "ask");
    expect(step.payload).toMatchObject({ outcome: "", reason: "eval_error" });
    expect(step.payload.detail).toMatch(/main\.hcl:\d+:\d+: step "ask": input must be an object, not \["a","b"\]$/);
    expect(script.seen).toEqual([]);
  });

  it("an input that is null, a string or a list, known only at run time, fails the step the same way", async () => {
    const g = await project({ "main.hcl": caller(`  input = var.x\n`).replace("state \"done\"", `variable "x" { type = any }\nstate "done"`), "f.hcl": flow });
    for (const [x, shown] of [
      [null, "null"],
      ["text", '"text"'],
      [[1, 2], "[1,2]"],
    ] as const) {
      const s = setup();
      const script = scripted(() => ok());
      expect(await s.runner({ adapterFor: script.adapterFor }).start(g, { x: x as never }, "r")).toMatchObject({ success: false });
      const [step] = completed(await s.entries("r"), "ask");
      expect(step.payload.detail, String(x)).toMatch(new RegExp(`main\\.hcl:\\d+:\\d+: step "ask": input must be an object, not ${shown.replace(/[[\]]/g, "\\$&")}$`));
      expect(script.seen).toEqual([]);
    }
  });

  it("an input object computed at run time that lacks a required variable fails the step, naming it; a missing one with a default takes it, converted", async () => {
    const withDefault = module(`  name = "f"\n`, `  input {\n    n = var.count\n    m = var.more\n  }\n`, `variable "count" { type = number }\nvariable "more" {\n  type = number\n  default = "7"\n}\n`);
    const g = await project({ "main.hcl": caller(`  input = var.x\n`).replace("state \"done\"", `variable "x" { type = any }\nstate "done"`), "f.hcl": withDefault });
    const s = setup();
    const script = scripted(() => ok());
    expect(await s.runner({ adapterFor: script.adapterFor }).start(g, { x: { other: 1 } }, "r")).toMatchObject({ success: false });
    expect(completed(await s.entries("r"), "ask")[0].payload.detail).toBe('flow "f": variable "count" is required and was not passed');
    const t = setup();
    expect(await t.runner({ adapterFor: script.adapterFor }).start(g, { x: { count: 2 } }, "r")).toMatchObject({ success: true });
    expect(script.seen.map((q) => [q.input.n, q.input.m])).toEqual([[2, 7]]);
  });

  it("a same-named key binds its variable, converted to its type (a required one left out is refused by the compiler)", async () => {
    const g = await project({ "main.hcl": caller(`  input { count = "5" }\n`), "f.hcl": flow });
    const s = setup();
    const script = scripted(() => ok());
    expect(await s.runner({ adapterFor: script.adapterFor }).start(g, {}, "r")).toMatchObject({ success: true });
    expect(script.seen.map((q) => q.input.n)).toEqual([5]);
    const [child] = spawned(await s.entries("r"));
    expect(child.payload.inputs).toEqual({ count: 5 });
    // One that does not convert (known only at run time) fails the step where the key is
    // written: line 19, its value at column 19.
    const bad = await project({ "main.hcl": caller(`  input { count = var.s }\n`).replace("state \"done\"", `variable "s" { type = string }\nstate "done"`), "f.hcl": flow });
    const t = setup();
    expect(await t.runner({ adapterFor: script.adapterFor }).start(bad, { s: "abc" }, "r")).toMatchObject({ success: false });
    const [step] = completed(await t.entries("r"), "ask");
    expect(step.payload.detail).toMatch(/\/main\.hcl:19:19: flow "f" variable "count": "abc" is not a number/);
  });
});

describe("a failed child in its step's detail", () => {
  const fail = () => scripted(() => ({ outcome: "failure", output: {}, reason: "adapter_failed", detail: "boom" }));

  it("a body: nested run and its id", async () => {
    const g = await project({
      "main.hcl": `${HEAD("loop")}adapter "script" "default" {}\nstep "loop" {\n  workflow {\n    initial_state = "one"\n    step "one" {\n      target = adapter.script.default\n      outcome "success" { next = "return" }\n    }\n  }\n  outcome "success" { next = "done" }\n  outcome "failure" { next = "failed" }\n}\n`,
    });
    const s = setup();
    expect(await s.runner({ adapterFor: fail().adapterFor }).start(g, {}, "r")).toMatchObject({ success: false });
    const [step] = completed(await s.entries("r"), "loop");
    expect(step.payload).toMatchObject({ outcome: "failure", reason: "child_failed" });
    expect(step.payload.detail).toMatch(/^nested run r\/loop#1 failed: /);
  });

  it("a subworkflow and a flow: their kind, name and run id", async () => {
    const sub = await project({
      "main.hcl": `${HEAD("call")}subworkflow "m" { source = "./m" }\nstep "call" {\n  target = subworkflow.m\n  outcome "success" { next = "done" }\n  outcome "failure" { next = "failed" }\n}\n`,
      "m/main.hcl": module(`  name = "m"\n`),
    });
    const flow = await project({
      "main.hcl": `workflow "t" {\n  version = "1"\n  initial_state = "ask"\n  target_state = "done"\n  use = ["./f.hcl"]\n}\nstate "done" { terminal = true }\nstate "failed" {\n  terminal = true\n  success = false\n}\nstep "ask" {\n  target = agent.f\n  input { task = "t1" }\n  outcome "success" { next = "done" }\n  outcome "failure" { next = "failed" }\n}\n`,
      "f.hcl": module(`  name = "f"\n`, `  input { task = input.task }\n`),
    });
    for (const [g, step, label] of [
      [sub, "call", `subworkflow "m" (run r/call#1) failed: `],
      [flow, "ask", `flow "f" (run r/ask#1) failed: `],
    ] as const) {
      const s = setup();
      expect(await s.runner({ adapterFor: fail().adapterFor }).start(g, {}, "r")).toMatchObject({ success: false });
      const [done] = completed(await s.entries("r"), step);
      expect(done.payload).toMatchObject({ outcome: "failure", reason: "child_failed" });
      expect(done.payload.detail?.startsWith(label), done.payload.detail).toBe(true);
    }
  });
});

describe("a child that fails after its return", () => {
  it("is a failure to its caller, which takes its failure outcome (found by a new-user trial: the caller took success and the run succeeded)", async () => {
    const g = await project({
      "main.hcl": `${HEAD("call")}subworkflow "m" { source = "./m" }\nstep "call" {\n  target = subworkflow.m\n  outcome "success" { next = "done" }\n  outcome "failure" { next = "failed" }\n}\n`,
      // Its output reads a step the return skipped: the module fails once it has returned.
      "m/main.hcl": `workflow {\n  name = "m"\n  version = "1"\n  initial_state = "a"\n}\nadapter "script" "default" {}\nstep "a" {\n  target = adapter.script.default\n  outcome "success" { next = "return" }\n  outcome "failure" { next = step.b }\n}\nstep "b" {\n  target = adapter.script.default\n  outcome "success" { next = "return" }\n}\noutput "bout" { value = steps.b.said }\n`,
    });
    const s = setup();
    expect(await s.runner({ adapterFor: scripted(() => ok({ said: "x" })).adapterFor }).start(g, {}, "r")).toMatchObject({ state: "failed", success: false });
    const [done] = completed(await s.entries("r"), "call");
    expect(done.payload).toMatchObject({ outcome: "failure", reason: "child_failed" });
    // Its result is its declared outputs, none of which evaluated: not its steps' merged outputs.
    expect(done.payload.output).toEqual({});
  });
});

describe("a return in a child of an iterating step", () => {
  const RETURNS = `workflow {\n  name = "m"\n  version = "1"\n  initial_state = "a"\n}\nvariable "name" { type = string }\nadapter "script" "default" {}\nstep "a" {\n  target = adapter.script.default\n  input = { name = var.name }\n  outcome "success" { next = "return" }\n}\noutput "got" { value = var.name }\n`;
  const BODY = `workflow {\n  initial_state = "a"\n  step "a" {\n    target = adapter.script.default\n    input = { name = each.value }\n    outcome "success" { next = "return" }\n  }\n}`;

  it("a module's return is only how it ends: every item runs (found by a trial: a module ending by return ran one item of its caller's for_each)", async () => {
    const g = await project({
      "main.hcl": `${HEAD("each")}adapter "script" "default" {}\nsubworkflow "m" {\n  source = "./m"\n  adapters = [adapter.script.default]\n}\nstep "each" {\n  target = subworkflow.m\n  for_each = ["a", "b", "c"]\n  input { name = each.value }\n  outcome "all_succeeded" { next = "done" }\n  outcome "any_failed" { next = "failed" }\n}\noutput "got" { value = [for o in steps.each : o.got] }\n`,
      "m/main.hcl": RETURNS.replace('initial_state = "a"\n}', 'initial_state = "a"\n  expects { adapters = [adapter.script.default] }\n}').replace('adapter "script" "default" {}\n', ""),
    });
    const a = scripted(() => ok());
    expect(await setup().runner({ adapterFor: a.adapterFor }).start(g, {}, "r")).toMatchObject({ state: "done", outputs: { got: ["a", "b", "c"] } });
    expect(a.seen.map((r) => r.input.name)).toEqual(["a", "b", "c"]);
  });

  it("a body's return still ends its caller's loop (an early exit)", async () => {
    const g = await project({ "main.hcl": `${HEAD("each")}adapter "script" "default" {}\nstep "each" {\n  for_each = ["a", "b", "c"]\n  ${BODY.replace(/\n/g, "\n  ")}\n  outcome "all_succeeded" { next = "done" }\n  outcome "any_failed" { next = "failed" }\n}\n` });
    const a = scripted(() => ok());
    expect(await setup().runner({ adapterFor: a.adapterFor }).start(g, {}, "r")).toMatchObject({ state: "done" });
    expect(a.seen.map((r) => r.input.name)).toEqual(["a"]);
  });
});

describe("a step's timeout bounds its child run", () => {
  it("a body whose step outlasts the calling step's timeout ends the step with reason timeout", async () => {
    const g = await project({
      "main.hcl": `${HEAD("loop")}adapter "script" "default" {}\nstep "loop" {\n  timeout = "200ms"\n  workflow {\n    initial_state = "slow"\n    step "slow" {\n      target = adapter.script.default\n      outcome "success" { next = "return" }\n    }\n  }\n  outcome "success" { next = "done" }\n  outcome "failure" { next = "failed" }\n}\n`,
    });
    const s = setup();
    // Answers only when aborted (or after 20 s, far past the timeout).
    const script = scripted((req) => new Promise((resolve) => {
      const t = setTimeout(() => resolve(ok()), 20_000);
      req.signal.addEventListener("abort", () => (clearTimeout(t), resolve({ outcome: "failure", output: {}, reason: "timeout" })), { once: true });
    }));
    const end = await s.runner({ adapterFor: script.adapterFor }).start(g, {}, "r");
    expect(end).toMatchObject({ success: false, state: "failed" });
    const [step] = completed(await s.entries("r"), "loop");
    expect(step.payload).toMatchObject({ outcome: "failure", reason: "timeout" });
  }, 15_000);
});
