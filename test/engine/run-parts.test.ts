/**
 * The runner's small parts in process: what a run refuses before its first step
 * (engine/run/preflight.ts), memory packs (memory.ts), timer-sized sleeps (sleep.ts),
 * run identity and idempotency keys (identity.ts), and signals delivered into a real
 * SQLite journal (signals.ts). The same behaviours run end to end in the CLI tests
 * (test/language/v05-run.test.ts refuses the v0.5 cases); these reach the modules where
 * a mutant in them is seen.
 */
import { createHash } from "node:crypto";
import { getEventListeners } from "node:events";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Graph } from "../../compiler/build/graph.js";
import { SqliteJournal } from "../../engine/journal/sqlite-journal.js";
import { idempotencyKey, newRunId, specHash } from "../../engine/run/identity.js";
import { memoryNamespace, queryOf } from "../../engine/run/memory.js";
import { preflight } from "../../engine/run/preflight.js";
import { deliverSignal } from "../../engine/run/signals.js";
import { defaultSleep, MAX_TIMER_MS } from "../../engine/run/sleep.js";
import { graphOf } from "./graph-of.js";

const repo = join(import.meta.dirname, "..", "..");
const v05 = (name: string) => graphOf(readFileSync(join(repo, "testdata", "v05", name), "utf8"));

describe("preflight", () => {
  it("refuses an OCI adapter, naming its place, source and version", async () => {
    const [m, ...rest] = preflight(await v05("refused_oci_adapter.hcl"), "/wf");
    expect(rest).toEqual([]);
    expect(m).toMatch(/^.*w\.hcl:9:\d+: adapter "anthropic\.default" comes from source = "ghcr\.io\/your-org\/criteria-adapter-anthropic" \(version 0\.5\.0\): criteria does not fetch, verify or sandbox OCI adapters; install criteria-adapter-anthropic on PATH \(or in \$CRITERIA_PLUGINS\) and remove source and version$/);
  });

  it("a built-in adapter type given a source is told to drop it, not to install an adapter (a trial of the Go tool's language: claude)", async () => {
    const text = readFileSync(join(repo, "testdata", "v05", "refused_oci_adapter.hcl"), "utf8").replace(/adapter "anthropic"/g, 'adapter "claude"').replace(/adapter\.anthropic\./g, "adapter.claude.");
    const [m, ...rest] = preflight(await graphOf(text), "/wf");
    expect(rest).toEqual([]);
    expect(m).toMatch(/: adapter "claude\.default" comes from source = .*: criteria does not fetch, verify or sandbox OCI adapters; remove source and version: "claude" is built in$/);
  });

  it("refuses a step in a sandbox, container or remote environment, once per environment", async () => {
    const g = await v05("refused_sandbox_environment.hcl");
    const out = preflight(g, "/wf");
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/: environment "sandbox" "strict" \(step "build"\): criteria runs steps as local processes only; sandbox isolation is not provided, so the run is refused rather than run unisolated$/);
    const two = { ...g, steps: [...g.steps, { ...g.steps[0], name: "again" }] } as Graph;
    expect(preflight(two, "/wf")).toHaveLength(1);
    const local = { ...g, steps: g.steps.map((s) => ({ ...s, environment: s.environment && { ...s.environment, id: "shell.strict" } })) } as Graph;
    expect(preflight(local, "/wf")).toEqual([]);
  });

  it("an adapter's environment is its steps' (unless a step names its own): a sandbox one is refused, a shell one's variables reach the step (found by a new-user trial: it was accepted and ignored, so a sandbox ran unisolated)", async () => {
    const src = (adapterEnv: string, stepEnv = "") => `workflow "t" {\n  version = "1"\n  initial_state = "a"\n  target_state = "done"\n}\nenvironment "sandbox" "ci" {\n  variables = { MARK = "x" }\n}\nenvironment "shell" "other" {\n  variables = { MARK = "o" }\n}\nadapter "shell" "default" {\n  environment = ${adapterEnv}\n}\nstep "a" {\n  target = adapter.shell.default\n  ${stepEnv}\n  input { command = "echo $MARK" }\n  outcome "success" { next = "done" }\n}\nstate "done" { terminal = true }\n`;
    const sandboxed = await graphOf(src("sandbox.ci"));
    expect(sandboxed.steps[0].environment?.id).toBe("sandbox.ci");
    expect(preflight(sandboxed, "/wf")).toEqual([expect.stringMatching(/environment "sandbox" "ci" \(step "a"\): criteria runs steps as local processes only; sandbox isolation is not provided/)]);
    expect((await graphOf(src("shell.other"))).steps[0].environment?.id).toBe("shell.other");
    // A step's own environment wins over its adapter's.
    const own = await graphOf(src("sandbox.ci", "environment = shell.other"));
    expect(own.steps[0].environment?.id).toBe("shell.other");
    expect(preflight(own, "/wf")).toEqual([]);
    await expect(graphOf(src("shell.nope"))).rejects.toThrow(/adapter "shell" "default": unknown environment "shell.nope"/);
  });

  it("asks once per adapter type and directory whether it can be served, and refuses one that cannot", async () => {
    const g = await graphOf(`workflow "t" {\n  version = "1"\n  initial_state = "a"\n  target_state = "done"\n}\nadapter "noop" "one" {}\nadapter "noop" "two" {}\nadapter "mystery" "x" {}\nstep "a" {\n  target = adapter.noop.one\n  outcome "success" { next = "b" }\n}\nstep "b" {\n  target = adapter.noop.two\n  outcome "success" { next = "c" }\n}\nstep "c" {\n  target = adapter.mystery.x\n  outcome "success" { next = "done" }\n}\nstate "done" { terminal = true }\n`);
    const asked: string[] = [];
    const out = preflight(g, "/wf", (type, dir) => (asked.push(`${type}@${dir}`), type === "noop"));
    expect(asked).toEqual(["noop@/wf", "mystery@/wf"]);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/: adapter type "mystery" is neither built in nor installed: no criteria-adapter-mystery in \$CRITERIA_PLUGINS, \/wf\/adapters or \$PATH$/);
    expect(preflight(g, "/wf")).toEqual([]);
  });

  it("searches bodies and modules, each module from its own directory, and skips adapters a module inherits", async () => {
    const g = await graphOf(`workflow "t" {\n  version = "1"\n  initial_state = "a"\n  target_state = "done"\n}\nadapter "noop" "default" {}\nstep "a" {\n  target = adapter.noop.default\n  outcome "success" { next = "done" }\n}\nstate "done" { terminal = true }\n`);
    const inner = { ...g, adapters: [{ ...g.adapters[0], type: "inner" }] } as Graph;
    const inherited = { ...g, adapters: [{ ...g.adapters[0], type: "passed", inherited: true, implicit: false }] } as Graph;
    const withBody = { ...g, steps: [{ ...g.steps[0], body: inner }], modules: { review: { ...inherited, dir: "mods/review" }, other: { ...g, adapters: [{ ...g.adapters[0], type: "other" }] } } } as Graph;
    const asked: string[] = [];
    preflight(withBody, "/wf", (type, dir) => (asked.push(`${type}@${dir}`), true));
    expect(asked).toEqual(["noop@/wf", "inner@/wf", "other@/wf/other"]);
  });
});

describe("memory", () => {
  it("a query is the words of every string in the value, in order; other values give nothing", () => {
    expect(queryOf({ task: "fix login", tags: ["auth", 3, { deep: "cookie" }], n: null, ok: true })).toBe("fix login auth  cookie  ");
    expect(queryOf(5)).toBe("");
  });

  it("the memory namespace joins the items' text and lists them without other fields", () => {
    const items = [
      { run_id: "r1", at_ms: 1, text: "first", score: 3 },
      { run_id: "r2", at_ms: 2, text: "second" },
    ];
    expect(memoryNamespace(items as never)).toEqual({ text: "first\n\nsecond", items: [{ run_id: "r1", at_ms: 1, text: "first" }, { run_id: "r2", at_ms: 2, text: "second" }] });
    expect(memoryNamespace([])).toEqual({ text: "", items: [] });
  });
});

describe("defaultSleep", () => {
  it("sleeps about the time asked, returns at once when aborted before, early when aborted during, and leaves no listener", async () => {
    const c = new AbortController();
    let t = performance.now();
    await defaultSleep(30, c.signal);
    expect(performance.now() - t).toBeGreaterThanOrEqual(25);
    expect(getEventListeners(c.signal, "abort")).toHaveLength(0);
    t = performance.now();
    const during = defaultSleep(60_000, c.signal);
    setTimeout(() => c.abort(), 10);
    await during;
    expect(performance.now() - t).toBeLessThan(30_000);
    await defaultSleep(60_000, c.signal); // already aborted: at once
    expect(MAX_TIMER_MS).toBe(2 ** 31 - 1);
    await defaultSleep(-5, new AbortController().signal);
  });
});

describe("identity", () => {
  const sha = (s: string) => createHash("sha256").update(s).digest("hex");

  it("an idempotency key is sha256 of run, step and iteration (none is not 0)", () => {
    expect(idempotencyKey("r", "s", 2)).toBe(sha("r\u0000s\u00002"));
    expect(idempotencyKey("r", "s", undefined)).toBe(sha("r\u0000s\u0000"));
    expect(idempotencyKey("r", "s", 0)).not.toBe(idempotencyKey("r", "s", undefined));
  });

  it("a spec hash is of the graph's canonical JSON: key order does not change it, a value does", async () => {
    const g = await v05("return_top.hcl");
    const reordered = Object.fromEntries(Object.entries(g).reverse()) as unknown as Graph;
    expect(specHash(reordered)).toBe(specHash(g));
    expect(specHash({ ...g, name: "other" })).not.toBe(specHash(g));
    expect(specHash(g)).toMatch(/^[0-9a-f]{64}$/);
  });

  it("a run id is r-<ms in base 36>-<8 hex>, different each time", () => {
    const id = newRunId(1_796_000_000_000);
    expect(id).toMatch(new RegExp(`^r-${(1_796_000_000_000).toString(36)}-[0-9a-f]{8}$`));
    expect(newRunId(1)).not.toBe(newRunId(1));
  });
});

describe("deliverSignal", () => {
  it("journals signal.received addressed to the run named (default the root), with its payload and who sent it", async () => {
    const journal = new SqliteJournal(mkdtempSync(join(tmpdir(), "criteria-signal-")));
    try {
      const e = await deliverSignal(journal, "root", "go", { n: 1 }, "alice", 1234);
      expect(e).toMatchObject({ run_id: "root", step_id: "", attempt: 0, entry_type: "signal.received", at_ms: 1234, payload: { name: "go", payload: { n: 1 }, by: "alice" } });
      expect(e.seq).toBeGreaterThan(0);
      const bare = await deliverSignal(journal, "root", "stop", undefined, undefined, 5, ["root"], "child-1");
      expect(bare.run_id).toBe("child-1");
      expect(bare.payload).toStrictEqual({ name: "stop" });
      expect((await journal.read("root")).entries.map((x) => x.entry_type)).toEqual(["signal.received", "signal.received"]);
    } finally {
      await journal.close();
    }
  });
});
