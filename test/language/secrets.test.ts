/**
 * Secrets never leak (docs/language.md, Secrets): a `secret` / `sensitive` variable's
 * value, given as CRITERIA_VAR_<name> or --var, reaches the step's process (through
 * `secret_input` and the adapter's `secrets`) and appears on no surface: apply's events
 * (JSON and text), stderr, the journal's bytes (database, WAL), `criteria journal` (text
 * and JSON), outputs, plan, compile, diagnostics; a killed run resumes only when given
 * the secret again. Each surface is searched for the value itself.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { apply, cli, repo, stateDir } from "./helpers.js";

const workflow = join(repo, "testdata", "v05", "secrets", "main.hcl");
const TOKEN = "tok-7f3a9c1e-SECRET";
const PIN = "48151623";
const env = { CRITERIA_VAR_token: TOKEN, CRITERIA_VAR_pin: PIN };

/** Every byte of every file under `dir`, as latin1 text (binary-safe search). */
function allBytes(dir: string): string {
  let out = "";
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    out += statSync(p).isDirectory() ? allBytes(p) : readFileSync(p).toString("latin1");
  }
  return out;
}

function expectNoSecret(surface: string, text: string) {
  expect(text.includes(TOKEN), `${surface} holds the token`).toBe(false);
  expect(text.includes(PIN), `${surface} holds the pin`).toBe(false);
}

describe("secrets never leak", () => {
  it("apply: the step sees the values; events, stderr, outputs, the journal's bytes and criteria journal do not", async () => {
    const r = await apply(workflow, [], env);
    expect(r.status, r.stderr).toBe(0);
    // The step's own check (test "$TOKEN" = "$API_KEY" && test -n "$PIN") passed, and what it printed is masked.
    const done = r.events.find((e) => e.event === "step.completed") as { output: { stdout: string; stderr: string } };
    expect(done.output.stdout).toBe("key=*** tok=*** pin=*** region=eu\n");
    expect(r.completed?.outputs).toEqual({ masked: "***" });
    expectNoSecret("apply -o json stdout", r.stdout);
    expectNoSecret("apply stderr", r.stderr);
    expectNoSecret("journal database and WAL bytes", allBytes(r.state));
    for (const o of ["json", "text"]) {
      const j = cli(["journal", "r", "--state-dir", r.state, "-o", o]);
      expect(j.status, j.stderr).toBe(0);
      expectNoSecret(`criteria journal -o ${o}`, j.stdout + j.stderr);
    }
  });

  it("apply -o text, and a value given with --var", () => {
    const state = stateDir();
    const r = cli(["apply", workflow, "--state-dir", state, "--run-id", "t", "-o", "text", "--var", `token=${TOKEN}`, "--var", `pin=${PIN}`]);
    expect(r.status, r.stderr).toBe(0);
    expectNoSecret("apply -o text", r.stdout + r.stderr);
    // The run's outputs are printed after it, as Terraform does (found by a new-user trial), masked.
    expect(r.stdout).toMatch(/run t succeeded in state "done"\n\nOutputs:\n {2}masked = "\*\*\*"\n$/);
    expectNoSecret("journal bytes", allBytes(state));
  });

  it("plan, compile and validate show no value", () => {
    for (const args of [["plan", workflow], ["compile", workflow, "--format", "json"], ["compile", workflow, "--format", "dot"], ["validate", workflow, "--format", "json"]]) {
      const r = cli(args, env);
      expect(r.status, `${args.join(" ")}: ${r.stderr}`).toBe(0);
      expectNoSecret(args.join(" "), r.stdout + r.stderr);
    }
  });

  it("a value that does not fit the type is refused without being shown", () => {
    const r = cli(["apply", workflow, "--state-dir", stateDir(), "-o", "json"], { CRITERIA_VAR_token: TOKEN, CRITERIA_VAR_pin: "pin-not-a-number-XYZ" });
    expect(r.status).toBe(2);
    expect(r.stdout + r.stderr).toContain("CRITERIA_VAR_pin");
    expect(r.stdout + r.stderr).not.toContain("pin-not-a-number-XYZ");
  });

  it("a killed run resumes only with its secrets given again (they are not journaled)", () => {
    const state = stateDir();
    const first = cli(["apply", workflow, "--state-dir", state, "--run-id", "k", "-o", "json"], { ...env, CRITERIA_FAULT_KILL_AFTER_SEQ: "2" });
    expect(first.status).toBe(null);
    const refused = cli(["resume", "k", "--state-dir", state, "-o", "json"]);
    expect(refused.status).toBe(2);
    expect(refused.stdout + refused.stderr).toMatch(/secret variables "token", "pin" are not journaled/);
    const again = cli(["resume", "k", "--state-dir", state, "-o", "json", "--var", `token=${TOKEN}`], { CRITERIA_VAR_pin: PIN });
    expect(again.status, again.stderr).toBe(0);
    expectNoSecret("resume output", again.stdout + again.stderr);
    expectNoSecret("journal bytes after resume", allBytes(state));
  });
});

describe("secrets never leak through side doors (a new user's findings)", () => {
  const dir = join(repo, "testdata", "v05", "secrets");

  it("a plugin adapter's stderr is shown masked, also when it crashes printing a secret", async () => {
    const r = await apply(join(dir, "leaky", "main.hcl"), [], { CRITERIA_VAR_tok: TOKEN });
    expect(r.stderr).toContain("debug env:");
    expectNoSecret("plugin stderr", r.stdout + r.stderr);
    expectNoSecret("journal bytes", allBytes(r.state));
  });

  it("a condition's error message that quoted part of a secret is withheld, keeping its position", async () => {
    const r = await apply(join(dir, "derived", "main.hcl"), [], { CRITERIA_VAR_tok: "averyveryverylongsecretvalue_xyz123" });
    expect(r.completed).toMatchObject({ success: false, reason: "eval_error" });
    // At the failing var.tok inside the condition (18:17 is where it starts): the whole expression's messages are withheld.
    expect(String(r.completed?.detail)).toMatch(/derived\/main\.hcl:18:28: the expression failed; its message is withheld because the expression reads a secret/);
    for (const piece of ["averyveryv", "averyveryverylongsecretvalue_xyz123"]) {
      expect((r.stdout + r.stderr).includes(piece), piece).toBe(false);
      expect(allBytes(r.state).includes(piece), piece).toBe(false);
    }
  });

  it("an output cut through a secret masks the piece that is left", async () => {
    const r = await apply(join(dir, "truncated", "main.hcl"), [], { CRITERIA_VAR_tok: "hunter2secret" });
    const done = r.events.find((e) => e.event === "step.completed") as { output: { stdout: string } };
    expect(done.output.stdout).toBe("***");
    for (const piece of ["unter2secret", "hunter2secret"]) expect(allBytes(r.state).includes(piece), piece).toBe(false);
  });
});

describe("secrets never leak through a step's environment or a value's undeclared parts (a new-user trial)", () => {
  it("a step's process sees no CRITERIA_VAR_<name> it was not given, and the journal holds neither an object's undeclared key nor a map's keys", async () => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-side-"));
    const file = join(dir, "main.hcl");
    writeFileSync(
      file,
      `workflow {\n  name = "side"\n  version = "1"\n  initial_state = "peek"\n  target_state = "done"\n}\nvariable "cfg" {\n  type = object({ key = string })\n  secret = true\n}\nvariable "mapv" {\n  type = map(string)\n  secret = true\n}\nvariable "tok" {\n  type = string\n  secret = true\n}\nadapter "shell" "default" {}\nstep "peek" {\n  target = adapter.shell.default\n  input { command = "printf 'seen:%s' \\"$CRITERIA_VAR_tok$CRITERIA_VAR_cfg\\" | rev" }\n  secret_input {\n    KEY  = var.cfg.key\n    MAPV = jsonencode(var.mapv)\n    TOK  = var.tok\n  }\n  outcome "success" { next = "done" }\n}\nstate "done" { terminal = true }\n`,
    );
    const r = await apply(file, [], { CRITERIA_VAR_tok: TOKEN, CRITERIA_VAR_cfg: '{"key":"KeySecretValue","extra":"ExtraSecretValue"}', CRITERIA_VAR_mapv: '{"MapKeySecretName":"MapValSecretValue"}' });
    expect(r.status, r.stderr).toBe(0);
    // The step printed what it saw of them, reversed (past the masking): nothing.
    const done = r.events.find((e) => e.event === "step.completed") as { output: { stdout: string } };
    expect(done.output.stdout).toBe(":nees");
    const bytes = allBytes(r.state);
    for (const piece of [TOKEN, "KeySecretValue", "ExtraSecretValue", "MapKeySecretName", "MapValSecretValue"]) expect(bytes.includes(piece), piece).toBe(false);
  });
});

describe("a secret map's keys are part of it (a new-user trial: o_m = {\"MAPKEYsecret\":\"***\"} was shown and journaled)", () => {
  it("are masked in what a step prints, in outputs and in the journal; an object type's keys (the workflow's names) are not", async () => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-mapkeys-"));
    const file = join(dir, "main.hcl");
    writeFileSync(
      file,
      `workflow "w" {\n  version = "1"\n  initial_state = "s"\n  target_state = "done"\n}\nvariable "m" {\n  type = map(string)\n  secret = true\n}\nvariable "o" {\n  type = object({ key = string })\n  secret = true\n}\nadapter "shell" "default" {}\nstep "s" {\n  target = adapter.shell.default\n  input { command = "echo \\"$M $O\\"" }\n  secret_input {\n    M = jsonencode(var.m)\n    O = jsonencode(var.o)\n  }\n  outcome "success" { next = "done" }\n}\nstate "done" { terminal = true }\noutput "o_m" {\n  value = var.m\n  secret = true\n}\n`,
    );
    const r = await apply(file, ["--var", 'm={MAPKEYsecret="MAPVALsecret"}', "--var", 'o={key="KEYVALsecret"}']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.completed?.outputs).toEqual({ o_m: { "***": "***" } });
    const done = r.events.find((e) => e.event === "step.completed") as { output: { stdout: string } };
    expect(done.output.stdout).toBe("*** ***\n");
    const j = cli(["journal", "r", "--state-dir", r.state, "-o", "json"]);
    for (const piece of ["MAPKEYsecret", "MAPVALsecret", "KEYVALsecret"]) {
      expect(allBytes(r.state).includes(piece), piece).toBe(false);
      expect((r.stdout + r.stderr + j.stdout).includes(piece), piece).toBe(false);
    }
  });
});

describe("masking never changes what a run decides by (a new-user trial: a secret false made a failed run succeed, a secret \"success\" made every outcome unknown)", () => {
  it("a bool secret and a secret equal to an outcome's name: the run routes and ends as without them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-control-"));
    const file = join(dir, "main.hcl");
    writeFileSync(
      file,
      `workflow "wf3" {\n  version = "1"\n  initial_state = "s1"\n  target_state = "done"\n}\nvariable "flag" {\n  type = bool\n  secret = true\n}\nvariable "tok" {\n  type = string\n  secret = true\n}\nadapter "shell" "default" {}\nstep "s1" {\n  target = adapter.shell.default\n  input { command = "echo hi" }\n  secret_input {\n    T = var.tok\n  }\n  outcome "success" { next = "sw" }\n}\nswitch "sw" {\n  match {\n    condition = steps.s1.stdout_truncated == false && var.flag\n    next      = "done"\n  }\n  default = "odd"\n}\nstate "done" { terminal = true }\nstate "odd" {\n  terminal = true\n  success = false\n}\n`,
    );
    const ran = await apply(file, ["--var", "flag=true"], { CRITERIA_VAR_tok: "success" });
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.completed).toMatchObject({ state: "done", success: true });
    expect(ran.entries.find((e) => e.entry_type === "step.completed")?.payload).toMatchObject({ outcome: "success", next: "sw" });
    const odd = await apply(file, ["--var", "flag=false"], { CRITERIA_VAR_tok: "success" });
    expect(odd.status).toBe(1);
    expect(odd.completed).toMatchObject({ state: "odd", success: false });
    expect(odd.stdout).toContain('secret variable \\"flag\\" is true or false, which are everywhere: criteria cannot mask it');
  });
});

describe("secrets are checked at validate time", () => {
  it("a secret read into an input, a template or a plain output is refused at its position", () => {
    const r = cli(["validate", join(repo, "testdata", "invalid", "secret_exposed.hcl"), "--format", "json"]);
    expect(r.status).toBe(1);
    const codes = (JSON.parse(r.stdout) as { diagnostics: { code: string }[] }).diagnostics.map((d) => d.code);
    expect(codes.filter((c) => c === "secret_exposed").length).toBeGreaterThanOrEqual(2);
  });
});
