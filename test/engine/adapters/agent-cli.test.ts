import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { StepRequest } from "../../../engine/adapters/adapter.js";
import {
  answerObject, chooseOutcome, CLI_PROFILES, createAgentCliAdapter, promptWithOutcomes, type AgentCliType,
} from "../../../engine/adapters/agent-cli.js";
import { adapterFor } from "../../../engine/adapters/registry.js";
import { SqliteJournal } from "../../../engine/journal/sqlite-journal.js";
import { Runner } from "../../../engine/run/runner.js";
import { graphOf } from "../graph-of.js";
import { context, request, tempDir } from "./helpers.js";

/**
 * A fake agent CLI: records argv, stdin, cwd and CRITERIA_STEP to $FAKE_RECORD, then prints
 * output shaped like the real CLI named by its own file name (claude, codex, copilot).
 * $FAKE_ANSWER is the answer text, $FAKE_EXIT the exit code, $FAKE_SLEEP_MS a delay,
 * $FAKE_MODE = "error" makes the CLI report an error in its JSON, "text" prints plain text.
 */
const FAKE = String.raw`#!/usr/bin/env node
const fs = require("node:fs");
const path = require("node:path");
const cli = path.basename(process.argv[1]);
let stdin = "";
try { stdin = fs.readFileSync(0, "utf8"); } catch {}
if (process.env.FAKE_RECORD) {
  fs.writeFileSync(process.env.FAKE_RECORD, JSON.stringify({ cli, argv: process.argv.slice(2), stdin, cwd: process.cwd(), step: process.env.CRITERIA_STEP, pid: process.pid }));
}
const answer = process.env.FAKE_ANSWER ?? "Done.\nOUTCOME: approved";
const mode = process.env.FAKE_MODE ?? "json";
const out = (o) => process.stdout.write(JSON.stringify(o) + "\n");
function finish() {
  if (process.env.FAKE_STDERR) process.stderr.write(process.env.FAKE_STDERR + "\n");
  if (mode === "text") process.stdout.write(answer + "\n");
  else if (cli === "claude") out({ type: "result", subtype: mode === "error" ? "error_during_execution" : "success", is_error: mode === "error", result: answer, session_id: "claude-session", total_cost_usd: 0.0123, num_turns: 2 });
  else if (cli === "codex") {
    out({ type: "thread.started", thread_id: "codex-thread" });
    out({ type: "turn.started" });
    out({ type: "item.completed", item: { id: "item_0", type: "reasoning", text: "thinking" } });
    if (mode === "error") out({ type: "turn.failed", error: { message: "model overloaded" } });
    else {
      out({ type: "item.completed", item: { id: "item_1", type: "agent_message", text: "draft answer" } });
      out({ type: "item.completed", item: { id: "item_2", type: "agent_message", text: answer } });
      out({ type: "turn.completed", usage: { input_tokens: 10, cached_input_tokens: 0, output_tokens: 5 } });
    }
  } else {
    out({ type: "session.start", data: { sessionId: "copilot-session" } });
    out({ type: "assistant.message", data: { content: "thinking out loud" } });
    if (mode === "error") out({ type: "error", data: { message: "quota exceeded" } });
    else out({ type: "assistant.message", data: { content: answer } });
  }
  process.exit(Number(process.env.FAKE_EXIT ?? 0));
}
const delay = Number(process.env.FAKE_SLEEP_MS ?? 0);
if (delay > 0) setTimeout(finish, delay); else finish();
`;

let dir: string;
let bin: string;
let record: string;
let n = 0;

beforeAll(() => {
  dir = tempDir("criteria-agent-");
  bin = join(dir, "bin");
  mkdirSync(bin);
  // A CommonJS package scope for the fakes (the repo's package.json says "type": "module").
  writeFileSync(join(bin, "package.json"), '{"type":"commonjs"}');
  for (const name of ["claude", "codex", "copilot", "my-claude"]) {
    writeFileSync(join(bin, name), name === "my-claude" ? FAKE.replace("path.basename(process.argv[1])", '"claude"') : FAKE);
    chmodSync(join(bin, name), 0o755);
  }
  mkdirSync(join(dir, "work"));
});

/** Runs one step on a fresh session with the fake CLIs on PATH. */
async function run(type: AgentCliType, over: Partial<StepRequest> = {}, fakeEnv: Record<string, string> = {}, config: Record<string, unknown> = {}, opts = {}) {
  record = join(dir, `record-${++n}.json`);
  const adapter = createAgentCliAdapter(type, { baseEnv: { ...process.env, PATH: `${bin}:${process.env.PATH}`, FAKE_RECORD: record, ...fakeEnv }, ...opts });
  const session = await adapter.open(config as never, context(dir, { adapter_id: `agent.${type}` }));
  const result = await session.execute(request({ step: "review", input: { prompt: "Review the diff." }, outcomes: ["approved", "changes_requested"], ...over }));
  await session.close();
  return result;
}

const recorded = (): { cli: string; argv: string[]; stdin: string; cwd: string; step: string } => JSON.parse(readFileSync(record, "utf8"));
const instruction = "\n\nWhen you are done, end your reply with a final line of the form `OUTCOME: <name>`, where <name> is exactly one of: approved, changes_requested.";

describe("agent CLIs: invocation per CLI", () => {
  it("claude: -p <prompt> --output-format json --model <m> --allowedTools <list>", async () => {
    const r = await run("claude", { allow_tools: ["Read", "Bash(git diff:*)"], agent: { name: "reviewer", model: "claude-sonnet-4-5", config: {} } });
    expect(recorded().argv).toEqual([
      "-p", "Review the diff." + instruction, "--output-format", "json", "--model", "claude-sonnet-4-5", "--allowedTools", "Read,Bash(git diff:*)",
    ]);
    expect(r.outcome).toBe("approved");
    expect(r.reason).toBe("ok");
    expect(r.output).toMatchObject({ answer: "Done.\nOUTCOME: approved", exit_code: 0, session_id: "claude-session", cost_usd: 0.0123 });
  });

  it("codex: exec --json --model <m> -- <prompt>; the last agent_message is the answer", async () => {
    const r = await run("codex", { allow_tools: ["Read"], agent: { name: "coder", model: "gpt-5.3-codex", config: {} } }, { FAKE_ANSWER: "Fixed it.\nOUTCOME: changes_requested" });
    expect(recorded().argv).toEqual(["exec", "--json", "--model", "gpt-5.3-codex", "--", "Review the diff." + instruction]);
    expect(r.outcome).toBe("changes_requested");
    expect(r.output).toMatchObject({ answer: "Fixed it.\nOUTCOME: changes_requested", session_id: "codex-thread" });
  });

  it("copilot: -p <prompt> --output-format json --no-ask-user --model=<m> --allow-tool=<t>", async () => {
    const r = await run("copilot", { allow_tools: ["shell(git:*)", "write"], agent: { name: "executor", model: "gpt-5.3-codex", config: {} } });
    expect(recorded().argv).toEqual([
      "-p", "Review the diff." + instruction, "--output-format", "json", "--no-ask-user", "--model=gpt-5.3-codex", "--allow-tool=shell(git:*)", "--allow-tool=write",
    ]);
    expect(r.outcome).toBe("approved");
    expect(r.output).toMatchObject({ answer: "Done.\nOUTCOME: approved", session_id: "copilot-session" });
  });

  it("omits --model when no model is known, and uses config.model as a fallback", async () => {
    await run("claude");
    expect(recorded().argv).toEqual(["-p", "Review the diff." + instruction, "--output-format", "json"]);
    await run("claude", {}, {}, { model: "from-config" });
    expect(recorded().argv).toContain("from-config");
  });

  it("adds no outcome instruction when the step declares no outcomes", async () => {
    await run("codex", { outcomes: [] }, { FAKE_ANSWER: "ok" });
    expect(recorded().argv.at(-1)).toBe("Review the diff.");
  });

  it("puts config.args after the profile's flags", async () => {
    await run("codex", {}, {}, { args: ["--skip-git-repo-check", "--sandbox", "read-only"] });
    expect(recorded().argv).toEqual(["exec", "--json", "--skip-git-repo-check", "--sandbox", "read-only", "--", "Review the diff." + instruction]);
  });

  it("passes the step environment and runs in base_dir or input.cwd", async () => {
    await run("claude");
    expect(recorded()).toMatchObject({ step: "review", cwd: dir });
    await run("claude", { input: { prompt: "x", cwd: "work" } });
    expect(recorded().cwd).toBe(join(dir, "work"));
  });
});

describe("agent CLIs: prompt on stdin", () => {
  it("sends a prompt larger than maxArgBytes on stdin", async () => {
    const big = "x".repeat(500);
    const r = await run("codex", { input: { prompt: big } }, {}, {}, { maxArgBytes: 100 });
    expect(recorded().argv).toEqual(["exec", "--json", "-"]);
    expect(recorded().stdin).toBe(big + instruction);
    expect(r.outcome).toBe("approved");
    await run("claude", { input: { prompt: big } }, {}, {}, { maxArgBytes: 100 });
    expect(recorded().argv).toEqual(["-p", "--output-format", "json"]);
    expect(recorded().stdin).toBe(big + instruction);
  });

  it("sends a prompt starting with '-' on stdin, and obeys prompt_via", async () => {
    await run("copilot", { input: { prompt: "- list the files" } });
    expect(recorded().argv).toEqual(["--output-format", "json", "--no-ask-user"]);
    expect(recorded().stdin.startsWith("- list the files")).toBe(true);
    await run("claude", {}, {}, { prompt_via: "stdin" });
    expect(recorded().argv).toEqual(["-p", "--output-format", "json"]);
    const bad = await run("claude", {}, {}, { prompt_via: "pipe" });
    expect(bad.reason).toBe("adapter_error");
  });
});

describe("agent CLIs: choosing the outcome", () => {
  it("takes a JSON answer's outcome field and exposes its other fields", async () => {
    const answer = JSON.stringify({ outcome: "changes_requested", comments: "Duplicate sections are accepted.", severity: 2 });
    const r = await run("claude", {}, { FAKE_ANSWER: answer });
    expect(r.outcome).toBe("changes_requested");
    expect(r.output).toMatchObject({ comments: "Duplicate sections are accepted.", severity: 2, answer });
  });

  it("reads a fenced json block at the end of the answer", async () => {
    const answer = "Here is my review.\n\n```json\n{\"outcome\": \"approved\", \"comments\": \"LGTM\"}\n```";
    const r = await run("copilot", {}, { FAKE_ANSWER: answer });
    expect(r.outcome).toBe("approved");
    expect(r.output.comments).toBe("LGTM");
  });

  it("succeeds when no outcome is named; an outcome the step does not declare is kept, for the step's routing to refuse or default", async () => {
    const none = await run("claude", {}, { FAKE_ANSWER: "All good." });
    expect(none).toMatchObject({ outcome: "success", reason: "ok" });
    expect(none.detail).toBeUndefined();
    const undeclared = await run("claude", {}, { FAKE_ANSWER: "OUTCOME: merged" });
    expect(undeclared.outcome).toBe("merged");
    expect(undeclared.detail).toBe('claude: the agent answered OUTCOME "merged", which is not one of: approved, changes_requested');
  });

  it("matches names exactly, then ignoring case; the last marker line wins; emphasis is tolerated", () => {
    const declared = ["approved", "changes_requested"];
    expect(chooseOutcome("OUTCOME: Approved", declared).outcome).toBe("approved");
    expect(chooseOutcome("OUTCOME: approved\nthen more\nOUTCOME: changes_requested", declared).outcome).toBe("changes_requested");
    expect(chooseOutcome("**OUTCOME:** `approved`", declared).outcome).toBe("approved");
    expect(chooseOutcome("Outcome = approved.", declared).outcome).toBe("approved");
    expect(chooseOutcome("The outcome: approved is likely", declared).outcome).toBeUndefined();
    expect(chooseOutcome("OUTCOME: anything", []).outcome).toBe("anything");
    expect(chooseOutcome("{}", declared, { outcome: "APPROVED" })).toEqual({ outcome: "approved", claimed: "APPROVED" });
  });

  it("finds the answer object", () => {
    expect(answerObject('{"a": 1}')).toEqual({ a: 1 });
    expect(answerObject("text\n```json\n{\"b\": 2}\n```\n")).toEqual({ b: 2 });
    expect(answerObject("[1, 2]")).toBeUndefined();
    expect(answerObject("{ nope")).toBeUndefined();
  });

  it("appends the outcome instruction to the prompt", () => {
    expect(promptWithOutcomes("Do it.\n\n", ["a", "b"])).toBe("Do it.\n\nWhen you are done, end your reply with a final line of the form `OUTCOME: <name>`, where <name> is exactly one of: a, b.");
    expect(promptWithOutcomes("Do it.", [])).toBe("Do it.");
  });
});

describe("agent CLIs: failures", () => {
  it("maps a non-zero exit to failure / adapter_failed with stderr", async () => {
    const r = await run("claude", {}, { FAKE_EXIT: "2", FAKE_MODE: "text", FAKE_ANSWER: "", FAKE_STDERR: "not logged in" });
    expect(r).toMatchObject({ outcome: "failure", reason: "adapter_failed" });
    expect(r.detail).toBe("claude: exit code 2: not logged in");
    expect(r.output.stderr).toBe("not logged in\n");
  });

  it("maps an error reported in the JSON to failure / adapter_failed", async () => {
    expect(await run("claude", {}, { FAKE_MODE: "error", FAKE_ANSWER: "rate limited" })).toMatchObject({ outcome: "failure", reason: "adapter_failed", detail: "claude: rate limited" });
    expect(await run("codex", {}, { FAKE_MODE: "error" })).toMatchObject({ outcome: "failure", reason: "adapter_failed", detail: "codex: model overloaded" });
    expect(await run("copilot", {}, { FAKE_MODE: "error" })).toMatchObject({ outcome: "failure", reason: "adapter_failed", detail: "copilot: quota exceeded" });
  });

  it("accepts plain text output as the answer", async () => {
    const r = await run("copilot", {}, { FAKE_MODE: "text", FAKE_ANSWER: "Plain answer\nOUTCOME: changes_requested" });
    expect(r.outcome).toBe("changes_requested");
    expect(r.output.answer).toBe("Plain answer\nOUTCOME: changes_requested");
  });

  it("requires input.prompt", async () => {
    const r = await run("claude", { input: { task: "no prompt" } });
    expect(r).toMatchObject({ outcome: "failure", reason: "adapter_error" });
    expect(r.detail).toMatch(/input\.prompt is required/);
  });

  it("reports a CLI that is not installed", async () => {
    const adapter = createAgentCliAdapter("codex", { baseEnv: { PATH: join(dir, "work") } });
    const s = await adapter.open({}, context(dir));
    const r = await s.execute(request({ input: { prompt: "hi" } }));
    expect(r.reason).toBe("adapter_error");
    expect(r.detail).toMatch(/executable "codex" not found on PATH/);
  });

  it("runs config.command (relative to base_dir) or the agent's cli instead of the default name", async () => {
    const r = await run("claude", {}, {}, { command: "./bin/my-claude" });
    expect(r.outcome).toBe("approved");
    expect(recorded().cli).toBe("claude");
    await run("claude", { agent: { name: "a", config: { command: ["my-claude", "--verbose"] } } });
    expect(recorded().argv[0]).toBe("--verbose");
    await run("claude", {}, {}, { cli: "my-claude" });
    expect(recorded().argv[0]).toBe("-p");
  });

  it("kills the CLI on timeout and on cancellation", async () => {
    const t = await run("claude", { timeout_ms: 200 }, { FAKE_SLEEP_MS: "20000" }, {}, { killGraceMs: 200 });
    expect(t).toMatchObject({ outcome: "failure", reason: "timeout" });
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 200);
    const c = await run("codex", { signal: ctl.signal }, { FAKE_SLEEP_MS: "20000" });
    expect(c).toMatchObject({ outcome: "failure", reason: "cancelled" });
  });

  it("has one profile per CLI", () => {
    expect(Object.keys(CLI_PROFILES).sort()).toEqual(["claude", "codex", "copilot"]);
    for (const type of ["claude", "codex", "copilot"] as const) expect(createAgentCliAdapter(type).effectful).toBe(true);
  });
});

describe("agent CLIs: an undeclared outcome in a run", () => {
  /** A review step on the fake claude answering $FAKE_ANSWER; `extra` adds outcome blocks. */
  const flow = (extra = "") => `workflow "oc" {
  version = "1"
  initial_state = "review"
  target_state = "done"
}
adapter "claude" "default" {
  config {
    command = ["${bin}/claude"]
    env = { FAKE_ANSWER = "Tests ran.\\nOUTCOME: tests_failed" }
  }
}
step "review" {
  target = adapter.claude.default
  input { prompt = "Did the tests pass?" }
  outcome "success" { next = "done" }
  outcome "failure" { next = "failed" }
${extra}}
state "done" { terminal = true }
state "failed" {
  terminal = true
  success = false
}
state "other" {
  terminal = true
  success = false
}
`;
  const runFlow = async (text: string) => {
    const journal = new SqliteJournal(tempDir("criteria-agent-run-"));
    try {
      return await new Runner({ journal, adapterFor, baseDir: dir }).start(await graphOf(text), {}, "r");
    } finally {
      await journal.close();
    }
  };

  it("fails the run (unknown_outcome) instead of succeeding, as a shell step's would", async () => {
    const end = await runFlow(flow());
    expect(end).toMatchObject({ success: false, reason: "unknown_outcome" });
    expect(end.detail).toBe('step "review" ended in outcome "tests_failed", which it does not declare (declared: success, failure)');
  });

  it("takes the step's outcome \"default\" when it declares one", async () => {
    const end = await runFlow(flow('  outcome "default" { next = "other" }\n'));
    expect(end).toMatchObject({ state: "other", success: false });
  });
});
