/**
 * What engine/run/runner.ts declares before its Runner (lines 1–240 for StrykerJS): the
 * errors the CLI maps to exit codes, the outcomes that belong to an iterating step as a
 * whole, and which outputs are merged into the run's. What the mutation pass over those
 * lines left alive (19 of 34 killed) is pinned here, in process.
 */
import { describe, expect, it } from "vitest";
import { RunInterrupted, RunNeedsSecrets, RunRefused, RunSubmitted } from "../../engine/run/runner.js";
import { graphOf } from "./graph-of.js";
import { HEAD, ok, scripted, setup } from "./runner-fixtures.js";

describe("the runner's errors", () => {
  it("a refusal is not the command line's fault unless said (exit 1, not 2); missing secrets are (exit 2)", () => {
    expect(new RunRefused("no").usage).toBe(false);
    expect(new RunRefused("no", true).usage).toBe(true);
    const secrets = new RunNeedsSecrets("give token", ["token"]);
    expect(secrets).toBeInstanceOf(RunRefused);
    expect([secrets.usage, secrets.names, secrets.message]).toEqual([true, ["token"], "give token"]);
  });

  it("an interruption and a submission name the run", () => {
    expect(new RunInterrupted("r1").message).toBe("run r1 interrupted");
    expect(new RunSubmitted("r2").message).toBe("submitted run r2: a worker sharing the store runs it (criteria runs and criteria journal r2 follow it)");
  });
});

describe("an iterating step's own outcomes", () => {
  for (const name of ["all_succeeded", "any_failed", "default"]) {
    it(`an item whose outcome is named "${name}" is not given the step's "${name}" outcome: that one is the step's as a whole`, async () => {
      const g = await graphOf(`${HEAD("items")}
adapter "script" "default" {}
step "items" {
  target = adapter.script.default
  for_each = ["a", "b"]
  input { v = each.value }
  outcome "${name}" {
    next   = "done"
    output = { whole = "yes" }
  }
${name === "all_succeeded" ? "" : '  outcome "all_succeeded" { next = "done" }\n'}${name === "any_failed" ? "" : '  outcome "any_failed" { next = "failed" }\n'}}`);
      const items = scripted((req) => ({ outcome: name, output: { item: String(req.input.v) }, reason: "ok" }));
      const s = setup({ adapterFor: items.adapterFor });
      await s.runner().start(g, {}, "r");
      const outputs = (await s.entries("r")).filter((e) => e.entry_type === "iteration.completed").map((e) => (e.payload as { output: unknown }).output);
      expect(outputs).toEqual([{ item: "a" }, { item: "b" }]);
    });
  }
});

describe("the run's merged output", () => {
  it("takes the objects steps output, not an iterating step's list of items (indexes would become keys)", async () => {
    const g = await graphOf(`${HEAD("one")}
adapter "script" "default" {}
step "one" {
  target = adapter.script.default
  outcome "success" { next = "items" }
}
step "items" {
  target = adapter.script.default
  for_each = ["a", "b"]
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "failed" }
}`);
    const steps = scripted((req) => ok(req.step === "one" ? { first: "x" } : { item: "y" }));
    const end = await setup({ adapterFor: steps.adapterFor }).runner().start(g, {}, "r");
    expect(end).toMatchObject({ state: "done", merged_output: { first: "x" } });
    expect(Object.keys(end.merged_output as object)).toEqual(["first"]);
  });
});

describe("an item's end event", () => {
  it("names a map's item by its key, a list's by none (found by a new-user trial: apply printed [1/2] for a map's items)", async () => {
    for (const [each, keys] of [
      ["{ x = 1, y = 2 }", ["x", "y"]],
      ['["a", "b"]', [undefined, undefined]],
    ] as const) {
      const g = await graphOf(`${HEAD("items")}
adapter "script" "default" {}
step "items" {
  target = adapter.script.default
  for_each = ${each}
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "failed" }
}`);
      const s = setup({ adapterFor: scripted(() => ok()).adapterFor });
      await s.runner().start(g, {}, "r");
      const ends = s.events.flatMap((e) => (e.event === "iteration.completed" ? [e] : []));
      expect(ends.map((e) => e.key)).toEqual(keys);
      expect(ends.map((e) => e.index)).toEqual([0, 1]);
    }
  });
});
