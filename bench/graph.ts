/**
 * `criteria graph --format svg` (issue "See and edit", figures): the time to draw a chain
 * workflow of 25, 100 and 500 steps (generate.ts `chainHcl`: every step also leads to one
 * of two shared failure states, which the picture draws again beside each source, see
 * compiler/build/format-dot.ts) as an SVG, and the peak memory of
 * the process that does it. Each size is drawn by a fresh `bin/criteria` process (what a
 * user runs: start-up, compile, the picture's DOT, Graphviz's layout in WebAssembly),
 * `runs` times; the median is reported, with its peak RSS (`/proc/self/status` VmHWM is
 * not readable from outside once the process ends, so the child reports it: the CLI runs
 * under `--require` of a tiny hook that prints `process.resourceUsage().maxRSS` at exit).
 * Prints figures; asserts nothing. No goal is set by the issue beyond reporting them.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chainHcl } from "./generate.js";
import { printTable, progress } from "./report.js";
import { median, round } from "./stats.js";

/** Figures of the graph benchmark (also written to bench/out/latest.json). */
export interface GraphReport {
  /** By step count: median wall time of `criteria graph FILE` (ms) and the peak RSS of that process (MB). */
  svg: Record<string, { ms: number; peakRssMB: number; svgKB: number }>;
}

/** Draws chains of each size `runs` times with the CLI. */
export async function graphBench(root: string, quick: boolean): Promise<GraphReport> {
  const dir = mkdtempSync(join(tmpdir(), "criteria-bench-graph-"));
  const hook = join(dir, "rss.cjs");
  writeFileSync(hook, `process.on("exit", () => process.stderr.write("maxrss " + process.resourceUsage().maxRSS + "\\n"));\n`);
  const report: GraphReport = { svg: {} };
  try {
    for (const steps of [25, 100, 500]) {
      const file = join(dir, `chain_${steps}.hcl`);
      writeFileSync(file, chainHcl(steps));
      progress(`graph --format svg of a ${steps}-step chain`);
      const times: number[] = [];
      const rss: number[] = [];
      let bytes = 0;
      for (let i = 0; i < (quick ? 1 : 2); i++) {
        const t = performance.now();
        const r = spawnSync(process.execPath, ["--require", hook, join(root, "bin", "criteria"), "graph", file], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
        times.push(performance.now() - t);
        if (r.status !== 0) throw new Error(`criteria graph failed: ${r.stderr}`);
        bytes = Buffer.byteLength(r.stdout);
        rss.push(Number(/maxrss (\d+)/.exec(r.stderr)?.[1] ?? NaN) / 1024);
      }
      report.svg[String(steps)] = { ms: round(median(times)), peakRssMB: round(median(rss)), svgKB: round(bytes / 1024) };
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  printTable(
    "criteria graph --format svg (a fresh process each time)",
    ["steps", "median ms", "peak RSS MB", "SVG KB"],
    Object.entries(report.svg).map(([k, v]) => [k, v.ms, v.peakRssMB, v.svgKB]),
  );
  return report;
}
