import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { makeDirs } from "../make-dirs.js";
import { dirname } from "node:path";
import { procStat } from "../process-info.js";
import { constants } from "node:os";
import { TailBuffer } from "./tail-buffer.js";
import { abortReason } from "./result.js";
import { readyGroupWatcher, unwatchGroup, watchGroup } from "./group-watcher.js";
import { gateExecFailure, gatedCommand, startProblem } from "./start-gate.js";
import type { Writable } from "node:stream";

/**
 * Runs one child process for an adapter (shell commands, agent CLIs) in its OWN process group,
 * so a timeout or a cancellation kills everything it started, grandchildren included:
 * spawn with `detached: true` (the child leads a new group), then `process.kill(-pid,
 * "SIGTERM")`, then `SIGKILL` to the group after a grace period. POSIX only. While it
 * runs, the group is also stopped if this process dies (group-watcher.ts); its program
 * starts only once that is so (start-gate.ts).
 *
 * Never rejects: a spawn failure (missing executable or working directory) is reported as
 * `end: "spawn_error"` with a message.
 */

/** What to run. */
export interface RunProcessOptions {
  /** Executable: a path, or a name looked up on `env.PATH`. */
  file: string;
  args: string[];
  /** Working directory; must exist. */
  cwd: string;
  /** The complete environment of the child (nothing is inherited implicitly). */
  env: Record<string, string | undefined>;
  /** Written to the child's stdin, which is then closed; stdin is /dev/null when undefined. */
  stdin?: string;
  /** Bytes of stdout and of stderr kept (each; the tail is kept). */
  maxOutputBytes: number;
  /** Kill the process group after this many ms; undefined = no limit. */
  timeoutMs?: number;
  /** Kill the process group when aborted. */
  signal?: AbortSignal;
  /** Between SIGTERM and SIGKILL, in ms (default 2000). */
  killGraceMs?: number;
  /**
   * After the leader exits, how long (ms, default 500) to wait for its stdout/stderr to reach
   * EOF; a background process that keeps the pipes open is not waited for beyond this.
   */
  drainMs?: number;
  /**
   * Where to record `<pid> <start ticks>` of the process group while it runs (removed when
   * it ends), so that after a crash of criteria itself the orphaned group can be found
   * and stopped before the step runs again (`reapOrphan`).
   */
  pidFile?: string;
}

/** How a child process ended. */
export interface ProcessResult {
  /** `exited` on its own; `timeout`/`cancelled` when we killed it; `spawn_error` if it never ran. */
  end: "exited" | "timeout" | "cancelled" | "spawn_error";
  /** The exit code; 128 + signal number when killed by a signal; null if it never ran. */
  exitCode: number | null;
  /** The signal that ended the leader, if any (`SIGTERM`, `SIGKILL`, ...). */
  signal: string | null;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  /** Set when stdout was not valid UTF-8 (decoded with replacement characters). */
  stdoutBinary?: boolean;
  /** Set when stderr was not valid UTF-8. */
  stderrBinary?: boolean;
  stderrTruncated: boolean;
  /** For `spawn_error`: what went wrong, as a sentence. */
  error?: string;
  /** The leader's pid (= the process group id), when it started. */
  pid?: number;
}

/** Process groups started by adapters and not yet reaped (leader pids). */
const liveGroups = new Set<number>();

/**
 * Registers a process group so `killLiveProcessGroups` reaches it, and so it is stopped if
 * this process dies while it runs (group-watcher.ts). Used by `runProcess` and process adapters.
 */
export function trackProcessGroup(pid: number): void {
  liveGroups.add(pid);
  watchGroup(pid);
}

/** Forgets a process group registered with `trackProcessGroup`. */
export function untrackProcessGroup(pid: number): void {
  liveGroups.delete(pid);
  unwatchGroup(pid);
}

/**
 * Sends `signal` to the process group led by `pid`. Ignores groups that are already gone
 * (ESRCH) or not ours (EPERM). Returns true when the signal was delivered.
 */
export function killProcessGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Where an adapter records the process group of one piece of work (its idempotency key). */
export function orphanFile(stateDir: string, idempotencyKey: string): string {
  return `${stateDir}/processes/${idempotencyKey}`;
}

/**
 * Stops a process group left running by a criteria process that was killed (recorded in
 * `pidFile` by `runProcess`): SIGTERM, then SIGKILL after `graceMs`, if the recorded
 * leader is still the same process (pid and start time). Removes the file.
 * @returns true when a live orphan was signalled
 */
export async function reapOrphan(pidFile: string, graceMs = 2000): Promise<boolean> {
  let text: string;
  try {
    text = readFileSync(pidFile, "utf8");
  } catch {
    return false;
  }
  rmSync(pidFile, { force: true });
  const [pidText, start] = text.trim().split(" ");
  const pid = Number(pidText);
  const stat = Number.isInteger(pid) && pid > 0 ? procStat(pid) : undefined;
  if (!stat || stat.state === "Z" || (start && stat.start !== start)) return false;
  killProcessGroup(pid, "SIGTERM");
  const until = Date.now() + graceMs;
  while (Date.now() < until) {
    const now = procStat(pid);
    if (!now || now.state === "Z") return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  killProcessGroup(pid, "SIGKILL");
  return true;
}

/**
 * Signals every process group adapters have started and not yet seen end. Synchronous, so the
 * runner can call it from `process.on("exit")` or a SIGINT/SIGTERM handler: children run in
 * their own groups and do not receive the terminal's Ctrl-C themselves.
 */
export function killLiveProcessGroups(signal: NodeJS.Signals = "SIGTERM"): void {
  for (const pid of liveGroups) killProcessGroup(pid, signal);
}

/** Directories of pid files made by this process (made once each). */
const madeDirs = new Set<string>();

/** Runs a process to completion (or kill); see the module comment. Never rejects. */
export function runProcess(o: RunProcessOptions): Promise<ProcessResult> {
  const out = new TailBuffer(o.maxOutputBytes);
  const err = new TailBuffer(o.maxOutputBytes);
  const grace = o.killGraceMs ?? 2000;
  const drain = o.drainMs ?? 500;
  const result = (end: ProcessResult["end"], exitCode: number | null, signal: string | null, extra: Partial<ProcessResult> = {}): ProcessResult => {
    const o = out.decode();
    const e = err.decode();
    return {
      end, exitCode, signal,
      stdout: o.text, stderr: e.text, stdoutTruncated: out.truncated, stderrTruncated: err.truncated,
      ...(o.binary ? { stdoutBinary: true } : {}),
      ...(e.binary ? { stderrBinary: true } : {}),
      ...extra,
    };
  };

  if (o.signal?.aborted) return Promise.resolve(result(abortReason(o.signal), null, null));
  const cwdProblem = checkDirectory(o.cwd);
  if (cwdProblem) return Promise.resolve(result("spawn_error", null, null, { error: cwdProblem }));

  readyGroupWatcher();
  const command = gatedCommand(o.file, o.args);
  const unstartable = command.gate && !command.inline ? startProblem(o.file, o.cwd, o.env) : undefined;
  if (unstartable) return Promise.resolve(result("spawn_error", null, null, { error: spawnMessage(o.file, { code: unstartable }) }));
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn(command.file, command.args, {
        cwd: o.cwd,
        env: o.env,
        stdio: [o.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe", ...(command.gate ? (["pipe"] as const) : [])],
        detached: true,
      });
    } catch (e) {
      resolve(result("spawn_error", null, null, { error: spawnMessage(o.file, e) }));
      return;
    }
    const pid = child.pid;
    if (pid === undefined) {
      // It did not start (a program not found, too many open files): Node says so in an
      // 'error' event, and the child has no pipes to read (found by a new-user trial: with
      // 331 parallel items under ulimit -n 1024, EMFILE crashed criteria, "Unhandled 'error' event").
      child.once("error", (e) => resolve(result("spawn_error", null, null, { error: spawnMessage(o.file, e) })));
      return;
    }
    let end: ProcessResult["end"] = "exited";
    let settled = false;
    let exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let timeoutTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;
    if (pid !== undefined) trackProcessGroup(pid);
    if (pid !== undefined && o.pidFile) {
      try {
        const dir = dirname(o.pidFile);
        if (!madeDirs.has(dir)) {
          makeDirs(dir);
          madeDirs.add(dir);
        }
        writeFileSync(o.pidFile, `${pid} ${procStat(pid)?.start ?? ""}\n`);
      } catch {
        // best effort: without the file an orphan cannot be reaped, nothing else changes
      }
    }
    // Listed and recorded: the gate lets the step's program start (start-gate.ts).
    const gate = command.gate ? (child.stdio[3] as Writable | null) : null;
    gate?.on("error", () => undefined); // a process already gone (killed, or its spawn failed)
    // Closed once written, at once when the line went to the pipe as it was written (a fresh
    // pipe takes one byte), else when it has: a step then holds no more descriptors than it did
    // before the gate (found by a new-user trial: 600 parallel starts under ulimit -n 1024 ran
    // out of them at item 331, not 498, as every gate's pipe stayed open until the burst ended).
    if (gate) {
      gate.end("\n");
      if (gate.writableLength === 0) gate.destroy();
      else gate.once("finish", () => gate.destroy());
    }

    const finish = (extra: Partial<ProcessResult> = {}): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timeoutTimer);
      clearTimeout(drainTimer);
      o.signal?.removeEventListener("abort", onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();
      if (pid !== undefined) untrackProcessGroup(pid);
      if (o.pidFile) {
        try {
          rmSync(o.pidFile, { force: true });
        } catch {
          // best effort, as its writing: a state directory whose processes/ is not a directory
          // (found by a new-user trial: a stack trace, the run left active)
        }
      }
      const code = exitInfo?.code ?? null;
      const sig = exitInfo?.signal ?? null;
      // A result that arrived is never a timeout: a process that exited 0 on its
      // own, not by our signal, finished its work even if the timer fired first.
      if ((end === "timeout" || end === "cancelled") && code === 0 && sig === null) end = "exited";
      const exitCode = code ?? (sig ? 128 + (constants.signals[sig] ?? 0) : null);
      // The gate's exec failed (a #! interpreter that is not there): the program never started,
      // as spawn would have said (found by a new-user trial: an adapter_failed naming "step-gate").
      const unexecuted = command.gate && !command.inline && end === "exited" && (code === 126 || code === 127) ? gateExecFailure(err.decode().text) : undefined;
      if (unexecuted !== undefined) {
        resolve(result("spawn_error", null, null, { pid, error: `cannot start ${JSON.stringify(o.file)}: ${unexecuted}` }));
        return;
      }
      resolve(result(end, exitCode, sig, { ...(pid !== undefined ? { pid } : {}), ...extra }));
    };

    const kill = (why: "timeout" | "cancelled"): void => {
      if (end !== "exited" || settled || exitInfo || pid === undefined) return;
      end = why;
      killProcessGroup(pid, "SIGTERM");
      // Not cleared on finish: a group member that ignores SIGTERM and closed its pipes
      // must still get the SIGKILL.
      setTimeout(() => killProcessGroup(pid, "SIGKILL"), grace).unref();
    };
    function onAbort(): void {
      kill(abortReason(o.signal!));
    }

    child.stdout!.on("data", (c: Buffer) => out.write(c));
    child.stderr!.on("data", (c: Buffer) => err.write(c));
    child.stdout!.on("error", () => {});
    child.stderr!.on("error", () => {});
    if (o.stdin !== undefined && child.stdin) {
      child.stdin.on("error", () => {}); // EPIPE when the child does not read its input
      child.stdin.end(o.stdin);
    }
    if (o.timeoutMs !== undefined) timeoutTimer = setTimeout(() => kill("timeout"), o.timeoutMs);
    o.signal?.addEventListener("abort", onAbort, { once: true });

    child.on("error", () => undefined); // once started, only a failed kill: not fatal
    child.on("exit", (code, signal) => {
      exitInfo = { code, signal };
      drainTimer = setTimeout(() => finish(), end === "exited" ? drain : grace + drain);
    });
    child.on("close", (code, signal) => {
      exitInfo ??= { code, signal };
      finish();
    });
  });
}

/** Why `dir` cannot be a working directory, or undefined when it can. */
function checkDirectory(dir: string): string | undefined {
  try {
    if (!statSync(dir).isDirectory()) return `working directory ${dir} is not a directory`;
  } catch {
    return `working directory ${dir} does not exist`;
  }
  return undefined;
}

function spawnMessage(file: string, e: unknown): string {
  const code = (e as NodeJS.ErrnoException)?.code;
  if (code === "ENOENT") return `executable ${JSON.stringify(file)} not found`;
  if (code === "EACCES") return `executable ${JSON.stringify(file)} is not executable (permission denied)`;
  // Linux caps one argument or environment string at 128 KiB (found by a new-user trial: a 2 MB --var-file value, and no hint).
  if (code === "EMFILE" || code === "ENFILE") return `cannot start ${JSON.stringify(file)}: too many open files (${code}): raise the limit (ulimit -n) or run fewer steps at once (parallel_max)`;
  if (code === "E2BIG") return `cannot start ${JSON.stringify(file)}: its command line or environment is larger than the system allows (E2BIG; one string at most 128 KiB on Linux): pass a large value through a file instead`;
  return `cannot start ${JSON.stringify(file)}: ${(e as Error)?.message ?? String(e)}`;
}
