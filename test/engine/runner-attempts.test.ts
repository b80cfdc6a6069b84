/**
 * A step's attempts, in process (engine/run/runner.ts: `leaf` and the iteration loops):
 * an attempt the journal shows started and never ended (crashed) or interrupted runs
 * again as the next attempt, saying so; a confirmed result is re-used, a retryable one
 * with budget left is not; retries and `on_crash` (the step's, its adapter's or agent's);
 * the request an adapter gets (an agent's config and model, input that is not an object,
 * environment values and secrets, a timeout past what a timer holds); session steps
 * (`lifecycle`) and the sessions they open and end; a `while` loop's `max_visits` and
 * `max_total_steps`. What
 * StrykerJS's pass over runner.ts lines 1,100–1,450 left (54% killed): the CLI tests
 * reach these paths through the built bundle, which mutants of the source never reach.
 */
import { describe, expect, it } from "vitest";
import type { Value } from "../../compiler/expr/value.js";
import type { Adapter, StepRequest, StepResult } from "../../engine/adapters/adapter.js";
import { adapterFor as builtIn } from "../../engine/adapters/registry.js";
import type { JournalEntry } from "../../engine/journal/entry.js";
import { idempotencyKey } from "../../engine/run/identity.js";
import { Runner } from "../../engine/run/runner.js";
import { MAX_TIMER_MS } from "../../engine/run/sleep.js";
import { graphOf } from "./graph-of.js";
import { HEAD as BASE, cutAt, journalOf, ok, recorded, scripted, setup, warnings } from "./runner-fixtures.js";

const HEAD = (initial: string, policy = "") => `${BASE(initial, policy)}adapter "script" "default" {}\n`;

const kinds = (es: JournalEntry[], step: string) => es.filter((e) => e.step_id === step && (e.entry_type.startsWith("step.attempt") || e.entry_type.startsWith("effect."))).map((e) => `${e.entry_type}#${e.attempt}`);

const TWO = `${HEAD("one")}
step "one" {
  target = adapter.script.default
  outcome "success" { next = "two" }
}
step "two" {
  target = adapter.script.default
  outcome "success" { next = "done" }
}
output "n" { value = steps.one.n }`;

describe("an attempt that did not end", () => {
  it("started and never ended (the process died): journaled crashed, run again as attempt 2, said once", async () => {
    const g = await graphOf(TWO);
    const s = await cutAt(g, (e) => e.entry_type === "effect.recorded" && e.step_id === "one");
    const again = scripted(() => ok({ n: 2 }));
    expect(await s.runner({ adapterFor: again.adapterFor }).resume("r")).toMatchObject({ state: "done", outputs: { n: 2 } });
    expect(kinds(await s.entries("r"), "one")).toEqual(["step.attempt.started#1", "effect.recorded#1", "step.attempt.crashed#1", "step.attempt.started#2", "effect.recorded#2", "effect.confirmed#2"]);
    expect(again.seen.map((r) => [r.step, r.attempt])).toEqual([["one", 2], ["two", 1]]);
    // The first visit's key is the step's own (a later visit's is "<step>@<visit>"); the crash is journaled under it.
    expect(again.seen[0].idempotency_key).toBe(idempotencyKey("r", "one", undefined));
    expect((await s.entries("r")).find((e) => e.entry_type === "step.attempt.crashed")?.payload).toEqual({ idempotency_key: idempotencyKey("r", "one", undefined), visit: 1 });
    expect(warnings(s.events)).toEqual(['step "one" attempt 1 ended without a result (the criteria process running it stopped, or lost the run, first); it may have done its work all the same: running it again with the same $CRITERIA_IDEMPOTENCY_KEY, by which it can tell']);
    // Resumed again (nothing left): the crash is not journaled twice.
    expect(await s.runner({ adapterFor: scripted(() => ok()).adapterFor }).resume("r")).toMatchObject({ state: "done" });
    expect(kinds(await s.entries("r"), "one").filter((k) => k.startsWith("step.attempt.crashed"))).toHaveLength(1);
  });

  it("an item's attempt that did not end is named as apply's lines name the item: [2/3], a map's by its key (found by a new-user trial: \"fan\"[1] beside the line's [2/3])", async () => {
    for (const [items, label] of [
      ['["a", "b", "c"]', "[2/3]"],
      ['{ x = 1, y = 2 }', '["y"]'],
    ] as const) {
      const g = await graphOf(`${HEAD("fan")}
step "fan" {
  target = adapter.script.default
  for_each = ${items}
  outcome "success" { next = "_continue" }
  outcome "all_succeeded" { next = "done" }
}`);
      const s = await cutAt(g, (e) => e.entry_type === "effect.recorded" && e.step_id === "fan" && (e.payload as { iteration?: number }).iteration === 1);
      expect(await s.runner({ adapterFor: scripted(() => ok()).adapterFor }).resume("r")).toMatchObject({ state: "done" });
      expect(warnings(s.events)).toEqual([`step "fan" ${label} attempt 1 ended without a result (the criteria process running it stopped, or lost the run, first); it may have done its work all the same: running it again with the same $CRITERIA_IDEMPOTENCY_KEY, by which it can tell`]);
    }
  });

  it("interrupted on purpose (stopped while it ran): journaled interrupted, not crashed; run again as attempt 2, said", async () => {
    const g = await graphOf(TWO);
    const s = setup();
    const stop = new AbortController();
    const first = scripted((req) => new Promise<StepResult>((resolve) => req.signal!.addEventListener("abort", () => resolve(ok()), { once: true })));
    const running = s.runner({ adapterFor: first.adapterFor, signal: stop.signal }).start(g, {}, "r");
    while (first.seen.length === 0) await new Promise((r) => setTimeout(r, 5));
    stop.abort();
    await expect(running).rejects.toThrow();
    expect(kinds(await s.entries("r"), "one")).toEqual(["step.attempt.started#1", "effect.recorded#1", "step.attempt.interrupted#1"]);
    expect((await s.entries("r")).find((e) => e.entry_type === "step.attempt.interrupted")?.payload).toMatchObject({ cause: "signal" });
    s.events.length = 0;
    const again = scripted(() => ok({ n: 3 }));
    expect(await s.runner({ adapterFor: again.adapterFor }).resume("r")).toMatchObject({ state: "done", outputs: { n: 3 } });
    expect(again.seen.map((r) => [r.step, r.attempt])).toEqual([["one", 2], ["two", 1]]);
    expect(warnings(s.events)).toEqual(['step "one" attempt 1 was interrupted; running it again']);
    expect(kinds(await s.entries("r"), "one")).not.toContain("step.attempt.crashed#1");
  });

  it("confirmed but the step not completed: the result is re-used, the adapter not called again", async () => {
    const g = await graphOf(TWO);
    const s = await cutAt(g, (e) => e.entry_type === "effect.confirmed" && e.step_id === "one");
    const again = scripted(() => ok({ n: 9 }));
    expect(await s.runner({ adapterFor: again.adapterFor }).resume("r")).toMatchObject({ state: "done", outputs: { n: 1 } });
    expect(again.seen.map((r) => r.step)).toEqual(["two"]);
    expect(warnings(s.events)).toEqual([]);
  });

  it("a retryable failure confirmed with retry budget left runs again; with none left it is re-used", async () => {
    const g = await graphOf(TWO.replace('target_state = "done"\n', 'target_state = "done"\n  policy {\n    max_step_retries = 1\n  }\n'));
    // The first run: attempt 1 of "one" failed retryably, and the process died before the retry.
    const whole = setup();
    let calls = 0;
    await whole.runner({ adapterFor: scripted(() => (++calls === 1 ? { outcome: "failure", output: {}, reason: "adapter_error", detail: "flaky" } : ok({ n: 5 }))).adapterFor }).start(g, {}, "r");
    const all = await whole.entries("r");
    const kept = all.slice(0, all.findIndex((e) => e.entry_type === "effect.confirmed") + 1);
    expect(kept.at(-1)?.payload).toMatchObject({ reason: "adapter_error" });
    const s = await journalOf(kept);
    const again = scripted(() => ok({ n: 6 }));
    expect(await s.runner({ adapterFor: again.adapterFor }).resume("r")).toMatchObject({ state: "done", outputs: { n: 6 } });
    expect(again.seen.map((r) => [r.step, r.attempt])).toEqual([["one", 2], ["two", 1]]);
    // No budget: max_step_retries = 0 re-uses the failure.
    const none = await graphOf(TWO.replace('outcome "success" { next = "two" }', 'outcome "success" { next = "two" }\n  outcome "failure" { next = "failed" }'));
    const t = await journalOf(kept.map((e) => (e.entry_type === "run.spawned" ? ({ ...e, payload: { ...(e.payload as object), graph: none } } as JournalEntry) : e)));
    const unused = scripted(() => ok());
    expect(await t.runner({ adapterFor: unused.adapterFor }).resume("r")).toMatchObject({ state: "failed", success: false });
    expect(unused.seen).toEqual([]);
  });
});

describe("retries and on_crash", () => {
  it("a retryable failure is retried up to max_step_retries, each attempt confirmed and said; then its failure stands", async () => {
    const g = await graphOf(`${HEAD("one", "  policy {\n    max_step_retries = 2\n  }\n")}
step "one" {
  target = adapter.script.default
  outcome "success" { next = "done" }
  outcome "failure" { next = "failed" }
}`);
    const s = setup();
    const a = scripted(() => ({ outcome: "failure", output: {}, reason: "timeout", detail: "too slow" }));
    expect(await s.runner({ adapterFor: a.adapterFor }).start(g, {}, "r")).toMatchObject({ state: "failed" });
    expect(a.seen.map((r) => r.attempt)).toEqual([1, 2, 3]);
    expect(kinds(await s.entries("r"), "one").filter((k) => k.startsWith("effect.confirmed"))).toEqual(["effect.confirmed#1", "effect.confirmed#2", "effect.confirmed#3"]);
    expect(warnings(s.events)).toEqual(['step "one" attempt 1 failed (timeout); retrying', 'step "one" attempt 2 failed (timeout); retrying']);
  });

  it("a crash with on_crash = \"respawn\" opens a fresh session for the retry; \"fail\" keeps it; \"abort_run\" does not retry", async () => {
    const run = async (onCrash: string) => {
      const g = await graphOf(`${HEAD("one", "  policy {\n    max_step_retries = 1\n  }\n")}
step "one" {
  target = adapter.script.default
  on_crash = "${onCrash}"
  outcome "success" { next = "done" }
  outcome "failure" { next = "failed" }
}`);
      let n = 0;
      const a = scripted(() => (++n === 1 ? { outcome: "failure", output: {}, reason: "crashed", detail: "gone" } : ok()));
      const end = await setup().runner({ adapterFor: a.adapterFor }).start(g, {}, "r");
      return { end: end.state, opened: a.opened(), calls: a.seen.length };
    };
    expect(await run("respawn")).toEqual({ end: "done", opened: 2, calls: 2 });
    expect(await run("fail")).toEqual({ end: "done", opened: 1, calls: 2 });
    expect(await run("abort_run")).toMatchObject({ opened: 1, calls: 1 });
  });

  it("on_crash declared on the adapter or the agent applies to its steps; a step's own wins", async () => {
    const run = async (decl: string, step: string, target = "adapter.script.default") => {
      const g = await graphOf(`${BASE("one", "  policy {\n    max_step_retries = 1\n  }\n")}adapter "script" "default" {\n${decl}}\nagent "bot" {\n  adapter = "script"\n${decl}}
step "one" {
  target = ${target}
${step}  outcome "success" { next = "done" }
  outcome "failure" { next = "failed" }
}`);
      let n = 0;
      const a = scripted(() => (++n === 1 ? { outcome: "failure", output: {}, reason: "crashed", detail: "gone" } : ok()));
      const end = await setup().runner({ adapterFor: a.adapterFor }).start(g, {}, "r");
      return { end: end.state, opened: a.opened(), calls: a.seen.length };
    };
    expect(await run(`  on_crash = "respawn"\n`, "")).toEqual({ end: "done", opened: 2, calls: 2 });
    expect(await run(`  on_crash = "abort_run"\n`, "")).toMatchObject({ opened: 1, calls: 1 });
    expect(await run(`  on_crash = "respawn"\n`, "", "agent.bot")).toEqual({ end: "done", opened: 2, calls: 2 });
    expect(await run(`  on_crash = "abort_run"\n`, "", "agent.bot")).toMatchObject({ opened: 1, calls: 1 });
    expect(await run("", "")).toEqual({ end: "done", opened: 1, calls: 2 });
    expect(await run(`  on_crash = "abort_run"\n`, `  on_crash = "respawn"\n`)).toEqual({ end: "done", opened: 2, calls: 2 });
  });
});

describe("the request an adapter gets", () => {
  it("secrets that are not strings reach the step's environment as JSON, a string as itself, and are masked in what the step returns", async () => {
    const g = await graphOf(`${HEAD("one")}
variable "token" {
  type = string
  secret = true
}
variable "pin" {
  type = number
  secret = true
}
variable "keys" {
  type = list(string)
  secret = true
}
step "one" {
  target = adapter.script.default
  secret_input {
    TOKEN = var.token
    PIN   = var.pin
    KEYS  = var.keys
  }
  outcome "success" { next = "done" }
}
output "echo" { value = steps.one.said }`);
    const a = scripted((req) => ok({ said: `token ${req.env.TOKEN}` }));
    const end = await setup().runner({ adapterFor: a.adapterFor }).start(g, { token: "tok-123456", pin: 4242, keys: ["key-one", "key-two"] }, "r");
    expect(end).toMatchObject({ state: "done" });
    expect(a.seen[0].env).toMatchObject({ TOKEN: "tok-123456", PIN: "4242", KEYS: '["key-one","key-two"]' });
    expect(end.outputs.echo).not.toContain("tok-123456");
    expect(end.outputs.echo).toMatch(/^token \S+$/);
  });

  it("an agent's session opens with its config, model and all, evaluated where it is declared; each request names the agent, its model and config", async () => {
    const g = await graphOf(`${BASE("one")}variable "temp" { default = 0.5 }
agent "bot" {
  adapter = "script"
  model   = "big-model-1"
  config {
    temperature = var.temp
  }
}
agent "plain" {
  adapter = "script"
}
step "one" {
  target = agent.bot
  input { prompt = "go" }
  outcome "success" { next = "two" }
}
step "two" {
  target = agent.plain
  input { prompt = "go" }
  outcome "success" { next = "done" }
}`);
    const opened: Record<string, Value>[] = [];
    const requests: StepRequest[] = [];
    const adapter: Adapter = {
      type: "script",
      effectful: true,
      async open(config) {
        opened.push(config);
        return { execute: async (req) => (requests.push(req), ok()), close: async () => undefined };
      },
    };
    const end = await setup().runner({ adapterFor: (t) => (t === "script" ? adapter : builtIn(t)) }).start(g, { temp: 0.7 }, "r");
    expect(end).toMatchObject({ state: "done" });
    expect(opened).toEqual([{ temperature: 0.7, model: "big-model-1" }, {}]);
    expect(requests.map((r) => r.agent)).toEqual([
      { name: "bot", model: "big-model-1", config: { temperature: 0.7 } },
      { name: "plain", config: {} },
    ]);
    // No model key at all for an agent without one.
    expect(Object.keys(requests[1].agent ?? {})).toEqual(["name", "config"]);
  });

  it("input that is not an object is an evaluation error naming the step", async () => {
    const g = await graphOf(`${HEAD("one")}
variable "items" {
  type = "list(number)"
  default = [1, 2]
}
step "one" {
  target = adapter.script.default
  input = var.items
  outcome "success" { next = "done" }
  outcome "failure" { next = "failed" }
}`);
    const end = await setup().runner({ adapterFor: scripted(() => ok()).adapterFor }).start(g, {}, "r");
    expect(end).toMatchObject({ success: false, reason: "eval_error" });
    expect(end.detail).toMatch(/step "one": input must be an object, not \[1,2\]$/);
  });

  it("input known only at run time that is null or a string fails where it is written, the value cut at 60 characters", async () => {
    for (const [value, said] of [
      [null, "null"],
      ["x".repeat(100), `"${"x".repeat(59)}`],
    ] as const) {
      const g = await graphOf(`${HEAD("one")}
variable "in" { type = any }
step "one" {
  target = adapter.script.default
  input = var.in
  outcome "success" { next = "done" }
  outcome "failure" { next = "failed" }
}`);
      const end = await setup().runner({ adapterFor: scripted(() => ok()).adapterFor }).start(g, { in: value }, "r");
      expect(end, said).toMatchObject({ success: false, reason: "eval_error" });
      expect(end.detail).toMatch(/^\S*w\.hcl:\d+:\d+: step "one": input must be an object, not /);
      expect(end.detail!.endsWith(`not ${said}`), end.detail).toBe(true);
    }
  });

  it("an effectful attempt's start and record are journaled before it runs, unflushed; a secret input too short to mask is warned of by name", async () => {
    const g = await graphOf(`${HEAD("one")}
step "one" {
  target = adapter.script.default
  secret_input { PIN = "12" }
  outcome "success" { next = "done" }
}`);
    const r = recorded();
    const end = await new Runner({ journal: r.journal, adapterFor: scripted(() => ok()).adapterFor, baseDir: r.dir, pollMs: 5, events: () => undefined }).start(g, {}, "r");
    expect(end).toMatchObject({ state: "done" });
    const before = r.appends.find((a) => a.types.includes("effect.recorded"));
    expect(before?.types).toEqual(["step.attempt.started", "effect.recorded"]);
    expect(before?.opts.sync).toBe(false);
    const s = setup();
    await s.runner({ adapterFor: scripted(() => ok()).adapterFor }).start(g, {}, "r");
    expect(warnings(s.events)).toEqual(['secret "PIN" of step "one" has a value shorter than 3 characters: criteria cannot mask it in what it records and shows']);
  });

  it("environment values reach the process as text (non-strings as JSON); a timeout past a timer's reach is held to it; effectless steps journal their attempt with the completion", async () => {
    const g = await graphOf(`${HEAD("one")}
variable "flags" {
  type    = list(string)
  default = ["a"]
}
environment "shell" "ci" {
  # A list written out is refused (its value is text); one a variable gives reaches it as JSON.
  variables = { MODE = "fast", COUNT = 3, FLAGS = var.flags }
}
step "one" {
  target = adapter.script.default
  timeout = "30d"
  environment = shell.ci
  outcome "success" { next = "done" }
}`);
    const s = setup();
    const a = scripted(() => ok(), false);
    expect(await s.runner({ adapterFor: a.adapterFor }).start(g, {}, "r")).toMatchObject({ state: "done" });
    expect(a.seen[0].env).toMatchObject({ MODE: "fast", COUNT: "3", FLAGS: '["a"]' });
    expect(a.seen[0].timeout_ms).toBe(MAX_TIMER_MS);
    // Not effectful: no effect.recorded, the attempt's start in the completion's commit.
    const es = await s.entries("r");
    expect(kinds(es, "one")).toEqual(["step.attempt.started#1"]);
    const started = es.find((e) => e.entry_type === "step.attempt.started")!;
    const completed = es.find((e) => e.entry_type === "step.completed")!;
    expect(completed.seq - started.seq).toBeLessThanOrEqual(2);
  });
});

describe("session steps (lifecycle)", () => {
  const SESSIONS = `${HEAD("open")}
agent "bot" { adapter = "script" }
step "open" {
  agent = "bot"
  lifecycle = "open"
  outcome "success" { next = "work" }
}
step "work" {
  agent = "bot"
  input { prompt = "go" }
  outcome "success" { next = "close" }
}
step "close" {
  agent = "bot"
  lifecycle = "close"
  outcome "success" { next = "again" }
}
step "again" {
  agent = "bot"
  input { prompt = "again" }
  outcome "success" { next = "done" }
}
output "opened" { value = steps.open.session }
output "closed" { value = steps.close.session }`;

  it("open and close execute nothing: each journals attempt 1, started and confirmed, and completes with its session's word as output", async () => {
    const s = setup();
    const a = scripted(() => ok());
    const end = await s.runner({ adapterFor: a.adapterFor }).start(await graphOf(SESSIONS), {}, "r");
    expect(end).toMatchObject({ state: "done", success: true, outputs: { opened: "opened", closed: "closed" } });
    expect(a.seen.map((r) => r.step)).toEqual(["work", "again"]);
    const es = await s.entries("r");
    for (const [step, word] of [
      ["open", "opened"],
      ["close", "closed"],
    ]) {
      const mine = es.filter((e) => e.step_id === step);
      expect(mine.map((e) => `${e.entry_type}#${e.attempt}`)).toEqual(["step.attempt.started#1", "effect.confirmed#1", "step.completed#0"]);
      expect(mine[0].payload).toMatchObject({ adapter: "script", visit: 1 });
      expect(mine[1].payload).toMatchObject({ outcome: "success", reason: "ok", output: { session: word } });
      expect(mine[2].payload).toMatchObject({ outcome: "success", next: step === "open" ? "work" : "again", output: { session: word }, reason: "ok" });
    }
  });

  it("open opens the session the next step uses, close ends it: a step after it opens a new one", async () => {
    const a = scripted(() => ok());
    await setup().runner({ adapterFor: a.adapterFor }).start(await graphOf(SESSIONS), {}, "r");
    // One session for open and work, a second for the step after close.
    expect(a.opened()).toBe(2);
    // The open step opens it: before it completes, not when the next step needs it.
    const order: string[] = [];
    const b = scripted(() => ok());
    const s = setup({ events: (e) => void (e.event === "step.completed" && order.push(`${e.step} completed`)) });
    const adapterFor = (t: string) => {
      const inner = b.adapterFor(t);
      return t === "script" ? { ...inner, open: async (...a: Parameters<typeof inner.open>) => (order.push("opened"), inner.open(...a)) } : inner;
    };
    await s.runner({ adapterFor }).start(await graphOf(SESSIONS), {}, "r");
    expect(order.slice(0, 2)).toEqual(["opened", "open completed"]);
  });
});

describe("while loops at their limits", () => {
  const WHILE = (maxVisits: string, policy = "") => `${HEAD("loop", policy)}
step "loop" {
  target = adapter.script.default
  while = true
  ${maxVisits}
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "failed" }
}`;

  it("max_visits = N runs N iterations, then fails with policy_exceeded saying so", async () => {
    const a = scripted(() => ok());
    const end = await setup().runner({ adapterFor: a.adapterFor }).start(await graphOf(WHILE("max_visits = 3")), {}, "r");
    expect(a.seen).toHaveLength(3);
    expect(end).toMatchObject({ success: false, reason: "policy_exceeded" });
    expect(end.detail).toContain('step "loop": its while condition still holds after max_visits = 3 iterations');
  });

  it("max_total_steps bounds a while loop's iterations too", async () => {
    const a = scripted(() => ok());
    const end = await setup().runner({ adapterFor: a.adapterFor }).start(await graphOf(WHILE("", "  policy {\n    max_total_steps = 4\n  }\n")), {}, "r");
    expect(end).toMatchObject({ success: false, reason: "policy_exceeded" });
    expect(end.detail).toContain('policy max_total_steps = 4 exceeded in the while loop of step "loop"');
    expect(a.seen.length).toBeLessThan(4);
  });
});
