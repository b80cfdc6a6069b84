/**
 * Channel steps (the channels issue; seed 002's acceptance list) on the embedded broker
 * (the run tree's journal): one effect per message boundary (a post, a receive), each
 * message seen exactly once across a real SIGKILL at every journal entry and a resume,
 * concurrent posts received in journal order, a bounded receive ending `timeout`, and a
 * participant computed at run time checked there.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compile } from "../../compiler/index.js";
import { adapterFor } from "../../engine/adapters/registry.js";
import type { JournalEntry } from "../../engine/journal/entry.js";
import { SqliteJournal } from "../../engine/journal/sqlite-journal.js";
import { Runner } from "../../engine/run/runner.js";
import { cli, entries, repo, temp } from "../pipeline/helpers.js";
import { graphOf } from "./graph-of.js";
import { messagesOf, watchFlushes } from "./channel-agents.js";

/** Agent `a` reviews, posts its notes to `b`; `b` reviews, then receives them. */
const CHAT = `workflow "chat" {
  version       = "1"
  initial_state = "a_review"
  target_state  = "done"
}
agent "a" {
  adapter = "local"
  config { script = "./a.json" }
}
agent "b" {
  adapter = "local"
  config { script = "./b.json" }
}
channel "c" {
  participants = [agent.a, agent.b]
}
step "a_review" {
  target = agent.a
  outcome "done" { next = "tell" }
}
step "tell" {
  target = channel.c
  input {
    post = { from = "a", to = "b", body = steps.a_review.notes }
  }
  outcome "success" { next = "b_review" }
}
step "b_review" {
  target = agent.b
  outcome "done" { next = "hear" }
}
step "hear" {
  target = channel.c
  input {
    recv = { as = "b", from = "a", timeout = "1m" }
  }
  outcome "received" { next = "done" }
  outcome "timeout"  { next = "failed" }
}
state "done" { terminal = true }
state "failed" {
  terminal = true
  success  = false
}
output "heard" { value = steps.hear.body }
`;

/** A workflow directory with CHAT and its agents' scripts. */
function chatDir(): string {
  const dir = temp("criteria-chan-");
  writeFileSync(join(dir, "main.hcl"), CHAT);
  writeFileSync(join(dir, "a.json"), JSON.stringify({ steps: { a_review: [{ outcome: "done", output: { notes: "line 42 logs a token" } }] } }));
  writeFileSync(join(dir, "b.json"), JSON.stringify({ steps: { b_review: [{ outcome: "done", output: { notes: "fine by me" } }] } }));
  return dir;
}

describe("channel steps", () => {
  it("one effect per message boundary: a post is recorded with its message, a receive confirmed naming it", async () => {
    const dir = chatDir();
    const state = join(dir, "state");
    const r = cli(["apply", join(dir, "main.hcl"), "--state-dir", state, "--run-id", "ref", "-o", "json"]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('"outputs":{"heard":"line 42 logs a token"}');
    const en = await entries(state, "ref");
    const { ids, posts, received } = messagesOf(en);
    expect(posts).toHaveLength(1);
    expect(posts[0].payload).toMatchObject({ kind: "post", channel: "c", message: { from: "a", to: "b", body: "line 42 logs a token" } });
    expect(received.map((e) => e.payload.received)).toEqual([{ channel: "c", scope: "ref", as: "b", id: ids[0] }]);
    expect(en.filter((e) => e.entry_type === "effect.recorded" && (e as JournalEntry<"effect.recorded">).payload.kind === "recv")).toHaveLength(1);
    // The timeline shows the messages.
    const timeline = cli(["journal", "ref", "--state-dir", state]);
    expect(timeline.stdout).toContain('post c: a → b "line 42 logs a token"');
    expect(timeline.stdout).toMatch(/received message \w{12}… from a/);
  });

  it("a SIGKILL at every journal entry, then resume: the receiver sees the one message exactly once", async () => {
    const dir = chatDir();
    const ref = join(dir, "ref");
    expect(cli(["apply", join(dir, "main.hcl"), "--state-dir", ref, "--run-id", "r"]).status).toBe(0);
    const total = (await entries(ref, "r")).length;
    const states = new Set<string>();
    let reached = 0;
    for (let n = 1; n < total; n++) {
      // An entry committed with an earlier kill point's: the same journal, already resumed from.
      if (n <= reached) continue;
      const state = join(dir, `k${n}`);
      const killed = cli(["apply", join(dir, "main.hcl"), "--state-dir", state, "--run-id", "r"], { env: { CRITERIA_FAULT_KILL_AFTER_SEQ: String(n) } });
      expect(killed.signal, `kill point ${n}: ${killed.stderr}`).toBe("SIGKILL");
      const before = await entries(state, "r");
      // Killed right after the transaction that wrote entry n (it may have written more).
      expect(before.at(-1)!.seq, `kill point ${n}`).toBeGreaterThanOrEqual(n);
      expect(before.some((e) => e.seq === n), `kill point ${n}`).toBe(true);
      states.add(before.at(-1)!.entry_type);
      reached = before.at(-1)!.seq;
      const resumed = cli(["resume", "r", "--state-dir", state, "-o", "json"]);
      expect(resumed.status, `kill point ${n}: ${resumed.stderr}`).toBe(0);
      expect(resumed.stdout, `kill point ${n}`).toContain('"outputs":{"heard":"line 42 logs a token"}');
      const { ids, received } = messagesOf(await entries(state, "r"));
      expect(ids, `kill point ${n}: one message`).toHaveLength(1);
      expect(received.map((e) => e.payload.received!.id), `kill point ${n}: received once`).toEqual(ids);
    }
    // Among them: after the post's record (before its confirmation) and after the receive's confirmation (before its step's completion).
    expect(states).toContain("effect.recorded");
    expect(states).toContain("effect.confirmed");
  }, 120_000);

  it("a post whose body is an object or a list is received as it was posted (found by a new-user trial: apply crashed)", async () => {
    const dir = temp("criteria-chan-");
    writeFileSync(
      join(dir, "main.hcl"),
      `workflow "shapes" {
  version       = "1"
  initial_state = "x_work"
  target_state  = "done"
}
agent "x" { adapter = "noop" }
agent "y" { adapter = "noop" }
channel "c" {
  participants = [agent.x, agent.y]
}
step "x_work" {
  target = agent.x
  outcome "success" { next = "y_work" }
}
step "y_work" {
  target = agent.y
  outcome "success" { next = "tell_map" }
}
step "tell_map" {
  target = channel.c
  input { post = { from = "x", to = "y", body = { k = 1, body = { deep = true } } } }
  outcome "success" { next = "tell_list" }
}
step "tell_list" {
  target = channel.c
  input { post = { from = "x", to = "y", body = [1, "two"] } }
  outcome "success" { next = "hear_map" }
}
step "hear_map" {
  target = channel.c
  input { recv = { as = "y", timeout = "5s" } }
  outcome "received" { next = "hear_list" }
  outcome "timeout" { next = "done" }
}
step "hear_list" {
  target = channel.c
  input { recv = { as = "y", timeout = "5s" } }
  outcome "received" { next = "done" }
  outcome "timeout" { next = "done" }
}
state "done" { terminal = true }
output "heard" { value = [steps.hear_map.body, steps.hear_list.body] }
`,
    );
    const r = cli(["apply", join(dir, "main.hcl"), "--state-dir", join(dir, "s"), "-o", "json"]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.stdout).toContain('"outputs":{"heard":[{"k":1,"body":{"deep":true}},[1,"two"]]}');
  }, 60_000);

  it("a receive killed while it waited goes on in the attempt it started, to its first deadline, when the run is resumed", async () => {
    const dir = temp("criteria-chan-");
    writeFileSync(
      join(dir, "main.hcl"),
      `workflow "lone" {
  version       = "1"
  initial_state = "y_work"
  target_state  = "done"
}
agent "x" { adapter = "noop" }
agent "y" { adapter = "noop" }
channel "c" {
  participants = [agent.x, agent.y]
}
step "y_work" {
  target = agent.y
  outcome "success" { next = "x_work" }
}
step "x_work" {
  target = agent.x
  outcome "success" { next = "hear" }
}
step "hear" {
  target = channel.c
  input { recv = { as = "y", timeout = "1s" } }
  outcome "received" { next = "done" }
  outcome "timeout" { next = "done" }
}
state "done" { terminal = true }
`,
    );
    const ref = join(dir, "ref");
    expect(cli(["apply", join(dir, "main.hcl"), "--state-dir", ref, "--run-id", "r"]).status).toBe(0);
    const recordedAt = (await entries(ref, "r")).find((e) => e.step_id === "hear" && e.entry_type === "effect.recorded")!.seq;
    const state = join(dir, "k");
    const killed = cli(["apply", join(dir, "main.hcl"), "--state-dir", state, "--run-id", "r"], { env: { CRITERIA_FAULT_KILL_AFTER_SEQ: String(recordedAt) } });
    expect(killed.signal, killed.stderr).toBe("SIGKILL");
    const resumed = cli(["resume", "r", "--state-dir", state]);
    expect(resumed.status, resumed.stderr).toBe(0);
    // Not a crashed attempt run again: it had taken nothing.
    expect(resumed.stdout + resumed.stderr).not.toMatch(/running it again/);
    const hear = (await entries(state, "r")).filter((e) => e.step_id === "hear");
    expect(hear.map((e) => `${e.entry_type} a${e.attempt}`)).toEqual(["step.attempt.started a1", "effect.recorded a1", "effect.confirmed a1", "step.completed a0"]);
    const recorded = hear[1] as JournalEntry<"effect.recorded">;
    expect(hear[2]).toMatchObject({ payload: { outcome: "timeout" } });
    expect(hear[2].at_ms).toBeGreaterThanOrEqual(recorded.payload.recv!.until_ms);
  }, 60_000);

  it("concurrent posts to one receiver are received in journal order; a receive with nothing left ends timeout", async () => {
    const g = await graphOf(`workflow "order" {
  version       = "1"
  initial_state = "x_work"
  target_state  = "done"
}
agent "x" { adapter = "noop" }
agent "y" { adapter = "noop" }
agent "z" { adapter = "noop" }
channel "c" {
  participants = [agent.x, agent.y, agent.z]
}
step "x_work" {
  target = agent.x
  outcome "success" { next = "y_work" }
}
step "y_work" {
  target = agent.y
  outcome "success" { next = "fan" }
}
step "fan" {
  parallel = ["x", "y"]
  workflow {
    step "say" {
      target = channel.c
      input { post = { from = each.value, to = "z", body = "from \${each.value}" } }
      outcome "success" { next = "_continue" }
    }
  }
  outcome "all_succeeded" { next = "z_work" }
}
step "z_work" {
  target = agent.z
  outcome "success" { next = "first" }
}
step "first" {
  target = channel.c
  input { recv = { as = "z", timeout = "1m" } }
  outcome "received" { next = "second" }
  outcome "timeout" { next = "done" }
}
step "second" {
  target = channel.c
  input { recv = { as = "z", timeout = "1m" } }
  outcome "received" { next = "third" }
  outcome "timeout" { next = "done" }
}
step "third" {
  target = channel.c
  input { recv = { as = "z", timeout = "10s" } }
  outcome "received" { next = "done" }
  outcome "timeout"  { next = "done" }
}
state "done" { terminal = true }
output "heard" { value = [steps.first.body, steps.second.body] }
output "third" { value = steps.third }
`);
    const journal = new SqliteJournal(mkdtempSync(join(tmpdir(), "criteria-chan-order-")));
    // Which appends asked for a flush (docs/architecture.md, What is flushed).
    const flushes = watchFlushes(journal);
    let now = 1_000_000;
    const runner = new Runner({ journal, adapterFor, baseDir: tmpdir(), pollMs: 1000, clock: () => now, sleep: async (ms) => void (now += ms) });
    const end = await runner.start(g, {}, "o");
    const en = (await journal.read("o")).entries;
    await journal.close();
    // Nothing of a channel step is flushed on its own: its post, its receive, their completions
    // (nothing outside the journal acts on them before the run's end, which is flushed).
    expect(flushes.unflushed).toEqual(expect.arrayContaining(["say effect.recorded post", "say effect.recorded post", "say step.completed", "first effect.recorded recv", "first effect.confirmed received", "first step.completed", "second effect.confirmed received"]));
    expect(flushes.flushed.filter((l) => /^(say|first|second|third) /.test(l))).toEqual([]);
    expect(flushes.flushed).toContain(" run.completed");
    // The two parallel posters' appends, asked in the same turns, shared commits (group commit).
    expect(Math.max(0, ...flushes.groups)).toBeGreaterThanOrEqual(2);
    // Both messages were there when "first" and "second" started: each took its message in its record's commit.
    for (const step of ["first", "second"]) expect(flushes.appends).toContainEqual([`${step} step.attempt.started`, `${step} effect.recorded recv`, `${step} effect.confirmed received`]);
    // "third" found nothing: its record came alone, its timeout with its completion.
    expect(flushes.appends).toContainEqual(["third step.attempt.started", "third effect.recorded recv"]);
    // The order the posts were journaled in, whichever item ran first.
    const order = messagesOf(en).posts.map((e) => (e.payload.message!.body as string));
    expect(end).toMatchObject({ state: "done", success: true, outputs: { heard: order, third: {} } });
    expect(en.find((e) => e.entry_type === "step.completed" && e.step_id === "third")?.payload).toMatchObject({ outcome: "timeout" });
  });

  it("a scripted local agent posts and receives mid-step (its script's channel actions); a refused call fails the step", async () => {
    const dir = temp("criteria-chan-local-");
    const lens = (me: string, other: string, first: "post" | "recv") => {
      const post = { post: { channel: "panel", from: me, to: other, body: `${me} says hi` } };
      const recv = { recv: { channel: "panel", as: me, from: other, timeout: "30s", into: "heard" } };
      return JSON.stringify({ steps: { [`${me}_review`]: [{ outcome: "done", output: { lens: me }, channel: first === "post" ? [post, recv] : [recv, post] }] } });
    };
    writeFileSync(join(dir, "security.json"), lens("security", "maintainability", "post"));
    writeFileSync(join(dir, "maintainability.json"), lens("maintainability", "security", "recv"));
    writeFileSync(join(dir, "rogue.json"), JSON.stringify({ steps: { rogue_review: [{ outcome: "done", channel: [{ post: { channel: "panel", from: "security", to: "maintainability", body: "x" } }] }] } }));
    const src = (extra: string) => `workflow "local_talk" {
  version       = "1"
  initial_state = "lenses"
  target_state  = "done"
}
agent "security" {
  adapter = "local"
  config { script = "./security.json" }
}
agent "maintainability" {
  adapter = "local"
  config { script = "./maintainability.json" }
}
agent "rogue" {
  adapter = "local"
  config { script = "./rogue.json" }
}
channel "panel" {
  participants = [agent.security, agent.maintainability]
}
step "lenses" {
  parallel = ["security", "maintainability"]
  workflow {
    initial_state = "pick"
    branch "pick" {
      arm {
        when = each.value == "security"
        next = "security_review"
      }
      default { next = "maintainability_review" }
    }
    step "security_review" {
      target = agent.security
      outcome "done" { next = "return" }
    }
    step "maintainability_review" {
      target = agent.maintainability
      outcome "done" { next = "return" }
    }
  }
  outcome "all_succeeded" { next = "${extra ? "rogue_review" : "done"}" }
  outcome "any_failed"    { next = "failed" }
}
${extra}
state "done" { terminal = true }
state "failed" {
  terminal = true
  success  = false
}
output "heard" { value = [for o in steps.lenses : o.heard] }
`;
    const run = async (text: string) => {
      writeFileSync(join(dir, "main.hcl"), text);
      const c = await compile(join(dir, "main.hcl"));
      expect(c.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      const g = c.graph!;
      const journal = new SqliteJournal(mkdtempSync(join(tmpdir(), "criteria-chan-local-state-")));
      const end = await new Runner({ journal, adapterFor, baseDir: dir, pollMs: 20 }).start(g, {}, "l");
      const en = (await journal.read("l")).entries;
      await journal.close();
      return { end, en };
    };
    const { end, en } = await run(src(""));
    expect(end).toMatchObject({ state: "done", outputs: { heard: ["maintainability says hi", "security says hi"] } });
    expect(messagesOf(en).ids).toHaveLength(2);
    // An agent that takes part in no channel has no access: its step fails, saying why.
    const rogue = `step "rogue_review" {\n  target = agent.rogue\n  outcome "done" { next = "done" }\n  outcome "failure" { next = "failed" }\n}`;
    const bad = await run(src(rogue));
    expect(bad.end.state).toBe("failed");
    const failed = bad.en.find((e) => e.entry_type === "step.completed" && e.step_id === "rogue_review")?.payload as { detail?: string } | undefined;
    expect(failed?.detail).toContain('step "rogue_review" has no channel access');
  });

  describe("found by a new-user trial", () => {
    const env = { PATH: `${join(repo, "bin")}:${process.env.PATH}` };
    const shellAgents = (...names: string[]) => names.map((n) => `agent "${n}" {\n  adapter = "shell"\n}\n`).join("");
    const head = (name: string, first: string) => `workflow "${name}" {\n  version = "1"\n  initial_state = "${first}"\n  target_state = "done"\n}\n`;
    const run = (dir: string, text: string, extra: string[] = []) => {
      writeFileSync(join(dir, "main.hcl"), text);
      return cli(["apply", join(dir, "main.hcl"), "--state-dir", join(dir, "state"), "--run-id", "t", "-o", "json", ...extra], { env });
    };

    it("a receive of a step that ended (its timeout killed the agent) takes nothing: the next receive gets the message", async () => {
      const dir = temp("criteria-chan-ghost-");
      const r = run(
        dir,
        `${head("ghost", "b_waits")}${shellAgents("a", "b")}channel "ch" {\n  participants = [agent.a, agent.b]\n}
step "b_waits" {
  target  = agent.b
  timeout = "1s"
  input { command = "criteria channel recv ch --as b --timeout 30s" }
  outcome "success" { next = "a_posts" }
  outcome "failure" { next = "a_posts" }
}
step "a_posts" {
  target = agent.a
  input { command = "criteria channel post ch --to b --body 'important message'" }
  outcome "success" { next = "b_hears" }
}
step "b_hears" {
  target = channel.ch
  input {
    recv = { as = "b", timeout = "5s" }
  }
  outcome "received" { next = "done" }
  outcome "timeout" { next = "lost" }
}
state "done" { terminal = true }
state "lost" {
  terminal = true
  success = false
}
`,
      );
      expect(r.status, r.stdout + r.stderr).toBe(0);
      const taken = messagesOf(await entries(join(dir, "state"), "t")).received.map((e) => e.step_id);
      expect(taken).toEqual(["b_hears"]);
    }, 30_000);

    it("a module's own channel, and each body's, is not its caller's or its sibling's of the same name", async () => {
      const dir = temp("criteria-chan-scope-");
      mkdirSync(join(dir, "mod"));
      writeFileSync(
        join(dir, "mod", "main.hcl"),
        `${head("mod", "c")}  \n${shellAgents("c")}workflow {\n}\n`.replace("workflow {\n}\n", "") +
          `channel "panel" {\n  participants = [agent.b, agent.c]\n}\nstep "c" {\n  target = agent.c\n  input { command = "true" }\n  outcome "success" { next = "b" }\n}\nstep "b" {\n  target = agent.b\n  input { command = "true" }\n  outcome "success" { next = "hear" }\n}\nstep "hear" {\n  target = channel.panel\n  input {\n    recv = { as = "b", timeout = "1s" }\n  }\n  outcome "received" { next = "done" }\n  outcome "timeout" { next = "done" }\n}\nstate "done" { terminal = true }\n`,
      );
      // The module expects the caller's agent b.
      writeFileSync(join(dir, "mod", "main.hcl"), readFileSync(join(dir, "mod", "main.hcl"), "utf8").replace('target_state = "done"\n}', 'target_state = "done"\n  expects {\n    agents = [agent.b]\n  }\n}'));
      const r = run(
        dir,
        `${head("scoped", "a")}${shellAgents("a", "b")}channel "panel" {\n  participants = [agent.a, agent.b]\n}
subworkflow "mod" {
  source = "./mod"
  agents = [agent.b]
}
step "a" {
  target = agent.a
  input { command = "true" }
  outcome "success" { next = "root_post" }
}
step "root_post" {
  target = channel.panel
  input {
    post = { from = "a", to = "b", body = "ROOT message for root's b" }
  }
  outcome "success" { next = "call" }
}
step "call" {
  target = subworkflow.mod
  outcome "success" { next = "b" }
  outcome "failure" { next = "done" }
}
step "b" {
  target = agent.b
  input { command = "true" }
  outcome "success" { next = "hear" }
}
step "hear" {
  target = channel.panel
  input {
    recv = { as = "b", timeout = "5s" }
  }
  outcome "received" { next = "done" }
  outcome "timeout" { next = "done" }
}
state "done" { terminal = true }
`,
      );
      expect(r.status, r.stdout + r.stderr).toBe(0);
      const en = await entries(join(dir, "state"), "t");
      const outcome = (run: string, step: string) => (en.find((e) => e.entry_type === "step.completed" && e.run_id === run && e.step_id === step)?.payload as { outcome: string }).outcome;
      expect(outcome("t/call#1", "hear")).toBe("timeout"); // the module's panel is its own
      expect(outcome("t", "hear")).toBe("received"); // the root's b gets the root's message
    }, 30_000);

    it("an agent posts and receives as itself only; a message over 256 KiB is refused, saying so", async () => {
      const dir = temp("criteria-chan-self-");
      writeFileSync(join(dir, "big"), "x".repeat(300 * 1024));
      const r = run(
        dir,
        `${head("self", "alice")}${shellAgents("alice", "bob")}channel "chat" {\n  participants = [agent.alice, agent.bob]\n}
step "alice" {
  target = agent.alice
  input { command = "criteria channel post chat --from bob --to alice --body 'I am bob'; echo rc=$?; criteria channel recv chat --as bob --timeout 1s; echo rc=$?; criteria channel post chat --to bob --body-file '${join(dir, "big")}'; echo rc=$?" }
  outcome "success" { next = "bob" }
}
step "bob" {
  target = agent.bob
  input { command = "true" }
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
`,
      );
      expect(r.status, r.stderr).toBe(0);
      const out = JSON.stringify((await entries(join(dir, "state"), "t")).find((e) => e.entry_type === "step.completed" && e.step_id === "alice")?.payload);
      expect(out).toContain(`from \\\"bob\\\": this step's agent is \\\"alice\\\", and it posts as itself only`);
      expect(out).toContain("and it receives as itself only");
      expect(out).toContain("a message is at most 262144 (256 KiB)");
      expect(out.match(/rc=1/g)).toHaveLength(3);
      expect(messagesOf(await entries(join(dir, "state"), "t")).posts).toEqual([]);
    }, 30_000);

    it("a bad or unreachable --broker is refused before the run starts, without a stack trace", async () => {
      const dir = temp("criteria-chan-broker-");
      const text = `${head("b", "x")}${shellAgents("x", "y")}channel "c" {\n  participants = [agent.x, agent.y]\n}\nstep "x" {\n  target = agent.x\n  input { command = "true" }\n  outcome "success" { next = "y" }\n}\nstep "y" {\n  target = agent.y\n  input { command = "true" }\n  outcome "success" { next = "done" }\n}\nstate "done" { terminal = true }\n`;
      for (const bad of ["nats://127.0.0.1:99999", "nats://host:notaport", "nats://u:pw@127.0.0.1:4222", "http://127.0.0.1:4222"]) {
        const r = run(dir, text, ["--broker", bad]);
        expect(r.status, bad).toBe(2);
        expect(r.stderr).toContain(`--broker ${bad}: a NATS server's URL`);
      }
      const r = run(dir, text, ["--broker", "nats://127.0.0.1:1"]);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/cannot reach the NATS broker nats:\/\/127\.0\.0\.1:1: /);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(cli(["runs", "--state-dir", join(dir, "state")]).stdout).not.toContain("t ");
    }, 30_000);
  });
});
