/**
 * An agent's post made again when its step runs again after a crash (seed 002, "the journal
 * is truth"; found by an audit of the seeds' acceptance lists): the first record is the
 * message, delivered once, and the journal keeps that one record. Before, the redone post
 * was journaled a second time under the same message id with the retry's new text, which no
 * receiver ever got, and the agent was not told its text was dropped.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { JournalEntry } from "../../engine/journal/entry.js";
import { cli, entries, repo, start, temp, until } from "../pipeline/helpers.js";
import { messagesOf } from "./channel-agents.js";

const WORKFLOW = `workflow "crash_mid" {
  version       = "1"
  initial_state = "talk"
  target_state  = "done"
}
variable "side" { type = string }
agent "alice" { adapter = "shell" }
agent "bob" { adapter = "shell" }
channel "panel" {
  participants = [agent.alice, agent.bob]
}
step "talk" {
  target = agent.alice
  input {
    command = "criteria channel post panel --to bob --body attempt-$CRITERIA_ATTEMPT && if [ \\"$CRITERIA_ATTEMPT\\" = 1 ]; then touch '\${var.side}/posted' && sleep 60; fi"
  }
  outcome "success" { next = "listen" }
  outcome "failure" { next = "failed" }
}
step "listen" {
  target = agent.bob
  input {
    command = "criteria channel recv panel --timeout 10s; criteria channel recv panel --timeout 1s; echo second=$?"
  }
  outcome "success" { next = "done" }
  outcome "failure" { next = "failed" }
}
state "done" { terminal = true }
state "failed" {
  terminal = true
  success  = false
}
output "heard" { value = steps.listen.stdout }
`;

it("a post redone by the next attempt after a crash is not journaled again; the agent is told its different body was dropped", async () => {
  const dir = temp("criteria-replayed-post-");
  writeFileSync(join(dir, "main.hcl"), WORKFLOW);
  const side = join(dir, "side");
  mkdirSync(side);
  const state = join(dir, "state");
  const env = { PATH: `${join(repo, "bin")}:${process.env.PATH}` };
  // Attempt 1 posts, then is killed with its criteria process while it sleeps.
  const first = start(["apply", join(dir, "main.hcl"), "--var", `side=${side}`, "--state-dir", state, "--run-id", "m", "-o", "json"], { env });
  const exited = new Promise((r) => first.once("exit", r));
  await until(() => existsSync(join(side, "posted")), 30_000);
  process.kill(-first.pid!, "SIGKILL");
  await exited;
  expect(messagesOf(await entries(state, "m")).posts).toHaveLength(1);

  const again = cli(["resume", "m", "--state-dir", state, "-o", "json"], { env });
  expect(again.status, again.stderr + again.stdout).toBe(0);
  const en = await entries(state, "m");
  const { ids, posts, received } = messagesOf(en);
  // One record of the message: the first attempt's, which is what was delivered.
  expect(ids).toHaveLength(1);
  expect(posts.map((e) => [e.attempt, e.payload.message!.body])).toEqual([[1, "attempt-1"]]);
  expect(received).toHaveLength(1);
  // What the second attempt's agent was told, on stdout (the answer) and stderr.
  const talk = en.find((e): e is JournalEntry<"step.completed"> => e.entry_type === "step.completed" && e.step_id === "talk")!;
  const output = talk.payload.output as { stdout: string; stderr: string };
  expect(JSON.parse(output.stdout.trim())).toEqual({ id: ids[0], channel: "panel", from: "alice", to: "bob", replayed: true, body_dropped: true });
  expect(output.stderr).toContain("was posted by an earlier attempt of this step");
  expect(output.stderr).toContain("this different body was not sent");
  // The receiver heard the first body once, and nothing after it.
  const done = en.find((e): e is JournalEntry<"run.completed"> => e.entry_type === "run.completed" && e.run_id === "m")!.payload;
  const heard = String(done.outputs.heard).split("\n");
  expect(JSON.parse(heard[0])).toMatchObject({ id: ids[0], from: "alice", body: "attempt-1" });
  expect(heard.slice(1, 3)).toEqual(['{"timeout":true}', "second=1"]);
}, 60_000);
