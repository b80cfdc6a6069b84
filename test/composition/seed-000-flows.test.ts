/**
 * Seed 000 (flows used as agents, `use`), acceptance A1–A7, on real files: the
 * examples/flow_as_agent project (chief uses reviewer and triage; both use style and
 * triage uses the reviewer too: the diamond), copies of it damaged on purpose, a real
 * CLI process and a real journal.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main, type Io } from "../../cli.js";
import { SqliteJournal } from "../../engine/journal/sqlite-journal.js";
import type { JournalEntry } from "../../engine/journal/entry.js";
import { codes, compileIn, graphIn, project, runnerFor } from "./helpers.js";

const repo = join(import.meta.dirname, "..", "..");
const example = join(repo, "examples", "flow_as_agent");
const bin = join(repo, "bin", "criteria");

/** A fresh copy of the example, to damage. */
function copy(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "criteria-flows-")));
  cpSync(example, dir, { recursive: true });
  return dir;
}

async function cli(argv: string[], cwd = repo): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const io: Io = { out: (s) => void (out += s), err: (s) => void (err += s), color: false, isTTY: false, env: {} };
  const prev = process.cwd();
  // Only when needed: a worker thread (the mutation run's) cannot change directory.
  if (prev !== cwd) process.chdir(cwd);
  try {
    return { code: await main(argv, io), out, err };
  } finally {
    if (prev !== cwd) process.chdir(prev);
  }
}

describe("docs/language.md, Composition: flows used as agents", () => {
  it("A1: validate chief.hcl prints the resolved use graph and is ok", async () => {
    const r = await cli(["validate", "--verbose", "examples/flow_as_agent/chief.hcl"]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain(`use -> examples/flow_as_agent/flows/reviewer.hcl (workflow "reviewer", identity "team-reviewer")`);
    expect(r.out).toMatch(/use -> examples\/flow_as_agent\/flows\/style\.hcl \(workflow "style"\)/);
    expect(r.out).toContain("examples/flow_as_agent/chief.hcl: ok");
    const json = await cli(["validate", "--format", "json", "examples/flow_as_agent/chief.hcl"]);
    const report = JSON.parse(json.out) as { valid: boolean; use_graph: { modules: { path: string }[]; edges: { from: string; to: string; kind: string }[] }[] };
    expect(report.valid).toBe(true);
    const g = report.use_graph[0];
    expect(g.modules.map((m) => m.path)).toEqual(["examples/flow_as_agent/chief.hcl", "examples/flow_as_agent/flows/reviewer.hcl", "examples/flow_as_agent/flows/style.hcl", "examples/flow_as_agent/flows/triage.hcl"]);
    expect(g.edges.map((e) => `${e.from.split("/").pop()} -${e.kind}-> ${e.to.split("/").pop()}`)).toEqual([
      "chief.hcl -use-> reviewer.hcl",
      "chief.hcl -use-> triage.hcl",
      "reviewer.hcl -use-> style.hcl",
      "triage.hcl -use-> reviewer.hcl",
      "triage.hcl -use-> style.hcl",
    ]);
  });

  it("A2: apply chief.hcl --input journals a nested run with the reviewer's identity, named by the parent step", async () => {
    const state = mkdtempSync(join(tmpdir(), "criteria-a2-"));
    const r = spawnSync(process.execPath, [bin, "apply", join(example, "chief.hcl"), "--input", '{"task": "add retries to the http client"}', "--state-dir", state, "--run-id", "a2", "-o", "json"], { encoding: "utf8" });
    expect(r.status, r.stderr + r.stdout).toBe(0);
    const j = new SqliteJournal(state);
    try {
      const entries = (await j.read("a2")).entries;
      const spawned = entries.filter((e): e is JournalEntry<"run.spawned"> => e.entry_type === "run.spawned" && e.run_id === "a2/review#1");
      expect(spawned).toHaveLength(1);
      expect(spawned[0].payload).toMatchObject({ workflow: "reviewer", identity: "team-reviewer", parent_run_id: "a2", parent_step_id: "review", call: "flow", input: { task: "add retries to the http client (triaged: high)" } });
      const done = entries.find((e): e is JournalEntry<"step.completed"> => e.entry_type === "step.completed" && e.run_id === "a2" && e.step_id === "review");
      expect(done?.payload).toMatchObject({ outcome: "success", child_run_ids: ["a2/review#1"], child_states: ["done"], output: { verdict: "approved: tests cover the change" } });
      expect((await j.runs({ roots: false })).find((x) => x.run_id === "a2/review#1")?.identity).toBe("team-reviewer");
    } finally {
      await j.close();
    }
  });

  it("A3: the reviewer's memory { script = true } journals memory.injected consumed by the child's first step; a later run recalls it; resume re-uses it", async () => {
    const state = mkdtempSync(join(tmpdir(), "criteria-a3-"));
    const g = await graphIn(repo, "examples/flow_as_agent/chief.hcl");
    const calls: string[] = [];
    const first = runnerFor(example, {}, state);
    await first.runner.start(g, {}, "m1", { task: "add retries" });
    const mem = (await first.entries("m1")).filter((e): e is JournalEntry<"memory.injected"> => e.entry_type === "memory.injected");
    // One per reviewer run (triage's second opinion and the chief's review), never the parent's.
    expect(mem.map((e) => [e.run_id, e.payload.consuming_step_id])).toEqual([
      ["m1/triage#1/second_opinion#1", "style"],
      ["m1/review#1", "style"],
    ]);
    expect(mem.every((e) => e.payload.identity === "team-reviewer")).toBe(true);
    // The child's first step is the reviewer's, not the chief's (its first step is "triage").
    expect(g.initial_state).toBe("triage");
    expect(g.modules!["flows/reviewer.hcl"].initial_state).toBe("style");
    await first.journal.close();
    // A second run recalls what the first one's reviewer runs returned (FTS5 over the journal).
    const second = runnerFor(example, { memory: { recall: (...a) => (calls.push(a[0]), second.journal.recall(...a)) } }, state);
    await second.runner.start(g, {}, "m2", { task: "add retries again" });
    const recalled = (await second.entries("m2")).filter((e): e is JournalEntry<"memory.injected"> => e.entry_type === "memory.injected");
    expect(recalled[0].payload.items.map((i) => i.run_id)).toContain("m1/review#1");
    expect(recalled[0].payload.items[0].text).toContain("verdict: approved: tests cover the change");
    expect(recalled[0].payload.bytes).toBeLessThanOrEqual(recalled[0].payload.budget_bytes);
    expect(calls).toEqual(["team-reviewer", "team-reviewer"]);
    await second.journal.close();
  });

  it("A3: a resumed run re-uses the journaled memory pack and never recalls again", async () => {
    const dir = project({
      "flow.hcl": `workflow {
  name = "mem"
  version = "1"
  initial_state = "look"
  target_state = "done"
  identity = "remembering"
  memory { script = true }
}
adapter "shell" "default" {}
step "look" {
  target = adapter.shell.default
  input { command = "echo '\${memory.text}' >/dev/null; kill -9 $PPID" }
  outcome "success" { next = state.done }
}
state "done" { terminal = true }
`,
    });
    // The step kills the criteria process running it: the run stops right after the pack.
    const state = mkdtempSync(join(tmpdir(), "criteria-a3r-"));
    const killed = spawnSync(process.execPath, [bin, "apply", join(dir, "flow.hcl"), "--state-dir", state, "--run-id", "r", "-o", "json"], { encoding: "utf8" });
    expect(killed.signal).toBe("SIGKILL");
    const j = new SqliteJournal(state);
    const before = (await j.read("r")).entries.filter((e) => e.entry_type === "memory.injected");
    await j.close();
    expect(before).toHaveLength(1);
    // Resume with a provider that fails the test if asked (and a step that no longer kills).
    const r = runnerFor(dir, { memory: { recall: () => { throw new Error("recalled again on resume"); } }, adapterFor: (t) => ({ type: t, effectful: true, open: async () => ({ execute: async () => ({ outcome: "success", output: {}, reason: "ok" }), close: async () => {} }) }) }, state);
    const end = await r.runner.resume("r");
    expect(end.success, end.detail).toBe(true);
    expect((await r.entries("r")).filter((e) => e.entry_type === "memory.injected")).toHaveLength(1);
    await r.journal.close();
  });

  it("a flow run alone: --input is checked before a run starts (found by a new-user trial: runs were journaled, then failed)", async () => {
    // The chief reads input.task: without it, a usage error naming the key.
    const none = await cli(["apply", "examples/flow_as_agent/chief.hcl", "--state-dir", mkdtempSync(join(tmpdir(), "criteria-in-"))]);
    expect(none.code).toBe(2);
    expect(none.err).toContain(`workflow "chief" reads input.task: pass --input '{"task":"..."}'`);
    // A key that binds a variable must fit its type, as --var does.
    const typed = await cli(["apply", "examples/subworkflow_with_adapter", "--input", '{"files": "notalist"}', "--state-dir", mkdtempSync(join(tmpdir(), "criteria-in-"))]);
    expect(typed.code).toBe(2);
    expect(typed.err).toContain(`--input files: variable "files": "notalist" is not a list`);
    const bad = await cli(["apply", "examples/flow_as_agent/chief.hcl", "--input", "[1]"]);
    expect(bad.code).toBe(2);
    const missing = await cli(["apply", "examples/flow_as_agent/chief.hcl", "--input", "@no/such/file.json"]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain("--input @no/such/file.json: no such file");
    // A key the flow neither reads nor declares is refused, with did-you-mean (a new-user trial: taken silently).
    const extra = await cli(["apply", "examples/flow_as_agent/chief.hcl", "--input", '{"task": "t", "tsk": "x"}', "--state-dir", mkdtempSync(join(tmpdir(), "criteria-in-"))]);
    expect(extra.code).toBe(2);
    expect(extra.err).toContain(`--input "tsk": workflow "chief" neither reads input.tsk nor declares variable "tsk"; did you mean "task"?`);
  });

  it("an input key the flow neither reads nor declares is a warning with did-you-mean, unless the flow reads its input whole (a new-user trial: taken silently)", async () => {
    const flow = (reads: string) => `workflow {\n  name = "f"\n  version = "1"\n  initial_state = "s"\n  target_state = "done"\n}\nvariable "mode" {\n  type    = string\n  default = "m"\n}\nadapter "noop" "own" {}\nstep "s" {\n  target = adapter.noop.own\n  input { said = ${reads} }\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n`;
    const caller = `workflow {\n  name = "c"\n  version = "1"\n  initial_state = "a"\n  target_state = "done"\n  use = ["./flows/f.hcl"]\n}\nstep "a" {\n  target = agent.f\n  input {\n    task = "t"\n    mode = "m"\n    tsk  = "x"\n  }\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n`;
    const named = project({ "main.hcl": caller, "flows/f.hcl": flow("input.task") });
    const got = await compileIn(named, "main.hcl");
    expect(got.diagnostics.map((d) => `${d.code} ${d.range.start.line}:${d.range.start.column} ${d.hint}`)).toEqual(['unread_input 13:5 did you mean "task"?']);
    for (const whole of ['lookup(input, "task", "")', "jsonencode(input)"]) {
      const dir = project({ "main.hcl": caller, "flows/f.hcl": flow(whole) });
      expect(codes(await compileIn(dir, "main.hcl")), whole).toEqual([]);
    }
  });

  it("A4: removing the reviewer flow makes validate refuse with use_not_found", async () => {
    const dir = copy();
    rmSync(join(dir, "flows", "reviewer.hcl"));
    const c = await compileIn(dir, "chief.hcl");
    expect(codes(c)).toEqual(["use_not_found@chief.hcl:11:20", "use_not_found@flows/triage.hcl:7:20"]);
  });

  it("A5: a reviewer flow that does not parse makes validate refuse with use_invalid, its own first problem under it", async () => {
    const dir = copy();
    writeFileSync(join(dir, "flows", "reviewer.hcl"), 'workflow {\n  name = "reviewer"\n\nstep "look" {\n');
    const c = await compileIn(dir, "chief.hcl");
    const invalid = c.diagnostics.filter((d) => d.code === "use_invalid");
    expect(invalid.map((d) => `${d.range.file}:${d.range.start.line}`)).toEqual(["chief.hcl:11", "flows/triage.hcl:7"]);
    expect(invalid[0].related?.[0].message).toMatch(/^its first problem: /);
    expect(invalid[0].related?.[0].range.file).toBe("flows/reviewer.hcl");
    expect(c.diagnostics.some((d) => d.code === "syntax_error" && d.range.file === "flows/reviewer.hcl")).toBe(true);
    // Not a workflow at all: a file with no header.
    writeFileSync(join(dir, "flows", "reviewer.hcl"), 'state "done" { terminal = true }\n');
    const c2 = await compileIn(dir, "chief.hcl");
    expect(c2.diagnostics.filter((d) => d.code === "use_invalid").map((d) => d.range.file)).toEqual(["chief.hcl", "flows/triage.hcl"]);
  });

  it("A6: an agent bound to a flow the header's use does not declare is refused with use_undeclared (statically: bindings are declarations)", async () => {
    const dir = copy();
    const chief = readFileSync(join(dir, "chief.hcl"), "utf8");
    writeFileSync(join(dir, "chief.hcl"), `${chief}\nagent "stylist" {\n  use = "./flows/style.hcl"\n}\n`);
    const c = await compileIn(dir, "chief.hcl");
    const d = c.diagnostics.find((x) => x.code === "use_undeclared");
    expect(d?.range.file).toBe("chief.hcl");
    expect(d?.hint).toBe(`add it: use = ["./flows/reviewer.hcl", "./flows/triage.hcl", "./flows/style.hcl"]`);
  });

  it("A7: the diamond (chief uses reviewer and triage, both use style, triage uses reviewer) reads each file once", async () => {
    const c = await compileIn(example, "chief.hcl");
    expect(c.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const reads = [...(c.reads ?? new Map()).entries()].map(([f, n]) => [f.slice(example.length + 1), n]).sort();
    expect(reads).toEqual([
      ["chief.hcl", 1],
      ["flows/reviewer.hcl", 1],
      ["flows/style.hcl", 1],
      ["flows/triage.hcl", 1],
    ]);
    // Each module's graph is in the root graph once, however many call sites.
    expect(Object.keys(c.graph!.modules!).sort()).toEqual(["flows/reviewer.hcl", "flows/style.hcl", "flows/triage.hcl"]);
  });

  it("A7: a cycle (X uses Y, Y uses X) is refused with use_cycle at load, naming the chain", async () => {
    const dir = project({
      "x.hcl": `workflow {\n  name = "x"\n  initial_state = "a"\n  target_state = "done"\n  use = ["./y.hcl"]\n}\nstep "a" {\n  target = agent.y\n  input { task = "t" }\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n`,
      "y.hcl": `workflow {\n  name = "y"\n  initial_state = "a"\n  target_state = "done"\n  use = ["./x.hcl"]\n}\nstep "a" {\n  target = agent.x\n  input { task = "t" }\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n`,
    });
    const c = await compileIn(dir, "x.hcl");
    expect(codes(c)).toEqual(["use_cycle@y.hcl:5:10"]);
    expect(c.diagnostics[0].message).toBe(`use "./x.hcl" closes a cycle: x.hcl -> y.hcl -> x.hcl`);
  });
});
