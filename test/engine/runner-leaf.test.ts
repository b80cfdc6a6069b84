/**
 * One execution of a step and the limits around it, in process (engine/run/runner.ts:
 * `once`, `compileTimeInt`, `maxVisits`, the `while` loop's step budget): what a session
 * step (`lifecycle`) gives its step and its session, `parallel_max` and `max_visits`
 * written as expressions of variables (checked when the run starts, as their values are
 * known only then), secret values that are not strings reaching the step's environment,
 * and `max_total_steps` counted through a `while` loop's iterations. What StrykerJS's pass
 * over runner.ts lines 1,100–1,450 left alive: the CLI tests reach these paths through
 * the built bundle, which mutants of the source never reach.
 */
import { describe, expect, it } from "vitest";
import { graphOf } from "./graph-of.js";
import { HEAD as BASE, ok, scripted, setup } from "./runner-fixtures.js";

const HEAD = (initial: string, policy = "") => `${BASE(initial, policy)}adapter "script" "default" {}\n`;

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

  it("open opens the session the next step uses, close ends it: a step after it opens a new one", async () => {
    const s = setup();
    const a = scripted(() => ok());
    const end = await s.runner({ adapterFor: a.adapterFor }).start(await graphOf(SESSIONS), {}, "r");
    expect(end).toMatchObject({ state: "done", success: true, outputs: { opened: "opened", closed: "closed" } });
    // One session for open and work, a second for the step after close.
    expect(a.opened()).toBe(2);
    expect(a.seen.map((r) => r.step)).toEqual(["work", "again"]);
  });

  it("each journals attempt 1, started and confirmed, and completes with its session's word as output", async () => {
    const s = setup();
    await s.runner({ adapterFor: scripted(() => ok()).adapterFor }).start(await graphOf(SESSIONS), {}, "r");
    const es = await s.entries("r");
    for (const [step, word] of [
      ["open", "opened"],
      ["close", "closed"],
    ]) {
      const mine = es.filter((e) => e.step_id === step);
      expect(mine.map((e) => `${e.entry_type}#${e.attempt}`)).toEqual(["step.attempt.started#1", "effect.confirmed#1", "step.completed#0"]);
      expect(mine[0].payload).toMatchObject({ adapter: "script", visit: 1 });
      expect(mine[1].payload).toMatchObject({ outcome: "success", reason: "ok", output: { session: word } });
      expect(mine[2].payload).toMatchObject({ outcome: "success", next: step === "open" ? "work" : "again", output: { session: word } });
    }
  });
});

describe("parallel_max and max_visits written as expressions of variables", () => {
  const LIMITS = `${HEAD("items")}
variable "n" {
  type = number
  default = 2
}
variable "m" {
  type = number
  default = 2
}
step "items" {
  target = adapter.script.default
  parallel = ["a", "b", "c"]
  parallel_max = var.n
  input { item = each.value }
  outcome "all_succeeded" { next = "loop" }
}
step "loop" {
  target = adapter.script.default
  while = each._idx < 3
  max_visits = var.m
  input { item = "loop" }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "failed" }
}`;

  /** A run of LIMITS with `vars`: its end, how many items ran at once at most, and how many loop iterations ran. */
  async function run(vars: Record<string, number>) {
    let inFlight = 0;
    let most = 0;
    const a = scripted(async () => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
      return ok();
    });
    const end = await setup().runner({ adapterFor: a.adapterFor }).start(await graphOf(LIMITS), vars, "r");
    return { end, most, loops: a.seen.filter((r) => r.input.item === "loop").length, items: a.seen.filter((r) => r.input.item !== "loop").length };
  }

  it("parallel_max = var.n holds the items in flight to n, 1 included; below 1 or not whole, the run ends with eval_error at the expression", async () => {
    expect(await run({ n: 1, m: 0 })).toMatchObject({ end: { state: "done" }, most: 1, items: 3 });
    expect(await run({ n: 2, m: 0 })).toMatchObject({ end: { state: "done" }, most: 2, items: 3 });
    for (const [n, shown] of [
      [0, "0"],
      [-2, "-2"],
      [2.5, "2.5"],
    ] as const) {
      const r = await run({ n, m: 0 });
      expect(r.items, `n = ${n}: no item runs`).toBe(0);
      expect(r.end).toMatchObject({ success: false, reason: "eval_error" });
      expect(r.end.detail).toMatch(new RegExp(`w\\.hcl:\\d+:\\d+: parallel_max must be a whole number of at least 1, not ${shown.replace(".", "\\.")}$`));
    }
  });

  it("max_visits = var.m: 0 is unlimited (the Go tool's), m stops the loop after m iterations, below 0 is eval_error", async () => {
    expect(await run({ n: 3, m: 0 })).toMatchObject({ end: { state: "done", success: true }, loops: 3 });
    expect(await run({ n: 3, m: 3 })).toMatchObject({ end: { state: "done", success: true }, loops: 3 });
    const two = await run({ n: 3, m: 2 });
    expect(two).toMatchObject({ end: { success: false, reason: "policy_exceeded" }, loops: 2 });
    expect(two.end.detail).toBe('step "loop": its while condition still holds after max_visits = 2 iterations');
    const below = await run({ n: 3, m: -1 });
    expect(below).toMatchObject({ end: { success: false, reason: "eval_error" }, loops: 0 });
    expect(below.end.detail).toMatch(/w\.hcl:\d+:\d+: max_visits must be a whole number of at least 0, not -1$/);
  });
});

describe("max_total_steps through a while loop", () => {
  const LOOP = (total: number) => `${HEAD("loop", `  policy {\n    max_total_steps = ${total}\n  }\n`)}
step "loop" {
  target = adapter.script.default
  while = each._idx < 2
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "failed" }
}`;

  it("the step's visit and each iteration count: exactly the budget runs, one less stops the loop before its last iteration", async () => {
    const enough = scripted(() => ok());
    expect(await setup().runner({ adapterFor: enough.adapterFor }).start(await graphOf(LOOP(3)), {}, "r")).toMatchObject({ state: "done", success: true });
    expect(enough.seen).toHaveLength(2);
    const short = scripted(() => ok());
    const s = setup();
    const end = await s.runner({ adapterFor: short.adapterFor }).start(await graphOf(LOOP(2)), {}, "r");
    expect(short.seen).toHaveLength(1);
    expect(end).toMatchObject({ success: false, reason: "policy_exceeded", detail: 'policy max_total_steps = 2 exceeded in the while loop of step "loop"' });
    const completed = (await s.entries("r")).find((e) => e.entry_type === "step.completed");
    expect(completed?.payload).toMatchObject({ reason: "policy_exceeded", output: [{}] });
  });
});

describe("secrets that are not strings", () => {
  it("reach the step's environment as JSON, a string as itself, and are masked in what the step returns", async () => {
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
});
