/**
 * Composition benchmarks (docs/language.md, Composition):
 * - compile time of a tree of modules (subworkflows and flows used as agents, 20 steps
 *   each) at 25, 50, 100 and 200 modules, in one process after start-up (the HCL parser
 *   already running): goal < 150 ms at 100 modules, linear in modules (200 / 100 ≈ 2);
 * - apply overhead per nesting level for noop steps: a chain of subworkflows d levels
 *   deep (each level one noop step and the call), durable journal (WAL, synchronous=FULL):
 *   the time a level adds beyond its own noop step, goal < 2 ms;
 * - sessions opened for an adapter passed to a per-item subworkflow (docs/language.md, Composition, Option A):
 *   exactly 1 across the parent and its three child runs.
 * Prints figures; asserts nothing.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Graph } from "../compiler/build/graph.js";
import { compile } from "../compiler/index.js";
import type { Adapter } from "../engine/adapters/adapter.js";
import { adapterFor } from "../engine/adapters/registry.js";
import { SqliteJournal } from "../engine/journal/sqlite-journal.js";
import { Runner } from "../engine/run/runner.js";
import { fmtRatio, printTable, progress, verdict, type Verdict } from "./report.js";
import { median } from "./stats.js";

/** Figures of the composition benchmark (also written to bench/out/latest.json). */
export interface CompositionReport {
  /** By `<dialect> <modules>`: `hcl 100`, `yaml 100`, ... */
  compile_ms: Record<string, number>;
  /** compile time at 200 modules / at 100 (HCL, YAML). */
  compile_linearity: { hcl: number; yaml: number };
  apply_ms_by_depth: Record<string, number>;
  /** Milliseconds one nesting level adds (least-squares slope over depth). */
  per_level_ms: number;
  /** The same, less the cost of the level's own noop step. */
  per_level_overhead_ms: number;
  noop_step_ms: number;
  passed_adapter_sessions: number;
  verdicts: Record<string, Verdict>;
}

const chain = (prefix: string, n: number, last: string) =>
  Array.from({ length: n }, (_, i) => `step "${prefix}${i}" {\n  target = adapter.noop.default\n  input { n = ${i} }\n  outcome "success" { next = ${i + 1 < n ? `step.${prefix}${i + 1}` : last} }\n}\n`).join("");

/** The same module in the YAML dialect. */
function yamlModule(i: number, sub: number | undefined, flow: number | undefined): string {
  const first = sub !== undefined ? "call_sub" : flow !== undefined ? "call_flow" : "done";
  const steps = Array.from({ length: 20 }, (_, k) => `  s${k}:\n    target: adapter.noop.default\n    input: { n: ${k} }\n    outcomes: { success: ${k + 1 < 20 ? `s${k + 1}` : first} }\n`).join("");
  const calls =
    (sub !== undefined ? `  call_sub:\n    target: subworkflow.m${sub}\n    outcomes: { success: ${flow !== undefined ? "call_flow" : "done"}, failure: done }\n` : "") +
    (flow !== undefined ? `  call_flow:\n    target: agent.m${flow}\n    input: { task: t }\n    outcomes: { success: done, failure: done }\n` : "");
  return `workflow: { name: m${i}, version: "1", initial_state: s0, target_state: done${flow !== undefined ? `, use: [../m${flow}/main.yaml]` : ""} }
variables:
  level: { type: number, default: 0 }
adapters:
  noop.default: {}
${sub !== undefined ? `subworkflows:\n  m${sub}: { source: ../m${sub}, input: { level: ${i} } }\n` : ""}steps:
${steps}${calls}states:
  done: { terminal: true }
outputs:
  level: { value: "\${var.level}" }
`;
}

/**
 * Writes a tree of `n` modules under `dir`: module i in `m<i>/`, calling modules 2i+1
 * (as a subworkflow) and 2i+2 (as a flow, by `use`); each has 20 noop steps.
 */
export function moduleTree(dir: string, n: number, dialect: "hcl" | "yaml" = "hcl"): string {
  if (dialect === "yaml") {
    for (let i = 0; i < n; i++) {
      mkdirSync(join(dir, `m${i}`), { recursive: true });
      writeFileSync(join(dir, `m${i}`, "main.yaml"), yamlModule(i, 2 * i + 1 < n ? 2 * i + 1 : undefined, 2 * i + 2 < n ? 2 * i + 2 : undefined));
    }
    return join(dir, "m0", "main.yaml");
  }
  for (let i = 0; i < n; i++) {
    const kids = [2 * i + 1, 2 * i + 2].filter((k) => k < n);
    const sub = kids[0];
    const flow = kids[1];
    const calls: string[] = [];
    if (sub !== undefined) calls.push(`subworkflow "m${sub}" {\n  source = "../m${sub}"\n  input  = { level = ${i} }\n}\nstep "call_sub" {\n  target = subworkflow.m${sub}\n  outcome "success" { next = ${flow !== undefined ? "step.call_flow" : "state.done"} }\n  outcome "failure" { next = state.done }\n}\n`);
    if (flow !== undefined) calls.push(`step "call_flow" {\n  target = agent.m${flow}\n  input { task = "t" }\n  outcome "success" { next = state.done }\n  outcome "failure" { next = state.done }\n}\n`);
    const first = sub !== undefined ? "step.call_sub" : flow !== undefined ? "step.call_flow" : "state.done";
    const text = `workflow {
  name = "m${i}"
  version = "1"
  initial_state = "s0"
  target_state = "done"${flow !== undefined ? `\n  use = ["../m${flow}/main.hcl"]` : ""}
}
variable "level" {
  type    = number
  default = 0
}
adapter "noop" "default" {}
${chain("s", 20, first)}${calls.join("")}state "done" { terminal = true }
output "level" { value = var.level }
`;
    mkdirSync(join(dir, `m${i}`), { recursive: true });
    writeFileSync(join(dir, `m${i}`, "main.hcl"), text);
  }
  return join(dir, "m0", "main.hcl");
}

/** A chain of subworkflows `depth` levels deep: each level runs one noop step, then calls the next. */
function nestedChain(dir: string, depth: number): string {
  for (let i = 0; i <= depth; i++) {
    const call = i < depth ? `subworkflow "next" { source = "../l${i + 1}" }\nstep "call" {\n  target = subworkflow.next\n  outcome "success" { next = state.done }\n  outcome "failure" { next = state.done }\n}\n` : "";
    mkdirSync(join(dir, `l${i}`), { recursive: true });
    writeFileSync(
      join(dir, `l${i}`, "main.hcl"),
      `workflow {\n  name = "l${i}"\n  version = "1"\n  initial_state = "work"\n  target_state = "done"\n}\nadapter "noop" "default" {}\nstep "work" {\n  target = adapter.noop.default\n  outcome "success" { next = ${i < depth ? "step.call" : "state.done"} }\n}\n${call}state "done" { terminal = true }\n`,
    );
  }
  return join(dir, "l0", "main.hcl");
}

async function graphOf(entry: string, root: string): Promise<Graph> {
  const c = await compile(entry, { root, cwd: root });
  const errors = c.diagnostics.filter((d) => d.severity === "error");
  if (errors.length > 0 || !c.graph) throw new Error(`bench workflow does not compile: ${errors.map((d) => d.message).join("; ")}`);
  return c.graph;
}

/** Least-squares slope of y over x. */
function slope(xs: number[], ys: number[]): number {
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  const num = xs.reduce((a, x, i) => a + (x - mx) * (ys[i] - my), 0);
  const den = xs.reduce((a, x) => a + (x - mx) ** 2, 0);
  return num / den;
}

/** Runs the composition benchmarks and prints their table. */
export async function compositionBench(quick: boolean): Promise<CompositionReport> {
  const work = mkdtempSync(join(tmpdir(), "criteria-bench-comp-"));
  try {
    // 1. Compile time of module trees, after start-up (a first compile starts the HCL parser).
    const sizes = [25, 50, 100, 200];
    const runs = quick ? 3 : 7;
    const compileMs: Record<string, number> = {};
    for (const dialect of ["hcl", "yaml"] as const) {
      for (const n of sizes) {
        const dir = join(work, `tree-${dialect}-${n}`);
        const entry = moduleTree(dir, n, dialect);
        await graphOf(entry, dir);
        const samples: number[] = [];
        for (let r = 0; r < runs; r++) {
          const t0 = performance.now();
          await graphOf(entry, dir);
          samples.push(performance.now() - t0);
        }
        compileMs[`${dialect} ${n}`] = median(samples);
        progress(`compile a ${dialect.toUpperCase()} tree of ${n} modules: ${compileMs[`${dialect} ${n}`].toFixed(1)} ms`);
      }
    }
    // 2. Apply overhead per nesting level (durable journal, noop steps).
    const depths = [0, 2, 4, 6, 8];
    const applyMs: Record<string, number> = {};
    for (const d of depths) {
      const dir = join(work, `depth${d}`);
      const g = await graphOf(nestedChain(dir, d), dir);
      const samples: number[] = [];
      for (let r = 0; r < (quick ? 5 : 15); r++) {
        const state = join(dir, `state${r}`);
        const journal = new SqliteJournal(state);
        const t0 = performance.now();
        await new Runner({ journal, adapterFor, baseDir: dir }).start(g, {}, `r${r}`);
        samples.push(performance.now() - t0);
        journal.close();
        rmSync(state, { recursive: true, force: true });
      }
      applyMs[d] = median(samples);
      progress(`apply at depth ${d}: ${applyMs[d].toFixed(2)} ms`);
    }
    const perLevel = slope(depths, depths.map((d) => applyMs[d]));
    // The cost of one noop step in a flat chain, measured the same way.
    const flat = join(work, "flat");
    mkdirSync(flat, { recursive: true });
    writeFileSync(join(flat, "main.hcl"), `workflow {\n  name = "flat"\n  version = "1"\n  initial_state = "s0"\n  target_state = "done"\n}\nadapter "noop" "default" {}\n${chain("s", 41, "state.done")}state "done" { terminal = true }\n`);
    const fg = await graphOf(join(flat, "main.hcl"), flat);
    const flatSamples: number[] = [];
    for (let r = 0; r < (quick ? 3 : 7); r++) {
      const state = join(flat, `state${r}`);
      const journal = new SqliteJournal(state);
      const t0 = performance.now();
      await new Runner({ journal, adapterFor, baseDir: flat }).start(fg, {}, `f${r}`);
      flatSamples.push((performance.now() - t0) / 41);
      journal.close();
    }
    const noopStep = median(flatSamples);
    // 3. Sessions of a passed adapter across a per-item subworkflow (docs/language.md, Composition, Option A).
    const opened: string[] = [];
    const count: Adapter = {
      type: "count",
      effectful: false,
      open: async (_c, ctx) => (opened.push(ctx.adapter_id), { execute: async () => ({ outcome: "success", output: {}, reason: "ok" }), close: async () => {} }),
    };
    const sess = join(work, "sessions");
    mkdirSync(join(sess, "item"), { recursive: true });
    writeFileSync(join(sess, "main.hcl"), `workflow {\n  name = "p"\n  initial_state = "each"\n  target_state = "done"\n}\nadapter "count" "reviewer" {}\nsubworkflow "item" {\n  source = "./item"\n  adapters = [adapter.count.reviewer]\n}\nstep "each" {\n  target = subworkflow.item\n  for_each = ["a", "b", "c"]\n  outcome "all_succeeded" { next = state.done }\n  outcome "any_failed" { next = state.done }\n}\nstate "done" { terminal = true }\n`);
    writeFileSync(join(sess, "item", "main.hcl"), `workflow {\n  name = "item"\n  initial_state = "review"\n  target_state = "done"\n  expects {\n    adapters = [adapter.count.reviewer]\n  }\n}\nstep "review" {\n  target = adapter.count.reviewer\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n`);
    const sg = await graphOf(join(sess, "main.hcl"), sess);
    const sj = new SqliteJournal(join(sess, "state"));
    await new Runner({ journal: sj, adapterFor: (t) => (t === "count" ? count : adapterFor(t)), baseDir: sess }).start(sg, {}, "s");
    sj.close();
    const sessions = opened.filter((id) => id === "adapter.count.reviewer").length;

    const report: CompositionReport = {
      compile_ms: compileMs,
      compile_linearity: { hcl: compileMs["hcl 200"] / compileMs["hcl 100"], yaml: compileMs["yaml 200"] / compileMs["yaml 100"] },
      apply_ms_by_depth: applyMs,
      per_level_ms: perLevel,
      per_level_overhead_ms: perLevel - noopStep,
      noop_step_ms: noopStep,
      passed_adapter_sessions: sessions,
      verdicts: {
        compile_hcl: verdict(compileMs["hcl 100"], 150, true),
        compile_yaml: verdict(compileMs["yaml 100"], 150, true),
        linear: verdict(Math.max(compileMs["hcl 200"] / compileMs["hcl 100"], compileMs["yaml 200"] / compileMs["yaml 100"]), 2.5),
        level: verdict(perLevel - noopStep, 2, true),
        sessions: sessions === 1 ? "PASS" : "MISS",
      },
    };
    printTable(
      "Composition (docs/language.md, Composition)",
      ["figure", "value", "goal", ""],
      [
        ...(["hcl", "yaml"] as const).flatMap((dl) =>
          sizes.map((n) => [`compile a ${dl.toUpperCase()} tree of ${n} modules (20 steps each), ms`, compileMs[`${dl} ${n}`].toFixed(1), n === 100 ? "< 150" : "", n === 100 ? report.verdicts[`compile_${dl}`] : ""]),
        ),
        ["compile time, 200 / 100 modules (HCL, YAML)", `${fmtRatio(report.compile_linearity.hcl)}, ${fmtRatio(report.compile_linearity.yaml)}`, "~2 (linear)", report.verdicts.linear],
        ...depths.map((d) => [`apply, ${d} levels deep (noop steps, durable journal), ms`, applyMs[d].toFixed(2), "", ""]),
        ["one nesting level adds, ms (slope)", perLevel.toFixed(2), "", ""],
        ["one noop step in a flat chain, ms", noopStep.toFixed(2), "", ""],
        ["overhead per nesting level beyond its noop step, ms", report.per_level_overhead_ms.toFixed(2), "< 2", report.verdicts.level],
        ["sessions of the passed adapter (3 child runs)", String(sessions), "1", report.verdicts.sessions],
      ],
    );
    return report;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
