/**
 * Issue #7, items 3 and 4: a corrupted journal never re-runs finished work silently, and
 * every storage failure is one line with the path and an exit code, never a stack trace,
 * the run staying resumable. Real damaged files: a flipped byte in an entry, damaged
 * database pages, a file-size limit that makes the disk "full" mid-run.
 */
import Database from "better-sqlite3";
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { describe, expect, it, vi } from "vitest";
import { bin, cli, damage, entries, temp } from "./helpers.js";

/** A three-step shell workflow; each step appends its name to `log` in `dir`. */
function workflow(dir: string, steps = ["one", "two", "three"]): string {
  const body = steps
    .map((s, i) => `step "${s}" {\n  target = adapter.shell.default\n  input { command = "echo ${s} >> '${dir}/log'" }\n  outcome "success" { next = ${i + 1 < steps.length ? `step.${steps[i + 1]}` : "state.done"} }\n}\n`)
    .join("");
  writeFileSync(join(dir, "w.hcl"), `workflow {\n  name = "three"\n  initial_state = "${steps[0]}"\n  target_state = "done"\n}\nadapter "shell" "default" {}\n${body}state "done" { terminal = true }\n`);
  return join(dir, "w.hcl");
}

const lines = (dir: string) => readFileSync(join(dir, "log"), "utf8").split("\n").filter(Boolean);

/** Another user, for reading a journal as one who may not write it (the tests that need it run as root). */
const NOBODY = { uid: 65534, gid: 65534 };

/**
 * Whether node and the CLI can be run with `as` (a Node installed in a directory only root may
 * enter, as CI's second and third Node versions are, cannot be run as nobody).
 */
function runnableAs(as: { uid?: number; gid?: number }): boolean {
  return spawnSync(process.execPath, ["-e", `require("fs").accessSync(${JSON.stringify(bin)})`], { ...as }).status === 0;
}

/** What `state`'s journal has set aside (`--discard-damaged`): how many entries, and the highest seq. */
function quarantined(state: string): { count: number; maxSeq: number } {
  const db = new Database(join(state, "journal.db"));
  try {
    const row = db.prepare("SELECT COUNT(*) AS count, COALESCE(MAX(seq), 0) AS maxSeq FROM journal_quarantine").get() as { count: number; maxSeq: number };
    return { count: row.count, maxSeq: row.maxSeq };
  } finally {
    db.close();
  }
}

describe("a corrupted journal entry (item 3)", () => {
  it("resume refuses (exit 1) naming the entry and the finished steps it would run again; journal exits 1; --discard-damaged sets them aside", async () => {
    const dir = temp();
    const wf = workflow(dir);
    const state = join(dir, "state");
    // Stop the run after step two's completion (the process kills itself right there).
    const ref = temp();
    expect(cli(["apply", workflow(ref), "--state-dir", join(ref, "state"), "--run-id", "r"]).status).toBe(0);
    const twoDone = (await entries(join(ref, "state"), "r")).find((e) => e.entry_type === "step.completed" && e.step_id === "two")!.seq;
    const first = cli(["apply", wf, "--state-dir", state, "--run-id", "r", "-o", "json"], { env: { CRITERIA_FAULT_KILL_AFTER_SEQ: String(twoDone) } });
    expect(first.signal).toBe("SIGKILL");
    expect(lines(dir)).toEqual(["one", "two"]);
    // Flip one byte of step one's completion.
    const seq = damage(state, "entry_type = 'step.completed' AND step_id = 'one'", '"success"', '"sucdess"');
    const refused = cli(["resume", "r", "--state-dir", state]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`journal entry ${seq} of run r fails its checksum`);
    // Step one's effect was confirmed before the damage: it is re-used; two's is lost with it.
    expect(refused.stderr).toContain(`run again step "two" that had finished`);
    expect(refused.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(lines(dir)).toEqual(["one", "two"]); // nothing ran
    const journal = cli(["journal", "r", "--state-dir", state]);
    expect(journal.status).toBe(1);
    expect(journal.stderr).toContain(`journal entry ${seq} of run r fails its checksum`);
    // runs says it is damaged, not that resume continues it (found by a new-user trial).
    const listed = JSON.parse(cli(["runs", "--state-dir", state, "-o", "json"]).stdout);
    expect(listed).toMatchObject({ run_id: "r", activity: "damaged" });
    expect(listed.detail).toBe(`damaged: entry ${seq} fails its checksum; criteria resume r --state-dir ${state} says what resuming past it loses, --discard-damaged does it`);
    // Explicitly: set the damage aside and run what it had recorded again.
    const discarded = cli(["resume", "r", "--state-dir", state, "--discard-damaged", "-o", "json"]);
    expect(discarded.status, discarded.stderr).toBe(0);
    expect(discarded.stdout).toContain("--discard-damaged: set aside");
    expect(lines(dir)).toEqual(["one", "two", "two", "three"]);
    const moved = quarantined(state).count;
    expect(moved).toBeGreaterThan(0);
    // The journal says so, at the place it happened (found by a new-user trial: nothing showed it).
    const after = await entries(state, "r");
    const said = after.filter((e) => e.entry_type === "run.damage_discarded");
    expect(said.map((e) => [e.run_id, e.payload])).toEqual([["r", { from_seq: seq, entries: moved, steps: ["two"] }]]);
    expect(after.findIndex((e) => e.entry_type === "run.damage_discarded")).toBeLessThan(after.findIndex((e) => e.entry_type === "step.completed" && e.step_id === "three"));
    // The seqs set aside are never given again: what follows the discard comes after them.
    expect(said[0].seq).toBeGreaterThan(quarantined(state).maxSeq);
    const text = cli(["journal", "r", "--state-dir", state]);
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`run\\.damage_discarded\\s.*set aside ${moved} damaged or later entries from entry ${seq} \\(the journal's quarantine keeps them\\); ran again: two`));
    expect(cli(["journal", "r", "--state-dir", state, "--format", "html"]).stdout).toContain('data-kind="discard"');
  }, 60_000);

  it("a damaged first entry (the run's workflow): resume says the run cannot be resumed, and --discard-damaged sets nothing aside (found by a new-user trial: the run vanished)", async () => {
    const dir = temp();
    const state = join(dir, "state");
    const first = cli(["apply", workflow(dir), "--state-dir", state, "--run-id", "r"], { env: { CRITERIA_FAULT_KILL_AFTER_SEQ: "3" } });
    expect(first.signal).toBe("SIGKILL");
    const seq = damage(state, "entry_type = 'run.spawned'", '"three"', '"thref"');
    const said = `journal entry ${seq} of run r fails its checksum: it is the run's first entry, which holds its workflow, so the run cannot be resumed`;
    for (const extra of [[], ["--discard-damaged"]]) {
      const r = cli(["resume", "r", "--state-dir", state, ...extra]);
      expect(r.status, extra.join(" ")).toBe(1);
      expect(r.stderr).toContain(said);
      expect(r.stderr).not.toContain("--discard-damaged sets them aside");
    }
    expect(quarantined(state).count).toBe(0);
    // runs does not offer the resume that refuses it, and the refusal promises no reading journal cannot give (a new-user trial).
    const listed = cli(["runs", "--state-dir", state]).stdout;
    expect(listed).toContain(`r  active     three  `);
    expect(listed).toContain(`(damaged: its first entry (${seq}), which holds its workflow, fails its checksum, so it cannot be resumed; criteria apply PATH --state-dir ${state} starts the workflow afresh as a new run (its id stays taken))`);
    expect(listed).not.toContain("criteria resume");
    // journal says the same, not "no run r" (found by a new-user trial: three commands, three answers).
    const read = cli(["journal", "r", "--state-dir", state]);
    expect(read.status).toBe(1);
    expect(read.stderr).toContain(said);
    expect(read.stderr).not.toContain("no run r");
    expect(read.stderr).not.toContain("criteria journal r shows");
  }, 60_000);

  it("an ended run whose journal is damaged: journal shows the entries before the damage and says the run needs no resume, as resume does; nothing sends it to resume --discard-damaged (found by a user trial: journal and resume sent each other round)", () => {
    const dir = temp();
    const state = join(dir, "state");
    expect(cli(["apply", workflow(dir), "--state-dir", state, "--run-id", "r"]).status).toBe(0);
    const seq = damage(state, "entry_type = 'step.completed' AND step_id = 'two'", '"success"', '"sucdess"');
    const journal = cli(["journal", "r", "--state-dir", state]);
    expect(journal.status).toBe(1);
    expect(journal.stdout).toMatch(/step\.completed\s+one\b/);
    expect(journal.stderr).toMatch(new RegExp(`^criteria: journal entry ${seq} of run r fails its checksum, so it and the \\d+ entries after it cannot be read; the run had ended \\(succeeded in state "done"\\) and needs no resume\n$`));
    // With -o json the entries before the damage, then the same exit object a damaged first
    // entry gives (found by a new-user trial: the damage was said only on stderr here).
    const json = cli(["journal", "r", "--state-dir", state, "-o", "json"]);
    expect(json.status).toBe(1);
    const objects = json.stdout.trim().split("\n").map((l) => JSON.parse(l) as { seq?: number; event?: string; message?: string });
    expect(objects.slice(0, -1).every((o) => typeof o.seq === "number" && o.seq < seq)).toBe(true);
    expect(objects.at(-1)).toEqual({ event: "exit", code: 1, status: "error", message: journal.stderr.slice("criteria: ".length, -1) });
    const resume = cli(["resume", "r", "--state-dir", state, "-o", "text"]);
    expect(resume.status).toBe(0);
    expect(resume.stdout).toBe(`run r has already ended: succeeded in state "done" (criteria journal r --state-dir ${state} shows it, as far as its damaged entry ${seq})\n`);
    const unlock = cli(["unlock", "r", "--state-dir", state]);
    expect(unlock.status).toBe(0);
    for (const said of [journal.stderr, resume.stdout, unlock.stdout]) expect(said).not.toContain("criteria resume");
    expect(lines(dir)).toEqual(["one", "two", "three"]); // nothing ran again
  }, 60_000);

  it("a damaged first entry: apply --run-id of it, resume, journal, unlock and runs all advise a new run (no --run-id), which works; none advises resume (found by a user trial: no advised command made progress)", () => {
    const dir = temp();
    const wf = workflow(dir);
    const state = join(dir, "state");
    expect(cli(["apply", wf, "--state-dir", state, "--run-id", "r"], { env: { CRITERIA_FAULT_KILL_AFTER_SEQ: "3" } }).signal).toBe("SIGKILL");
    const seq = damage(state, "entry_type = 'run.spawned'", '"three"', '"thref"');
    const again = cli(["apply", wf, "--state-dir", state, "--run-id", "r"]);
    expect(again.status).toBe(2);
    expect(again.stderr).toBe(`criteria: run r already exists, and cannot be resumed: its first entry (${seq}), which holds its workflow, fails its checksum; leave out --run-id for a new run of the workflow, or choose another\n`);
    const advice = `criteria apply PATH --state-dir ${state} starts the workflow afresh as a new run`;
    const said = [cli(["resume", "r", "--state-dir", state]).stderr, cli(["journal", "r", "--state-dir", state]).stderr, cli(["unlock", "r", "--state-dir", state]).stdout, cli(["runs", "--state-dir", state]).stdout];
    for (const s of said) {
      expect(s).toContain(advice);
      expect(s).not.toContain("criteria resume");
    }
    expect(said[2]).toMatch(/^run r was not held by any process; nothing to unlock; journal entry \d+ of run r fails its checksum: it is the run's first entry/);
    // Followed (PATH the workflow): a new run, to its end.
    const fresh = cli(["apply", wf, "--state-dir", state, "-o", "json"]);
    expect(fresh.status, fresh.stderr).toBe(0);
    expect(cli(["runs", "--state-dir", state]).stdout).toMatch(/^r-\S+\s+succeeded\s+three\b/m);
  }, 60_000);

  it("approve and signal on a damaged journal say it is damaged, not that the run is not waiting (found by a new-user trial)", () => {
    const dir = temp();
    const state = join(dir, "state");
    writeFileSync(
      join(dir, "w.hcl"),
      `workflow {\n  name = "gated"\n  initial_state = "one"\n  target_state = "done"\n}\nadapter "shell" "default" {}\nstep "one" {\n  target = adapter.shell.default\n  input { command = "echo out1" }\n  outcome "success" { next = approval.gate }\n}\napproval "gate" {\n  approvers = ["ops"]\n  outcome "approved" { next = state.done }\n  outcome "rejected" { next = state.done }\n}\nstate "done" { terminal = true }\n`,
    );
    expect(cli(["apply", join(dir, "w.hcl"), "--state-dir", state, "--run-id", "r"], { env: { CI: "true" } }).status).toBe(5);
    const seq = damage(state, "entry_type = 'step.completed'", "out1", "EVIL");
    for (const args of [["approve", "r", "gate"], ["signal", "r", "gate"]]) {
      const r = cli([...args, "--state-dir", state]);
      expect(r.status, args[0]).toBe(1);
      expect(r.stderr, args[0]).toContain(`journal entry ${seq} of run r fails its checksum`);
    }
  }, 60_000);
});

describe("storage failures (item 4)", () => {
  it("a damaged database page: journal, runs and resume say so in one line with the path (exit 1), no stack trace", () => {
    const dir = temp();
    const state = join(dir, "state");
    workflow(dir, Array.from({ length: 40 }, (_, i) => `s${i}`));
    expect(cli(["apply", join(dir, "w.hcl"), "--state-dir", state, "--run-id", "r"]).status).toBe(0);
    // Damage the pages after the first two (the schema stays readable).
    const file = join(state, "journal.db");
    const bytes = readFileSync(file);
    for (let off = 8192; off < bytes.length; off += 7) bytes[off] ^= 0xff;
    writeFileSync(file, bytes);
    for (const args of [["journal", "r"], ["resume", "r"]]) {
      const r = cli([...args, "--state-dir", state]);
      expect(r.status, `${args[0]}: ${r.stderr}`).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`criteria: .*${file.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}.*damaged`));
      expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    }
  }, 60_000);

  // A journal this user may read but not write: as root, the test runs the CLI as nobody.
  const asNobody = (args: string[], cwd: string) => spawnSync("setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", process.execPath, bin, ...args], { cwd, encoding: "utf8", env: { ...process.env, CI: "" } });
  const nobodyCan = process.getuid?.() === 0 && spawnSync("setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", "test", "-r", bin]).status === 0;
  it.skipIf(!nobodyCan)("a read-only journal: apply refuses (exit 1, nothing started), not 'criteria resume continues' for a run that was never made (found by a new-user trial; needs root and setpriv)", () => {
    const dir = temp();
    chmodSync(dir, 0o777);
    const state = join(dir, "state");
    expect(cli(["apply", workflow(dir), "--state-dir", state, "--run-id", "a"]).status).toBe(0);
    chmodSync(state, 0o777); // the directory writable (for the WAL), the database not
    chmodSync(join(dir, "log"), 0o666);
    const r = asNobody(["apply", "w.hcl", "--state-dir", state, "--run-id", "b", "-o", "json"], dir);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toContain(`the journal is read-only; nothing was started (run b was not created): check the state directory's permissions and free space, then apply again`);
    expect(cli(["runs", "--state-dir", state]).stdout).not.toMatch(/^b /m);
  }, 60_000);

  it("a journal cut to 0 bytes: runs and journal refuse saying so (exit 1) and write nothing into it (found by a new-user trial: \"No runs\", and runs created tables); a directory in its place or a state directory that is a file are said so", () => {
    const state = temp();
    writeFileSync(join(state, "journal.db"), "");
    for (const args of [["runs"], ["journal", "r"]]) {
      const r = cli([...args, "--state-dir", state]);
      expect(r.status, args.join(" ")).toBe(1);
      expect(r.stderr.trim()).toBe(`criteria: ${join(state, "journal.db")} is empty (0 bytes), and criteria never leaves a journal empty: it was cut short (a failed copy or cache restore?); restore it, or remove it to start a new journal`);
    }
    expect(readFileSync(join(state, "journal.db")).length).toBe(0);
    // A directory where the journal goes, and a state directory that is a file, are said so (found by the same trial).
    const dirDb = temp();
    mkdirSync(join(dirDb, "journal.db"));
    expect(cli(["runs", "--state-dir", dirDb]).stderr.trim()).toBe(`criteria: ${join(dirDb, "journal.db")} is a directory, not a journal`);
    const file = join(temp(), "stfile");
    writeFileSync(file, "x");
    expect(cli(["runs", "--state-dir", file]).stderr.trim()).toBe(`criteria: ${file} is a file, not a state directory (runs are journaled where criteria apply ran, or in --state-dir)`);
    // A directory under it names the file, not itself (a new-user trial).
    expect(cli(["runs", "--state-dir", join(file, "sub")]).stderr.trim()).toBe(`criteria: ${file} is a file, not a state directory (runs are journaled where criteria apply ran, or in --state-dir)`);
  });

  it("a journal cut short, or a directory where its write-ahead log goes: runs, journal and apply say what to do (exit 1; found by a new-user trial: \"damaged\" alone, a raw EISDIR, \"cannot be written (permissions?)\")", () => {
    const dir = temp();
    const good = join(dir, "good");
    expect(cli(["apply", workflow(dir), "--state-dir", good, "--run-id", "a"]).status).toBe(0);
    const cut = join(dir, "cut");
    mkdirSync(cut);
    writeFileSync(join(cut, "journal.db"), readFileSync(join(good, "journal.db")).subarray(0, 1000));
    const walDir = join(dir, "wal");
    mkdirSync(walDir);
    writeFileSync(join(walDir, "journal.db"), readFileSync(join(good, "journal.db")));
    mkdirSync(join(walDir, "journal.db-wal"));
    for (const args of [["runs"], ["journal", "a"], ["apply", "w.hcl", "--run-id", "b"]]) {
      const damaged = cli([...args, "--state-dir", cut], { cwd: dir });
      expect(damaged.status, args.join(" ")).toBe(1);
      expect(damaged.stderr, args.join(" ")).toContain(`cannot open the journal ${join(cut, "journal.db")}: the journal database is damaged: it is not a whole SQLite database (cut short or overwritten: a failed copy or cache restore?); restore it, or move it aside to start a new journal`);
      const wal = cli([...args, "--state-dir", walDir], { cwd: dir });
      expect(wal.status, args.join(" ")).toBe(1);
      expect(wal.stderr, args.join(" ")).toContain(`cannot open the journal ${join(walDir, "journal.db")}: ${join(walDir, "journal.db-wal")} is not a file (a directory?); move it aside`);
    }
  });

  it("a journal the user may not write (another user's, a read-only copy) is read by runs and journal, and left as it was; resume says it cannot be written (found by a new-user trial: runs and journal refused it)", (ctx) => {
    const dir = temp();
    const state = join(dir, "state");
    expect(cli(["apply", workflow(dir, ["one"]), "--state-dir", state, "--run-id", "r"]).status).toBe(0);
    const before = readFileSync(join(state, "journal.db"));
    // Root may write anything: the commands run as nobody then (a real user without the right).
    const as: { uid?: number; gid?: number } = process.getuid?.() === 0 ? NOBODY : {};
    if (!runnableAs(as)) return ctx.skip(`skipped: node or ${bin} cannot be run as uid ${as.uid ?? process.getuid?.()}`);
    chmodSync(dir, 0o755);
    chmodSync(join(state, "journal.db"), 0o444);
    chmodSync(state, 0o555);
    try {
      const run = (args: string[]) => spawnSync(process.execPath, [bin, ...args, "--state-dir", state], { encoding: "utf8", env: { ...process.env, CI: "" }, timeout: 60_000, ...as });
      const runs = run(["runs"]);
      expect(runs.stderr).toBe("");
      expect(runs.status).toBe(0);
      expect(runs.stdout).toMatch(/^r\s+succeeded\s+three\b/m);
      const journal = run(["journal", "r"]);
      expect(journal.status).toBe(0);
      expect(journal.stdout).toContain("run.completed");
      const resume = run(["resume", "r"]);
      expect(resume.status).toBe(1);
      expect(resume.stderr).toContain(`cannot open the journal ${join(state, "journal.db")}: it cannot be written (permissions?)`);
    } finally {
      chmodSync(state, 0o755);
    }
    expect(readFileSync(join(state, "journal.db")).equals(before)).toBe(true);
    expect(readdirSync(state).filter((n) => n.startsWith("journal.db"))).toEqual(["journal.db"]);
  });

  it("another user's journal is read without a file made beside it, commits still in its write-ahead log included (found by a new-user trial: a reader's -shm locked the owner out; runs only in the log were missed)", (ctx) => {
    if (process.getuid?.() !== 0) return ctx.skip("skipped: reading as another user needs root");
    const as = NOBODY;
    if (!runnableAs(as)) return ctx.skip(`skipped: node or ${bin} cannot be run as uid ${as.uid}`);
    const read = (state: string, args: string[]) => spawnSync(process.execPath, [bin, ...args, "--state-dir", state], { encoding: "utf8", env: { ...process.env, CI: "" }, timeout: 60_000, ...as });
    // A run killed mid-way leaves its last commits in the log; without its -shm, in a directory the reader may not write.
    const dir = temp();
    chmodSync(dir, 0o755);
    const state = join(dir, "state");
    expect(cli(["apply", workflow(dir, ["one"]), "--state-dir", state, "--run-id", "done1"]).status).toBe(0);
    const killed = cli(["apply", workflow(dir), "--state-dir", state, "--run-id", "killed2"], { env: { CRITERIA_FAULT_KILL_AFTER_SEQ: "4" } });
    expect(killed.signal).toBe("SIGKILL");
    expect(readdirSync(state)).toContain("journal.db-wal");
    rmSync(join(state, "journal.db-shm"), { force: true });
    chmodSync(state, 0o555);
    try {
      const runs = read(state, ["runs"]);
      expect([runs.status, runs.stderr]).toEqual([0, ""]);
      expect(runs.stdout).toMatch(/^killed2\s+active\b/m);
      expect(runs.stdout).toMatch(/^done1\s+succeeded\b/m);
      expect(read(state, ["journal", "killed2"]).status).toBe(0);
    } finally {
      chmodSync(state, 0o755);
    }
    // A directory anyone may write: the reader makes no -wal or -shm there (the owner could not write them after).
    const open = temp();
    const place = join(open, "state");
    expect(cli(["apply", workflow(open, ["one"]), "--state-dir", place, "--run-id", "r"]).status).toBe(0);
    chmodSync(open, 0o755);
    chmodSync(place, 0o777);
    const before = readdirSync(place).sort();
    expect(read(place, ["runs"]).status).toBe(0);
    expect(read(place, ["journal", "r"]).status).toBe(0);
    expect(readdirSync(place).sort()).toEqual(before);
  });

  it("journal --follow of another user's journal read from a copy sees what is journaled after it started (found by a new-user trial: it never did)", async (ctx) => {
    if (process.getuid?.() !== 0) return ctx.skip("skipped: reading as another user needs root");
    if (!runnableAs(NOBODY)) return ctx.skip(`skipped: node or ${bin} cannot be run as uid ${NOBODY.uid}`);
    const dir = temp();
    chmodSync(dir, 0o755);
    const state = join(dir, "state");
    writeFileSync(join(dir, "gate.hcl"), `workflow {\n  name = "gate"\n  initial_state = "ok"\n  target_state = "done"\n}\napproval "ok" {\n  approvers = ["ops"]\n  outcome "approved" { next = "done" }\n  outcome "rejected" { next = "done" }\n}\nstate "done" { terminal = true }\n`);
    expect(cli(["apply", join(dir, "gate.hcl"), "--state-dir", state, "--run-id", "pk", "--no-wait"]).status).toBe(5);
    chmodSync(state, 0o555);
    try {
      const follower = spawn(process.execPath, [bin, "journal", "pk", "--state-dir", state, "--follow"], { env: { ...process.env, CI: "" }, ...NOBODY, stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      follower.stdout.on("data", (d: Buffer) => (out += d.toString()));
      const exited = new Promise<number | null>((r) => follower.on("exit", (code) => r(code)));
      await vi.waitFor(() => expect(out).toContain("approval.requested"), { timeout: 20_000, interval: 50 });
      // The owner goes on (root, in the directory nobody else may write).
      chmodSync(state, 0o755);
      expect(cli(["approve", "pk", "ok", "--state-dir", state, "--by", "ops"]).status).toBe(0);
      expect(cli(["resume", "pk", "--state-dir", state]).status).toBe(0);
      chmodSync(state, 0o555);
      const timer = setTimeout(() => follower.kill("SIGKILL"), 30_000);
      expect(await exited).toBe(0);
      clearTimeout(timer);
      expect(out).toContain("run.completed");
    } finally {
      chmodSync(state, 0o755);
    }
  }, 60_000);

  it("a full disk mid-run: exit 4 and one line with the path; the run resumes to its end", () => {
    const dir = temp();
    const state = join(dir, "state");
    writeFileSync(
      join(dir, "w.hcl"),
      `workflow {\n  name = "many"\n  initial_state = "s"\n  target_state = "done"\n}\npolicy {\n  max_total_steps = 1000\n}\nadapter "shell" "default" {}\nstep "s" {\n  target = adapter.shell.default\n  count = 150\n  input { command = "echo \${each._idx} >> '${dir}/log'" }\n  outcome "all_succeeded" { next = state.done }\n  outcome "any_failed" { next = state.done }\n}\nstate "done" { terminal = true }\n`,
    );
    // File-size limit (SIGXFSZ ignored, so writes fail with EFBIG as on a full disk).
    const full = spawnSync("bash", ["-c", `trap "" XFSZ; ulimit -f 200; exec "${process.execPath}" "${bin}" apply w.hcl --state-dir state --run-id r -o json`], { cwd: dir, encoding: "utf8", env: { ...process.env, CI: "" } });
    expect(full.status, full.stderr).toBe(4);
    expect(full.stderr).toMatch(/criteria: cannot write the journal .*journal\.db: .*; the journal holds everything before it: criteria resume r --state-dir state continues/);
    expect(full.stderr).not.toMatch(/internal error|\n\s+at /);
    const done = lines(dir).length;
    expect(done).toBeLessThan(150);
    const again = cli(["resume", "r", "--state-dir", state], { cwd: dir });
    expect(again.status, again.stderr).toBe(0);
    const all = lines(dir);
    expect(new Set(all).size).toBe(150);
    expect(all.length - 150).toBeLessThanOrEqual(1); // at most the interrupted step twice
  }, 60_000);
});
