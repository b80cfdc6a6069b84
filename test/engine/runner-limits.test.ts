/**
 * A step's limits known only when it runs, in process (engine/run/runner.ts:
 * `compileTimeInt`, `maxVisits`, the `while` loop's step budget): `parallel_max` and
 * `max_visits` written as expressions of variables, and `max_total_steps` counted through
 * a `while` loop's iterations, each at its boundary. What StrykerJS's pass over runner.ts
 * lines 1,100–1,450 left alive: the CLI tests reach these paths through the built bundle,
 * which mutants of the source never reach.
 */
import { describe, expect, it } from "vitest";
import { graphOf } from "./graph-of.js";
import { HEAD as BASE, ok, scripted, setup } from "./runner-fixtures.js";

const HEAD = (initial: string, policy = "") => `${BASE(initial, policy)}adapter "script" "default" {}\n`;

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
