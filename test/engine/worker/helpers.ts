import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { bin, cli } from "../../pipeline/helpers.js";

/** A worker process (`criteria worker --store URL -o json`) and what it printed so far. */
export interface WorkerProcess {
  child: ChildProcess;
  out: () => string;
}

/** Starts `criteria worker` in its own process group. */
export function startWorker(url: string, stateDir: string, env: NodeJS.ProcessEnv = {}, concurrency = 4): WorkerProcess {
  const child = spawn(process.execPath, [bin, "worker", "--store", url, "--state-dir", stateDir, "--concurrency", String(concurrency), "-o", "json"], {
    env: { ...process.env, CI: "", ...env },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let text = "";
  child.stdout!.on("data", (d: Buffer) => (text += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (text += d.toString()));
  return { child, out: () => text };
}

/** Stops a worker with SIGTERM and waits for it; resolves with its exit code. */
export function stopWorker(w: WorkerProcess): Promise<number | null> {
  if (w.child.exitCode !== null || w.child.signalCode !== null) return Promise.resolve(w.child.exitCode);
  return new Promise((resolve) => {
    w.child.once("exit", (code) => resolve(code));
    w.child.kill("SIGTERM");
  });
}

/** A run row as `criteria runs -o json` prints it. */
export interface Row {
  run_id: string;
  status: string;
  final_state: string | null;
  /** What an active root run is doing, as the text listing says it in parentheses. */
  detail?: string;
  /** The same for programs: running, queued, parked, stopped or holder_gone. */
  activity?: string;
}

/** The root runs of the store. */
export function runs(url: string): Row[] {
  const r = cli(["runs", "--store", url, "-o", "json"]);
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout.trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as Row);
}

/** Polls `runs` until `done` holds or `ms` pass; returns the last rows. */
export async function until(url: string, done: (rows: Row[]) => boolean, ms: number): Promise<Row[]> {
  const end = Date.now() + ms;
  for (;;) {
    const rows = runs(url);
    if (done(rows) || Date.now() > end) return rows;
    await new Promise((r) => setTimeout(r, 250));
  }
}

export const chaos = join(import.meta.dirname, "..", "..", "..", "testdata", "engine", "chaos", "main.hcl");
