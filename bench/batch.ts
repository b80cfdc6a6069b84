/**
 * Benchmark 2, batch: 200 example-sized workflows (generated, all valid) validated in
 * ONE process, per dialect: `compile()` in a loop (a fresh child process; the first pass
 * pays the JIT warm-up, a second pass shows the steady state), and the CLI with all
 * 200 paths (`node bin/criteria validate f1 ... f200`). Figures are ms per file.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BenchPaths } from "./cold-start.js";
import { writeRealistic, type Dialect } from "./generate.js";
import { printTable, progress, verdict, type Verdict } from "./report.js";
import { median, round } from "./stats.js";

/** The batch goals (HCL parser issue): at most this many ms per file, per dialect. */
export const BATCH_GOAL_MS: Record<Dialect, number> = { hcl: 2, yaml: 3 };

/** One row of the batch table. */
export interface BatchRow {
  dialect: Dialect;
  how: string;
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
 * each (medians): `compile()` in a loop in a fresh child process, and the CLI as shipped.
 */
export async function batch(paths: BenchPaths, opts: { files: number; runs: number }): Promise<BatchReport> {
  const dir = mkdtempSync(join(tmpdir(), "criteria-bench-batch-"));
  const rows: BatchRow[] = [];
  try {
    for (const dialect of ["hcl", "yaml"] as Dialect[]) {
      const files = writeRealistic(join(dir, dialect), dialect, opts.files);
      progress(`batch ${dialect}: ${opts.runs} runs x (compile() loop, CLI)`);
      const inproc: BatchChildOut[] = [];
      const cli: number[] = [];
      let cliError: string | undefined;
      for (let r = 0; r < opts.runs; r++) {
        const c = spawnSync(process.execPath, [paths.child, "batch", ...files], { cwd: paths.root, encoding: "utf8", maxBuffer: 1 << 24 });
        if (c.status !== 0) throw new Error(`batch child failed: ${c.stderr}`);
        inproc.push(JSON.parse(c.stdout) as BatchChildOut);
        const t = process.hrtime.bigint();
        const v = spawnSync(process.execPath, ["bin/criteria", "validate", ...files], { cwd: paths.root, encoding: "utf8", maxBuffer: 1 << 24 });
        cli.push(Number(process.hrtime.bigint() - t) / 1e6);
        if (v.status !== 0) cliError ??= `exit ${v.status}: ${(v.stdout + v.stderr).split("\n").find((l) => /error/.test(l)) ?? ""}`;
      }
      const n = files.length;
      const failed = inproc[0].cold.failed;
      const note = failed ? `${failed} files had errors: ${inproc[0].cold.firstError}` : undefined;
      const med = (f: (o: BatchChildOut) => number) => median(inproc.map(f));
      const row = (how: string, totalMs: number, extra: Partial<BatchRow> = {}): BatchRow => ({
        dialect,
        how,
        files: n,
        totalMs: round(totalMs),
        perFileMs: round(totalMs / n, 2),
        verdict: verdict(totalMs / n, BATCH_GOAL_MS[dialect]),
        ...extra,
      });
      rows.push(row("compile() loop, 1st pass", med((o) => o.cold.ms), { peakRssMB: round(med((o) => o.peakRssMB)), note }));
      rows.push(row("compile() loop, 2nd pass (warm)", med((o) => o.warm.ms)));
      rows.push(row("compile() loop, process start..end of 1st pass", med((o) => o.coldEnd)));
      rows.push(row("CLI: bin/criteria validate f1..fN (wall)", median(cli), { note: cliError }));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  printTable(
    `Batch: ${opts.files} example-sized files in one process (median of ${opts.runs} runs; goal: <= ${BATCH_GOAL_MS.hcl} ms/file HCL, <= ${BATCH_GOAL_MS.yaml} YAML)`,
    ["dialect", "how", "total ms", "ms/file", "goal", "peak RSS MB"],
    rows.map((r) => [r.dialect, r.how, r.totalMs, r.perFileMs.toFixed(2), r.verdict, r.peakRssMB ?? NaN]),
    [
      "files: generated variations of a ~75-line workflow (bench/generate.ts realisticHcl/realisticYaml), all valid.",
      "process start..end of 1st pass = node boot + imports + the 1st pass; the CLI rows are the parent's wall time of the whole process (commander, 'PATH: ok' lines, exit).",
      ...rows.filter((r) => r.note).map((r) => `! ${r.dialect} ${r.how}: ${r.note}`),
    ],
  );
  return { files: opts.files, runs: opts.runs, rows };
}
