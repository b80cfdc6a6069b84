/**
 * Channel receives under `criteria worker` (the channels issue's "a receive under workers
 * holds its job"; the scale-out issue, item 4), on a real PostgreSQL cluster: a receive
 * with nothing to take parks like a signal wait (its job ends, its lease is given back),
 * a post to it wakes its run's job in the journal, and its deadline wakes it through a
 * timer job; the receive goes on in the attempt it started.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import type { JournalEntry } from "../../../engine/journal/entry.js";
import { cli, temp } from "../../pipeline/helpers.js";
import { useCluster } from "../journal/postgres-cluster.js";
import { runs, startWorker, stopWorker, until, type WorkerProcess } from "./helpers.js";

const { skip, cluster } = useCluster();

const HEAD = `workflow "w" {
  version       = "1"
  initial_state = "x_work"
  target_state  = "done"
}
state "done" { terminal = true }
state "failed" {
  terminal = true
  success  = false
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
`;

/**
 * Two parallel bodies: one receives (30 s bound), the other waits for signal "go", which the
 * test sends once the receive has parked, then posts to it (a fixed second's pause let the
 * post come first on a loaded machine: the receive then never parked).
 */
const PAIR = `${HEAD}step "y_work" {
  target = agent.y
  outcome "success" { next = "pair" }
}
step "pair" {
  parallel = ["hear", "tell"]
  workflow {
    entry = "which"
    branch "which" {
      arm {
        when = each.value == "hear"
        next = "hear"
      }
      default {
        next = "pause"
      }
    }
    step "hear" {
      target = channel.c
      input { recv = { as = "y", from = "x", timeout = "30s" } }
      outcome "received" { next = "_continue" }
      outcome "timeout" { next = "_continue" }
    }
    wait "pause" {
      signal = "go"
      next   = "tell"
    }
    step "tell" {
      target = channel.c
      input { post = { from = "x", to = "y", body = "hello y" } }
      outcome "success" { next = "_continue" }
    }
  }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "failed" }
}
`;

/** A receive nobody posts to, bounded at 10 s (time enough for another run on a loaded machine). */
const LONELY = `${HEAD}step "y_work" {
  target = agent.y
  outcome "success" { next = "hear" }
}
step "hear" {
  target = channel.c
  input { recv = { as = "y", timeout = "10s" } }
  outcome "received" { next = "failed" }
  outcome "timeout" { next = "done" }
}
`;

const QUICK = `workflow "q" {
  version       = "1"
  initial_state = "one"
  target_state  = "done"
}
state "done" { terminal = true }
adapter "noop" "default" {}
step "one" {
  target = adapter.noop.default
  outcome "success" { next = "done" }
}
`;

/**
 * Two parallel bodies in conversation, `rounds` pings and pongs, each receive bounded at 24 h.
 * `inJob`: the pinging body starts with an agent step, so the bodies stay in their caller's
 * job (a live agent session cannot move); otherwise each body runs in a job of its own.
 * (Found by a new-user trial: the detached form left runs parked for their whole timeout,
 * and the in-job form took 2 s a message.)
 */
function pingPong(rounds: number, inJob: boolean): string {
  const steps: string[] = [];
  for (let i = 1; i <= rounds; i++) {
    const last = i === rounds;
    steps.push(`    step "a_p${i}" {
      target = channel.c
      input { post = { from = "x", to = "y", body = "ping ${i}" } }
      outcome "success" { next = "a_r${i}" }
    }
    step "a_r${i}" {
      target = channel.c
      input { recv = { as = "x", from = "y", timeout = "24h" } }
      outcome "received" { next = "${last ? "_continue" : `a_p${i + 1}`}" }
      outcome "timeout" { next = "_continue" }
    }
    step "b_r${i}" {
      target = channel.c
      input { recv = { as = "y", from = "x", timeout = "24h" } }
      outcome "received" { next = "b_p${i}" }
      outcome "timeout" { next = "_continue" }
    }
    step "b_p${i}" {
      target = channel.c
      input { post = { from = "y", to = "x", body = "pong ${i}" } }
      outcome "success" { next = "${last ? "_continue" : `b_r${i + 1}`}" }
    }`);
  }
  return `${HEAD}step "y_work" {
  target = agent.y
  outcome "success" { next = "talk" }
}
step "talk" {
  parallel = ["a", "b"]
  workflow {
    entry = "which"
    branch "which" {
      arm {
        when = each.value == "a"
        next = "${inJob ? "a_think" : "a_p1"}"
      }
      default {
        next = "b_r1"
      }
    }
${inJob ? `    step "a_think" {
      target = agent.x
      outcome "success" { next = "a_p1" }
    }
` : ""}${steps.join("\n")}
  }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "failed" }
}
`;
}

/** The run tree's journal as `criteria journal RUN -o json` prints it. */
function journalOf(url: string, run: string): JournalEntry[] {
  const r = cli(["journal", run, "--store", url, "-o", "json"]);
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim().split("\n").map((l) => JSON.parse(l) as JournalEntry);
}

describe.skipIf(skip !== undefined)("channel receives under workers", () => {
  const workers: WorkerProcess[] = [];
  afterAll(async () => {
    for (const w of workers) await stopWorker(w);
  });

  const submit = (url: string, dir: string, name: string, text: string, run: string) => {
    writeFileSync(join(dir, `${name}.hcl`), text);
    const r = cli(["apply", join(dir, `${name}.hcl`), "--store", url, "--state-dir", join(dir, "s"), "--run-id", run, "--detach", "-o", "text"]);
    expect(r.status, r.stderr).toBe(0);
  };

  it("a receive with nothing to take parks; the post journaled later wakes it, and it takes the message in the attempt it started", async () => {
    const url = await cluster().freshDatabase();
    const dir = temp("criteria-wk-chan-");
    submit(url, dir, "pair", PAIR, "pair");
    const w = startWorker(url, join(dir, "w"));
    workers.push(w);
    await vi.waitFor(() => expect(w.out()).toMatch(/parked, waiting for a message on channel \\"c\\"/), { timeout: 25_000, interval: 100 });
    const go = cli(["signal", "pair", "go", "--store", url]);
    expect(go.status, go.stderr).toBe(0);
    const rows = await until(url, (r) => r.some((x) => x.run_id === "pair" && x.status !== "active"), 25_000);
    expect(rows.find((r) => r.run_id === "pair"), w.out()).toMatchObject({ status: "succeeded", final_state: "done" });
    expect(w.out()).toMatch(/parked, waiting for a message on channel \\"c\\" for \\"y\\" from \\"x\\" \(until \d{4}-/);
    const en = journalOf(url, "pair");
    const hear = en.filter((e) => e.step_id === "hear");
    // One attempt, one record, one confirmation naming the message: woken, it went on.
    expect(hear.map((e) => e.entry_type)).toEqual(["step.attempt.started", "effect.recorded", "effect.confirmed", "step.completed"]);
    const confirmed = hear[2] as JournalEntry<"effect.confirmed">;
    expect(confirmed.payload).toMatchObject({ outcome: "received", output: { from: "x", body: "hello y" } });
    // Woken by the post, not by its 30 s deadline.
    const posted = en.find((e) => e.entry_type === "effect.recorded" && (e as JournalEntry<"effect.recorded">).payload.kind === "post")!;
    expect(confirmed.at_ms - posted.at_ms).toBeLessThan(10_000);
  }, 40_000);

  it("conversations between parallel bodies, each in its own job and both in one job: every message received once, no receive waits out its 24 h", async () => {
    const url = await cluster().freshDatabase();
    const dir = temp("criteria-wk-chan-");
    // The workers first, then the runs, one after another (the trial's order: the runs'
    // units then interleave on both workers).
    for (let i = 0; i < 2; i++) workers.push(startWorker(url, join(dir, `w${i}`)));
    for (let i = 0; i < 6; i++) submit(url, dir, `detached${i}`, pingPong(2, false), `d${i}`);
    for (let i = 0; i < 2; i++) submit(url, dir, `injob${i}`, pingPong(3, true), `j${i}`);
    const rows = await until(url, (r) => r.length === 8 && r.every((x) => x.status !== "active"), 60_000);
    expect(rows.map((r) => [r.run_id, r.status]).sort(), workers.map((w) => w.out()).join("\n").slice(-4000)).toEqual([...["d0", "d1", "d2", "d3", "d4", "d5", "j0", "j1"].map((r) => [r, "succeeded"])]);
    for (const r of rows) {
      const en = journalOf(url, r.run_id);
      const posts = en.filter((e) => e.entry_type === "effect.recorded" && (e as JournalEntry<"effect.recorded">).payload.kind === "post");
      const received = en.filter((e) => e.entry_type === "effect.confirmed" && (e as JournalEntry<"effect.confirmed">).payload.received !== undefined) as JournalEntry<"effect.confirmed">[];
      const rounds = r.run_id.startsWith("d") ? 2 : 3;
      expect(posts, r.run_id).toHaveLength(2 * rounds);
      expect(received.map((e) => e.payload.received!.id).sort(), r.run_id).toEqual(posts.map((e) => (e as JournalEntry<"effect.recorded">).payload.message!.id).sort());
      if (r.run_id.startsWith("j")) {
        // One job: a receive waits in the process while its sibling works, each message at once.
        const first = en.find((e) => e.step_id === "a_p1")!.at_ms;
        const last = en.find((e) => e.entry_type === "run.completed" && e.run_id === r.run_id)!.at_ms;
        expect(last - first, r.run_id).toBeLessThan(8_000);
      }
    }
  }, 90_000);

  it("a parked receive holds no job: with one job at a time another run finishes meanwhile; its deadline wakes it to its timeout", async () => {
    const url = await cluster().freshDatabase();
    const dir = temp("criteria-wk-chan-");
    const w = startWorker(url, join(dir, "w"), {}, 1);
    workers.push(w);
    submit(url, dir, "lonely", LONELY, "lonely");
    await until(url, () => /run lonely parked, waiting for a message on channel/.test(w.out()), 20_000);
    submit(url, dir, "quick", QUICK, "quick");
    const done = await until(url, (r) => r.filter((x) => x.status !== "active").length === 2, 30_000);
    expect(done.find((r) => r.run_id === "quick"), w.out()).toMatchObject({ status: "succeeded" });
    expect(done.find((r) => r.run_id === "lonely"), w.out()).toMatchObject({ status: "succeeded", final_state: "done" });
    const hear = journalOf(url, "lonely").filter((e) => e.step_id === "hear");
    expect(hear.map((e) => e.entry_type)).toEqual(["step.attempt.started", "effect.recorded", "effect.confirmed", "step.completed"]);
    const recorded = hear[1] as JournalEntry<"effect.recorded">;
    const confirmed = hear[2] as JournalEntry<"effect.confirmed">;
    expect(confirmed.payload.outcome).toBe("timeout");
    expect(confirmed.at_ms).toBeGreaterThanOrEqual(recorded.payload.recv!.until_ms);
    // The other run ended before the receive's deadline: the worker's one job was free.
    const quickEnd = journalOf(url, "quick").find((e) => e.entry_type === "run.completed")!;
    expect(quickEnd.at_ms).toBeLessThan(recorded.payload.recv!.until_ms);
    expect(runs(url).every((r) => r.status === "succeeded")).toBe(true);
  }, 40_000);
});
