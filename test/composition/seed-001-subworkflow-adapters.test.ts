/**
 * Seed 001 (a child cannot see the parent's adapters), its test coverage list on real
 * files: the child graph has the passed adapter as an alias of the parent's (compile),
 * the child's steps run on the parent's live session, one open for parent and child
 * (engine, counting adapter), a child's own adapters get their own sessions (Option B),
 * and the new example validates and runs (examples/subworkflow_with_adapter).
 */
import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { compile } from "../../compiler/index.js";
import { counting, graphIn, project, runIn } from "./helpers.js";

const repo = join(import.meta.dirname, "..", "..");

/** Parent and child both run steps on adapter count.reviewer; the child also has its own count.local. */
const files = (extra = "") => ({
  "main.hcl": `workflow {
  name          = "parent"
  version       = "1"
  initial_state = "before"
  target_state  = "done"
}
adapter "count" "reviewer" {
  config { model = "parent-model" }
}
subworkflow "item" {
  source   = "./item"
  adapters = [adapter.count.reviewer]
}
step "before" {
  target = adapter.count.reviewer
  outcome "success" { next = step.each_item }
}
step "each_item" {
  target   = subworkflow.item
  ${extra || `for_each = ["a", "b", "c"]`}
  input { name = each.value }
  outcome "all_succeeded" { next = step.after }
  outcome "any_failed"    { next = state.failed }
}
step "after" {
  target = adapter.count.reviewer
  outcome "success" { next = state.done }
}
state "done" { terminal = true }
state "failed" {
  terminal = true
  success  = false
}
`,
  "item/main.hcl": `workflow {
  name          = "item"
  version       = "1"
  initial_state = "lint"
  target_state  = "done"
  expects {
    adapters = [adapter.count.reviewer]
  }
}
variable "name" { type = string }
adapter "count" "local" {}
step "lint" {
  target = adapter.count.local
  input { file = var.name }
  outcome "success" { next = step.review }
}
step "review" {
  target = adapter.count.reviewer
  input { file = var.name }
  outcome "success" { next = state.done }
}
state "done" { terminal = true }
output "reviewed" {
  type  = string
  value = var.name
}
`,
});

describe("docs/language.md, Composition: subworkflows use the parent's adapters", () => {
  it("compile: the child graph holds the passed adapter as an inherited alias, once per module", async () => {
    const dir = project(files());
    const g = await graphIn(dir, "main.hcl");
    expect(g.subworkflows).toEqual([{ name: "item", module: "item", input: {}, adapters: ["count.reviewer"], agents: [] }]);
    const child = g.modules!.item;
    expect(child.adapters).toEqual([
      { id: "count.local", type: "count", name: "local", config: {}, inherited: false, implicit: false, at: "item/main.hcl:11:17" },
      { id: "count.reviewer", type: "count", name: "reviewer", config: {}, inherited: true, implicit: false, at: "item/main.hcl:7:17" },
    ]);
    expect(child.dir).toBe("item");
    expect(Object.keys(g.modules!)).toEqual(["item"]);
  });

  it("engine (Option A): the child's step runs on the parent's live session: one open_session across parent and children", async () => {
    const dir = project(files());
    const count = counting();
    const { end } = await runIn(dir, "main.hcl", { extra: { adapterFor: count.adapterFor } });
    expect(end.success, end.detail).toBe(true);
    expect(count.opened.filter((o) => o.startsWith("adapter.count.reviewer@"))).toEqual(["adapter.count.reviewer@run"]);
    // Option B: the child's own adapter is opened in each child run, and closed there.
    expect(count.opened.filter((o) => o.startsWith("adapter.count.local@")).sort()).toEqual([
      "adapter.count.local@run/each_item#1[0]",
      "adapter.count.local@run/each_item#1[1]",
      "adapter.count.local@run/each_item#1[2]",
    ]);
    expect([...count.closed].sort()).toEqual([...count.opened].sort());
    expect(count.calls).toEqual([
      "run:before",
      "run/each_item#1[0]:lint",
      "run/each_item#1[0]:review",
      "run/each_item#1[1]:lint",
      "run/each_item#1[1]:review",
      "run/each_item#1[2]:lint",
      "run/each_item#1[2]:review",
      "run:after",
    ]);
  });

  it("engine: parallel items share the parent's session and get isolated sessions of the child's own adapters", async () => {
    const dir = project(files(`parallel = ["a", "b", "c", "d"]\n  parallel_max = 4`));
    const count = counting();
    const { end, entries } = await runIn(dir, "main.hcl", { extra: { adapterFor: count.adapterFor } });
    expect(end.success, end.detail).toBe(true);
    expect(count.opened.filter((o) => o.startsWith("adapter.count.reviewer@"))).toHaveLength(1);
    expect(new Set(count.opened.filter((o) => o.startsWith("adapter.count.local@"))).size).toBe(4);
    const done = (await entries("run")).find((e) => e.entry_type === "step.completed" && e.step_id === "each_item");
    expect(done?.payload).toMatchObject({ outcome: "all_succeeded", output: [{ reviewed: "a" }, { reviewed: "b" }, { reviewed: "c" }, { reviewed: "d" }] });
  });

  it("validating the child alone says what it expects from its caller instead of an unknown-name error", async () => {
    const dir = project(files());
    const c = await compile(join(dir, "item"), { cwd: dir });
    expect(c.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(c.graph!.adapters.find((a) => a.id === "count.reviewer")).toMatchObject({ inherited: true });
  });

  it("the new example validates and runs: a parent agent passed to a per-item subworkflow", async () => {
    const c = await compile(join(repo, "examples", "subworkflow_with_adapter"), { cwd: repo });
    expect(c.diagnostics).toEqual([]);
    expect(c.graph!.modules!.review_item.agents).toEqual([{ name: "reviewer", config: {}, inherited: true }]);
    const { end } = await runIn(repo, "examples/subworkflow_with_adapter");
    expect(end).toMatchObject({ success: true, state: "done", outputs: { verdicts: ["LGTM", "LGTM", "LGTM"] } });
  });
});
