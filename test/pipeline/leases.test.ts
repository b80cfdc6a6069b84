/**
 * Issue #7, item 2: a run killed on one host can be resumed on another. Locks are leases
 * a live holder renews; anyone takes one over once it has expired; `resume --force` and
 * `criteria unlock` override a live one and say what they override; a holder that lost
 * its lease can never write again (fencing). The other host is a real UTS namespace
 * (`unshare -u`, loopback only), skipped with a reason where it cannot be made.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { procStat } from "../../engine/process-info.js";
import { bin, cli, entries, start, temp, until } from "./helpers.js";

/** Whether process `pid` is running (a zombie, dead and awaiting its reaper, is not). */
const alive = (pid: number) => {
  const stat = procStat(pid);
  return stat !== undefined && stat.state !== "Z";
};

const canUnshare = spawnSync("unshare", ["-u", "true"]).status === 0;

function workflow(dir: string): string {
  writeFileSync(
    join(dir, "w.hcl"),
    `workflow {\n  name = "w"\n  initial_state = "a"\n  target_state = "done"\n}\nadapter "shell" "default" {}\nstep "a" {\n  target = adapter.shell.default\n  input { command = "echo a >> '${dir}/log'" }\n  outcome "success" { next = step.b }\n}\nstep "b" {\n  target = adapter.shell.default\n  input { command = "echo b >> '${dir}/log'" }\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n`,
  );
  return join(dir, "w.hcl");
}

describe("leases (item 2)", () => {
  it.skipIf(!canUnshare)("a run killed on host runner-a resumes on this host once its lease has expired (skipped without unshare -u)", () => {
    const dir = temp();
    const wf = workflow(dir);
    const state = join(dir, "state");
    // On "runner-a": the process kills itself after its first journal entry, holding the lease.
    const a = spawnSync("unshare", ["-u", "sh", "-c", `hostname runner-a && exec "${process.execPath}" "${bin}" apply "${wf}" --state-dir "${state}" --run-id r -o json`], {
      encoding: "utf8",
      env: { ...process.env, CI: "", CRITERIA_FAULT_KILL_AFTER_SEQ: "2", CRITERIA_LEASE_TTL_MS: "4000" },
    });
    expect(a.signal ?? a.status, a.stderr).toBe("SIGKILL");
    // At once: runner-a's lease is still running; this host cannot tell whether it is alive.
    // (A TTL of 4 s: with 1.5 s, a loaded machine started this resume after the lease ended.)
    const early = cli(["resume", "r", "--state-dir", state]);
    expect(early.status, early.stderr).toBe(1);
    const until = early.stderr.match(/run r is being executed by process \d+ on runner-a, whose lease runs until (\S+) unless it renews it; refusing to run it twice/);
    expect(until, early.stderr).not.toBeNull();
    // After the lease expires, anyone may take it over: the run completes here.
    spawnSync("sleep", [String(Math.max(0, Date.parse(until![1]) - Date.now() + 100) / 1000)]);
    const later = cli(["resume", "r", "--state-dir", state, "-o", "json"]);
    expect(later.status, later.stderr).toBe(0);
    expect(later.stdout).toMatch(/took over run r from process \d+ on runner-a, whose lease expired at/);
  }, 30_000);

  it("resume --force and criteria unlock take a live lease over and say what they override", () => {
    const dir = temp();
    const wf = workflow(dir);
    const state = join(dir, "state");
    expect(cli(["apply", wf, "--state-dir", state, "--run-id", "r"], { env: { CRITERIA_FAULT_KILL_AFTER_SEQ: "2" } }).signal).toBe("SIGKILL");
    // Pretend a live process on another host holds it for a minute.
    const db = new Database(join(state, "journal.db"));
    db.prepare("UPDATE locks SET pid = 4242, host = 'runner-b', owner = 'runner-b:4242:x', expires_ms = ? WHERE root_run_id = 'r'").run(Date.now() + 60_000);
    db.close();
    const refused = cli(["resume", "r", "--state-dir", state]);
    expect(refused.status).toBe(1);
    // What to do next, said (found by a new-user trial: "refusing to run it twice" was all).
    expect(refused.stderr).toContain(`refusing to run it twice: let that process end, or take the run over with criteria resume r --force --state-dir ${state} (that process can then no longer write)`);
    const runs = cli(["runs", "--state-dir", state]);
    expect(runs.stdout).toContain("(running: process 4242 on runner-b)");
    const unlock = cli(["unlock", "r", "--state-dir", state]);
    expect(unlock.status).toBe(0);
    expect(unlock.stdout).toMatch(/unlocked run r: it was held by process 4242 on runner-b \(still running: it stops what it runs at its next heartbeat, and can no longer write to the journal; its lease ran until .*\)/);
    expect(cli(["runs", "--state-dir", state]).stdout).toContain(`(stopped: criteria resume r --state-dir ${state} continues it)`);
    // Held again; --force takes it and says so.
    const db2 = new Database(join(state, "journal.db"));
    db2.prepare("UPDATE locks SET pid = 4242, host = 'runner-b', owner = 'runner-b:4242:x', expires_ms = ? WHERE root_run_id = 'r'").run(Date.now() + 60_000);
    db2.close();
    const forced = cli(["resume", "r", "--state-dir", state, "--force", "-o", "json"]);
    expect(forced.status, forced.stderr).toBe(0);
    expect(forced.stdout).toContain("--force: took run r from process 4242 on runner-b");
  }, 30_000);
  it("a nested run of a run without workers is resumed and unlocked through its root, and says so", () => {
    const dir = temp();
    writeFileSync(
      join(dir, "w.hcl"),
      `workflow {\n  name = "w"\n  initial_state = "loop"\n  target_state = "done"\n}\nadapter "shell" "default" {}\nstep "loop" {\n  count = 2\n  workflow {\n    step "a" {\n      target = adapter.shell.default\n      input { command = "echo a" }\n      outcome "success" { next = "_continue" }\n    }\n  }\n  outcome "all_succeeded" { next = state.done }\n}\nstate "done" { terminal = true }\n`,
    );
    const state = join(dir, "state");
    expect(cli(["apply", join(dir, "w.hcl"), "--state-dir", state, "--run-id", "r"], { env: { CRITERIA_FAULT_KILL_AFTER_SEQ: "3" } }).signal).toBe("SIGKILL");
    const nested = cli(["resume", "r/loop#1[0]", "--state-dir", state]);
    expect(nested.status).toBe(2);
    expect(nested.stderr).toBe(`criteria: run r/loop#1[0] is a child run that runs in its parent's job: resume its root run, criteria resume r --state-dir ${state}\n`);
    const unlock = cli(["unlock", "r/loop#1[0]", "--state-dir", state]);
    expect(unlock.status, unlock.stderr).toBe(0);
    expect(unlock.stdout).toMatch(/^unlocked run r: it was held by process \d+ on .* \(not running; .*\); criteria resume r --state-dir \S+ continues it\n$/);
    expect(cli(["resume", "r", "--state-dir", state]).status).toBe(0);
  }, 30_000);
  it("a holder whose lease is taken away stops the step it is running at once, writing nothing more; resume runs it again (a new-user trial: it ran on beside its re-run)", async () => {
    const dir = temp();
    const state = join(dir, "state");
    const flag = join(dir, "flag");
    const pidFile = join(dir, "pid");
    writeFileSync(flag, "");
    // The step runs while the flag is there (the test removes it to let the resumed one end).
    writeFileSync(
      join(dir, "w.hcl"),
      `workflow {\n  name = "w"\n  initial_state = "work"\n  target_state = "done"\n}\nadapter "shell" "default" {}\nstep "work" {\n  target = adapter.shell.default\n  input { command = "echo $$ >> '${pidFile}'; while [ -e '${flag}' ]; do sleep 0.1; done; echo end >> '${dir}/log'" }\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n`,
    );
    // A lease of 1.5 s: the heartbeat looks every 0.5 s.
    const a = start(["apply", join(dir, "w.hcl"), "--state-dir", state, "--run-id", "r"], { env: { CRITERIA_LEASE_TTL_MS: "1500" } });
    let err = "";
    let out = "";
    a.stderr.on("data", (d: Buffer) => (err += d.toString()));
    a.stdout.on("data", (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => a.once("close", (code) => r(code)));
    await until(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "", 20_000);
    const stepPid = Number(readFileSync(pidFile, "utf8").trim());
    const before = (await entries(state, "r")).length;
    const unlock = cli(["unlock", "r", "--state-dir", state]);
    expect(unlock.status, unlock.stderr).toBe(0);
    // Stopped within a heartbeat and the step's grace, not when the step would have ended (never, here).
    const code = await Promise.race([exited, new Promise<string>((r) => setTimeout(() => r("still running"), 10_000))]);
    if (code === "still running") a.kill("SIGKILL");
    expect(code, err).toBe(4);
    expect(out).toContain(`"event":"warning","run_id":"r","message":"this process can no longer write run r: its lease was taken away (by criteria unlock or resume --force, or by another process after it expired): stopping what it was running here"`);
    expect(err).toBe(`criteria: this process can no longer write run r: its lease was taken away (by criteria unlock or resume --force, or by another process after it expired); it stopped without writing anything more; criteria runs --state-dir ${state} says who holds it now\n`);
    expect(alive(stepPid), "the step's process").toBe(false);
    expect((await entries(state, "r")).length, "nothing journaled after the loss").toBe(before);
    rmSync(flag);
    const again = cli(["resume", "r", "--state-dir", state]);
    expect(again.status, again.stderr).toBe(0);
    expect(readFileSync(join(dir, "log"), "utf8")).toBe("end\n");
    expect(readFileSync(pidFile, "utf8").trim().split("\n")).toHaveLength(2);
  }, 60_000);

  // Fencing in-process (a holder that lost its lease can never write again): test/engine/journal/contract.ts.
});
