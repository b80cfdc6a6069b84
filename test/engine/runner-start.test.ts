/**
 * engine/run/runner.ts, in process: how a run starts and is found again — refusals before
 * anything runs (a module that expects its caller's adapters, an adapter no one serves), a
 * lease taken by force and said, the workflow's directory found again on resume (moved with
 * `--workdir`, refused when gone), what `run.spawned` keeps for a resume (the `--input`
 * object, a secret variable's default in the graph, the variables), the namespaces a run's
 * expressions see (`path`, locals inherited by bodies), and a secret too short to mask said
 * once. What Stryker's pass over runner.ts lines 520–760 left alive (47% killed): these paths
 * were reached only from the CLI's child processes.
 */
import { mkdirSync, mkdtempSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { compile } from "../../compiler/index.js";
import { adapterFor } from "../../engine/adapters/registry.js";
import { RunLockedError } from "../../engine/journal/errors.js";
import { SqliteJournal } from "../../engine/journal/sqlite-journal.js";
import type { RunEvent } from "../../engine/run/events.js";
import { RunParked, Runner, RunRefused, type RunnerOptions } from "../../engine/run/runner.js";
import { deliverSignal } from "../../engine/run/signals.js";
import { graphOf } from "./graph-of.js";

const HEAD = (initial: string) => `workflow "t" {\n  version = "1"\n  initial_state = "${initial}"\n  target_state = "done"\n}\nstate "done" { terminal = true }\n`;
const GATE = `wait "gate" {\n  signal = "go"\n  next = "done"\n}\n`;

const journals: SqliteJournal[] = [];
afterEach(async () => {
  for (const j of journals.splice(0)) await j.close();
});

function setup(extra: Partial<RunnerOptions> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "criteria-runner-start-"));
  const journal = new SqliteJournal(join(dir, "state"));
  journals.push(journal);
  const events: RunEvent[] = [];
  const runner = (more: Partial<RunnerOptions> = {}) => new Runner({ journal, adapterFor, baseDir: dir, events: (e) => events.push(e), pollMs: 5, ...extra, ...more });
  return { dir, journal, events, runner };
}

describe("refused before anything runs", () => {
  it("a module that expects its caller's adapters, and an adapter nobody serves, with nothing journaled", async () => {
    const s = setup();
    const child = await graphOf(`workflow "child" {\n  version = "1"\n  initial_state = "a"\n  target_state = "done"\n  expects {\n    adapters = [adapter.noop.default]\n  }\n}\nstate "done" { terminal = true }\nstep "a" {\n  target = adapter.noop.default\n  outcome "success" { next = "done" }\n}\n`);
    const e = await s.runner().start(child, {}, "c").catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RunRefused);
    expect((e as Error).message).toBe('workflow "child" expects adapter.noop.default from its caller; run it from a workflow that passes them (subworkflow { adapters = [...] agents = [...] }, or for a flow used as an agent, agent { use = "..." adapters = [...] })');
    const plugin = await graphOf(`${HEAD("a")}adapter "mystery" "default" {}\nstep "a" {\n  target = adapter.mystery.default\n  outcome "success" { next = "done" }\n}\n`);
    const refused = await s.runner({ adapterExists: () => false }).start(plugin, {}, "m").catch((x: unknown) => x);
    expect(refused).toBeInstanceOf(RunRefused);
    expect((refused as Error).message).toMatch(/^the run cannot start:\n {2}\S+: adapter type "mystery" is neither built in nor installed: no criteria-adapter-mystery in \$CRITERIA_PLUGINS, /);
    expect(await s.journal.run("c")).toBeUndefined();
    expect(await s.journal.run("m")).toBeUndefined();
  });
});

describe("leases", () => {
  it("a live holder's lease is refused, or taken with force and said in a warning", async () => {
    const s = setup({ park: true });
    await expect(s.runner().start(await graphOf(`${HEAD("gate")}${GATE}`), {}, "r")).rejects.toBeInstanceOf(RunParked);
    // Another journal (another owner) of this live process holds it.
    const other = new SqliteJournal(s.journal.stateDir);
    journals.push(other);
    await other.lock("r");
    await expect(s.runner().resume("r")).rejects.toBeInstanceOf(RunLockedError);
    await expect(s.runner({ force: true }).resume("r")).rejects.toBeInstanceOf(RunParked);
    expect(s.events.find((e) => e.event === "warning" && e.run_id === "r")).toMatchObject({ message: expect.stringMatching(/^--force: took run r from process \d+ on .+; if it still runs, it stops what it runs at its next heartbeat, and can no longer write to the journal$/) });
  });
});

describe("the workflow's directory on resume", () => {
  it("found again with --workdir after it moved, which is journaled for later resumes; refused when gone, and for a --workdir that is no directory", async () => {
    const s = setup({ park: true });
    const wf = join(s.dir, "wf");
    mkdirSync(wf);
    writeFileSync(join(wf, "note.txt"), "from the module\n");
    writeFileSync(join(wf, "w.hcl"), `${HEAD("gate")}${GATE}output "note" { value = file("note.txt") }\n`);
    const g = (await compile(join(wf, "w.hcl"))).graph!;
    await expect(new Runner({ journal: s.journal, adapterFor, baseDir: wf, park: true }).start(g, {}, "r")).rejects.toBeInstanceOf(RunParked);
    // Resumed where it was, without --workdir: nothing is journaled of its place.
    await expect(s.runner().resume("r")).rejects.toBeInstanceOf(RunParked);
    expect((await s.journal.read("r")).entries.filter((e) => e.entry_type === "run.relocated")).toEqual([]);
    const moved = join(s.dir, "moved");
    renameSync(wf, moved);
    const gone = await s.runner().resume("r").catch((x: unknown) => x);
    expect(gone).toBeInstanceOf(RunRefused);
    expect((gone as Error).message).toBe(`the run's workflow directory ${wf} no longer exists (was the checkout moved?); put its files back there, or say where they are now: criteria resume r --state-dir ${s.journal.stateDir} --workdir DIR (the directory that holds the workflow now)`);
    const notDir = await s.runner().resume("r", { workdir: join(moved, "note.txt") }).catch((x: unknown) => x);
    expect(notDir).toBeInstanceOf(RunRefused);
    expect((notDir as RunRefused).usage).toBe(true);
    expect((notDir as Error).message).toBe(`--workdir ${join(moved, "note.txt")} is not a directory`);
    // The new place is journaled (run.relocated): a later resume, or a worker, finds it without --workdir.
    await expect(s.runner().resume("r", { workdir: moved })).rejects.toBeInstanceOf(RunParked);
    const relocated = (await s.journal.read("r")).entries.filter((e) => e.entry_type === "run.relocated");
    expect(relocated.map((e) => [e.run_id, e.payload])).toEqual([["r", { base_dir: moved }]]);
    // The same place again journals nothing more.
    await expect(s.runner().resume("r", { workdir: moved })).rejects.toBeInstanceOf(RunParked);
    expect((await s.journal.read("r")).entries.filter((e) => e.entry_type === "run.relocated")).toHaveLength(1);
    await deliverSignal(s.journal, "r", "go", null, "test", Date.now());
    expect(await s.runner().resume("r")).toMatchObject({ state: "done", outputs: { note: "from the module\n" } });
  });
});

describe("what run.spawned keeps for a resume", () => {
  it("the --input object, the variables given, and a secret variable's default (in the graph, unmasked, while its value is masked elsewhere)", async () => {
    const s = setup({ park: true });
    const g = await graphOf(`${HEAD("gate")}variable "token" {\n  type    = string\n  secret  = true\n  default = "a-default-secret-value"\n}\nvariable "region" { type = string }\n${GATE}output "who" { value = input.who }\noutput "region" { value = var.region }\noutput "length" {\n  value  = length(var.token)\n  secret = true\n}\n`);
    await expect(s.runner().start(g, { region: "eu" }, "r", { who: "ops" })).rejects.toBeInstanceOf(RunParked);
    const spawned = await s.journal.spawned("r");
    expect(spawned?.input).toEqual({ who: "ops" });
    expect(spawned?.inputs).toEqual({ region: "eu" });
    expect(JSON.stringify(spawned?.graph)).toContain("a-default-secret-value");
    await deliverSignal(s.journal, "r", "go", null, "test", Date.now());
    expect(await s.runner({ park: false }).resume("r")).toMatchObject({ state: "done", outputs: { who: "ops", region: "eu", length: 22 } });
  });
});

describe("namespaces", () => {
  it("path.module and path.root name the module's and the run's directories; a body sees its workflow's locals", async () => {
    const s = setup();
    const g = await graphOf(`${HEAD("loop")}locals {\n  greeting = "hi"\n}\nstep "loop" {\n  count = 1\n  workflow {\n    step "say" {\n      adapter = "noop"\n      input = { text = "\${local.greeting}" }\n      outcome "success" { next = "_continue" }\n    }\n  }\n  outcome "all_succeeded" { next = "done" }\n  outcome "any_failed" { next = "done" }\n}\noutput "module" { value = path.module }\noutput "root" { value = path.root }\n`);
    const end = await s.runner().start(g, {}, "n");
    expect(end).toMatchObject({ state: "done", outputs: { module: s.dir, root: s.dir } });
  });
});

describe("secrets too short to mask", () => {
  it("are said once, as a warning naming the variable", async () => {
    const s = setup();
    const g = await graphOf(`${HEAD("done")}variable "pin" {\n  type   = string\n  secret = true\n}\n`);
    await s.runner().start(g, { pin: "12" }, "p");
    const warnings = s.events.filter((e) => e.event === "warning").map((e) => (e as { message: string }).message);
    expect(warnings).toEqual([expect.stringMatching(/^secret variable "pin" has a value shorter than \d+ characters: criteria cannot mask it in what it records and shows$/)]);
  });
});
