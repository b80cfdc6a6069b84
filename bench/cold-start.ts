/**
 * Benchmark 1, cold start: wall time of `node bin/criteria validate <small example>`
 * (HCL and YAML) as a ratio to a bare `node -e ''`, same machine, same run, interleaved
 * (every round runs every variant once, in order) after warm-up rounds. Two variants
 * show what the shipped start-up is made of: the bundle without its V8 code cache
 * (bin/load-bundle.cjs) and the unbundled ES modules (`dist/cli.js`). Then, inside
 * one process: where the time goes (phases).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeLauncher } from "./launchers.js";
import { fmtRatio, printTable, progress, verdict, type Verdict } from "./report.js";
import { median, round, summarize, type Summary } from "./stats.js";

/** The cold-start goal (HCL parser issue): at most this many times a bare `node -e ''`. */
export const COLD_GOAL_RATIO = 1.5;

/** Paths the benchmarks share. */
export interface BenchPaths {
  /** The package root (holds package.json, bin/, dist/). */
  root: string;
  /** bench/out/ (gitignored): JSON results and generated launchers. */
  out: string;
  /** dist/bench/child.js */
  child: string;
}

/** One command the cold-start benchmark times. */
export interface ColdVariant {
  id: string;
  label: string;
  /** Executable and arguments (run with cwd = package root). */
  argv: string[];
  /** Compare to the goal (the shipped HCL/YAML runs); false for the baseline and the probes. */
  goal: boolean;
}

/** Timings of one variant. */
export interface ColdResult {
  id: string;
  label: string;
  command: string;
  wall?: Summary;
  cpu?: Summary;
  /** Median wall / median wall of `node -e ''`. */
  ratio?: number;
  verdict: Verdict;
  skipped?: string;
}

/** Everything the cold-start benchmark measured (written to latest.json). */
export interface ColdStartReport {
  runs: number;
  warmups: number;
  results: ColdResult[];
  phases: Record<string, number>;
}

const TIME = "/usr/bin/time";

/** Runs a command once; wall ms measured here, CPU ms (user+sys) by /usr/bin/time when present. */
function runOnce(argv: string[], cwd: string, timeFile?: string): { wall: number; cpu?: number; status: number | null; stdout: string; stderr: string } {
  const full = timeFile ? [TIME, "-o", timeFile, "-f", "%U %S", ...argv] : argv;
  const t = process.hrtime.bigint();
  const r = spawnSync(full[0], full.slice(1), { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  const wall = Number(process.hrtime.bigint() - t) / 1e6;
  let cpu: number | undefined;
  if (timeFile) {
    const m = /([\d.]+) ([\d.]+)\s*$/.exec(readFileSync(timeFile, "utf8"));
    if (m) cpu = (Number(m[1]) + Number(m[2])) * 1000;
  }
  return { wall, cpu, status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
}

/** The variants, in the order each round runs them (launchers are written into bench/out/). */
export function coldVariants(paths: BenchPaths, hcl: string, yaml: string): ColdVariant[] {
  const node = process.execPath;
  const noCache = writeLauncher(paths.out, "criteria-no-code-cache", { codeCache: false });
  return [
    { id: "bare", label: "node -e ''", argv: [node, "-e", ""], goal: false },
    { id: "hcl", label: "HCL (bin/criteria as shipped)", argv: [node, "bin/criteria", "validate", hcl], goal: true },
    { id: "yaml", label: "YAML (bin/criteria as shipped)", argv: [node, "bin/criteria", "validate", yaml], goal: true },
    { id: "hcl-no-cache", label: "HCL, the bundle without its code cache", argv: [node, noCache, "validate", hcl], goal: false },
    { id: "hcl-unbundled", label: "HCL, unbundled ES modules (node dist/cli.js)", argv: [node, "-e", `import("./dist/cli.js").then((m) => m.main(["validate", ${JSON.stringify(hcl)}])).then((c) => { process.exitCode = c; })`], goal: false },
  ];
}

/**
 * Runs the cold-start benchmark: `warmups` unrecorded rounds, then `runs` rounds, each
 * running every variant once; prints the table and the in-process phases.
 */
export async function coldStart(paths: BenchPaths, opts: { runs: number; warmups: number; phaseRuns: number }): Promise<ColdStartReport> {
  const hcl = "examples/agent_in_body";
  const yaml = "bench/fixtures/agent_in_body.yaml";
  const timeFile = existsSync(TIME) ? join(tmpdir(), `criteria-bench-time-${process.pid}`) : undefined;
  const variants = coldVariants(paths, hcl, yaml);
  const results = new Map<string, ColdResult & { walls: number[]; cpus: number[] }>();
  const active: ColdVariant[] = [];
  for (const v of variants) {
    const r = { id: v.id, label: v.label, command: v.argv.map((a) => (a === process.execPath ? "node" : a)).join(" "), walls: [] as number[], cpus: [] as number[], verdict: "n/a" as Verdict, skipped: undefined as string | undefined };
    results.set(v.id, r);
    // Check once that the variant works (exit 0, "ok"), so no timing measures a failure.
    const probe = runOnce(v.argv, paths.root);
    if (probe.status !== 0 || (v.id !== "bare" && !/: ok/.test(probe.stdout))) {
      r.skipped = `failed (exit ${probe.status}): ${(probe.stderr || probe.stdout).trim().split("\n")[0]}`;
      continue;
    }
    active.push(v);
  }
  progress(`cold start: ${active.length} variants x (${opts.warmups} warm-up + ${opts.runs}) rounds`);
  for (let round = 0; round < opts.warmups + opts.runs; round++) {
    for (const v of active) {
      const m = runOnce(v.argv, paths.root, timeFile);
      if (round < opts.warmups) continue;
      const r = results.get(v.id)!;
      r.walls.push(m.wall);
      if (m.cpu !== undefined) r.cpus.push(m.cpu);
    }
  }
  if (timeFile) rmSync(timeFile, { force: true });
  const bare = median(results.get("bare")!.walls);
  const out: ColdResult[] = [];
  for (const r of results.values()) {
    const res: ColdResult = { id: r.id, label: r.label, command: r.command, verdict: "n/a", skipped: r.skipped };
    if (r.walls.length) {
      res.wall = summarize(r.walls);
      if (r.cpus.length) res.cpu = summarize(r.cpus);
      res.ratio = round(median(r.walls) / bare, 2);
      res.verdict = variants.find((x) => x.id === r.id)!.goal ? verdict(res.ratio, COLD_GOAL_RATIO) : "n/a";
    }
    out.push(res);
  }
  printTable(
    `Cold start (${opts.runs} interleaved runs after ${opts.warmups} warm-up rounds; goal: <= ${COLD_GOAL_RATIO}x node -e '')`,
    ["variant", "n", "median ms", "p90 ms", "cpu ms", "ratio", "goal"],
    out.map((r) =>
      r.wall
        ? [r.label, String(r.wall.n), r.wall.median, r.wall.p90, r.cpu?.median ?? NaN, fmtRatio(r.ratio!), r.id === "bare" ? "(baseline)" : r.verdict]
        : [r.label, "0", NaN, NaN, NaN, "-", `skipped: ${r.skipped}`],
    ),
    [`HCL = ${hcl}, YAML = ${yaml}; ratio = median / median of node -e ''; cpu = user+sys of the whole process (all threads), median.`],
  );
  const phases = phaseBreakdown(paths, hcl, yaml, opts.phaseRuns);
  return { runs: opts.runs, warmups: opts.warmups, results: out, phases };
}

/** Where a cold run's time goes, inside one process (medians of `n` fresh processes). */
function phaseBreakdown(paths: BenchPaths, hcl: string, yaml: string, n: number): Record<string, number> {
  progress(`phases: ${n} runs`);
  const samples: Record<string, number[]> = {};
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    const r = spawnSync(process.execPath, [paths.child, "phases", hcl, yaml], { cwd: paths.root, encoding: "utf8" });
    const wall = Number(process.hrtime.bigint() - t) / 1e6;
    if (r.status !== 0) throw new Error(`bench child phases failed: ${r.stderr}`);
    const o = JSON.parse(r.stdout.trim().split("\n").pop()!) as Record<string, number>;
    o.wall = wall;
    o.exitWait = wall - o.total;
    for (const [k, v] of Object.entries(o)) (samples[k] ??= []).push(v);
  }
  const res: Record<string, number> = {};
  for (const [k, v] of Object.entries(samples)) res[k] = round(median(v));
  const rows: [string, string][] = [
    ["node boot (process start -> first line of script)", "boot"],
    ["load the bundle with its code cache (bin/load-bundle.cjs)", "loadBundle"],
    ["  of which: read the bundle and the cache", "readFiles"],
    ["first validate of the HCL example (silent)", "firstHcl"],
    ["first validate of the YAML example (silent; the schema validator loads)", "firstYaml"],
    ["second validate of the HCL example", "secondHcl"],
    ["script end -> process exit seen by the parent", "exitWait"],
    ["process wall (parent)", "wall"],
  ];
  printTable(`Cold start, in one process (median of ${n} runs, ms)`, ["phase", "ms"], rows.map(([label, key]) => [label, res[key] ?? NaN]), [
    `"script end -> exit" includes the spawn and teardown that any process pays (compare node -e '' above).`,
  ]);
  return res;
}

/** Makes bench/out/ (and returns the shared paths) for a package root. */
export function benchPaths(root: string): BenchPaths {
  const out = join(root, "bench", "out");
  mkdirSync(out, { recursive: true });
  return { root, out, child: join(root, "dist", "bench", "child.js") };
}
