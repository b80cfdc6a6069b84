/**
 * Found by a new-user trial: a shell adapter's config with a typo (`timout`), a value of the
 * wrong kind (`max_output_bytes = "lots"`), a bare-number `timeout` (5 ms), a step's
 * `command = ["echo", "hi"]` and a misspelled `outcome "succes"` all passed validate; at run
 * time the config and input mistakes were adapter_errors routed through the step's `failure`
 * outcome, so the run "succeeded". Now validate refuses them (from the one description of
 * the built-in adapters' fields, compiler/resolve/adapter-fields.ts). A value known only at
 * run time is still an adapter_error, routed through `failure` as a timeout or a crash is
 * (an agent's unreadable answer is one too: a loop routes it back to try again), and said
 * with its reason and place on the step's line.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, ndjson, temp } from "./helpers.js";

const head = (name: string, first: string) => `workflow {
  name          = "${name}"
  version       = "1"
  initial_state = "${first}"
  target_state  = "done"
}
`;

/** The trial's own files, kept as goldens (testdata/invalid): one copy of each input. */
const trial = (name: string) => readFileSync(join(import.meta.dirname, "..", "..", "testdata", "invalid", `${name}.hcl`), "utf8");
const CFG = trial("found_shell_config_fields");
const E14 = trial("found_shell_command_list");
const E3 = trial("found_shell_outcome_typo");

function write(dir: string, name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** `code at line:col` of each diagnostic of `criteria validate --format json`. */
function problems(path: string): { status: number | null; found: string[]; hints: (string | undefined)[] } {
  const r = cli(["validate", path, "--format", "json"]);
  const out = JSON.parse(r.stdout) as { diagnostics: { severity: string; code: string; message: string; hint?: string; range: { start: { line: number; column: number } } }[] };
  return {
    status: r.status,
    found: out.diagnostics.map((d) => `${d.severity} ${d.code} at ${d.range.start.line}:${d.range.start.column}: ${d.message}`),
    hints: out.diagnostics.map((d) => d.hint),
  };
}

describe("built-in adapters' fields and outcomes (found by a new-user trial)", () => {
  it("validate refuses a shell config's unknown key (did-you-mean), a bare-number timeout and a value of the wrong kind", () => {
    const p = problems(write(temp(), "cfg.hcl", CFG));
    expect(p.status).toBe(1);
    expect(p.found).toEqual([
      'error invalid_type at 10:15: adapter "shell" "default": config.timeout: expected a duration such as "30s" (a quoted string with a unit), got number 5',
      'error unknown_field at 11:5: adapter "shell" "default": the shell adapter has no config field "timout"',
      'error invalid_type at 12:24: adapter "shell" "default": config.max_output_bytes: expected a whole non-negative number, got string "lots"',
    ]);
    expect(p.hints).toEqual(['a duration is a quoted string with a unit: timeout = "5s" for 5 seconds, "5ms" for milliseconds', 'did you mean "timeout"?', "write a number without quotes: max_output_bytes = 65536"]);
  });

  it("validate refuses a shell step's command written as a list", () => {
    const p = problems(write(temp(), "e14.hcl", E14));
    expect(p.status).toBe(1);
    expect(p.found).toEqual(['error invalid_type at 13:15: step "a": input.command: expected a non-empty string, got list']);
    expect(p.hints).toEqual(['write one string: command = "echo hi"']);
  });

  it("validate refuses a shell step whose declared outcome is a typo of success", () => {
    const p = problems(write(temp(), "e3.hcl", E3));
    expect(p.status).toBe(1);
    expect(p.found).toEqual([
      'error missing_outcome at 13:11: step "execute" runs on shell, which ends in "success" when the command exits 0, but the step declares "succes" (only a CRITERIA_OUTCOME=succes line from the command could choose it) and no "success"',
    ]);
    expect(p.hints).toEqual(['did you mean outcome "success"?']);
  });

  it("a config duration string is accepted and bounds the command", () => {
    const dir = temp();
    const path = write(dir, "t.hcl", CFG.replace('    timeout = 5\n    timout  = "1s"\n    max_output_bytes = "lots"\n', '    timeout = "100ms"\n'));
    expect(cli(["validate", path]).stdout).toBe(`${path}: ok\n`);
    const r = cli(["apply", path, "--state-dir", join(dir, "s"), "-o", "json"]);
    const done = ndjson(r.stdout).find((e) => e.event === "step.completed" && e.step === "ci");
    expect(done).toMatchObject({ outcome: "failure", reason: "timeout", detail: expect.stringContaining("timed out after 100 ms") });
  });

  it("an adapter_error known only at run time takes the step's failure outcome, its reason and detail said on the step's line", () => {
    const dir = temp();
    const path = write(
      dir,
      "rt.hcl",
      CFG.replace('    timeout = 5\n    timout  = "1s"\n    max_output_bytes = "lots"\n', "    max_output_bytes = var.limit\n").replace(
        'adapter "shell"',
        'variable "limit" {\n  type    = string\n  default = "lots"\n}\n\nadapter "shell"',
      ),
    );
    expect(cli(["validate", path]).stdout).toBe(`${path}: ok\n`);
    const r = cli(["apply", path, "--state-dir", join(dir, "s"), "-o", "text"]);
    expect(r.stdout + r.stderr).toMatch(/ci → failure → done {2}\[adapter_error at .*rt\.hcl:\d+:\d+: shell adapter adapter\.shell\.default: config\.max_output_bytes: expected a whole non-negative number, got string "lots"\]/);
  });

  it("a byte count that is not whole and a duration under a millisecond are refused by validate (found by a trial: max_output_bytes = 1.5 crashed the run with a RangeError; timeout = \"0s\" timed every step out)", () => {
    const dir = temp();
    const path = write(dir, "mo.hcl", CFG.replace('    timeout = 5\n    timout  = "1s"\n    max_output_bytes = "lots"\n', '    max_output_bytes = 1.5\n    timeout = "0s"\n'));
    const p = problems(path);
    expect(p.status).toBe(1);
    expect(p.found).toEqual([
      'error invalid_value at 10:24: adapter "shell" "default": config.max_output_bytes: expected a whole non-negative number, got number 1.5',
      'error invalid_value at 11:15: adapter "shell" "default": config.timeout: a duration of "0s" would end the work before it starts: give at least 1ms',
    ]);
  });

  it("an empty command's hint asks for text, not for quotes it has (found by a trial)", () => {
    const p = problems(write(temp(), "e.hcl", `${head("e", "a")}adapter "shell" "default" {}\nstep "a" {\n  target = adapter.shell.default\n  input { command = "" }\n  outcome "success" { next = state.done }\n}\nstate "done" {\n  terminal = true\n}\n`));
    expect(p.found).toEqual(['error invalid_value at 10:21: step "a": input.command: expected a non-empty string, got an empty one']);
    expect(p.hints).toEqual(['give it some text: command = "make test"']);
  });

  it("a noop step whose input.result is a typo of its outcome offers the result's spelling first (found by a trial: the typo was offered as the outcome)", () => {
    const p = problems(write(temp(), "oc.hcl", `${head("oc", "three")}adapter "noop" "default" {}\nstep "three" {\n  target = adapter.noop.default\n  input { result = "aproved" }\n  outcome "approved" { next = state.done }\n  outcome "failure"  { next = state.done }\n}\nstate "done" {\n  terminal = true\n}\n`));
    expect(p.status).toBe(1);
    expect(p.hints).toEqual(['did you mean result = "approved"? (or outcome "aproved")']);
  });
});
