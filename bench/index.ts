/**
 * Runs every benchmark (`npm run bench`, `make bench`: `node dist/bench/index.js`):
 * cold start, batch, scaling, the engine, composition, graph pictures and channels. Prints a table per benchmark with the goal and
 * PASS/MISS beside each figure, and writes the same figures as JSON to
 * bench/out/latest.json. Nothing is asserted: a MISS is a figure, not a failure.
 *
 * Options: `--only cold,batch,scaling,engine,shell,composition,graph,channels,lsp,watch,workers` (a subset), `--quick` (fewer runs, for a smoke
 * test), `--runs N` (cold-start rounds, default 15).
 */
import { cpus, loadavg } from "node:os";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { batch, BATCH_GOAL_MS, type BatchReport } from "./batch.js";
import { benchPaths, COLD_GOAL_RATIO, coldStart, type ColdStartReport } from "./cold-start.js";
import { fmtRatio } from "./report.js";
import { scaling, type ScalingReport } from "./scaling.js";
import { engineBench, type EngineReport } from "./engine.js";
import { compositionBench, type CompositionReport } from "./composition.js";
import { shellStepsBench, type ShellStepsReport } from "./shell-steps.js";
import { graphBench, type GraphReport } from "./graph.js";
import { channelsBench, type ChannelsReport } from "./channels.js";
import { lspBench, type LspReport } from "./lsp.js";
import { watchBench, type WatchReport } from "./watch.js";
import { workersBench, type WorkersReport } from "./workers.js";

/** The command-line options of the benchmark runner. */
export interface BenchOptions {
  only: Set<string>;
  quick: boolean;
  runs: number;
}

/** Parses `--only`, `--quick` and `--runs` (unknown arguments are an error). */
export function parseArgs(argv: string[]): BenchOptions {
  const o: BenchOptions = { only: new Set(["cold", "batch", "scaling", "engine", "shell", "composition", "graph", "channels", "lsp", "watch", "workers"]), quick: false, runs: 15 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--quick") o.quick = true;
    else if (a === "--only") o.only = new Set(argv[++i].split(","));
    else if (a === "--runs") o.runs = Number(argv[++i]);
    else throw new Error(`unknown argument ${a} (use --only cold,batch,scaling,engine,shell,composition,graph,channels,lsp,watch,workers, --quick, --runs N)`);
  }
  if (o.quick && !argv.includes("--runs")) o.runs = 3;
  return o;
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
  const paths = benchPaths(root);
  const started = Date.now();
  const meta = {
    date: new Date().toISOString(),
    node: process.version,
    v8: process.versions.v8,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    loadavgStart: loadavg().map((x) => Math.round(x * 100) / 100),
    loadavgEnd: [] as number[],
    seconds: 0,
    options: { only: [...opts.only], quick: opts.quick, runs: opts.runs },
  };
  process.stdout.write(`criteria benchmarks — node ${meta.node} (V8 ${meta.v8}), ${meta.cpus} CPUs (${meta.cpuModel}), load average ${meta.loadavgStart.join(" ")}\n`);
  if (meta.loadavgStart[0] > meta.cpus * 0.5) process.stdout.write(`note: the machine is busy (load ${meta.loadavgStart[0]} on ${meta.cpus} CPUs); ratios are interleaved, absolute times are noisy.\n`);

  let cold: ColdStartReport | undefined;
  let bat: BatchReport | undefined;
  let scale: ScalingReport | undefined;
  if (opts.only.has("cold")) cold = await coldStart(paths, { runs: opts.runs, warmups: 2, phaseRuns: opts.quick ? 2 : 3 });
  if (opts.only.has("batch")) bat = await batch(paths, { files: 200, runs: opts.quick ? 1 : 3 });
  if (opts.only.has("scaling")) {
    scale = await scaling(paths, { sizes: opts.quick ? [100, 500, 1000] : [100, 500, 1000, 5000], runs: opts.quick ? 1 : 3, dialects: ["hcl", "yaml"] });
  }

  let eng: EngineReport | undefined;
  if (opts.only.has("engine")) eng = await engineBench(opts.quick);
  let shell: ShellStepsReport | undefined;
  if (opts.only.has("shell")) shell = await shellStepsBench(opts.quick);
  let comp: CompositionReport | undefined;
  if (opts.only.has("composition")) comp = await compositionBench(opts.quick);
  let graph: GraphReport | undefined;
  if (opts.only.has("graph")) graph = await graphBench(root, opts.quick);
  let channels: ChannelsReport | undefined;
  if (opts.only.has("channels")) channels = await channelsBench(opts.quick);
  let lsp: LspReport | undefined;
  if (opts.only.has("lsp")) lsp = await lspBench(root, opts.quick);
  let watch: WatchReport | undefined;
  if (opts.only.has("watch")) watch = await watchBench(root, opts.quick);
  let workers: WorkersReport | undefined;
  if (opts.only.has("workers")) workers = await workersBench(root, opts.quick);

  meta.loadavgEnd = loadavg().map((x) => Math.round(x * 100) / 100);
  meta.seconds = Math.round((Date.now() - started) / 100) / 10;

  // Goal summary: one line per goal of the issue.
  const lines: string[] = [];
  if (cold) {
    for (const id of ["hcl", "yaml"]) {
      const r = cold.results.find((x) => x.id === id);
      if (r?.ratio !== undefined) lines.push(`cold ${id.toUpperCase()} (as shipped): ${fmtRatio(r.ratio)} of node -e '' (goal <= ${COLD_GOAL_RATIO}x) ${r.verdict}`);
    }
  }
  if (bat) {
    for (const r of bat.rows.filter((x) => x.how.startsWith("compile() loop, 1st") || x.how.startsWith("CLI"))) {
      lines.push(`batch ${r.dialect}, ${r.how}: ${r.perFileMs.toFixed(2)} ms/file (goal <= ${BATCH_GOAL_MS[r.dialect]}) ${r.verdict}`);
    }
  }
  if (scale) for (const [k, g] of Object.entries(scale.goals)) lines.push(`scaling ${k}: ${g.value} (goal ${g.goal}) ${g.verdict}`);
  if (eng) {
    lines.push(`engine durable noop steps: ${Math.round(eng.noop_steps_per_s)}/s = ${fmtRatio(eng.ratio_to_limit)} of bare SQLite commits (goal >= 0.9x) ${eng.verdicts.ratio}`);
    lines.push(`engine per-step cost, late / early in a long run: ${fmtRatio(eng.flatness_ratio)} (goal <= 1.3x) ${eng.verdicts.flat}`);
    const big = Object.keys(eng.resume_ms).at(-1)!;
    lines.push(`engine resume of a ${big}-entry journal: ${Math.round(eng.resume_ms[big])} ms (goal < 1000) ${eng.verdicts.resume}`);
  }
  if (shell) lines.push(`shell step: ${shell.shell_step_ms.toFixed(2)} ms = ${fmtRatio(shell.ratio)} of a bare spawn (${shell.bare_spawn_ms.toFixed(2)} ms) + one fsync (${shell.fsync_ms.toFixed(2)} ms) (goal <= 1.3x) ${shell.verdict}`);
  if (comp) {
    for (const dl of ["hcl", "yaml"] as const) lines.push(`composition: compile a 100-module ${dl.toUpperCase()} tree: ${comp.compile_ms[`${dl} 100`].toFixed(1)} ms (goal < 150) ${comp.verdicts[`compile_${dl}`]}; 200/100 modules ${fmtRatio(comp.compile_linearity[dl])} ${comp.verdicts.linear}`);
    lines.push(`composition: apply overhead per nesting level: ${comp.per_level_overhead_ms.toFixed(2)} ms (goal < 2) ${comp.verdicts.level}`);
    lines.push(`composition: sessions of an adapter passed to 3 child runs: ${comp.passed_adapter_sessions} (goal 1) ${comp.verdicts.sessions}`);
  }
  if (graph) lines.push(`graph --format svg of a 500-step chain: ${graph.svg["500"].ms} ms, peak RSS ${graph.svg["500"].peakRssMB} MB (a figure; no goal)`);
  if (channels) {
    lines.push(`channels: ${Math.round(channels.messages_per_s)} journaled messages/s = ${fmtRatio(channels.ratio_to_limit)} of bare SQLite commits (goal >= 0.5x) ${channels.verdicts.ratio}`);
    lines.push(`channels: post→recv latency p50 ${channels.latency_ms.p50.toFixed(1)} ms, p99 ${channels.latency_ms.p99.toFixed(1)} ms (goal p99 < 10 ms) ${channels.verdicts.p99}`);
    for (const [name, f] of [["HTTP", channels.agents.http], ["NATS", channels.agents.nats]] as const) {
      if (f) lines.push(`channels: agents over ${name}: ${Math.round(f.messages_per_s)} messages/s, latency p50 ${f.p50.toFixed(1)} ms, p99 ${f.p99.toFixed(1)} ms (a figure; no goal)`);
    }
    if (channels.agents.nats_skipped) lines.push(`channels: agents over NATS skipped: ${channels.agents.nats_skipped}`);
  }
  if (watch) lines.push(`validate --watch: re-validation of an edited example ${watch.example.revalidate_ms.toFixed(1)} ms vs a cold validate ${watch.example.cold_ms.toFixed(0)} ms = ${watch.example.speedup.toFixed(1)}× (goal ≥ 20×) ${watch.verdict}; one edited module of 100: ${watch.modules100.revalidate_ms.toFixed(1)} ms vs ${watch.modules100.cold_ms.toFixed(0)} ms`);
  if (workers && !workers.skipped) {
    const t = Object.entries(workers.throughput).map(([w, x]) => `${w}: ${x.steps_per_s.toFixed(0)}/s = ${x.ratio.toFixed(2)}× pgbench`).join(", ");
    lines.push(`workers: durable noop steps ${t} (goal ≥ 0.5×) ${workers.verdicts.throughput}; takeover ${workers.takeover_after_kill_ms.toFixed(0)} ms after SIGKILL, ${workers.takeover_after_stop_ms.toFixed(0)} ms after SIGSTOP (TTL ${workers.lease_ttl_ms} ms, goal < 2×) ${workers.verdicts.takeover}; signal → next step p99 ${workers.signal_to_step_ms.p99.toFixed(0)} ms (goal < 100 ms) ${workers.verdicts.signal}`);
  }
  if (lsp) lines.push(`lsp: diagnostics after an edit of a ${lsp.steps}-step file (${lsp.edits} edits): p50 ${lsp.p50_ms.toFixed(1)} ms, p99 ${lsp.p99_ms.toFixed(1)} ms (goal p99 < 50 ms) ${lsp.verdict}; p99 after the first 20 edits ${lsp.steady_p99_ms.toFixed(1)} ms, first edit ${lsp.first_ms.toFixed(0)} ms (after a ${lsp.look_ms} ms look), open ${lsp.open_ms.toFixed(0)} ms`);
  process.stdout.write(`\nGoals\n=====\n${lines.map((l) => `  ${l}`).join("\n")}\n`);

  const file = join(paths.out, "latest.json");
  writeFileSync(file, JSON.stringify({ meta, coldStart: cold, batch: bat, scaling: scale, engine: eng, shell, composition: comp, graph, channels, lsp, watch, workers, goals: lines }, null, 2) + "\n");
  process.stdout.write(`\nwrote ${file} (${meta.seconds} s; load average at the end ${meta.loadavgEnd.join(" ")})\n`);
}

main().catch((e) => {
  process.stderr.write(`bench: ${(e as Error)?.stack ?? e}\n`);
  process.exitCode = 1;
});
