/**
 * Issue #7, "Also found": each a small real input. Events carry a step's output
 * (bounded) and a failed item's reason; parallel_max above 10 prints no listener warning;
 * range() over its limit is a validate error; resume says when the workflow changed;
 * `--state-dir ""` is a usage error; a journal deleted mid-run stops the run (exit 4);
 * binary output says so; SARIF URIs are percent-encoded.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, entries, ndjson, repo, start, temp, until } from "./helpers.js";

const wf = (dir: string, steps: string) => {
  writeFileSync(join(dir, "w.hcl"), `workflow {\n  name = "w"\n  initial_state = "a"\n  target_state = "done"\n}\nadapter "shell" "default" {}\nstate "done" { terminal = true }\n${steps}`);
  return join(dir, "w.hcl");
};

describe("also found", () => {
  it("step.completed events carry the output (a note of its size when big); a failed item's event its reason and exit code", () => {
    const dir = temp();
    const path = wf(
      dir,
      `step "a" {\n  target = adapter.shell.default\n  input { command = "echo small" }\n  outcome "success" { next = step.big }\n}\nstep "big" {\n  target = adapter.shell.default\n  input { command = "head -c 20000 /dev/zero | tr '\\\\\\\\0' x" }\n  outcome "success" { next = step.items }\n}\nstep "items" {\n  target = adapter.shell.default\n  for_each = ["0", "3"]\n  input { command = "exit \${each.value}" }\n  outcome "all_succeeded" { next = state.done }\n  outcome "any_failed" { next = state.done }\n}\n`,
    );
    const r = cli(["apply", path, "--state-dir", join(dir, "s"), "-o", "json"]);
    expect(r.status, r.stderr).toBe(0);
    const events = ndjson(r.stdout);
    expect(events.find((e) => e.event === "step.completed" && e.step === "a")).toMatchObject({ output: { exit_code: 0, stdout: "small\n" } });
    const big = events.find((e) => e.event === "step.completed" && e.step === "big")!;
    expect(big.output).toBeUndefined();
    expect(big.output_bytes).toBeGreaterThan(8192);
    expect(events.find((e) => e.event === "iteration.completed" && e.index === 1)).toMatchObject({ success: false, reason: "adapter_failed", exit_code: 3, at: expect.stringMatching(/w\.hcl:18:6$/) });
    expect(events.find((e) => e.event === "iteration.completed" && e.index === 0)?.at).toBeUndefined();
    // A step that succeeded says no place; one whose adapter failed says where it is declared (found by a new-user trial).
    expect(events.find((e) => e.event === "step.completed" && e.step === "a")?.at).toBeUndefined();
  });

  it("a step whose adapter failed says where it is declared, in its event and its text line (found by a new-user trial: no place)", () => {
    const dir = temp();
    const path = wf(dir, `step "a" {\n  target = adapter.shell.default\n  input { command = "echo boom >&2; exit 3" }\n  outcome "success" { next = state.done }\n}\n`);
    const json = cli(["apply", path, "--state-dir", join(dir, "s"), "-o", "json"], { cwd: dir });
    expect(json.status).toBe(1);
    expect(ndjson(json.stdout).find((e) => e.event === "step.completed" && e.step === "a")).toMatchObject({ reason: "adapter_failed", at: "w.hcl:8:6" });
    const text = cli(["apply", path, "--state-dir", join(dir, "s2"), "-o", "text"], { cwd: dir });
    expect(text.status).toBe(1);
    expect(text.stdout + text.stderr).toMatch(/a → failure {2}\[adapter_failed at w\.hcl:8:6: exit code 3: boom; /);
    // A failure whose detail has a place of its own (an expression's) is not given the step's too.
    const expr = temp();
    const exprPath = wf(expr, `step "a" {\n  target = adapter.shell.default\n  input { command = "echo hi" }\n  outcome "success" {\n    next   = state.done\n    output = { n = tonumber(step.output.stdout) }\n  }\n}\n`);
    const line = cli(["apply", exprPath, "--state-dir", join(expr, "s"), "-o", "text"], { cwd: expr });
    expect(line.stdout + line.stderr).toMatch(/a → success {2}\[eval_error: w\.hcl:13:29: Invalid function argument/);
  });

  it("a run resumed from another directory gives positions relative to it, as compile there would (found by a new-user trial: paths relative to where apply ran)", async () => {
    const steps = `step "a" {\n  target = adapter.shell.default\n  input { command = "echo hi" }\n  outcome "success" { next = step.b }\n}\nstep "b" {\n  target = adapter.shell.default\n  input { command = "exit 3" }\n  outcome "success" { next = step.c }\n  outcome "failure" { next = step.c }\n}\nstep "c" {\n  target = adapter.shell.default\n  input { command = "echo hi" }\n  outcome "success" {\n    next   = state.done\n    output = { n = tonumber(step.output.stdout) }\n  }\n}\n`;
    const ref = temp();
    mkdirSync(join(ref, "sub"));
    wf(join(ref, "sub"), steps);
    cli(["apply", "sub/w.hcl", "--state-dir", "s", "--run-id", "r"], { cwd: ref });
    const aDone = (await entries(join(ref, "s"), "r")).find((e) => e.entry_type === "step.completed" && e.step_id === "a")!.seq;
    const dir = temp();
    mkdirSync(join(dir, "sub"));
    wf(join(dir, "sub"), steps);
    const killed = cli(["apply", "sub/w.hcl", "--state-dir", "s", "--run-id", "r", "-o", "json"], { cwd: dir, env: { CRITERIA_FAULT_KILL_AFTER_SEQ: String(aDone) } });
    expect(killed.signal).toBe("SIGKILL");
    const resumed = cli(["resume", "r", "--state-dir", "../s", "-o", "json"], { cwd: join(dir, "sub") });
    const events = ndjson(resumed.stdout);
    expect(events.find((e) => e.event === "step.completed" && e.step === "b")).toMatchObject({ reason: "adapter_failed", at: "w.hcl:13:6" });
    expect(String(events.find((e) => e.event === "step.completed" && e.step === "c")?.detail)).toMatch(/^w\.hcl:24:29: /);
    // From where it was applied, they stay as they were.
    const again = cli(["apply", "sub/w.hcl", "--state-dir", "s2", "-o", "json"], { cwd: dir });
    expect(ndjson(again.stdout).find((e) => e.event === "step.completed" && e.step === "b")).toMatchObject({ at: "sub/w.hcl:13:6" });
  });

  it("parallel_max above 10 prints no MaxListenersExceededWarning", () => {
    const dir = temp();
    const path = wf(dir, `step "a" {\n  target = adapter.shell.default\n  parallel = 30\n  parallel_max = 30\n  input { command = "true" }\n  outcome "all_succeeded" { next = state.done }\n  outcome "any_failed" { next = state.done }\n}\n`);
    const r = cli(["apply", path, "--state-dir", join(dir, "s"), "-o", "json"]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toContain("MaxListenersExceededWarning");
  });

  it("range(10000) is a validate error naming the limit", () => {
    const dir = temp();
    const path = wf(dir, `step "a" {\n  target = adapter.shell.default\n  for_each = range(10000)\n  input { command = "true" }\n  outcome "all_succeeded" { next = state.done }\n  outcome "any_failed" { next = state.done }\n}\n`);
    const r = cli(["validate", path]);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain("range() would make 10000 values; it makes at most 1024");
  });

  it("validate - and fmt --to v0.5 - read the text on standard input, as the file --stdin-name names (an editor's check and format on save; a new-user trial: - was a missing file)", () => {
    const dir = temp();
    const older = readFileSync(join(repo, "examples", "agent_in_body", "workflow.hcl"), "utf8");
    // Named by its text (HCL here), compiled in the working directory; a file of that name is not needed.
    const ok = cli(["validate", "-"], { cwd: dir, input: older });
    expect([ok.status, ok.stdout]).toEqual([0, "stdin.hcl: ok\n"]);
    const typo = cli(["validate", "-", "--stdin-name", "flows/w.hcl", "-o", "json"], { cwd: dir, input: older.replace('agent = "executor"', 'agent = "executr"') });
    expect(typo.status).toBe(1);
    expect(JSON.parse(typo.stdout).diagnostics.map((d: { code: string; range: { file: string } }) => [d.code, d.range.file])).toEqual([["unknown_target", "flows/w.hcl"]]);
    expect(cli(["validate", "-"], { cwd: dir, input: "workflow:\n  name: y\n" }).stdout).toContain("stdin.yaml: ");
    expect(cli(["validate", "-", "-"], { cwd: dir }).status).toBe(2);
    // fmt: the rewrite on stdout (checked as a file's is); --check says it would change; a broken text prints nothing there.
    const fmt = cli(["fmt", "--to", "v0.5", "-"], { cwd: dir, input: older });
    expect(fmt.status, fmt.stderr).toBe(0);
    expect(fmt.stdout).toContain('target = adapter.copilot.executor');
    expect(cli(["validate", "-"], { cwd: dir, input: fmt.stdout }).stdout).toBe("stdin.hcl: ok\n");
    expect(cli(["fmt", "--to", "v0.5", "--check", "-"], { cwd: dir, input: older }).status).toBe(1);
    expect(cli(["fmt", "--to", "v0.5", "--check", "-"], { cwd: dir, input: fmt.stdout }).status).toBe(0);
    const broken = cli(["fmt", "--to", "v0.5", "-"], { cwd: dir, input: "workflow {" });
    expect([broken.status, broken.stdout]).toEqual([1, ""]);
    expect(broken.stderr).toContain("stdin.hcl:1:10: error[syntax_error]");
  });

  it("explain takes a code as validate prints it (error[unknown_node]) and suggests the code meant by a typo (a new-user trial)", () => {
    const pasted = cli(["explain", "error[unknown_node]"]);
    expect([pasted.status, pasted.stdout]).toEqual([0, "unknown_node (error): An outcome, branch arm or header names a node that does not exist.\n"]);
    const typo = cli(["explain", "unknown_nod"]);
    expect([typo.status, typo.stderr]).toEqual([2, 'criteria: unknown diagnostic code "unknown_nod"; did you mean "unknown_node"? (criteria explain lists them)\n']);
    expect(cli(["explain", "bogus"]).stderr).toBe('criteria: unknown diagnostic code "bogus" (criteria explain lists them)\n');
  });

  it("resume of a failed run says how to go on: a new run with apply (found by a new-user trial: it said only that the run had ended)", () => {
    const dir = temp();
    const path = wf(dir, `step "a" {\n  target = adapter.shell.default\n  input { command = "exit 3" }\n  outcome "success" { next = state.done }\n}\n`);
    expect(cli(["apply", path, "--state-dir", join(dir, "s"), "--run-id", "r", "-o", "text"]).status).toBe(1);
    const again = cli(["resume", "r", "--state-dir", join(dir, "s"), "-o", "text"]);
    expect(again.status).toBe(1);
    expect(again.stdout).toMatch(/^run r has already ended: failed .*; an ended run is not resumed: apply the workflow again for a new run \(its steps, and their effects, run again from the start\)\n$/);
  });

  it("a step's terminal control characters reach the terminal as pictures, in apply's lines and the journal's, as in diagnostics (found by a new-user trial: its stderr set the window title)", () => {
    const dir = temp();
    const path = wf(dir, `step "a" {\n  target = adapter.shell.default\n  input { command = "printf '\\\\033]0;PWNED\\\\007\\\\033[31mRED' >&2; exit 3" }\n  outcome "success" { next = state.done }\n}\n`);
    const r = cli(["apply", path, "--state-dir", join(dir, "s"), "--run-id", "r", "-o", "text"]);
    expect(r.status).toBe(1);
    const j = cli(["journal", "r", "--state-dir", join(dir, "s")]);
    for (const out of [r.stdout + r.stderr, j.stdout]) {
      expect(out).toContain("exit code 3: \u241b]0;PWNED\u2407\u241b[31mRED");
      expect(out).not.toMatch(/[\u001b\u0007]/);
    }
  });

  it("a refusal's line shows the control characters of what it quotes as pictures: a --var value, an unknown code (found by a new-user trial: a value's ESC reached the terminal)", () => {
    const dir = temp();
    const path = wf(dir, `variable "n" { type = number }\nstep "a" {\n  target = adapter.shell.default\n  input { command = "echo \${var.n}" }\n  outcome "success" { next = state.done }\n}\n`);
    const r = cli(["apply", path, "--state-dir", join(dir, "s"), "--var", "n=\u001b]0;PWNED\u0007", "-o", "text"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('criteria: --var n: "\u241b]0;PWNED\u2407" is not a number\n');
    const code = cli(["explain", "\u001b[2J"]);
    expect(code.stderr).toBe('criteria: unknown diagnostic code "\u241b[2J" (criteria explain lists them)\n');
  });

  it("resume compares the files where a --workdir of an earlier resume put the run (run.relocated), not where it started", () => {
    // Found reading the code: the CLI's check looked only at the journaled first directory,
    // which no longer exists after a move, so a change in the new place went unsaid.
    const dir = temp();
    mkdirSync(join(dir, "a"));
    const gate = (name: string, next: string) => `approval "${name}" {\n  approvers = ["ops"]\n  outcome "approved" { next = ${next} }\n  outcome "rejected" { next = state.done }\n}\n`;
    wf(join(dir, "a"), gate("a", "approval.two") + gate("two", "state.done"));
    const state = join(dir, "s");
    const env = { CI: "true" };
    expect(cli(["apply", join(dir, "a", "w.hcl"), "--state-dir", state, "--run-id", "r"], { env }).status).toBe(5);
    renameSync(join(dir, "a"), join(dir, "b"));
    expect(cli(["approve", "r", "a", "--state-dir", state, "--by", "ops"]).status).toBe(0);
    const moved = cli(["resume", "r", "--state-dir", state, "--workdir", join(dir, "b"), "-o", "json"], { env });
    expect(moved.status, moved.stderr).toBe(5);
    expect(moved.stdout).not.toContain("files changed");
    writeFileSync(join(dir, "b", "w.hcl"), `${readFileSync(join(dir, "b", "w.hcl"), "utf8")}\n# changed\n`);
    expect(cli(["approve", "r", "two", "--state-dir", state, "--by", "ops"]).status).toBe(0);
    const r = cli(["resume", "r", "--state-dir", state, "-o", "json"], { env });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("the workflow's files changed since the run started; resume continues the workflow as it was then");
  });

  it("resume says when the workflow's files changed since the run started, and runs the journaled one", () => {
    const dir = temp();
    const path = wf(dir, `step "a" {\n  target = adapter.shell.default\n  input { command = "echo a >> log" }\n  outcome "success" { next = step.b }\n}\nstep "b" {\n  target = adapter.shell.default\n  input { command = "echo b >> log" }\n  outcome "success" { next = state.done }\n}\n`);
    expect(cli(["apply", path, "--state-dir", join(dir, "s"), "--run-id", "r"], { env: { CRITERIA_FAULT_KILL_AFTER_SEQ: "3" } }).signal).toBe("SIGKILL");
    writeFileSync(path, `${readFileSync(path, "utf8")}\n# changed\n`);
    const r = cli(["resume", "r", "--state-dir", join(dir, "s"), "-o", "json"]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("the workflow's files changed since the run started; resume continues the workflow as it was then");
    const same = temp();
    const p2 = wf(same, `step "a" {\n  target = adapter.shell.default\n  input { command = "true" }\n  outcome "success" { next = state.done }\n}\n`);
    expect(cli(["apply", p2, "--state-dir", join(same, "s"), "--run-id", "r"], { env: { CRITERIA_FAULT_KILL_AFTER_SEQ: "2" } }).signal).toBe("SIGKILL");
    expect(cli(["resume", "r", "--state-dir", join(same, "s"), "-o", "json"]).stdout).not.toContain("changed since");
    // Deleted: said too, and the journaled workflow runs (a new-user trial: not a word).
    const gone = temp();
    const p3 = wf(gone, `step "a" {\n  target = adapter.shell.default\n  input { command = "echo a >> log" }\n  outcome "success" { next = step.b }\n}\nstep "b" {\n  target = adapter.shell.default\n  input { command = "echo b >> log" }\n  outcome "success" { next = state.done }\n}\n`);
    expect(cli(["apply", p3, "--state-dir", join(gone, "s"), "--run-id", "r"], { env: { CRITERIA_FAULT_KILL_AFTER_SEQ: "3" } }).signal).toBe("SIGKILL");
    rmSync(p3);
    const again = cli(["resume", "r", "--state-dir", join(gone, "s")], { cwd: gone });
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain(`"message":"the workflow's file w.hcl is gone since the run started; resume continues the workflow as it was then (journaled with the run)"`);
    expect(readFileSync(join(gone, "log"), "utf8")).toMatch(/b\n$/);
    // A module's directory deleted: named too, and what will fail (a second new-user trial: only "changed").
    const mod = temp();
    mkdirSync(join(mod, "child"));
    writeFileSync(join(mod, "child", "main.hcl"), `workflow "child" {\n  version = "1"\n  initial_state = "a"\n  target_state = "done"\n}\nadapter "shell" "default" {}\nstep "a" {\n  target = adapter.shell.default\n  input { command = "true" }\n  outcome "success" { next = "done" }\n}\nstate "done" { terminal = true }\n`);
    writeFileSync(join(mod, "p.hcl"), `workflow "p" {\n  version = "1"\n  initial_state = "g"\n  target_state = "done"\n}\napproval "g" {\n  approvers = ["ops"]\n  outcome "approved" { next = "call" }\n  outcome "rejected" { next = "done" }\n}\nsubworkflow "kid" {\n  source = "./child"\n}\nstep "call" {\n  target = subworkflow.kid\n  outcome "success" { next = "done" }\n}\nstate "done" { terminal = true }\n`);
    expect(cli(["apply", "p.hcl", "--state-dir", "s", "--run-id", "m"], { cwd: mod, env: { CI: "true" } }).status).toBe(5);
    rmSync(join(mod, "child"), { recursive: true });
    expect(cli(["approve", "m", "g", "--state-dir", "s"], { cwd: mod }).status).toBe(0);
    const moduleGone = cli(["resume", "m", "--state-dir", "s"], { cwd: mod, env: { CI: "true" } });
    expect(moduleGone.stdout).toContain(`"message":"the workflow's files changed since the run started (child does not exist); resume continues the workflow as it was then (journaled with the run), but a step that runs in a directory that is gone will fail: put it back first"`);
  });

  it("resume compiles as apply did: modules from outside the entry's directory (--root, allowed paths) are not 'changed' files (found by a new-user trial: every resume warned)", () => {
    const dir = temp();
    const elsewhere = temp(); // outside --root: reached through CRITERIA_WORKFLOW_ALLOWED_PATHS
    mkdirSync(join(dir, "a"));
    mkdirSync(join(dir, "ext"));
    const mod = (name: string) => `workflow {\n  name = "${name}"\n  initial_state = "x"\n  target_state = "done"\n  expects {\n    adapters = [adapter.shell.default]\n  }\n}\nstep "x" {\n  target = adapter.shell.default\n  input { command = "true" }\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n`;
    writeFileSync(join(dir, "ext", "main.hcl"), mod("ext"));
    writeFileSync(join(elsewhere, "main.hcl"), mod("far"));
    writeFileSync(
      join(dir, "a", "main.hcl"),
      `workflow {\n  name = "root"\n  initial_state = "s"\n  target_state = "done"\n}\nadapter "shell" "default" {}\nsubworkflow "m" {\n  source = "../ext"\n  adapters = [adapter.shell.default]\n}\nsubworkflow "f" {\n  source = "${elsewhere}"\n  adapters = [adapter.shell.default]\n}\nstep "s" {\n  target = subworkflow.m\n  outcome "success" { next = step.t }\n}\nstep "t" {\n  target = subworkflow.f\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n`,
    );
    const state = join(dir, "s");
    const killed = cli(["apply", join(dir, "a", "main.hcl"), "--root", dir, "--state-dir", state, "--run-id", "r"], { env: { CRITERIA_WORKFLOW_ALLOWED_PATHS: elsewhere, CRITERIA_FAULT_KILL_AFTER_SEQ: "3" } });
    expect(killed.signal, killed.stderr).toBe("SIGKILL");
    // Resumed with neither --root nor the variable: the journal keeps them.
    const r = cli(["resume", "r", "--state-dir", state, "-o", "json"]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).not.toContain("changed since");
  });

  it("a state directory that cannot be made is refused at once: under /proc Node's recursive mkdir spun for ever, deaf to signals (found by a new-user trial)", () => {
    const dir = temp();
    const path = wf(dir, `step "a" {\n  target = adapter.shell.default\n  input { command = "true" }\n  outcome "success" { next = state.done }\n}\n`);
    const r = spawnSync(process.execPath, [join(import.meta.dirname, "..", "..", "bin", "criteria"), "apply", path, "--state-dir", "/proc/criteria-no/such"], { encoding: "utf8", timeout: 20_000, killSignal: "SIGKILL", env: { ...process.env, CI: "" } });
    expect(r.signal, "still running after 20 s").toBeNull();
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("cannot open the journal /proc/criteria-no/such/journal.db");
  });

  it("a stray file where the state directory keeps its process files: the run goes on, no stack trace (found by a new-user trial)", () => {
    const dir = temp();
    const path = wf(dir, `step "a" {\n  target = adapter.shell.default\n  input { command = "echo hi" }\n  outcome "success" { next = state.done }\n}\n`);
    const state = join(dir, "s");
    expect(cli(["apply", path, "--state-dir", state]).status).toBe(0);
    rmSync(join(state, "processes"), { recursive: true, force: true });
    writeFileSync(join(state, "processes"), "garbage\n");
    const r = cli(["apply", path, "--state-dir", state, "-o", "json"]);
    expect(r.stderr).not.toMatch(/\bat .*criteria\.cjs|ENOTDIR/);
    expect(r.status, r.stderr).toBe(0);
    expect(ndjson(r.stdout).at(-1)).toMatchObject({ event: "exit", code: 0, status: "succeeded" });
  });

  it("resume refuses a --var it would not use and a --workdir that is no directory: exit 2, before anything runs (found by a new-user trial: accepted silently)", () => {
    const dir = temp();
    const path = wf(dir, `variable "name" {\n  type = string\n  default = "x"\n}\nvariable "token" {\n  type = string\n  secret = true\n}\napproval "gate" {\n  approvers = ["ops"]\n  outcome "approved" { next = state.done }\n  outcome "rejected" { next = state.done }\n}\n`);
    // wf's workflow starts at "a": this one starts at its approval.
    writeFileSync(path, readFileSync(path, "utf8").replace('initial_state = "a"', 'initial_state = "gate"'));
    const state = join(dir, "s");
    expect(cli(["apply", path, "--state-dir", state, "--run-id", "r", "--var", "token=t0"], { env: { CI: "true" } }).status).toBe(5);
    const unknown = cli(["resume", "r", "--state-dir", state, "--var", "tokn=t1"], { env: { CI: "true" } });
    expect([unknown.status, unknown.stderr.trim()]).toEqual([2, `criteria: --var tokn: the workflow of run r declares no variable "tokn"; did you mean "token"?`]);
    const plain = cli(["resume", "r", "--state-dir", state, "--var", "name=y"], { env: { CI: "true" } });
    expect([plain.status, plain.stderr.trim()]).toEqual([2, `criteria: --var name: resume takes only secret variables again; "name" was given when the run started and is journaled`]);
    const nowhere = cli(["resume", "r", "--state-dir", state, "--var", "token=t1", "--workdir", join(dir, "nope")], { env: { CI: "true" } });
    expect([nowhere.status, nowhere.stderr.trim()]).toEqual([2, `criteria: --workdir ${join(dir, "nope")}: not a directory (it names where the workflow's files are now)`]);
    // The secret one is taken: the run goes on (still parked at its approval).
    expect(cli(["resume", "r", "--state-dir", state, "--var", "token=t1"], { env: { CI: "true" } }).status).toBe(5);
  });

  it("a long run id is echoed cut, with its length (found by a new-user trial: 5,000 characters echoed whole)", () => {
    const dir = temp();
    const path = wf(dir, `step "a" {\n  target = adapter.shell.default\n  input { command = "true" }\n  outcome "success" { next = state.done }\n}\n`);
    const long = "r".repeat(5000);
    const refused = cli(["apply", path, "--state-dir", join(dir, "s"), "--run-id", long, "-o", "text"]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toBe(`criteria: --run-id "${"r".repeat(60)}… (5000 characters)": use ASCII letters and digits, ".", "_" and "-" (at most 128, starting with a letter or digit)\n`);
    // Quoted once, and "letters" said to be ASCII (found by a new-user trial: ünï was refused as not letters).
    expect(cli(["apply", path, "--state-dir", join(dir, "s"), "--run-id", "a b", "-o", "text"]).stderr).toBe(`criteria: --run-id "a b": use ASCII letters and digits, ".", "_" and "-" (at most 128, starting with a letter or digit)\n`);
    expect(cli(["apply", path, "--state-dir", join(dir, "s"), "-o", "text"]).status).toBe(0);
    for (const args of [["journal", long], ["resume", long], ["signal", long, "go"]]) {
      const r = cli([...args, "--state-dir", join(dir, "s")]);
      expect(r.status, args[0]).toBe(1);
      expect(r.stderr, args[0]).toBe(`criteria: no run ${"r".repeat(60)}… (5000 characters) in ${join(dir, "s")} (criteria runs --state-dir ${join(dir, "s")} lists them)\n`);
    }
    // A space or a control character is quoted, never echoed raw (found by a new-user trial).
    for (const odd of ["gate1 ", "esc\u001b[31mred", "two\nlines"]) {
      const r = cli(["journal", odd, "--state-dir", join(dir, "s")]);
      expect(r.stderr).toBe(`criteria: no run ${JSON.stringify(odd)} in ${join(dir, "s")} (criteria runs --state-dir ${join(dir, "s")} lists them)\n`);
    }
  });

  it("a run id taken by an ended run is refused without 'continue it'; one of an active run names resume with its place (found by a new-user trial)", () => {
    const dir = temp();
    const path = wf(dir, `step "a" {\n  target = adapter.shell.default\n  input { command = "true" }\n  outcome "success" { next = state.done }\n}\n`);
    const state = join(dir, "s");
    expect(cli(["apply", path, "--state-dir", state, "--run-id", "g1", "-o", "text"]).status).toBe(0);
    const again = cli(["apply", path, "--state-dir", state, "--run-id", "g1", "-o", "text"]);
    expect(again.status).toBe(2);
    expect(again.stderr).toBe(`criteria: run g1 already exists and has ended (succeeded); choose another --run-id (criteria journal g1 --state-dir ${state} shows it)\n`);
    expect(cli(["apply", path, "--state-dir", state, "--run-id", "k1", "-o", "text"], { env: { CRITERIA_FAULT_KILL_AFTER_SEQ: "2" } }).signal).toBe("SIGKILL");
    const active = cli(["apply", path, "--state-dir", state, "--run-id", "k1", "-o", "text"]);
    expect(active.status).toBe(2);
    expect(active.stderr).toBe(`criteria: run k1 already exists; continue it with criteria resume k1 --state-dir ${state}, or choose another --run-id\n`);
  });

  it('--state-dir "" is a usage error, not the current directory', () => {
    const dir = temp();
    const path = wf(dir, `step "a" {\n  target = adapter.shell.default\n  input { command = "true" }\n  outcome "success" { next = state.done }\n}\n`);
    const r = cli(["apply", path, "--state-dir", ""], { cwd: dir });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`--state-dir "": name a directory`);
  });

  it("deleting the journal mid-run stops the run: exit 4 and a line saying so, never a silent 0", async () => {
    const dir = temp();
    const path = wf(dir, `step "a" {\n  target = adapter.shell.default\n  input { command = "touch started; while [ ! -e go ]; do sleep 0.05; done" }\n  outcome "success" { next = step.b }\n}\nstep "b" {\n  target = adapter.shell.default\n  input { command = "true" }\n  outcome "success" { next = state.done }\n}\n`);
    const child = start(["apply", path, "--state-dir", join(dir, "s"), "--run-id", "r", "-o", "json"], { cwd: dir });
    let err = "";
    child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    await until(() => existsSync(join(dir, "started")));
    rmSync(join(dir, "s"), { recursive: true, force: true });
    // The step waits for this file, not a fixed time: a loaded machine cannot let the run end first.
    writeFileSync(join(dir, "go"), "");
    const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
    expect(code).toBe(4);
    expect(err).toMatch(/was deleted or replaced while the run was going on/);
  });

  it("binary step output says so (stdout_binary)", async () => {
    const dir = temp();
    const path = wf(dir, `step "a" {\n  target = adapter.shell.default\n  input { command = "printf '\\\\377\\\\376ok'" }\n  outcome "success" { next = state.done }\n}\n`);
    const r = cli(["apply", path, "--state-dir", join(dir, "s"), "--run-id", "r", "-o", "json"]);
    expect(r.status, r.stderr).toBe(0);
    const done = (await entries(join(dir, "s"), "r")).find((e) => e.entry_type === "step.completed");
    expect(done?.payload).toMatchObject({ output: { stdout_binary: true } });
  });

  it("SARIF URIs are percent-encoded", async () => {
    const dir = temp();
    writeFileSync(join(dir, "sp ace.hcl"), `workflow {\n  name = "w"\n  initial_state = "nope"\n  target_state = "done"\n}\nstate "done" { terminal = true }\n`);
    // A relative path as the user typed it, from the file's directory (a real process: a
    // test worker cannot change directory).
    const r = spawnSync(process.execPath, [join(import.meta.dirname, "..", "..", "bin", "criteria"), "validate", "--format", "sarif", "sp ace.hcl"], { cwd: dir, encoding: "utf8" });
    expect(r.stdout).toContain(`"uri": "sp%20ace.hcl"`);
  });
});
