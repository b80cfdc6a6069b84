/**
 * Nested runs (docs/language.md, Composition): one code path for bodies, subworkflows and flows used
 * as agents. The child's terminal state decides the step's outcome (its failure threaded
 * through), child ids are deterministic so a resumed parent finds its children (a
 * completed child is not run again, an interrupted one resumes inside), and nesting
 * depth is capped. Real files, real journals, the real CLI where exit codes matter.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { JournalEntry } from "../../engine/journal/entry.js";
import { SqliteJournal } from "../../engine/journal/sqlite-journal.js";
import { RunInterrupted } from "../../engine/run/runner.js";
import { compileIn, counting, graphIn, project, runIn, runnerFor } from "./helpers.js";

const repo = join(import.meta.dirname, "..", "..");
const bin = join(repo, "bin", "criteria");

const HEADER = (name: string, initial: string, extra = "") => `workflow {\n  name = "${name}"\n  version = "1"\n  initial_state = "${initial}"\n  target_state = "done"\n${extra}}\n`;

/** A parent that calls ./child (whose step `b` ends in `target`) and routes failure to `failed`. */
const parentAndChild = (childEnd: string) => ({
  "main.hcl": `${HEADER("parent", "first")}
adapter "count" "default" {}
subworkflow "child" {
  source   = "./child"
  adapters = [adapter.count.default]
}
step "first" {
  target = adapter.count.default
  outcome "success" { next = step.call }
}
step "call" {
  target = subworkflow.child
  outcome "success" { next = step.last }
  outcome "failure" { next = state.failed }
}
step "last" {
  target = adapter.count.default
  outcome "success" { next = state.done }
}
state "done" { terminal = true }
state "failed" {
  terminal = true
  success  = false
}
`,
  "child/main.hcl": `${HEADER("child", "a", "  expects {\n    adapters = [adapter.count.default]\n  }\n")}
step "a" {
  target = adapter.count.default
  outcome "success" { next = step.b }
}
step "b" {
  target = adapter.count.default
  outcome "success" { next = ${childEnd} }
}
state "done" { terminal = true }
state "broken" {
  terminal = true
  success  = false
}
output "from_child" {
  value = "a and b ran"
}
`,
});

describe("nested runs", () => {
  it("a failure at the bottom of a chain of subworkflows is named once at each level, not repeated per level (a 300-deep chain made a 4 MB journal)", async () => {
    // l0 calls l1 ... calls l5, whose step fails: every level's step names its own child and the deepest failure.
    const depth = 5;
    const files: Record<string, string> = {};
    const path = (i: number) => Array.from({ length: i + 1 }, (_, k) => `l${k}`).join("/");
    for (let i = 0; i < depth; i++) {
      files[`${path(i)}/main.hcl`] = `${HEADER(`l${i}`, "s")}subworkflow "next" { source = "./l${i + 1}" }\nstep "s" {\n  target = subworkflow.next\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n`;
    }
    files[`${path(depth)}/main.hcl`] = `${HEADER(`l${depth}`, "s")}state "broken" {\n  terminal = true\n  success  = false\n}\nadapter "count" "default" {}\nstep "s" {\n  target = adapter.count.default\n  outcome "success" { next = state.broken }\n}\nstate "done" { terminal = true }\n`;
    const dir = project(files);
    const count = counting();
    const { end, entries } = await runIn(dir, "l0/main.hcl", { extra: { adapterFor: count.adapterFor } });
    expect(end.success).toBe(false);
    const all = await entries("run");
    const details = all.filter((e): e is JournalEntry<"step.completed"> => e.entry_type === "step.completed").filter((e) => e.payload.reason === "child_failed").map((e) => [e.run_id, e.payload.detail]);
    const deepest = `run${"/s#1".repeat(depth)}`;
    const leaf = `subworkflow "l${depth}" (run ${deepest}) failed: reached state "broken" (success = false)`;
    expect(details).toEqual(
      Array.from({ length: depth }, (_, k) => depth - 1 - k).map((level) => {
        const run = `run${"/s#1".repeat(level)}`;
        const own = `subworkflow "l${level + 1}" (run ${run}/s#1) failed: `;
        // Each level's step says it has no route for the failure: only its own level's note.
        const note = `; step "s" has no "failure" outcome to route it (declared: success)`;
        return [run, level === depth - 1 ? `${own}reached state "broken" (success = false)${note}` : `${own}${leaf}${note}`];
      }),
    );
  });

  it("a policy stop at the bottom of a chain of subworkflows is passed up as itself, named once at each level (two labels at most, as a failure)", async () => {
    const depth = 5;
    const files: Record<string, string> = {};
    const path = (i: number) => Array.from({ length: i + 1 }, (_, k) => `l${k}`).join("/");
    for (let i = 0; i < depth; i++) {
      const policy = i === 0 ? `policy {\n  max_total_steps = ${depth}\n}\n` : "";
      files[`${path(i)}/main.hcl`] = `${HEADER(`l${i}`, "s")}${policy}subworkflow "next" { source = "./l${i + 1}" }\nstep "s" {\n  target = subworkflow.next\n  outcome "success" { next = state.done }\n  outcome "failure" { next = state.done }\n}\nstate "done" { terminal = true }\n`;
    }
    files[`${path(depth)}/main.hcl`] = `${HEADER(`l${depth}`, "s")}adapter "count" "default" {}\nstep "s" {\n  target = adapter.count.default\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n`;
    const count = counting();
    const { end, entries } = await runIn(project(files), "l0/main.hcl", { extra: { adapterFor: count.adapterFor } });
    expect(end).toMatchObject({ success: false, reason: "policy_exceeded" });
    expect(count.calls).toEqual([]);
    const stops = (await entries("run")).filter((e): e is JournalEntry<"step.completed"> => e.entry_type === "step.completed");
    // The bottom step's own stop, then each level's step, none routed to its failure outcome.
    expect(stops.map((e) => [e.payload.reason, e.payload.outcome])).toEqual(Array.from({ length: depth + 1 }, () => ["policy_exceeded", ""]));
    const root = stops.at(-1)!.payload.detail!;
    expect(root).toBe(`subworkflow "l1" (run run/s#1) failed: subworkflow "l${depth}" (run run${"/s#1".repeat(depth)}) failed: policy max_total_steps = ${depth} exceeded at step "s" (the root workflow's policy: the steps of every run in the tree count toward it)`);
    for (const e of stops) expect(e.payload.detail!.split(" failed: ").length, e.payload.detail).toBeLessThanOrEqual(3);
  });

  it("a child ending in a success = false state fails the step with the child's reason, and the run takes the parent's failure route", async () => {
    const dir = project(parentAndChild("state.broken"));
    const count = counting();
    const { end, entries } = await runIn(dir, "main.hcl", { extra: { adapterFor: count.adapterFor } });
    expect(end).toMatchObject({ success: false, state: "failed", reason: "failure_state" });
    const call = (await entries("run")).find((e): e is JournalEntry<"step.completed"> => e.entry_type === "step.completed" && e.step_id === "call");
    expect(call?.payload).toMatchObject({ outcome: "failure", next: "failed", reason: "child_failed", child_run_ids: ["run/call#1"], child_states: ["broken"] });
    expect(call?.payload.detail).toBe(`subworkflow "child" (run run/call#1) failed: reached state "broken" (success = false)`);
  });

  it("a child's output of the wrong type fails the step naming where that output is written in the child's file (a new-user trial: no place in it)", async () => {
    const dir = project({
      "main.hcl": `workflow "p" {\n  version = "1"\n  initial_state = "call"\n  target_state = "done"\n}\nsubworkflow "kid" {\n  source = "./child"\n}\nstep "call" {\n  target = subworkflow.kid\n  outcome "success" { next = "done" }\n  outcome "failure" { next = "failed" }\n}\nstate "done" { terminal = true }\nstate "failed" {\n  terminal = true\n  success = false\n}\n`,
      "child/main.hcl": `workflow "child" {\n  version = "1"\n  initial_state = "a"\n  target_state = "done"\n}\nadapter "shell" "default" {}\nstep "a" {\n  target = adapter.shell.default\n  input { command = "printf hello" }\n  outcome "success" { next = "done" }\n}\nstate "done" { terminal = true }\noutput "n" {\n  type = number\n  value = steps.a.stdout\n}\n`,
    });
    const { end, entries } = await runIn(dir, "main.hcl");
    expect(end).toMatchObject({ success: false, state: "failed" });
    const call = (await entries("run")).find((e): e is JournalEntry<"step.completed"> => e.entry_type === "step.completed" && e.step_id === "call");
    expect(call?.payload.detail).toBe(`subworkflow "child" (run run/call#1) failed: output "n" (child/main.hcl:15:11): "hello" is not a number (type number)`);
  });

  it("a module ending at return with an output projection: its caller may read the projection's keys (validate agreed with neither the run nor the Go tool's workflow.md; a new-user trial)", async () => {
    const files = parentAndChild("state.done");
    files["child/main.hcl"] = files["child/main.hcl"].replace('outcome "success" { next = state.done }', 'outcome "success" {\n    next   = "return"\n    output = { early = "from the return" }\n  }');
    files["main.hcl"] = files["main.hcl"].replace(/step "last" \{\n  target = adapter.count.default\n/, 'step "last" {\n  target = adapter.count.default\n  input { seen = steps.call.early }\n');
    const dir = project(files);
    expect((await compileIn(dir, "main.hcl")).diagnostics.filter((d) => d.severity === "error").map((d) => d.message)).toEqual([]);
    const count = counting();
    const { end } = await runIn(dir, "main.hcl", { extra: { adapterFor: count.adapterFor } });
    expect(end).toMatchObject({ success: true });
    // A key neither declared nor projected is still refused.
    const wrong = project({ ...files, "main.hcl": files["main.hcl"].replace("steps.call.early", "steps.call.nope") });
    expect((await compileIn(wrong, "main.hcl")).diagnostics.map((d) => d.code)).toContain("unknown_reference");
  });

  it("a module ending at a switch arm's return with an output projection: its caller may read the projection's keys, and the run has them (a trial of the Go tool's docs: the projection was lost)", async () => {
    const files = parentAndChild("switch.pick");
    files["child/main.hcl"] += `switch "pick" {
  match {
    condition = true
    next      = return
    output    = { early = "from the switch" }
  }
  default = state.done
}
`;
    files["main.hcl"] = files["main.hcl"].replace(/step "last" \{\n  target = adapter.count.default\n/, 'step "last" {\n  target = adapter.count.default\n  input { seen = steps.call.early }\n');
    const dir = project(files);
    expect((await compileIn(dir, "main.hcl")).diagnostics.filter((d) => d.severity === "error").map((d) => d.message)).toEqual([]);
    const count = counting();
    const { end, entries } = await runIn(dir, "main.hcl", { extra: { adapterFor: count.adapterFor } });
    expect(end).toMatchObject({ success: true });
    const call = (await entries("run")).find((e): e is JournalEntry<"step.completed"> => e.entry_type === "step.completed" && e.step_id === "call");
    expect(call?.payload.output).toMatchObject({ early: "from the switch" });
    const wrong = project({ ...files, "main.hcl": files["main.hcl"].replace("steps.call.early", "steps.call.nope") });
    expect((await compileIn(wrong, "main.hcl")).diagnostics.map((d) => d.code)).toContain("unknown_reference");
  });

  it("a child ending in failure through the CLI exits 1, with the child's reason in the run's end", () => {
    const dir = project({
      "main.hcl": `${HEADER("parent", "call")}
subworkflow "child" { source = "./child" }
step "call" {
  target = subworkflow.child
  outcome "success" { next = state.done }
  outcome "failure" { next = state.failed }
}
state "done" { terminal = true }
state "failed" {
  terminal = true
  success  = false
}
`,
      "child/main.hcl": `${HEADER("child", "a")}
adapter "shell" "default" {}
step "a" {
  target = adapter.shell.default
  input { command = "exit 3" }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.broken }
}
state "done" { terminal = true }
state "broken" {
  terminal = true
  success  = false
}
`,
    });
    const r = spawnSync(process.execPath, [bin, "apply", join(dir, "main.hcl"), "--state-dir", mkdtempSync(join(tmpdir(), "criteria-nr-")), "-o", "json"], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(1);
    const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as { event: string; step?: string; reason?: string; detail?: string; state?: string });
    expect(lines.find((l) => l.event === "step.completed" && l.step === "call")).toMatchObject({ reason: "child_failed" });
    expect(lines.at(-2)).toMatchObject({ event: "run.completed", state: "failed" });
    expect(lines.at(-1)).toEqual({ event: "exit", code: 1, status: "failed", run_id: expect.any(String) });
  });

  it("resume: a completed child is not run again; an interrupted child resumes inside and its finished steps stay finished", async () => {
    const dir = project(parentAndChild("state.done"));
    const g = await graphIn(dir, "main.hcl");
    const stop = new AbortController();
    let first = true;
    const count = counting((req) => {
      // Ctrl-C while the child's step b runs, the first time.
      if (req.step === "b" && first) {
        first = false;
        stop.abort();
      }
      return { outcome: "success", output: {}, reason: "ok" };
    });
    const a = runnerFor(dir, { adapterFor: count.adapterFor, signal: stop.signal });
    await expect(a.runner.start(g, {}, "r")).rejects.toBeInstanceOf(RunInterrupted);
    expect(count.calls).toEqual(["r:first", "r/call#1:a", "r/call#1:b"]);
    await a.journal.close();
    const b = runnerFor(dir, { adapterFor: count.adapterFor }, a.stateDir);
    const end = await b.runner.resume("r");
    expect(end).toMatchObject({ success: true, state: "done" });
    // first and a are not run again; b, interrupted before its result was confirmed, runs again.
    expect(count.calls).toEqual(["r:first", "r/call#1:a", "r/call#1:b", "r/call#1:b", "r:last"]);
    const call = (await b.entries("r")).find((e) => e.entry_type === "step.completed" && e.step_id === "call");
    expect(call?.payload).toMatchObject({ output: { from_child: "a and b ran" }, child_states: ["done"] });
    // Resuming a finished run runs nothing.
    const c = runnerFor(dir, { adapterFor: count.adapterFor }, a.stateDir);
    await c.runner.resume("r");
    expect(count.calls).toHaveLength(5);
  });

  it("a resumed run counts toward max_total_steps the steps of the child runs it does not walk again, as the run did before its stop (a new-user trial: a resumed while loop over a subworkflow ran two more child runs past the budget)", async () => {
    const dir = project({
      "main.hcl": `${HEADER("p", "loop")}policy {\n  max_total_steps = 20\n}\nadapter "count" "default" {}\nsubworkflow "m" {\n  source   = "./m"\n  adapters = [adapter.count.default]\n}\nstep "loop" {\n  target = subworkflow.m\n  while  = while.index < 3\n  outcome "all_succeeded" { next = step.tail }\n}\nstep "tail" {\n  target     = adapter.count.default\n  while      = true\n  max_visits = 1000\n  outcome "all_succeeded" { next = state.done }\n}\nstate "done" { terminal = true }\n`,
      "m/main.hcl": `${HEADER("m", "s1", "  expects {\n    adapters = [adapter.count.default]\n  }\n")}step "s1" {\n  target = adapter.count.default\n  outcome "success" { next = step.s2 }\n}\nstep "s2" {\n  target = adapter.count.default\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n`,
    });
    const g = await graphIn(dir, "main.hcl");
    /** Runs to the end, stopped once (Ctrl-C) at the `nth` call of step `at` and resumed; the calls made, in order. */
    const stoppedAt = async (at?: { step: string; nth: number }) => {
      const stop = new AbortController();
      let seen = 0;
      const count = counting((req) => {
        if (at && req.step === at.step && ++seen === at.nth) stop.abort();
        return { outcome: "success", output: {}, reason: "ok" };
      });
      const a = runnerFor(dir, { adapterFor: count.adapterFor, signal: stop.signal });
      let end = await a.runner.start(g, {}, "r").catch((e: unknown) => (e instanceof RunInterrupted ? undefined : Promise.reject(e)));
      await a.journal.close();
      if (!end) end = await runnerFor(dir, { adapterFor: count.adapterFor }, a.stateDir).runner.resume("r");
      return { end, calls: count.calls };
    };
    const straight = await stoppedAt();
    // loop (1) + 3 × (an iteration + s1 + s2) = 10; tail (1) + 9 iterations = 20; the 10th is over.
    expect(straight.end).toMatchObject({ success: false, reason: "policy_exceeded" });
    expect(straight.calls).toEqual([...Array.from({ length: 3 }, (_, i) => [`r/loop#1[${i}]:s1`, `r/loop#1[${i}]:s2`]).flat(), ...Array(9).fill("r:tail")]);
    // Stopped in the loop's third child run (its first two recorded), or in the tail (the loop recorded):
    // the same steps, the one stopped run again.
    for (const at of [{ step: "s2", nth: 3 }, { step: "tail", nth: 3 }]) {
      const resumed = await stoppedAt(at);
      expect(resumed.end, `${at.step} #${at.nth}`).toMatchObject({ success: false, reason: "policy_exceeded" });
      const again = at.step === "s2" ? "r/loop#1[2]:s2" : "r:tail";
      expect([...resumed.calls].sort(), `${at.step} #${at.nth}`).toEqual([...straight.calls, again].sort());
    }
  });

  it("a body without outputs killed between its run.completed and its iteration's completion gives the same result on resume", async () => {
    const dir = project({
      "main.hcl": `${HEADER("p", "loop")}
adapter "noop" "default" {}
step "loop" {
  count = 1
  workflow {
    step "x" {
      target = adapter.noop.default
      outcome "success" { next = "_continue" }
      output = { made = "by x" }
    }
  }
  outcome "all_succeeded" { next = state.done }
  outcome "any_failed"    { next = state.done }
}
state "done" { terminal = true }
output "made" { value = steps.loop[0].made }
`.replace(`      outcome "success" { next = "_continue" }\n      output = { made = "by x" }`, `      outcome "success" {\n        next = "_continue"\n        output = { made = "by x" }\n      }`),
    });
    const run = (state: string, env: NodeJS.ProcessEnv = {}) => spawnSync(process.execPath, [bin, "apply", join(dir, "main.hcl"), "--state-dir", state, "--run-id", "k", "-o", "json"], { encoding: "utf8", env: { ...process.env, ...env } });
    const ref = mkdtempSync(join(tmpdir(), "criteria-body-"));
    expect(run(ref).status).toBe(0);
    const j = new SqliteJournal(ref);
    const entries = (await j.read("k")).entries;
    await j.close();
    const childDone = entries.find((e) => e.entry_type === "run.completed" && e.run_id !== "k")!;
    const state = mkdtempSync(join(tmpdir(), "criteria-body-"));
    expect(run(state, { CRITERIA_FAULT_KILL_AFTER_SEQ: String(childDone.seq) }).signal).toBe("SIGKILL");
    const resumed = spawnSync(process.execPath, [bin, "resume", "k", "--state-dir", state, "-o", "json"], { encoding: "utf8" });
    expect(resumed.status, resumed.stderr).toBe(0);
    const j2 = new SqliteJournal(state);
    const end = (await j2.read("k")).entries.find((e) => e.entry_type === "run.completed" && e.run_id === "k");
    await j2.close();
    expect(end?.payload).toMatchObject({ success: true, outputs: { made: "by x" } });
  });

  it("killed between a child run's end and its iteration's record, the resumed loop counts that child's steps toward max_total_steps: the same effects as a run never killed", async () => {
    const dir = project({
      "main.hcl": `${HEADER("p", "loop")}policy {\n  max_total_steps = 12\n}\nvariable "ledger" { type = string }\nadapter "shell" "default" {}\nsubworkflow "m" {\n  source   = "./m"\n  adapters = [adapter.shell.default]\n}\nstep "loop" {\n  target = subworkflow.m\n  while  = while.index < 3\n  input {\n    i      = while.index\n    ledger = "\${var.ledger}"\n  }\n  outcome "all_succeeded" { next = step.tail }\n}\nstep "tail" {\n  target     = adapter.shell.default\n  while      = true\n  max_visits = 100\n  input { command = "echo tail >> ledger" }\n  outcome "all_succeeded" { next = state.done }\n}\nstate "done" { terminal = true }\n`,
      "m/main.hcl": `${HEADER("m", "s1", "  expects {\n    adapters = [adapter.shell.default]\n  }\n")}variable "i" { type = number }\nvariable "ledger" { type = string }\nstep "s1" {\n  target = adapter.shell.default\n  input { command = "echo s1-\${var.i} >> '\${var.ledger}'" }\n  outcome "success" { next = step.s2 }\n}\nstep "s2" {\n  target = adapter.shell.default\n  input { command = "echo s2-\${var.i} >> '\${var.ledger}'" }\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n`,
    });
    const { readFileSync, rmSync } = await import("node:fs");
    const ledger = () => readFileSync(join(dir, "ledger"), "utf8").split("\n").filter(Boolean);
    const run = (state: string, env: NodeJS.ProcessEnv = {}) => spawnSync(process.execPath, [bin, "apply", join(dir, "main.hcl"), "--state-dir", state, "--run-id", "k", "--var", `ledger=${join(dir, "ledger")}`], { encoding: "utf8", env: { ...process.env, ...env } });
    const ref = mkdtempSync(join(tmpdir(), "criteria-budget-"));
    expect(run(ref).status).toBe(1);
    // loop (1) + 3 × (an iteration + s1 + s2) = 10; tail (1) + 1 iteration = 12.
    const expected = ledger();
    expect(expected).toEqual(["s1-0", "s2-0", "s1-1", "s2-1", "s1-2", "s2-2", "tail"]);
    const j = new SqliteJournal(ref);
    const secondChild = (await j.read("k")).entries.filter((e) => e.entry_type === "run.completed" && e.run_id !== "k")[1];
    await j.close();
    rmSync(join(dir, "ledger"));
    const state = mkdtempSync(join(tmpdir(), "criteria-budget-"));
    expect(run(state, { CRITERIA_FAULT_KILL_AFTER_SEQ: String(secondChild.seq) }).signal).toBe("SIGKILL");
    const resumed = spawnSync(process.execPath, [bin, "resume", "k", "--state-dir", state], { encoding: "utf8" });
    expect(resumed.status, resumed.stderr).toBe(1);
    expect(resumed.stderr + resumed.stdout).toContain("policy_exceeded");
    expect(ledger()).toEqual(expected);
  });

  it("limits are the run tree's: a called module's policy is a warning when its caller is validated, and max_total_steps met in a child says the root's counts every run (a new-user trial: both silent)", async () => {
    const dir = project({
      "main.hcl": `${HEADER("parent", "a")}policy {\n  max_total_steps = 3\n}\nsubworkflow "m" { source = "./m" }\nstep "a" {\n  target = subworkflow.m\n  outcome "success" { next = state.done }\n  outcome "failure" { next = state.done }\n}\nstate "done" { terminal = true }\n`,
      "m/main.hcl": `${HEADER("m", "s1")}policy {\n  max_total_steps = 50\n}\nadapter "count" "default" {}\nstep "s1" {\n  target = adapter.count.default\n  outcome "success" { next = step.s2 }\n}\nstep "s2" {\n  target = adapter.count.default\n  outcome "success" { next = step.s3 }\n}\nstep "s3" {\n  target = adapter.count.default\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n`,
    });
    const caller = await compileIn(dir, "main.hcl");
    const policyOf = (c: Awaited<ReturnType<typeof compileIn>>) => c.diagnostics.filter((d) => d.code === "module_policy_ignored").map((d) => `${d.severity} ${d.range.file}:${d.range.start.line}:${d.range.start.column}`);
    expect(policyOf(caller)).toEqual(["warning m/main.hcl:7:1"]);
    expect(policyOf(await compileIn(dir, "m/main.hcl"))).toEqual([]);
    const count = counting();
    const { entries } = await runIn(dir, "main.hcl", { extra: { adapterFor: count.adapterFor } });
    // The parent's step and the child's first two: the third is the fourth of the tree.
    const stopped = (await entries("run")).filter((e): e is JournalEntry<"step.completed"> => e.entry_type === "step.completed").find((e) => e.payload.reason === "policy_exceeded");
    expect(stopped?.payload.detail).toBe(`policy max_total_steps = 3 exceeded at step "s3" (the root workflow's policy: the steps of every run in the tree count toward it)`);
  });

  it("a child run's policy stop is the tree's: its calling step takes no outcome (not even failure) and the run fails policy_exceeded; a for_each starts no item after it (a new-user trial: the run succeeded, exit 0)", async () => {
    const chain = (n: number) =>
      `${HEADER("m", "s1")}adapter "count" "default" {}\n` +
      Array.from({ length: n }, (_, i) => `step "s${i + 1}" {\n  target = adapter.count.default\n  outcome "success" { next = ${i + 1 < n ? `step.s${i + 2}` : "state.done"} }\n}\n`).join("") +
      `state "done" { terminal = true }\n`;
    const dir = project({
      "main.hcl": `${HEADER("parent", "c")}policy {\n  max_total_steps = 5\n}\nsubworkflow "m" { source = "./m" }\nstep "c" {\n  target = subworkflow.m\n  outcome "success" { next = state.done }\n  outcome "failure" { next = state.done }\n}\nstate "done" { terminal = true }\n`,
      "each.hcl": `${HEADER("each", "each")}policy {\n  max_total_steps = 5\n}\nadapter "count" "default" {}\nstep "each" {\n  for_each = range(4)\n  workflow {\n    step "w1" {\n      target = adapter.count.default\n      outcome "success" { next = step.w2 }\n    }\n    step "w2" {\n      target = adapter.count.default\n      outcome "success" { next = state.ok }\n    }\n    state "ok" { terminal = true }\n  }\n  outcome "all_succeeded" { next = state.done }\n  outcome "any_failed" { next = state.done }\n}\nstate "done" { terminal = true }\n`,
      "m/main.hcl": chain(8),
    });
    const stepEnd = async (r: Awaited<ReturnType<typeof runIn>>, step: string) => (await r.entries("run")).find((e): e is JournalEntry<"step.completed"> => e.entry_type === "step.completed" && e.run_id === "run" && e.step_id === step)?.payload;
    const called = await runIn(dir, "main.hcl", { extra: { adapterFor: counting().adapterFor } });
    expect(called.end).toMatchObject({ success: false, reason: "policy_exceeded" });
    expect(await stepEnd(called, "c")).toMatchObject({ outcome: "", next: "", reason: "policy_exceeded" });
    expect((await stepEnd(called, "c"))?.detail).toContain(`policy max_total_steps = 5 exceeded at step "s5"`);
    const count = counting();
    const looped = await runIn(dir, "each.hcl", { extra: { adapterFor: count.adapterFor } });
    expect(looped.end).toMatchObject({ success: false, reason: "policy_exceeded" });
    expect(await stepEnd(looped, "each")).toMatchObject({ outcome: "", next: "", reason: "policy_exceeded" });
    // The step and two items' two steps fit the budget of 5; the third item's first step is the sixth visit.
    expect(count.calls.length).toBe(4);
    const items = (await looped.entries("run")).filter((e): e is JournalEntry<"iteration.completed"> => e.entry_type === "iteration.completed");
    expect(items.map((e) => e.payload.reason)).toEqual(["ok", "ok", "policy_exceeded"]);
    expect(items[2].payload.detail).toContain(`policy max_total_steps = 5 exceeded at step "w1"`);
  });

  it("nesting deeper than policy max_depth fails the step at run time, naming the chain", async () => {
    const dir = project(parentAndChild("state.done"));
    const g = await graphIn(dir, "main.hcl");
    g.policy.max_depth = 0; // a graph compiled elsewhere, or journaled before a policy change
    const count = counting();
    const r = runnerFor(dir, { adapterFor: count.adapterFor });
    const end = await r.runner.start(g, {}, "d");
    expect(end.success).toBe(false);
    const call = (await r.entries("d")).find((e): e is JournalEntry<"step.completed"> => e.entry_type === "step.completed" && e.step_id === "call");
    expect(call?.payload).toMatchObject({ reason: "policy_exceeded", detail: "runs would nest 1 deep, past policy max_depth = 0: parent > child" });
    expect(count.calls).toEqual(["d:first"]);
  });

  it("a module's relative paths resolve in its own directory: file() and its shell steps' working directory", async () => {
    const dir = project({
      "main.hcl": `${HEADER("p", "call")}
subworkflow "child" { source = "./child" }
step "call" {
  target = subworkflow.child
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
}
state "done" { terminal = true }
`,
      "prompt.txt": "the parent's prompt",
      "child/prompt.txt": "the child's prompt",
      "child/main.hcl": `${HEADER("child", "a")}
adapter "shell" "default" {}
step "a" {
  target = adapter.shell.default
  input { command = "cat prompt.txt" }
  outcome "success" { next = state.done }
}
state "done" { terminal = true }
output "read" { value = file("prompt.txt") }
output "ran" { value = steps.a.stdout }
`,
    });
    const { end, entries } = await runIn(dir, "main.hcl");
    expect(end.success, end.detail).toBe(true);
    const call = (await entries("run")).find((e) => e.entry_type === "step.completed" && e.step_id === "call");
    expect(call?.payload).toMatchObject({ output: { read: "the child's prompt", ran: "the child's prompt" } });
  });

  it("child run ids are deterministic: parent run, step, visit and item", async () => {
    const dir = project({
      "main.hcl": `${HEADER("p", "call")}
subworkflow "child" { source = "./child" }
step "call" {
  target = subworkflow.child
  count  = 2
  input { n = each._idx }
  outcome "all_succeeded" { next = state.done }
  outcome "any_failed"    { next = state.done }
}
state "done" { terminal = true }
`,
      "child/main.hcl": `${HEADER("child", "a")}
variable "n" { type = number }
adapter "noop" "default" {}
step "a" {
  target = adapter.noop.default
  outcome "success" { next = state.done }
}
state "done" { terminal = true }
`,
    });
    const { entries, journal } = await runIn(dir, "main.hcl", { runId: "ids" });
    const spawned = (await entries("ids")).filter((e): e is JournalEntry<"run.spawned"> => e.entry_type === "run.spawned");
    expect(spawned.map((e) => [e.run_id, e.payload.parent_step_id, e.payload.iteration, e.payload.inputs])).toEqual([
      ["ids", undefined, undefined, {}],
      ["ids/call#1[0]", "call", 0, { n: 0 }],
      ["ids/call#1[1]", "call", 1, { n: 1 }],
    ]);
    expect((await journal.runs({ roots: true })).map((r) => r.run_id)).toEqual(["ids"]);
    expect((await journal.runs({ roots: false })).map((r) => r.run_id).sort()).toEqual(["ids", "ids/call#1[0]", "ids/call#1[1]"]);
  });

  it("a workflow_file body behaves as an inline body: it sees the enclosing agents and variables (docs/language.md, Composition)", async () => {
    const dir = project({
      "main.hcl": `workflow "agent_in_body" {
  version       = "1"
  initial_state = "loop"
  target_state  = "done"
}
variable "greeting" {
  type    = "string"
  default = "hello"
}
agent "executor" {
  adapter = "count"
}
step "loop" {
  count         = 2
  workflow_file = "./body.hcl"
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed"    { next = "done" }
}
state "done" { terminal = true }
`,
      "body.hcl": `step "execute" {
  agent = "executor"
  input { prompt = "\${var.greeting} \${each._idx}" }
  outcome "success" { transition_to = "_continue" }
  outcome "failure" { transition_to = "_continue" }
}
`,
    });
    const count = counting((req) => ({ outcome: "success", output: { said: String(req.input.prompt) }, reason: "ok" }));
    const { end, entries } = await runIn(dir, "main.hcl", { extra: { adapterFor: count.adapterFor } });
    expect(end.success, end.detail).toBe(true);
    expect(count.opened).toEqual(["agent.executor@run"]);
    const loop = (await entries("run")).find((e) => e.entry_type === "step.completed" && e.step_id === "loop");
    expect(loop?.payload).toMatchObject({ output: [{ said: "hello 0" }, { said: "hello 1" }] });
  });

  it("a step's timeout bounds the child run it spawns: the child is stopped and journaled as timed out (found by a new-user trial: it was ignored)", async () => {
    const dir = project({
      "main.hcl": `${HEADER("p", "ask", '  use = ["./flows/slow.hcl"]\n')}
step "ask" {
  target  = agent.slow
  timeout = "1s"
  input { task = "t" }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.failed }
}
state "done" { terminal = true }
state "failed" {
  terminal = true
  success  = false
}
`,
      "flows/slow.hcl": `${HEADER("slow", "work")}
adapter "shell" "default" {}
step "work" {
  target = adapter.shell.default
  input { command = "sleep 5; echo finished > done.txt" }
  outcome "success" { next = state.done }
}
state "done" { terminal = true }
`,
    });
    const state = mkdtempSync(join(tmpdir(), "criteria-tmo-"));
    const t0 = Date.now();
    const r = spawnSync(process.execPath, [bin, "apply", join(dir, "main.hcl"), "--state-dir", state, "--run-id", "t", "-o", "json"], { encoding: "utf8" });
    expect(Date.now() - t0).toBeLessThan(4500); // not the 5 s of the child's step (a bound, not a timing assertion)
    expect(r.status, r.stderr).toBe(1);
    const j = new SqliteJournal(state);
    const entries = (await j.read("t")).entries;
    await j.close();
    expect(entries.find((e) => e.entry_type === "run.completed" && e.run_id === "t/ask#1")?.payload).toMatchObject({ success: false, reason: "timeout" });
    expect(entries.find((e) => e.entry_type === "step.completed" && e.step_id === "ask")?.payload).toMatchObject({ outcome: "failure", next: "failed", reason: "timeout" });
    expect(existsSync(join(dir, "flows", "done.txt"))).toBe(false);
  });

  it("a failed module gives its caller the outputs it can, never its internal steps' outputs (found by a new-user trial)", async () => {
    const dir = project({
      "main.hcl": `${HEADER("p", "a")}
subworkflow "child" { source = "./child" }
adapter "noop" "default" {}
step "a" {
  target = subworkflow.child
  input { n = 2 }
  outcome "success" { next = state.done }
  outcome "failure" { next = step.after }
}
step "after" {
  target = adapter.noop.default
  input { sq = steps.a.sq }
  outcome "success" { next = state.failed }
}
state "done" { terminal = true }
state "failed" {
  terminal = true
  success  = false
}
`,
      "child/main.hcl": `${HEADER("child", "s")}
variable "n" { type = number }
adapter "shell" "default" {}
step "s" {
  target = adapter.shell.default
  input { command = "echo internal; test \${var.n} -ne 2" }
  outcome "success" { next = step.never }
  outcome "failure" { next = state.bad }
}
state "done" { terminal = true }
state "bad" {
  terminal = true
  success  = false
}
output "sq" { value = var.n * var.n }
output "said" { value = steps.never.stdout }
step "never" {
  target = adapter.shell.default
  input { command = "true" }
  outcome "success" { next = state.done }
}
`,
    });
    const { entries } = await runIn(dir, "main.hcl");
    const a = (await entries("run")).find((e) => e.entry_type === "step.completed" && e.step_id === "a");
    expect(a?.payload).toMatchObject({ outcome: "failure", reason: "child_failed", output: { sq: 4 } });
    expect((a?.payload as { output: Record<string, unknown> }).output).toEqual({ sq: 4 });
    const after = (await entries("run")).find((e) => e.entry_type === "step.completed" && e.step_id === "after");
    expect(after?.payload).toMatchObject({ outcome: "success", reason: "ok" });
  });

  it("criteria journal shows a nested run's own entries by its id (found by a new-user trial: refused)", async () => {
    const dir = project({ "main.hcl": `${HEADER("p", "call")}
subworkflow "child" { source = "./child" }
step "call" {
  target = subworkflow.child
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
}
state "done" { terminal = true }
`, "child/main.hcl": `${HEADER("child", "a")}
adapter "noop" "default" {}
step "a" {
  target = adapter.noop.default
  outcome "success" { next = state.done }
}
state "done" { terminal = true }
` });
    const state = mkdtempSync(join(tmpdir(), "criteria-jn-"));
    expect(spawnSync(process.execPath, [bin, "apply", join(dir, "main.hcl"), "--state-dir", state, "--run-id", "n", "-o", "json"]).status).toBe(0);
    const r = spawnSync(process.execPath, [bin, "journal", "n/call#1", "--state-dir", state], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("run.spawned");
    expect(r.stdout).toContain("call#1 › a");
    expect(r.stdout).not.toMatch(/step\.completed\s+call\s/);
  });
});
