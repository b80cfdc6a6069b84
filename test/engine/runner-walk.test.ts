/**
 * The runner's walk, in process (engine/run/runner.ts: walk, step, route, policy, the
 * run's end): what a resumed run journals again (nothing for a recorded step), branches,
 * waits and approvals that lead nowhere, policies at their exact limits, the outcome a
 * result takes (declared, `default` with its warning, the one implicit outcome, none),
 * `on_crash = "abort_run"`, `each.*` at the edges of a list, and event timings. The CLI
 * tests reach these paths through the built bundle, which mutants of the source never
 * reach (what StrykerJS's pass over runner.ts lines 760–1100 left: 60% killed).
 */
import { describe, expect, it } from "vitest";
import type { StepResult } from "../../engine/adapters/adapter.js";
import { RunParked } from "../../engine/run/runner.js";
import { deliverSignal } from "../../engine/run/signals.js";
import { graphOf } from "./graph-of.js";
import { HEAD, ok, scripted, setup, warnings } from "./runner-fixtures.js";

describe("a resumed run journals nothing again for what it recorded", () => {
  it("one step.completed per visit and no step.started event for a step re-used on resume; its shared writes are read again", async () => {
    const g = await graphOf(`${HEAD("one")}
adapter "script" "default" {}
shared_variable "seen" {
  type = "string"
  value = "none"
}
step "one" {
  target = adapter.script.default
  outcome "success" {
    next = "gate"
    shared_writes = { seen = "one" }
  }
}
wait "gate" {
  signal = "go"
  next = "two"
}
step "two" {
  target = adapter.script.default
  input { saw = shared.seen }
  outcome "success" { next = "done" }
}`);
    const s = setup({ park: true });
    const first = scripted(() => ok());
    await expect(s.runner({ adapterFor: first.adapterFor }).start(g, {}, "r")).rejects.toBeInstanceOf(RunParked);
    await deliverSignal(s.journal, "r", "go", null, "t", Date.now());
    s.events.length = 0;
    const again = scripted(() => ok());
    expect(await s.runner({ adapterFor: again.adapterFor, park: false }).resume("r")).toMatchObject({ state: "done", success: true });
    const completed = (await s.entries("r")).filter((e) => e.entry_type === "step.completed").map((e) => `${e.step_id}#${(e.payload as { visit: number }).visit}`);
    expect(completed).toEqual(["one#1", "two#1"]);
    expect(s.events.filter((e) => e.event === "step.started").map((e) => (e as { step: string }).step)).toEqual(["two"]);
    // The shared write of the recorded step is in force after the resume.
    expect(again.seen.map((r) => [r.step, r.input.saw])).toEqual([["two", "one"]]);
  });
});

describe("branches", () => {
  const BRANCH = (when: string, withDefault: boolean) => `${HEAD("pick")}
branch "pick" {
  arm {
    when = ${when}
    next = "done"
    output = { arm = "first" }
  }
  arm {
    when = var.second
    next = "done"
    output = { arm = "second" }
  }
${withDefault ? `  default {\n    next = "done"\n    output = { arm = "default" }\n  }\n` : ""}}
variable "first" {
  type = "bool"
  default = false
}
variable "second" {
  type = "bool"
  default = false
}
output "took" { value = steps.pick.arm }`;

  it("the arm taken, first or later, or the default, gives its own output", async () => {
    const g = await graphOf(BRANCH("var.first", true));
    expect((await setup().runner().start(g, { first: true }, "a")).outputs).toEqual({ took: "first" });
    expect((await setup().runner().start(g, { second: true }, "b")).outputs).toEqual({ took: "second" });
    expect((await setup().runner().start(g, {}, "c")).outputs).toEqual({ took: "default" });
  });

  it("no arm holding and no default fails the run, saying so", async () => {
    const g = await graphOf(BRANCH("var.first", false));
    expect(await setup().runner().start(g, {}, "r")).toMatchObject({ success: false, reason: "unknown_outcome", detail: 'branch "pick": no arm matched and there is no default' });
  });

  it("a condition that is neither true nor false is an evaluation error naming the arm (\"true\" and \"false\" as text are taken)", async () => {
    const g = await graphOf(BRANCH(`var.mode == "x" ? "yes" : "false"`, true).replace('variable "first"', 'variable "mode" {\n  default = "x"\n}\nvariable "first"'));
    const end = await setup().runner().start(g, {}, "r");
    expect(end).toMatchObject({ success: false, reason: "eval_error" });
    expect(end.detail).toMatch(/branch "pick" arm 1: "when" must be true or false, not "yes"$/);
    expect((await setup().runner().start(g, { mode: "y" }, "s")).outputs).toEqual({ took: "default" });
  });
});

describe("waits and approvals that lead nowhere", () => {
  // The compiler refuses an approval without both outcomes (and a timeout without its
  // outcome); a graph journaled by an older version may lack one: the runner still says why.
  const APPROVAL = `${HEAD("ask")}
approval "ask" {
  approvers = ["alice"]
  timeout = "1s"
  outcome "approved" { next = "done" }
  outcome "rejected" { next = "failed" }
  outcome "timeout" { next = "failed" }
}`;
  const without = async (name: string) => {
    const g = await graphOf(APPROVAL);
    g.approvals[0].outcomes = g.approvals[0].outcomes.filter((o) => o.name !== name);
    return g;
  };

  it("an approval rejected, or approved, with no outcome for it fails the run with the reason", async () => {
    const rejected = setup();
    const run = rejected.runner().start(await without("rejected"), {}, "r");
    await new Promise((r) => setTimeout(r, 30));
    await deliverSignal(rejected.journal, "r", "approval:ask", "rejected", "bob", Date.now());
    expect(await run).toMatchObject({ success: false, reason: "rejected", detail: 'approval "ask" was rejected' });
    const approved = setup({ autoApprove: true });
    expect(await approved.runner().start(await without("approved"), {}, "a")).toMatchObject({ success: false, reason: "rejected", detail: 'approval "ask" was approved, and it has no "approved" outcome' });
  });

  it("an approval's timeout with no timeout outcome fails the run as a timeout", async () => {
    let now = 1_000_000;
    const s = setup({ clock: () => now });
    const run = s.runner().start(await without("timeout"), {}, "r");
    await new Promise((r) => setTimeout(r, 20));
    now += 5_000;
    expect(await run).toMatchObject({ success: false, reason: "timeout", detail: 'approval "ask" got no decision before its timeout, and it has no "timeout" outcome' });
  });

  it("a signal whose payload names one of the wait's outcomes takes it (the Go tool's {\"outcome\": \"<name>\"}; found by a new-user trial: it always ended \"received\")", async () => {
    const g = await graphOf(`${HEAD("gate")}
wait "gate" {
  signal = "deploy_approved"
  outcome "approved" { next = "done" }
  outcome "rejected" { next = "failed" }
}`);
    for (const [payload, state] of [[{ outcome: "rejected" }, "failed"], [{ outcome: "approved" }, "done"]] as const) {
      const s = setup();
      const run = s.runner().start(g, {}, "r");
      await new Promise((r) => setTimeout(r, 20));
      await deliverSignal(s.journal, "r", "deploy_approved", payload, "t", Date.now());
      expect(await run).toMatchObject({ state });
      expect((await s.entries("r")).find((e) => e.entry_type === "wait.completed")?.payload).toMatchObject({ outcome: payload.outcome, signal_payload: payload });
    }
    // A payload naming no outcome of the wait is data: the wait ends "received", which this one does not route.
    const s = setup();
    const run = s.runner().start(g, {}, "u");
    await new Promise((r) => setTimeout(r, 20));
    await deliverSignal(s.journal, "u", "deploy_approved", { outcome: "maybe" }, "t", Date.now());
    expect(await run).toMatchObject({ success: false, reason: "unknown_outcome" });
  });

  it("a wait ending in an outcome it has no route for fails the run, naming the ending", async () => {
    const g = await graphOf(`${HEAD("nap")}
wait "nap" {
  signal = "go"
  timeout = "1s"
  outcome "received" { next = "done" }
  outcome "success" { next = "done" }
}`);
    let now = 1_000_000;
    const s = setup({ clock: () => now });
    const run = s.runner().start(g, {}, "r");
    await new Promise((r) => setTimeout(r, 20));
    now += 5_000;
    expect(await run).toMatchObject({ success: false, reason: "unknown_outcome", detail: 'wait "nap" ended with "timeout" but has no outcome for it (and no next)' });
  });
});

describe("policies at their limits", () => {
  const LOOP = (policy: string, maxVisits = "") => `${HEAD("a", policy)}
adapter "script" "default" {}
step "a" {
  target = adapter.script.default
  ${maxVisits}
  outcome "again" { next = "a" }
  outcome "success" { next = "done" }
}`;
  /** Answers "again" until the `n`th visit, then "success". */
  const visits = (n: number) => scripted((req) => (req.visit < n ? { outcome: "again", output: {}, reason: "ok" } : ok()));

  it("max_total_steps: exactly that many visits run; one more stops the run, journaled as the step's end", async () => {
    const g = await graphOf(LOOP("  policy {\n    max_total_steps = 3\n  }\n"));
    expect(await setup({ adapterFor: visits(3).adapterFor }).runner().start(g, {}, "r")).toMatchObject({ success: true });
    const over = setup({ adapterFor: visits(4).adapterFor });
    expect(await over.runner().start(g, {}, "s")).toMatchObject({ success: false, reason: "policy_exceeded", detail: 'policy max_total_steps = 3 exceeded at step "a"' });
    const last = (await over.entries("s")).filter((e) => e.entry_type === "step.completed").at(-1)!;
    expect(last.payload).toEqual({ visit: 4, outcome: "", next: "", output: {}, reason: "policy_exceeded", detail: 'policy max_total_steps = 3 exceeded at step "a"' });
  });

  it("max_visits: the last allowed visit runs, the next stops the run", async () => {
    const g = await graphOf(LOOP("", "max_visits = 2"));
    expect(await setup({ adapterFor: visits(2).adapterFor }).runner().start(g, {}, "r")).toMatchObject({ success: true });
    expect(await setup({ adapterFor: visits(3).adapterFor }).runner().start(g, {}, "s")).toMatchObject({ reason: "policy_exceeded", detail: 'step "a" visited more than max_visits = 2 times' });
  });

  it("max_visits_warn_threshold: warned once, at the visit that reaches it; 0 warns never", async () => {
    const warned = setup({ adapterFor: visits(5).adapterFor });
    await warned.runner().start(await graphOf(LOOP("  policy {\n    max_visits_warn_threshold = 3\n  }\n")), {}, "r");
    expect(warnings(warned.events)).toEqual(['step "a" has been visited 3 times (max_visits_warn_threshold)']);
    const started = warned.events.findIndex((e) => e.event === "step.started" && (e as { visit: number }).visit === 3);
    expect(warned.events.findIndex((e) => e.event === "warning")).toBeLessThan(started);
    const never = setup({ adapterFor: visits(5).adapterFor });
    await never.runner().start(await graphOf(LOOP("  policy {\n    max_visits_warn_threshold = 0\n  }\n")), {}, "s");
    expect(warnings(never.events)).toEqual([]);
  });
});

describe("the outcome a step's result takes", () => {
  const STEP = (outcomes: string) => `${HEAD("a")}
adapter "script" "default" {}
step "a" {
  target = adapter.script.default
${outcomes}
}`;
  const answer = (r: StepResult) => scripted(() => r).adapterFor;

  it("an undeclared outcome takes outcome \"default\", with a warning", async () => {
    const s = setup({ adapterFor: answer({ outcome: "maybe", output: {}, reason: "ok" }) });
    const g = await graphOf(STEP('  outcome "yes" { next = "failed" }\n  outcome "default" { next = "done" }'));
    expect(await s.runner().start(g, {}, "r")).toMatchObject({ state: "done", success: true });
    expect(warnings(s.events)).toEqual(['step "a" ended in outcome "maybe", which it does not declare: outcome "default" taken']);
  });

  it("success with one declared outcome of another name takes it; with two, it is an unknown outcome listing them", async () => {
    const one = setup({ adapterFor: answer(ok()) });
    expect(await one.runner().start(await graphOf(STEP('  outcome "approved" { next = "done" }')), {}, "r")).toMatchObject({ state: "done" });
    const two = setup({ adapterFor: answer(ok()) });
    expect(await two.runner().start(await graphOf(STEP('  outcome "approved" { next = "done" }\n  outcome "changes" { next = "failed" }')), {}, "s")).toMatchObject({
      success: false,
      reason: "unknown_outcome",
      detail: 'step "a" ended in outcome "success", which it does not declare (declared: approved, changes)',
    });
  });

  it("a failure with no route says which outcome is missing and which are declared; \"default\" does not take an evaluation error", async () => {
    const failed = setup({ adapterFor: answer({ outcome: "failure", output: {}, reason: "adapter_failed", detail: "exit 3" }) });
    expect(await failed.runner().start(await graphOf(STEP('  outcome "success" { next = "done" }')), {}, "r")).toMatchObject({
      success: false,
      reason: "adapter_failed",
      detail: 'exit 3; step "a" has no "failure" outcome to route it (declared: success)',
    });
    // Two declared, listed; a failure with no detail and no outcome named is said as the step's failure, routed as "failure".
    const bare = setup({ adapterFor: answer({ outcome: "", output: {}, reason: "adapter_error" }) });
    expect(await bare.runner().start(await graphOf(STEP('  outcome "success" { next = "done" }\n  outcome "retry" { next = "a" }')), {}, "b")).toMatchObject({
      success: false,
      reason: "adapter_error",
      detail: 'step "a" failed (adapter_error); step "a" has no "failure" outcome to route it (declared: success, retry)',
    });
    const broken = setup({ adapterFor: answer(ok()) });
    const g = await graphOf(STEP('  input { n = var.m / 0 }\n  outcome "success" { next = "done" }\n  outcome "default" { next = "done" }').replace('adapter "script"', 'variable "m" {\n  default = "x"\n}\nadapter "script"'));
    expect(await broken.runner().start(g, {}, "s")).toMatchObject({ success: false, reason: "eval_error" });
    expect(warnings(broken.events)).toEqual([]);
  });

  it("on_crash = \"abort_run\": a crashed step ends the run whatever its outcomes say, once or in an iteration", async () => {
    const crash = { outcome: "failure", output: {}, reason: "crashed" as const, detail: "the process died" };
    const g = await graphOf(`${HEAD("a")}
adapter "script" "default" {
  on_crash = "abort_run"
}
step "a" {
  target = adapter.script.default
  outcome "success" { next = "done" }
  outcome "failure" { next = "done" }
}`);
    expect(await setup({ adapterFor: answer(crash) }).runner().start(g, {}, "r")).toMatchObject({ success: false, reason: "crashed", detail: 'the process died (on_crash = "abort_run")' });
    const each = await graphOf(`${HEAD("a")}
adapter "script" "default" {
  on_crash = "abort_run"
}
step "a" {
  target = adapter.script.default
  for_each = ["x", "y"]
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "done" }
}`);
    const items = scripted((req) => (req.each?.index === 0 ? crash : ok()));
    const end = await setup({ adapterFor: items.adapterFor }).runner().start(each, {}, "s");
    expect(end).toMatchObject({ success: false, reason: "crashed" });
    expect(end.detail).toContain("the process died");
  });
});

describe("return from an item", () => {
  it("a for_each item's outcome leading to return with an output projection makes the projection the run's outputs, live and after a resume (found by a new-user trial: it was lost)", async () => {
    const g = await graphOf(`${HEAD("scan")}
adapter "script" "default" {}
output "total" { value = 10 }
step "scan" {
  target = adapter.script.default
  for_each = ["a", "b", "c"]
  input { v = each.value }
  outcome "success" { next = "_continue" }
  outcome "failure" {
    next = "return"
    output = { stopped_at = each.value }
  }
  outcome "all_succeeded" { next = "done" }
}`);
    const s = scripted((req) => (req.input.v === "b" ? { outcome: "failure", output: {}, reason: "adapter_failed" } : ok()));
    const w = setup({ adapterFor: s.adapterFor });
    expect(await w.runner().start(g, {}, "r")).toMatchObject({ state: "return", success: true, outputs: { stopped_at: "b" } });
    expect(s.seen.map((r) => r.input.v)).toEqual(["a", "b"]);
    const completed = (await w.entries("r")).find((e) => e.entry_type === "step.completed");
    expect(completed?.payload).toMatchObject({ outcome: "failure", next: "return", projection: { stopped_at: "b" } });
    // The journal holds it: a resume of the ended run gives the same outputs.
    expect(await w.runner().resume("r")).toMatchObject({ outputs: { stopped_at: "b" } });
  });
});

describe("parallel's on_failure", () => {
  it("defaults to abort, as the Go tool's (LANGUAGE-SPEC.md: \"abort\", default for parallel steps): items after the first failure do not start; the sequential kinds continue (found by a new-user trial)", async () => {
    const step = (kind: string) => `${HEAD("fan")}
adapter "script" "default" {}
step "fan" {
  target = adapter.script.default
  ${kind} = ["a", "bad", "c", "d"]
  ${kind === "parallel" ? "parallel_max = 1" : ""}
  input { v = each.value }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "failed" }
}`;
    const fail = () => scripted((req) => (req.input.v === "bad" ? { outcome: "failure", output: {}, reason: "adapter_failed" } : ok()));
    const par = fail();
    expect(await setup({ adapterFor: par.adapterFor }).runner().start(await graphOf(step("parallel")), {}, "p")).toMatchObject({ state: "failed" });
    expect(par.seen.map((r) => r.input.v)).toEqual(["a", "bad"]);
    expect((await graphOf(step("parallel"))).steps[0].on_failure).toBe("abort");
    const seq = fail();
    expect(await setup({ adapterFor: seq.adapterFor }).runner().start(await graphOf(step("for_each")), {}, "s")).toMatchObject({ state: "failed" });
    expect(seq.seen.map((r) => r.input.v)).toEqual(["a", "bad", "c", "d"]);
  });
});

describe("each.* at the edges of a list, and event timings", () => {
  it("_first, _last and _total of a for_each's items; a while's items know only their index and _first", async () => {
    const g = await graphOf(`${HEAD("a")}
adapter "script" "default" {}
step "a" {
  target = adapter.script.default
  for_each = ["x", "y", "z"]
  input {
    first = each._first
    last = each._last
    total = each._total
  }
  outcome "all_succeeded" { next = "b" }
}
step "b" {
  target = adapter.script.default
  while = each._idx < 2
  input {
    first = each._first
    last  = each._last
  }
  outcome "all_succeeded" { next = "done" }
}`);
    const s = scripted(() => ok());
    const w = setup({ adapterFor: s.adapterFor });
    expect(await w.runner().start(g, {}, "r")).toMatchObject({ success: true });
    // A while's end is not known ahead: never its _last, and its events' total is -1.
    expect(s.seen.filter((r) => r.step === "b").map((r) => r.input.last)).toEqual([false, false]);
    expect(w.events.filter((e) => e.event === "iteration.completed").map((e) => (e as { total: number }).total)).toEqual([3, 3, 3, -1, -1]);
    expect(s.seen.filter((r) => r.step === "a").map((r) => r.input)).toEqual([
      { first: true, last: false, total: 3 },
      { first: false, last: false, total: 3 },
      { first: false, last: true, total: 3 },
    ]);
    expect(s.seen.filter((r) => r.step === "b").map((r) => r.input.first)).toEqual([true, false]);
  });

  it("step.completed carries the step's time by the runner's clock", async () => {
    let now = 5_000;
    const s = scripted(() => ((now += 250), ok()));
    const w = setup({ adapterFor: s.adapterFor, clock: () => now });
    await w.runner().start(await graphOf(`${HEAD("a")}\nadapter "script" "default" {}\nstep "a" {\n  target = adapter.script.default\n  outcome "success" { next = "done" }\n}`), {}, "r");
    expect(w.events.find((e) => e.event === "step.completed")).toMatchObject({ step: "a", ms: 250 });
  });
});

describe("the run's outputs", () => {
  it("an output that does not convert to its type fails the run and is left out of its outputs; the others stay (found by a new-user trial: the raw value was printed as an output)", async () => {
    const g = await graphOf(`${HEAD("push")}
adapter "script" "default" {}
step "push" {
  target = adapter.script.default
  outcome "success" { next = "done" }
}
output "n" {
  type  = number
  value = steps.push.said
}
output "said" {
  value = steps.push.said
}`);
    const s = setup();
    const end = await s.runner({ adapterFor: scripted(() => ok({ said: "token is ***\n" })).adapterFor }).start(g, {}, "r");
    expect(end.success).toBe(false);
    expect(end.reason).toBe("eval_error");
    expect(end.detail).toContain('output "n"');
    expect(end.outputs).toEqual({ said: "token is ***\n" });
    const done = (await s.entries("r")).find((e) => e.entry_type === "run.completed");
    expect(done?.payload).toMatchObject({ success: false, outputs: { said: "token is ***\n" } });
  });

  it("a key computed from an expression ({ (var.v) = 1 }) is evaluated, in a local, a step's input and an output (found by a trial: it stayed the text \"${(var.v)}\")", async () => {
    const g = await graphOf(`${HEAD("s")}
variable "v" {
  type    = string
  default = "x"
}
locals {
  m = { (var.v) = 1 }
}
adapter "script" "default" {}
step "s" {
  target = adapter.script.default
  input  = { (var.v) = 2, m = local.m }
  outcome "success" { next = "done" }
}
output "o" { value = { (var.v) = 3 } }`);
    const a = scripted(() => ok());
    const end = await setup().runner({ adapterFor: a.adapterFor }).start(g, {}, "r");
    expect(a.seen[0].input).toEqual({ x: 2, m: { x: 1 } });
    expect(end.outputs).toEqual({ o: { x: 3 } });
  });
});

describe("a channel step's input", () => {
  /** Agents a and b (each spawned by a step, as channels require), then a post on channel c whose input is `var.x`. */
  const POST = `${HEAD("a_work")}variable "x" { type = any }
agent "a" { adapter = "noop" }
agent "b" { adapter = "noop" }
channel "c" {
  participants = [agent.a, agent.b]
}
step "a_work" {
  target = agent.a
  outcome "success" { next = "b_work" }
}
step "b_work" {
  target = agent.b
  outcome "success" { next = "say" }
}
step "say" {
  target = channel.c
  input  = var.x
  outcome "success" { next = "done" }
  outcome "failure" { next = "failed" }
}
`;

  it("known only at run time, one that is null, a string or a list fails the step where it is written; an object posts", async () => {
    const g = await graphOf(POST);
    for (const x of [null, "text", [1]]) {
      const s = setup();
      const end = await s.runner().start(g, { x: x as never }, "r");
      expect(end, JSON.stringify(x)).toMatchObject({ success: false, reason: "eval_error" });
      expect(end.detail).toMatch(/^[^ ]+:\d+:\d+: step "say": input must be an object$/);
    }
    const s = setup();
    expect(await s.runner().start(g, { x: { post: { from: "a", to: "b", body: "hi" } } }, "r")).toMatchObject({ state: "done", success: true });
  });
});
