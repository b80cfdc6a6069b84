/**
 * Issue #7, items 1, 5 and 9: a closed stdout never stops a run; every signal is handled
 * for the whole run (the second SIGKILLs the steps' process groups, nothing outlives
 * criteria); one exit-code table, and NDJSON that always ends with an `exit` event.
 * Real processes, real pipes, real signals.
 */
import { spawn, spawnSync } from "node:child_process";
import { closeSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { procStat } from "../../engine/process-info.js";
import { bin, cli, entries, ndjson, repo, start, temp, until } from "./helpers.js";

const threeSteps = (dir: string, middle: string) => {
  writeFileSync(
    join(dir, "long.hcl"),
    `workflow {
  name = "long"
  version = "1"
  initial_state = "one"
  target_state = "done"
}
adapter "shell" "default" {}
step "one" {
  target = adapter.shell.default
  input { command = "echo one >> '${dir}/log'" }
  outcome "success" { next = step.two }
}
step "two" {
  target = adapter.shell.default
  input { command = ${JSON.stringify(middle)} }
  outcome "success" { next = step.three }
}
step "three" {
  target = adapter.shell.default
  input { command = "echo three >> '${dir}/log'" }
  outcome "success" { next = state.done }
}
state "done" { terminal = true }
`,
  );
  return join(dir, "long.hcl");
};

const lines = (f: string) => {
  try {
    return readFileSync(f, "utf8").split("\n").filter(Boolean);
  } catch {
    return [];
  }
};

describe("a closed stdout (item 1)", () => {
  it("apply -o json | head -1: the run goes on to its end, journals everything and exits with its own code", async () => {
    const dir = temp();
    const wf = threeSteps(dir, "sleep 1; echo two >> log");
    const child = start(["apply", wf, "--state-dir", join(dir, "state"), "--run-id", "r", "-o", "json"], { cwd: dir });
    // Read one line, then close the pipe, as `head -1` does.
    await new Promise<void>((resolve) => child.stdout!.once("data", () => resolve()));
    child.stdout!.destroy();
    const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
    expect(code).toBe(0);
    expect(lines(join(dir, "log"))).toEqual(["one", "two", "three"]);
    expect((await entries(join(dir, "state"), "r")).at(-1)).toMatchObject({ entry_type: "run.completed", payload: { success: true } });
  }, 30_000);
});

describe("signals (item 5)", () => {
  it("output that cannot be written (a full disk: /dev/full) is said on stderr and fails the command, unlike a closed pipe", () => {
    const full = openSync("/dev/full", "w");
    try {
      for (const args of [["validate", join(repo, "examples", "review_loop")], ["explain", "unknown_target"]]) {
        const r = spawnSync(process.execPath, [bin, ...args], { stdio: ["ignore", full, "pipe"], encoding: "utf8", env: { ...process.env, CI: "" } });
        expect(r.status, args.join(" ")).toBe(1);
        expect(r.stderr).toContain("criteria: the output could not be written (ENOSPC): it is incomplete");
      }
    } finally {
      closeSync(full);
    }
  });

  it("a second SIGTERM SIGKILLs the step's process group: nothing criteria started outlives it; exit 4, resumable", async () => {
    const dir = temp();
    // The step ignores SIGTERM and would run for a minute (while the flag file is there).
    writeFileSync(join(dir, "flag"), "");
    const wf = threeSteps(dir, `if [ -f '${dir}/flag' ]; then trap '' TERM; echo $$ > '${dir}/pid'; sleep 60 & wait; fi; echo two >> '${dir}/log'`);
    const child = start(["apply", wf, "--state-dir", join(dir, "state"), "--run-id", "r", "-o", "json"], { cwd: dir });
    let out = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    await until(() => lines(join(dir, "pid")).length > 0);
    const stepPid = Number(lines(join(dir, "pid"))[0]);
    process.kill(-child.pid!, "SIGTERM");
    await new Promise((r) => setTimeout(r, 200));
    process.kill(-child.pid!, "SIGTERM");
    const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
    expect(code).toBe(4);
    const state = procStat(stepPid)?.state;
    expect(state === undefined || state === "Z", `the step's shell (pid ${stepPid}) is still ${state}`).toBe(true);
    expect(lines(join(dir, "log"))).toEqual(["one"]);
    const events = ndjson(out);
    expect(events.at(-1)).toMatchObject({ event: "exit", code: 4, status: "stopped", run_id: "r" });
    // Journaled as stopped on purpose, not as a crash.
    expect((await entries(join(dir, "state"), "r")).filter((e) => e.entry_type.startsWith("step.attempt.") && e.step_id === "two").map((e) => e.entry_type)).toEqual(["step.attempt.started", "step.attempt.interrupted"]);
    // Resumable: the interrupted step runs again, to the end.
    rmSync(join(dir, "flag"));
    const again = cli(["resume", "r", "--state-dir", join(dir, "state"), "--workdir", dir, "-o", "json"], { cwd: dir });
    expect(again.status, again.stderr).toBe(0);
  }, 30_000);
});

/** Whether script(1) is here to give a command a terminal (util-linux; Debian's bsdutils, an essential package). */
const hasScript = spawnSync("script", ["--version"], { encoding: "utf8" }).status === 0;

/**
 * Runs `criteria ARGS` on a terminal of its own (`script`), under a shell that ignores
 * SIGHUP and writes criteria's exit status to `dir/status` (a terminal that hangs up
 * kills nothing by itself here: its session's leader is that shell). Returns the
 * `script` process, whose SIGKILL hangs the terminal up.
 */
function onTerminal(dir: string, args: string[]) {
  const quoted = [process.execPath, bin, ...args].map((a) => `'${a}'`).join(" ");
  return spawn("script", ["-qec", `trap '' HUP; ${quoted}; echo "status=$?" > '${dir}/status'`, "/dev/null"], { cwd: dir, stdio: ["pipe", "ignore", "ignore"], env: { ...process.env, CI: "" } });
}

/** The pid of the criteria process whose command line names `dir` (the one onTerminal started). */
function criteriaIn(dir: string): number | undefined {
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let cmdline = "";
    try {
      cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8");
    } catch {
      continue;
    }
    const argv = cmdline.split("\0");
    if (argv[0] === process.execPath && argv[1] === bin && argv.some((a) => a.startsWith(dir))) return Number(name);
  }
  return undefined;
}

describe.skipIf(!hasScript)("a terminal that hangs up (its window closed, its SSH session dropped)", () => {
  // Node 20 aborts in its exit handler when a terminal it started on has hung up
  // (bin/hung-up-terminal.cjs): criteria ended with SIGSEGV (139) whatever its own code.
  it("mid-run, unseen: the run goes on to its end and criteria exits 0, not 139", async () => {
    const dir = temp();
    const wf = threeSteps(dir, `sleep 1; echo two >> '${dir}/log'`);
    const term = onTerminal(dir, ["apply", wf, "--state-dir", join(dir, "state"), "--run-id", "r"]);
    await until(() => lines(join(dir, "log")).length > 0);
    term.kill("SIGKILL");
    await until(() => lines(join(dir, "status")).length > 0, 20_000);
    expect(lines(join(dir, "status"))).toEqual(["status=0"]);
    expect(lines(join(dir, "log"))).toEqual(["one", "two", "three"]);
  }, 30_000);

  it("then SIGHUP: the run stops where it stands (exit 4, not 134 or 139) and resumes to its end, each step once", async () => {
    const dir = temp();
    const wf = threeSteps(dir, `if [ -f '${dir}/flag' ]; then sleep 60; fi; echo two >> '${dir}/log'`);
    writeFileSync(join(dir, "flag"), "");
    const term = onTerminal(dir, ["apply", wf, "--state-dir", join(dir, "state"), "--run-id", "r"]);
    await until(() => lines(join(dir, "log")).length > 0);
    const pid = criteriaIn(dir);
    expect(pid, "the criteria process").toBeDefined();
    term.kill("SIGKILL");
    // What the kernel sends the session's processes when its leader goes too.
    await new Promise((r) => setTimeout(r, 200));
    process.kill(pid!, "SIGHUP");
    await until(() => lines(join(dir, "status")).length > 0, 20_000);
    expect(lines(join(dir, "status"))).toEqual(["status=4"]);
    expect(lines(join(dir, "log"))).toEqual(["one"]);
    rmSync(join(dir, "flag"));
    const again = cli(["resume", "r", "--state-dir", join(dir, "state"), "--workdir", dir]);
    expect(again.status, again.stderr).toBe(0);
    expect(lines(join(dir, "log"))).toEqual(["one", "two", "three"]);
  }, 30_000);
});

describe("exit codes and machine output (item 9)", () => {
  it("a missing required --var is a usage error: exit 2, before anything runs", () => {
    const dir = temp();
    writeFileSync(join(dir, "w.hcl"), `workflow {\n  name = "v"\n  initial_state = "a"\n  target_state = "done"\n}\nvariable "who" { type = string }\nadapter "noop" "default" {}\nstep "a" {\n  target = adapter.noop.default\n  input { x = var.who }\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n`);
    const r = cli(["apply", join(dir, "w.hcl"), "--state-dir", join(dir, "state"), "-o", "json"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`variable "who" is required: pass --var who=...`);
    expect(ndjson(r.stdout).at(-1)).toMatchObject({ event: "exit", code: 2, status: "error" });
  });

  it("resume -o json prints JSON (also for a run that has already ended), ending with the exit event", () => {
    const dir = temp();
    const wf = threeSteps(dir, "true");
    expect(cli(["apply", wf, "--state-dir", join(dir, "state"), "--run-id", "r", "-o", "json"]).status).toBe(0);
    const r = cli(["resume", "r", "--state-dir", join(dir, "state"), "-o", "json"]);
    expect(r.status).toBe(0);
    expect(ndjson(r.stdout)).toEqual([{ event: "exit", code: 0, status: "succeeded", run_id: "r", message: expect.stringContaining("has already ended") }]);
    const missing = cli(["resume", "nope", "--state-dir", join(dir, "state"), "-o", "json"]);
    expect(missing.status).toBe(1);
    expect(ndjson(missing.stdout)).toEqual([{ event: "exit", code: 1, status: "error", message: expect.stringContaining("no run nope") }]);
  });
});
