/**
 * Which runs reach the NATS broker given with `--broker` before anything runs
 * (engine/run/runner.ts: `hasChannels`, `startEndpoint`): a run whose workflow has a
 * channel anywhere (its own, a body's, a module's) is refused at once when the broker
 * does not answer, saying which; a run with no channel never contacts it. The broker here
 * is a loopback port nothing listens on, so the refusal is immediate. What StrykerJS's
 * pass over runner.ts lines 1,460–1,916 left uncovered: the CLI's broker tests run the
 * built bundle, which mutants of the source never reach.
 */
import { describe, expect, it } from "vitest";
import { RunRefused } from "../../engine/run/runner.js";
import { deliverSignal } from "../../engine/run/signals.js";
import { graphOf } from "./graph-of.js";
import { HEAD, ok, projectGraph, rejection, scripted, setup } from "./runner-fixtures.js";

const DEAD = "nats://127.0.0.1:1";

/** Agents `a` and `b` on the script adapter and a channel between them, as HCL blocks. */
const CHANNEL = `agent "a" { adapter = "script" }\nagent "b" { adapter = "script" }\nchannel "c" {\n  participants = [agent.a, agent.b]\n}\n`;
/** Agent a works, posts to b, b works: steps from "work_a" to "done". */
const POST = `step "work_a" {\n  target = agent.a\n  outcome "success" { next = "tell" }\n}\nstep "tell" {\n  target = channel.c\n  input {\n    post = { from = "a", to = "b", body = "hi" }\n  }\n  outcome "success" { next = "work_b" }\n}\nstep "work_b" {\n  target = agent.b\n  outcome "success" { next = "done" }\n}\n`;

async function refusal(g: Awaited<ReturnType<typeof graphOf>>) {
  const s = setup({ broker: DEAD });
  const a = scripted(() => ok());
  const e = await rejection(s.runner({ adapterFor: a.adapterFor }).start(g, {}, "r"));
  return { e, seen: a.seen, spawned: await s.journal.run("r") };
}

describe("a broker that does not answer", () => {
  it("refuses a run with a channel of its own before anything runs, naming the broker", async () => {
    const { e, seen, spawned } = await refusal(await graphOf(`${HEAD("work_a")}${CHANNEL}${POST}`));
    expect(e).toBeInstanceOf(RunRefused);
    expect((e as Error).message).toMatch(/^cannot reach the NATS broker nats:\/\/127\.0\.0\.1:1: /);
    expect(seen).toEqual([]);
    expect(spawned).toBeUndefined();
  });

  it("refuses a run whose channel is in a body, or in a module it calls", async () => {
    const body = await graphOf(`${HEAD("inner")}adapter "script" "default" {}
step "inner" {
  workflow {
    initial_state = "work_a"
    target_state  = "ok"
    ${CHANNEL.replaceAll("\n", "\n    ")}
    ${POST.replace('next = "done"', 'next = "ok"').replaceAll("\n", "\n    ")}
    state "ok" { terminal = true }
  }
  outcome "success" { next = "after" }
}
step "after" {
  target = adapter.script.default
  outcome "success" { next = "done" }
}`);
    const b = await refusal(body);
    expect(b.e).toBeInstanceOf(RunRefused);
    expect(b.seen).toEqual([]);
    expect(b.spawned, "refused before the run is journaled").toBeUndefined();
    const module = await projectGraph({
      "main.hcl": `${HEAD("call")}subworkflow "m" {\n  source = "./m"\n}\nstep "call" {\n  target = subworkflow.m\n  outcome "success" { next = "done" }\n}\n`,
      "m/main.hcl": `workflow {\n  name = "m"\n  version = "1"\n  initial_state = "work_a"\n  target_state = "done"\n}\n${CHANNEL}${POST}state "done" { terminal = true }\n`,
    });
    const m = await refusal(module);
    expect(m.e).toBeInstanceOf(RunRefused);
    expect((m.e as Error).message).toMatch(/^cannot reach the NATS broker /);
    expect(m.seen).toEqual([]);
    expect(m.spawned, "refused before the run is journaled").toBeUndefined();
  });

  it("is never contacted by a run with no channel: it runs to its end", async () => {
    const g = await graphOf(`${HEAD("one")}adapter "script" "default" {}
step "one" {
  workflow {
    initial_state = "inner"
    target_state  = "ok"
    step "inner" {
      target = adapter.script.default
      outcome "success" { next = "ok" }
    }
    state "ok" { terminal = true }
  }
  outcome "success" { next = "done" }
}`);
    const s = setup({ broker: DEAD });
    const a = scripted(() => ok());
    expect(await s.runner({ adapterFor: a.adapterFor }).start(g, {}, "r")).toMatchObject({ state: "done", success: true });
    expect(a.seen).toHaveLength(1);
  });

  it("refuses to resume a run with a channel before it goes on: nothing more is journaled or run", async () => {
    const g = await graphOf(`${HEAD("gate")}${CHANNEL}wait "gate" {\n  signal = "go"\n  next = "work_a"\n}\n${POST}`);
    const s = setup({ park: true });
    const a = scripted(() => ok());
    await rejection(s.runner({ adapterFor: a.adapterFor }).start(g, {}, "r"));
    const before = (await s.entries("r")).length;
    const e = await rejection(s.runner({ adapterFor: a.adapterFor, broker: DEAD }).resume("r"));
    expect(e).toBeInstanceOf(RunRefused);
    expect((e as Error).message).toMatch(/^cannot reach the NATS broker nats:\/\/127\.0\.0\.1:1: /);
    expect((await s.entries("r")).length).toBe(before);
    expect(a.seen).toEqual([]);
  });

  it("is never contacted by the resume of a run with no channel: it goes on to its end", async () => {
    const g = await graphOf(`${HEAD("gate")}adapter "script" "default" {}\nwait "gate" {\n  signal = "go"\n  next = "one"\n}\nstep "one" {\n  target = adapter.script.default\n  outcome "success" { next = "done" }\n}\n`);
    const s = setup({ park: true });
    const a = scripted(() => ok());
    await rejection(s.runner({ adapterFor: a.adapterFor }).start(g, {}, "r"));
    await deliverSignal(s.journal, "r", "go", null, "test", Date.now());
    expect(await s.runner({ adapterFor: a.adapterFor, broker: DEAD }).resume("r")).toMatchObject({ state: "done", success: true });
    expect(a.seen).toHaveLength(1);
  });
});
