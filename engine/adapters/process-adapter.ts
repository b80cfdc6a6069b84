import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Adapter, Session, SessionContext, StepRequest, StepResult } from "./adapter.js";
import { isObject, newObject, type Value } from "../../compiler/expr/value.js";
import { findExecutable, splitPath } from "./find-executable.js";
import { abortReason, adapterError, failed, isReason, reasonFor, toValue } from "./result.js";
import { readyGroupWatcher } from "./group-watcher.js";
import { inheritedEnv } from "./step-env.js";
import { killProcessGroup, trackProcessGroup, untrackProcessGroup } from "./run-process.js";

/**
 * Out-of-process adapters: any adapter type that is not built in is an executable
 * `criteria-adapter-<type>` speaking NDJSON over stdio (PROTOCOL.md beside this file).
 *
 * Lookup, first match wins: each directory of `$CRITERIA_PLUGINS` (colon-separated), then
 * `<base_dir>/adapters/`, then each directory of `$PATH`.
 *
 * One child process per session, started by `open` in its own process group with cwd =
 * base_dir, then `info` and `open_session` (each must answer within the handshake timeout).
 * `execute` calls are multiplexed by request id, so parallel steps share the process.
 *
 * Never throws out of `execute`, never rejects `open`:
 * - executable missing, handshake failed or refused → every execute: `failure`/`adapter_error`
 *   with the reason in `detail`;
 * - the process dies (crash, exit, kill) → every pending and later execute:
 *   `failure`/`crashed`, detail with the exit status and the tail of its stderr;
 * - `req.timeout_ms` passes → `failure`/`timeout`; `req.signal` aborts → `failure`/`cancelled`
 *   (`timeout` for a TimeoutError reason). A `cancel` notification naming the request id is
 *   sent; a late answer is ignored. The process is not killed (other steps may be running);
 * - an `error` answer or a malformed result → `failure`/`adapter_error`.
 * After `crashed`, the runner may close the session and open a new one (`on_crash`).
 *
 * `close` sends `close_session`, closes stdin, waits for the process to exit, and kills its
 * process group (SIGTERM, then SIGKILL) if it does not. Executes still pending at close
 * resolve with `cancelled`.
 *
 * stderr lines are forwarded, prefixed `[criteria-adapter-<type> <adapter_id>]`, to
 * process.stderr (or `onStderr`).
 *
 * effectful = true: the engine cannot know what an external adapter does.
 */

/** The protocol version this host speaks (`info` may report `protocol`; others are refused). */
export const PROTOCOL_VERSION = 1;

/** Options of a process adapter. */
export interface ProcessAdapterOptions {
  /** Environment the adapter process starts from, and where PATH/CRITERIA_PLUGINS are read (default `process.env`). */
  baseEnv?: NodeJS.ProcessEnv;
  /** Receives each stderr line of the adapter process (default: written to process.stderr with a prefix). */
  onStderr?: (line: string, from: { type: string; adapter_id: string }) => void;
  /** Limit for each of `info` and `open_session`, ms (default 30 000). */
  handshakeTimeoutMs?: number;
  /** Limit for `close_session` and for the process to exit after it, ms each (default 5000). */
  closeTimeoutMs?: number;
  /** ms between SIGTERM and SIGKILL when the process must be killed (default 2000). */
  killGraceMs?: number;
  /** Use this executable instead of looking one up (tests, explicit installs). */
  executable?: string;
}

/** `criteria-adapter-<type>`. */
export function adapterExecutableName(type: string): string {
  return `criteria-adapter-${type}`;
}

/** The directories searched for `criteria-adapter-<type>`, in order (see the module comment). */
export function adapterSearchPath(baseDir: string, env: NodeJS.ProcessEnv): string[] {
  return [...splitPath(env.CRITERIA_PLUGINS), join(baseDir, "adapters"), ...splitPath(env.PATH)];
}

/** The path of `criteria-adapter-<type>`, or undefined when no directory holds it (or the type is not a plain name). */
export function findAdapterExecutable(type: string, baseDir: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!VALID_TYPE.test(type)) return undefined;
  return findExecutable(adapterExecutableName(type), adapterSearchPath(baseDir, env));
}

const VALID_TYPE = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** An adapter type served by an external executable. */
export class ProcessAdapter implements Adapter {
  readonly effectful = true;

  constructor(readonly type: string, private readonly opts: ProcessAdapterOptions = {}) {}

  /** Starts the process and performs the handshake. Never rejects (see the module comment). */
  async open(config: Record<string, Value>, ctx: SessionContext): Promise<Session> {
    const session = new ProcessSession(this.type, ctx, this.opts);
    await session.start(config);
    return session;
  }
}

type Reply =
  | { kind: "result"; value: Value }
  | { kind: "error"; message: string }
  | { kind: "crashed"; message: string }
  | { kind: "timeout"; message: string }
  | { kind: "cancelled"; reason: "cancelled" | "timeout"; message: string };

/** What a request still waited for gets when the run's sessions close during the handshake. */
const GIVEN_UP: Reply = { kind: "cancelled", reason: "cancelled", message: "the run's sessions closed before the adapter answered" };

/** One running adapter process. */
class ProcessSession implements Session {
  private child?: ChildProcess;
  private nextId = 1;
  private readonly pending = new Map<number, (r: Reply) => void>();
  /** Set when the session never became usable: every execute fails with adapter_error. */
  private broken?: string;
  /** Set when the process has ended: "exited with code 3", "was killed by SIGKILL". */
  private dead?: string;
  private opened = false;
  private closing?: Promise<void>;
  private readonly stderrTail: string[] = [];
  private exitedResolve!: () => void;
  private readonly exited = new Promise<void>((r) => (this.exitedResolve = r));
  private readonly label: string;

  constructor(private readonly type: string, private readonly ctx: SessionContext, private readonly opts: ProcessAdapterOptions) {
    this.label = `${adapterExecutableName(type)} ${ctx.adapter_id}`;
  }

  async start(config: Record<string, Value>): Promise<void> {
    const env = this.opts.baseEnv ?? process.env;
    if (!this.opts.executable && !VALID_TYPE.test(this.type)) {
      this.broken = `adapter type ${JSON.stringify(this.type)} is not a valid executable name`;
      return;
    }
    const file = this.opts.executable ?? findAdapterExecutable(this.type, this.ctx.base_dir, env);
    if (!file) {
      this.broken = `no executable ${adapterExecutableName(this.type)} found in $CRITERIA_PLUGINS, ${join(this.ctx.base_dir, "adapters")} or $PATH; install it or put it in one of those`;
      return;
    }
    let child: ChildProcess;
    readyGroupWatcher();
    try {
      child = spawn(file, [], {
        cwd: this.ctx.base_dir,
        env: {
          ...inheritedEnv(env),
          CRITERIA_RUN_ID: this.ctx.run_id,
          CRITERIA_ADAPTER_ID: this.ctx.adapter_id,
          CRITERIA_BASE_DIR: this.ctx.base_dir,
          CRITERIA_STATE_DIR: this.ctx.state_dir,
          CRITERIA_PROTOCOL: String(PROTOCOL_VERSION),
        },
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
      });
    } catch (e) {
      this.broken = `cannot start ${file}: ${(e as Error).message}`;
      return;
    }
    this.child = child;
    const pid = child.pid;
    if (pid === undefined) {
      const err = await new Promise<Error>((r) => child.once("error", r));
      this.broken = `cannot start ${file}: ${err.message}`;
      this.markDead("did not start");
      return;
    }
    trackProcessGroup(pid);
    child.on("error", () => {}); // kill/pipe failures surface as exit or write errors
    child.stdin!.on("error", () => {}); // EPIPE after a crash: the exit handler reports it
    createInterface({ input: child.stdout!, crlfDelay: Infinity }).on("line", (line) => this.onLine(line));
    createInterface({ input: child.stderr!, crlfDelay: Infinity }).on("line", (line) => this.onStderr(line));
    let drainTimer: NodeJS.Timeout | undefined;
    child.on("exit", (code, signal) => {
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      // Let the last stdout lines through before failing what is pending; do not wait
      // forever for a grandchild that keeps the pipes open.
      drainTimer = setTimeout(() => this.markDead(how), 500);
      child.once("close", () => {
        clearTimeout(drainTimer);
        this.markDead(how);
      });
    });

    const hs = this.opts.handshakeTimeoutMs ?? 30_000;
    // The run's sessions closing (its end, a step's timeout that gave up on this opening)
    // ends a handshake still waited for: the process is stopped at once, not after 30 s.
    const giveUp = () => {
      this.givenUp = true;
      for (const id of [...this.pending.keys()]) this.settle(id, GIVEN_UP);
    };
    if (this.ctx.signal?.aborted) giveUp();
    else this.ctx.signal?.addEventListener("abort", giveUp, { once: true });
    try {
      await this.handshake(config, hs);
    } finally {
      this.ctx.signal?.removeEventListener("abort", giveUp);
    }
  }

  /** True once the handshake was given up ({@link SessionContext.signal}): the process is stopped without waiting for it. */
  private givenUp = false;

  /** `info`, then `open_session`, each within `hs` ms; a failure leaves the session broken and the process stopped. */
  private async handshake(config: Record<string, Value>, hs: number): Promise<void> {
    const info = this.givenUp ? GIVEN_UP : await this.call("info", undefined, hs).reply;
    if (info.kind !== "result") {
      this.broken = `handshake failed: info: ${replyMessage(info)}`;
      await this.shutdown(false);
      return;
    }
    const proto = isObject(info.value) ? info.value.protocol : undefined;
    if (proto !== undefined && proto !== null && proto !== PROTOCOL_VERSION) {
      this.broken = `handshake failed: the adapter speaks protocol ${JSON.stringify(proto)}, this host speaks ${PROTOCOL_VERSION}`;
      await this.shutdown(false);
      return;
    }
    const opened = await this.call("open_session", {
      config,
      run_id: this.ctx.run_id,
      adapter_id: this.ctx.adapter_id,
      base_dir: this.ctx.base_dir,
      state_dir: this.ctx.state_dir,
    }, hs).reply;
    if (opened.kind !== "result") {
      this.broken = `open_session failed: ${replyMessage(opened)}`;
      await this.shutdown(false);
      return;
    }
    this.opened = true;
  }

  async execute(req: StepRequest): Promise<StepResult> {
    if (this.broken) return adapterError(`${this.type}: ${this.broken}`);
    if (this.closing) return adapterError(`${this.type}: the session is closed`);
    if (this.dead) return failed("crashed", `${this.type}: the adapter process ${this.dead}${this.stderrSuffix()}`);
    if (req.signal.aborted) return failed(abortReason(req.signal), `${this.type}: the step was aborted before it started`);
    const { signal, ...params } = req;
    const { id, reply } = this.call("execute", params as unknown as Value);
    const stop = (r: Reply): void => {
      if (!this.pending.has(id)) return;
      this.settle(id, r);
      this.write({ method: "cancel", params: { id } });
    };
    const timer = req.timeout_ms !== undefined
      ? setTimeout(() => stop({ kind: "timeout", message: `no result within ${req.timeout_ms} ms` }), req.timeout_ms)
      : undefined;
    const onAbort = (): void => {
      const reason = abortReason(signal);
      stop({ kind: "cancelled", reason, message: reason === "timeout" ? "timed out" : "cancelled" });
    };
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      const r = await reply;
      switch (r.kind) {
        case "result":
          return toStepResult(r.value, this.type);
        case "error":
          return adapterError(`${this.type}: ${r.message}`);
        case "crashed":
          return failed("crashed", `${this.type}: ${r.message}`);
        case "timeout":
          return failed("timeout", `${this.type}: ${r.message}`);
        case "cancelled":
          return failed(r.reason, `${this.type}: ${r.message}`);
      }
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    }
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown(this.opened);
    return this.closing;
  }

  /** Sends a request; the reply resolves (never rejects) when answered, timed out or the process ends. */
  private call(method: string, params?: Value, timeoutMs?: number): { id: number; reply: Promise<Reply> } {
    const id = this.nextId++;
    const reply = new Promise<Reply>((resolve) => {
      if (this.dead || !this.child) {
        resolve({ kind: "crashed", message: `the adapter process ${this.dead ?? "is not running"}${this.stderrSuffix()}` });
        return;
      }
      let timer: NodeJS.Timeout | undefined;
      this.pending.set(id, (r) => {
        clearTimeout(timer);
        resolve(r);
      });
      if (timeoutMs !== undefined) timer = setTimeout(() => this.settle(id, { kind: "timeout", message: `no answer to ${method} within ${timeoutMs} ms` }), timeoutMs);
      this.write({ id, method, ...(params !== undefined ? { params } : {}) });
    });
    return { id, reply };
  }

  private settle(id: number, r: Reply): void {
    const done = this.pending.get(id);
    if (!done) return;
    this.pending.delete(id);
    done(r);
  }

  private write(msg: Record<string, unknown>): void {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed || !stdin.writable) return;
    stdin.write(JSON.stringify(msg) + "\n");
  }

  private onLine(line: string): void {
    if (line.trim() === "") return;
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      this.onStderr(`(stdout, not protocol JSON) ${line}`);
      return;
    }
    if (!isObject(msg as Value) || typeof (msg as { id?: unknown }).id !== "number") {
      this.onStderr(`(stdout, message without a numeric id) ${line}`);
      return;
    }
    const m = msg as { id: number; result?: unknown; error?: unknown };
    if (Object.hasOwn(m, "error") && m.error !== null && m.error !== undefined) {
      const e = m.error;
      const message = isObject(e as Value) && typeof (e as { message?: unknown }).message === "string" ? (e as { message: string }).message : JSON.stringify(e);
      this.settle(m.id, { kind: "error", message });
    } else if (Object.hasOwn(m, "result")) {
      this.settle(m.id, { kind: "result", value: toValue(m.result) });
    } else {
      this.settle(m.id, { kind: "error", message: "the response has neither result nor error" });
    }
  }

  private onStderr(line: string): void {
    this.stderrTail.push(line);
    if (this.stderrTail.length > 20) this.stderrTail.shift();
    if (this.opts.onStderr) this.opts.onStderr(line, { type: this.type, adapter_id: this.ctx.adapter_id });
    else if (this.ctx.log) this.ctx.log(`[${this.label}] ${line}`);
    else process.stderr.write(`[${this.label}] ${line}\n`);
  }

  private stderrSuffix(): string {
    return this.stderrTail.length > 0 ? `; last stderr lines:\n${this.stderrTail.join("\n")}` : "";
  }

  private markDead(how: string): void {
    if (this.dead) return;
    this.dead = how;
    if (this.child?.pid !== undefined) untrackProcessGroup(this.child.pid);
    for (const id of [...this.pending.keys()]) {
      this.settle(id, { kind: "crashed", message: `the adapter process ${how} while the request was pending${this.stderrSuffix()}` });
    }
    this.exitedResolve();
  }

  /** Ends the process: polite first (`close_session` when opened, stdin EOF), then by signal. */
  private async shutdown(sayGoodbye: boolean): Promise<void> {
    for (const id of [...this.pending.keys()]) this.settle(id, { kind: "cancelled", reason: "cancelled", message: "the session was closed" });
    const child = this.child;
    if (!child || this.dead || child.pid === undefined) return;
    const wait = this.opts.closeTimeoutMs ?? 5000;
    if (sayGoodbye) await this.call("close_session", undefined, wait).reply;
    child.stdin?.end();
    if (await within(this.exited, this.givenUp ? 0 : wait)) return;
    const grace = this.opts.killGraceMs ?? 2000;
    killProcessGroup(child.pid, "SIGTERM");
    if (await within(this.exited, grace)) return;
    killProcessGroup(child.pid, "SIGKILL");
    await within(this.exited, grace);
  }
}

/** Resolves true when `p` settles within `ms`, false otherwise. */
function within(p: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), ms);
    void p.then(() => {
      clearTimeout(t);
      resolve(true);
    });
  });
}

function replyMessage(r: Reply): string {
  return r.kind === "result" ? "ok" : r.message;
}

/**
 * Checks an `execute` result: `outcome` (non-empty string) is required; `output` an object
 * (default {}); `reason` one of the journal reasons (default `ok`, or `adapter_failed` for
 * `failure`); `detail` a string. Anything else → adapter_error naming the problem.
 */
export function toStepResult(v: Value, type: string): StepResult {
  if (!isObject(v)) return adapterError(`${type}: the execute result must be an object with "outcome"`);
  if (typeof v.outcome !== "string" || v.outcome === "") return adapterError(`${type}: the execute result has no "outcome" string`);
  const output = v.output ?? null;
  if (output !== null && !isObject(output)) return adapterError(`${type}: the execute result's "output" must be an object`);
  const reason = v.reason ?? null;
  if (reason !== null && !isReason(reason)) return adapterError(`${type}: the execute result's "reason" ${JSON.stringify(reason)} is not a journal reason`);
  const detail = v.detail ?? null;
  if (detail !== null && typeof detail !== "string") return adapterError(`${type}: the execute result's "detail" must be a string`);
  return {
    outcome: v.outcome,
    output: output === null ? newObject() : output,
    reason: reason ?? reasonFor(v.outcome),
    ...(detail !== null ? { detail } : {}),
  };
}
