import { mkdtempSync, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SessionContext, StepRequest } from "../../../engine/adapters/adapter.js";

/** A step request with harmless defaults; `over` replaces fields. */
export function request(over: Partial<StepRequest> = {}): StepRequest {
  return {
    run_id: "run-1",
    step: "s",
    attempt: 1,
    visit: 1,
    idempotency_key: "key-1",
    input: {},
    env: {},
    allow_tools: [],
    outcomes: ["success", "failure"],
    signal: new AbortController().signal,
    ...over,
  };
}

/** A session context rooted at `baseDir`. */
export function context(baseDir: string, over: Partial<SessionContext> = {}): SessionContext {
  return { run_id: "run-1", adapter_id: "test.default", base_dir: baseDir, state_dir: join(baseDir, ".criteria"), ...over };
}

/** A fresh temporary directory (real path, so it compares equal to a child's `pwd`). */
export function tempDir(prefix = "criteria-adapters-"): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

/**
 * True while `pid` is a live process. A zombie (exited, not yet reaped: PID 1 in a
 * container may never reap orphans) counts as gone.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return true;
  }
}

/** Polls `pred` every 20 ms until true or `ms` passes; returns its last value. */
export async function waitFor(pred: () => boolean, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (pred()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return pred();
}

/** Reads a pid written by a test command, waiting for the file to appear. */
export async function readPid(file: string, ms = 5000): Promise<number> {
  let pid = NaN;
  await waitFor(() => {
    try {
      pid = Number(readFileSync(file, "utf8").trim());
      return Number.isInteger(pid) && pid > 0;
    } catch {
      return false;
    }
  }, ms);
  if (!(pid > 0)) throw new Error(`no pid in ${file}`);
  return pid;
}
