/**
 * A PostgreSQL journal that stops answering without going away (a server frozen, a network
 * that drops packets: the connections stay open, nothing comes back). Found by a new-user
 * trial (`kill -STOP` of the server): a holder whose lease ran out stopped its step, then
 * waited for good on its way out (giving back the lost lease, ending its pool), deaf to
 * Ctrl-C and SIGTERM. Here the server is reached through a proxy that, once frozen, passes
 * nothing more either way (`freezableProxy`); the CLI runs as a real process.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { freezableProxy, useCluster } from "../engine/journal/postgres-cluster.js";
import { bin, temp } from "./helpers.js";

const { skip, cluster } = useCluster();

/** `criteria apply` of a one-step workflow whose step runs a minute, on `url`; resolves once the step runs. */
async function applyUntilStep(url: string, env: NodeJS.ProcessEnv) {
  const dir = temp("criteria-frozen-");
  writeFileSync(join(dir, "w.hcl"), `workflow "w" {\n  version = "1"\n  initial_state = "one"\n  target_state = "done"\n}\nadapter "shell" "default" {}\nstep "one" {\n  target = adapter.shell.default\n  input { command = "sleep 60" }\n  outcome "success" { next = "done" }\n}\nstate "done" { terminal = true }\n`);
  const child = spawn(process.execPath, [bin, "apply", join(dir, "w.hcl"), "--store", url, "--run-id", "r", "-o", "text"], { env: { ...process.env, CI: "", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.once("close", (code) => r(code)));
  const end = Date.now() + 20_000;
  while (!out.includes("one …") && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  expect(out).toContain("one …");
  /** The exit code, or "still running" after `ms` (then killed). */
  const within = async (ms: number) => {
    const r = await Promise.race([exited, new Promise<string>((res) => setTimeout(() => res("still running"), ms))]);
    if (r === "still running") child.kill("SIGKILL");
    return r;
  };
  return { child, out: () => out, within };
}

describe.skipIf(skip !== undefined)("a PostgreSQL journal that stops answering", () => {
  it("a holder whose lease runs out while the journal does not answer stops its step and exits 4, not waiting for the journal on its way out", async () => {
    const p = await freezableProxy(cluster(), await cluster().freshDatabase());
    try {
      const run = await applyUntilStep(p.url, { CRITERIA_LEASE_TTL_MS: "1500" });
      p.freeze();
      expect(await run.within(15_000), JSON.stringify(run.out())).toBe(4);
      expect(run.out()).toMatch(/criteria: this process can no longer write run r: its lease ran out: it could not be renewed for [\d.]+ s/);
    } finally {
      p.close();
    }
  }, 60_000);

  it("a second Ctrl-C ends a run whose journal does not answer, 2 s later, saying so", async () => {
    const p = await freezableProxy(cluster(), await cluster().freshDatabase());
    try {
      const run = await applyUntilStep(p.url, {});
      p.freeze();
      run.child.kill("SIGINT");
      await new Promise((r) => setTimeout(r, 500));
      run.child.kill("SIGINT");
      expect(await run.within(10_000), run.out()).toBe(4);
      expect(run.out()).toContain("criteria: stopped at a second interrupt, without waiting for the journal, which does not answer: what it holds stands, and criteria resume continues the run\n");
    } finally {
      p.close();
    }
  }, 60_000);
});
