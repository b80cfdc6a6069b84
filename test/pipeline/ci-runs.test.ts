/**
 * Issue #7, items 6, 7 and 8: a zero timeout is refused and a result that arrived is
 * never a timeout; approvals and signal waits never block a CI job (a `timeout` route,
 * and a non-interactive mode that parks the run with exit 5 and says what to do); a run
 * resumes after its checkout moved. Real processes and real directories.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compile } from "../../compiler/index.js";
import { runProcess } from "../../engine/adapters/run-process.js";
import { bin, cli, entries, ndjson, start, temp, until } from "./helpers.js";

const HEAD = (initial: string) => `workflow {\n  name = "ci"\n  initial_state = "${initial}"\n  target_state = "done"\n}\nadapter "shell" "default" {}\nstate "done" { terminal = true }\nstate "failed" {\n  terminal = true\n  success  = false\n}\n`;

describe("timeouts (item 6)", () => {
  it("a zero timeout is refused by validate", async () => {
    const dir = temp();
    writeFileSync(join(dir, "w.hcl"), `${HEAD("a")}step "a" {\n  target = adapter.shell.default\n  timeout = "0s"\n  input { command = "true" }\n  outcome "success" { next = state.done }\n}\n`);
    const c = await compile(join(dir, "w.hcl"), { cwd: dir });
    expect(c.diagnostics.filter((d) => d.severity === "error").map((d) => `${d.code}@${d.range.start.line}:${d.range.start.column}`)).toEqual(["invalid_value@14:13"]);
    expect(c.diagnostics.find((d) => d.code === "invalid_value")?.message).toContain(`a timeout of "0s" would end the work before it starts`);
  });

  it("a process that exits 0 on its own is a result, even when the timer fired first", async () => {
    // The process exits while this thread is busy; when the event loop runs again, the
    // expired timer fires before the exit is seen: the old race, made certain.
    const pending = runProcess({ file: "sh", args: ["-c", "exit 0"], cwd: process.cwd(), env: process.env, timeoutMs: 20, maxOutputBytes: 1024 });
    const until = Date.now() + 300;
    while (Date.now() < until) {
      // busy: neither the timer nor the child's exit is handled meanwhile
    }
    const r = await pending;
    expect(r.end).toBe("exited");
    expect(r.exitCode).toBe(0);
  });
});

describe("approvals and signal waits in CI (item 7)", () => {
  it("a decision given while several items wait on one approval says it ends one of them (found by a new-user trial: which one was not said)", () => {
    const dir = temp();
    writeFileSync(join(dir, "w.hcl"), `${HEAD("loop")}step "loop" {\n  parallel = ["a", "b"]\n  workflow {\n    initial_state = "gate"\n    approval "gate" {\n      approvers = ["ops"]\n      outcome "approved" { next = "_continue" }\n      outcome "rejected" { next = "_continue" }\n    }\n  }\n  outcome "all_succeeded" { next = state.done }\n  outcome "any_failed" { next = state.failed }\n}\n`);
    const state = join(dir, "state");
    expect(cli(["apply", "w.hcl", "--state-dir", state, "--run-id", "p"], { cwd: dir, env: { CI: "true" } }).status).toBe(5);
    const first = cli(["approve", "p", "gate", "--state-dir", state, "--by", "ops"]);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr).toBe('criteria: note: 2 approvals "gate" in run p have no decision yet (2 wait: p/loop#1[0], p/loop#1[1]): this decision ends one of them, the first to take it; give one decision per approval\n');
    // runs says the other still waits (a new-user trial: "stopped: its approval "gate" approved; resume continues it" and nothing more).
    expect(cli(["runs", "--state-dir", state]).stdout).toContain(`(stopped: its approval "gate" approved; criteria resume p --state-dir ${state} continues it; it still waits for approval "gate": give it with criteria approve p gate --state-dir ${state} (or criteria reject p gate --state-dir ${state}))`);
    // Someone not among its approvers: journaled as given, with a note (a new-user trial: taken without a word).
    const second = cli(["approve", "p", "gate", "--state-dir", state, "--by", "alice"]);
    expect(second.status, second.stderr).toBe(0);
    expect(second.stderr).toBe('criteria: note: alice is not among the approvers of "gate" (ops): the decision is journaled as given by alice (an approver that names a role is not resolved by criteria)\n');
    expect(second.stdout).toContain('approved approval "gate" of run p as alice');
    // Three items: the second decision's note counts the first, given and not taken yet (a new-user trial: "2 approvals wait", listing 3).
    writeFileSync(join(dir, "w3.hcl"), readFileSync(join(dir, "w.hcl"), "utf8").replace('["a", "b"]', '["a", "b", "c"]'));
    expect(cli(["apply", "w3.hcl", "--state-dir", state, "--run-id", "q"], { cwd: dir, env: { CI: "true" } }).status).toBe(5);
    expect(cli(["approve", "q", "gate", "--state-dir", state, "--by", "ops"]).status).toBe(0);
    const next = cli(["approve", "q", "gate", "--state-dir", state, "--by", "ops"]);
    expect(next.stderr).toBe('criteria: note: 2 approvals "gate" in run q have no decision yet (3 wait: q/loop#1[0], q/loop#1[1], q/loop#1[2]; 1 decision given before, not taken yet): this decision ends one of them, the first to take it; give one decision per approval\n');
    const end = cli(["resume", "p", "--state-dir", state, "-o", "json"], { cwd: dir, env: { CI: "true" } });
    expect(end.status, end.stderr).toBe(0);
  });

  it("runs --all: an active nested run is doing what its root run is, in text and -o json (found by a new-user trial: it had no activity)", () => {
    const dir = temp();
    writeFileSync(join(dir, "w.hcl"), `${HEAD("loop")}step "loop" {\n  parallel = ["a", "b"]\n  workflow {\n    initial_state = "gate"\n    approval "gate" {\n      approvers = ["ops"]\n      outcome "approved" { next = "_continue" }\n      outcome "rejected" { next = "_continue" }\n    }\n  }\n  outcome "all_succeeded" { next = state.done }\n  outcome "any_failed" { next = state.failed }\n}\n`);
    const state = join(dir, "state");
    expect(cli(["apply", "w.hcl", "--state-dir", state, "--run-id", "p"], { cwd: dir, env: { CI: "true" } }).status).toBe(5);
    const listed = cli(["runs", "--all", "--state-dir", state, "-o", "json"]);
    expect(listed.status, listed.stderr).toBe(0);
    const rows = ndjson(listed.stdout);
    const root = rows.find((r) => r.run_id === "p");
    expect(root).toMatchObject({ activity: "parked" });
    const nested = rows.filter((r) => r.parent_run_id !== null && r.status === "active");
    expect(nested.map((r) => r.run_id).sort()).toEqual(["p/loop#1[0]", "p/loop#1[1]"]);
    for (const r of nested) expect(r).toMatchObject({ activity: "parked", detail: `as its root run: ${String(root?.detail)}` });
    const text = cli(["runs", "--all", "--state-dir", state]);
    expect(text.stdout).toContain(`p/loop#1[0]  active     loop.body`);
    expect(text.stdout).toContain(`(as its root run: parked, waiting for`);
    // The root first, then its nested runs, in columns (a nested run came first, its fields out of line: a new-user trial).
    const lines = text.stdout.trimEnd().split("\n");
    expect(lines.map((l) => l.split(" ")[0])).toEqual(["p", "p/loop#1[0]", "p/loop#1[1]"]);
    expect(new Set(lines.map((l) => l.indexOf("active"))).size).toBe(1);
  });

  it("approve and reject given at the same moment: one is taken, the other refused, and no decision is left over for the approval's next request (a new-user trial: both were taken, and the second approved the next request)", async () => {
    const dir = temp();
    writeFileSync(join(dir, "w.hcl"), `${HEAD("gate")}approval "gate" {\n  approvers = ["ops"]\n  outcome "approved" { next = state.done }\n  outcome "rejected" { next = state.failed }\n}\n`);
    const state = join(dir, "state");
    const run = (args: string[]) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        // Both checked before either writes: the race made certain.
        const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, CI: "", CRITERIA_FAULT_PAUSE_BEFORE_DECISION_MS: "400" } });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
        child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
        child.once("close", (status) => resolve({ status, stdout, stderr }));
      });
    for (const id of ["r1", "r2", "r3"]) {
      expect(cli(["apply", "w.hcl", "--state-dir", state, "--run-id", id], { cwd: dir, env: { CI: "true" } }).status).toBe(5);
      const both = await Promise.all([run(["approve", id, "gate", "--state-dir", state, "--by", "ops"]), run(["reject", id, "gate", "--state-dir", state, "--by", "ops"])]);
      expect(both.map((r) => r.status).sort(), JSON.stringify(both)).toEqual([0, 1]);
      const refused = both.find((r) => r.status === 1)!;
      expect(refused.stderr).toMatch(new RegExp(`approval "gate" of run ${id} has already been decided: (approved|rejected) by ops, not taken by the run yet`));
      const decisions = (await entries(state, id)).filter((e) => e.entry_type === "signal.received");
      expect(decisions).toHaveLength(1);
    }
  });

  it("a signal sent as its run ends is refused, not written after the end and said to be kept (a new-user trial)", async () => {
    const dir = temp();
    writeFileSync(join(dir, "w.hcl"), `${HEAD("hold")}wait "hold" {\n  signal  = "go"\n  timeout = "1s"\n  outcome "received" { next = state.done }\n  outcome "timeout" { next = state.done }\n}\n`);
    const state = join(dir, "state");
    const fg = spawn(process.execPath, [bin, "apply", "w.hcl", "--state-dir", state, "--run-id", "e", "--wait", "-o", "json"], { cwd: dir, env: { ...process.env, CI: "" }, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    fg.stdout.on("data", (d: Buffer) => (out += d.toString()));
    const closed = new Promise<number | null>((r) => fg.once("close", r));
    await until(() => /"wait.started"/.test(out), 20_000);
    // Checked while the run waits; written after it has timed out and ended.
    const sent = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [bin, "signal", "e", "go", "--state-dir", state], { env: { ...process.env, CI: "", CRITERIA_FAULT_PAUSE_BEFORE_DECISION_MS: "2500" } });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      child.once("close", (status) => resolve({ status, stdout, stderr }));
    });
    expect(await closed).toBe(0);
    expect(sent.status, sent.stdout).toBe(1);
    expect(sent.stderr).toBe("criteria: run e has already ended (succeeded)\n");
    expect((await entries(state, "e")).map((e) => e.entry_type).at(-1)).toBe("run.completed");
  });

  it("a second decision for a run a live process holds says that process takes the first, not to resume (a trial: a live run was sent to resume)", async () => {
    const dir = temp();
    writeFileSync(join(dir, "w.hcl"), `${HEAD("gate")}approval "gate" {\n  approvers = ["ops"]\n  outcome "approved" { next = state.done }\n  outcome "rejected" { next = state.failed }\n}\n`);
    const state = join(dir, "state");
    const fg = spawn(process.execPath, [bin, "apply", "w.hcl", "--state-dir", state, "--run-id", "live", "--wait", "-o", "json"], { cwd: dir, env: { ...process.env, CI: "" }, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    fg.stdout.on("data", (d: Buffer) => (out += d.toString()));
    const closed = new Promise<number | null>((r) => fg.once("close", r));
    try {
      await until(() => /"approval.requested"/.test(out), 20_000);
      // Stopped, it holds the run (its lease runs) and cannot take the decision: the second one is refused.
      fg.kill("SIGSTOP");
      expect(cli(["approve", "live", "gate", "--state-dir", state, "--by", "ops"]).status).toBe(0);
      const again = cli(["approve", "live", "gate", "--state-dir", state, "--by", "ops"]);
      expect(again.status).toBe(1);
      expect(again.stderr).toBe(`criteria: approval "gate" of run live has already been decided: approved by ops, not taken by the run yet (process ${fg.pid} on ${hostname()}, which runs it, takes it)\n`);
    } finally {
      fg.kill("SIGCONT");
    }
    expect(await closed).toBe(0);
  });

  it("a second decision says which was given and by whom; --by must name someone (a new-user trial: 'already been decided' was all, and --by \"\" recorded nobody)", () => {
    const dir = temp();
    writeFileSync(join(dir, "w.hcl"), `${HEAD("gate")}approval "gate" {\n  approvers = ["ops"]\n  outcome "approved" { next = state.done }\n  outcome "rejected" { next = state.failed }\n}\n`);
    const state = join(dir, "state");
    expect(cli(["apply", "w.hcl", "--state-dir", state, "--run-id", "d"], { cwd: dir, env: { CI: "true" } }).status).toBe(5);
    for (const by of ["", "  ", "a\nb"]) {
      const bad = cli(["approve", "d", "gate", "--state-dir", state, "--by", by]);
      expect(bad.status).toBe(2);
      expect(bad.stderr).toBe(`criteria: --by ${JSON.stringify(by)}: name who decides, on one line (it is journaled with the decision)\n`);
    }
    expect(cli(["approve", "d", "gate", "--state-dir", state, "--by", "ops"]).status).toBe(0);
    const again = cli(["reject", "d", "gate", "--state-dir", state, "--by", "ann"]);
    expect(again.status).toBe(1);
    expect(again.stderr).toBe(`criteria: approval "gate" of run d has already been decided: approved by ops, not taken by the run yet (criteria resume d --state-dir ${state} goes on with it)\n`);
  });

  it("runs lines its columns up as a terminal shows them: a workflow named in CJK (two columns a character) does not push the columns after it (a new-user trial)", async () => {
    const dir = temp();
    const state = join(dir, "state");
    for (const [file, name] of [["a.hcl", "部署流程"], ["b.hcl", "deploy-flow"]]) {
      writeFileSync(join(dir, file), `workflow "${name}" {\n  version = "1"\n  initial_state = "done"\n  target_state = "done"\n}\nstate "done" { terminal = true }\n`);
      expect(cli(["apply", file, "--state-dir", state, "--run-id", file[0]], { cwd: dir }).status).toBe(0);
    }
    const text = cli(["runs", "--state-dir", state]);
    expect(text.status, text.stderr).toBe(0);
    const stringWidth = (await import("string-width")).default;
    const lines = text.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    // Where the creation time starts, in terminal columns: the same on both lines.
    const at = (l: string) => stringWidth(l.slice(0, l.search(/\d{4}-\d\d-\d\dT/)));
    expect(at(lines[0])).toBe(at(lines[1]));
    expect(text.stdout).toContain("部署流程     2"); // 8 columns wide, padded to deploy-flow's 11, then the gap
  });

  it("a signal sent before its wait starts is kept and ends that wait at once, and signal says so (found by a new-user trial: 'delivered' was all it said)", () => {
    const dir = temp();
    writeFileSync(join(dir, "w.hcl"), `${HEAD("ok")}approval "ok" {\n  approvers = ["ops"]\n  outcome "approved" { next = wait.healthy }\n  outcome "rejected" { next = state.failed }\n}\nwait "healthy" {\n  signal = "canary-healthy"\n  outcome "received" { next = state.done }\n}\n`);
    const state = join(dir, "state");
    expect(cli(["apply", "w.hcl", "--state-dir", state, "--run-id", "r"], { cwd: dir, env: { CI: "true" } }).status).toBe(5);
    const early = cli(["signal", "r", "canary-healthy", "--state-dir", state]);
    expect(early.status).toBe(0);
    expect(early.stderr).toBe(`criteria: note: run r is not waiting for signal "canary-healthy" now: the signal is kept, and the next wait for "canary-healthy" takes it at once\n`);
    expect(cli(["approve", "r", "ok", "--state-dir", state, "--by", "ops"]).status).toBe(0);
    const end = cli(["resume", "r", "--state-dir", state, "-o", "json"], { cwd: dir, env: { CI: "true" } });
    expect(end.status, end.stderr).toBe(0);
    expect(ndjson(end.stdout).find((e) => e.event === "run.completed")).toMatchObject({ state: "done" });
    // Sent while the wait is open: no note.
    expect(cli(["apply", "w.hcl", "--state-dir", state, "--run-id", "s", "--auto-approve"], { cwd: dir, env: { CI: "true" } }).status).toBe(5);
    const timely = cli(["signal", "s", "canary-healthy", "--state-dir", state]);
    expect(timely.status).toBe(0);
    expect(timely.stderr).toBe("");
    // Sent again before the run goes on: the open wait has its signal, this one is kept (found by a new-user trial: "delivered" twice).
    const again = cli(["signal", "s", "canary-healthy", "--state-dir", state]);
    expect(again.status).toBe(0);
    expect(again.stderr).toMatch(/^criteria: note: run s's wait for signal "canary-healthy" was given one already \(journal entry \d+\), not taken yet: this signal is kept, and the next wait for "canary-healthy" takes it at once\n$/);
  });

  const gate = (extra = "") => `${HEAD("gate")}approval "gate" {\n  approvers = ["ops"]\n${extra}  outcome "approved" { next = step.deploy }\n  outcome "rejected" { next = state.failed }\n  outcome "timeout"  { next = state.failed }\n}\nstep "deploy" {\n  target = adapter.shell.default\n  input { command = "echo deployed >> log" }\n  outcome "success" { next = state.done }\n}\n`;

  it("a foreground apply waiting at an approval: runs says what it waits for, not just running (found by a new-user trial)", async () => {
    const dir = temp();
    writeFileSync(join(dir, "w.hcl"), gate());
    const state = join(dir, "state");
    const apply = start(["apply", "w.hcl", "--state-dir", state, "--run-id", "r", "-o", "json"], { cwd: dir });
    let out = "";
    apply.stdout!.on("data", (b: Buffer) => (out += b.toString()));
    try {
      await until(() => out.includes('"approval.requested"'));
      const listed = cli(["runs", "--state-dir", state, "-o", "json"]);
      expect(JSON.parse(listed.stdout)).toMatchObject({ run_id: "r", activity: "running", detail: `running: process ${apply.pid} on ${hostname()}, waiting for approval "gate"` });
    } finally {
      process.kill(-apply.pid!, "SIGKILL");
    }
  });

  it("with CI=true and no terminal, apply parks at an approval: exit 5, the commands to continue; approve + resume finish it", () => {
    const dir = temp();
    writeFileSync(join(dir, "w.hcl"), gate());
    const state = join(dir, "state");
    const parked = cli(["apply", "w.hcl", "--state-dir", state, "--run-id", "r", "-o", "json"], { cwd: dir, env: { CI: "true" } });
    expect(parked.status, parked.stderr).toBe(5);
    expect(parked.stderr).toContain(`run r is parked, waiting for approval "gate": decide with criteria approve r gate --state-dir state (or criteria reject r gate --state-dir state), then continue it with criteria resume r --state-dir state`);
    expect(ndjson(parked.stdout).at(-1)).toMatchObject({ event: "exit", code: 5, status: "parked", run_id: "r" });
    // Still parked when resumed before a decision.
    expect(cli(["resume", "r", "--state-dir", state], { cwd: dir, env: { CI: "true" } }).status).toBe(5);
    expect(cli(["approve", "r", "gate", "--state-dir", state, "--by", "ops"]).status).toBe(0);
    const done = cli(["resume", "r", "--state-dir", state], { cwd: dir, env: { CI: "true" } });
    expect(done.status, done.stderr).toBe(0);
    expect(readFileSync(join(dir, "log"), "utf8")).toBe("deployed\n");
  }, 30_000);

  it("a decision given before the run reaches its approval, or after it was decided, is refused saying which (a new-user trial: the same bare 'not waiting' for both, while a signal sent early is kept)", async () => {
    const dir = temp();
    const waitFor = (file: string) => `echo > ${file}.started; while [ ! -e ${file} ]; do sleep 0.05; done`;
    const text = gate()
      .replace('initial_state = "gate"', 'initial_state = "first"')
      .replace("echo deployed >> log", waitFor("deployed"));
    writeFileSync(join(dir, "w.hcl"), text + `step "first" {\n  target = adapter.shell.default\n  input { command = "${waitFor("first")}" }\n  outcome "success" { next = approval.gate }\n}\n`);
    const state = join(dir, "state");
    const apply = start(["apply", "w.hcl", "--state-dir", state, "--run-id", "r"], { cwd: dir });
    const exited = new Promise((r) => apply.once("exit", r));
    const approve = () => cli(["approve", "r", "gate", "--state-dir", state, "--by", "ops"]);
    try {
      await until(() => existsSync(join(dir, "first.started")));
      const early = approve();
      expect(early.status).toBe(1);
      expect(early.stderr).toBe(`criteria: run r is not waiting for approval "gate" yet: a decision is taken only while the approval waits (unlike a signal, which is kept); give it once criteria runs --state-dir ${state} shows the run waiting for it\n`);
      writeFileSync(join(dir, "first"), "");
      await until(() => approve().status === 0);
      await until(() => existsSync(join(dir, "deployed.started")));
      const late = approve();
      expect(late.status).toBe(1);
      expect(late.stderr).toBe(`criteria: approval "gate" of run r was already decided: approved by ops\n`);
    } finally {
      apply.kill("SIGTERM");
      await exited;
    }
  }, 30_000);

  it("a rejection given before resume --auto-approve wins over it: the run takes the rejected route (found by a new-user trial: it was approved)", async () => {
    const dir = temp();
    writeFileSync(join(dir, "w.hcl"), gate());
    const state = join(dir, "state");
    expect(cli(["apply", "w.hcl", "--state-dir", state, "--run-id", "r"], { cwd: dir, env: { CI: "true" } }).status).toBe(5);
    const rejected = cli(["reject", "r", "gate", "--state-dir", state, "--by", "ops"]);
    expect(rejected.status).toBe(0);
    // Which decision, said (a new-user trial: "delivered approval:gate", as approve printed).
    expect(rejected.stdout).toMatch(/^rejected approval "gate" of run r as ops \(journal entry \d+\)\n$/);
    const done = cli(["resume", "r", "--state-dir", state, "--auto-approve", "-o", "json"], { cwd: dir, env: { CI: "true" } });
    expect(done.status, done.stderr).toBe(1);
    const decided = (await entries(state, "r")).filter((e) => e.entry_type === "approval.decided").map((e) => e.payload);
    expect(decided).toEqual([expect.objectContaining({ decision: "rejected", by: "ops", next: "failed" })]);
    expect(existsSync(join(dir, "log"))).toBe(false);
  }, 30_000);

  it("a decision given after the deadline does not win: approve refuses it, a late signal is kept for later, and resume takes the timeout route (found by a new-user trial)", async () => {
    const dir = temp();
    writeFileSync(join(dir, "w.hcl"), gate('  timeout = "1s"\n'));
    const state = join(dir, "state");
    expect(cli(["apply", "w.hcl", "--state-dir", state, "--run-id", "r"], { cwd: dir, env: { CI: "true" } }).status).toBe(5);
    await new Promise((r) => setTimeout(r, 1300));
    const late = cli(["approve", "r", "gate", "--state-dir", state, "--by", "ops"]);
    expect(late.status).toBe(1);
    expect(late.stderr).toMatch(/approval "gate" of run r timed out at \S+: nothing was delivered; its timeout route is taken when the run goes on \(criteria resume r --state-dir \S+\)/);
    expect(late.stderr).toContain(`(criteria resume r --state-dir ${state})`);
    // runs says the deadline passed, not "give it" (found by a new-user trial).
    expect(cli(["runs", "--state-dir", state]).stdout).toContain(`(stopped: its approval "gate" timed out; criteria resume r --state-dir ${state} takes the timeout route)`);
    const end = cli(["resume", "r", "--state-dir", state, "-o", "json"], { cwd: dir, env: { CI: "true" } });
    expect(end.status).toBe(1);
    expect(ndjson(end.stdout).find((e) => e.event === "run.completed")).toMatchObject({ state: "failed" });

    // A signal given late is journaled (a later wait of that name may take it), not taken by the timed-out wait.
    writeFileSync(join(dir, "s.hcl"), `${HEAD("hold")}wait "hold" {\n  signal   = "go"\n  duration = "1s"\n  outcome "received" { next = step.deploy }\n  outcome "timeout"  { next = state.failed }\n}\nstep "deploy" {\n  target = adapter.shell.default\n  input { command = "echo deployed >> log" }\n  outcome "success" { next = state.done }\n}\n`);
    expect(cli(["apply", "s.hcl", "--state-dir", state, "--run-id", "s"], { cwd: dir, env: { CI: "true" } }).status).toBe(5);
    await new Promise((r) => setTimeout(r, 1300));
    const sig = cli(["signal", "s", "go", "--state-dir", state]);
    expect(sig.status).toBe(0);
    expect(sig.stderr).toMatch(/note: wait "hold" of run s timed out at \S+: it takes its timeout route when the run goes on, and this signal is kept for a later wait for "go"/);
    const after = cli(["resume", "s", "--state-dir", state, "-o", "json"], { cwd: dir, env: { CI: "true" } });
    expect(after.status).toBe(1);
    expect(ndjson(after.stdout).find((e) => e.event === "run.completed")).toMatchObject({ state: "failed" });
    expect(existsSync(join(dir, "log"))).toBe(false);
  }, 30_000);

  it("journal --follow of a parked run says once that no process runs it, keeps following, and its stop says so too (found by a new-user trial: it waited silently, saying the run went on)", async () => {
    const dir = temp();
    writeFileSync(join(dir, "w.hcl"), gate());
    const state = join(dir, "state");
    expect(cli(["apply", "w.hcl", "--state-dir", state, "--run-id", "r"], { cwd: dir, env: { CI: "true" } }).status).toBe(5);
    const follow = start(["journal", "r", "--state-dir", state, "--follow"], { cwd: dir });
    let err = "";
    follow.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((r) => follow.on("exit", (code) => r(code)));
    await until(() => err.includes("no process is running run r now"));
    expect(err).toBe("criteria: no process is running run r now (stopped or parked): criteria resume r --state-dir state continues it; still following\n");
    follow.kill("SIGINT");
    expect(await exited).toBe(4);
    expect(err).toContain("criteria: stopped following run r before it ended (no process runs it now; criteria journal r --state-dir state --follow picks it up again)");
  }, 30_000);

  it("a signal whose payload names an outcome no wait for it has is refused, with a did-you-mean (found by a new-user trial: a typo of abort took the success route)", () => {
    const dir = temp();
    writeFileSync(join(dir, "w.hcl"), `${HEAD("sig")}wait "sig" {\n  signal = "go"\n  outcome "received" { next = state.done }\n  outcome "abort" { next = state.failed }\n}\n`);
    expect(cli(["apply", "w.hcl", "--state-dir", "state", "--run-id", "s"], { cwd: dir, env: { CI: "true" } }).status).toBe(5);
    const typo = cli(["signal", "s", "go", "--payload", '{"outcome":"abrot"}', "--state-dir", "state"], { cwd: dir });
    expect(typo.status).toBe(2);
    expect(typo.stderr).toContain('--payload names outcome "abrot", which no wait for signal "go" has; did you mean "abort"?');
    expect(cli(["signal", "s", "go", "--payload", '{"outcome":"abort"}', "--state-dir", "state"], { cwd: dir }).status).toBe(0);
    const done = cli(["resume", "s", "--state-dir", "state", "-o", "text"], { cwd: dir, env: { CI: "true" } });
    expect(done.status).toBe(1);
    expect(done.stdout).toContain('sig: signal "go" received: abort → failed');
  }, 30_000);

  it("a signal without an outcome is refused by a wait that routes only named outcomes, naming them (found by a trial of the Go tool's docs: approved/rejected, the run ended unknown_outcome for good)", () => {
    const dir = temp();
    writeFileSync(join(dir, "w.hcl"), `${HEAD("gate")}wait "gate" {\n  signal = "deploy_approved"\n  outcome "approved" { next = state.done }\n  outcome "rejected" { next = state.failed }\n}\n`);
    const parked = cli(["apply", "w.hcl", "--state-dir", "state", "--run-id", "g"], { cwd: dir, env: { CI: "true" } });
    expect(parked.status).toBe(5);
    // What apply and runs tell to do works (a trial of the Go tool's docs: they said criteria signal g deploy_approved, which is refused).
    const command = `criteria signal g deploy_approved --state-dir state --payload '{"outcome":"approved"}' (an outcome of approved, rejected)`;
    expect(parked.stderr).toContain(`waiting for signal "deploy_approved": deliver it with ${command}, then continue it with criteria resume g`);
    expect(cli(["runs", "--state-dir", "state"], { cwd: dir }).stdout).toContain(`parked, waiting for signal "deploy_approved": give it with ${command}, then criteria resume g`);
    for (const payload of [[], ["--payload", '{"by":"ann"}']]) {
      const bare = cli(["signal", "g", "deploy_approved", ...payload, "--state-dir", "state"], { cwd: dir });
      expect(bare.status).toBe(2);
      expect(bare.stderr).toContain(`wait "gate" for signal "deploy_approved" has no route for a signal without an outcome (no next, no outcome "received"): it would end the run; name one of its outcomes (approved, rejected) with --payload '{"outcome":"approved"}'`);
    }
    expect(cli(["signal", "g", "deploy_approved", "--payload", '{"outcome":"approved"}', "--state-dir", "state"], { cwd: dir }).status).toBe(0);
    const done = cli(["resume", "g", "--state-dir", "state", "-o", "text"], { cwd: dir, env: { CI: "true" } });
    expect(done.status).toBe(0);
    expect(done.stdout).toContain('gate: signal "deploy_approved" received: approved → done');
  }, 30_000);

  it("a signal given after its wait's deadline: runs says the wait timed out, not that its signal was given (a new-user trial)", async () => {
    const dir = temp();
    writeFileSync(join(dir, "w.hcl"), `${HEAD("recv")}wait "recv" {\n  signal = "go-now"\n  timeout = "1s"\n  outcome "received" { next = state.done }\n  outcome "timeout" { next = state.failed }\n}\n`);
    expect(cli(["apply", "w.hcl", "--state-dir", "state", "--run-id", "w1"], { cwd: dir, env: { CI: "true" } }).status).toBe(5);
    await new Promise((r) => setTimeout(r, 1300));
    expect(cli(["signal", "w1", "go-now", "--state-dir", "state"], { cwd: dir }).status).toBe(0);
    const listed = cli(["runs", "--state-dir", "state"], { cwd: dir }).stdout;
    expect(listed).toContain('stopped: its wait "recv" timed out; criteria resume w1 --state-dir state takes the timeout route');
    expect(listed).not.toContain("given");
    const done = cli(["resume", "w1", "--state-dir", "state", "-o", "json"], { cwd: dir, env: { CI: "true" } });
    expect(ndjson(done.stdout).find((e) => e.event === "run.completed")).toMatchObject({ state: "failed" });
  }, 30_000);

  it("a signal to a nested run's wait, after one to its root, is not said to be kept: the wait takes its own first (a new-user trial: the note said entry 4 would be taken, and the item took entry 5)", () => {
    const dir = temp();
    mkdirSync(join(dir, "mod"));
    writeFileSync(join(dir, "mod", "main.hcl"), `workflow "m" {\n  version = "1"\n  initial_state = "hold"\n  target_state = "ok"\n}\nwait "hold" {\n  signal = "release"\n  outcome "approved" { next = "ok" }\n  outcome "rejected" { next = "bad" }\n}\nstate "ok" { terminal = true }\nstate "bad" {\n  terminal = true\n  success = false\n}\n`);
    writeFileSync(join(dir, "w.hcl"), `workflow "p" {\n  version = "1"\n  initial_state = "call"\n  target_state = "done"\n}\nsubworkflow "m" { source = "./mod" }\nstep "call" {\n  target = subworkflow.m\n  count = 2\n  outcome "all_succeeded" { next = "done" }\n  outcome "any_failed" { next = "done" }\n}\nstate "done" { terminal = true }\n`);
    expect(cli(["apply", "w.hcl", "--state-dir", "state", "--run-id", "n1"], { cwd: dir, env: { CI: "true" } }).status).toBe(5);
    expect(cli(["signal", "n1", "release", "--payload", '{"outcome":"rejected"}', "--state-dir", "state"], { cwd: dir }).stderr).toBe("");
    const own = cli(["signal", "n1/call#1[0]", "release", "--payload", '{"outcome":"approved"}', "--state-dir", "state"], { cwd: dir });
    expect(own.status).toBe(0);
    expect(own.stderr).toBe("");
    const done = cli(["resume", "n1", "--state-dir", "state", "-o", "text"], { cwd: dir, env: { CI: "true" } });
    expect(done.stdout).toContain('call#1[0] › hold: signal "release" received: approved → ok');
    expect(done.stdout).toContain('call#1[1] › hold: signal "release" received: rejected → bad');
  }, 60_000);

  it("the signal commands apply and runs print paste as printed: shell-quoted names, a name starting with - after --, and the payload a wait of named outcomes needs in apply's text events too (a new-user trial: go now, a$(id) and -x, and the text line without the payload)", () => {
    const dir = temp();
    for (const [i, name] of ["go now", "a$(id)", "-x"].entries()) {
      writeFileSync(join(dir, "w.hcl"), `${HEAD("gate")}wait "gate" {\n  signal = ${JSON.stringify(name)}\n  outcome "approved" { next = state.done }\n  outcome "rejected" { next = state.failed }\n  outcome "timeout" { next = state.failed }\n}\n`);
      const run = `q${i}`;
      const parked = cli(["apply", "w.hcl", "--state-dir", "state", "--run-id", run, "-o", "text"], { cwd: dir, env: { CI: "true" } });
      expect(parked.status, parked.stderr).toBe(5);
      const printed = /deliver it with (criteria signal .*?)(?: \(an outcome of [^)]*\))?, then continue/.exec(parked.stderr)?.[1];
      expect(printed, parked.stderr).toBeDefined();
      // The text line says the same command, with the payload; timeout is no outcome to name.
      expect(parked.stdout).toContain(`(${printed} (an outcome of approved, rejected))`);
      expect(cli(["runs", "--state-dir", "state"], { cwd: dir }).stdout).toContain(`give it with ${printed} (an outcome of approved, rejected)`);
      // Pasted into a shell, as printed: delivered, and nothing else ran.
      const pasted = spawnSync("sh", ["-c", printed!.replace(/^criteria /, `"${process.execPath}" "${bin}" `)], { cwd: dir, encoding: "utf8" });
      expect(pasted.status, pasted.stderr).toBe(0);
      expect(pasted.stdout).toContain(`delivered ${name} to ${run}`);
    }
  }, 60_000);

  it("parallel items waiting at one approval are told apart: each line shows its reason and its own run id to decide it with (found by a new-user trial)", () => {
    const dir = temp();
    mkdirSync(join(dir, "mod"));
    writeFileSync(join(dir, "mod", "main.hcl"), `workflow {\n  name = "mod"\n  initial_state = "ok"\n  target_state = "done"\n}\nvariable "v" {\n  type = string\n}\napproval "ok" {\n  approvers = ["ops"]\n  reason    = "ship \${var.v}?"\n  outcome "approved" { next = state.done }\n  outcome "rejected" { next = state.done }\n}\nstate "done" { terminal = true }\n`);
    writeFileSync(join(dir, "main.hcl"), `workflow {\n  name = "pa"\n  initial_state = "fan"\n  target_state = "done"\n}\nsubworkflow "m" {\n  source = "./mod"\n}\nstep "fan" {\n  target   = subworkflow.m\n  parallel = ["a", "b"]\n  input { v = each.value }\n  outcome "all_succeeded" { next = state.done }\n  outcome "any_failed"    { next = state.done }\n}\nstate "done" { terminal = true }\n`);
    const r = cli(["apply", "main.hcl", "--state-dir", "state", "--run-id", "pa", "-o", "text"], { cwd: dir, env: { CI: "true" } });
    expect(r.status).toBe(5);
    expect(r.stdout).toContain(`fan#1[0] › ok: waiting for approval: "ship a?" (criteria approve 'pa/fan#1[0]' ok --state-dir state, or criteria reject 'pa/fan#1[0]' ok --state-dir state)`);
    expect(r.stdout).toContain(`fan#1[1] › ok: waiting for approval: "ship b?" (criteria approve 'pa/fan#1[1]' ok --state-dir state, or criteria reject 'pa/fan#1[1]' ok --state-dir state)`);
    expect(cli(["approve", "pa/fan#1[1]", "ok", "--state-dir", "state"], { cwd: dir }).stdout).toMatch(/^approved approval "ok" of run pa\/fan#1\[1\] as \S+ \(journal entry \d+\)\n$/);
  }, 30_000);

  it("a signal wait parks too; --wait waits even in CI", () => {
    const dir = temp();
    writeFileSync(join(dir, "w.hcl"), `${HEAD("hold")}wait "hold" {\n  signal = "go"\n  outcome "received" { next = state.done }\n}\n`);
    const r = cli(["apply", "w.hcl", "--state-dir", join(dir, "state"), "--run-id", "s"], { cwd: dir, env: { CI: "true" } });
    expect(r.status).toBe(5);
    expect(r.stderr).toContain(`waiting for signal "go": deliver it with criteria signal s go`);
  });

  it("an approval's timeout routes to its timeout outcome; a parked run resumed after the deadline takes it", async () => {
    const dir = temp();
    writeFileSync(join(dir, "w.hcl"), gate(`  timeout = "1s"\n`));
    const waited = cli(["apply", "w.hcl", "--state-dir", join(dir, "a"), "--run-id", "t", "--wait"], { cwd: dir, env: { CI: "true" } });
    expect(waited.status).toBe(1);
    expect((await entries(join(dir, "a"), "t")).find((e) => e.entry_type === "approval.decided")?.payload).toMatchObject({ decision: "timeout", next: "failed" });
    const parked = cli(["apply", "w.hcl", "--state-dir", join(dir, "b"), "--run-id", "t"], { cwd: dir, env: { CI: "true" } });
    expect(parked.status).toBe(5);
    expect(parked.stderr).toMatch(/approval "gate" \(until .*, then its timeout route\)/);
    spawnSync("sleep", ["1.2"]); // past the journaled deadline
    const after = cli(["resume", "t", "--state-dir", join(dir, "b")], { cwd: dir, env: { CI: "true" } });
    expect(after.status).toBe(1);
    expect((await entries(join(dir, "b"), "t")).find((e) => e.entry_type === "approval.decided")?.payload).toMatchObject({ decision: "timeout", next: "failed" });
  }, 30_000);
});

describe("a wait's name given to approve or signal", () => {
  it("says what ends that wait, with the command (found by a new-user trial: 'has no approval \"ready\"; expected one of \"release\"')", () => {
    const dir = temp();
    const wf = join(dir, "gate.hcl");
    writeFileSync(
      wf,
      `${HEAD("ready")}wait "ready" {
  signal = "go"
  outcome "received" { next = wait.nap }
}
wait "nap" {
  duration = "1h"
  next = approval.release
}
approval "release" {
  approvers = ["ann"]
  outcome "approved" { next = state.done }
  outcome "rejected" { next = state.failed }
}
`,
    );
    const state = join(dir, "state");
    expect(cli(["apply", wf, "--state-dir", state, "--run-id", "g4"], { env: { CI: "true" } }).status).toBe(5);
    const approve = cli(["approve", "g4", "ready", "--state-dir", state]);
    expect(approve.status).toBe(1);
    expect(approve.stderr).toBe(`criteria: workflow of run g4 has no approval "ready": "ready" is a wait, not an approval; send its signal with criteria signal g4 go --state-dir ${state}\n`);
    const nap = cli(["approve", "g4", "nap", "--state-dir", state]);
    expect(nap.stderr).toBe(`criteria: workflow of run g4 has no approval "nap": "nap" is a wait, not an approval; it ends by itself when its duration has passed\n`);
    const signal = cli(["signal", "g4", "ready", "--state-dir", state]);
    expect(signal.status).toBe(1);
    expect(signal.stderr).toBe(`criteria: workflow of run g4 waits for no signal "ready": its wait "ready" waits for signal "go"; send it with criteria signal g4 go --state-dir ${state}\n`);
    const approval = cli(["signal", "g4", "release", "--state-dir", state]);
    expect(approval.stderr).toBe(`criteria: workflow of run g4 waits for no signal "release": "release" is an approval; decide it with criteria approve g4 release --state-dir ${state} (or criteria reject g4 release --state-dir ${state})\n`);
  });
});

describe("a moved checkout (item 8)", () => {
  const wf = `${HEAD("one")}step "one" {\n  target = adapter.shell.default\n  input { command = "echo one >> log" }\n  outcome "success" { next = step.two }\n}\nstep "two" {\n  target = adapter.shell.default\n  input { command = "echo two >> log" }\n  outcome "success" { next = state.done }\n}\n`;

  it("a run interrupted in one checkout resumes in the moved one (the journal moved with it)", () => {
    const root = temp();
    const a = join(root, "builds", "1");
    const b = join(root, "builds", "2");
    mkdirSync(a, { recursive: true });
    writeFileSync(join(a, "w.hcl"), wf);
    const first = cli(["apply", "w.hcl", "--run-id", "m"], { cwd: a, env: { CRITERIA_FAULT_KILL_AFTER_SEQ: "4" } });
    expect(first.signal).toBe("SIGKILL");
    renameSync(join(root, "builds", "1"), b);
    const again = cli(["resume", "m"], { cwd: b });
    expect(again.status, again.stderr).toBe(0);
    expect(readFileSync(join(b, "log"), "utf8").split("\n").filter(Boolean)).toEqual(["one", "two"]);
  });

  it("when the workflow's directory cannot be found, resume refuses before running anything; --workdir says where it is", () => {
    const root = temp();
    const a = join(root, "w1");
    mkdirSync(a);
    writeFileSync(join(a, "w.hcl"), wf);
    const state = join(root, "state");
    expect(cli(["apply", "w.hcl", "--state-dir", state, "--run-id", "m"], { cwd: a, env: { CRITERIA_FAULT_KILL_AFTER_SEQ: "4" } }).signal).toBe("SIGKILL");
    renameSync(a, join(root, "w2"));
    const refused = cli(["resume", "m", "--state-dir", state]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`the run's workflow directory ${a} no longer exists (was the checkout moved?); put its files back there, or say where they are now: criteria resume m --state-dir ${state} --workdir DIR (the directory that holds the workflow now)`);
    const ok = cli(["resume", "m", "--state-dir", state, "--workdir", join(root, "w2")]);
    expect(ok.status, ok.stderr).toBe(0);
    expect(readFileSync(join(root, "w2", "log"), "utf8").split("\n").filter(Boolean)).toEqual(["one", "two"]);
  });

  it("a --workdir without the workflow's entry file is refused (exit 2) naming the file, and nothing is journaled (found by a user trial: it was journaled as run.relocated)", async () => {
    const root = temp();
    const a = join(root, "w1");
    mkdirSync(a);
    writeFileSync(join(a, "w.hcl"), wf);
    const state = join(root, "state");
    expect(cli(["apply", "w.hcl", "--state-dir", state, "--run-id", "m"], { cwd: a, env: { CRITERIA_FAULT_KILL_AFTER_SEQ: "4" } }).signal).toBe("SIGKILL");
    const empty = join(root, "empty");
    mkdirSync(empty);
    writeFileSync(join(empty, "other.hcl"), wf);
    const before = (await entries(state, "m")).length;
    for (const json of [false, true]) {
      const refused = cli(["resume", "m", "--state-dir", state, "--workdir", empty, ...(json ? ["-o", "json"] : [])]);
      expect(refused.status, refused.stderr).toBe(2);
      expect(refused.stderr.trim()).toBe(`criteria: --workdir ${empty} holds no w.hcl, the file run m was started from (it was in ${a}): give the directory that holds w.hcl now; nothing was written`);
    }
    expect((await entries(state, "m")).length).toBe(before);
    expect(existsSync(join(empty, "log"))).toBe(false);
    // A directory with a file of that name holding another workflow (found by a new-user trial:
    // --workdir /tmp was taken, "changed" was said, its steps failed and the run ended for good).
    const other = join(root, "other");
    mkdirSync(other);
    writeFileSync(join(other, "w.hcl"), wf.replace(/name\s*=\s*"[^"]*"/, 'name = "someone_else"').replace(/workflow "[^"]*"/, 'workflow "someone_else"'));
    for (const json of [false, true]) {
      const wrong = cli(["resume", "m", "--state-dir", state, "--workdir", other, ...(json ? ["-o", "json"] : [])]);
      expect(wrong.status, wrong.stderr).toBe(2);
      expect(wrong.stderr.trim()).toMatch(new RegExp(`^criteria: --workdir ${other} holds workflow "someone_else", not "[^"]+" that run m was started from \\(it was in ${a}\\): give the directory that holds its files now; nothing was written$`));
    }
    expect((await entries(state, "m")).length).toBe(before);
    // The directory that holds it is taken, and the run goes on there.
    const ok = cli(["resume", "m", "--state-dir", state, "--workdir", a]);
    expect(ok.status, ok.stderr).toBe(0);
    expect(readFileSync(join(a, "log"), "utf8").split("\n").filter(Boolean)).toEqual(["one", "two"]);
  });
});
