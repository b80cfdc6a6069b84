/**
 * Workers and leases on a real PostgreSQL cluster (the scale-out issue, items 2 and 3; split
 * from workers.test.ts so the two run side by side): a worker frozen past its lease stops its
 * step when it wakes; a run taken with `criteria unlock` waits for its user; outages shorter
 * and longer than the lease; what the sweeper and `criteria runs` say of runs whose holder
 * stopped, froze or died, and of a root parked while its children run on workers.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { bin, cli, temp } from "../../pipeline/helpers.js";
import { procStat } from "../../../engine/process-info.js";
import { useCluster } from "../journal/postgres-cluster.js";
import { runs, startWorker, stopWorker, until, type WorkerProcess } from "./helpers.js";

const { skip, cluster } = useCluster();

/** Whether process `pid` is running (a zombie, dead and awaiting its reaper, is not). */
const alive = (pid: number) => {
  const stat = procStat(pid);
  return stat !== undefined && stat.state !== "Z";
};

const HEAD = (initial: string) => `workflow "w" {\n  version = "1"\n  initial_state = "${initial}"\n  target_state = "done"\n}\nstate "done" { terminal = true }\nadapter "shell" "default" {}\n`;

describe.skipIf(skip !== undefined)("workers and leases", () => {
  const workers: WorkerProcess[] = [];
  afterAll(async () => {
    for (const w of workers) await stopWorker(w);
  });

  it("a worker frozen past its lease stops the step it had started when it wakes, the run taken over meanwhile; the effect is written once (a new-user trial: the frozen worker's step ran on beside the re-run)", async () => {
    const url = await cluster().freshDatabase();
    const dir = temp("criteria-wk-");
    const wf = join(dir, "w.hcl");
    const gate = join(dir, "gate");
    const pids = join(dir, "pids");
    const ledger = join(dir, "ledger");
    const started = () => (existsSync(pids) ? readFileSync(pids, "utf8").trim().split("\n").filter(Boolean).map(Number) : []);
    writeFileSync(wf, `${HEAD("slow")}step "slow" {\n  target = adapter.shell.default\n  input { command = "echo $$ >> '${pids}'; while [ ! -f '${gate}' ]; do sleep 0.1; done; echo effect >> '${ledger}'" }\n  outcome "success" { next = "done" }\n}\n`);
    const env = { CRITERIA_LEASE_TTL_MS: "1500" };
    const a = startWorker(url, join(dir, "a"), env);
    workers.push(a);
    expect(cli(["apply", wf, "--store", url, "--state-dir", join(dir, "s"), "--run-id", "f", "--detach"]).status).toBe(0);
    await vi.waitFor(() => expect(started()).toHaveLength(1), { timeout: 20_000, interval: 50 });
    a.child.kill("SIGSTOP");
    // Another worker's sweeper finds the frozen one's lease run out and takes the run over.
    const b = startWorker(url, join(dir, "b"), env);
    workers.push(b);
    await vi.waitFor(() => expect(started()).toHaveLength(2), { timeout: 30_000, interval: 50 });
    const [first, second] = started();
    expect(alive(first), "the frozen worker's step runs on while it is frozen").toBe(true);
    a.child.kill("SIGCONT");
    // At its next heartbeat it finds the lease another's, and stops its step (SIGTERM to its group).
    await vi.waitFor(() => expect(alive(first), a.out()).toBe(false), { timeout: 8_000, interval: 50 });
    expect(alive(second), "the new holder's step").toBe(true);
    // Its warning was written before the kill, but may reach this process after it (CI, Node 24);
    // woken past its lease, the worker may find it taken, or ran out before its renewal is answered.
    await vi.waitFor(() => expect(a.out()).toMatch(/"message":"this process can no longer write run f: its lease (was taken away \(by criteria unlock or resume --force, or by another process after it expired\)|ran out: it could not be renewed for [\d.]+ s [^"]*): stopping what it was running here"/), { timeout: 5_000, interval: 50 });
    writeFileSync(gate, "");
    const rows = await until(url, (r) => r.some((x) => x.run_id === "f" && x.status !== "active"), 30_000);
    expect(rows.find((r) => r.run_id === "f"), b.out()).toMatchObject({ status: "succeeded" });
    expect(readFileSync(ledger, "utf8")).toBe("effect\n");
    expect(a.child.exitCode, "the woken worker serves on").toBeNull();
  }, 90_000);

  it("a run taken from its worker with criteria unlock waits for its user: no other worker runs it, even while the first is still stopping its step (a new-user trial: the sweeper handed the job on, and the step ran twice)", async () => {
    const url = await cluster().freshDatabase();
    const dir = temp("criteria-wk-");
    const wf = join(dir, "w.hcl");
    const ledger = join(dir, "ledger");
    const gate = join(dir, "gate");
    // A step that ignores SIGTERM: its worker takes the 2 s grace to stop it (SIGKILL).
    writeFileSync(wf, `${HEAD("slow")}step "slow" {\n  target = adapter.shell.default\n  input { command = "trap '' TERM; echo start >> '${ledger}'; while [ ! -f '${gate}' ]; do sleep 0.1; done" }\n  outcome "success" { next = "done" }\n}\n`);
    const env = { CRITERIA_LEASE_TTL_MS: "1500" };
    const a = startWorker(url, join(dir, "a"), env);
    const b = startWorker(url, join(dir, "b"), env);
    workers.push(a, b);
    expect(cli(["apply", wf, "--store", url, "--run-id", "u", "--detach"]).status).toBe(0);
    await vi.waitFor(() => expect(existsSync(ledger) && readFileSync(ledger, "utf8")).toBe("start\n"), { timeout: 20_000, interval: 50 });
    await new Promise((r) => setTimeout(r, 3500)); // the job locked for more than two lease periods
    expect(cli(["unlock", "u", "--store", url]).status).toBe(0);
    // While its worker stops the step (2 s: it ignores SIGTERM), runs says so, not "queued" (a new-user trial).
    expect(runs(url).find((r) => r.run_id === "u")).toMatchObject({ activity: "stopped", detail: expect.stringMatching(/^stopped: its lease was taken \(criteria unlock\), and the worker that ran it stops what it runs at its next heartbeat; then nothing advances it: criteria resume u --store \S+ continues it here, or with --detach hands it to the workers$/) });
    await new Promise((r) => setTimeout(r, 5000));
    expect(readFileSync(ledger, "utf8"), a.out() + b.out()).toBe("start\n");
    expect(runs(url).find((r) => r.run_id === "u"), a.out() + b.out()).toMatchObject({ status: "active", activity: "stopped" });
    expect(a.out() + b.out()).not.toMatch(/handed back to the queue/);
    // Its user hands it back: it finishes.
    writeFileSync(gate, "");
    expect(cli(["resume", "u", "--store", url, "--detach"]).status).toBe(0);
    const rows = await until(url, (r) => r.some((x) => x.run_id === "u" && x.status !== "active"), 30_000);
    expect(rows.find((r) => r.run_id === "u")).toMatchObject({ status: "succeeded" });
  }, 90_000);

  it("a worker outlives a database outage longer than its lease mid-run: it stops the step it could no longer count on, then finishes the run, printing no stack trace and one line of the queue's", async () => {
    const url = await cluster().freshDatabase();
    const dir = temp("criteria-wk-");
    const wf = join(dir, "w.hcl");
    writeFileSync(wf, `${HEAD("one")}step "one" {\n  target = adapter.shell.default\n  input { command = "sleep 4; echo one" }\n  outcome "success" { next = "two" }\n}\nstep "two" {\n  target = adapter.shell.default\n  input { command = "echo two" }\n  outcome "success" { next = "done" }\n}\n`);
    const w = startWorker(url, join(dir, "w"), { CRITERIA_LEASE_TTL_MS: "2000" });
    workers.push(w);
    expect(cli(["apply", wf, "--store", url, "--state-dir", join(dir, "s"), "--run-id", "o", "--detach"]).status).toBe(0);
    // Someone following it waits for the database too, and exits with the run's outcome (found
    // by a new-user trial: the outage made it exit 1, as if the run had failed).
    const follower = spawn(process.execPath, [bin, "journal", "o", "--store", url, "--follow"], { stdio: ["ignore", "pipe", "pipe"] });
    let followed = "";
    follower.stdout.on("data", (d: Buffer) => (followed += d.toString()));
    follower.stderr.on("data", (d: Buffer) => (followed += d.toString()));
    const followerExit = new Promise<number | null>((r) => follower.once("exit", r));
    await vi.waitFor(() => expect(w.out()).toMatch(/"step":"one"/), { timeout: 20_000, interval: 50 });
    await vi.waitFor(() => expect(followed).toMatch(/step\.attempt\.started/), { timeout: 20_000, interval: 50 });
    expect(followed).not.toMatch(/run\.completed/);
    await cluster().outage(3000);
    const rows = await until(url, (r) => r.some((x) => x.run_id === "o" && x.status !== "active"), 45_000);
    expect(rows.find((r) => r.run_id === "o"), w.out()).toMatchObject({ status: "succeeded" });
    expect(w.out(), "no stack frames").not.toMatch(/^\s+at /m);
    // Unrenewed for a lease period, the lease is not counted on: another worker could hold it once the database is back.
    expect(w.out()).toMatch(/"message":"this process can no longer write run o: its lease ran out: it could not be renewed for \d+\.\d s \(the journal unreachable, or this process paused\), and another process may have taken the run over since: stopping what it was running here"/);
    // The queue's own words on the outage: one line at most (a new-user trial: six for a 4 s restart).
    const queueLines = w.out().split("\n").filter((l) => l.includes("criteria worker: queue:"));
    expect(queueLines.length, w.out()).toBeLessThanOrEqual(1);
    for (const l of queueLines) expect(l).toMatch(/^criteria worker: queue: lost its database connection \(.+\); reconnecting$/);
    expect(w.child.exitCode).toBeNull(); // still serving
    expect(await followerExit, followed).toBe(0);
    expect(followed).toMatch(/criteria: cannot read the journal postgresql:\S+: .*; trying again every 1 s \(the run goes on without this; Ctrl-C stops following\)\ncriteria: the journal answers again; following run o\n/);
    expect(followed.trim().split("\n").at(-1)).toMatch(/run\.completed/);
  }, 90_000);

  it("a step that ends while the database restarts keeps its result: the worker writes it once the database is back, and the step runs once (a new-user trial: it ran again)", async () => {
    const url = await cluster().freshDatabase();
    const dir = temp("criteria-wk-");
    const wf = join(dir, "w.hcl");
    const ledger = join(dir, "ledger");
    writeFileSync(wf, `${HEAD("one")}step "one" {\n  target = adapter.shell.default\n  input { command = "echo start >> '${ledger}'; sleep 1; echo effect >> '${ledger}'" }\n  outcome "success" { next = "done" }\n}\n`);
    const w = startWorker(url, join(dir, "w"), { CRITERIA_LEASE_TTL_MS: "15000" });
    workers.push(w);
    expect(cli(["apply", wf, "--store", url, "--state-dir", join(dir, "s"), "--run-id", "o", "--detach"]).status).toBe(0);
    await vi.waitFor(() => expect(readFileSync(ledger, "utf8")).toBe("start\n"), { timeout: 20_000, interval: 20 });
    // Down from before the step's end to well after it.
    await cluster().outage(3000);
    const rows = await until(url, (r) => r.some((x) => x.run_id === "o" && x.status !== "active"), 45_000);
    expect(rows.find((r) => r.run_id === "o"), w.out()).toMatchObject({ status: "succeeded" });
    expect(readFileSync(ledger, "utf8"), w.out()).toBe("start\neffect\n");
    const journal = cli(["journal", "o", "--store", url, "-o", "json"]);
    expect(journal.stdout).not.toMatch(/step\.attempt\.crashed/);
  }, 90_000);

  it("the sweeper says a run's expired lease once, however many sweeps pass before a free worker takes the run (a new-user trial: the note came again every sweep)", async () => {
    const url = await cluster().freshDatabase();
    const dir = temp("criteria-wk-");
    const gate = join(dir, "gate");
    const busy = join(dir, "busy.hcl");
    writeFileSync(busy, `${HEAD("wait")}step "wait" {\n  target = adapter.shell.default\n  input { command = "while [ ! -f '${gate}' ]; do sleep 0.1; done" }\n  outcome "success" { next = "done" }\n}\n`);
    const env = { CRITERIA_LEASE_TTL_MS: "1000" };
    // One run at a time, taken by a run that waits for the gate.
    const w = startWorker(url, join(dir, "w"), env, 1);
    workers.push(w);
    expect(cli(["apply", busy, "--store", url, "--run-id", "busy", "--detach"]).status).toBe(0);
    await vi.waitFor(() => expect(w.out()).toMatch(/"run_id":"busy","step":"wait"/), { timeout: 20_000, interval: 50 });
    // A foreground run killed mid-step: its lease runs out, and no worker is free to take it.
    const fg = spawn(process.execPath, [bin, "apply", busy, "--store", url, "--run-id", "fg", "-o", "json"], { env: { ...process.env, CI: "", ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    fg.stdout.on("data", (d: Buffer) => (out += d.toString()));
    await vi.waitFor(() => expect(out).toMatch(/"step":"wait"/), { timeout: 20_000, interval: 50 });
    fg.kill("SIGKILL");
    await vi.waitFor(() => expect(w.out()).toMatch(/run fg: its holder stopped answering/), { timeout: 20_000, interval: 50 });
    await new Promise((r) => setTimeout(r, 2500)); // five sweeps more
    expect(w.out().match(/run fg: its holder stopped answering/g), w.out()).toHaveLength(1);
    writeFileSync(gate, "");
    const rows = await until(url, (r) => ["busy", "fg"].every((id) => r.some((x) => x.run_id === id && x.status !== "active")), 30_000);
    expect(rows.filter((r) => r.status === "succeeded").map((r) => r.run_id).sort(), w.out()).toEqual(["busy", "fg"]);
  }, 90_000);

  it("criteria runs says a holder that stopped renewing its lease did so, not that it is gone: a frozen one goes on when continued, no one having taken the run (a new-user trial)", async () => {
    const url = await cluster().freshDatabase();
    const dir = temp("criteria-wk-");
    const wf = join(dir, "w.hcl");
    const gate = join(dir, "gate");
    writeFileSync(wf, `${HEAD("slow")}step "slow" {\n  target = adapter.shell.default\n  input { command = "while [ ! -f '${gate}' ]; do sleep 0.1; done" }\n  outcome "success" { next = "done" }\n}\n`);
    const fg = spawn(process.execPath, [bin, "apply", wf, "--store", url, "--run-id", "z", "-o", "json"], { env: { ...process.env, CI: "", CRITERIA_LEASE_TTL_MS: "2000" }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    fg.stdout.on("data", (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => fg.once("exit", r));
    await vi.waitFor(() => expect(out).toMatch(/"step":"slow"/), { timeout: 20_000, interval: 50 });
    fg.kill("SIGSTOP");
    await new Promise((r) => setTimeout(r, 2500));
    const listed = cli(["runs", "--store", url]).stdout;
    expect(listed).toMatch(/^z {2,}active .*\(not running: process \d+ on \S+ that ran it stopped renewing its lease \(gone, frozen or cut off\), which ran out at \d{4}-\d\d-\d\dT[\d:.]+Z; a worker takes it over, or criteria resume z --store \S+ continues it here\)$/m);
    fg.kill("SIGCONT");
    writeFileSync(gate, "");
    expect(await exited, out).toBe(0);
  }, 60_000);

  it("criteria runs says a root run parked while its child runs go on on workers is running, naming a child, not stopped; unlock of the root takes its children too (a new-user trial)", async () => {
    const url = await cluster().freshDatabase();
    const dir = temp("criteria-wk-");
    const wf = join(dir, "w.hcl");
    const gate = join(dir, "gate");
    writeFileSync(wf, `${HEAD("fan")}step "fan" {\n  parallel = ["a", "b"]\n  workflow {\n    step "wait" {\n      target = adapter.shell.default\n      input { command = "while [ ! -f '${gate}' ]; do sleep 0.1; done" }\n      outcome "success" { next = "_continue" }\n    }\n  }\n  outcome "all_succeeded" { next = "done" }\n}\n`);
    const w = startWorker(url, join(dir, "w"));
    workers.push(w);
    expect(cli(["apply", wf, "--store", url, "--run-id", "t", "--detach"]).status).toBe(0);
    await vi.waitFor(() => expect(w.out().match(/"step":"wait"/g)?.length ?? 0).toBe(2), { timeout: 20_000, interval: 50 });
    const listed = cli(["runs", "--store", url]).stdout;
    expect(listed).toMatch(/^t {2,}active .*\(running: its child run t\/fan#1\[[01]\] on process \d+ on \S+\)$/m);
    // unlock of the root takes its children too (a new-user trial: "nothing to unlock", and they ran on).
    const unlock = cli(["unlock", "t", "--store", url]);
    expect(unlock.status, unlock.stderr).toBe(0);
    const said = unlock.stdout.trimEnd().split("\n");
    expect(said.map((l) => /^unlocked its child run (t\/fan#1\[[01]\]): it was held by process \d+ on \S+ \(still running: it stops what it runs at its next heartbeat, and can no longer write to the journal; its lease ran until \S+\)/.exec(l)?.[1]).sort()).toEqual(["t/fan#1[0]", "t/fan#1[1]"]);
    expect(said[1]).toMatch(/; criteria resume t --store \S+ continues it$/);
    await vi.waitFor(() => expect(runs(url).find((r) => r.run_id === "t")?.activity, w.out()).toBe("stopped"), { timeout: 10_000, interval: 200 });
    writeFileSync(gate, "");
    expect(cli(["resume", "t", "--store", url, "--detach"]).status).toBe(0);
    const rows = await until(url, (r) => r.some((x) => x.run_id === "t" && x.status !== "active"), 30_000);
    expect(rows.find((r) => r.run_id === "t")).toMatchObject({ status: "succeeded" });
  }, 60_000);

  it("criteria runs says a run whose worker was killed waits for that worker's lease to end, not that it is queued (a new-user trial)", async () => {
    const url = await cluster().freshDatabase();
    const dir = temp("criteria-wk-");
    const wf = join(dir, "w.hcl");
    const gate = join(dir, "gate");
    writeFileSync(wf, `${HEAD("slow")}step "slow" {\n  target = adapter.shell.default\n  input { command = "while [ ! -f '${gate}' ]; do sleep 0.1; done" }\n  outcome "success" { next = "done" }\n}\n`);
    const w = startWorker(url, join(dir, "w"), { CRITERIA_LEASE_TTL_MS: "60000" });
    workers.push(w);
    expect(cli(["apply", wf, "--store", url, "--run-id", "k", "--detach"]).status).toBe(0);
    await vi.waitFor(() => expect(w.out()).toMatch(/"step":"slow"/), { timeout: 20_000, interval: 50 });
    w.child.kill("SIGKILL");
    await new Promise((r) => w.child.once("exit", r));
    const listed = cli(["runs", "--store", url]).stdout;
    expect(listed).toMatch(/^k {2,}active .*\(not running: process \d+ on \S+ that ran it is gone; a worker takes it over once its lease ends at \d{4}-\d\d-\d\dT[\d:.]+Z, or criteria resume k --store \S+ continues it here\)$/m);
    writeFileSync(gate, "");
  }, 60_000);

  it("criteria runs --all says each child run on a worker as its own holder's, and a root whose child's worker was killed waits for that lease, not \"nothing advances it\" (a new-user trial)", async () => {
    const url = await cluster().freshDatabase();
    const dir = temp("criteria-wk-");
    const wf = join(dir, "w.hcl");
    const gate = join(dir, "gate");
    writeFileSync(wf, `${HEAD("fan")}step "fan" {\n  parallel = ["a", "b"]\n  workflow {\n    step "wait" {\n      target = adapter.shell.default\n      input { command = "while [ ! -f '${gate}' ]; do sleep 0.1; done" }\n      outcome "success" { next = "_continue" }\n    }\n  }\n  outcome "all_succeeded" { next = "done" }\n}\n`);
    const w = startWorker(url, join(dir, "w"), { CRITERIA_LEASE_TTL_MS: "60000" });
    workers.push(w);
    expect(cli(["apply", wf, "--store", url, "--run-id", "g", "--detach"]).status).toBe(0);
    await vi.waitFor(() => expect(w.out().match(/"step":"wait"/g)?.length ?? 0).toBe(2), { timeout: 20_000, interval: 50 });
    const all = cli(["runs", "--all", "--store", url]).stdout;
    for (const child of ["g/fan#1[0]", "g/fan#1[1]"]) expect(all).toMatch(new RegExp(`^${child.replace(/[[\]]/g, "\\$&")} {2,}active .*\\(running: process ${w.child.pid} on \\S+\\)$`, "m"));
    w.child.kill("SIGKILL");
    await new Promise((r) => w.child.once("exit", r));
    const listed = cli(["runs", "--store", url]).stdout;
    expect(listed).toMatch(/^g {2,}active .*\(not running: process \d+ on \S+ that ran its child run g\/fan#1\[[01]\] is gone; a worker takes it over once its lease ends at \d{4}-\d\d-\d\dT[\d:.]+Z\)$/m);
    expect(runs(url).find((r) => r.run_id === "g")?.activity).toBe("holder_gone");
    writeFileSync(gate, "");
  }, 60_000);
});
