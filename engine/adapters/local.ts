import { readFileSync } from "node:fs";
import { extname, isAbsolute, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import type { Adapter, Reason, Session, SessionContext, StepRequest, StepResult } from "./adapter.js";
import { describeValue, isObject, newObject, sortedKeys, type ObjectValue, type Value } from "../../compiler/expr/value.js";
import { parseDuration } from "../../compiler/decode/durations.js";
import { callChannel } from "../channels/client.js";
import { LOCAL_FIELDS } from "../../compiler/resolve/adapter-fields.js";
import { requireField } from "./config.js";
import { abortReason, adapterError, failed, isReason, reasonFor, toObjectValue, toValue } from "./result.js";

/**
 * The `local` adapter: a deterministic scripted agent for demos and tests. It answers from a
 * script file instead of a model, so a workflow with agents runs with no service and gives
 * the same result every time, on every resume.
 *
 * Session config: `script` (required) — path of a JSON or YAML file, relative to the
 * workflow's directory (base_dir). `.json` is read as JSON, anything else as YAML. Shape:
 *
 * ```json
 * { "steps": { "<step name>": [ { "outcome": "changes", "output": { "answer": "..." } },
 *                               { "outcome": "approved", "answer": "LGTM" } ] },
 *   "default": { "outcome": "success" } }
 * ```
 * An entry: `outcome` (string, required), `output` (object, optional), `answer` (string,
 * optional), `reason` (a journal reason, optional; default `adapter_failed` for the outcome
 * `failure`, else `ok`), `detail` (string, optional), `delay_ms` (number, optional: wait that
 * long first; honours the step timeout and cancellation), `channel` (a list of channel
 * actions, optional: see below). Other top-level keys are ignored.
 *
 * Channel actions (the channels issue, item 1), done in order before answering, through the
 * run's channel endpoint as `criteria channel` does (the step's agent must take part in the
 * channel): `{ "post": { "channel", "from", "to", "body" } }` and
 * `{ "recv": { "channel", "as", "from"?, "timeout", "into"? } }`. A received message's body
 * goes to `output[into]` (default: appended to `output.received` as `{ from, body }`); a
 * receive that times out puts `null` there. A refused call fails the step (`adapter_error`).
 *
 * Which entry answers — by position, chosen from the request alone (no hidden counters, so a
 * resumed run picks the same answers):
 * 1. `input.round` when given: a number N, or a string whose first integer is N
 *    (`"round 2 of 3"`); N is 1-based, so round 1 → the first entry;
 * 2. else `req.each.index` (0-based, the step's own iteration or its enclosing body's)
 *    plus `req.visit - 1` (the how-many-th visit of the step in its run, for flat loops);
 * 3. so the first visit of a step outside any iteration gets the first entry.
 * An index past the end picks the last entry (the last answer repeats). A step with no
 * entries uses `default`; with neither, the step fails with `adapter_error`.
 *
 * Output: the entry's `output`, plus `answer` (the output's `answer`, else the entry's
 * `answer`, else the outcome name) and `prompt` (`input.prompt` when it is a string, else
 * the input as canonical JSON), echoing what the agent was asked.
 *
 * Errors: a missing or malformed script (its path and the problem in `detail`), or a missing
 * `config.script`, fail every step of the session with `adapter_error`; `open` never rejects.
 *
 * effectful = false: answering changes nothing outside the run.
 */
export const localAdapter: Adapter = {
  type: "local",
  effectful: false,
  async open(config: Record<string, Value>, ctx: SessionContext): Promise<Session> {
    let script: Script | undefined;
    let problem: string | undefined;
    try {
      const rel = requireField(config, LOCAL_FIELDS.config, "script", "config");
      script = loadScript(isAbsolute(rel) ? rel : resolve(ctx.base_dir, rel));
    } catch (e) {
      problem = `local adapter ${ctx.adapter_id}: ${(e as Error).message}`;
    }
    return {
      execute: async (req) => (script ? executeLocal(script, req) : adapterError(problem!)),
      close: async () => {},
    };
  },
};

/** One scripted answer. */
export interface ScriptEntry {
  outcome: string;
  output: ObjectValue;
  answer?: string;
  reason?: Reason;
  detail?: string;
  delay_ms?: number;
  channel?: ChannelAction[];
}

/** A scripted channel action: a post, or a receive (its body into `into`). */
export type ChannelAction =
  | { post: { channel: string; from: string; to: string; body: Value } }
  | { recv: { channel: string; as: string; from?: string; timeout_ms: number; into?: string } };

/** A loaded answers file. */
export interface Script {
  /** Absolute path it was read from. */
  file: string;
  steps: Map<string, ScriptEntry[]>;
  default?: ScriptEntry;
}

/**
 * Reads and checks an answers file.
 * @throws Error with a message naming the file and the problem (missing, unparsable, bad shape)
 */
export function loadScript(file: string): Script {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new Error(code === "ENOENT" ? `script file ${file} does not exist` : `cannot read script file ${file}: ${(e as Error).message}`);
  }
  let data: unknown;
  try {
    data = extname(file).toLowerCase() === ".json" ? JSON.parse(text) : parseYaml(text, { maxAliasCount: 100 });
  } catch (e) {
    throw new Error(`script file ${file} is not valid ${extname(file).toLowerCase() === ".json" ? "JSON" : "YAML"}: ${(e as Error).message}`);
  }
  const root = toValue(data);
  if (!isObject(root)) throw new Error(`script file ${file}: expected an object with "steps", got ${describeValue(root)}`);
  const steps = new Map<string, ScriptEntry[]>();
  const rawSteps = root.steps ?? null;
  if (rawSteps !== null) {
    if (!isObject(rawSteps)) throw new Error(`script file ${file}: "steps" must be an object keyed by step name`);
    for (const name of Object.keys(rawSteps)) {
      const list = rawSteps[name];
      const items = Array.isArray(list) ? list : [list];
      if (items.length === 0) throw new Error(`script file ${file}: steps.${name} has no answers`);
      steps.set(name, items.map((it, i) => toEntry(it, `${file}: steps.${name}[${i}]`)));
    }
  }
  const def = root.default ?? null;
  return { file, steps, ...(def !== null ? { default: toEntry(def, `${file}: default`) } : {}) };
}

function toEntry(v: Value, where: string): ScriptEntry {
  if (!isObject(v)) throw new Error(`script file ${where}: expected an object with "outcome", got ${describeValue(v)}`);
  if (typeof v.outcome !== "string" || v.outcome === "") throw new Error(`script file ${where}: "outcome" must be a non-empty string`);
  const output = v.output ?? null;
  if (output !== null && !isObject(output)) throw new Error(`script file ${where}: "output" must be an object`);
  const e: ScriptEntry = { outcome: v.outcome, output: toObjectValue(output ?? {}) };
  if (v.answer !== undefined && v.answer !== null) {
    if (typeof v.answer !== "string") throw new Error(`script file ${where}: "answer" must be a string`);
    e.answer = v.answer;
  }
  if (v.reason !== undefined && v.reason !== null) {
    if (!isReason(v.reason)) throw new Error(`script file ${where}: "reason" ${JSON.stringify(v.reason)} is not a journal reason`);
    e.reason = v.reason;
  }
  if (v.detail !== undefined && v.detail !== null) {
    if (typeof v.detail !== "string") throw new Error(`script file ${where}: "detail" must be a string`);
    e.detail = v.detail;
  }
  if (v.delay_ms !== undefined && v.delay_ms !== null) {
    if (typeof v.delay_ms !== "number" || !(v.delay_ms >= 0)) throw new Error(`script file ${where}: "delay_ms" must be a non-negative number`);
    e.delay_ms = v.delay_ms;
  }
  if (v.channel !== undefined && v.channel !== null) {
    if (!Array.isArray(v.channel)) throw new Error(`script file ${where}: "channel" must be a list of { "post": {...} } or { "recv": {...} }`);
    e.channel = v.channel.map((a, i) => toChannelAction(a, `${where}.channel[${i}]`));
  }
  return e;
}

/** One channel action of a script entry, checked. */
function toChannelAction(v: Value, where: string): ChannelAction {
  const text = (o: ObjectValue, k: string, optional = false): string | undefined => {
    const x = o[k];
    if (x === undefined && optional) return undefined;
    if (typeof x !== "string" || x === "") throw new Error(`script file ${where}: "${k}" must be a non-empty string`);
    return x;
  };
  if (isObject(v) && isObject(v.post ?? null)) {
    const p = v.post as ObjectValue;
    return { post: { channel: text(p, "channel")!, from: text(p, "from")!, to: text(p, "to")!, body: p.body ?? null } };
  }
  if (isObject(v) && isObject(v.recv ?? null)) {
    const r = v.recv as ObjectValue;
    const timeout = text(r, "timeout")!;
    const ms = parseDuration(timeout);
    if (ms === undefined || ms <= 0) throw new Error(`script file ${where}: "timeout" ${JSON.stringify(timeout)} is not a duration such as "30s"`);
    return { recv: { channel: text(r, "channel")!, as: text(r, "as")!, from: text(r, "from", true), timeout_ms: ms, into: text(r, "into", true) } };
  }
  throw new Error(`script file ${where}: expected { "post": { channel, from, to, body } } or { "recv": { channel, as, timeout } }`);
}

/**
 * Does an entry's channel actions in order, through the step's channel access; what the
 * receives got goes into `output`. Returns why when a call was refused or failed.
 */
async function channelActions(actions: ChannelAction[], req: StepRequest, output: ObjectValue): Promise<string | undefined> {
  const url = req.env?.CRITERIA_CHANNEL_URL;
  const token = req.env?.CRITERIA_CHANNEL_TOKEN;
  if (!url || !token) return `local: step "${req.step}" has no channel access: its agent takes part in no channel of the run`;
  const access = { url, token, runId: req.run_id, key: req.idempotency_key, attempt: req.attempt, channels: (req.env?.CRITERIA_CHANNELS ?? "").split(",") };
  for (const a of actions) {
    const [op, args] = "post" in a ? (["post", a.post] as const) : (["recv", a.recv] as const);
    let answer;
    try {
      answer = await callChannel(access, op, op === "post" ? args : { channel: args.channel, as: (args as { as: string }).as, from: args.from, timeout_ms: (args as { timeout_ms: number }).timeout_ms });
    } catch (e) {
      return `local: channel ${op}: ${(e as Error).message}`;
    }
    if (answer.status !== 200) return `local: channel ${op} on "${args.channel}": ${String(answer.body.error)}`;
    if (op === "recv") {
      const got = answer.body.timeout === true ? null : toValue(answer.body.body);
      const into = (args as { into?: string }).into;
      if (into) output[into] = got;
      else output.received = [...(Array.isArray(output.received) ? output.received : []), answer.body.timeout === true ? null : { from: toValue(answer.body.from), body: got }];
    }
  }
  return undefined;
}

/**
 * The 0-based position of the answer for this request (before clamping to the list):
 * `input.round` (1-based), else `req.each.index`, else 0. See the module comment.
 */
export function responseIndex(req: Pick<StepRequest, "input" | "each"> & { visit?: number }): number {
  const r = req.input.round;
  if (typeof r === "number" && Number.isFinite(r)) return Math.max(0, Math.floor(r) - 1);
  if (typeof r === "string") {
    const m = /\d+/.exec(r);
    if (m) return Math.max(0, Number(m[0]) - 1);
  }
  // The iteration index, plus the visit within the run (a flat loop revisits a step):
  // both are journaled facts, so a resumed run picks the same answer.
  return (req.each ? Math.max(0, req.each.index) : 0) + Math.max(0, (req.visit ?? 1) - 1);
}

/** One scripted execution. Never rejects. */
export async function executeLocal(script: Script, req: StepRequest): Promise<StepResult> {
  if (req.signal.aborted) return failed(abortReason(req.signal), "local: the step was aborted before it started");
  const list = script.steps.get(req.step);
  const entry = list ? list[Math.min(responseIndex(req), list.length - 1)] : script.default;
  if (!entry) return adapterError(`local: ${script.file} has no answers for step "${req.step}" and no "default"`);
  if (entry.delay_ms) {
    const stop = await sleep(entry.delay_ms, req.timeout_ms, req.signal);
    if (stop === "timeout") return failed("timeout", `local: timed out after ${req.timeout_ms} ms`);
    if (stop) return failed(stop, "local: cancelled");
  }
  const output: ObjectValue = Object.assign(newObject(), entry.output);
  if (entry.channel) {
    const problem = await channelActions(entry.channel, req, output);
    if (problem) return adapterError(problem);
  }
  const fromOutput = entry.output.answer;
  output.answer = typeof fromOutput === "string" ? fromOutput : entry.answer ?? entry.outcome;
  output.prompt = typeof req.input.prompt === "string" ? req.input.prompt : canonicalJson(req.input);
  const reason = entry.reason ?? reasonFor(entry.outcome);
  const detail = entry.detail ?? (reason === "ok" ? undefined : `local: scripted ${entry.outcome} (${script.file})`);
  return { outcome: entry.outcome, output, reason, ...(detail !== undefined ? { detail } : {}) };
}

/** Waits `ms`; resolves early with why when the limit passes or the signal aborts. */
function sleep(ms: number, limitMs: number | undefined, signal: AbortSignal): Promise<undefined | "timeout" | "cancelled"> {
  return new Promise((done) => {
    const finish = (v: undefined | "timeout" | "cancelled"): void => {
      clearTimeout(t1);
      clearTimeout(t2);
      signal.removeEventListener("abort", onAbort);
      done(v);
    };
    const onAbort = (): void => finish(abortReason(signal));
    const t1 = setTimeout(() => finish(undefined), ms);
    const t2 = limitMs !== undefined && limitMs < ms ? setTimeout(() => finish("timeout"), limitMs) : undefined;
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) onAbort();
  });
}

/** JSON with object keys sorted, so the echo is the same whatever the key order. */
function canonicalJson(v: Value): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  if (isObject(v)) return `{${sortedKeys(v).map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`).join(",")}}`;
  return JSON.stringify(v);
}
