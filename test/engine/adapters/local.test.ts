import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { localAdapter, responseIndex } from "../../../engine/adapters/local.js";
import { context, request, tempDir } from "./helpers.js";

const repo = join(import.meta.dirname, "..", "..", "..");
let dir: string;

beforeAll(() => {
  dir = tempDir("criteria-local-");
  writeFileSync(join(dir, "answers.json"), JSON.stringify({
    description: "ignored",
    steps: {
      review: [
        { outcome: "changes_requested", output: { comments: "fix the tests" } },
        { outcome: "approved", answer: "LGTM" },
        { outcome: "approved", output: { answer: "from output" } },
      ],
      solo: { outcome: "done" },
      broken: [{ outcome: "failure", detail: "scripted breakage" }],
      slow: [{ outcome: "done", delay_ms: 2000 }],
      odd: [{ outcome: "timeout_sim", reason: "timeout" }],
    },
    default: { outcome: "success", output: { note: "default answer" } },
  }));
  writeFileSync(join(dir, "answers.yaml"), "steps:\n  ask:\n    - outcome: yes\n      output: { answer: \"from yaml\" }\n");
  writeFileSync(join(dir, "nodefault.json"), JSON.stringify({ steps: { only: [{ outcome: "ok" }] } }));
  writeFileSync(join(dir, "bad.json"), "{ not json");
  writeFileSync(join(dir, "badshape.json"), JSON.stringify({ steps: { x: [{ output: {} }] } }));
});

const open = (script: string | undefined) => localAdapter.open(script === undefined ? {} : { script }, context(dir, { adapter_id: "agent.reviewer" }));

describe("local adapter: choosing the answer", () => {
  it("is not effectful", () => {
    expect(localAdapter.effectful).toBe(false);
  });

  it("uses the first entry when nothing selects another", async () => {
    const s = await open("answers.json");
    const r = await s.execute(request({ step: "review", input: { prompt: "Review this" } }));
    expect(r).toEqual({
      outcome: "changes_requested",
      reason: "ok",
      output: { comments: "fix the tests", answer: "changes_requested", prompt: "Review this" },
    });
  });

  it("selects by input.round (1-based number, or the first integer of a string)", async () => {
    const s = await open("answers.json");
    const second = await s.execute(request({ step: "review", input: { round: 2 } }));
    expect(second.outcome).toBe("approved");
    expect(second.output.answer).toBe("LGTM");
    expect((await s.execute(request({ step: "review", input: { round: "round 3 of 3" } }))).output.answer).toBe("from output");
    expect((await s.execute(request({ step: "review", input: { round: 1 } }))).outcome).toBe("changes_requested");
  });

  it("selects by each.index when iterating and no round is given; round wins over each", async () => {
    const s = await open("answers.json");
    const each = (index: number) => ({ index, total: 3, key: index, value: "v" });
    expect((await s.execute(request({ step: "review", each: each(1) }))).outcome).toBe("approved");
    expect((await s.execute(request({ step: "review", each: each(1), input: { round: 1 } }))).outcome).toBe("changes_requested");
    expect((await s.execute(request({ step: "review", each: each(0), input: { round: "final" } }))).outcome).toBe("changes_requested");
  });

  it("repeats the last entry past the end", async () => {
    const s = await open("answers.json");
    expect((await s.execute(request({ step: "review", input: { round: 99 } }))).output.answer).toBe("from output");
  });

  it("is deterministic: the same request always gets the same answer (no hidden counters)", async () => {
    const s = await open("answers.json");
    const a = await s.execute(request({ step: "review" }));
    const b = await s.execute(request({ step: "review", attempt: 2 }));
    const c = await (await open("answers.json")).execute(request({ step: "review" }));
    expect(b).toEqual(a);
    expect(c).toEqual(a);
  });

  it("accepts a single entry instead of a list", async () => {
    expect((await (await open("answers.json")).execute(request({ step: "solo" }))).outcome).toBe("done");
  });

  it("falls back to default, and fails with adapter_error when there is none", async () => {
    const d = await (await open("answers.json")).execute(request({ step: "unknown" }));
    expect(d).toMatchObject({ outcome: "success", output: { note: "default answer", answer: "success" } });
    const n = await (await open("nodefault.json")).execute(request({ step: "unknown" }));
    expect(n.reason).toBe("adapter_error");
    expect(n.detail).toContain('no answers for step "unknown"');
    expect(n.detail).toContain(join(dir, "nodefault.json"));
  });

  it("computes the index from the request alone", () => {
    expect(responseIndex({ input: {} })).toBe(0);
    expect(responseIndex({ input: { round: 0 } })).toBe(0);
    expect(responseIndex({ input: { round: 2.7 } })).toBe(1);
    expect(responseIndex({ input: { round: "2/5" } })).toBe(1);
    expect(responseIndex({ input: {}, each: { index: 4, total: 5, key: 4, value: null } })).toBe(4);
  });
});

describe("local adapter: output, reasons, timing", () => {
  it("echoes a prompt-less input as canonical JSON", async () => {
    const r = await (await open("answers.json")).execute(request({ step: "solo", input: { b: 1, a: { d: 2, c: [true] } } }));
    expect(r.output.prompt).toBe('{"a":{"c":[true],"d":2},"b":1}');
  });

  it("gives adapter_failed for a scripted failure, or the scripted reason", async () => {
    const s = await open("answers.json");
    expect(await s.execute(request({ step: "broken" }))).toMatchObject({ outcome: "failure", reason: "adapter_failed", detail: "scripted breakage" });
    expect(await s.execute(request({ step: "odd" }))).toMatchObject({ outcome: "timeout_sim", reason: "timeout" });
  });

  it("honours delay_ms against the step timeout and cancellation", async () => {
    const s = await open("answers.json");
    const t0 = Date.now();
    expect((await s.execute(request({ step: "slow", timeout_ms: 50 }))).reason).toBe("timeout");
    const ctl = new AbortController();
    const p = s.execute(request({ step: "slow", signal: ctl.signal }));
    setTimeout(() => ctl.abort(), 30);
    expect((await p).reason).toBe("cancelled");
    expect(Date.now() - t0).toBeLessThan(1500);
  });

  it("reads YAML scripts", async () => {
    const r = await (await open("answers.yaml")).execute(request({ step: "ask" }));
    expect(r).toMatchObject({ outcome: "yes", output: { answer: "from yaml" } });
  });
});

describe("local adapter: errors", () => {
  it("reports a missing script file with its path", async () => {
    const r = await (await open("missing/answers.json")).execute(request({ step: "x" }));
    expect(r.outcome).toBe("failure");
    expect(r.reason).toBe("adapter_error");
    expect(r.detail).toContain(`script file ${join(dir, "missing/answers.json")} does not exist`);
    expect(r.detail).toContain("agent.reviewer");
  });

  it("reports a missing config.script, invalid JSON and a bad shape", async () => {
    expect((await (await open(undefined)).execute(request())).detail).toMatch(/config\.script is required/);
    expect((await (await open("bad.json")).execute(request())).detail).toMatch(/bad\.json is not valid JSON/);
    expect((await (await open("badshape.json")).execute(request())).detail).toMatch(/steps\.x\[0\]: "outcome" must be a non-empty string/);
  });

  it("reports bad channel actions with their place in the script", async () => {
    const bad = (channel: unknown) => {
      writeFileSync(join(dir, "chan.json"), JSON.stringify({ steps: { x: [{ outcome: "done", channel }] }, default: { outcome: "done", channel } }));
      return open("chan.json").then((s) => s.execute(request()));
    };
    expect((await bad({ post: {} })).detail).toMatch(/steps\.x\[0\]: "channel" must be a list/);
    expect((await bad([{ shout: {} }])).detail).toMatch(/steps\.x\[0\]\.channel\[0\]: expected \{ "post"/);
    expect((await bad([{ recv: { channel: "p", as: "a", timeout: "soon" } }])).detail).toMatch(/channel\[0\]: "timeout" "soon" is not a duration/);
    expect((await bad([{ post: { channel: "p", to: "b" } }])).detail).toMatch(/channel\[0\]: "from" must be a non-empty string/);
    // Well formed, outside a step with channel access: the step fails, saying so.
    expect((await bad([{ post: { channel: "p", from: "a", to: "b", body: 1 } }])).detail).toMatch(/has no channel access/);
  });
});

describe("local adapter: the examples' scripts", () => {
  it("plays review_loop's reviewer: changes requested in round 1, approved in round 2", async () => {
    const s = await localAdapter.open({ script: "./scripts/reviewer.json" }, context(join(repo, "examples", "review_loop")));
    expect((await s.execute(request({ step: "review", input: { round: 1 } }))).outcome).toBe("changes_requested");
    expect((await s.execute(request({ step: "review", input: { round: 2 } }))).outcome).toBe("approved");
    const exec = await localAdapter.open({ script: "./scripts/executor.json" }, context(join(repo, "examples", "review_loop")));
    expect((await exec.execute(request({ step: "execute", input: { round: "round 2 of 3" } }))).output.summary).toMatch(/duplicate sections/);
  });

  it("plays for_each_files' editor: one patch per item, by each.index", async () => {
    const s = await localAdapter.open({ script: "./scripts/editor.json" }, context(join(repo, "examples", "for_each_files")));
    const keys = ["docs/usage.md", "src/cli.ts", "src/config.ts"];
    for (const [index, key] of keys.entries()) {
      const r = await s.execute(request({ step: "edit", each: { index, total: 3, key, value: "x" } }));
      expect(r.output.patch).toContain(key);
    }
  });
});
