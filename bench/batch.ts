/**
 * Benchmark 2, batch: 200 example-sized workflows (generated, all valid) validated in
 * ONE process, per dialect: `compile()` in a loop (a fresh child process; the first pass
 * pays the parser start-up, a second pass shows the steady state), and the CLI with all
 * 200 paths (`node bin/criteria validate f1 ... f200`). Figures are ms per file.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BenchPaths } from "./cold-start.js";
import { writeRealistic, type Dialect } from "./generate.js";
import { writeLauncher } from "./launchers.js";
import { printTable, progress, verdict, type Verdict } from "./report.js";
import { median, round } from "./stats.js";

/** The batch goal: under this many ms per file. */
export const BATCH_GOAL_MS = 5;

/** One row of the batch table. */
export interface BatchRow {
  dialect: Dialect;
  how: string;
  flags: string[];
  files: number;
  /** Median total ms over the runs. */
  totalMs: number;
  perFileMs: number;
  verdict: Verdict;
  peakRssMB?: number;
  note?: string;
}

/** Everything the batch benchmark measured. */
export interface BatchReport {
  files: number;
  runs: number;
  rows: BatchRow[];
}

interface BatchChildOut {
  boot: number;
  importMs: number;
  coldEnd: number;
  cold: { ms: number; failed: number; firstError?: string };
  warm: { ms: number; failed: number };
  peakRssMB: number;
  total: number;
}

/**
 * Runs the batch benchmark over `files` generated workflows per dialect, `runs` times
 * each (medians). HCL runs once per V8 flag set in `flagSets`; the CLI is timed as
 * shipped (default flags) and through a launcher that ends with `process.exit` (see
 * bench/launchers.ts), which does not wait for the Go runtime's idle timers.
 */
export async function batch(paths: BenchPaths, opts: { files: number; runs: number; flagSets: string[][] }): Promise<BatchReport> {
  const dir = mkdtempSync(join(tmpdir(), "criteria-bench-batch-"));
  const rows: BatchRow[] = [];
  const exitLauncher = writeLauncher(paths.out, "criteria-exit", { exit: true });
  try {
    for (const dialect of ["hcl", "yaml"] as Dialect[]) {
      const files = writeRealistic(join(dir, dialect), dialect, opts.files);
      const flagSets = dialect === "hcl" ? opts.flagSets : [[]];
      for (const flags of flagSets) {
        const shipped = flags.length === 0;
        const withExit = dialect === "hcl";
        progress(`batch ${dialect} ${flags.join(" ") || "(default flags)"}: ${opts.runs} runs x (compile() loop${shipped ? ", CLI" : ""}${withExit ? ", CLI + process.exit" : ""})`);
        const inproc: BatchChildOut[] = [];
        const cli: number[] = [];
        const cliExit: number[] = [];
        let cliError: string | undefined;
        const time = (argv: string[]): number => {
          const t = process.hrtime.bigint();
          const v = spawnSync(process.execPath, argv, { cwd: paths.root, encoding: "utf8", maxBuffer: 1 << 24 });
          const ms = Number(process.hrtime.bigint() - t) / 1e6;
          if (v.status !== 0) cliError ??= `exit ${v.status}: ${(v.stdout + v.stderr).split("\n").find((l) => /error/.test(l)) ?? ""}`;
          return ms;
        };
        for (let r = 0; r < opts.runs; r++) {
          const c = spawnSync(process.execPath, [...flags, paths.child, "batch", ...files], { cwd: paths.root, encoding: "utf8", maxBuffer: 1 << 24 });
          if (c.status !== 0) throw new Error(`batch child failed: ${c.stderr}`);
          inproc.push(JSON.parse(c.stdout) as BatchChildOut);
          if (shipped) cli.push(time([...flags, "bin/criteria", "validate", ...files]));
          if (withExit) cliExit.push(time([...flags, exitLauncher, "validate", ...files]));
        }
        const n = files.length;
        const failed = inproc[0].cold.failed;
        const note = failed ? `${failed} files had errors: ${inproc[0].cold.firstError}` : undefined;
        const med = (f: (o: BatchChildOut) => number) => median(inproc.map(f));
        const row = (how: string, totalMs: number, extra: Partial<BatchRow> = {}): BatchRow => ({
          dialect,
          how,
          flags,
          files: n,
          totalMs: round(totalMs),
          perFileMs: round(totalMs / n, 2),
          verdict: verdict(totalMs / n, BATCH_GOAL_MS, true),
          ...extra,
        });
        rows.push(row("compile() loop, 1st pass (incl. parser start)", med((o) => o.cold.ms), { peakRssMB: round(med((o) => o.peakRssMB)), note }));
        rows.push(row("compile() loop, 2nd pass (warm)", med((o) => o.warm.ms)));
        rows.push(row("compile() loop, process start..end of 1st pass", med((o) => o.coldEnd)));
        if (shipped) rows.push(row("CLI: bin/criteria validate f1..fN (wall)", median(cli), { note: cliError }));
        if (withExit) rows.push(row("CLI + process.exit (bench/out/criteria-exit, wall)", median(cliExit), { note: cliError }));
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  printTable(
    `Batch: ${opts.files} example-sized files in one process (median of ${opts.runs} runs; goal: < ${BATCH_GOAL_MS} ms/file)`,
    ["dialect", "flags", "how", "total ms", "ms/file", "goal", "peak RSS MB"],
    rows.map((r) => [r.dialect, r.flags.join(" ") || "default", r.how, r.totalMs, r.perFileMs.toFixed(2), r.verdict, r.peakRssMB ?? NaN]),
    [
      "files: generated variations of a ~75-line workflow (bench/generate.ts realisticHcl/realisticYaml), all valid.",
      "process start..end of 1st pass = node boot + imports + the 1st pass; the CLI rows are the parent's wall time of the whole process (commander, 'PATH: ok' lines, exit).",
      ...rows.filter((r) => r.note).map((r) => `! ${r.dialect} ${r.how}: ${r.note}`),
    ],
  );
  return { files: opts.files, runs: opts.runs, rows };
}
