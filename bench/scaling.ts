/**
 * Benchmark 3, scaling: generated chains of 100, 500, 1,000 and 5,000 shell steps
 * (outcomes, three states, expressions over var/local/steps, bounded retry loops),
 * per dialect. Each run is a fresh child process that first warms the parser and
 * schema on the small example (so start-up is not counted), then times one
 * `compile()` of the big file and reads the peak RSS (`process.resourceUsage().maxRSS`);
 * a second compile in the same process shows the JIT-warm time.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BenchPaths } from "./cold-start.js";
import { chain, type Dialect } from "./generate.js";
import { fmtRatio, printTable, progress, verdict, type Verdict } from "./report.js";
import { median, round } from "./stats.js";

/** The issue's scaling goals for the largest workflow, and for growth. */
export const SCALING_GOALS = { steps: 5000, maxMs: 1500, maxRssMB: 300, ratioOf: 500, maxRatio: 12 } as const;

/** One size of one dialect. */
export interface ScalingRow {
  dialect: Dialect;
  /** V8 flags of the child processes (empty: default). */
  flags: string[];
  runs: number;
  steps: number;
  lines: number;
  kb: number;
  /** Median ms of the first compile() of the big file (parser already started). */
  compileMs: number;
  /** Median ms of a second compile() of the same file in the same process. */
  secondMs: number;
  /** Median wall ms of the whole child process (boot, warm-up, two compiles). */
  processMs: number;
  peakRssMB: number;
  ok: boolean;
  error?: string;
}

/** Everything the scaling benchmark measured. */
export interface ScalingReport {
  runs: number;
  rows: ScalingRow[];
  goals: Record<string, { value: number; goal: string; verdict: Verdict }>;
}

interface CompileChildOut {
  warmMs: number;
  first: { ms: number; ok: boolean; errors: number; firstError?: string };
  second: { ms: number };
  peakRssMB: number;
}

/**
 * Runs the scaling benchmark: `runs` fresh processes per size and dialect (medians),
 * then, for HCL, each of `hclFlagSets` at `flagSizes` only (`flagRuns` processes each).
 */
export async function scaling(
  paths: BenchPaths,
  opts: { sizes: number[]; runs: number; dialects: Dialect[]; hclFlagSets?: string[][]; flagSizes?: number[]; flagRuns?: number },
): Promise<ScalingReport> {
  const dir = mkdtempSync(join(tmpdir(), "criteria-bench-scaling-"));
  const rows: ScalingRow[] = [];
  const warmFor: Record<Dialect, string> = { hcl: "examples/agent_in_body", yaml: "bench/fixtures/agent_in_body.yaml" };
  const plan: { dialect: Dialect; flags: string[]; sizes: number[]; runs: number }[] = opts.dialects.map((dialect) => ({ dialect, flags: [], sizes: opts.sizes, runs: opts.runs }));
  if (opts.dialects.includes("hcl")) {
    for (const flags of opts.hclFlagSets ?? []) plan.push({ dialect: "hcl", flags, sizes: opts.flagSizes ?? opts.sizes, runs: opts.flagRuns ?? opts.runs });
  }
  try {
    for (const { dialect, flags, sizes, runs } of plan) {
      for (const steps of sizes) {
        const text = chain(dialect, steps);
        const file = join(dir, `chain-${steps}.${dialect}`);
        writeFileSync(file, text);
        progress(`scaling ${dialect} ${flags.join(" ") || "(default flags)"} ${steps} steps: ${runs} runs`);
        const outs: CompileChildOut[] = [];
        const walls: number[] = [];
        for (let r = 0; r < runs; r++) {
          const t = process.hrtime.bigint();
          const c = spawnSync(process.execPath, [...flags, paths.child, "compile", file, warmFor[dialect]], { cwd: paths.root, encoding: "utf8" });
          walls.push(Number(process.hrtime.bigint() - t) / 1e6);
          if (c.status !== 0) throw new Error(`scaling child failed: ${c.stderr}`);
          outs.push(JSON.parse(c.stdout) as CompileChildOut);
        }
        const med = (f: (o: CompileChildOut) => number) => round(median(outs.map(f)));
        rows.push({
          dialect,
          flags,
          runs,
          steps,
          lines: text.split("\n").length,
          kb: round(Buffer.byteLength(text) / 1024),
          compileMs: med((o) => o.first.ms),
          secondMs: med((o) => o.second.ms),
          processMs: round(median(walls)),
          peakRssMB: med((o) => o.peakRssMB),
          ok: outs[0].first.ok,
          error: outs[0].first.firstError,
        });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const goals: ScalingReport["goals"] = {};
  const notes: string[] = [];
  for (const { dialect, flags } of plan) {
    const name = `${dialect}${flags.length ? ` ${flags.join(" ")}` : ""}`;
    const at = (n: number) => rows.find((r) => r.dialect === dialect && r.flags === flags && r.steps === n);
    const big = at(SCALING_GOALS.steps);
    const mid = at(SCALING_GOALS.ratioOf);
    if (big && mid) {
      // Growth is judged on the 2nd compile (JIT-warm): the 1st compile of the smaller file
      // carries one-off JIT and wasm tier-up costs that would flatter the ratio.
      const ratio = round(big.secondMs / mid.secondMs, 2);
      const firstRatio = round(big.compileMs / mid.compileMs, 2);
      goals[`${name}: ratio ${SCALING_GOALS.steps} vs ${SCALING_GOALS.ratioOf} steps (2nd compile)`] = { value: ratio, goal: `<= ${SCALING_GOALS.maxRatio}x`, verdict: verdict(ratio, SCALING_GOALS.maxRatio) };
      notes.push(
        `${name}: ${SCALING_GOALS.steps} vs ${SCALING_GOALS.ratioOf} steps time ratio ${fmtRatio(ratio)} on the 2nd compile (goal <= ${SCALING_GOALS.maxRatio}x, linear = 10x): ` +
          `${verdict(ratio, SCALING_GOALS.maxRatio)}; on the 1st compile ${fmtRatio(firstRatio)}`,
      );
    }
    if (big) {
      const okTime = big.ok ? big.compileMs : NaN;
      const ms = (goals[`${name}: ${SCALING_GOALS.steps} steps compile ms`] = { value: big.compileMs, goal: `< ${SCALING_GOALS.maxMs} ms`, verdict: big.ok ? verdict(okTime, SCALING_GOALS.maxMs, true) : "MISS" });
      const rss = (goals[`${name}: ${SCALING_GOALS.steps} steps peak RSS MB`] = { value: big.peakRssMB, goal: `< ${SCALING_GOALS.maxRssMB} MB`, verdict: verdict(big.peakRssMB, SCALING_GOALS.maxRssMB, true) });
      notes.push(
        `${name}: ${SCALING_GOALS.steps} steps in ${big.compileMs} ms (goal < ${SCALING_GOALS.maxMs} ms): ${ms.verdict}; peak RSS ${big.peakRssMB} MB (goal < ${SCALING_GOALS.maxRssMB} MB): ${rss.verdict}` +
          (big.ok ? "" : `; the compile FAILED (${big.error}), so the time is to the failure`),
      );
    }
  }
  printTable(
    `Scaling: generated step chains (median of n fresh processes each)`,
    ["dialect", "flags", "n", "steps", "lines", "KB", "compile ms", "2nd compile ms", "process ms", "peak RSS MB", "result"],
    rows.map((r) => [r.dialect, r.flags.join(" ") || "default", String(r.runs), String(r.steps), String(r.lines), r.kb, r.compileMs, r.secondMs, r.processMs, r.peakRssMB, r.ok ? "ok" : `ERROR ${r.error ?? ""}`.slice(0, 70)]),
    [
      "compile ms = first compile() of the big file after the parser and schema were warmed on the small example; peak RSS = maxRSS of that process after it.",
      "process ms = the child's whole wall time (node boot, imports, warm-up, two compiles).",
      ...notes,
    ],
  );
  return { runs: opts.runs, rows, goals };
}
