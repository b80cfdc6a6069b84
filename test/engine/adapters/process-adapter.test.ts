import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Session } from "../../../engine/adapters/adapter.js";
import {
  adapterSearchPath, findAdapterExecutable, ProcessAdapter, toStepResult, type ProcessAdapterOptions,
} from "../../../engine/adapters/process-adapter.js";
import { context, isAlive, readPid, request, tempDir, waitFor } from "./helpers.js";

const repo = join(import.meta.dirname, "..", "..", "..");
const exampleDir = join(repo, "examples", "custom_adapter");

let dir: string;
let plugins: string;
const sessions: Session[] = [];
let stderr: string[] = [];

/** Writes a small CommonJS adapter `criteria-adapter-<type>` into the plugins directory. */
function fakeAdapter(type: string, body: string): void {
  const file = join(plugins, `criteria-adapter-${type}`);
  writeFileSync(file, `#!/usr/bin/env node
const fs = require("node:fs");
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
let buf = "";
process.stdin.on("data", (c) => {
  buf += c;
  let i;
  while ((i = buf.indexOf("\\n")) >= 0) { const line = buf.slice(0, i); buf = buf.slice(i + 1); if (line.trim()) handle(JSON.parse(line)); }
});
${body}
`);
  chmodSync(file, 0o755);
}

beforeAll(() => {
  dir = tempDir("criteria-process-");
  plugins = join(dir, "plugins");
  mkdirSync(plugins);
  writeFileSync(join(plugins, "package.json"), '{"type":"commonjs"}');
  fakeAdapter("future", `function handle(m) { send({ id: m.id, result: m.method === "info" ? { protocol: 2 } : {} }); }`);
  fakeAdapter("sloppy", `function handle(m) {
    if (m.method !== "execute") return send({ id: m.id, result: {} });
    const kind = m.params.input.kind;
    if (kind === "no-outcome") send({ id: m.id, result: { output: {} } });
    else if (kind === "bad-reason") send({ id: m.id, result: { outcome: "success", reason: "because" } });
    else if (kind === "bad-output") send({ id: m.id, result: { outcome: "success", output: [1] } });
    else if (kind === "noise") { process.stdout.write("hello there\\n"); send({ id: m.id, result: { outcome: "success" } }); }
    else send({ id: m.id, result: "nope" });
  }`);
  fakeAdapter("refuser", `function handle(m) {
    if (m.method === "open_session") send({ id: m.id, error: { message: "config.token is required" } });
    else send({ id: m.id, result: {} });
  }`);
  fakeAdapter("stubborn", `fs.writeFileSync(process.env.PID_FILE, String(process.pid));
process.on("SIGTERM", () => {});
process.stdin.on("end", () => {});
function handle(m) { send({ id: m.id, result: m.method === "execute" ? { outcome: "success" } : {} }); }`);
  fakeAdapter("mute", `function handle(m) {}`);
});

afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
  stderr = [];
});

async function openEcho(config: Record<string, unknown> = {}, opts: ProcessAdapterOptions = {}): Promise<Session> {
  const adapter = new ProcessAdapter("echo", { baseEnv: { PATH: process.env.PATH }, onStderr: (l) => stderr.push(l), ...opts });
  const s = await adapter.open(config as never, context(exampleDir, { adapter_id: "echo.default" }));
  sessions.push(s);
  return s;
}

async function openFake(type: string, opts: ProcessAdapterOptions = {}, env: NodeJS.ProcessEnv = {}): Promise<Session> {
  const adapter = new ProcessAdapter(type, { baseEnv: { PATH: process.env.PATH, CRITERIA_PLUGINS: plugins, ...env }, onStderr: (l) => stderr.push(l), ...opts });
  const s = await adapter.open({}, context(dir, { adapter_id: `${type}.default` }));
  sessions.push(s);
  return s;
}

describe("process adapter: lookup", () => {
  it("searches $CRITERIA_PLUGINS, then <base_dir>/adapters, then $PATH", () => {
    expect(adapterSearchPath("/w", { CRITERIA_PLUGINS: "/p1:/p2", PATH: "/usr/bin:/bin" })).toEqual(["/p1", "/p2", "/w/adapters", "/usr/bin", "/bin"]);
    expect(findAdapterExecutable("echo", exampleDir, { PATH: "" })).toBe(join(exampleDir, "adapters", "criteria-adapter-echo"));
    expect(findAdapterExecutable("future", exampleDir, { CRITERIA_PLUGINS: plugins })).toBe(join(plugins, "criteria-adapter-future"));
    expect(findAdapterExecutable("future", exampleDir, { PATH: plugins })).toBe(join(plugins, "criteria-adapter-future"));
    expect(findAdapterExecutable("nope", exampleDir, { PATH: plugins })).toBeUndefined();
    expect(findAdapterExecutable("../echo", exampleDir, {})).toBeUndefined();
  });

  it("fails every step with adapter_error when the executable is missing", async () => {
    const s = await openFake("nope");
    const r = await s.execute(request());
    expect(r.outcome).toBe("failure");
    expect(r.reason).toBe("adapter_error");
    expect(r.detail).toMatch(/no executable criteria-adapter-nope found in \$CRITERIA_PLUGINS, .*adapters or \$PATH/);
  });

  it("is effectful", () => {
    expect(new ProcessAdapter("echo").effectful).toBe(true);
  });
});

describe("process adapter: the example echo adapter", () => {
  it("executes steps through the NDJSON protocol", async () => {
    const s = await openEcho({ greeting: "Good evening" });
    const r = await s.execute(request({ step: "greet", attempt: 2, input: { name: "Ada" } }));
    expect(r).toEqual({ outcome: "success", reason: "ok", output: { name: "Ada", message: "Good evening, Ada!", attempt: 2 } });
    expect(stderr.some((l) => l.includes("session echo.default open for run run-1"))).toBe(true);
  });

  it("passes outcomes and failures through", async () => {
    const s = await openEcho();
    expect(await s.execute(request({ input: { outcome: "greeted" } }))).toMatchObject({ outcome: "greeted", reason: "ok" });
    expect(await s.execute(request({ input: { fail: true } }))).toMatchObject({ outcome: "failure", reason: "adapter_failed", detail: "echo: failure requested by the input" });
  });

  it("turns an error response into adapter_error", async () => {
    const s = await openEcho();
    expect(await s.execute(request({ input: { error: "backend unavailable" } }))).toMatchObject({ outcome: "failure", reason: "adapter_error", detail: "echo: backend unavailable" });
  });

  it("multiplexes concurrent executes by id (answers arrive out of order)", async () => {
    const s = await openEcho();
    const results = await Promise.all([
      s.execute(request({ step: "a", input: { name: "slow", sleep_ms: 300 } })),
      s.execute(request({ step: "b", input: { name: "medium", sleep_ms: 100 } })),
      s.execute(request({ step: "c", input: { name: "fast" } })),
    ]);
    expect(results.map((r) => r.output.message)).toEqual(["Hello, slow!", "Hello, medium!", "Hello, fast!"]);
  });

  it("times out one execute without disturbing the session", async () => {
    const s = await openEcho();
    const t0 = Date.now();
    const r = await s.execute(request({ timeout_ms: 100, input: { sleep_ms: 3000 } }));
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(r).toMatchObject({ outcome: "failure", reason: "timeout" });
    expect(await waitFor(() => stderr.some((l) => l.includes("cancelled request")))).toBe(true);
    expect((await s.execute(request({ input: { name: "after" } }))).output.message).toBe("Hello, after!");
  });

  it("resolves an aborted execute with cancelled", async () => {
    const s = await openEcho();
    const ctl = new AbortController();
    const p = s.execute(request({ signal: ctl.signal, input: { sleep_ms: 3000 } }));
    setTimeout(() => ctl.abort(), 50);
    expect(await p).toMatchObject({ outcome: "failure", reason: "cancelled" });
    expect(await s.execute(request({ signal: AbortSignal.abort() }))).toMatchObject({ reason: "cancelled" });
  });

  it("resolves every pending execute with crashed when the process dies mid-execute", async () => {
    const s = await openEcho();
    const pending = s.execute(request({ step: "long", input: { sleep_ms: 5000 } }));
    const crashing = s.execute(request({ step: "boom", input: { crash: true } }));
    const [a, b] = await Promise.all([pending, crashing]);
    for (const r of [a, b]) {
      expect(r.outcome).toBe("failure");
      expect(r.reason).toBe("crashed");
      expect(r.detail).toContain("exited with code 3");
      expect(r.detail).toContain("crashing on purpose in step boom");
    }
    const later = await s.execute(request());
    expect(later).toMatchObject({ outcome: "failure", reason: "crashed" });
    await s.close(); // closing a crashed session is fine
  });

  it("closes: pending executes are cancelled, later ones refused, the process exits", async () => {
    const s = await openEcho();
    const pending = s.execute(request({ input: { sleep_ms: 5000 } }));
    await new Promise((r) => setTimeout(r, 50));
    await s.close();
    expect(await pending).toMatchObject({ reason: "cancelled" });
    expect(stderr).toContain("echo: session closed");
    expect(await s.execute(request())).toMatchObject({ reason: "adapter_error", detail: "echo: the session is closed" });
  });
});

describe("process adapter: misbehaving adapters", () => {
  it("refuses an adapter that speaks another protocol version", async () => {
    const r = await (await openFake("future")).execute(request());
    expect(r).toMatchObject({ reason: "adapter_error" });
    expect(r.detail).toMatch(/speaks protocol 2, this host speaks 1/);
  });

  it("reports a refused open_session on every execute", async () => {
    const r = await (await openFake("refuser")).execute(request());
    expect(r).toMatchObject({ reason: "adapter_error", detail: "refuser: open_session failed: config.token is required" });
  });

  it("gives up on a handshake that never answers", async () => {
    const r = await (await openFake("mute", { handshakeTimeoutMs: 200, closeTimeoutMs: 200 })).execute(request());
    expect(r.detail).toMatch(/handshake failed: info: no answer to info within 200 ms/);
  });

  it("rejects malformed results as adapter_error and logs stdout noise", async () => {
    const s = await openFake("sloppy");
    expect((await s.execute(request({ input: { kind: "no-outcome" } }))).detail).toMatch(/no "outcome" string/);
    expect((await s.execute(request({ input: { kind: "bad-reason" } }))).detail).toMatch(/"because" is not a journal reason/);
    expect((await s.execute(request({ input: { kind: "bad-output" } }))).detail).toMatch(/"output" must be an object/);
    expect((await s.execute(request({ input: { kind: "other" } }))).detail).toMatch(/must be an object/);
    expect(await s.execute(request({ input: { kind: "noise" } }))).toMatchObject({ outcome: "success" });
    expect(stderr.some((l) => l.includes("(stdout, not protocol JSON) hello there"))).toBe(true);
  });

  it("kills an adapter that does not exit after close", async () => {
    const pidFile = join(dir, "stubborn.pid");
    const s = await openFake("stubborn", { closeTimeoutMs: 200, killGraceMs: 200 }, { PID_FILE: pidFile });
    expect((await s.execute(request())).outcome).toBe("success");
    const pid = await readPid(pidFile);
    await s.close();
    expect(await waitFor(() => !isAlive(pid), 3000)).toBe(true);
  });
});

describe("process adapter: result validation", () => {
  it("defaults output and reason", () => {
    expect(toStepResult({ outcome: "failure" }, "x")).toEqual({ outcome: "failure", output: {}, reason: "adapter_failed" });
    expect(toStepResult({ outcome: "ok", reason: "ok", detail: "d", output: { a: 1 } }, "x")).toEqual({ outcome: "ok", output: { a: 1 }, reason: "ok", detail: "d" });
    expect(toStepResult({ outcome: "" }, "x").reason).toBe("adapter_error");
    expect(toStepResult({ outcome: "ok", detail: 3 }, "x").reason).toBe("adapter_error");
  });
});

describe("a step's timeout bounds its adapter's handshake (a new-user trial: timeout = \"3s\" ended after 35 s, 'handshake failed: no answer to info within 30000 ms')", () => {
  it("the step ends at its timeout, the run ends then, and the plugin's process is stopped", async () => {
    const { cli } = await import("../../pipeline/helpers.js");
    const dir = tempDir();
    mkdirSync(join(dir, "adapters"));
    writeFileSync(join(dir, "adapters", "criteria-adapter-hang"), "#!/bin/sh\nsleep 100\n");
    chmodSync(join(dir, "adapters", "criteria-adapter-hang"), 0o755);
    writeFileSync(
      join(dir, "w.hcl"),
      `workflow "w" {\n  version = "1"\n  initial_state = "s"\n  target_state = "done"\n}\nadapter "hang" "default" {}\nstep "s" {\n  target = adapter.hang.default\n  timeout = "1s"\n  outcome "success" { next = "done" }\n  outcome "failure" { next = "done" }\n}\nstate "done" { terminal = true }\n`,
    );
    const r = cli(["apply", join(dir, "w.hcl"), "--state-dir", join(dir, "st"), "-o", "json"]);
    expect(r.status, r.stderr).toBe(0);
    const done = r.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>).find((e) => e.event === "step.completed");
    expect(done).toMatchObject({ step: "s", outcome: "failure", reason: "timeout" });
    expect(String(done?.detail)).toMatch(/^its hang session did not open within the step's timeout \(\d+ ms\)$/);
    // Given up with the run's sessions, not left to its 30 s handshake or beyond.
    const { execSync } = await import("node:child_process");
    expect(execSync("ps -eo args", { encoding: "utf8" })).not.toContain(dir);
  });
});
