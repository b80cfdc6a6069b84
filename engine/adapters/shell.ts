import { isAbsolute, resolve } from "node:path";
import type { Adapter, Session, SessionContext, StepRequest, StepResult } from "./adapter.js";
import type { Value } from "../../compiler/expr/value.js";
import { SHELL_FIELDS } from "../../compiler/resolve/adapter-fields.js";
import { ConfigError, readField, requireField } from "./config.js";
import { adapterError, failed, reasonFor, tail } from "./result.js";
import { orphanFile, runProcess, type ProcessResult } from "./run-process.js";
import { stepEnv } from "./step-env.js";

/**
 * The `shell` adapter: runs `input.command` with `<shell> -c <command>` (default `/bin/sh`).
 *
 * Session config (all optional; described, with their kinds, in `SHELL_FIELDS`,
 * compiler/resolve/adapter-fields.ts, which validate checks too):
 * - `shell`: the shell executable (default `/bin/sh`).
 * - `env`: map of extra environment variables (strings; numbers and bools converted).
 * - `cwd`: default working directory, relative to the workflow's directory (base_dir).
 * - `timeout`: default time limit, a duration string (`"30s"`, `"250ms"`); the step's
 *   `timeout` (`req.timeout_ms`) wins.
 * - `max_output_bytes`: bytes kept of stdout and of stderr, each (default 1 MiB = 1048576).
 *
 * Step input: `command` (non-empty string, required), `cwd` (string, relative to base_dir;
 * default the config's `cwd`, else base_dir).
 *
 * Environment: see `stepEnv` (process.env, config `env`, `req.env`, `CRITERIA_*`).
 *
 * Result:
 * - output `{ exit_code, stdout, stderr, stdout_truncated, stderr_truncated }`; stdout/stderr
 *   keep the LAST `max_output_bytes` bytes, and `*_truncated` says whether bytes were dropped;
 *   `stdout_binary` / `stderr_binary` (only when true) say the bytes were not UTF-8 and are
 *   shown with replacement characters.
 * - exit code 0 → `success`; otherwise `failure` (reason `adapter_failed`, detail = exit code
 *   and stderr tail). A process killed by a signal reports exit code 128 + signal number.
 * - Outcome marker: when the command exits 0 and the LAST non-empty line of stdout is
 *   `CRITERIA_OUTCOME=<name>` (`<name>` = letters, digits, `_`, `-`), the outcome is `<name>`
 *   instead of `success`, and that line is removed from `stdout`. This lets a script pick
 *   one of the step's declared outcomes (the runner checks that it is declared). A marker is
 *   ignored when the exit code is not 0.
 * - timeout → `failure`/`timeout`; `req.signal` aborted → `failure`/`cancelled` (`timeout`
 *   when the signal's reason is a TimeoutError). Either way the command's whole process group
 *   gets SIGTERM, then SIGKILL 2 s later; output captured so far is kept.
 * - bad input or config, missing working directory or shell → `failure`/`adapter_error`.
 *
 * Background processes the command leaves running after it exits are not killed (a step may
 * start a server for later steps); their output is not captured past the command's exit.
 *
 * effectful = true: the runner journals the attempt before running it.
 */

/** Options of a shell adapter (for tests and embedding; workflows use session config). */
export interface ShellAdapterOptions {
  /** Environment the command's environment starts from (default `process.env`). */
  baseEnv?: NodeJS.ProcessEnv;
  /** ms between SIGTERM and SIGKILL on timeout/cancel (default 2000). */
  killGraceMs?: number;
}

/** Default bytes kept per output stream: 1 MiB. */
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;

interface ShellSettings {
  shell: string;
  env?: Record<string, string>;
  cwd?: string;
  timeoutMs?: number;
  maxOutputBytes: number;
}

/** A shell adapter with the given options. */
export function createShellAdapter(opts: ShellAdapterOptions = {}): Adapter {
  return {
    type: "shell",
    effectful: true,
    // Each step is its own process; what a step leaves running (a server started in the
    // background) stays on the machine that ran it, as after a resume elsewhere.
    stateless: true,
    async open(config: Record<string, Value>, ctx: SessionContext): Promise<Session> {
      let settings: ShellSettings | undefined;
      let problem: string | undefined;
      try {
        const c = SHELL_FIELDS.config;
        settings = {
          shell: readField(config, c, "shell", "config") ?? "/bin/sh",
          env: readField(config, c, "env", "config"),
          cwd: readField(config, c, "cwd", "config"),
          timeoutMs: readField(config, c, "timeout", "config"),
          maxOutputBytes: readField(config, c, "max_output_bytes", "config") ?? DEFAULT_MAX_OUTPUT_BYTES,
        };
      } catch (e) {
        problem = `shell adapter ${ctx.adapter_id}: ${(e as Error).message}`;
      }
      return {
        execute: async (req) => {
          if (!settings) return adapterError(problem!);
          try {
            return await executeShell(settings, ctx, req, opts);
          } catch (e) {
            return adapterError(`shell: ${e instanceof ConfigError ? e.message : `internal error: ${(e as Error)?.stack ?? e}`}`);
          }
        },
        close: async () => {},
      };
    },
  };
}

/** The shell adapter with default options. */
export const shellAdapter: Adapter = createShellAdapter();

async function executeShell(s: ShellSettings, ctx: SessionContext, req: StepRequest, opts: ShellAdapterOptions): Promise<StepResult> {
  const command = requireField(req.input, SHELL_FIELDS.input, "command", "input");
  const cwdInput = readField(req.input, SHELL_FIELDS.input, "cwd", "input") ?? s.cwd;
  const cwd = cwdInput === undefined ? ctx.base_dir : isAbsolute(cwdInput) ? cwdInput : resolve(ctx.base_dir, cwdInput);
  const timeoutMs = req.timeout_ms ?? s.timeoutMs;
  const res = await runProcess({
    file: s.shell,
    args: ["-c", command],
    cwd,
    env: stepEnv(opts.baseEnv ?? process.env, s.env, req),
    maxOutputBytes: s.maxOutputBytes,
    timeoutMs,
    signal: req.signal,
    killGraceMs: opts.killGraceMs,
    pidFile: orphanFile(ctx.state_dir, req.idempotency_key),
  });
  return shellResult(res, timeoutMs);
}

/** Maps a finished process to the shell adapter's StepResult (see the module comment). */
export function shellResult(res: ProcessResult, timeoutMs?: number): StepResult {
  if (res.end === "spawn_error") return adapterError(`shell: ${res.error}`);
  const marked = res.end === "exited" && res.exitCode === 0 ? takeOutcomeMarker(res.stdout) : { stdout: res.stdout };
  const output: Record<string, Value> = {
    exit_code: res.exitCode ?? -1,
    stdout: marked.stdout,
    stderr: res.stderr,
    stdout_truncated: res.stdoutTruncated,
    stderr_truncated: res.stderrTruncated,
    // Binary output is kept as text with U+FFFD where bytes were not UTF-8: say so.
    ...(res.stdoutBinary ? { stdout_binary: true } : {}),
    ...(res.stderrBinary ? { stderr_binary: true } : {}),
  };
  if (res.end === "timeout") {
    return failed("timeout", `shell: timed out after ${timeoutMs} ms; the command's process group was killed`, output);
  }
  if (res.end === "cancelled") return failed("cancelled", "shell: cancelled; the command's process group was killed", output);
  if (res.exitCode !== 0) {
    const how = res.signal ? `killed by ${res.signal}` : `exit code ${res.exitCode}`;
    const err = tail(res.stderr);
    return { outcome: "failure", output, reason: "adapter_failed", detail: err ? `${how}: ${err}` : how };
  }
  const outcome = marked.outcome ?? "success";
  const reason = reasonFor(outcome);
  return reason === "ok" ? { outcome, output, reason } : { outcome, output, reason, detail: "the command chose the failure outcome" };
}

const MARKER = /^CRITERIA_OUTCOME=([A-Za-z_][A-Za-z0-9_-]*)[ \t\r]*$/;

/**
 * Splits a trailing `CRITERIA_OUTCOME=<name>` line off stdout.
 * @returns stdout without the marker line (unchanged when there is none) and the name
 */
export function takeOutcomeMarker(stdout: string): { stdout: string; outcome?: string } {
  const trimmed = stdout.replace(/\s+$/, "");
  const nl = trimmed.lastIndexOf("\n");
  const m = MARKER.exec(trimmed.slice(nl + 1));
  if (!m) return { stdout };
  return { stdout: trimmed.slice(0, nl + 1), outcome: m[1] };
}
