/**
 * The crash matrix's other kills (docs/architecture.md, The engine): a torn write-ahead log
 * (truncated mid-frame) is detected and resumed from the last whole entry; an attempt's
 * processes do not outlive a killed criteria (its group watcher stops them; when the watcher
 * was killed too, a resume does before running the step again).
 */
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { procStat } from "../../../engine/process-info.js";
import { bin, cli, final, lines, REFERENCES, referenceRun } from "./matrix.js";

const { workflow, lines: LINES } = REFERENCES[0];

describe("crash matrix: torn write", () => {
  let reference: { completed: unknown; count: number };
  beforeAll(async () => {
    reference = await referenceRun(workflow, LINES);
  }, 120_000);

  it("detects a torn write-ahead log and resumes from the last whole entry", async () => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-torn-"));
    const log = join(dir, "log.txt");
    const state = join(dir, "state");
    const kill = Math.floor(reference.count / 2);
    const first = cli(["apply", workflow, "--var", `log=${log}`, "--state-dir", state, "--run-id", "t", "--output", "json"], { CRITERIA_FAULT_KILL_AFTER_SEQ: String(kill) });
    expect(first.signal).toBe("SIGKILL");
    const wal = join(state, "journal.db-wal");
    const size = statSync(wal).size;
    // What the journal held before the tear (read from a copy: opening the original would checkpoint it).
    const copy = join(dir, "copy");
    cpSync(state, copy, { recursive: true });
    const whole = (await final(copy, "t")).entries;
    truncateSync(wal, size - 100); // cut the last frame short
    const again = cli(["resume", "t", "--state-dir", state, "--output", "json"]);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain("torn");
    const after = await final(state, "t");
    expect(after.completed).toEqual(reference.completed);
    // Nothing before the torn transaction is lost (the last transaction holds at most 3 entries).
    const prefix = whole.slice(0, whole.length - 3);
    expect(prefix.length).toBeGreaterThan(0);
    expect(after.entries.slice(0, prefix.length)).toEqual(prefix);
    for (const l of LINES) expect(lines(log)).toContain(l);
  }, 120_000);
});

/** The pids of the processes now running (/proc). */
const pids = () => readdirSync("/proc").filter((d) => /^\d+$/.test(d)).map(Number);

/** The live processes of the process group led by `pgid` (zombies, dead and awaiting their reaper, left out). */
function groupAlive(pgid: number): number[] {
  return pids().filter((p) => {
    const stat = procStat(p);
    return stat?.pgid === pgid && stat.state !== "Z";
  });
}

/** The group watcher criteria `pid` started (engine/adapters/group-watcher.ts): its child running the watcher's script. */
function watcherOf(pid: number): number | undefined {
  return pids().find((p) => {
    if (procStat(p)?.ppid !== pid) return false;
    try {
      return readFileSync(`/proc/${p}/cmdline`, "utf8").includes("groups=");
    } catch {
      return false; // gone meanwhile
    }
  });
}

/** A workflow of one shell step running `command`, after a step running `before` when one is given. */
function shellWorkflow(command: string, before = ""): string {
  const step = (name: string, cmd: string, next: string) => `step "${name}" {\n  target = adapter.shell.default\n  input { command = ${JSON.stringify(cmd)} }\n  outcome "success" { next = "${next}" }\n}\n`;
  return `workflow "o" {\n  version = "1"\n  initial_state = "${before ? "before" : "work"}"\n  target_state = "done"\n}\nadapter "shell" "default" {}\n${before ? step("before", before, "work") : ""}${step("work", command, "done")}state "done" { terminal = true }\n`;
}

describe("an attempt's processes do not outlive a killed criteria", () => {
  /** A run whose one step writes "start", sleeps 30 s (in a background child too) while `flag` exists, then writes "end"; started, and waited for until the step runs and criteria has recorded its process. */
  async function startSlow(tag: string, before = "") {
    const dir = mkdtempSync(join(tmpdir(), `criteria-${tag}-`));
    const log = join(dir, "log.txt");
    const flag = join(dir, "slow");
    writeFileSync(flag, "");
    writeFileSync(join(dir, "w.hcl"), shellWorkflow(`echo start >> '${log}'; if [ -f '${flag}' ]; then sleep 30 & sleep 30; fi; echo end >> '${log}'`, before));
    const state = join(dir, "state");
    const child = spawn(process.execPath, [bin, "apply", join(dir, "w.hcl"), "--state-dir", state, "--run-id", "o", "-o", "json"], { stdio: "ignore" });
    // Killed once the step runs and criteria has recorded its process (under load the shell may
    // write its line before criteria writes the record: found when the suite ran 3 files at once).
    // Before that, criteria has not yet told its watcher of the group either: a kill in that
    // window (microseconds after the spawn, milliseconds on a loaded machine) leaves it running.
    const recorded = () => existsSync(join(state, "processes")) && readdirSync(join(state, "processes")).length > 0;
    for (let i = 0; i < 200 && !(lines(log).includes("start") && recorded()); i++) await new Promise((r) => setTimeout(r, 50));
    const [pidFile] = readdirSync(join(state, "processes"));
    const group = Number(readFileSync(join(state, "processes", pidFile), "utf8").split(" ")[0]);
    // The shell writes "start" before it forks its sleeps: under load (CI, stop 36) only the shell was there yet.
    for (let i = 0; i < 200 && groupAlive(group).length < 3; i++) await new Promise((r) => setTimeout(r, 25));
    expect(groupAlive(group).length, "the step's shell and its two sleeps").toBe(3);
    return { child, dir, log, flag, state, group };
  }

  it("the step's whole process group is stopped when criteria is killed, with no resume (found by the issue \"Runs spread over machines\": another host's resume cannot reach them)", async () => {
    const run = await startSlow("orphan-watched");
    expect(watcherOf(run.child.pid!), "criteria's group watcher").toBeDefined();
    run.child.kill("SIGKILL");
    await new Promise((r) => run.child.once("exit", r));
    for (let i = 0; i < 100 && groupAlive(run.group).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(groupAlive(run.group), "the step's processes, 5 s after criteria was killed").toEqual([]);
    expect(lines(run.log)).toEqual(["start"]);
  }, 60_000);

  it("a normal end ends the watcher and reaps it (found by a trial: under a PID 1 that reaps nothing, each run left a zombie)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-watcher-end-"));
    writeFileSync(join(dir, "w.hcl"), shellWorkflow("sleep 1"));
    const child = spawn(process.execPath, [bin, "apply", join(dir, "w.hcl"), "--state-dir", join(dir, "state"), "--run-id", "o"], { stdio: "ignore" });
    let watcher: number | undefined;
    for (let i = 0; i < 100 && watcher === undefined; i++) {
      await new Promise((r) => setTimeout(r, 20));
      watcher = watcherOf(child.pid!);
    }
    expect(watcher, "the watcher, while the step runs").toBeDefined();
    // (Its first line says whose it is, without the word "criteria": pkill -f criteria would take it too.)
    expect(readFileSync(`/proc/${watcher}/cmdline`, "utf8")).toMatch(new RegExp(`^/bin/sh\0-c\0# group watcher of pid ${child.pid}: `));
    expect(readFileSync(`/proc/${watcher}/cmdline`, "utf8").split("\n")[0]).not.toContain("criteria");
    const code = await new Promise((r) => child.once("exit", r));
    expect(code).toBe(0);
    // Reaped by criteria before it exited: not a zombie left to PID 1.
    expect(existsSync(`/proc/${watcher}`), "the watcher's process, after criteria exited").toBe(false);
  }, 60_000);

  it("with a PATH that holds nothing a step still has its 2 s between SIGTERM and SIGKILL (found by a trial: the watcher found no sleep, and SIGKILLed at once)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-watcher-path-"));
    const log = join(dir, "log.txt");
    // (Its output goes nowhere: its pipes to the killed criteria are broken, and a write to one would end it by SIGPIPE.)
    const command = `exec >/dev/null 2>&1; trap '/bin/sleep 0.5; echo cleaned >> ${log}; exit 0' TERM; echo start >> ${log}; while :; do /bin/sleep 0.1; done`;
    writeFileSync(join(dir, "w.hcl"), shellWorkflow(command));
    const child = spawn(process.execPath, [bin, "apply", join(dir, "w.hcl"), "--state-dir", join(dir, "state"), "--run-id", "o"], { stdio: "ignore", env: { ...process.env, PATH: join(dir, "nothing-here") } });
    // Killed once criteria has recorded the step's process (a kill before it leaves the group unwatched: see startSlow).
    const recorded = () => existsSync(join(dir, "state", "processes")) && readdirSync(join(dir, "state", "processes")).length > 0;
    for (let i = 0; i < 200 && !(lines(log).includes("start") && recorded()); i++) await new Promise((r) => setTimeout(r, 25));
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    for (let i = 0; i < 100 && !lines(log).includes("cleaned"); i++) await new Promise((r) => setTimeout(r, 50));
    expect(lines(log)).toEqual(["start", "cleaned"]);
  }, 60_000);

  it("a group that ended before criteria was killed is left alone: a step's background process outlives its step, as when criteria exits normally", async () => {
    const run = await startSlow("orphan-ended", "sleep 30 > /dev/null 2>&1 & echo $! > bg");
    const background = Number(readFileSync(join(run.dir, "bg"), "utf8"));
    run.child.kill("SIGKILL");
    await new Promise((r) => run.child.once("exit", r));
    for (let i = 0; i < 100 && groupAlive(run.group).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(groupAlive(run.group), "the running step's processes").toEqual([]);
    try {
      expect(procStat(background)?.state, "the first step's background sleep").toMatch(/^[RSD]$/);
    } finally {
      process.kill(background, "SIGKILL");
    }
  }, 60_000);

  it("resume stops the orphaned process group before running the step again (its watcher killed too)", async () => {
    const run = await startSlow("orphan");
    // The watcher gone first (as when the machine's processes are killed at random), the group outlives criteria.
    const watcher = watcherOf(run.child.pid!);
    expect(watcher).toBeDefined();
    process.kill(watcher!, "SIGKILL");
    run.child.kill("SIGKILL");
    await new Promise((r) => run.child.once("exit", r));
    expect(groupAlive(run.group).length, "the sleep outlived criteria").toBeGreaterThan(0);
    rmSync(run.flag);
    const again = cli(["resume", "o", "--state-dir", run.state, "-o", "json"]);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain("leftover processes were stopped");
    const state2 = procStat(run.group)?.state;
    expect(state2 === undefined || state2 === "Z", `orphan state ${state2}`).toBe(true); // gone (or dead, awaiting its reaper)
    expect(lines(run.log).filter((l) => l === "end")).toHaveLength(1);
  }, 60_000);
});
