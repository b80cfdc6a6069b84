/**
 * The loop check (`unbounded_loop`, compiler/check/check-loops.ts) and the reserved
 * targets check (`continue_outside_iteration`, check-reserved-targets.ts) on the cases
 * the mutation run (make mutation) showed no test pinned: the policy's threshold, a self loop,
 * a loop whose steps are not all unbounded, `_continue` as the initial state, and
 * `_continue` on an iterating step's per-item and aggregate outcomes.
 */
import { describe, expect, it } from "vitest";
import { compileIn, project } from "../composition/helpers.js";

const header = (extra = "") => `workflow "w" {\n  version = "1"\n  initial_state = "a"\n  target_state = "done"\n${extra}}\nadapter "noop" "default" {}\nstate "done" { terminal = true }\n`;

async function found(text: string): Promise<string[]> {
  const dir = project({ "main.hcl": text });
  const c = await compileIn(dir, "main.hcl");
  return c.diagnostics.map((d) => `${d.range.start.line}:${d.range.start.column} ${d.code}`);
}

const loop = (maxVisits = "") => `step "a" {\n  target = adapter.noop.default\n${maxVisits}  outcome "success" { next = "b" }\n}\nstep "b" {\n  target = adapter.noop.default\n  outcome "success" { next = "a" }\n  outcome "failure" { next = "done" }\n}\n`;

describe("unbounded_loop", () => {
  /** A policy block of the header (3 lines: the step then starts on line 11). */
  const policy = (fields: string) => `  policy {\n    ${fields}\n  }\n`;
  const big = policy("max_total_steps = 500");

  it("a two-step loop with no max_visits under a max_total_steps above the threshold warns, at its first step", async () => {
    expect(await found(header(big) + loop())).toEqual(["11:6 unbounded_loop"]);
  });

  it("not under the default policy (100 steps, threshold 200: the Go tool's rule; criteria warned there, and not under 500, before a trial of its language)", async () => {
    expect(await found(header() + loop())).toEqual([]);
  });

  it("the threshold is the boundary: max_total_steps equal to it does not warn, one more does; a lower threshold warns under the default", async () => {
    expect(await found(header(policy("max_total_steps = 200")) + loop())).toEqual([]);
    expect(await found(header(policy("max_total_steps = 201")) + loop())).toEqual(["11:6 unbounded_loop"]);
    expect(await found(header(policy("max_visits_warn_threshold = 99")) + loop())).toEqual(["11:6 unbounded_loop"]);
    expect(await found(header(policy("max_visits_warn_threshold = 100")) + loop())).toEqual([]);
  });

  it("max_visits_warn_threshold = 0 turns the warning off", async () => {
    expect(await found(header(`  policy {\n    max_total_steps = 500\n    max_visits_warn_threshold = 0\n  }\n`) + loop())).toEqual([]);
  });

  it("the message says what stops the loop and the hint how to bound it", async () => {
    const c = await compileIn(project({ "main.hcl": header(big) + loop() }), "main.hcl");
    expect(c.diagnostics.map((d) => [d.message, d.hint])).toEqual([
      ['steps "a" -> "b" form a loop with no max_visits: only max_total_steps (500, above max_visits_warn_threshold 200) stops it', "set max_visits on one of them, or policy { max_total_steps = 200 } or less (max_visits_warn_threshold = 0 turns this warning off)"],
    ]);
  });

  it("a long loop is named by its first and last steps and how many lie between (a 2,000-step loop made a 21 KB warning: a new-user trial)", async () => {
    const chain = (n: number) => Array.from({ length: n }, (_, i) => `step "${i === 0 ? "a" : `s${i}`}" {\n  target = adapter.noop.default\n  outcome "success" { next = "${i === n - 1 ? "a" : `s${i + 1}`}" }\n  outcome "failure" { next = "done" }\n}\n`).join("");
    const message = async (n: number) => {
      const c = await compileIn(project({ "main.hcl": header(big) + chain(n) }), "main.hcl");
      return c.diagnostics.map((d) => d.message.replace(/ form a loop .*/, ""));
    };
    expect(await message(10)).toEqual([`steps "a" -> ${Array.from({ length: 9 }, (_, i) => `"s${i + 1}"`).join(" -> ")}`]);
    expect(await message(2000)).toEqual(['steps "a" -> "s1" -> "s2" -> "s3" -> … 1994 more … -> "s1998" -> "s1999"']);
  });

  it("max_visits on one step of the loop bounds it", async () => {
    expect(await found(header(big) + loop("  max_visits = 3\n"))).toEqual([]);
  });

  it("a step that routes to itself is a loop", async () => {
    expect(await found(header(big) + `step "a" {\n  target = adapter.noop.default\n  outcome "retry" { next = "a" }\n  outcome "success" { next = "done" }\n}\n`)).toEqual(["11:6 unbounded_loop"]);
  });

  it("a transition to an unknown node is not an edge of a loop (the unknown name is its own error)", async () => {
    expect(await found(header(big) + `step "a" {\n  target = adapter.noop.default\n  outcome "success" { next = "nowhere" }\n  outcome "done" { next = "done" }\n}\n`)).toEqual(["13:30 unknown_node"]);
  });
});

describe("continue_outside_iteration", () => {
  it("_continue as the top level's initial state is refused", async () => {
    const text = `workflow "w" {\n  version = "1"\n  initial_state = "_continue"\n  target_state = "done"\n}\nadapter "noop" "default" {}\nstep "a" {\n  target = adapter.noop.default\n  outcome "success" { next = "done" }\n}\nstate "done" { terminal = true }\n`;
    expect(await found(text)).toContain("3:19 continue_outside_iteration");
  });

  it("on an iterating step: a per-item outcome may continue, an aggregate outcome may not", async () => {
    const step = (outcome: string) =>
      header() + `step "a" {\n  target = adapter.noop.default\n  for_each = ["x", "y"]\n  outcome "${outcome}" { next = "_continue" }\n  outcome "all_succeeded" { next = "done" }\n  outcome "any_failed" { next = "done" }\n}\n`;
    expect((await found(step("success"))).filter((d) => d.endsWith("continue_outside_iteration"))).toEqual([]);
    expect((await found(step("default"))).filter((d) => d.endsWith("continue_outside_iteration"))).toHaveLength(1);
  });

  it("an iterating step whose items' failure outcome leaves the loop is not warned that failures fall through to all_succeeded (found by a new-user trial); one whose failure continues is", async () => {
    const step = (failureNext: string) =>
      header() + `step "a" {\n  target = adapter.noop.default\n  for_each = ["x", "y"]\n  outcome "success" { next = "_continue" }\n  outcome "failure" { next = "${failureNext}" }\n  outcome "all_succeeded" { next = "done" }\n}\n`;
    expect((await found(step("return"))).filter((d) => d.endsWith("missing_outcome"))).toEqual([]);
    expect((await found(step("done"))).filter((d) => d.endsWith("missing_outcome"))).toEqual([]);
    expect((await found(step("_continue"))).filter((d) => d.endsWith("missing_outcome"))).toHaveLength(1);
  });
});
