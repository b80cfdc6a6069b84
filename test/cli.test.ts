/**
 * The command line: output formats, exit codes (0 ok, 1 problems, 2 usage, 3 internal),
 * and the seed's acceptance (shared/seeds/001: an agent used inside a type = "workflow"
 * body validates; misspelt, it gives file, line, column and the right name).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { durationText, parseDuration } from "../compiler/decode/durations.js";
import { main, type Io } from "../cli.js";

const repo = join(import.meta.dirname, "..");
const seedFile = join(repo, "examples", "agent_in_body", "workflow.hcl");

function io(env: NodeJS.ProcessEnv = {}): Io & { stdout: string; stderr: string } {
  const o = { stdout: "", stderr: "", color: false, isTTY: false, env, out: (s: string) => void (o.stdout += s), err: (s: string) => void (o.stderr += s) };
  return o;
}

let dir: string;
let typo: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "criteria-cli-"));
  typo = join(dir, "repro.hcl");
  writeFileSync(typo, readFileSync(seedFile, "utf8").replace('agent = "executor"', 'agent = "executr"'));
});

describe("criteria validate", () => {
  it("accepts the seed's agent-in-body workflow", async () => {
    const o = io();
    expect(await main(["validate", seedFile], o)).toBe(0);
    expect(o.stdout.trim()).toBe(`${seedFile}: ok`);
  });

  it("points at the misspelt agent with a suggestion, exit 1", async () => {
    const o = io();
    expect(await main(["validate", typo], o)).toBe(1);
    const line = readFileSync(typo, "utf8").split("\n").findIndex((l) => l.includes('"executr"')) + 1;
    const col = readFileSync(typo, "utf8").split("\n")[line - 1].indexOf('"executr"') + 1;
    expect(o.stdout).toContain(`repro.hcl:${line}:${col}: error[unknown_target]: step "execute": unknown agent "executr"`);
    expect(o.stdout).toContain('hint: did you mean "executor"?');
    expect(o.stdout).toMatch(/\^~{8}/);
  });

  it("--format json gives one object with counts and ranges", async () => {
    const o = io();
    expect(await main(["validate", "--format", "json", typo, seedFile], o)).toBe(1);
    const r = JSON.parse(o.stdout);
    expect(r.valid).toBe(false);
    expect(r.error_count).toBe(1);
    expect(r.warning_count).toBe(0);
    expect(r.diagnostics[0]).toMatchObject({ severity: "error", code: "unknown_target", range: { start: { line: expect.any(Number), column: expect.any(Number) } } });
  });

  it("-o json, as apply and journal spell it, is --format json (found by a new-user trial: -o was refused)", async () => {
    const a = io();
    const b = io();
    expect(await main(["validate", "-o", "json", typo], a)).toBe(1);
    expect(await main(["validate", "--format", "json", typo], b)).toBe(1);
    expect(a.stdout).toBe(b.stdout);
    expect(JSON.parse(a.stdout).error_count).toBe(1);
  });

  it("--format json says each PATH's own result, in the order given, a missing one too (found by a new-user trial of CI use: files listed only what was read)", async () => {
    const o = io();
    expect(await main(["validate", "--format", "json", typo, seedFile, "no/such.hcl"], o)).toBe(1);
    const r = JSON.parse(o.stdout);
    expect(r.paths).toEqual([
      { path: typo, valid: false, error_count: 1, warning_count: 0 },
      { path: seedFile, valid: true, error_count: 0, warning_count: 0 },
      { path: "no/such.hcl", valid: false, error_count: 1, warning_count: 0 },
    ]);
    expect(r.use_graph).toHaveLength(3);
  });

  it("--format sarif is SARIF 2.1.0 with a rule per code", async () => {
    const o = io();
    await main(["validate", "--format", "sarif", typo], o);
    const s = JSON.parse(o.stdout);
    expect(s.version).toBe("2.1.0");
    const run = s.runs[0];
    expect(run.tool.driver.rules.some((r: { id: string }) => r.id === "unknown_target")).toBe(true);
    expect(run.results[0]).toMatchObject({ ruleId: "unknown_target", level: "error", locations: [{ physicalLocation: { region: { startLine: expect.any(Number) } } }] });
  });

  it("a note of a diagnostic reaches SARIF (relatedLocations) and the GitHub annotation (with its position), as the text output gives it (a new-user trial of CI use: both dropped it)", async () => {
    const dup = join(repo, "testdata", "invalid", "duplicate_step_across_files");
    const text = io();
    await main(["validate", dup], text);
    const note = /note: (.+) \((.+):(\d+):(\d+)\)/.exec(text.stdout);
    expect(note).not.toBeNull();
    const [, message, file, line, column] = note!;
    const sarif = io();
    await main(["validate", "--format", "sarif", dup], sarif);
    const r = JSON.parse(sarif.stdout).runs[0].results.find((x: { ruleId: string }) => x.ruleId === "duplicate_name");
    expect(r.relatedLocations).toEqual([{ id: 0, message: { text: message }, physicalLocation: { artifactLocation: { uri: file }, region: expect.objectContaining({ startLine: Number(line), startColumn: Number(column) }) } }]);
    const gh = io({ GITHUB_ACTIONS: "true" });
    await main(["validate", dup], gh);
    expect(gh.stdout).toContain(`::error file=${file.replace("a.hcl", "b.hcl")}`);
    expect(gh.stdout).toMatch(new RegExp(`^::error file=[^\n]*title=criteria duplicate_name::[^\n]*; ${message} \\(${file}:${line}:${column}\\)( \\([^\n]+\\))?$`, "m"));
  });

  it("a GitHub annotation names its file relative to GITHUB_WORKSPACE, where the pull request's files are (a file outside the working directory was named absolute: found by a new-user trial of CI use)", async () => {
    const ws = mkdtempSync(join(tmpdir(), "criteria-ws-"));
    mkdirSync(join(ws, "flows"));
    const f = join(ws, "flows", "bad.hcl");
    writeFileSync(f, readFileSync(typo, "utf8"));
    const o = io({ GITHUB_ACTIONS: "true", GITHUB_WORKSPACE: ws });
    await main(["validate", f], o);
    expect(o.stdout).toMatch(/^::error file=flows\/bad\.hcl,line=\d+/m);
    // The text lines name it as before (absolute: it is outside the working directory).
    expect(o.stdout).toContain(`${f}:`);
    const without = io({ GITHUB_ACTIONS: "true" });
    await main(["validate", f], without);
    expect(without.stdout).toContain(`::error file=${f},`);
  });

  it("prints GitHub annotations inside Actions", async () => {
    const o = io({ GITHUB_ACTIONS: "true" });
    await main(["validate", typo], o);
    expect(o.stdout).toMatch(/^::error file=.*repro\.hcl,line=\d+,col=\d+,endLine=\d+,endColumn=\d+,title=criteria unknown_target::/m);
  });

  it("counts columns as HCL does (graphemes) in text, JSON and GitHub output, and UTF-16 units in SARIF as its columnKind says; the caret in terminal columns", async () => {
    // Before the reference: a character outside the BMP (2 UTF-16 units) and `e` + U+0301 (2 code points): one column each.
    const f = join(dir, "columns.hcl");
    const prefix = '  input { label = "🎉e\u0301 ';
    writeFileSync(f, readFileSync(join(repo, "testdata", "invalid", "unicode_before_unknown_reference.hcl"), "utf8").replace(/^ {2}input \{ label = "café 🎉 /m, prefix));
    const line = readFileSync(f, "utf8").split("\n").findIndex((l) => l.startsWith(prefix)) + 1;
    expect(line).toBeGreaterThan(0);
    const graphemes = 19 + 3 + 2 + 1; // the 19 ASCII characters, 🎉, é, the space, `${`; then `var`
    const units = 19 + 2 + 2 + 1 + 2 + 1;
    const json = io();
    await main(["validate", "--format", "json", f], json);
    const d = JSON.parse(json.stdout).diagnostics.find((x: { code: string }) => x.code === "unknown_reference");
    expect(d.range.start).toEqual({ line, column: graphemes });
    const text = io();
    await main(["validate", f], text);
    expect(text.stdout).toContain(`columns.hcl:${line}:${graphemes}: error[unknown_reference]`);
    // The caret sits under `var` as a terminal shows it: one space per column before it,
    // 🎉 two columns wide, é one (found by a new-user trial: one space per grapheme fell short).
    const caret = text.stdout.split("\n").find((l) => l.includes("^"))!;
    expect(caret.indexOf("^") - caret.indexOf("|") - 2).toBe(graphemes - 1 + 1);
    const gh = io({ GITHUB_ACTIONS: "true" });
    await main(["validate", f], gh);
    expect(gh.stdout).toContain(`line=${line},col=${graphemes},`);
    const sarif = io();
    await main(["validate", "--format", "sarif", f], sarif);
    const run = JSON.parse(sarif.stdout).runs[0];
    expect(run.columnKind).toBe("utf16CodeUnits");
    const r = run.results.find((x: { ruleId: string }) => x.ruleId === "unknown_reference");
    expect(r.locations[0].physicalLocation.region).toMatchObject({ startLine: line, startColumn: units });
  });

  it("exit 2 on a usage error", async () => {
    const o = io();
    expect(await main(["validate"], o)).toBe(2);
    expect(await main(["validate", "--format", "xml", seedFile], io())).toBe(2);
    expect(await main(["frobnicate"], io())).toBe(2);
    // A command that needs a subcommand, given none, shows its help as a usage error (a new-user trial: exit 0).
    const bare = io();
    expect(await main(["channel"], bare)).toBe(2);
    expect(bare.stderr).toContain("Usage: criteria channel");
    expect(await main(["channel", "--help"], io())).toBe(0);
    expect(await main(["help", "channel"], io())).toBe(0);
    // An empty run id, as apply --run-id "" is (a new-user trial: journal "" said "no run  in …", exit 1).
    for (const args of [["journal", ""], ["resume", " "], ["signal", "", "go"], ["approve", "", "gate"], ["reject", "", "gate"], ["unlock", ""]]) {
      const empty = io();
      expect(await main(args, empty), args.join(" ")).toBe(2);
      expect(empty.stderr, args.join(" ")).toContain(`the run id is empty (${JSON.stringify(args[1])}): criteria runs lists the runs`);
    }
  });

  it("a missing file is a diagnostic, exit 1", async () => {
    const o = io();
    expect(await main(["validate", join(dir, "nope.hcl")], o)).toBe(1);
    expect(o.stdout).toContain("error[file_not_found]");
  });
});

describe("criteria compile and plan", () => {
  it("compile --format mermaid and dot render", async () => {
    for (const f of ["mermaid", "dot", "json"]) {
      const o = io();
      expect(await main(["compile", "--format", f, seedFile], o)).toBe(0);
      expect(o.stdout.length).toBeGreaterThan(50);
    }
  });
  it("plan shows each step's limits (timeout, max_visits, parallel_max), the locals and the outputs as written (found by a new-user trial: none was shown)", async () => {
    const d = mkdtempSync(join(tmpdir(), "criteria-cli-plan-"));
    writeFileSync(
      join(d, "loop.hcl"),
      `workflow {
  name          = "loop"
  version       = "1"
  initial_state = "exec"
  target_state  = "done"
}
variable "max_rounds" {
  type    = number
  default = 3
}
locals {
  greeting = "hi there"
}
adapter "shell" "default" {}
step "exec" {
  target     = adapter.shell.default
  timeout    = "30s"
  max_visits = var.max_rounds
  input { command = "echo \${local.greeting}" }
  outcome "success" { next = step.fan }
}
step "fan" {
  target       = adapter.shell.default
  parallel     = ["a", "b"]
  parallel_max = 2
  input { command = "echo \${each.value}" }
  outcome "all_succeeded" { next = state.done }
  outcome "any_failed"    { next = step.exec }
}
output "said" {
  value = steps.exec.stdout
}
state "done" { terminal = true }
`,
    );
    const o = io();
    expect(await main(["plan", join(d, "loop.hcl")], o)).toBe(0);
    expect(o.stdout).toContain("    outcomes: success -> fan\n    limits: timeout=30s   max_visits=var.max_rounds\n");
    // The on_failure default said too: parallel's is abort (a new-user trial: not shown).
    expect(o.stdout).toContain("    limits: parallel_max=2   on_failure=abort\n");
    expect(o.stdout).toContain('\nlocals:\n  greeting = "hi there"\n\noutputs:\n  said = steps.exec.stdout\n');
  });

  it("plan says the defaults of an iterating step's limits: parallel_max=all and on_failure=abort for parallel, on_failure=continue for for_each (a new-user trial: a parallel step showed none)", async () => {
    const d = mkdtempSync(join(tmpdir(), "criteria-cli-plan-"));
    const step = (name: string, it: string, next: string) => `step "${name}" {\n  ${it}\n  target = adapter.shell.default\n  input { command = "echo \${each.value}" }\n  outcome "all_succeeded" { next = "${next}" }\n  outcome "any_failed" { next = "done" }\n}\n`;
    writeFileSync(join(d, "w.hcl"), `workflow "w" {\n  version = "1"\n  initial_state = "fan"\n  target_state = "done"\n}\nadapter "shell" "default" {}\n${step("fan", 'parallel = ["a", "b"]', "seq")}${step("seq", 'for_each = ["x"]', "done")}state "done" { terminal = true }\n`);
    const o = io();
    expect(await main(["plan", join(d, "w.hcl")], o)).toBe(0);
    expect(o.stdout).toContain("    outcomes: all_succeeded -> seq, any_failed -> done\n    limits: parallel_max=all   on_failure=abort\n");
    expect(o.stdout).toContain("    outcomes: all_succeeded -> done, any_failed -> done\n    limits: on_failure=continue\n");
  });

  it("plan names the environment a step runs in, and its variables; a step with none (two declared, none chosen) shows none (a new-user trial: not shown)", async () => {
    const d = mkdtempSync(join(tmpdir(), "criteria-cli-plan-"));
    writeFileSync(join(d, "w.hcl"), `workflow "w" {\n  version = "1"\n  initial_state = "a"\n  target_state = "done"\n}\nadapter "shell" "default" {}\nenvironment "shell" "ci" {\n  variables = { CI = "true", MODE = "x" }\n}\nenvironment "shell" "other" {}\nstep "a" {\n  target = adapter.shell.default\n  environment = shell.ci\n  input { command = "true" }\n  outcome "success" { next = "b" }\n}\nstep "b" {\n  target = adapter.shell.default\n  input { command = "true" }\n  outcome "success" { next = "done" }\n}\nstate "done" { terminal = true }\n`);
    const o = io();
    expect(await main(["plan", join(d, "w.hcl")], o), o.stderr).toBe(0);
    expect(o.stdout).toContain("  a   adapter=shell.default   environment=shell.ci\n    environment variables: CI, MODE\n    input keys: command\n");
    expect(o.stdout).toContain("  b   adapter=shell.default\n    input keys: command\n");
  });

  it("plan says a while loop without max_visits is stopped only by the run's max_total_steps, in a body too (a new-user trial: plan named neither)", async () => {
    const d = mkdtempSync(join(tmpdir(), "criteria-cli-plan-"));
    const loop = (name: string, extra: string, next: string) => `step "${name}" {\n  while = true\n  ${extra}\n  target = adapter.shell.default\n  input { command = "true" }\n  outcome "all_succeeded" { next = "${next}" }\n  outcome "any_failed" { next = "${next}" }\n}\n`;
    const body = `step "outer" {\n  workflow {\n    initial_state = "inner"\n    target_state = "ok"\n${loop("inner", "", "ok")}    state "ok" { terminal = true }\n  }\n  outcome "success" { next = "done" }\n}\n`;
    writeFileSync(join(d, "w.hcl"), `workflow "w" {\n  version = "1"\n  initial_state = "free"\n  target_state = "done"\n}\npolicy { max_total_steps = 40 }\nadapter "shell" "default" {}\n${loop("free", "", "bounded")}${loop("bounded", "max_visits = 3", "outer")}${body}state "done" { terminal = true }\n`);
    const o = io();
    expect(await main(["plan", join(d, "w.hcl")], o)).toBe(0);
    expect(o.stdout).toContain("    outcomes: all_succeeded -> bounded, any_failed -> bounded\n    limits: max_visits=none (max_total_steps=40 stops the loop)   on_failure=continue\n");
    expect(o.stdout).toContain("    limits: max_visits=3   on_failure=continue\n");
    expect(o.stdout).toContain("        limits: max_visits=none (max_total_steps=40 stops the loop)   on_failure=continue\n");
  });

  it("plan of a workflow that ends through return says it has no states, as other empty sections do (found by a trial)", async () => {
    const d = mkdtempSync(join(tmpdir(), "criteria-cli-plan-"));
    writeFileSync(join(d, "r.hcl"), `workflow {\n  name = "r"\n  version = "1"\n  initial_state = "a"\n}\nadapter "shell" "default" {}\nstep "a" {\n  target = adapter.shell.default\n  input { command = "true" }\n  outcome "success" { next = "return" }\n}\n`);
    const o = io();
    expect(await main(["plan", join(d, "r.hcl")], o)).toBe(0);
    expect(o.stdout).toContain("\nstates:\n  (none)\n");
  });

  it("plan lists a body's and a module's branches, waits and states, and shows a YAML expression without its ${} (found by a new-user trial of YAML authoring: they were left out, or shown as ${var.max_rounds})", async () => {
    const o = io();
    expect(await main(["plan", join(repo, "examples", "yaml_review_loop")], o)).toBe(0);
    expect(o.stdout).toContain("  rounds   workflow body   count=var.max_rounds\n");
    expect(o.stdout).toContain("      branches:\n        last_round\n          when each._last -> exhausted\n          default -> _continue\n      states:\n        exhausted    terminal=true   success=false\n        broken    terminal=true   success=false\n");
    const d = mkdtempSync(join(tmpdir(), "criteria-cli-plan-"));
    mkdirSync(join(d, "mod"));
    writeFileSync(join(d, "mod", "main.yaml"), `workflow: { name: cool, version: "1", initial_state: pause, target_state: ok }\nwaits:\n  pause: { duration: 1s, next: ok }\nstates:\n  ok: { terminal: true }\n`);
    writeFileSync(join(d, "main.hcl"), `workflow "m" {\n  version = "1"\n  initial_state = "call"\n  target_state = "done"\n}\nsubworkflow "cool" { source = "./mod" }\nstep "call" {\n  target = subworkflow.cool\n  outcome "success" { next = "done" }\n}\nstate "done" { terminal = true }\n`);
    const m = io();
    expect(await main(["plan", join(d, "main.hcl")], m), m.stderr).toBe(0);
    expect(m.stdout).toMatch(/\nmodule \S+: workflow cool\n(?:.*\n)*? {2}waits:\n {4}pause   duration=1s\n {6}next -> ok\n {2}states:\n {4}ok    terminal=true   success=true\n/);
  });

  it("compile of an invalid file prints diagnostics on stderr, exit 1; as JSON (the default) stdout gets one exit object with them (a CI step's graph.json was left empty)", async () => {
    const o = io();
    expect(await main(["compile", typo], o)).toBe(1);
    expect(o.stderr).toContain("unknown_target");
    const exit = JSON.parse(o.stdout);
    expect(exit).toMatchObject({ event: "exit", code: 1, status: "error", message: `${typo}: 1 error: no graph` });
    expect(exit.diagnostics.map((d: { code: string }) => d.code)).toEqual(["unknown_target"]);
    expect(exit.diagnostics[0].range.start).toEqual({ line: expect.any(Number), column: expect.any(Number) });
    const dot = io();
    expect(await main(["compile", "--format", "dot", typo], dot)).toBe(1);
    expect(dot.stdout).toBe("");
  });

  it("with -o json a usage error commander finds, and a run id the journal lacks, are one JSON exit object too, as the README promises (a new-user trial of CI use: stdout was empty)", async () => {
    for (const argv of [["apply", typo, "-o", "json", "--bogus"], ["apply", "-o", "json"], ["validate", "-ojson", "--bogus", typo]]) {
      const o = io();
      expect(await main(argv, o), argv.join(" ")).toBe(2);
      expect(JSON.parse(o.stdout), argv.join(" ")).toMatchObject({ event: "exit", code: 2, status: "error", message: expect.stringMatching(/unknown option '--bogus'|missing required argument/) });
    }
    const state = mkdtempSync(join(tmpdir(), "criteria-state-"));
    expect(await main(["apply", seedFile, "--state-dir", state, "--run-id", "r1", "-o", "json"], io({ CI: "true" }))).toBeLessThan(2);
    const o = io();
    expect(await main(["journal", "nope", "--state-dir", state, "-o", "json"], o)).toBe(1);
    expect(JSON.parse(o.stdout)).toMatchObject({ event: "exit", code: 1, status: "error", message: expect.stringContaining("no run nope") });
  });
  it("plan prints the summary", async () => {
    const o = io();
    expect(await main(["plan", seedFile], o)).toBe(0);
    expect(o.stdout).toContain("workflow: agent_in_body");
    expect(o.stdout).toContain("agents:\n  executor");
    // Channels and who talks on them (found by a new-user trial: plan left them out).
    const panel = io();
    expect(await main(["plan", join(repo, "examples", "review_panel")], panel)).toBe(0);
    expect(panel.stdout).toContain("channels:\n  panel   participants=security, maintainability\n");
  });

  it("plan lists a module's own subworkflows, as the root's (a new-user trial: left out)", async () => {
    const d = mkdtempSync(join(tmpdir(), "criteria-cli-plan-"));
    const head = (name: string, start: string) => `workflow {\n  name = "${name}"\n  version = "1"\n  initial_state = "${start}"\n  target_state = "done"\n}\n`;
    const calls = (what: string) => `subworkflow "${what}" { source = "./${what}" }\nstep "call" {\n  target = subworkflow.${what}\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n`;
    mkdirSync(join(d, "m", "inner"), { recursive: true });
    writeFileSync(join(d, "main.hcl"), head("top", "call") + calls("m"));
    writeFileSync(join(d, "m", "main.hcl"), head("m", "call") + calls("inner"));
    writeFileSync(join(d, "m", "inner", "main.hcl"), `${head("inner", "done")}state "done" { terminal = true }\n`);
    const o = io();
    expect(await main(["plan", join(d, "main.hcl")], o), o.stderr).toBe(0);
    expect(o.stdout).toContain("subworkflows:\n  m   module=m\n");
    expect(o.stdout).toMatch(/module m: workflow m\n[\s\S]*?  subworkflows:\n    inner   module=m\/inner\n/);
  });

  it("plan lists a module's variables and outputs, what its callers bind and read (found by a new-user trial: left out)", async () => {
    const d = mkdtempSync(join(tmpdir(), "criteria-cli-plan-"));
    mkdirSync(join(d, "build"));
    writeFileSync(join(d, "main.hcl"), `workflow {\n  name = "top"\n  version = "1"\n  initial_state = "call"\n  target_state = "done"\n}\nsubworkflow "build" {\n  source = "./build"\n  input = { service = "api" }\n}\nstep "call" {\n  target = subworkflow.build\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n`);
    writeFileSync(join(d, "build", "main.hcl"), `workflow {\n  name = "build"\n  version = "1"\n  initial_state = "built"\n  target_state = "built"\n}\nvariable "service" { type = string }\nvariable "nap" {\n  type = number\n  default = 2\n}\noutput "artifact" { value = "\${var.service}.tar" }\nstate "built" { terminal = true }\n`);
    const o = io();
    expect(await main(["plan", join(d, "main.hcl")], o), o.stderr).toBe(0);
    expect(o.stdout).toContain('module build: workflow build\n  variables:\n    service: string  (required)\n    nap: number = 2\n  outputs:\n    artifact = "${var.service}.tar"\n');
  });

  it("plan shows control characters from the files as pictures, not raw (found by a new-user trial: a default's ESC reached the terminal)", async () => {
    const d = mkdtempSync(join(tmpdir(), "criteria-plan-esc-"));
    writeFileSync(join(d, "main.hcl"), `workflow "x" {\n  version = "1"\n  initial_state = "a"\n  target_state = "done"\n}\nvariable "v" {\n  type = "string"\n  default = "def\x1b[31mRED"\n}\nadapter "shell" "default" {}\nstep "a" {\n  target = adapter.shell.default\n  input { command = "echo \${var.v}" }\n  outcome "success" { next = "done" }\n}\nstate "done" { terminal = true }\n`);
    const o = io();
    expect(await main(["plan", join(d, "main.hcl")], o), o.stderr).toBe(0);
    expect(o.stdout).toContain("def\u241b[31mRED");
    expect(o.stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
  });

  it("plan shows a signal wait as one, its timeout and a timer's duration as a file writes them, and where waits and approvals lead (a new-user trial of CI use: a signal wait read as a 30-minute sleep, in milliseconds)", async () => {
    const o = io();
    expect(await main(["plan", join(repo, "examples", "release_gate")], o)).toBe(0);
    expect(o.stdout).toContain(
      "waits:\n  deploy_window   duration=15m\n    next -> deploy_canary\n  canary_healthy   signal=\"canary-healthy\"   timeout=30m\n    outcomes: received -> promote, timeout -> rollback\n",
    );
    expect(o.stdout).toContain("approvals:\n  sign_off   approvers=release-manager,security-oncall\n    outcomes: approved -> deploy_window, rejected -> rejected\n");
  });

  it("durationText writes what parseDuration reads back", () => {
    for (const [ms, text] of [[0, "0s"], [250, "250ms"], [1500, "1.5s"], [90_000, "1m30s"], [1_800_000, "30m"], [5_400_000, "1h30m"], [3_600_000, "1h"], [90_061_000, "25h1m1s"]] as const) {
      expect(durationText(ms)).toBe(text);
      expect(parseDuration(text)).toBe(ms);
    }
  });
});

describe("bin/criteria as a real process", () => {
  it("exit codes 0, 1, 2", () => {
    const run = (args: string[]) => spawnSync(process.execPath, [join(repo, "bin", "criteria"), ...args], { encoding: "utf8" });
    expect(run(["validate", seedFile]).status).toBe(0);
    const bad = run(["validate", typo]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toBe("");
    expect(run(["validate", "--bogus"]).status).toBe(2);
    expect(run(["--version"]).status).toBe(0);
  });
});

describe("criteria apply of a PATH that is not there", () => {
  it("says it could not be read, not that it does not compile; the diagnostic says why (found by a new-user trial)", async () => {
    const d = mkdtempSync(join(tmpdir(), "criteria-cli-missing-"));
    const o = io({ CI: "true" });
    expect(await main(["apply", join(d, "nonexist.hcl"), "--state-dir", join(d, "state"), "-o", "text"], o)).toBe(1);
    expect(o.stderr).toContain(`cannot run ${join(d, "nonexist.hcl")}: it could not be read`);
    expect(o.stderr).toContain("error[file_not_found]");
    expect(o.stderr).not.toContain("does not compile");
    // A file that is there and wrong still does not compile.
    const bad = io({ CI: "true" });
    expect(await main(["apply", typo, "--state-dir", join(d, "state"), "-o", "text"], bad)).toBe(1);
    expect(bad.stderr).toContain(`${typo} does not compile`);
  });
});

describe("run commands refuse what cannot matter", () => {
  const gate = `workflow "g" {
  version = "1"
  initial_state = "ask"
  target_state = "done"
}
approval "ask" {
  approvers = ["ann"]
  outcome "approved" { next = "done" }
  outcome "rejected" { next = "done" }
}
state "done" { terminal = true }
`;
  it("the Go tool's CRITERIA_LOCAL_APPROVAL is said to be not read, with what decides approvals here (found by a trial of its language: a run waited silently)", async () => {
    const d = mkdtempSync(join(tmpdir(), "criteria-cli-run-"));
    const wf = join(d, "g.hcl");
    writeFileSync(wf, gate);
    const o = io({ CI: "true", CRITERIA_LOCAL_APPROVAL: "auto-approve" });
    expect(await main(["apply", wf, "--run-id", "la", "--state-dir", join(d, "state")], o)).toBe(5);
    expect(o.stderr).toContain("criteria: warning: CRITERIA_LOCAL_APPROVAL is the Go tool's and is not read here: decide approvals with criteria approve|reject, or --auto-approve; with CI=true a run parks at them");
    const quiet = io({ CI: "true" });
    expect(await main(["apply", wf, "--run-id", "lb", "--state-dir", join(d, "state")], quiet)).toBe(5);
    expect(quiet.stderr).not.toContain("CRITERIA_LOCAL_APPROVAL");
  });

  it("the Go tool's flags and commands are refused with what to write here (found by a trial of its language: no pointer, and --out was offered --root)", async () => {
    const said = async (argv: string[]) => {
      const o = io();
      expect(await main(argv, o), argv.join(" ")).toBe(2);
      return o.stderr;
    };
    expect(await said(["validate", "--diag-json", join(dir, "x.hcl")])).toContain("hint: the Go tool's --diag-json is --format json here");
    expect(await said(["langserver"])).toContain("hint: the Go tool's langserver is criteria lsp here");
    // Its other commands (found by a trial of its docs: spec had no pointer).
    expect(await said(["spec"])).toContain("hint: the Go tool's spec is docs/language.md, the language reference");
    expect(await said(["status"])).toContain("hint: the Go tool's status is criteria runs");
    expect(await said(["adapter", "pull", "x"])).toContain("hint: the Go tool's adapter is not there: criteria runs its built-in adapters");
    expect(await said(["compile", join(dir, "x.hcl"), "--out=g.dot"])).toContain("hint: the Go tool's --out is a redirect of standard output");
    expect(await said(["validate", "--bogus", join(dir, "x.hcl")])).not.toContain("hint: the Go tool's");
  });

  it("plan --var says plan takes no variables yet, and what it shows instead (found by a new-user trial: a bare unknown option)", async () => {
    const o = io();
    expect(await main(["plan", join(dir, "x.hcl"), "--var", "rounds=2"], o)).toBe(2);
    expect(o.stderr).toContain("hint: plan takes no variables yet: it shows every route a run may take, whatever their values (docs/language.md, Not there yet)");
    const other = io();
    expect(await main(["validate", join(dir, "x.hcl"), "--var", "rounds=2"], other)).toBe(2);
    expect(other.stderr).not.toContain("hint: plan takes");
  });

  it("bad run ids, unknown approval nodes and missing journals are errors, not deliveries", async () => {
    const d = mkdtempSync(join(tmpdir(), "criteria-cli-run-"));
    const wf = join(d, "g.hcl");
    writeFileSync(wf, gate);
    const state = join(d, "state");
    expect(await main(["apply", wf, "--run-id", "x/y#1[0]", "--state-dir", state], io())).toBe(2);
    expect(await main(["runs", "--state-dir", join(d, "nope")], io())).toBe(1);
    const run = main(["apply", wf, "--run-id", "g1", "--state-dir", state, "-o", "json"], io());
    await new Promise((r) => setTimeout(r, 400));
    const typo = io();
    expect(await main(["approve", "g1", "ak", "--state-dir", state], typo)).toBe(1);
    expect(typo.stderr).toContain('did you mean "ask"?');
    expect(await main(["signal", "g1", "approval:ask", "--state-dir", state], io())).toBe(2);
    expect(await main(["approve", "g1", "ask", "--state-dir", state], io())).toBe(0);
    expect(await main(["reject", "g1", "ask", "--state-dir", state], io())).toBe(1);
    expect(await run).toBe(0);
    const again = io();
    expect(await main(["resume", "g1", "--state-dir", state], again)).toBe(0);
    expect(again.stdout).toContain("already ended: succeeded");
  });

  /** Two parallel items, each a body that waits at `node` (a signal wait or an approval). */
  const twoWaiting = (node: string) => `workflow "t" {
  version = "1"
  initial_state = "loop"
  target_state = "done"
}
step "loop" {
  parallel = ["a", "b"]
  workflow {
    initial_state = "gate"
    ${node}
  }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "done" }
}
state "done" { terminal = true }
`;
  /** Polls `f` every 100 ms until it holds (5 s at most). */
  const eventually = async (f: () => Promise<boolean>) => {
    for (let i = 0; i < 50 && !(await f()); i++) await new Promise((r) => setTimeout(r, 100));
  };

  it("a signal to a nested run reaches that run only; one to an ended child says how to reach its tree", async () => {
    // Found by a trial: signal CHILD said "delivered to CHILD" and its sibling took it.
    const d = mkdtempSync(join(tmpdir(), "criteria-cli-run-"));
    const wf = join(d, "t.hcl");
    writeFileSync(wf, twoWaiting(`wait "gate" {\n      signal = "go"\n      next = "_continue"\n    }`));
    const state = join(d, "state");
    const run = main(["apply", wf, "--run-id", "s1", "--state-dir", state, "-o", "json"], io());
    let sent = io();
    await eventually(async () => (await main(["signal", "s1/loop#1[1]", "go", "--state-dir", state], (sent = io()))) === 0);
    expect(sent.stdout).toContain("delivered go to s1/loop#1[1]");
    let ended = io();
    await eventually(async () => (await main(["signal", "s1/loop#1[1]", "go", "--state-dir", state], (ended = io()))) === 1);
    expect(ended.stderr).toContain(`run s1/loop#1[1] has already ended (succeeded); its run tree is still active: criteria signal s1 go --state-dir ${state} reaches every run of it`);
    // Its sibling did not take it: it is still waiting, and the tree's signal ends it.
    const runs = io();
    expect(await main(["runs", "--state-dir", state, "-o", "json"], runs)).toBe(0);
    expect(runs.stdout).toMatch(/"run_id":"s1","[^\n]*"status":"active"/);
    expect(await main(["signal", "s1", "go", "--state-dir", state], io())).toBe(0);
    expect(await run).toBe(0);
  });

  it("several items waiting on one approval node: each decision ends one, addressed to the tree or to one item", async () => {
    // Found by a trial: the second of two quick approvals was refused as "already decided".
    const d = mkdtempSync(join(tmpdir(), "criteria-cli-run-"));
    const wf = join(d, "t.hcl");
    writeFileSync(wf, twoWaiting(`approval "gate" {\n      approvers = ["ann"]\n      outcome "approved" { next = "_continue" }\n      outcome "rejected" { next = "_continue" }\n    }`));
    const state = join(d, "state");
    const run = main(["apply", wf, "--run-id", "a1", "--state-dir", state, "-o", "json"], io());
    await eventually(async () => (await main(["approve", "a1/loop#1[1]", "gate", "--by", "bob", "--state-dir", state], io())) === 0);
    expect(await main(["approve", "a1", "gate", "--by", "carol", "--state-dir", state], io())).toBe(0);
    // Both approvals have a decision given: a third has nothing to decide.
    expect(await main(["approve", "a1", "gate", "--by", "dan", "--state-dir", state], io())).toBe(1);
    expect(await run).toBe(0);
    const journal = io();
    expect(await main(["journal", "a1", "--state-dir", state, "-o", "json"], journal)).toBe(0);
    const decided = journal.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { run_id: string; entry_type: string; payload: { by?: string } })
      .filter((e) => e.entry_type === "approval.decided")
      .map((e) => `${e.run_id} ${e.payload.by}`)
      .sort();
    expect(decided).toEqual(["a1/loop#1[0] carol", "a1/loop#1[1] bob"]);
  });

  it("runs says what a parked run waits for, and when its decision is given (it said \"stopped\"; a new-user trial)", async () => {
    const d = mkdtempSync(join(tmpdir(), "criteria-cli-run-"));
    const wf = join(d, "t.hcl");
    writeFileSync(wf, twoWaiting(`approval "gate" {\n      outcome "approved" { next = "_continue" }\n      outcome "rejected" { next = "_continue" }\n    }`));
    const state = join(d, "state");
    expect(await main(["apply", wf, "--run-id", "pk", "--state-dir", state, "--no-wait"], io())).toBe(5);
    const runs = async () => {
      const o = io();
      expect(await main(["runs", "--state-dir", state], o)).toBe(0);
      return o.stdout;
    };
    // The commands name the journal's place (found by a new-user trial: --state-dir was left out).
    // The commands that give it, each one that can be pasted ("give it" named none: a new-user trial).
    expect(await runs()).toContain(`(parked, waiting for approval "gate": give it with criteria approve pk gate --state-dir ${state} (or criteria reject pk gate --state-dir ${state}), then criteria resume pk --state-dir ${state})`);
    // -o json says it for programs too: activity, and the same words as detail (found by a new-user trial).
    const json = io();
    expect(await main(["runs", "--state-dir", state, "-o", "json"], json)).toBe(0);
    expect(JSON.parse(json.stdout.trim())).toMatchObject({ run_id: "pk", status: "active", activity: "parked", detail: `parked, waiting for approval "gate": give it with criteria approve pk gate --state-dir ${state} (or criteria reject pk gate --state-dir ${state}), then criteria resume pk --state-dir ${state}` });
    // Given to one item (a run below the root): that item's approval is answered.
    expect(await main(["approve", "pk/loop#1[0]", "gate", "--state-dir", state], io())).toBe(0);
    // (The other item's approval still waits: said too.)
    expect(await runs()).toContain(`(stopped: its approval "gate" approved; criteria resume pk --state-dir ${state} continues it; it still waits for approval "gate": give it with criteria approve pk gate --state-dir ${state} (or criteria reject pk gate --state-dir ${state}))`);
    const after = io();
    expect(await main(["runs", "--state-dir", state, "-o", "json"], after)).toBe(0);
    expect(JSON.parse(after.stdout.trim())).toMatchObject({ activity: "stopped" });
    // Which way it went (found by a new-user trial: a rejection read "given" too).
    expect(await main(["reject", "pk/loop#1[1]", "gate", "--state-dir", state], io())).toBe(0);
    expect(await runs()).toContain(`(stopped: its approval "gate" approved, approval "gate" rejected; criteria resume pk --state-dir ${state} continues it)`);
  });

  it("after a decision given to the tree, each item's own decision is taken, by that item (refused as already decided)", async () => {
    // Found by a new-user trial: three parallel items parked at one approval; after `approve RUN gate`,
    // `reject RUN/loop#1[2] gate` was refused, and an item could take the tree's decision over its own.
    const d = mkdtempSync(join(tmpdir(), "criteria-cli-run-"));
    const wf = join(d, "t.hcl");
    writeFileSync(wf, twoWaiting(`approval "gate" {
      outcome "approved" { next = "_continue" }
      outcome "rejected" { next = "_continue" }
    }`).replace('["a", "b"]', '["a", "b", "c"]'));
    const state = join(d, "state");
    expect(await main(["apply", wf, "--run-id", "p3", "--state-dir", state, "--no-wait"], io())).toBe(5);
    expect(await main(["approve", "p3", "gate", "--by", "ann", "--state-dir", state], io())).toBe(0);
    const second = io();
    expect(await main(["reject", "p3/loop#1[0]", "gate", "--by", "bob", "--state-dir", state], second), second.stderr).toBe(0);
    expect(await main(["reject", "p3/loop#1[2]", "gate", "--by", "cy", "--state-dir", state], io())).toBe(0);
    // Every item's approval is spoken for now: one more is refused, addressed to the tree or to an item.
    const more = io();
    expect(await main(["approve", "p3/loop#1[1]", "gate", "--by", "dan", "--state-dir", state], more)).toBe(1);
    expect(more.stderr).toContain('every approval "gate" waiting in run p3 already has a decision');
    expect(await main(["approve", "p3", "gate", "--by", "dan", "--state-dir", state], io())).toBe(1);
    expect(await main(["resume", "p3", "--state-dir", state, "--no-wait"], io())).toBe(0);
    const journal = io();
    expect(await main(["journal", "p3", "--state-dir", state, "-o", "json"], journal)).toBe(0);
    const decided = journal.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { run_id: string; entry_type: string; payload: { by?: string; outcome?: string } })
      .filter((e) => e.entry_type === "approval.decided")
      .map((e) => `${e.run_id} ${e.payload.by} ${e.payload.outcome}`)
      .sort();
    // Item 0 takes its own rejection, not the tree's older approval, which item 1 then takes.
    expect(decided).toEqual(["p3/loop#1[0] bob rejected", "p3/loop#1[1] ann approved", "p3/loop#1[2] cy rejected"]);
  });
});
