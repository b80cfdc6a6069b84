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
import { toPlan } from "../../compiler/build/format-plan.js";

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

/** The Go tool's v0.5.7 compile JSON: steps name their adapter `type.name`; outcomes are sorted. */
interface GoGraphV5 {
  name: string;
  initial_state: string;
  target_state: string;
  adapters: { type: string; name: string }[];
  steps: { name: string; adapter: string; input_keys: string[] | null; outcomes: { name: string; next: string }[] }[];
  states: { name: string; terminal: boolean; success: boolean }[];
  outputs: { name: string; type?: string }[];
  step_order: string[];
  plugins_required: string[];
  subworkflows?: { name: string; body: GoGraphV5 }[];
}

/** What the Go tool's golden and our graph must agree on (meaning, not bytes). */
function meaning(g: GoGraphV5) {
  return {
    name: g.name,
    initial_state: g.initial_state,
    target_state: g.target_state,
    adapters: g.adapters.map((a) => `${a.type}.${a.name}`),
    steps: g.steps.map((s) => ({ name: s.name, adapter: s.adapter, input_keys: [...(s.input_keys ?? [])].sort(), outcomes: s.outcomes.map((o) => `${o.name}->${o.next}`).sort() })),
    states: g.states,
    outputs: g.outputs.map((o) => ({ name: o.name, type: o.type })),
    step_order: g.step_order,
    plugins_required: g.plugins_required,
  };
}

function ours(g: import("../../compiler/build/graph.js").Graph): GoGraphV5 {
  return {
    name: g.name,
    initial_state: g.initial_state,
    target_state: g.target_state ?? "",
    adapters: g.adapters.map((a) => ({ type: a.type, name: a.name })),
    steps: g.steps.map((s) => ({ name: s.name, adapter: s.target.kind === "adapter" ? s.target.id : "", input_keys: Object.keys(s.input), outcomes: s.outcomes.map((o) => ({ name: o.name, next: o.next })) })),
    states: g.states,
    outputs: g.outputs.map((o) => ({ name: o.name, type: o.type })),
    step_order: g.step_order,
    plugins_required: g.plugins_required,
  };
}

describe("upstream expected output: v0.5.7 hello and subworkflow (child graphs match by meaning)", () => {
  for (const [name, path] of [
    ["hello", "v0.5.7/examples/hello"],
    ["subworkflow", "v0.5.7/examples/subworkflow"],
  ] as const) {
    it(`${name}: compile json has the same graph, and each subworkflow's body`, async () => {
      const want = JSON.parse(readFileSync(join(shared, "v0.5.7", "expected", `${name}__examples__${name}.compile.json`), "utf8")) as GoGraphV5;
      const c = await compile(join(shared, path));
      expect(c.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      const g = c.graph!;
      expect(meaning(ours(g))).toEqual(meaning(want));
      const subs = (want.subworkflows ?? []).map((s) => ({ name: s.name, body: meaning(s.body) }));
      expect((g.subworkflows ?? []).map((s) => ({ name: s.name, body: meaning(ours(g.modules![s.module])) }))).toEqual(subs);
    });

    it(`${name}: compile dot draws the same top-level edges, and its nodes as the Go tool writes them (shape and fill: success and failure states told apart, found by a trial of its language)`, async () => {
      const c = await compile(join(shared, path));
      const theirs = readFileSync(join(shared, "v0.5.7", "expected", `${name}__examples__${name}.compile.dot`), "utf8");
      const top = (dot: string) =>
        dot
          .split("\n")
          .map((l) => l.trim())
          .filter((l) => /^"[^":/]+" -> "[^":/]+"/.test(l))
          .sort();
      const shapes = (dot: string) =>
        dot
          .split("\n")
          .map((l) => l.trim())
          .filter((l) => /^"[^":/]+" \[shape=/.test(l))
          .sort();
      expect(top(toDot(c.graph!))).toEqual(top(theirs));
      expect(shapes(toDot(c.graph!))).toEqual(shapes(theirs));
    });
  }
});

describe("every module of the Go tool's v0.5.7 examples validates", () => {
  for (const f of ["hello", "subworkflow", "subworkflow/subworkflows/inner", "llm-pack/01-linear", "llm-pack/02-branching-switch", "llm-pack/03-iteration-for-each", "llm-pack/04-iteration-parallel", "llm-pack/05-subworkflow", "llm-pack/05-subworkflow/child", "llm-pack/06-approval-and-wait", "llm-pack/07-shared-variable", "llm-pack/08-fileset-template"]) {
    it(f, async () => {
      const c = await compile(join(shared, "v0.5.7", "examples", f));
      expect(c.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      expect(c.graph).toBeDefined();
    });
  }
});

/**
 * The facts of a `criteria plan` text, in the Go tool's layout: the header lines, each
 * section's entries, each step's adapter, input keys and outcomes, each adapter's type,
 * on_crash and config keys, the adapter types required. Layout details (spacing, search
 * paths, sections the Go tool does not print) are not facts.
 */
function planFacts(text: string) {
  const lines = text.split("\n");
  const section = (name: string) => {
    const i = lines.findIndex((l) => l === `${name}:`);
    if (i < 0) return [];
    const out: string[] = [];
    for (const l of lines.slice(i + 1)) {
      if (!l.startsWith("  ")) break;
      out.push(l.trim().replace(/\s+/g, " ").replace(/ \((built in|search:[^)]*)\)$/, ""));
    }
    return out;
  };
  return {
    header: lines.slice(0, 3).map((l) => l.replace(/\s+/g, " ")),
    variables: section("variables"),
    adapters: section("adapters"),
    steps: section("steps (declaration order)"),
    states: section("states"),
    required: section("adapters required"),
  };
}

describe("upstream expected output: v0.5.7 plan carries the same facts", () => {
  for (const name of ["hello", "subworkflow"]) {
    it(name, async () => {
      const c = await compile(join(shared, "v0.5.7", "examples", name));
      const theirs = readFileSync(join(shared, "v0.5.7", "expected", `${name}__examples__${name}.plan.txt`), "utf8");
      expect(planFacts(toPlan(c.graph!))).toEqual(planFacts(theirs));
    });
  }
});
