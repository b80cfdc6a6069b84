/**
 * The Go tool's own expected outputs (shared/criteria/v0.2.0/expected) for
 * for_each_review_loop.hcl: our `compile --format json` and `--format dot` must have
 * the same steps, states and outcome edges (meaning, not bytes).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compile } from "../../compiler/index.js";
import { toDot } from "../../compiler/build/format-dot.js";

const shared = join(import.meta.dirname, "..", "..", "..", "shared", "criteria");
const file = join(shared, "v0.2.0", "for_each_review_loop.hcl");

interface GoGraph {
  name: string;
  initial_state: string;
  target_state: string;
  policy: { MaxTotalSteps: number };
  steps: { name: string; adapter?: string; input_keys: string[] | null; outcomes: { name: string; transition_to: string }[] }[];
  states: { name: string; terminal: boolean; success: boolean }[];
  step_order: string[];
  plugins_required: string[];
}

describe("upstream expected output: for_each_review_loop", () => {
  const want = JSON.parse(readFileSync(join(shared, "v0.2.0", "expected", "for_each_review_loop.compile.json"), "utf8")) as GoGraph;

  it("compile json has the same steps, states and outcome edges", async () => {
    const c = await compile(file);
    expect(c.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const g = c.graph!;
    expect(g.name).toBe(want.name);
    expect(g.initial_state).toBe(want.initial_state);
    expect(g.target_state).toBe(want.target_state);
    expect(g.policy.max_total_steps).toBe(want.policy.MaxTotalSteps);
    expect(g.step_order).toEqual(want.step_order);
    expect(g.steps.map((s) => ({ name: s.name, outcomes: s.outcomes.map((o) => ({ name: o.name, transition_to: o.next })) }))).toEqual(
      want.steps.map((s) => ({ name: s.name, outcomes: s.outcomes })),
    );
    expect(g.steps.map((s) => Object.keys(s.input).sort())).toEqual(want.steps.map((s) => [...(s.input_keys ?? [])].sort()));
    expect(g.steps.map((s) => s.adapter_type)).toEqual(want.steps.map((s) => s.adapter));
    expect(g.states).toEqual(want.states);
    expect(g.plugins_required).toEqual(want.plugins_required);
  });

  it("compile dot draws the same top-level edges and node shapes", async () => {
    const c = await compile(file);
    const ours = toDot(c.graph!);
    const theirs = readFileSync(join(shared, "v0.2.0", "expected", "for_each_review_loop.compile.dot"), "utf8");
    const edges = (dot: string) =>
      dot
        .split("\n")
        .map((l) => l.trim())
        .filter((l) => /^"[^"/]+" -> "[^"/]+"/.test(l))
        .sort();
    const shapes = (dot: string) =>
      dot
        .split("\n")
        .map((l) => /^\s*"([^"/]+)" \[shape=(\w+)/.exec(l))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => `${m[1]}:${m[2]}`)
        .sort();
    expect(edges(ours)).toEqual(edges(theirs));
    expect(shapes(ours)).toEqual(shapes(theirs));
  });
});

describe("every real file from the Go tool's users validates", () => {
  const files = [
    "v0.2.0/for_each_review_loop.hcl",
    "v0.2.0/iteration_workflow_step.hcl",
    "v0.2.0/two_agent_loop.hcl",
    "v0.3.0/switch_basic.hcl",
    "w14-f9cadf3/phase3-subworkflow/parent.hcl",
    "w14-f9cadf3/phase3-subworkflow/subworkflows/inner",
  ];
  for (const f of files) {
    it(f, async () => {
      const c = await compile(join(shared, f));
      expect(c.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      expect(c.graph).toBeDefined();
    });
  }
});
