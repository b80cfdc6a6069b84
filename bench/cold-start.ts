/**
 * Benchmark 1, cold start: wall time of `node bin/criteria validate <small example>`
 * (HCL and YAML) as a ratio to a bare `node -e ''`, same machine, same run, interleaved
 * (every round runs every variant once, in order) after warm-up rounds. The HCL run is
 * also measured with V8 flags that change how WebAssembly is compiled, and with the two
 * ways bin/criteria could set them (a `#!/usr/bin/env -S node --flag` shebang, or
 * `v8.setFlagsFromString` before hcl2json loads). Then, inside one process: where the
 * time goes (phases), hcl2json's start-up in pieces, and two measured proposals (a
 * direct wasm loader, a precompiled schema validator).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { gunzipSync } from "node:zlib";
import { writeLauncher } from "./launchers.js";
import { fmtRatio, printTable, progress, verdict, type Verdict } from "./report.js";
import { median, round, summarize, type Summary } from "./stats.js";

/** The cold-start goal: at most this many times a bare `node -e ''`. */
export const COLD_GOAL_RATIO = 2.5;

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
  /** V8 flags this variant depends on; it is skipped when this node lacks one. */
  needs?: string[];
  /** Compare to the goal (HCL/YAML runs); false for the baseline. */
  goal: boolean;
  /** A flag survey variant: runs in the first third of the rounds only. */
  survey?: boolean;
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
  phases: Record<string, Record<string, number>>;
  wasmParts: Record<string, Record<string, number>>;
  proposals: Record<string, unknown>;
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

/** The V8 flags this node knows (from `node --v8-options`), without the `--` and `no-`. */
function knownV8Flags(): Set<string> {
  const r = spawnSync(process.execPath, ["--v8-options"], { encoding: "utf8" });
  const out = new Set<string>();
  for (const m of (r.stdout ?? "").matchAll(/^\s+--([\w-]+)/gm)) out.add(m[1].replace(/_/g, "-"));
  return out;
}

function flagName(f: string): string {
  return f.replace(/^--/, "").replace(/=.*$/, "").replace(/^no-/, "");
}

/**
 * A larger budget for V8's dynamic wasm tier-up (TurboFan): 10x V8 11.3's default of
 * 1,800,000. Small runs stay on Liftoff (no background TurboFan work to wait for at
 * exit), while big files still get optimized code.
 */
export const TIERING_BUDGET_FLAG = "--wasm-tiering-budget=18000000";

/**
 * The variants, in the order each round runs them. `survey` variants (flags that the
 * figures show are no help) run in the first third of the rounds only, to keep the
 * benchmark short; they are still interleaved with the baseline. Writes the launchers
 * it needs into bench/out/ (bench/launchers.ts).
 */
export function coldVariants(paths: BenchPaths, hcl: string, yaml: string): ColdVariant[] {
  const node = process.execPath;
  const bin = "bin/criteria";
  const hclRun = (flags: string[], survey = false): ColdVariant => ({
    id: `hcl${flags.join("")}`,
    label: `HCL, node ${flags.join(" ")}`,
    argv: [node, ...flags, bin, "validate", hcl],
    needs: flags,
    goal: true,
    survey,
  });
  const shebang = writeLauncher(paths.out, "criteria-shebang-liftoff", { shebangFlags: "--liftoff-only" });
  const setLiftoff = writeLauncher(paths.out, "criteria-setflags-liftoff", { setFlags: "--liftoff-only" });
  const setBudget = writeLauncher(paths.out, "criteria-setflags-budget", { setFlags: TIERING_BUDGET_FLAG });
  return [
    { id: "bare", label: "node -e ''", argv: [node, "-e", ""], goal: false },
    { id: "hcl", label: "HCL (bin/criteria as shipped)", argv: [node, bin, "validate", hcl], goal: true },
    { id: "yaml", label: "YAML (bin/criteria as shipped)", argv: [node, bin, "validate", yaml], goal: true },
    hclRun(["--liftoff-only"]),
    hclRun([TIERING_BUDGET_FLAG]),
    { id: "hcl-shebang-liftoff", label: "HCL, #!/usr/bin/env -S node --liftoff-only", argv: [shebang, "validate", hcl], needs: ["--liftoff-only"], goal: true },
    { id: "hcl-setflags-liftoff", label: "HCL, v8.setFlagsFromString('--liftoff-only')", argv: [node, setLiftoff, "validate", hcl], needs: ["--liftoff-only"], goal: true },
    { id: "hcl-setflags-budget", label: `HCL, v8.setFlagsFromString('${TIERING_BUDGET_FLAG}')`, argv: [node, setBudget, "validate", hcl], needs: [TIERING_BUDGET_FLAG], goal: true },
    hclRun(["--no-wasm-tier-up"], true),
    hclRun(["--no-wasm-dynamic-tiering"], true),
    hclRun(["--single-threaded"], true),
    hclRun(["--liftoff-only", "--single-threaded"], true),
    hclRun(["--no-wasm-lazy-compilation"], true),
    hclRun(["--max-lazy"], true),
    hclRun(["--wasm-tiering-budget=180000000"], true),
  ];
}

/**
 * Runs the cold-start benchmark: `warmups` unrecorded rounds, then `runs` rounds, each
 * running every variant once; prints the table and returns the figures.
 */
export async function coldStart(paths: BenchPaths, opts: { runs: number; warmups: number; phaseRuns: number }): Promise<ColdStartReport> {
  const hcl = "examples/agent_in_body";
  const yaml = "bench/fixtures/agent_in_body.yaml";
  const known = knownV8Flags();
  const timeFile = existsSync(TIME) ? join(tmpdir(), `criteria-bench-time-${process.pid}`) : undefined;
  const variants = coldVariants(paths, hcl, yaml);
  const results = new Map<string, ColdResult & { walls: number[]; cpus: number[] }>();
  const active: ColdVariant[] = [];
  for (const v of variants) {
    const r = { id: v.id, label: v.label, command: v.argv.map((a) => (a === process.execPath ? "node" : a)).join(" ") || "''", walls: [] as number[], cpus: [] as number[], verdict: "n/a" as Verdict, skipped: undefined as string | undefined };
    results.set(v.id, r);
    const missing = (v.needs ?? []).filter((f) => !known.has(flagName(f)));
    if (missing.length) {
      r.skipped = `this node has no ${missing.join(" ")}`;
      continue;
    }
    // Check once that the variant works (exit 0, "ok"), so no timing measures a failure.
    const probe = runOnce(v.argv, paths.root);
    if (probe.status !== 0 || (v.id !== "bare" && !/: ok/.test(probe.stdout))) {
      r.skipped = `failed (exit ${probe.status}): ${(probe.stderr || probe.stdout).trim().split("\n")[0]}`;
      continue;
    }
    active.push(v);
  }
  const surveyRuns = Math.ceil(opts.runs / 3);
  progress(`cold start: ${active.length} variants x (${opts.warmups} warm-up + ${opts.runs}) rounds (flag survey: ${surveyRuns})`);
  for (let round = 0; round < opts.warmups + opts.runs; round++) {
    for (const v of active) {
      // Survey variants skip the warm-up rounds (the baseline is warm by then) and stop early.
      if (v.survey && (round < opts.warmups || round >= opts.warmups + surveyRuns)) continue;
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
      const v = variants.find((x) => x.id === r.id)!;
      res.verdict = v.goal ? verdict(res.ratio, COLD_GOAL_RATIO) : "n/a";
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
    [
      `HCL = ${hcl}, YAML = ${yaml}; ratio = median / median of node -e ''; cpu = user+sys of the whole process (all threads), median.`,
      `flag-survey rows (n = ${surveyRuns}) ran in the first ${surveyRuns} measured rounds only, without warm-up; launchers are in bench/out/ (bench/launchers.ts).`,
    ],
  );

  const phases = phaseBreakdown(paths, hcl, yaml, opts.phaseRuns, known);
  const wasmParts = wasmPieces(paths, opts.phaseRuns, known);
  const proposals = proposalProbes(paths, hcl, yaml, opts.phaseRuns, known, bare);
  return { runs: opts.runs, warmups: opts.warmups, results: out, phases, wasmParts, proposals };
}

/** Runs a child mode `n` times per flag set (interleaved) and returns the per-key medians. */
function childMedians(paths: BenchPaths, flagSets: Record<string, string[]>, args: string[], n: number): Record<string, Record<string, number>> {
  const samples: Record<string, Record<string, number[]>> = {};
  for (let i = 0; i < n; i++) {
    for (const [name, flags] of Object.entries(flagSets)) {
      const t = process.hrtime.bigint();
      const r = spawnSync(process.execPath, [...flags, paths.child, ...args], { cwd: paths.root, encoding: "utf8" });
      const wall = Number(process.hrtime.bigint() - t) / 1e6;
      if (r.status !== 0) throw new Error(`bench child ${args[0]} failed: ${r.stderr}`);
      const o = JSON.parse(r.stdout.trim().split("\n").pop()!) as Record<string, number>;
      o.wall = wall;
      // From the script's last line to the parent seeing the exit (V8 and Go teardown, spawn overhead).
      if (o.total !== undefined) o.exitWait = wall - o.total;
      const s = (samples[name] ??= {});
      for (const [k, v] of Object.entries(o)) (s[k] ??= []).push(v);
    }
  }
  const out: Record<string, Record<string, number>> = {};
  for (const [name, s] of Object.entries(samples)) {
    out[name] = {};
    for (const [k, v] of Object.entries(s)) out[name][k] = round(median(v));
  }
  return out;
}

function flagSets(known: Set<string>): Record<string, string[]> {
  const sets: Record<string, string[]> = { default: [] };
  if (known.has("liftoff-only")) sets["--liftoff-only"] = ["--liftoff-only"];
  if (known.has(flagName(TIERING_BUDGET_FLAG))) sets["tiering budget x10"] = [TIERING_BUDGET_FLAG];
  return sets;
}

/** Where a cold HCL/YAML run's time goes, inside one process (medians of `n` runs). */
function phaseBreakdown(paths: BenchPaths, hcl: string, yaml: string, n: number, known: Set<string>): Record<string, Record<string, number>> {
  progress(`phases: ${n} runs per flag set`);
  const res = childMedians(paths, flagSets(known), ["phases", hcl, yaml], n);
  const rows: (string | number)[][] = [
    ["node boot (process start -> first line of script)", "boot"],
    ["import dist/cli.js (commander, yaml, compiler; unbundled)", "importCli"],
    ["first YAML compile() (ajv compiles the schema)", "firstYamlCompile"],
    ["warm YAML compile()", "warmYamlCompile"],
    ["require('@cdktn/hcl2json') (fs-extra, starts wasm load)", "requireHcl2json"],
    ["first hcl2json parse (gunzip, wasm compile, Go start)", "firstHclParse"],
    ["second hcl2json parse", "secondHclParse"],
    ["warm HCL compile() of the example", "warmHclCompile"],
    ["process CPU user ms (all threads) at the end", "cpuUser"],
    ["script end -> process exit seen by the parent", "exitWait"],
    ["process wall (parent)", "wall"],
  ].map(([label, key]) => [label as string, ...Object.keys(res).map((s) => res[s][key as string] ?? NaN)]);
  const d = res.default;
  const hclShare = d.requireHcl2json + d.firstHclParse;
  const rest = d.boot + d.importCli + d.firstYamlCompile;
  printTable(`Cold start, in one process (median of ${n} runs; ms since process start for "boot")`, ["phase", ...Object.keys(res)], rows, [
    `default flags: hcl2json module load + first parse = ${hclShare.toFixed(0)} ms vs the rest of a cold run (boot + imports + schema) = ${rest.toFixed(0)} ms`,
    ...Object.keys(res)
      .filter((k) => k !== "default")
      .map((k) => `${k}: hcl2json load + first parse = ${(res[k].requireHcl2json + res[k].firstHclParse).toFixed(0)} ms`),
    `"script end -> exit" includes ~10 ms of spawn/teardown that any process pays; above that it is V8 waiting for background (TurboFan) wasm compile jobs.`,
  ]);
  return res;
}

/** hcl2json's start-up done by hand, piece by piece (medians of `n` runs). */
function wasmPieces(paths: BenchPaths, n: number, known: Set<string>): Record<string, Record<string, number>> {
  progress(`wasm start-up pieces: ${n} runs per flag set`);
  const res = childMedians(paths, flagSets(known), ["wasm-parts"], n);
  const rows = [
    ["require('fs-extra') (hcl2json's only use: one readFile)", "requireFsExtra"],
    ["read + gunzipSync main.wasm.gz", "readGunzip"],
    ["WebAssembly.compile (raw wasm MB in the next row)", "wasmCompile"],
    ["raw wasm size, MB", "wasmMB"],
    ["instantiate + Go runtime start", "instantiateAndGoStart"],
    ["first parse of a one-line file", "firstTinyParse"],
    ["script end -> process exit seen by the parent", "exitWait"],
  ].map(([label, key]) => [label, ...Object.keys(res).map((s) => res[s][key] ?? NaN)]);
  printTable(`hcl2json start-up in pieces (median of ${n} runs, ms)`, ["piece", ...Object.keys(res)], rows);
  return res;
}

/**
 * Measures two proposed changes without making them: (1) loading hcl2json's wasm
 * directly from a pre-gunzipped file (no fs-extra, no gunzip) and (2) a schema
 * validator precompiled with ajv's standalone code instead of `ajv.compile` at run time.
 */
function proposalProbes(paths: BenchPaths, hcl: string, yaml: string, n: number, known: Set<string>, bareMs: number): Record<string, unknown> {
  progress(`proposals: direct wasm loader and precompiled schema, ${n} runs each`);
  const require = createRequire(join(paths.root, "package.json"));
  const raw = join(paths.out, "hcl2json.wasm");
  writeFileSync(raw, gunzipSync(readFileSync(join(dirname(require.resolve("@cdktn/hcl2json/package.json")), "main.wasm.gz"))));
  const flags = known.has("liftoff-only") ? ["--liftoff-only"] : [];
  const loaders = { hcl2json: [] as number[], direct: [] as number[], hcl2jsonParse: [] as number[], directParse: [] as number[] };
  for (let i = 0; i < n; i++) {
    for (const which of ["hcl2json", "direct"] as const) {
      const args = [...flags, paths.child, "first-parse", hcl, ...(which === "direct" ? [raw] : [])];
      const t = process.hrtime.bigint();
      const r = spawnSync(process.execPath, args, { cwd: paths.root, encoding: "utf8" });
      const wall = Number(process.hrtime.bigint() - t) / 1e6;
      if (r.status !== 0) throw new Error(`first-parse ${which} failed: ${r.stderr}`);
      loaders[which].push(wall);
      loaders[which === "direct" ? "directParse" : "hcl2jsonParse"].push((JSON.parse(r.stdout) as { firstParse: number }).firstParse);
    }
  }
  rmSync(raw, { force: true });
  const schema = schemaProbe(paths, yaml, n, require);
  const m = (xs: number[]) => round(median(xs));
  const gain = m(loaders.hcl2json) - m(loaders.direct);
  printTable(`Proposals, measured (median of ${n} runs, ms; ${flags.join(" ") || "default flags"})`, ["probe", "current", "proposed", "saves", "saves x bare"], [
    ["process: start node, parse one HCL file (wall)", m(loaders.hcl2json), m(loaders.direct), round(gain), fmtRatio(gain / bareMs)],
    ["  of which: load hcl2json + first parse", m(loaders.hcl2jsonParse), m(loaders.directParse), round(m(loaders.hcl2jsonParse) - m(loaders.directParse)), ""],
    ...(schema ? [["schema validator ready + first validate (in process)", schema.compile, schema.standalone, round(schema.compile - schema.standalone), fmtRatio((schema.compile - schema.standalone) / bareMs)]] : []),
  ], [
    "direct loader = read a pre-gunzipped main.wasm (e.g. written at build time), require wasm_exec.js, WebAssembly.instantiate, go.run: no fs-extra, no gunzip.",
    "precompiled schema = ajv standalone code for schema/workflow.schema.json generated at build time, loaded with require().",
  ]);
  return { flags, wallMs: { hcl2json: m(loaders.hcl2json), direct: m(loaders.direct) }, firstParseMs: { hcl2json: m(loaders.hcl2jsonParse), direct: m(loaders.directParse) }, schemaMs: schema };
}

/** ajv.compile vs a standalone validator (generated into bench/out/), in fresh processes. */
function schemaProbe(paths: BenchPaths, yaml: string, n: number, require: NodeJS.Require): { compile: number; standalone: number } | undefined {
  let standaloneFile: string;
  try {
    const Ajv = require("ajv").default as typeof import("ajv").default;
    const standaloneCode = require("ajv/dist/standalone").default as (ajv: unknown, v: unknown) => string;
    const ajv = new Ajv({ allErrors: true, verbose: true, strict: false, code: { source: true } });
    const schema = JSON.parse(readFileSync(join(paths.root, "schema", "workflow.schema.json"), "utf8")) as object;
    standaloneFile = join(paths.out, "workflow-validator.cjs");
    writeFileSync(standaloneFile, standaloneCode(ajv, ajv.compile(schema)));
  } catch (e) {
    progress(`schema probe skipped: ${(e as Error).message}`);
    return undefined;
  }
  const script = (standalone: boolean) => `
const { readFileSync } = require("node:fs");
const doc = require(${JSON.stringify(require.resolve("yaml"))}).parse(readFileSync(${JSON.stringify(join(paths.root, yaml))}, "utf8"));
const t = performance.now();
let v;
if (${standalone}) v = require(${JSON.stringify(standaloneFile)});
else { const Ajv = require(${JSON.stringify(require.resolve("ajv"))}).default; v = new Ajv({ allErrors: true, verbose: true, strict: false }).compile(JSON.parse(readFileSync(${JSON.stringify(join(paths.root, "schema", "workflow.schema.json"))}, "utf8"))); }
const ok = v(doc);
process.stdout.write(JSON.stringify({ ms: performance.now() - t, ok }));`;
  const samples = { compile: [] as number[], standalone: [] as number[] };
  for (let i = 0; i < n; i++) {
    for (const k of ["compile", "standalone"] as const) {
      const r = spawnSync(process.execPath, ["-e", script(k === "standalone")], { cwd: paths.root, encoding: "utf8" });
      const o = JSON.parse(r.stdout) as { ms: number; ok: boolean };
      if (!o.ok) throw new Error(`schema probe (${k}): the fixture does not validate`);
      samples[k].push(o.ms);
    }
  }
  rmSync(standaloneFile, { force: true });
  return { compile: round(median(samples.compile)), standalone: round(median(samples.standalone)) };
}

/** Makes bench/out/ (and returns the shared paths) for a package root. */
export function benchPaths(root: string): BenchPaths {
  const out = join(root, "bench", "out");
  mkdirSync(out, { recursive: true });
  return { root, out, child: join(root, "dist", "bench", "child.js") };
}
