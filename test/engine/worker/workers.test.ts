/**
 * `criteria worker` and `apply --detach` on a real PostgreSQL cluster (the scale-out issue,
 * item 3): a submitted run is advanced by a worker; a run parked at a signal wait is woken
 * by `criteria signal` (the wake-up is enqueued in the signal's own transaction); a
 * duration wait parks the run and a timer job wakes it; `journal --follow` prints it to its
 * end and exits with its outcome; a worker stopped with SIGTERM hands
 * its run back and another finishes it.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { bin, cli, temp } from "../../pipeline/helpers.js";
import { withoutPassword } from "../../../engine/journal/store-url.js";
import { shellWord } from "../../../engine/shell-word.js";
import { PostgresJournal, wake } from "../../../engine/journal/postgres-journal.js";
import { useCluster } from "../journal/postgres-cluster.js";
import { runs, startWorker, stopWorker, until, type WorkerProcess } from "./helpers.js";

const { skip, cluster } = useCluster();

const HEAD = (initial: string) => `workflow "w" {\n  version = "1"\n  initial_state = "${initial}"\n  target_state = "done"\n}\nstate "done" { terminal = true }\nadapter "shell" "default" {}\n`;

describe.skipIf(skip !== undefined)("workers", () => {
  const workers: WorkerProcess[] = [];
  afterAll(async () => {
    for (const w of workers) await stopWorker(w);
  });

  it("a submitted run parked at a signal wait is woken by criteria signal; a duration wait parks and a timer wakes it", async () => {
    const url = await cluster().freshDatabase();
    const dir = temp("criteria-wk-");
    const wf = join(dir, "w.hcl");
    writeFileSync(
      wf,
      `${HEAD("gate")}wait "gate" {\n  signal = "go"\n  next = "pause"\n}\nwait "pause" {\n  duration = "1s"\n  next = "last"\n}\nstep "last" {\n  target = adapter.shell.default\n  input { command = "echo finished" }\n  outcome "success" { next = "done" }\n}\n`,
    );
    const submitted = cli(["apply", wf, "--store", url, "--state-dir", join(dir, "s"), "--run-id", "sig", "--detach", "-o", "text"]);
    expect(submitted.status, submitted.stderr).toBe(0);
    expect(submitted.stdout).toMatch(/^submitted run sig: a worker sharing the store runs it \(criteria runs --store 'postgresql:\/\/[^']+' and criteria journal sig --store 'postgresql:\/\/[^']+' follow it\)\n$/);
    const w = startWorker(url, join(dir, "w"));
    workers.push(w);
    // The worker takes the run to its signal wait and parks it.
    const parked = /run sig parked, waiting for signal \\"go\\": deliver it with criteria signal sig go --store 'postgresql:\/\/criteria@localhost\/d\d+_\d+\?host=[^ ']+'; a worker advances it when that comes/;
    await until(url, () => parked.test(w.out()), 20_000);
    expect(w.out()).toMatch(parked);
    // Someone following it from another shell (as CI would after --detach).
    const follower = spawn(process.execPath, [bin, "journal", "sig", "--store", url, "--follow"], { stdio: ["ignore", "pipe", "pipe"] });
    let followed = "";
    follower.stdout.on("data", (d: Buffer) => (followed += d.toString()));
    const followerExit = new Promise<number | null>((r) => follower.once("exit", r));
    const sent = cli(["signal", "sig", "go", "--store", url]);
    expect(sent.status, sent.stderr).toBe(0);
    const rows = await until(url, (r) => r.some((x) => x.run_id === "sig" && x.status !== "active"), 20_000);
    expect(rows.find((r) => r.run_id === "sig"), w.out()).toMatchObject({ status: "succeeded", final_state: "done" });
    expect(await followerExit).toBe(0);
    expect(followed).toMatch(/signal\.received/);
    expect(followed.trim().split("\n").at(-1)).toMatch(/run\.completed/);
    // The duration wait parked the run (no worker slept through it): a timer job woke it.
    expect(w.out()).toMatch(/run sig parked, waiting for \d{4}-.* \(a duration wait\)/);
    const journal = cli(["journal", "sig", "--store", url, "-o", "json"]);
    const types = journal.stdout.trim().split("\n").map((l) => (JSON.parse(l) as { entry_type: string }).entry_type);
    expect(types.filter((t) => t === "wait.completed")).toHaveLength(2);
    expect(types.at(-1)).toBe("run.completed");
  }, 60_000);

  it("a foreground run stopped by Ctrl-C is listed as stopped; resume --detach hands it to the workers, which finish it; a parked run says what it waits for (found by a new-user trial: it stayed active, listed as 'a worker takes it when it is woken')", async () => {
    const url = await cluster().freshDatabase();
    const dir = temp("criteria-wk-");
    const wf = join(dir, "w.hcl");
    const log = join(dir, "log");
    const gate = join(dir, "gate");
    // The step waits for a file, not a fixed time: a loaded machine cannot let it end before the Ctrl-C.
    writeFileSync(wf, `${HEAD("slow")}step "slow" {
  target = adapter.shell.default
  input { command = "while [ ! -e ${gate} ]; do sleep 0.05; done; echo slow >> ${log}" }
  outcome "success" { next = "done" }
}
`);
    // resume --detach needs a shared store.
    const local = cli(["resume", "x", "--detach", "--state-dir", join(dir, "local")]);
    expect(local.status, local.stderr).toBe(2);
    expect(local.stderr).toContain("--detach hands the run to workers (criteria worker), which share a PostgreSQL journal: add --store postgres://");
    const fg = spawn(process.execPath, [bin, "apply", wf, "--store", url, "--state-dir", join(dir, "s"), "--run-id", "fg", "-o", "json"], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    fg.stdout.on("data", (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => fg.once("exit", r));
    await vi.waitFor(() => expect(out).toMatch(/"step.started"/), { timeout: 20_000, interval: 50 });
    fg.kill("SIGINT");
    expect(await exited).toBe(4);
    const listed = cli(["runs", "--store", url]);
    expect(listed.stdout).toMatch(/^fg {2,}active .*\(stopped: nothing advances it; criteria resume fg --store 'postgresql:\/\/[^']+' continues it here, or with --detach hands it to the workers\)$/m);
    // Following it says once that nothing will advance it, and its stop says so too (a new-user
    // trial: it waited silently, and said the run "goes on").
    const follower = spawn(process.execPath, [bin, "journal", "fg", "--store", url, "--follow"], { stdio: ["ignore", "pipe", "pipe"] });
    let said = "";
    follower.stderr.on("data", (d: Buffer) => (said += d.toString()));
    const followed = new Promise<number | null>((r) => follower.once("exit", r));
    await vi.waitFor(() => expect(said).toContain("criteria: no worker or process will advance run fg now (stopped: nothing advances it; criteria resume fg --store '"), { timeout: 20_000, interval: 50 });
    follower.kill("SIGINT");
    expect(await followed).toBe(4);
    expect(said).toMatch(/criteria: stopped following run fg before it ended \(no process runs it now; /);
    const handed = cli(["resume", "fg", "--detach", "--store", url, "-o", "text"]);
    expect(handed.status, handed.stderr).toBe(0);
    expect(handed.stdout).toMatch(/^submitted run fg: a worker sharing the store runs it \(criteria runs --store 'postgresql:\/\/[^']+' and criteria journal fg --store 'postgresql:\/\/[^']+' follow it\)\n$/);
    expect(cli(["runs", "--store", url]).stdout).toMatch(/^fg {2,}active .*\(queued: a worker takes it\)$/m);
    writeFileSync(gate, "");
    const w = startWorker(url, join(dir, "w"));
    workers.push(w);
    const rows = await until(url, (r) => r.some((x) => x.run_id === "fg" && x.status !== "active"), 30_000);
    expect(rows.find((r) => r.run_id === "fg"), w.out()).toMatchObject({ status: "succeeded" });
    // A parked run says what it waits for.
    writeFileSync(join(dir, "gate.hcl"), `${HEAD("gate")}wait "gate" {\n  signal = "go"\n  next = "done"\n}\n`);
    expect(cli(["apply", join(dir, "gate.hcl"), "--store", url, "--run-id", "g", "--detach"]).status).toBe(0);
    await until(url, () => /run g parked/.test(w.out()), 20_000);
    expect(cli(["runs", "--store", url]).stdout).toMatch(/^g {2,}active .*\(parked, waiting for signal "go": a worker takes it when that comes; criteria resume g --store \S+ continues it here\)$/m);
  }, 90_000);

  it("a foreground run stopped by Ctrl-C while it waits at an approval says that a decision wakes the workers, which go on with it (a new-user trial: only resume was said, and a worker finished the run once it was approved)", async () => {
    const url = await cluster().freshDatabase();
    const dir = temp("criteria-wk-");
    const wf = join(dir, "w.hcl");
    writeFileSync(wf, `${HEAD("gate")}approval "gate" {\n  approvers = ["ops"]\n  outcome "approved" { next = "done" }\n  outcome "rejected" { next = "done" }\n}\n`);
    const fg = spawn(process.execPath, [bin, "apply", wf, "--store", url, "--run-id", "fa", "--wait", "-o", "json"], { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    fg.stdout.on("data", (d: Buffer) => (out += d.toString()));
    const closed = new Promise<number | null>((r) => fg.once("close", r));
    await vi.waitFor(() => expect(out).toMatch(/"approval.requested"/), { timeout: 20_000, interval: 50 });
    fg.kill("SIGINT");
    expect(await closed).toBe(4);
    const exit = JSON.parse(out.trim().split("\n").at(-1)!) as { status: string; message: string };
    expect(exit.status).toBe("stopped");
    expect(exit.message).toMatch(/^run fa stopped before its end; it waited for approval "gate": given, the workers sharing its store go on with it; continue it with criteria resume fa --store \S+$/);
  }, 60_000);

  it("resume --detach --workdir journals where the run's files are now, and the workers continue it there (was refused: --workdir did not reach the workers)", async () => {
    const url = await cluster().freshDatabase();
    const dir = temp("criteria-wk-");
    const wf = join(dir, "wf");
    mkdirSync(wf);
    writeFileSync(join(wf, "note.txt"), "from the module\n");
    writeFileSync(join(wf, "w.hcl"), `${HEAD("gate")}wait "gate" {\n  signal = "go"\n  next = "done"\n}\noutput "note" { value = file("note.txt") }\n`);
    expect(cli(["apply", join(wf, "w.hcl"), "--store", url, "--run-id", "m", "--detach"]).status).toBe(0);
    const w = startWorker(url, join(dir, "w"));
    workers.push(w);
    await until(url, () => /run m parked/.test(w.out()), 20_000);
    const moved = join(dir, "moved");
    renameSync(wf, moved);
    expect(cli(["resume", "m", "--detach", "--store", url, "--workdir", join(dir, "nowhere")]).stderr).toContain("--workdir");
    const handed = cli(["resume", "m", "--detach", "--store", url, "--workdir", moved, "-o", "text"]);
    expect(handed.status, handed.stderr).toBe(0);
    expect(cli(["signal", "m", "go", "--store", url]).status).toBe(0);
    const rows = await until(url, (r) => r.some((x) => x.run_id === "m" && x.status !== "active"), 30_000);
    expect(rows.find((r) => r.run_id === "m"), w.out()).toMatchObject({ status: "succeeded" });
    const entries = cli(["journal", "m", "--store", url, "-o", "json"]).stdout.trim().split("\n").map((l) => JSON.parse(l) as { entry_type: string; payload: Record<string, unknown> });
    expect(entries.filter((e) => e.entry_type === "run.relocated").map((e) => e.payload)).toEqual([{ base_dir: moved }]);
    expect(entries.find((e) => e.entry_type === "run.completed")?.payload).toMatchObject({ outputs: { note: "from the module\n" } });
  }, 90_000);

  it("a worker stopped with SIGTERM hands its run back; another worker finishes it", async () => {
    const url = await cluster().freshDatabase();
    const dir = temp("criteria-wk-");
    const wf = join(dir, "w.hcl");
    // The step waits for a file the test writes once the first worker is stopped (with a
    // fixed sleep, a loaded machine let it end before the SIGTERM came).
    const gate = join(dir, "gate");
    writeFileSync(wf, `${HEAD("slow")}step "slow" {\n  target = adapter.shell.default\n  input { command = "while [ ! -f ${gate} ]; do sleep 0.1; done; echo slept" }\n  outcome "success" { next = "done" }\n}\n`);
    const a = startWorker(url, join(dir, "a"));
    workers.push(a);
    expect(cli(["apply", wf, "--store", url, "--state-dir", join(dir, "s"), "--run-id", "h", "--detach"]).status).toBe(0);
    await vi.waitFor(() => expect(a.out()).toMatch(/"step":"slow"/), { timeout: 20_000, interval: 50 });
    expect(await stopWorker(a)).toBe(0);
    expect(a.out()).toMatch(/run h handed back to the queue: this worker is stopping/);
    writeFileSync(gate, "");
    const b = startWorker(url, join(dir, "b"));
    workers.push(b);
    const rows = await until(url, (r) => r.some((x) => x.run_id === "h" && x.status !== "active"), 30_000);
    expect(rows.find((r) => r.run_id === "h"), b.out()).toMatchObject({ status: "succeeded" });
  }, 60_000);

  it("the sweeper clears queue jobs that used up their attempts once their run has ended; an active run's stay", async () => {
    // Found by a trial: exhausted jobs of killed workers' runs stayed in the queue for good.
    const url = await cluster().freshDatabase();
    const dir = temp("criteria-wk-");
    const wf = join(dir, "w.hcl");
    writeFileSync(wf, `${HEAD("gate")}wait "gate" {\n  signal = "go"\n  next = "done"\n}\n`);
    for (const id of ["ended", "waiting"]) expect(cli(["apply", wf, "--store", url, "--state-dir", join(dir, "s"), "--run-id", id, "--detach"]).status).toBe(0);
    expect(cli(["signal", "ended", "go", "--store", url]).status).toBe(0);
    const { default: pg } = await import("pg");
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      const w = startWorker(url, join(dir, "w"), { CRITERIA_LEASE_TTL_MS: "1000" });
      workers.push(w);
      await until(url, (r) => r.some((x) => x.run_id === "ended" && x.status === "succeeded"), 20_000);
      // Exhausted jobs, as a queue keeps them after their last failed attempt: one of the ended run, one of a run never submitted, one of the waiting run.
      for (const run of ["ended", "unknown", "waiting"]) {
        await db.query("SELECT graphile_worker.add_job('advance', json_build_object('run', $1::text), run_at := now() + interval '1 hour', max_attempts := 1, job_key := $2)", [run, `spent-${run}`]);
      }
      await db.query("UPDATE graphile_worker._private_jobs SET attempts = max_attempts, last_error = 'storage failure' WHERE key LIKE 'spent-%'");
      const left = async () => (await db.query<{ key: string }>("SELECT key FROM graphile_worker._private_jobs WHERE key LIKE 'spent-%' ORDER BY key")).rows.map((r) => r.key);
      for (let i = 0; i < 40 && (await left()).length > 1; i++) await new Promise((r) => setTimeout(r, 250));
      expect(await left()).toEqual(["spent-waiting"]);
    } finally {
      await db.end();
    }
  }, 60_000);

  it("a run that fails outside a state: the worker says why (found by a new-user trial: ended in state \"\")", async () => {
    const url = await cluster().freshDatabase();
    const dir = temp("criteria-wk-");
    const wf = join(dir, "w.hcl");
    writeFileSync(wf, `${HEAD("boom")}step "boom" {\n  target = adapter.shell.default\n  input { command = "exit 3" }\n  outcome "success" { next = "done" }\n}\n`);
    expect(cli(["apply", wf, "--store", url, "--state-dir", join(dir, "s"), "--run-id", "boom", "--detach"]).status).toBe(0);
    const w = startWorker(url, join(dir, "w"));
    workers.push(w);
    const rows = await until(url, (r) => r.some((x) => x.run_id === "boom" && x.status !== "active"), 20_000);
    expect(rows.find((r) => r.run_id === "boom"), w.out()).toMatchObject({ status: "failed" });
    // The worker's note comes after the run's end is journaled.
    await until(url, () => /run boom failed/.test(w.out()), 10_000);
    expect(w.out()).toMatch(/run boom failed \(\w+: [^)]+\)/);
    expect(w.out()).not.toMatch(/ended in state \\"\\"/);
  }, 40_000);

  it("a worker started while its database is down waits for it, then advances a submitted run; one stopped while waiting exits 0; a missing database is refused at once (found by a new-user trial: it exited at start)", async () => {
    const url = await cluster().freshDatabase();
    const dir = temp("criteria-wk-");
    const wf = join(dir, "w.hcl");
    writeFileSync(wf, `${HEAD("one")}step "one" {\n  target = adapter.shell.default\n  input { command = "echo one" }\n  outcome "success" { next = "done" }\n}\n`);
    // Stops the server at once, starts it again 4 s later.
    const outage = cluster().outage(4000);
    const w = startWorker(url, join(dir, "w"));
    workers.push(w);
    const quitter = startWorker(url, join(dir, "q"));
    await vi.waitFor(() => expect(w.out()).toMatch(/no PostgreSQL server answers there/), { timeout: 20_000, interval: 50 });
    await vi.waitFor(() => expect(quitter.out()).toMatch(/trying again every 1 s until it answers/), { timeout: 20_000, interval: 50 });
    expect(await stopWorker(quitter), quitter.out()).toBe(0);
    expect(quitter.out()).toMatch(/"status":"stopped","advanced":0/);
    await outage;
    await vi.waitFor(() => expect(w.out()).toMatch(/the database answers: starting/), { timeout: 20_000, interval: 50 });
    expect(w.out().match(/trying again every 1 s/g), "said once").toHaveLength(1);
    expect(cli(["apply", wf, "--store", url, "--state-dir", join(dir, "s"), "--run-id", "late", "--detach"]).status).toBe(0);
    const rows = await until(url, (r) => r.some((x) => x.run_id === "late" && x.status !== "active"), 30_000);
    expect(rows.find((r) => r.run_id === "late"), w.out()).toMatchObject({ status: "succeeded" });
    expect(w.out(), "no stack frames").not.toMatch(/^\s+at /m);
    // What waiting does not mend is refused at once.
    const missing = cli(["worker", "--store", url.replace(/\/(\w+)\?/, "/no_such_db?"), "--state-dir", join(dir, "m")]);
    expect(missing.status, missing.stdout).toBe(1);
    expect(missing.stderr).toMatch(/^criteria: cannot open the journal \S+: the database does not exist/);
  }, 90_000);

  it("a secret variable travels to no worker: apply --detach refuses one given with --var and asks for none; the worker that has CRITERIA_VAR_<name> runs it, one without says how to give it (found by a new-user trial: the submitted value was silently replaced)", async () => {
    const url = await cluster().freshDatabase();
    const dir = temp("criteria-wk-");
    const wf = join(dir, "w.hcl");
    const out = join(dir, "secret.log");
    writeFileSync(wf, `${HEAD("use")}variable "token" {\n  type   = string\n  secret = true\n}\nstep "use" {\n  target = adapter.shell.default\n  input { command = "echo token=$TOKEN >> ${out}" }\n  secret_input { TOKEN = var.token }\n  outcome "success" { next = "done" }\n}\n`);
    const given = cli(["apply", wf, "--store", url, "--state-dir", join(dir, "s"), "--run-id", "s1", "--detach", "--var", "token=fromvar"]);
    expect(given.status).toBe(2);
    expect(given.stderr).toBe(`criteria: --var token: "token" is a secret variable, and a secret is never journaled, so its value cannot travel to the workers with --detach: give it to the workers instead (CRITERIA_VAR_token in their environment) and leave it out here\n`);
    expect(given.stderr).not.toContain("fromvar");
    // Not asked for, and the submitter's own CRITERIA_VAR_token stays here.
    const submitted = cli(["apply", wf, "--store", url, "--state-dir", join(dir, "s"), "--run-id", "s2", "--detach"], { env: { CRITERIA_VAR_token: "submitters" } });
    expect(submitted.status, submitted.stderr).toBe(0);
    const lacking = startWorker(url, join(dir, "a"));
    workers.push(lacking);
    await vi.waitFor(() => expect(lacking.out()).toMatch(/run s2 cannot go on here: it needs secret variable \\"token\\", which this worker's environment lacks \(start workers with CRITERIA_VAR_token\); handed back to the queue for a worker that has it \(again in 30 s\)/), { timeout: 20_000, interval: 50 });
    expect(await stopWorker(lacking)).toBe(0);
    const having = startWorker(url, join(dir, "b"), { CRITERIA_VAR_token: "workers" });
    workers.push(having);
    // The hand-back is due in 30 s: hand it over again now.
    expect(cli(["resume", "s2", "--store", url, "--detach"]).status).toBe(0);
    const rows = await until(url, (r) => r.some((x) => x.run_id === "s2" && x.status !== "active"), 30_000);
    expect(rows.find((r) => r.run_id === "s2"), having.out()).toMatchObject({ status: "succeeded" });
    expect(readFileSync(out, "utf8")).toBe("token=workers\n");
  }, 90_000);

  it("a wake-up of a run that has ended since (a second job of it) says nothing more: its end was said once (a new-user trial: said twice)", async () => {
    const url = await cluster().freshDatabase();
    const dir = temp("criteria-wk-");
    const wf = join(dir, "w.hcl");
    writeFileSync(wf, `${HEAD("one")}step "one" {\n  target = adapter.shell.default\n  input { command = "true" }\n  outcome "success" { next = "done" }\n}\n`);
    const w = startWorker(url, join(dir, "w"));
    workers.push(w);
    expect(cli(["apply", wf, "--store", url, "--run-id", "e", "--detach"]).status).toBe(0);
    await vi.waitFor(() => expect(w.out()).toMatch(/run e ended in state \\"done\\"/), { timeout: 20_000, interval: 50 });
    const j = await PostgresJournal.open(url, { stateDir: join(dir, "j") });
    try {
      await wake(j.connections, "e");
      await vi.waitFor(async () => expect((await j.connections.query("SELECT count(*)::int AS n FROM graphile_worker._private_jobs")).rows[0].n).toBe(0), { timeout: 10_000, interval: 100 });
    } finally {
      await j.close();
    }
    expect(w.out().match(/run e ended in state/g), w.out()).toHaveLength(1);
  }, 60_000);

  it("criteria runs tells a parked timer from a queued job, a foreground run stopped at a duration wait from a parked one, and a run whose approval was given but which nothing advances (found by a new-user trial)", async () => {
    const url = await cluster().freshDatabase();
    const dir = temp("criteria-wk-");
    const nap = join(dir, "nap.hcl");
    writeFileSync(nap, `${HEAD("nap")}wait "nap" {\n  duration = "60s"\n  next = "done"\n}\n`);
    const w = startWorker(url, join(dir, "w"));
    workers.push(w);
    expect(cli(["apply", nap, "--store", url, "--run-id", "parked", "--detach"]).status).toBe(0);
    await vi.waitFor(() => expect(w.out()).toMatch(/run parked parked/), { timeout: 20_000, interval: 50 });
    // A foreground run handles its own timer: stopped there, no worker holds it.
    const fg = spawn(process.execPath, [bin, "apply", nap, "--store", url, "--run-id", "fg", "--wait", "-o", "json"], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    fg.stdout.on("data", (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => fg.once("exit", r));
    await vi.waitFor(() => expect(out).toMatch(/"wait.started"|"event":"wait/), { timeout: 20_000, interval: 50 });
    fg.kill("SIGINT");
    expect(await exited).toBe(4);
    // A run whose files are gone: the worker gives it up after its approval is given.
    const moved = join(dir, "moved");
    mkdirSync(moved);
    writeFileSync(join(moved, "gate.hcl"), `${HEAD("ok")}approval "ok" {\n  approvers = ["ops"]\n  outcome "approved" { next = "done" }\n  outcome "rejected" { next = "done" }\n}\n`);
    expect(cli(["apply", join(moved, "gate.hcl"), "--store", url, "--run-id", "given", "--detach"]).status).toBe(0);
    await vi.waitFor(() => expect(w.out()).toMatch(/run given parked/), { timeout: 20_000, interval: 50 });
    rmSync(moved, { recursive: true, force: true });
    expect(cli(["approve", "given", "ok", "--store", url, "--by", "ops"]).status).toBe(0);
    await vi.waitFor(() => expect(w.out()).toMatch(/run given cannot be advanced: the run's workflow directory/), { timeout: 20_000, interval: 50 });
    const listed = cli(["runs", "--store", url]).stdout;
    expect(listed).toMatch(/^parked {2,}active .*\(parked, waiting for the time \(wait "nap"\): a worker takes it at \d{4}-\d\d-\d\dT[\d:.]+Z; criteria resume parked --store \S+ continues it here\)$/m);
    expect(listed).toMatch(/^fg {2,}active .*\(stopped at the time \(wait "nap"\): no worker holds its timer; nothing advances it; criteria resume fg --store \S+ continues it here, or with --detach hands it to the workers\)$/m);
    expect(listed).toMatch(/^given {2,}active .*\(stopped: its approval "ok" approved, but nothing advances it; criteria resume given --store \S+ continues it here, or with --detach hands it to the workers\)$/m);
    // -o json carries the same words.
    const rows = runs(url);
    expect(rows.find((r) => r.run_id === "parked")?.detail).toMatch(/^parked, waiting for the time \(wait "nap"\): a worker takes it at /);
    expect(rows.find((r) => r.run_id === "fg")?.detail).toMatch(/^stopped at the time \(wait "nap"\)/);
    expect([rows.find((r) => r.run_id === "parked")?.activity, rows.find((r) => r.run_id === "fg")?.activity, rows.find((r) => r.run_id === "given")?.activity]).toEqual(["parked", "stopped", "stopped"]);
  }, 90_000);

  it("criteria runs names the deadline of what a parked run waits for now, not that of a wait it has passed (found by a new-user trial: an approval without one was said to be due at the signal wait's)", async () => {
    const url = await cluster().freshDatabase();
    const dir = temp("criteria-wk-");
    const wf = join(dir, "two.hcl");
    writeFileSync(wf, `${HEAD("hold")}wait "hold" {\n  signal  = "go"\n  timeout = "10m"\n  outcome "received" { next = "gate" }\n  outcome "timeout" { next = "done" }\n}\napproval "gate" {\n  approvers = ["ops"]\n  outcome "approved" { next = "done" }\n  outcome "rejected" { next = "done" }\n}\n`);
    const w = startWorker(url, join(dir, "w"));
    workers.push(w);
    expect(cli(["apply", wf, "--store", url, "--run-id", "two", "--detach"]).status).toBe(0);
    await vi.waitFor(() => expect(w.out()).toMatch(/run two parked, waiting for signal/), { timeout: 20_000, interval: 50 });
    expect(cli(["runs", "--store", url]).stdout).toMatch(/^two {2,}active .*\(parked, waiting for signal "go": a worker takes it when that comes, or at \d{4}-\d\d-\d\dT[\d:.]+Z when its deadline is due; /m);
    expect(cli(["signal", "two", "go", "--store", url]).status).toBe(0);
    await vi.waitFor(() => expect(w.out()).toMatch(/run two parked, waiting for approval/), { timeout: 20_000, interval: 50 });
    const listed = cli(["runs", "--store", url]).stdout;
    expect(listed).toMatch(/^two {2,}active .*\(parked, waiting for approval "gate": a worker takes it when that comes; criteria resume two --store \S+ continues it here\)$/m);
  }, 60_000);

  it("--detach needs a PostgreSQL store; a worker needs one too", () => {
    const dir = temp("criteria-wk-");
    const wf = join(dir, "w.hcl");
    writeFileSync(wf, `${HEAD("done")}`);
    const detached = cli(["apply", wf, "--state-dir", join(dir, "s"), "--detach", "-o", "text"]);
    expect(detached.status).toBe(2);
    expect(detached.stderr).toBe("criteria: --detach hands the run to workers (criteria worker), which share a PostgreSQL journal: add --store postgres://…\n");
    const worker = cli(["worker"], { env: { CRITERIA_STORE: "" } });
    expect(worker.status).toBe(2);
    expect(worker.stderr).toBe("criteria: criteria worker needs a PostgreSQL journal: --store postgres://… (or CRITERIA_STORE)\n");
    // Its help says so too (a new-user trial read "else the SQLite journal in the state directory" there).
    expect(cli(["worker", "--help"]).stdout).toMatch(/--store <url> +the PostgreSQL journal the workers share, postgres:\/\/…\s+\(default: \$CRITERIA_STORE; one of them is required\)/);
    expect(cli(["worker", "--store", "postgres://x@h/d", "--concurrency", "0"]).stderr).toBe("criteria: --concurrency 0: a whole number from 1 to 256\n");
  });

  it("flags that act in this process are refused with --detach, before anything is submitted (found by a new-user trial: --auto-approve was accepted and ignored)", async () => {
    const url = await cluster().freshDatabase();
    const dir = temp("criteria-wk-");
    const wf = join(dir, "w.hcl");
    writeFileSync(wf, `${HEAD("done")}`);
    const refusals: [string[], string][] = [
      [["apply", wf, "--auto-approve"], `criteria: --auto-approve approves in this process, and --detach runs nothing here: decide on the workers' runs with criteria approve RUN NAME --store ${shellWord(withoutPassword(url))} (or reject)\n`],
      [["apply", wf, "--wait"], "criteria: --wait says this process waits at approvals and signal waits, and --detach runs nothing here: a run on the workers parks at them\n"],
      [["resume", "r", "--auto-approve"], `criteria: --auto-approve approves in this process, and --detach runs nothing here: decide on the workers' runs with criteria approve RUN NAME --store ${shellWord(withoutPassword(url))} (or reject)\n`],
      // A new-user trial: resume --force --detach of a run a worker held was submitted, and nothing taken.
      [["resume", "r", "--force"], `criteria: --force takes the run over in this process, and --detach runs nothing here: take it from its holder with criteria unlock r --store ${shellWord(withoutPassword(url))} (the holder stops what it runs), then resume --detach hands it to the workers\n`],
    ];
    for (const [args, message] of refusals) {
      const r = cli([...args, "--store", url, "--state-dir", join(dir, "s"), "--detach", "-o", "text"]);
      expect(r.status, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).toBe(message);
    }
    expect(cli(["runs", "--store", url]).stdout).not.toMatch(/\bw\b/); // nothing was submitted
    // --no-wait is what workers do anyway: accepted.
    const parking = cli(["apply", wf, "--store", url, "--state-dir", join(dir, "s"), "--detach", "--no-wait", "-o", "text"]);
    expect(parking.status, parking.stderr).toBe(0);
  });
});
