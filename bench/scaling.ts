/**
 * Benchmark 3, scaling: generated chains of 100, 500, 1,000 and 5,000 shell steps
 * (outcomes, three states, expressions over var/local/steps, bounded retry loops),
 * per dialect. Each run is a fresh child process that first warms the compiler on the
 * small example (so start-up is not counted), then times one `compile()` of the big
 * file and reads the peak RSS (`process.resourceUsage().maxRSS`); a second compile in
 * the same process shows the JIT-warm time. Then the HCL parser's throughput alone on
 * 1 and 3 MB files, and a whole `criteria validate` of the HCL parser issue's 3 MiB,
 * 6,334-step file (wall and peak RSS of the process).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BenchPaths } from "./cold-start.js";
import { bigNoteFile, chain, type Dialect } from "./generate.js";
import { fmtRatio, printTable, progress, verdict, type Verdict } from "./report.js";
import { median, round } from "./stats.js";

/** The HCL parser issue's goals: the 5,000-step chain, growth, throughput, the 3 MiB file. */
export const SCALING_GOALS = {
  steps: 5000,
  maxMs: 600,
  maxRssMB: 150,
  ratioOf: 500,
  maxRatio: 11,
  minMbPerS: 10,
  bigFileBytes: 3 * 1024 * 1024,
  bigFileMaxMs: 1500,
  bigFileMaxRssMB: 250,
} as const;

/** One size of one dialect. */
export interface ScalingRow {
  dialect: Dialect;
  runs: number;
  steps: number;
  lines: number;
  kb: number;
  /** Median ms of the first compile() of the big file (compiler already warm). */
  compileMs: number;
  /** Median ms of a second compile() of the same file in the same process. */
  secondMs: number;
  /** Median wall ms of the whole child process (boot, warm-up, two compiles). */
  processMs: number;
  peakRssMB: number;
  ok: boolean;
  error?: string;
}

/** The HCL parser alone on one file. */
export interface ParseRow {
  mb: number;
  steps: number;
  /** Median ms per parse (after one warm-up parse) and the throughput it gives. */
  ms: number;
  mbPerS: number;
  /** The first (cold-JIT) parse. */
  firstMs: number;
  /** The scanner alone. */
  scanMbPerS: number;
}

/** Everything the scaling benchmark measured. */
export interface ScalingReport {
  runs: number;
  rows: ScalingRow[];
  parse: ParseRow[];
  bigFile?: { steps: number; mb: number; wallMs: number; peakRssMB?: number; ok: boolean };
  goals: Record<string, { value: number; goal: string; verdict: Verdict }>;
}

interface CompileChildOut {
  warmMs: number;
  first: { ms: number; ok: boolean; errors: number; firstError?: string };
  second: { ms: number };
  peakRssMB: number;
}

/** Runs the scaling benchmark: `runs` fresh processes per size and dialect (medians), then the parser and the big file. */
export async function scaling(paths: BenchPaths, opts: { sizes: number[]; runs: number; dialects: Dialect[] }): Promise<ScalingReport> {
  const dir = mkdtempSync(join(tmpdir(), "criteria-bench-scaling-"));
  const rows: ScalingRow[] = [];
  const parse: ParseRow[] = [];
  let bigFile: ScalingReport["bigFile"];
  const warmFor: Record<Dialect, string> = { hcl: "examples/agent_in_body", yaml: "bench/fixtures/agent_in_body.yaml" };
  try {
    for (const dialect of opts.dialects) {
      for (const steps of opts.sizes) {
        const text = chain(dialect, steps);
        const file = join(dir, `chain-${steps}.${dialect}`);
        writeFileSync(file, text);
        progress(`scaling ${dialect} ${steps} steps: ${opts.runs} runs`);
        const outs: CompileChildOut[] = [];
        const walls: number[] = [];
        for (let r = 0; r < opts.runs; r++) {
          const t = process.hrtime.bigint();
          const c = spawnSync(process.execPath, [paths.child, "compile", file, warmFor[dialect]], { cwd: paths.root, encoding: "utf8" });
          walls.push(Number(process.hrtime.bigint() - t) / 1e6);
          if (c.status !== 0) throw new Error(`scaling child failed: ${c.stderr}`);
          outs.push(JSON.parse(c.stdout) as CompileChildOut);
        }
        const med = (f: (o: CompileChildOut) => number) => round(median(outs.map(f)));
        rows.push({
          dialect,
          runs: opts.runs,
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
    // The parser alone: chains of ~1 MB and ~3 MB.
    for (const steps of [4000, 12500]) {
      const file = join(dir, `parse-${steps}.hcl`);
      writeFileSync(file, chain("hcl", steps));
      progress(`parse throughput: ${steps} steps`);
      const c = spawnSync(process.execPath, [paths.child, "parse", file, String(opts.runs * 3)], { cwd: paths.root, encoding: "utf8" });
      if (c.status !== 0) throw new Error(`parse child failed: ${c.stderr}`);
      const o = JSON.parse(c.stdout) as Record<string, number>;
      parse.push({ mb: round(o.mb, 2), steps, ms: round(o.ms), mbPerS: round(o.mbPerS, 2), firstMs: round(o.firstMs), scanMbPerS: round(o.scanMbPerS, 1) });
    }
    // The file: 3 MiB of noop steps with long inputs, through the CLI as shipped.
    const big = bigNoteFile(SCALING_GOALS.bigFileBytes);
    const bigPath = join(dir, "big.hcl");
    writeFileSync(bigPath, big.text);
    progress(`validate the ${big.steps}-step file: ${opts.runs} runs`);
    const walls: number[] = [];
    const rss: number[] = [];
    let ok = true;
    const timeFile = join(dir, "time");
    for (let r = 0; r < opts.runs; r++) {
      const argv = [process.execPath, "bin/criteria", "validate", bigPath];
      const withTime = existsSync("/usr/bin/time") ? ["/usr/bin/time", "-o", timeFile, "-f", "%M", ...argv] : argv;
      const t = process.hrtime.bigint();
      const c = spawnSync(withTime[0], withTime.slice(1), { cwd: paths.root, encoding: "utf8" });
      walls.push(Number(process.hrtime.bigint() - t) / 1e6);
      ok &&= c.status === 0;
      if (withTime !== argv) rss.push(Number(readFileSync(timeFile, "utf8").trim().split("\n").pop()) / 1024);
    }
    bigFile = { steps: big.steps, mb: round(Buffer.byteLength(big.text) / 1e6, 2), wallMs: round(median(walls)), peakRssMB: rss.length ? round(median(rss)) : undefined, ok };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const goals: ScalingReport["goals"] = {};
  const notes: string[] = [];
  for (const dialect of opts.dialects) {
    const at = (n: number) => rows.find((r) => r.dialect === dialect && r.steps === n);
    const big = at(SCALING_GOALS.steps);
    const mid = at(SCALING_GOALS.ratioOf);
    if (big && mid) {
      // Growth is judged on the 2nd compile (JIT-warm): the 1st compile of the smaller file
      // carries one-off JIT costs that would flatter the ratio.
      const ratio = round(big.secondMs / mid.secondMs, 2);
      goals[`${dialect}: ratio ${SCALING_GOALS.steps} vs ${SCALING_GOALS.ratioOf} steps (2nd compile)`] = { value: ratio, goal: `<= ${SCALING_GOALS.maxRatio}x`, verdict: verdict(ratio, SCALING_GOALS.maxRatio) };
      notes.push(`${dialect}: ${SCALING_GOALS.steps} vs ${SCALING_GOALS.ratioOf} steps ${fmtRatio(ratio)} on the 2nd compile, ${fmtRatio(round(big.compileMs / mid.compileMs, 2))} on the 1st (linear = 10x)`);
    }
    if (big) {
      goals[`${dialect}: ${SCALING_GOALS.steps} steps compile ms`] = { value: big.compileMs, goal: `< ${SCALING_GOALS.maxMs} ms`, verdict: big.ok ? verdict(big.compileMs, SCALING_GOALS.maxMs, true) : "MISS" };
      goals[`${dialect}: ${SCALING_GOALS.steps} steps peak RSS MB`] = { value: big.peakRssMB, goal: `< ${SCALING_GOALS.maxRssMB} MB`, verdict: verdict(big.peakRssMB, SCALING_GOALS.maxRssMB, true) };
      if (!big.ok) notes.push(`${dialect}: the ${SCALING_GOALS.steps}-step compile FAILED (${big.error}), so its time is to the failure`);
    }
  }
  for (const p of parse) goals[`HCL parse throughput, ${p.mb} MB file`] = { value: p.mbPerS, goal: `>= ${SCALING_GOALS.minMbPerS} MB/s`, verdict: p.mbPerS >= SCALING_GOALS.minMbPerS ? "PASS" : "MISS" };
  if (bigFile) {
    goals[`validate the ${bigFile.steps}-step ${bigFile.mb} MB file, wall ms`] = { value: bigFile.wallMs, goal: `< ${SCALING_GOALS.bigFileMaxMs} ms`, verdict: bigFile.ok ? verdict(bigFile.wallMs, SCALING_GOALS.bigFileMaxMs, true) : "MISS" };
    if (bigFile.peakRssMB !== undefined) goals[`validate the ${bigFile.steps}-step file, peak RSS MB`] = { value: bigFile.peakRssMB, goal: `< ${SCALING_GOALS.bigFileMaxRssMB} MB`, verdict: verdict(bigFile.peakRssMB, SCALING_GOALS.bigFileMaxRssMB, true) };
  }
  printTable(
    `Scaling: generated step chains (median of n fresh processes each)`,
    ["dialect", "n", "steps", "lines", "KB", "compile ms", "2nd compile ms", "process ms", "peak RSS MB", "result"],
    rows.map((r) => [r.dialect, String(r.runs), String(r.steps), String(r.lines), r.kb, r.compileMs, r.secondMs, r.processMs, r.peakRssMB, r.ok ? "ok" : `ERROR ${r.error ?? ""}`.slice(0, 70)]),
    [
      "compile ms = first compile() of the big file after the compiler was warmed on the small example; peak RSS = maxRSS of that process after it.",
      "process ms = the child's whole wall time (node boot, imports, warm-up, two compiles).",
      ...notes,
    ],
  );
  printTable(
    `The HCL parser alone (compiler/parse/hcl: tokens, CST, canonical value and source map; median of ${opts.runs * 3} parses)`,
    ["file MB", "steps", "ms/parse", "MB/s", "1st parse ms", "scanner MB/s", "goal"],
    parse.map((p) => [p.mb, String(p.steps), p.ms, p.mbPerS, p.firstMs, p.scanMbPerS, goals[`HCL parse throughput, ${p.mb} MB file`].verdict]),
  );
  if (bigFile) {
    printTable(`criteria validate of the 3 MiB file (median of ${opts.runs} processes)`, ["steps", "MB", "wall ms", "peak RSS MB", "result"], [
      [String(bigFile.steps), bigFile.mb, bigFile.wallMs, bigFile.peakRssMB ?? NaN, bigFile.ok ? "ok" : "ERROR"],
    ]);
  }
  return { runs: opts.runs, rows, parse, bigFile, goals };
}
