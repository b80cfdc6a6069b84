/**
 * The CLI on a PostgreSQL journal (`--store`, `CRITERIA_STORE`), against a real cluster
 * started by the test: a run killed after each of its effects (SIGKILL, before the
 * effect's confirmation) resumes to the same end as on SQLite with nothing confirmed run
 * twice; runs, journal, signal and resume work against the store; a bad store is a usage
 * error. The same exactly-once promise as the embedded journal (the scale-out issue, item 1).
 */
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import pg from "pg";
import { PostgresJournal } from "../../engine/journal/postgres-journal.js";
import { useCluster } from "../engine/journal/postgres-cluster.js";
import { bin, cli, repo, temp, until } from "./helpers.js";

const { skip, cluster } = useCluster();

const nested = join(repo, "testdata", "engine", "crash_nested", "main.hcl");
const LINES = ["prepare", "stage-single-a", "stage-single-b", "helper-one", "helper-two", "stage-x-a", "stage-x-b", "stage-y-a", "stage-y-b", "finish"];
const COMPLETED = { state: "done", success: true, reason: "ok", outputs: { summary: "ready\n/helped: help with single/x,y/all-done\n" } };

const lines = (file: string) => readFileSync(file, "utf8").split("\n").filter(Boolean);
const events = (stdout: string) => stdout.trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as { event: string; [k: string]: unknown });

describe.skipIf(skip !== undefined)("the CLI on a PostgreSQL journal", () => {
  it("a run killed after each effect resumes to the pinned end; a confirmed effect never runs again", async () => {
    const url = await cluster().freshSchema();
    let repeated = 0;
    for (let n = 1; n <= LINES.length; n++) {
      const dir = temp("criteria-pgkill-");
      const log = join(dir, "log.txt");
      const run = `k${n}`;
      const first = cli(["apply", nested, "--var", `log=${log}`, "--store", url, "--state-dir", join(dir, "state"), "--run-id", run, "-o", "json"], { env: { CRITERIA_FAULT_KILL_AFTER_EFFECT: String(n) } });
      expect(first.signal, `effect ${n}: ${first.stderr}`).toBe("SIGKILL");
      const before = lines(log);
      const listed = cli(["runs", "--store", url, "--state-dir", join(dir, "state")]);
      expect(listed.stdout).toMatch(new RegExp(`^${run} {2,}active .*\\(not running: process \\d+ on .* that ran it is gone; a worker takes it over once its lease ends at \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z, or criteria resume ${run} --store 'postgresql://.*' continues it here\\)$`, "m"));
      const again = cli(["resume", run, "--store", url, "--state-dir", join(dir, "state"), "-o", "json"]);
      expect(again.status, `effect ${n}: ${again.stderr}`).toBe(0);
      const end = events(again.stdout).find((e) => e.event === "run.completed" && e.run_id === run);
      expect(end, `effect ${n}`).toMatchObject({ state: COMPLETED.state, success: true, outputs: COMPLETED.outputs });
      const got = lines(log);
      expect([...new Set(got)].sort(), `effect ${n}`).toEqual([...LINES].sort());
      // Only the effect that ran unconfirmed (the last line before the kill) may run again.
      for (const l of new Set(got)) {
        const c = got.filter((x) => x === l).length;
        if (c > 1) {
          expect(l, `effect ${n}: ${JSON.stringify(got)}`).toBe(before[before.length - 1]);
          expect(c).toBe(2);
          repeated++;
        }
      }
    }
    expect(repeated).toBeGreaterThan(0);
    const journal = cli(["journal", "k1", "--store", url, "-o", "json"]);
    expect(journal.status, journal.stderr).toBe(0);
    const entries = events(journal.stdout) as unknown as { entry_type: string; seq: number }[];
    expect(entries.at(-1)?.entry_type).toBe("run.completed");
    expect(entries.filter((e) => e.entry_type === "step.attempt.crashed")).toHaveLength(1);
  }, 300_000);

  it("CRITERIA_STORE selects it; a parked run is signalled and resumed through it", async () => {
    const url = await cluster().freshSchema();
    const dir = temp("criteria-pgsig-");
    const wf = join(dir, "w.hcl");
    writeFileSync(
      wf,
      `workflow "w" {\n  version = "1"\n  initial_state = "gate"\n  target_state = "done"\n}\nstate "done" { terminal = true }\nwait "gate" {\n  signal = "deployed"\n  next = "done"\n}\n`,
    );
    const env = { CRITERIA_STORE: url, CRITERIA_STATE_DIR: join(dir, "state") };
    const parked = cli(["apply", wf, "--run-id", "p", "--no-wait"], { env });
    expect(parked.status, parked.stderr).toBe(5);
    const sent = cli(["signal", "p", "deployed", "--payload", '{"v":1}'], { env });
    expect(sent.status, sent.stderr).toBe(0);
    expect(sent.stdout).toMatch(/^delivered deployed to p \(journal entry \d+\)$/m);
    const resumed = cli(["resume", "p"], { env });
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(cli(["runs"], { env }).stdout).toMatch(/^p {2,}succeeded {2}w .* state=done$/m);
    // Nothing was written to the state directory's SQLite journal.
    expect(cli(["runs", "--state-dir", join(dir, "state")], { env: { CRITERIA_STORE: "" } }).stderr).toMatch(/no journal in/);
  }, 60_000);

  it("a foreground run waiting for a signal waits out a restart of the server, then takes the signal (a new-user trial: it ended with 'cannot read the journal')", async () => {
    const url = await cluster().freshSchema();
    const dir = temp("criteria-pgwait-");
    const wf = join(dir, "w.hcl");
    writeFileSync(wf, `workflow "w" {\n  version = "1"\n  initial_state = "gate"\n  target_state = "done"\n}\nstate "done" { terminal = true }\nwait "gate" {\n  signal = "go"\n  next = "done"\n}\n`);
    const fg = spawn(process.execPath, [bin, "apply", wf, "--store", url, "--state-dir", join(dir, "state"), "--run-id", "fw", "--wait", "-o", "json"], { env: { ...process.env, CI: "", CRITERIA_LEASE_TTL_MS: "20000" }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    fg.stdout.on("data", (d: Buffer) => (out += d.toString()));
    fg.stderr.on("data", (d: Buffer) => (out += d.toString()));
    const closed = new Promise<number | null>((r) => fg.once("close", r));
    await until(() => /"wait.started"/.test(out), 20_000);
    await cluster().outage(1500);
    expect(cli(["signal", "fw", "go", "--store", url]).status).toBe(0);
    expect(await closed, out).toBe(0);
    expect(events(out).find((e) => e.event === "run.completed")).toMatchObject({ state: "done", success: true });
  }, 60_000);

  it("a server lost while apply makes its run: apply says whether the run was made, and waits for the server rather than a state directory (a new-user trial)", async () => {
    const url = await cluster().freshSchema();
    const dir = temp("criteria-pgfirst-");
    const wf = join(dir, "w.hcl");
    writeFileSync(wf, `workflow "w" {\n  version = "1"\n  initial_state = "a"\n  target_state = "done"\n}\nadapter "shell" "default" {}\nstep "a" {\n  target = adapter.shell.default\n  input { command = "echo hi" }\n  outcome "success" { next = "done" }\n}\nstate "done" { terminal = true }\n`);
    await (await PostgresJournal.open(url, { stateDir: join(dir, "setup") })).close(); // the tables
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    await db.query("CREATE FUNCTION slow_write() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(1.5); RETURN NEW; END $$");
    await db.end();
    // A write that lasts long enough for the server to be stopped under it: the first lease
    // (which makes no run), then the run's first entry (which may have, for all apply can read).
    const cases = [
      { table: "leases", said: "nothing was started \\(run RUN was not created\\): apply again once the database server answers" },
      { table: "journal", said: "whether run RUN was created cannot be read either: once the store answers, criteria journal RUN --store '[^']+' shows it if it was \\(then criteria resume continues it\\), else apply again" },
    ];
    for (const { table, said } of cases) {
      const setup = new pg.Client({ connectionString: url });
      await setup.connect();
      await setup.query("DROP TRIGGER IF EXISTS slow_write ON leases; DROP TRIGGER IF EXISTS slow_write ON journal");
      await setup.query(`CREATE TRIGGER slow_write BEFORE INSERT OR UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION slow_write()`);
      await setup.end();
      for (const detach of [false, true]) {
        const run = `${table}${detach ? "-detached" : ""}`;
        const p = spawn(process.execPath, [bin, "apply", wf, "--store", url, "--state-dir", join(dir, "state"), "--run-id", run, ...(detach ? ["--detach"] : [])], { env: { ...process.env, CI: "", CRITERIA_LEASE_TTL_MS: "1000" }, stdio: ["ignore", "pipe", "pipe"] });
        let stderr = "";
        p.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
        const closed = new Promise<number | null>((r) => p.once("close", r));
        // The outage once the write is held in the trigger (a fixed pause missed it under load).
        const probe = new pg.Client({ connectionString: url });
        await probe.connect();
        for (const t0 = Date.now(); ; await new Promise((r) => setTimeout(r, 50))) {
          if (Number((await probe.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event = 'PgSleep'")).rows[0].n) > 0) break;
          if (Date.now() - t0 > 20_000) throw new Error(`apply's write never reached the trigger: ${stderr}`);
        }
        await probe.end();
        await cluster().outage(3000);
        expect(await closed, stderr).toBe(1);
        expect(stderr, run).toMatch(new RegExp(`^criteria: cannot write the journal postgresql://.*: (?:the database server went away|no PostgreSQL server answers there).*; ${said.replaceAll("RUN", run)}\n$`, "m"));
        expect(stderr, run).not.toMatch(/state directory|criteria worker/);
      }
    }
    const clean = new pg.Client({ connectionString: url });
    await clean.connect();
    await clean.query("DROP TRIGGER slow_write ON journal");
    await clean.end();
    expect(cli(["runs", "--store", url]).stdout).not.toMatch(/leases|journal/);
  }, 90_000);

  it("a store that is not a PostgreSQL URL is a usage error; an unreachable one a one-line error without its password", () => {
    // The value is never echoed (found by a new-user trial: a password in it was printed).
    const bad = cli(["runs", "--store", "mysql://u:S3cretPW@h/db"]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe("criteria: --store: expected a postgres:// or postgresql:// URL, not a mysql: one (leave it out for the SQLite journal in the state directory)\n");
    const env = cli(["runs"], { env: { CRITERIA_STORE: "sqlite:x" } });
    expect(env.status).toBe(2);
    expect(env.stderr).toMatch(/^criteria: CRITERIA_STORE: expected a postgres:\/\/ or postgresql:\/\/ URL, not a sqlite: one/);
    const query = cli(["runs", "--store", "postgres://c@127.0.0.1:1/p?sslpassword=TopSecret1&password=TopSecret2"]);
    expect(query.stderr).not.toMatch(/TopSecret/);
    // One pg cannot read is a usage error too, not "cannot open the journal postgres:…: Invalid URL", exit 1 (found by a new-user trial).
    for (const unreadable of ["postgres://me:hunter2@[db/x", "postgres://me:hunter2@db:99999/x"]) {
      const r = cli(["worker", "--store", unreadable]);
      expect(r.status, unreadable).toBe(2);
      expect(r.stderr).toBe("criteria: --store: not a URL PostgreSQL's driver can read: write postgres://user:password@host:5432/database, or postgres:///database?host=/run/postgresql for a Unix socket (percent-encode @ : / ? # % and spaces inside a password, e.g. p%40ss%23w0rd)\n");
    }
    const down = cli(["runs", "--store", "postgres://me:hunter2@127.0.0.1:1/db"]);
    expect(down.status).toBe(1);
    expect(down.stderr).toBe("criteria: cannot open the journal postgres://me:***@127.0.0.1:1/db: no PostgreSQL server answers there: is it running? (connect ECONNREFUSED 127.0.0.1:1)\n");
  });
});
