/**
 * Channel benchmarks (the channels issue, "Done when"): on the embedded broker (the run
 * tree's SQLite journal), a sender item posts N messages while a receiver item, in
 * parallel, receives them one by one. Figures: post→recv latency p50/p99 (from a post's
 * record to the receive that took it, as the journal's clock saw them) and journaled
 * messages per second, as a fraction of a bare SQLite insert-and-commit loop on the same
 * disk in the same run (WAL, synchronous=FULL). Goals: latency p99 under 10 ms; messages
 * per second ≥ 0.5× the bare commit rate. Then agents posting and receiving mid-step
 * through the channel endpoint, over HTTP and over NATS (a `nats-server` started here; the
 * NATS figures are skipped, saying so, without one). Prints figures; asserts nothing.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compile } from "../compiler/index.js";
import { adapterFor } from "../engine/adapters/registry.js";
import type { JournalEntry, Payloads } from "../engine/journal/entry.js";
import { SqliteJournal } from "../engine/journal/sqlite-journal.js";
import { Runner } from "../engine/run/runner.js";
import { sqliteLimit } from "./engine.js";
import { fmt, fmtRatio, printTable, progress, verdict, type Verdict } from "./report.js";
import { median, percentile } from "./stats.js";

/** Figures of the channel benchmark (also written to bench/out/latest.json). */
export interface ChannelsReport {
  messages: number;
  sqlite_commits_per_s: number;
  messages_per_s: number;
  ratio_to_limit: number;
  latency_ms: { p50: number; p99: number };
  commits_per_message: number;
  appends_per_message: number;
  /** Agents posting and receiving mid-step through the endpoint, per transport. */
  agents: { http?: AgentFigures; nats?: AgentFigures; nats_skipped?: string };
  verdicts: Record<string, Verdict>;
}

/** Messages per second and post→recv latency (ms) of agents' round trips. */
interface AgentFigures {
  messages_per_s: number;
  p50: number;
  p99: number;
}

/** A sender posting `n` messages and a receiver taking them, as two parallel items. */
export function exchange(n: number): string {
  return `workflow "bench_channels" {
  version       = "1"
  initial_state = "warm"
  target_state  = "done"
}
policy {
  max_total_steps = 1000000
}
agent "sender" { adapter = "noop" }
agent "receiver" { adapter = "noop" }
channel "c" {
  participants = [agent.sender, agent.receiver]
}
step "warm" {
  target = agent.sender
  outcome "success" { next = "warm2" }
}
step "warm2" {
  target = agent.receiver
  outcome "success" { next = "pair" }
}
step "pair" {
  parallel = ["send", "take"]
  workflow {
    initial_state = "which"
    branch "which" {
      arm {
        when = each.value == "send"
        next = "send"
      }
      default { next = "take" }
    }
    step "send" {
      count  = ${n}
      target = channel.c
      input { post = { from = "sender", to = "receiver", body = "message \${each._idx}" } }
      outcome "success" { next = "_continue" }
      outcome "all_succeeded" { next = "return" }
    }
    step "take" {
      count  = ${n}
      target = channel.c
      input { recv = { as = "receiver", from = "sender", timeout = "1m" } }
      outcome "received" { next = "_continue" }
      outcome "timeout" { next = "_continue" }
      outcome "all_succeeded" { next = "return" }
    }
  }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "failed" }
}
state "done" { terminal = true }
state "failed" {
  terminal = true
  success  = false
}
`;
}

/**
 * Ping-pong for latency: in each of `n` rounds `ping` posts and then waits for `pong`'s
 * answer, which `pong` posts once it received the ping: every message finds its receiver
 * already waiting, so the time from its record to its receipt is the delivery latency.
 */
export function pingPong(n: number): string {
  const round = (me: string, other: string, first: "say" | "hear") => `    step "${me}_round" {
      count  = ${n}
      workflow {
        initial_state = "${first}"
        step "say" {
          target = channel.c
          input { post = { from = "${me}", to = "${other}", body = "round \${each._idx}" } }
          outcome "success" { next = "${first === "say" ? "hear" : "return"}" }
        }
        step "hear" {
          target = channel.c
          input { recv = { as = "${me}", from = "${other}", timeout = "1m" } }
          outcome "received" { next = "${first === "say" ? "return" : "say"}" }
          outcome "timeout"  { next = "return" }
        }
      }
      outcome "all_succeeded" { next = "return" }
      outcome "any_failed" { next = "return" }
    }`;
  return exchange(0)
    .replace(/agent "sender"[\s\S]*$/, "")
    .concat(`agent "ping" { adapter = "noop" }
agent "pong" { adapter = "noop" }
channel "c" {
  participants = [agent.ping, agent.pong]
}
step "warm" {
  target = agent.ping
  outcome "success" { next = "warm2" }
}
step "warm2" {
  target = agent.pong
  outcome "success" { next = "pair" }
}
step "pair" {
  parallel = ["ping", "pong"]
  workflow {
    initial_state = "which"
    branch "which" {
      arm {
        when = each.value == "ping"
        next = "ping_round"
      }
      default { next = "pong_round" }
    }
${round("ping", "pong", "say")}
${round("pong", "ping", "hear")}
  }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "failed" }
}
state "done" { terminal = true }
state "failed" {
  terminal = true
  success  = false
}
`);
}

/**
 * Ping-pong between two scripted `local` agents that post and receive mid-step through the
 * channel endpoint (`criteria channel`'s path): `rounds` round trips in one step each, over
 * HTTP on 127.0.0.1, or over NATS with `broker`. Every message is still journaled.
 */
export function agentPingPong(rounds: number, dir: string): string {
  const post = (me: string, other: string) => ({ post: { channel: "c", from: me, to: other, body: "ping" } });
  const recv = (me: string, other: string) => ({ recv: { channel: "c", as: me, from: other, timeout: "1m" } });
  const actions = (me: string, other: string, first: boolean) =>
    Array.from({ length: rounds }, () => (first ? [post(me, other), recv(me, other)] : [recv(me, other), post(me, other)])).flat();
  writeFileSync(join(dir, "ping.json"), JSON.stringify({ steps: { ping_step: [{ outcome: "done", channel: actions("ping", "pong", true) }] } }));
  writeFileSync(join(dir, "pong.json"), JSON.stringify({ steps: { pong_step: [{ outcome: "done", channel: actions("pong", "ping", false) }] } }));
  return `workflow "bench_agents" {
  version       = "1"
  initial_state = "pair"
  target_state  = "done"
}
agent "ping" {
  adapter = "local"
  config { script = "./ping.json" }
}
agent "pong" {
  adapter = "local"
  config { script = "./pong.json" }
}
channel "c" {
  participants = [agent.ping, agent.pong]
}
step "pair" {
  parallel = ["ping", "pong"]
  workflow {
    initial_state = "which"
    branch "which" {
      arm {
        when = each.value == "ping"
        next = "ping_step"
      }
      default { next = "pong_step" }
    }
    step "ping_step" {
      target = agent.ping
      outcome "done" { next = "return" }
    }
    step "pong_step" {
      target = agent.pong
      outcome "done" { next = "return" }
    }
  }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "failed" }
}
state "done" { terminal = true }
state "failed" {
  terminal = true
  success  = false
}
`;
}

/**
 * Runs a channel workflow on a fresh journal and reads the figures off it: its time, each
 * message's latency (record to receipt, by the journal's clock) and the appends it took.
 * @throws Error when the workflow does not compile or the run does not succeed
 */
export async function runExchange(source: string | ((dir: string) => string), broker?: string): Promise<{ ms: number; latencies: number[]; commits: number; appends: number }> {
  const dir = mkdtempSync(join(tmpdir(), "criteria-bench-ch-"));
  try {
    writeFileSync(join(dir, "main.hcl"), typeof source === "string" ? source : source(dir));
    const c = await compile(join(dir, "main.hcl"));
    if (!c.graph) throw new Error(`the channel bench workflow does not compile: ${c.diagnostics.filter((d) => d.severity === "error").map((d) => d.message).join("; ")}`);
    const journal = new SqliteJournal(join(dir, "state"));
    let commits = 0;
    let appends = 0;
    const counting = Object.create(journal) as SqliteJournal;
    counting.append = (...a: Parameters<SqliteJournal["append"]>) => {
      commits++;
      appends++;
      return journal.append(...a);
    };
    // A group commit of several appends (the runner's, engine/run/runner.ts) is one commit.
    counting.appendGroup = (root, group) => {
      commits++;
      appends += group.length;
      return journal.appendGroup(root, group);
    };
    const t0 = performance.now();
    const end = await new Runner({ journal: counting, adapterFor, baseDir: dir, pollMs: 250, broker }).start(c.graph, {}, "b");
    const ms = performance.now() - t0;
    if (!end.success) throw new Error(`the channel bench run failed: ${end.detail}`);
    const entries = (await journal.read("b")).entries;
    await journal.close();
    const postedAt = new Map<string, number>();
    for (const e of entries) {
      const p = e.payload as Payloads["effect.recorded"];
      if (e.entry_type === "effect.recorded" && p.message) postedAt.set(p.message.id, e.at_ms);
    }
    const latencies = entries
      .filter((e): e is JournalEntry<"effect.confirmed"> => e.entry_type === "effect.confirmed" && (e.payload as Payloads["effect.confirmed"]).received !== undefined)
      .map((e) => e.at_ms - postedAt.get(e.payload.received!.id)!);
    return { ms, latencies, commits, appends };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the channel benchmark and prints its table. */
export async function channelsBench(quick: boolean): Promise<ChannelsReport> {
  const n = quick ? 200 : 1000;
  progress(`channels: ${n} messages on the embedded broker`);
  // A warm-up exchange (the engine's code compiled), then rounds interleaved with the bare
  // commit loop, medians of each (the disk's fsync rate drifts; see bench/engine.ts).
  await runExchange(exchange(Math.min(n, 200)));
  const dir = mkdtempSync(join(tmpdir(), "criteria-bench-chlimit-"));
  const limits: number[] = [];
  const rates: number[] = [];
  let run = { ms: 0, latencies: [] as number[], commits: 0, appends: 0 };
  for (let round = 0; round < 3; round++) {
    limits.push(sqliteLimit(join(dir, `limit-${round}.db`), quick ? 500 : 2000));
    run = await runExchange(exchange(n));
    rates.push((n / run.ms) * 1000);
  }
  rmSync(dir, { recursive: true, force: true });
  const limit = median(limits);
  const perS = median(rates);
  const ratio = perS / limit;
  const rounds = quick ? 50 : 200;
  progress(`channels: ${rounds} ping-pong rounds`);
  const pp = await runExchange(pingPong(rounds));
  const p50 = percentile(pp.latencies, 50);
  const p99 = percentile(pp.latencies, 99);
  // Agents posting and receiving mid-step, through the endpoint: over HTTP, then over NATS.
  const agentRounds = quick ? 50 : 200;
  const agents: ChannelsReport["agents"] = {};
  const figures = (r: { ms: number; latencies: number[] }) => ({ messages_per_s: ((2 * agentRounds) / r.ms) * 1000, p50: percentile(r.latencies, 50), p99: percentile(r.latencies, 99) });
  progress(`channels: agents, ${agentRounds} round trips over HTTP`);
  agents.http = figures(await runExchange((d) => agentPingPong(agentRounds, d)));
  const server = await startNatsServer();
  if ("missing" in server) agents.nats_skipped = server.missing;
  else {
    try {
      progress(`channels: agents, ${agentRounds} round trips over NATS`);
      agents.nats = figures(await runExchange((d) => agentPingPong(agentRounds, d), server.url));
    } finally {
      server.stop();
    }
  }
  // verdict() passes a figure at or under its limit: a ratio's shortfall is 0.5 − ratio.
  const verdicts = { ratio: verdict(0.5 - ratio, 0), p99: verdict(p99, 10, true) };
  const agentRows = (name: string, f?: { messages_per_s: number; p50: number; p99: number }) =>
    f ? [[`agents over ${name}: messages/s`, fmt(f.messages_per_s), "", ""], [`agents over ${name}: latency p50 / p99 (ms)`, `${fmt(f.p50)} / ${fmt(f.p99)}`, "", ""]] : [[`agents over ${name}`, "skipped", "", ""]];
  printTable(
    `Channels (embedded broker: the run's SQLite journal, ${n} messages)`,
    ["figure", "value", "goal", "verdict"],
    [
      ["bare SQLite commits/s", fmt(limit), "", ""],
      ["journaled messages/s", fmt(perS), "", ""],
      ["messages/s ÷ commits/s", fmtRatio(ratio), "≥ 0.50x", verdicts.ratio],
      ["journal appends per message", fmt(run.appends / n), "", ""],
      ["journal commits per message (group commit)", fmt(run.commits / n), "", ""],
      ["post→recv latency p50 (ms), ping-pong", fmt(p50), "", ""],
      ["post→recv latency p99 (ms), ping-pong", fmt(p99), "< 10", verdicts.p99],
      ...agentRows("HTTP (127.0.0.1)", agents.http),
      ...agentRows("NATS", agents.nats),
    ],
    [
      `throughput: a sender posts ${n} messages while a receiver takes them (count loops in two parallel items), after a warm-up; medians of 3 rounds interleaved with the commit loop; latency: ${rounds} ping-pong rounds, each message awaited`,
      `agents: two local agents play ${agentRounds} round trips mid-step through the channel endpoint (criteria channel's path), each message journaled`,
      "latency is from a post's record to the receive's confirmation, by the journal's clock (ms resolution)",
      ...(agents.nats_skipped ? [`NATS skipped: ${agents.nats_skipped}`] : []),
    ],
  );
  return { messages: n, sqlite_commits_per_s: limit, messages_per_s: perS, ratio_to_limit: ratio, latency_ms: { p50, p99 }, commits_per_message: run.commits / n, appends_per_message: run.appends / n, agents, verdicts };
}

/** A `nats-server` on a free loopback port for the NATS figures, or why there is none. */
async function startNatsServer(): Promise<{ url: string; stop(): void } | { missing: string }> {
  if (spawnSync("nats-server", ["--version"]).error) return { missing: "no nats-server on PATH (Debian package nats-server)" };
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const p = (s.address() as AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
  const proc = spawn("nats-server", ["-a", "127.0.0.1", "-p", String(port)], { stdio: "ignore" });
  for (let i = 0; i < 200; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const c = connect(port, "127.0.0.1", () => (c.end(), resolve(true)));
      c.once("error", () => resolve(false));
    });
    if (up) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: `nats://127.0.0.1:${port}`, stop: () => void proc.kill("SIGKILL") };
}
