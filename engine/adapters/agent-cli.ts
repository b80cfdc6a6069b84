import { isAbsolute, resolve } from "node:path";
import type { Adapter, Session, SessionContext, StepRequest, StepResult } from "./adapter.js";
import { isObject, newObject, type ObjectValue, type Value } from "../../compiler/expr/value.js";
import { AGENT_CLI_FIELDS } from "../../compiler/resolve/adapter-fields.js";
import { ConfigError, readField } from "./config.js";
import { findExecutable, splitPath } from "./find-executable.js";
import { adapterError, failed, reasonFor, tail, toValue } from "./result.js";
import { orphanFile, runProcess } from "./run-process.js";
import { DEFAULT_MAX_OUTPUT_BYTES } from "./shell.js";
import { stepEnv } from "./step-env.js";

/**
 * Agent CLI adapters (`claude`, `copilot`, `codex`): each step runs the CLI once, as a child
 * process in its own process group, in its documented non-interactive JSON mode, and reads
 * its final answer. Every CLI-specific flag and output shape lives in `CLI_PROFILES`.
 *
 * Step input: `prompt` (string, required); `cwd` (string, relative to base_dir; default the
 * config's `cwd`, else base_dir).
 *
 * The prompt sent is `input.prompt` plus, when the step declares outcomes (`req.outcomes`),
 * an instruction to end the reply with a line `OUTCOME: <name>` naming one of them.
 *
 * Session config (all optional; `req.agent.config` entries override the session's; described,
 * with their kinds, in `AGENT_CLI_FIELDS`, compiler/resolve/adapter-fields.ts, which validate
 * checks too; other keys, such as the Go tool's `max_turns`, are ignored):
 * - `command`: the executable (string), or a list `[executable, ...leading args]`; default
 *   the agent's `cli` (the runner puts it in the config), else the adapter type (`claude`,
 *   `copilot`, `codex`), looked up on PATH. A path with a `/` is relative to base_dir.
 * - `args`: extra arguments (list of strings), placed after the profile's own flags.
 * - `model`: used when the agent declares no `model` (`req.agent.model` wins).
 * - `env`, `cwd`, `timeout`, `max_output_bytes`: as for the shell adapter.
 * - `prompt_via`: `"arg"` or `"stdin"`; default: an argument, unless the prompt is larger than
 *   100 000 bytes (Linux caps one argument at 128 KiB) or starts with `-`, then stdin.
 *
 * Outcome, in order:
 * 1. timeout / cancel → `failure` with reason `timeout` / `cancelled` (process group killed);
 * 2. CLI missing, bad input or config → `failure` / `adapter_error`;
 * 3. exit code ≠ 0, or the CLI reports an error in its JSON → `failure` / `adapter_failed`;
 * 4. the answer names an outcome — a JSON answer's `outcome` field, else the last line
 *    `OUTCOME: <name>` (markdown emphasis and backticks tolerated) — that matches one of
 *    `req.outcomes` (exactly, else ignoring case; any name when `req.outcomes` is empty) →
 *    that outcome, reason `ok` (`adapter_failed` if it is `failure`);
 * 5. otherwise `success` (an unmatched name is reported in `detail`).
 *
 * Output: `answer` (the final text), `exit_code`, `stderr`, `stderr_truncated`, `session_id`
 * and `cost_usd` when the CLI reports them, and — when the answer is a JSON object (or ends
 * with a fenced ```json block holding one) — that object's fields, so `steps.review.comments`
 * works for an agent asked to answer in JSON. Fields never override the ones named above.
 *
 * Environment: as for the shell adapter (`stepEnv`): process.env + config `env` + `req.env` +
 * `CRITERIA_*`.
 *
 * effectful = true: an agent may edit files, run commands, push.
 */

/** The agent CLIs driven by this module. */
export type AgentCliType = "claude" | "copilot" | "codex";

/** What a profile extracted from a CLI's stdout. */
export interface CliAnswer {
  /** The final answer text; undefined when none was found. */
  answer?: string;
  /** An error the CLI reported in its output (a failed turn, `is_error`). */
  error?: string;
  /** Extra output fields (`session_id`, `cost_usd`). */
  meta: ObjectValue;
}

/** How one CLI is driven: its argv and how its output is read. */
export interface CliProfile {
  /** Executable name looked up on PATH by default. */
  executable: string;
  /**
   * argv after the executable. `prompt` undefined = the prompt goes on stdin. `allowTools`
   * is passed with the CLI's flag when it has one (codex has none: its sandbox governs tools).
   */
  args(a: { prompt?: string; model?: string; allowTools: string[]; extraArgs: string[] }): string[];
  /** Reads the answer from stdout. */
  parse(stdout: string): CliAnswer;
}

/**
 * The CLIs' non-interactive JSON modes, as documented by their vendors:
 * - claude (Claude Code): `claude -p <prompt> --output-format json [--model M]
 *   [--allowedTools a,b]` prints one JSON object `{type:"result", subtype, is_error, result,
 *   session_id, total_cost_usd, ...}`; the answer is `result`. (`--allowedTools` takes a
 *   variadic list, so it goes last; the prompt goes right after `-p`.) Prompt on stdin:
 *   `claude -p --output-format json ...`.
 * - codex (OpenAI Codex CLI): `codex exec --json [--model M] -- <prompt>` prints JSONL events
 *   (`thread.started {thread_id}`, `item.completed {item:{type:"agent_message", text}}`,
 *   `turn.completed`, `turn.failed {error:{message}}`, `error {message}`); the answer is the
 *   last agent_message. Prompt on stdin: `codex exec --json ... -`.
 * - copilot (GitHub Copilot CLI): `copilot -p <prompt> --output-format json --no-ask-user
 *   [--model=M] [--allow-tool=T ...]` prints JSONL events; the answer is the last
 *   `assistant.message` event's `data.content`. Prompt on stdin: the same flags without `-p`.
 * Every parser also accepts plain text (the whole stdout is then the answer).
 */
export const CLI_PROFILES: Record<AgentCliType, CliProfile> = {
  claude: {
    executable: "claude",
    args: ({ prompt, model, allowTools, extraArgs }) => [
      "-p", ...(prompt !== undefined ? [prompt] : []),
      "--output-format", "json",
      ...(model ? ["--model", model] : []),
      ...extraArgs,
      ...(allowTools.length > 0 ? ["--allowedTools", allowTools.join(",")] : []),
    ],
    parse: (stdout) => {
      const { docs, text } = parseJsonDocs(stdout);
      const result = lastWhere(docs, (d) => d.type === "result");
      const meta = newObject();
      const sid = result?.session_id ?? lastWhere(docs, (d) => typeof d.session_id === "string")?.session_id;
      if (typeof sid === "string") meta.session_id = sid;
      if (typeof result?.total_cost_usd === "number") meta.cost_usd = result.total_cost_usd;
      if (result) {
        const answer = typeof result.result === "string" ? result.result : undefined;
        if (result.is_error === true) return { answer, error: answer || String(result.subtype ?? "error"), meta };
        if (answer !== undefined) return { answer, meta };
      }
      // stream-json without a result line: the last assistant message's text parts.
      const msg = lastWhere(docs, (d) => d.type === "assistant" && isObject(d.message));
      if (msg && isObject(msg.message) && Array.isArray(msg.message.content)) {
        const parts = msg.message.content.filter((c) => isObject(c) && c.type === "text" && typeof c.text === "string");
        if (parts.length > 0) return { answer: parts.map((c) => (c as ObjectValue).text as string).join(""), meta };
      }
      return { ...textAnswer(text), meta };
    },
  },
  codex: {
    executable: "codex",
    args: ({ prompt, model, extraArgs }) => [
      "exec", "--json",
      ...(model ? ["--model", model] : []),
      ...extraArgs,
      ...(prompt !== undefined ? ["--", prompt] : ["-"]),
    ],
    parse: (stdout) => {
      const { docs, text } = parseJsonDocs(stdout);
      const meta = newObject();
      const started = lastWhere(docs, (d) => d.type === "thread.started" && typeof d.thread_id === "string");
      if (started) meta.session_id = started.thread_id;
      const failedTurn = lastWhere(docs, (d) => d.type === "turn.failed" || d.type === "error");
      const msg = lastWhere(docs, (d) => d.type === "item.completed" && isObject(d.item) && (d.item.type === "agent_message" || d.item.item_type === "assistant_message") && typeof d.item.text === "string");
      const answer = msg && isObject(msg.item) ? (msg.item.text as string) : undefined;
      if (failedTurn) {
        const e = failedTurn.error;
        const message = isObject(e) && typeof e.message === "string" ? e.message : typeof failedTurn.message === "string" ? failedTurn.message : "turn failed";
        return { answer, error: message, meta };
      }
      if (answer !== undefined) return { answer, meta };
      return { ...textAnswer(text), meta };
    },
  },
  copilot: {
    executable: "copilot",
    args: ({ prompt, model, allowTools, extraArgs }) => [
      ...(prompt !== undefined ? ["-p", prompt] : []),
      "--output-format", "json",
      "--no-ask-user",
      ...(model ? [`--model=${model}`] : []),
      ...allowTools.map((t) => `--allow-tool=${t}`),
      ...extraArgs,
    ],
    parse: (stdout) => {
      const { docs, text } = parseJsonDocs(stdout);
      const meta = newObject();
      for (let i = docs.length - 1; i >= 0 && meta.session_id === undefined; i--) {
        for (const o of [docs[i], docs[i].data]) {
          const sid = isObject(o) ? o.sessionId ?? o.session_id : undefined;
          if (typeof sid === "string") {
            meta.session_id = sid;
            break;
          }
        }
      }
      const msg = lastWhere(docs, (d) => d.type === "assistant.message" && isObject(d.data) && typeof d.data.content === "string");
      const answer = msg && isObject(msg.data) ? (msg.data.content as string) : undefined;
      const err = lastWhere(docs, (d) => d.type === "error" || d.type === "session.error");
      if (err) {
        const data = isObject(err.data) ? err.data : err;
        return { answer, error: typeof data.message === "string" ? data.message : "the CLI reported an error", meta };
      }
      if (answer !== undefined) return { answer, meta };
      const result = lastWhere(docs, (d) => typeof d.result === "string" || typeof d.response === "string");
      if (result) return { answer: (result.result ?? result.response) as string, meta };
      return { ...textAnswer(text), meta };
    },
  },
};

/** True for the agent CLI types this module drives. */
export function isAgentCliType(type: string): type is AgentCliType {
  return Object.hasOwn(CLI_PROFILES, type);
}

/** Options of an agent CLI adapter. */
export interface AgentCliAdapterOptions {
  /** Environment the CLI's environment starts from (default `process.env`). */
  baseEnv?: NodeJS.ProcessEnv;
  /** ms between SIGTERM and SIGKILL on timeout/cancel (default 2000). */
  killGraceMs?: number;
  /** Prompts longer than this (bytes) go on stdin unless `prompt_via` says otherwise (default 100 000). */
  maxArgBytes?: number;
}

/** An adapter for one agent CLI. */
export function createAgentCliAdapter(type: AgentCliType, opts: AgentCliAdapterOptions = {}): Adapter {
  const profile = CLI_PROFILES[type];
  return {
    type,
    effectful: true,
    async open(config: Record<string, Value>, ctx: SessionContext): Promise<Session> {
      return {
        execute: async (req) => {
          try {
            return await executeAgentCli(type, profile, config, ctx, req, opts);
          } catch (e) {
            return adapterError(`${type}: ${e instanceof ConfigError ? e.message : `internal error: ${(e as Error)?.stack ?? e}`}`);
          }
        },
        close: async () => {},
      };
    },
  };
}

/**
 * The prompt given to the CLI: `prompt`, then (when there are outcomes) an instruction to
 * finish with `OUTCOME: <name>`.
 */
export function promptWithOutcomes(prompt: string, outcomes: string[]): string {
  if (outcomes.length === 0) return prompt;
  return `${prompt.trimEnd()}\n\nWhen you are done, end your reply with a final line of the form \`OUTCOME: <name>\`, where <name> is exactly one of: ${outcomes.join(", ")}.`;
}

async function executeAgentCli(
  type: AgentCliType, profile: CliProfile, sessionConfig: Record<string, Value>, ctx: SessionContext, req: StepRequest, opts: AgentCliAdapterOptions,
): Promise<StepResult> {
  const cfg: Record<string, Value> = { ...sessionConfig, ...(req.agent?.config ?? {}) };
  const { config: c, input: i } = AGENT_CLI_FIELDS;
  const prompt = readField(req.input, i, "prompt", "input");
  if (prompt === undefined) {
    return adapterError(`${type}: input.prompt is required: the text the ${type} agent is asked (a non-empty string)`);
  }
  const command = readField(cfg, c, "command", "config") ?? [readField(cfg, c, "cli", "config") ?? profile.executable];
  if (command.length === 0 || command[0] === "") return adapterError(`${type}: config.command must name an executable`);
  const extraArgs = readField(cfg, c, "args", "config") ?? [];
  const model = req.agent?.model ?? readField(cfg, c, "model", "config");
  const cwdInput = readField(req.input, i, "cwd", "input") ?? readField(cfg, c, "cwd", "config");
  const cwd = cwdInput === undefined ? ctx.base_dir : isAbsolute(cwdInput) ? cwdInput : resolve(ctx.base_dir, cwdInput);
  const timeoutMs = req.timeout_ms ?? readField(cfg, c, "timeout", "config");
  const maxOutputBytes = readField(cfg, c, "max_output_bytes", "config") ?? DEFAULT_MAX_OUTPUT_BYTES;
  const promptVia = readField(cfg, c, "prompt_via", "config");
  const env = stepEnv(opts.baseEnv ?? process.env, readField(cfg, c, "env", "config"), req);

  const exe = command[0];
  const file = exe.includes("/") ? (isAbsolute(exe) ? exe : resolve(ctx.base_dir, exe)) : findExecutable(exe, splitPath(env.PATH));
  if (file === undefined) {
    return adapterError(`${type}: executable ${JSON.stringify(exe)} not found on PATH; install the ${type} CLI or set the agent's config.command`);
  }

  const fullPrompt = promptWithOutcomes(prompt, req.outcomes);
  const viaStdin = promptVia === "stdin" || (promptVia === undefined && (Buffer.byteLength(fullPrompt) > (opts.maxArgBytes ?? 100_000) || fullPrompt.startsWith("-")));
  const args = [...command.slice(1), ...profile.args({ prompt: viaStdin ? undefined : fullPrompt, model, allowTools: req.allow_tools, extraArgs })];
  const res = await runProcess({
    file, args, cwd, env,
    ...(viaStdin ? { stdin: fullPrompt } : {}),
    maxOutputBytes, timeoutMs, signal: req.signal, killGraceMs: opts.killGraceMs,
    pidFile: orphanFile(ctx.state_dir, req.idempotency_key),
  });
  if (res.end === "spawn_error") return adapterError(`${type}: ${res.error}`);

  const parsed = profile.parse(res.stdout);
  const answer = parsed.answer ?? "";
  const output: ObjectValue = newObject();
  const fields = answerObject(answer);
  if (fields) for (const [k, v] of Object.entries(fields)) output[k] = v;
  Object.assign(output, parsed.meta);
  output.answer = answer;
  output.exit_code = res.exitCode ?? -1;
  output.stderr = res.stderr;
  output.stderr_truncated = res.stderrTruncated;

  if (res.end === "timeout") return failed("timeout", `${type}: timed out after ${timeoutMs} ms; the CLI's process group was killed`, output);
  if (res.end === "cancelled") return failed("cancelled", `${type}: cancelled; the CLI's process group was killed`, output);
  if (res.exitCode !== 0) {
    const how = res.signal ? `killed by ${res.signal}` : `exit code ${res.exitCode}`;
    const why = parsed.error ?? tail(res.stderr);
    return { outcome: "failure", output, reason: "adapter_failed", detail: `${type}: ${how}${why ? `: ${why}` : ""}` };
  }
  if (parsed.error !== undefined) return { outcome: "failure", output, reason: "adapter_failed", detail: `${type}: ${parsed.error}` };
  if (parsed.answer === undefined) {
    return adapterError(`${type}: no answer found in the CLI's output${res.stdout.trim() ? `: ${tail(res.stdout, 500)}` : " (stdout was empty)"}`, output);
  }
  // An answer naming no outcome succeeds. One naming an outcome the step does not declare
  // keeps that name, so the step's routing decides (docs/language.md, Outcomes: its
  // `outcome "default"`, else the run fails `unknown_outcome`), as for a shell step's
  // CRITERIA_OUTCOME and the Go tool's adapters; it was taken as success, so an agent's
  // "tests_failed" ended a run successfully (found by a new-user trial).
  const { outcome: chosen, claimed } = chooseOutcome(answer, req.outcomes, fields);
  const outcome = chosen ?? claimed ?? "success";
  const detail = chosen === undefined && claimed !== undefined
    ? `${type}: the agent answered OUTCOME ${JSON.stringify(claimed)}, which is not one of: ${req.outcomes.join(", ")}`
    : outcome === "failure" ? `${type}: the agent chose the failure outcome` : undefined;
  return { outcome, output, reason: reasonFor(outcome), ...(detail ? { detail } : {}) };
}

/**
 * The outcome an answer names, matched against the declared outcomes (exact, then ignoring
 * case; any name when `declared` is empty). `claimed` is the raw name found, matched or not.
 * Sources: the `outcome` field of the answer's JSON object (`fields`), else the last line of
 * the form `OUTCOME: <name>`.
 */
export function chooseOutcome(answer: string, declared: string[], fields?: ObjectValue): { outcome?: string; claimed?: string } {
  let claimed: string | undefined = fields && typeof fields.outcome === "string" ? fields.outcome.trim() : undefined;
  if (!claimed) {
    const re = /^[ \t>*_#-]*OUTCOME[*_`]*[ \t]*[:=][*_`"' \t]*([A-Za-z_][A-Za-z0-9_-]*)[*_`"'.]*[ \t]*\r?$/gim;
    for (let m = re.exec(answer); m !== null; m = re.exec(answer)) claimed = m[1];
  }
  if (!claimed) return {};
  if (declared.length === 0) return { outcome: claimed, claimed };
  const exact = declared.find((o) => o === claimed);
  const loose = exact ?? declared.find((o) => o.toLowerCase() === claimed!.toLowerCase());
  return loose !== undefined ? { outcome: loose, claimed } : { claimed };
}

/** The answer's JSON object: the whole answer, else its last fenced ```json block. */
export function answerObject(answer: string): ObjectValue | undefined {
  const tryParse = (s: string): ObjectValue | undefined => {
    try {
      const v = toValue(JSON.parse(s));
      return isObject(v) ? v : undefined;
    } catch {
      return undefined;
    }
  };
  const t = answer.trim();
  if (t.startsWith("{")) {
    const whole = tryParse(t);
    if (whole) return whole;
  }
  const fences = [...t.matchAll(/```(?:json)?[ \t]*\r?\n([\s\S]*?)\r?\n[ \t]*```/g)];
  const last = fences.at(-1);
  return last ? tryParse(last[1]) : undefined;
}

/** Parses stdout as one JSON document or as JSONL; non-JSON lines are kept as `text`. */
function parseJsonDocs(stdout: string): { docs: ObjectValue[]; text: string } {
  const t = stdout.trim();
  if (t === "") return { docs: [], text: "" };
  try {
    const v = toValue(JSON.parse(t));
    if (isObject(v)) return { docs: [v], text: "" };
    if (Array.isArray(v)) return { docs: v.filter(isObject), text: "" };
  } catch {
    // not one document: try JSONL
  }
  const docs: ObjectValue[] = [];
  const text: string[] = [];
  for (const line of t.split(/\r?\n/)) {
    const s = line.trim();
    if (s.startsWith("{")) {
      try {
        const v = toValue(JSON.parse(s));
        if (isObject(v)) {
          docs.push(v);
          continue;
        }
      } catch {
        // plain text line
      }
    }
    text.push(line);
  }
  return { docs, text: text.join("\n").trim() };
}

/** Plain-text fallback: when the CLI printed no recognisable JSON, its text is the answer. */
function textAnswer(text: string): Pick<CliAnswer, "answer"> {
  return text !== "" ? { answer: text } : {};
}

function lastWhere(docs: ObjectValue[], pred: (d: ObjectValue) => boolean): ObjectValue | undefined {
  for (let i = docs.length - 1; i >= 0; i--) if (pred(docs[i])) return docs[i];
  return undefined;
}
