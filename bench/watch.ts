/**
 * `criteria validate --watch` (the issue "See and edit": goal, re-validation of one edited
 * example ≥ 20× faster than a cold `validate` of it), on an example (review_loop) and on
 * a tree of 100 modules (composition.ts `moduleTree`) with one module edited:
 * - cold: `criteria validate PATH` in a fresh process (what a save hook pays), median;
 * - re-validation: what the watcher does once a change is reported, the compile of the
 *   PATH with the parse and unit caches it keeps (every file read again, only the edited
 *   one parsed again, only the modules the edit reaches checked again), in one process,
 *   median over edits that alternate two texts;
 * - save → printed: a real `criteria validate --watch` process, from a file's write to
 *   its new result on stdout (file-event delivery and the watcher's 100 ms debounce
 *   included), median.
 * Prints figures; asserts nothing.
 */
import { spawn, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compile } from "../compiler/index.js";
import { moduleTree } from "./composition.js";
import { fmt, fmtRatio, printTable, progress, verdict, type Verdict } from "./report.js";
import { median } from "./stats.js";

/** Figures for one watched PATH. */
export interface WatchCase {
  cold_ms: number;
  revalidate_ms: number;
  save_to_print_ms: number;
  /** cold_ms / revalidate_ms */
  speedup: number;
}

/** Figures of the watch benchmark. */
export interface WatchReport {
  example: WatchCase;
  modules100: WatchCase;
  verdict: Verdict;
}

/** Two texts of one file that both validate: a step input's string, edited back and forth. */
function editor(file: string): (i: number) => void {
  const text = readFileSync(file, "utf8");
  const at = text.indexOf('"', text.indexOf("input")) + 1;
  return (i) => writeFileSync(file, text.slice(0, at) + (i % 2 ? "x" : "y") + text.slice(at));
}

async function measure(path: string, edited: string, root: string, runs: number, moduleRoot?: string): Promise<WatchCase> {
  const cli = join(root, "bin", "criteria");
  const rootArgs = moduleRoot ? ["--root", moduleRoot] : [];
  const edit = editor(edited);
  const cold: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const r = spawnSync(process.execPath, [cli, "validate", ...rootArgs, path], { encoding: "utf8" });
    cold.push(performance.now() - t);
    if (r.status !== 0) throw new Error(`validate failed: ${r.stdout}${r.stderr}`);
  }
  // The watcher's work after a change: a compile with its parse cache.
  const parseCache = new Map();
  const unitCache = new Map();
  await compile(path, { parseCache, unitCache, root: moduleRoot });
  const again: number[] = [];
  for (let i = 0; i < runs * 2; i++) {
    edit(i);
    const t = performance.now();
    await compile(path, { parseCache, unitCache, root: moduleRoot });
    again.push(performance.now() - t);
  }
  // A real watcher: from a write to the next printed result.
  const child = spawn(process.execPath, [cli, "validate", "--watch", ...rootArgs, path], { stdio: ["ignore", "pipe", "pipe"] });
  let printed = 0;
  let ready = false;
  let waiter: (() => void) | undefined;
  child.stdout.on("data", (d: Buffer) => {
    printed += (d.toString().match(/^\[\d\d:\d\d:\d\d\] /gm) ?? []).length;
    waiter?.();
  });
  // "criteria: watching N paths for changes" on stderr: file events are seen from then on.
  child.stderr.on("data", (d: Buffer) => {
    if (/criteria: watching /.test(d.toString())) ready = true;
    waiter?.();
  });
  const until = async (n: number) => {
    const deadline = Date.now() + 10_000;
    while (printed < n || !ready) {
      if (Date.now() > deadline) throw new Error("the watcher printed nothing in 10 s");
      await new Promise<void>((r) => {
        waiter = r;
        setTimeout(r, 200);
      });
    }
  };
  const saves: number[] = [];
  try {
    await until(1);
    // Only a changed result is printed: every save alternates the file and the file with
    // a stray word at its end (an error), so each one prints.
    const text = readFileSync(edited, "utf8");
    const bad = `${text}\noops\n`;
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      writeFileSync(edited, i % 2 ? text : bad);
      await until(2 + i);
      saves.push(performance.now() - t);
    }
    writeFileSync(edited, text);
  } finally {
    child.kill("SIGINT");
  }
  const c = median(cold);
  const r = median(again);
  return { cold_ms: c, revalidate_ms: r, save_to_print_ms: median(saves), speedup: c / r };
}

/** Runs the watch benchmark against the built CLI under `root`. */
export async function watchBench(root: string, quick: boolean): Promise<WatchReport> {
  const runs = quick ? 3 : 9;
  const dir = mkdtempSync(join(tmpdir(), "criteria-bench-watch-"));
  try {
    progress("validate --watch: an edited example");
    cpSync(join(root, "examples", "review_loop"), join(dir, "review_loop"), { recursive: true });
    const example = await measure(join(dir, "review_loop"), join(dir, "review_loop", "workflow.hcl"), root, runs);
    progress("validate --watch: one edited module of 100");
    const entry = moduleTree(join(dir, "tree"), 100);
    const modules100 = await measure(entry, join(dir, "tree", "m99", "main.hcl"), root, runs, join(dir, "tree"));
    const report: WatchReport = { example, modules100, verdict: verdict(example.speedup >= 20 ? 0 : 1, 0) };
    const row = (name: string, w: WatchCase) => [name, `${fmt(w.cold_ms)} ms`, `${fmt(w.revalidate_ms)} ms`, fmtRatio(w.speedup), `${fmt(w.save_to_print_ms)} ms`];
    printTable("criteria validate --watch", ["PATH", "cold validate", "re-validation", "speed-up", "save → printed"], [row("examples/review_loop", example), row("100 modules, one edited", modules100)], [
      "goal: re-validation of the example ≥ 20× faster than a cold validate: " + report.verdict,
      "save → printed includes file-event delivery and the watcher's 100 ms debounce",
    ]);
    return report;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
