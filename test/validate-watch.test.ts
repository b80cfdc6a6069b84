/**
 * `criteria validate --watch` (the issue "See and edit", item 4) as a real process: the
 * first result, a typo saved in a called module shows in its caller's result, a save
 * that changes nothing prints nothing, a second typo prints only itself, the fix says what
 * went away and prints ok again; Ctrl-C exits 0.
 */
import { mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { bin, start as startCli } from "./pipeline/helpers.js";

/** Watchers started by a test; one a failed expectation left running is ended after it. */
const watchers: ReturnType<typeof startCli>[] = [];
const start = (args: string[]) => {
  const child = startCli(args);
  watchers.push(child);
  return child;
};
afterEach(() => {
  for (const c of watchers.splice(0)) if (c.exitCode === null && c.signalCode === null) process.kill(-c.pid!, "SIGKILL");
});

it("re-validates on change, printing only what changed", async () => {
  const dir = mkdtempSync(join(tmpdir(), "criteria-watch-"));
  mkdirSync(join(dir, "stage"));
  writeFileSync(join(dir, "main.hcl"), `workflow "m" {\n  version = "1"\n  initial_state = "call"\n  target_state = "done"\n}\nadapter "shell" "default" {}\nsubworkflow "stage" {\n  source = "./stage"\n  adapters = [adapter.shell.default]\n}\nstep "call" {\n  target = subworkflow.stage\n  outcome "success" { next = "done" }\n  outcome "failure" { next = "done" }\n}\nstate "done" { terminal = true }\n`);
  const stage = (next: string, extra = "") => `workflow "s" {\n  version = "1"\n  initial_state = "go"\n  target_state = "ok"\n  expects {\n    adapters = [adapter.shell.default]\n  }\n}\nstep "go" {\n  target = adapter.shell.default\n  input { command = "true" }\n  outcome "success" { next = "${next}" }\n${extra}}\nstate "ok" { terminal = true }\n`;
  writeFileSync(join(dir, "stage", "main.hcl"), stage("ok"));
  const child = start(["validate", "--watch", join(dir, "main.hcl")]);
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  const exit = new Promise<number | null>((r) => child.once("exit", r));
  const printed = async (n: number) => {
    for (let i = 0; i < 200 && (out.match(/^\[\d\d:\d\d:\d\d\] /gm) ?? []).length < n; i++) await new Promise((r) => setTimeout(r, 50));
    return out;
  };
  expect(await printed(1)).toMatch(/main\.hcl: ok\n/);
  // The watcher says when it sees changes (a fixed wait could miss the first save on a loaded machine).
  for (let i = 0; i < 200 && !/criteria: watching .* for changes; Ctrl-C stops\n/.test(out); i++) await new Promise((r) => setTimeout(r, 50));
  // Counted as the user sees them: the two files read, in two directories (it said "5 paths",
  // counting chokidar's directories too: a new-user trial).
  expect(out).toContain("criteria: watching 2 files in 2 directories for changes; Ctrl-C stops\n");
  writeFileSync(join(dir, "stage", "main.hcl"), stage("okk"));
  expect(await printed(2)).toMatch(/error\[unknown_node\][\s\S]*main\.hcl: 1 error(, 1 warning)?\n$/);
  // Saved again unchanged: nothing new is printed.
  writeFileSync(join(dir, "stage", "main.hcl"), readFileSync(join(dir, "stage", "main.hcl"), "utf8"));
  await new Promise((r) => setTimeout(r, 600));
  expect((out.match(/^\[\d\d:\d\d:\d\d\] /gm) ?? []).length).toBe(2);
  // A second mistake: only it is printed, not the first again (every diagnostic was printed
  // on each save: a new-user trial); then the fix says which went away.
  const since = (n: number) => out.split(/^\[\d\d:\d\d:\d\d\] /m).slice(n).join("");
  writeFileSync(join(dir, "stage", "main.hcl"), stage("okk", '  outcome "failure" { next = "bad" }\n'));
  await printed(3);
  expect(since(3)).toMatch(/error\[unknown_node\][^\n]*"bad"/);
  expect(since(3)).not.toMatch(/"okk"/);
  expect(since(3)).toMatch(/main\.hcl: 2 errors/);
  writeFileSync(join(dir, "stage", "main.hcl"), stage("ok"));
  expect(await printed(4)).toMatch(/main\.hcl: ok\n$/);
  expect(since(4).match(/^fixed: .*error\[unknown_node\]/gm)).toHaveLength(2);
  child.kill("SIGINT");
  expect(await exit).toBe(0);
}, 30_000);

it("--watch with -o json is refused naming -o, the flag given (found by a new-user trial: it said drop --format)", () => {
  const r = spawnSync(process.execPath, [bin, "validate", "--watch", "-o", "json", "x.hcl"], { encoding: "utf8" });
  expect(r.status).toBe(2);
  expect(r.stderr).toContain("criteria: --watch prints text: drop -o json\n");
  const f = spawnSync(process.execPath, [bin, "validate", "--watch", "--format", "sarif", "x.hcl"], { encoding: "utf8" });
  expect(f.stderr).toContain("criteria: --watch prints text: drop --format sarif\n");
});

it("a PATH alone that is not there yet is waited for in a sentence that reads (found by a new-user trial: 'watching 0 files in 0 directories, and for nope.hcl to be made for changes')", async () => {
  const dir = mkdtempSync(join(tmpdir(), "criteria-watch-none-"));
  const child = start(["validate", "--watch", join(dir, "nope.hcl")]);
  let err = "";
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((r) => child.once("exit", r));
  for (let i = 0; i < 200 && !err.includes("Ctrl-C stops"); i++) await new Promise((r) => setTimeout(r, 50));
  expect(err).toContain(`criteria: watching for ${join(dir, "nope.hcl")} to be made; Ctrl-C stops\n`);
  child.kill("SIGINT");
  await exit;
}, 30_000);

it("a workflow_file moved away and back is seen again: its error goes (found by a new-user trial: it stayed until the caller was saved); a PATH not there yet is waited for, and said so", async () => {
  const dir = mkdtempSync(join(tmpdir(), "criteria-watch-body-"));
  mkdirSync(join(dir, "bodies"));
  writeFileSync(join(dir, "main.hcl"), `workflow "m" {\n  version = "1"\n  initial_state = "loop"\n  target_state = "done"\n}\nadapter "shell" "default" {}\nstep "loop" {\n  workflow_file = "bodies/b.hcl"\n  outcome "success" { next = "done" }\n}\nstate "done" { terminal = true }\n`);
  const body = `step "one" {\n  target = adapter.shell.default\n  input { command = "true" }\n  outcome "success" { next = "return" }\n}\n`;
  writeFileSync(join(dir, "bodies", "b.hcl"), body);
  const child = start(["validate", "--watch", join(dir, "main.hcl"), join(dir, "later.hcl")]);
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  const exit = new Promise<number | null>((r) => child.once("exit", r));
  const seen = async (re: RegExp) => {
    for (let i = 0; i < 200 && !re.test(out); i++) await new Promise((r) => setTimeout(r, 50));
    expect(out).toMatch(re);
  };
  await seen(/criteria: watching 2 files in 2 directories for changes, and for \S*later\.hcl to be made; Ctrl-C stops\n/);
  expect(out).toMatch(/main\.hcl: ok\n/);
  renameSync(join(dir, "bodies", "b.hcl"), join(dir, "b.hcl.away"));
  await seen(/error\[file_not_found\]: workflow_file "bodies\/b\.hcl"/);
  renameSync(join(dir, "b.hcl.away"), join(dir, "bodies", "b.hcl"));
  await seen(/fixed: .*error\[file_not_found\]: workflow_file "bodies\/b\.hcl"[\s\S]*main\.hcl: ok\n$/);
  child.kill("SIGINT");
  expect(await exit).toBe(0);
}, 30_000);

it("a new file in a subworkflow's directory, a subworkflow directory made after it was named, and lines moved are each seen at once (found by a new-user trial: the first two only after a known file was saved; a moved error kept its old line on screen)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "criteria-watch-sub-"));
  mkdirSync(join(dir, "sub"));
  const parent = (source: string) => `workflow "p" {\n  version = "1"\n  initial_state = "call"\n  target_state = "done"\n}\nsubworkflow "child" {\n  source = "${source}"\n  input = { work = "x" }\n}\nstep "call" {\n  target = subworkflow.child\n  outcome "success" { next = "done" }\n}\nstate "done" { terminal = true }\n`;
  const child = `workflow "c" {\n  version = "1"\n  initial_state = "done"\n  target_state = "done"\n}\nvariable "work" {\n  type = string\n}\nstate "done" { terminal = true }\n`;
  writeFileSync(join(dir, "parent.hcl"), parent("./sub"));
  writeFileSync(join(dir, "sub", "main.hcl"), child);
  const proc = start(["validate", "--watch", join(dir, "parent.hcl")]);
  let out = "";
  proc.stdout.on("data", (d: Buffer) => (out += d.toString()));
  proc.stderr.on("data", (d: Buffer) => (out += d.toString()));
  const exit = new Promise<number | null>((r) => proc.once("exit", r));
  const seen = async (re: RegExp) => {
    for (let i = 0; i < 200 && !re.test(out); i++) await new Promise((r) => setTimeout(r, 50));
    expect(out).toMatch(re);
  };
  await seen(/criteria: watching .* for changes; Ctrl-C stops\n/);
  expect(out).toMatch(/parent\.hcl: ok\n/);
  // A new file in the subworkflow's directory.
  writeFileSync(join(dir, "sub", "more.hcl"), `output "o" {\n  value = steps.nope.stdout\n}\n`);
  await seen(/more\.hcl:2:11: error\[unknown_reference\][\s\S]*parent\.hcl: 1 error\n$/);
  // Lines added above it: its new place is said.
  writeFileSync(join(dir, "sub", "more.hcl"), `# a comment\n\noutput "o" {\n  value = steps.nope.stdout\n}\n`);
  await seen(/moved: \S*more\.hcl:4:11 \(was 2:11\): error\[unknown_reference\]/);
  // A subworkflow directory named before it is made.
  writeFileSync(join(dir, "parent.hcl"), parent("./sub3"));
  await seen(/error\[file_not_found\]: source "\.\/sub3"/);
  mkdirSync(join(dir, "sub3"));
  writeFileSync(join(dir, "sub3", "main.hcl"), child);
  await seen(/fixed: .*error\[file_not_found\][\s\S]*parent\.hcl: ok\n$/);
  proc.kill("SIGINT");
  expect(await exit).toBe(0);
}, 30_000);
