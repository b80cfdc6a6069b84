/**
 * `criteria graph` (issue "See and edit", item 1): the picture's DOT and its SVG laid out by
 * Graphviz compiled to WebAssembly. Goldens compare the SVG's structure (the ids and
 * classes of its nodes, edges and clusters), not its bytes: testdata/graph/<example>.ids,
 * written only by `UPDATE_GOLDEN=1 npx vitest run test/graph/graph.test.ts` (a missing
 * one fails). Each example's `graph.svg` must be what `make pictures` writes now.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { toDot } from "../../compiler/build/format-dot.js";
import { toSvg } from "../../compiler/build/format-svg.js";
import { compile } from "../../compiler/index.js";
import { chainHcl } from "../../bench/generate.js";
import { graphOf } from "../engine/graph-of.js";
import { cli } from "../pipeline/helpers.js";

const root = join(import.meta.dirname, "..", "..");
const examples = readdirSync(join(root, "examples"), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
const update = process.env.UPDATE_GOLDEN === "1";

/** The structure of an SVG Graphviz drew: one `class id` line per node, edge and cluster, in document order. */
function structure(svg: string): string[] {
  const decode = (s: string) => s.replace(/&#45;/g, "-").replace(/&gt;/g, ">").replace(/&lt;/g, "<").replace(/&quot;/g, '"').replace(/&amp;/g, "&");
  return [...svg.matchAll(/<g id="([^"]*)" class="([^"]*)"/g)].filter((m) => m[2] !== "graph").map((m) => `${m[2]} ${decode(m[1])}`);
}

async function picture(path: string): Promise<string> {
  const c = await compile(path);
  expect(c.graph, JSON.stringify(c.diagnostics.filter((d) => d.severity === "error"))).toBeDefined();
  return toSvg(toDot(c.graph!, { picture: true, unbounded: c.diagnostics.some((d) => d.code === "unbounded_loop") }));
}

describe("graph pictures of the examples", () => {
  for (const name of examples) {
    it(name, async () => {
      const svg = await picture(join(root, "examples", name));
      const got = structure(svg).join("\n") + "\n";
      const file = join(root, "testdata", "graph", `${name}.ids`);
      if (update) writeFileSync(file, got);
      expect(existsSync(file), `${file} is missing: run UPDATE_GOLDEN=1 npx vitest run test/graph/graph.test.ts and review it`).toBe(true);
      expect(got).toBe(readFileSync(file, "utf8"));
      // No node or edge is left with an id Graphviz made up (node12, edge3): every one is named.
      expect(got.split("\n").filter((l) => /^(node|edge|cluster) (node|edge|clust)\d+$/.test(l))).toEqual([]);
      const kept = join(root, "examples", name, "graph.svg");
      expect(existsSync(kept) && readFileSync(kept, "utf8") === svg, `examples/${name}/graph.svg is not the picture of the example as it is now: run make pictures`).toBe(true);
    });
  }
});

describe("what a picture shows", () => {
  const loop = (bound: string, policy = "") => `workflow "t" {
  version = "1"
  initial_state = "a"
  target_state = "done"
}
${policy}
state "done" { terminal = true }
state "failed" {
  terminal = true
  success = false
}
adapter "noop" "default" {}
step "a" {
  target = adapter.noop.default
  ${bound}
  outcome "success" { next = step.b }
  outcome "failure" { next = state.failed }
}
step "b" {
  target = adapter.noop.default
  outcome "again" { next = step.a }
  outcome "success" { next = state.done }
}
`;
  const drawn = async (hcl: string, unbounded: boolean) => structure(await toSvg(toDot(await graphOf(hcl), { picture: true, unbounded })));

  it("draws the edges of a loop with no bound in red, and only those", async () => {
    const lines = await drawn(loop(""), true);
    expect(lines.filter((l) => l.includes("unbounded"))).toEqual(["edge unbounded edge:a->b#success", "edge unbounded edge:b->a#again"]);
    expect(lines).toContain("edge edge:b->done#success");
    // A step of the loop bounds it: nothing is red.
    expect((await drawn(loop("max_visits = 3"), true)).filter((l) => l.includes("unbounded"))).toEqual([]);
    // Validate did not warn (a policy bounds every run): nothing is red either.
    expect((await drawn(loop(""), false)).filter((l) => l.includes("unbounded"))).toEqual([]);
  });

  it("tells a terminal state that fails from one that succeeds, and both from a plain state", async () => {
    const dot = toDot(await graphOf(loop("")), { picture: true });
    expect(dot).toContain(`"done" [shape=doublecircle,id="node:done",style=filled,fillcolor="#d8f3dc"];`);
    expect(dot).toContain(`"failed" [shape=doubleoctagon,id="node:failed",style=filled,fillcolor="#ffd6d6"];`);
  });

  it("draws a terminal state many edges lead to again beside each source after the third, the edges keeping their ids", async () => {
    const steps = ["a", "b", "c", "d", "e"];
    const hcl = `workflow "t" {
  version = "1"
  initial_state = "a"
  target_state = "done"
}
state "done" { terminal = true }
state "failed" {
  terminal = true
  success = false
}
adapter "noop" "default" {}
${steps.map((s, i) => `step "${s}" {
  target = adapter.noop.default
  outcome "success" { next = "${steps[i + 1] ?? "done"}" }
  outcome "failure" { next = "failed" }
}`).join("\n")}
`;
    const lines = await drawn(hcl, false);
    expect(lines.filter((l) => l.startsWith("node node:failed"))).toEqual(["node node:failed", "node node:failed~1", "node node:failed~2", "node node:failed~3", "node node:failed~4"]);
    expect(lines.filter((l) => l.endsWith("->failed#failure"))).toEqual(steps.map((s) => `edge edge:${s}->failed#failure`));
    // Three edges or fewer share one drawing (done has one).
    expect(lines.filter((l) => l.startsWith("node node:done"))).toEqual(["node node:done"]);
    const dot = toDot(await graphOf(hcl), { picture: true });
    expect(dot).toContain(`"e" -> "failed~4" [label="failure",id="edge:e->failed#failure"];`);
    expect(dot).toContain(`"failed~4" [shape=doubleoctagon,style=filled,fillcolor="#ffd6d6",label="failed",id="node:failed~4"];`);
    // The plain DOT (the Go tool's layout) draws it once.
    expect(toDot(await graphOf(hcl))).not.toContain("failed~");
  });

  it("lays out a 500-step chain whose steps all lead to shared failure states (Graphviz's WebAssembly stack ran out)", async () => {
    const svg = await toSvg(toDot(await graphOf(chainHcl(500)), { picture: true }));
    const lines = structure(svg);
    expect(lines.filter((l) => /^node node:s\d+$/.test(l))).toHaveLength(500);
    expect(lines).toContain("edge edge:s499->done#success");
  }, 60_000);

  it("a step many edges lead back to gets jump markers past the first eight (300 steps each failing back to the first took Graphviz past ten minutes; 1,200 ran out of memory: a new-user trial); past 3,200 edges the SVG is refused at once", async () => {
    const back = (n: number) =>
      `workflow {\n  name = "back"\n  version = "1"\n  initial_state = "s0"\n  target_state = "done"\n}\nadapter "noop" "default" {}\nstate "done" { terminal = true }\n` +
      Array.from({ length: n }, (_, i) => `step "s${i}" {\n  target = adapter.noop.default\n  outcome "success" { next = "${i < n - 1 ? `s${i + 1}` : "done"}" }\n  outcome "failure" { next = "s0" }\n}\n`).join("");
    const lines = structure(await toSvg(toDot(await graphOf(back(300)), { picture: true })));
    expect(lines.filter((l) => /^node node:s\d+$/.test(l))).toHaveLength(300);
    // The first eight failures lead to s0 itself, the rest to markers beside their sources; every edge keeps its id.
    expect(lines.filter((l) => /^node jump node:s0~\d+$/.test(l))).toHaveLength(300 - 8);
    expect(lines.filter((l) => /^edge edge:s\d+->s0#failure$/.test(l))).toHaveLength(300);
    const dot = toDot(await graphOf(back(300)), { picture: true });
    expect(dot).toContain(`"s299" -> "s0~299" [label="failure",id="edge:s299->s0#failure"];`);
    expect(dot).toContain(`"s0~299" [shape=box,style="dashed,rounded",label="→ s0",tooltip="continues at s0",id="node:s0~299",class="jump"];`);
    await expect(toSvg(toDot(await graphOf(back(1700)), { picture: true }))).rejects.toThrow("3401 edges are more than Graphviz in WebAssembly lays out here (at most 3200)");
  }, 60_000);

  it("Mermaid shows channels with their participants, and the steps that use them (a trial found none)", () => {
    const m = cli(["graph", join(root, "examples", "review_panel"), "--format", "mermaid"]).stdout;
    const channel = /(n\d+)\[\/"channel panel: security, maintainability"\\\]/.exec(m);
    expect(channel, m).not.toBeNull();
    // The panel's three channel steps (in the lenses' body) link to it.
    expect(m.match(new RegExp(`-\\.-\\|uses\\| ${channel![1]}$`, "gm"))).toHaveLength(3);
  });

  it("Mermaid writes <, >, & and # in labels as entity codes: it reads a label as HTML, and `var.a<var.b && var.b>0` lost its middle as a tag (a new-user trial)", async () => {
    const c = await compile(join(root, "testdata", "graph-inputs", "mermaid_escape.hcl"));
    expect(c.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const { toMermaid } = await import("../../compiler/build/format-mermaid.js");
    const m = toMermaid(c.graph!);
    expect(m).toContain(`|"var.a#lt;var.b #amp;#amp; var.b#gt;0 #amp;#amp; #quot;#35;1#quot; != #quot;#quot;"|`);
    for (const quoted of m.match(/"[^"]*"/g) ?? []) expect(quoted).not.toMatch(/[<>&]/);
  });

  it("graph, plan and compile read standard input with -, as validate does (a new-user trial: `graph -` said \"- does not exist\")", () => {
    const dir = join(root, "examples", "review_loop");
    const text = readFileSync(join(dir, "workflow.hcl"), "utf8");
    const mermaid = cli(["graph", "-", "--stdin-name", "workflow.hcl", "--format", "mermaid"], { cwd: dir, input: text });
    expect(mermaid.status, mermaid.stderr).toBe(0);
    expect(mermaid.stdout).toBe(cli(["graph", "workflow.hcl", "--format", "mermaid"], { cwd: dir }).stdout);
    const plan = cli(["plan", "-", "--stdin-name", "workflow.hcl"], { cwd: dir, input: text });
    expect(plan.status, plan.stderr).toBe(0);
    expect(plan.stdout).toBe(cli(["plan", "workflow.hcl"], { cwd: dir }).stdout);
    const broken = cli(["compile", "-"], { cwd: dir, input: "workflow {" });
    expect(broken.status).toBe(1);
    expect(broken.stderr).toContain("stdin.hcl:1:10: error[syntax_error]");
  });

  it("Mermaid links a step to the body it runs, as DOT does (found by a new-user trial: a workflow_file body hung unconnected)", () => {
    const m = cli(["graph", join(root, "examples", "for_each_files"), "--format", "mermaid"]).stdout;
    const step = /(n\d+)\["edit_files \[for_each\]"\]/.exec(m);
    const body = /subgraph (n\d+)\["edit_files body"\]\n([\s\S]*?)\n {2}end\n/.exec(m);
    expect(step, m).not.toBeNull();
    const start = /(n\d+)\(\(start\)\)/.exec(body![2]);
    expect(start, body![2]).not.toBeNull();
    expect(m).toContain(`  ${step![1]} -.->|runs| ${start![1]}\n`);
  });

  it("leaves the plain DOT of compile --format dot in the Go tool's layout (its v0.5.7 fills, no picture ids)", async () => {
    const plain = toDot(await graphOf(loop("")));
    expect(plain).not.toContain("id=");
    expect(plain).toContain(`"done" [shape=doublecircle, style=filled, fillcolor="#D5F5E3"];`);
    expect(plain).toContain(`"failed" [shape=doublecircle, style=filled, fillcolor="#FADBD8"];`);
  });
});

describe("criteria graph", () => {
  const example = join(root, "examples", "review_loop");

  it("prints SVG by default, DOT or Mermaid when asked", () => {
    const svg = cli(["graph", example]);
    expect(svg.status, svg.stderr).toBe(0);
    expect(svg.stdout).toMatch(/^<\?xml version="1\.0" encoding="UTF-8" standalone="no"\?>\n/);
    expect(svg.stdout.trimEnd()).toMatch(/<\/svg>$/);
    const dot = cli(["graph", example, "--format", "dot"]);
    expect(dot.stdout).toMatch(/^digraph "review_loop" \{\n/);
    expect(dot.stdout).toContain(`id="node:`);
    expect(cli(["graph", example, "-f", "mermaid"]).stdout).toMatch(/^flowchart LR\n/);
  });

  it("draws the modules when a module or use cycle was refused, the edge that closes it in red; exit 1 with the diagnostic", () => {
    for (const [project, code, closing] of [
      ["module_cycle", "module_cycle", "edge:testdata/projects/module_cycle/fmt->testdata/projects/module_cycle/lint#subworkflow"],
      ["use_cycle", "use_cycle", "edge:testdata/projects/use_cycle/flows/y.hcl->testdata/projects/use_cycle/flows/x.hcl#use"],
    ]) {
      const r = cli(["graph", join("testdata", "projects", project)], { cwd: root });
      expect(r.status, project).toBe(1);
      expect(r.stderr).toContain(`error[${code}]`);
      const lines = structure(r.stdout);
      expect(lines.filter((l) => l.startsWith("edge cycle")), project).toEqual([`edge cycle ${closing}`]);
      expect(lines.filter((l) => l.startsWith("node module:"))).toHaveLength(3);
      // DOT and Mermaid too (Mermaid printed nothing: a new-user trial): three modules, the closing link styled red.
      expect(cli(["graph", join("testdata", "projects", project), "--format", "dot"], { cwd: root }).stdout).toContain(`class="cycle"`);
      const mermaid = cli(["graph", join("testdata", "projects", project), "--format", "mermaid"], { cwd: root });
      expect(mermaid.status).toBe(1);
      const links = mermaid.stdout.split("\n").filter((l) => l.includes(" --> "));
      expect(mermaid.stdout.split("\n").filter((l) => /^ {2}m\d+\[/.test(l))).toHaveLength(3);
      const closes = links.findIndex((l) => l.includes("closes a cycle"));
      expect(closes).toBeGreaterThanOrEqual(0);
      expect(mermaid.stdout).toContain(`linkStyle ${closes} stroke:#d00000`);
    }
    // validate's use graph lists the refused edge too.
    const json = JSON.parse(cli(["validate", join("testdata", "projects", "use_cycle"), "--format", "json"], { cwd: root }).stdout) as { use_graph: { edges: { to: string; cycle?: true }[] }[] };
    expect(json.use_graph[0].edges.filter((e) => e.cycle).map((e) => e.to)).toEqual(["testdata/projects/use_cycle/flows/x.hcl"]);
  });

  it("refuses a workflow with errors with its diagnostics, and an unknown format as a usage error", () => {
    const bad = cli(["graph", join(root, "testdata", "invalid", "default_outcome_undeclared.hcl")]);
    expect(bad.status).toBe(1);
    expect(bad.stdout).toBe("");
    expect(bad.stderr).toMatch(/default_outcome_undeclared\.hcl:\d+:\d+: error\[/);
    const format = cli(["graph", example, "--format", "png"]);
    expect(format.status).toBe(2);
    expect(format.stderr).toContain(`argument 'png' is invalid. Allowed choices are svg, dot, mermaid.`);
  });
});
