/**
 * Command-line values and flags refused up front as usage errors (exit 2), each naming
 * what was wrong (found by a new-user trial).
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, temp } from "./helpers.js";

const WF = `workflow "w" {\n  version = "1"\n  initial_state = "done"\n  target_state = "done"\n}\nstate "done" { terminal = true }\n`;

describe("JSON given on the command line", () => {
  const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;

  it("nesting past the 64-level limit of --var-file is refused in --payload, --input and --input @file, naming the flag (a new-user trial: a journal write error, and 'not JSON')", () => {
    const dir = temp();
    writeFileSync(join(dir, "w.hcl"), WF);
    writeFileSync(join(dir, "in.json"), `{"task": ${deep(10_000)}}`);
    const payload = cli(["signal", "r", "go", "--payload", `{"outcome":"a","x":${deep(10_000)}}`, "--state-dir", "state"], { cwd: dir });
    expect([payload.status, payload.stderr]).toEqual([2, "criteria: --payload: values nest deeper than 64 levels, the limit; flatten the value\n"]);
    const input = cli(["apply", "w.hcl", "-o", "text", "--input", `{"task":${deep(10_000)}}`], { cwd: dir });
    expect([input.status, input.stderr]).toEqual([2, "criteria: --input: values nest deeper than 64 levels, the limit; flatten the value\n"]);
    const file = cli(["apply", "w.hcl", "-o", "text", "--input", "@in.json"], { cwd: dir });
    expect(file.status).toBe(2);
    expect(file.stderr).toMatch(/^criteria: --input @in\.json:1:\d+: values nest deeper than 64 levels \(hint: flatten the value/);
    // Block-style YAML nests by indentation, which no bracket count sees (a trial: 800 levels passed, 1,200 overflowed the stack).
    writeFileSync(join(dir, "deep.yaml"), ["a:", ...Array.from({ length: 1200 }, (_, i) => `${"  ".repeat(i + 1)}b${i}:`), `${"  ".repeat(1201)}x: 1`].join("\n") + "\n");
    const yaml = cli(["apply", "w.hcl", "-o", "text", "--input", "@deep.yaml"], { cwd: dir });
    expect(yaml.status).toBe(2);
    expect(yaml.stderr).toMatch(/^criteria: --input @deep\.yaml:65:\d+: values nest deeper than 64 levels \(hint: flatten the value/);
    // At the limit, the payload is taken (and the run looked for).
    expect(cli(["signal", "r", "go", "--payload", deep(64), "--state-dir", "state"], { cwd: dir }).stderr).toContain("no journal");
  }, 60_000);

  it("--payload that is not JSON says where and why, as --input does", () => {
    const r = cli(["signal", "r", "go", "--payload", "{bad", "--state-dir", "state"], { cwd: temp() });
    expect(r.status).toBe(2);
    // The parser's own words (Node's), with the position.
    expect(r.stderr).toMatch(/^criteria: --payload: not JSON \(.*position 1.*\); write a JSON value, e\.g\. --payload '\{"outcome": "approved"\}'\n$/);
  });
});

describe("empty settings", () => {
  it("an empty CRITERIA_STATE_DIR is unset, as an empty CRITERIA_STORE is: the journal goes to .criteria (a new-user trial: journal.db was written into the working directory)", () => {
    const dir = temp();
    writeFileSync(join(dir, "w.hcl"), WF);
    const r = cli(["apply", "w.hcl", "-o", "text", "--run-id", "e"], { cwd: dir, env: { CRITERIA_STATE_DIR: "", CRITERIA_STORE: "" } });
    expect(r.status).toBe(0);
    expect(existsSync(join(dir, ".criteria", "journal.db"))).toBe(true);
    expect(existsSync(join(dir, "journal.db"))).toBe(false);
    expect(cli(["runs"], { cwd: dir, env: { CRITERIA_STATE_DIR: "" } }).stdout).toContain("e");
  });
});

describe("empty paths", () => {
  it("an empty PATH is refused, not read as the current directory (a new-user trial: validate '' printed ': ok', apply '' ran the workflow in the working directory)", () => {
    const dir = temp();
    writeFileSync(join(dir, "w.hcl"), WF);
    const refusal = `criteria: the path is empty (""); give a workflow file or directory (. for the current directory)\n`;
    for (const args of [["validate", ""], ["validate", "w.hcl", ""], ["compile", ""], ["graph", ""], ["plan", ""], ["apply", ""], ["fmt", "--to", "v0.5", ""]]) {
      const r = cli(args, { cwd: dir });
      expect([args, r.status, r.stdout, r.stderr]).toEqual([args, 2, "", refusal]);
    }
    expect(existsSync(join(dir, ".criteria"))).toBe(false);
  }, 60_000);
});

describe("flags that disagree", () => {
  it("validate refuses -o and --format that disagree, as journal does (a new-user trial: -o sarif --format json printed SARIF silently); the same twice is taken", () => {
    const dir = temp();
    writeFileSync(join(dir, "w.hcl"), WF);
    const r = cli(["validate", "-o", "sarif", "--format", "json", "w.hcl"], { cwd: dir });
    expect([r.status, r.stderr]).toEqual([2, "criteria: -o sarif and --format json disagree; give one of them\n"]);
    const same = cli(["validate", "-o", "sarif", "--format", "sarif", "w.hcl"], { cwd: dir });
    expect([same.status, (JSON.parse(same.stdout) as { version: string }).version]).toEqual([0, "2.1.0"]);
    expect(cli(["validate", "-o", "json", "w.hcl"], { cwd: dir }).status).toBe(0);
  });

  it("apply and resume refuse --wait with --no-wait (a new-user trial: the last one won silently)", () => {
    const dir = temp();
    writeFileSync(join(dir, "w.hcl"), WF);
    for (const args of [["apply", "w.hcl", "--wait", "--no-wait"], ["apply", "w.hcl", "--no-wait", "-o", "text", "--wait"], ["resume", "r", "--no-wait", "--wait"]]) {
      const r = cli(args, { cwd: dir });
      expect([args, r.status, r.stderr]).toEqual([args, 2, "criteria: --wait and --no-wait disagree; give one of them\n"]);
    }
    expect(existsSync(join(dir, ".criteria"))).toBe(false);
    expect(cli(["apply", "w.hcl", "--wait", "--wait", "-o", "text"], { cwd: dir }).status).toBe(0);
  });

  it("graph --format json is a usage error in text alone: graph's --format is its picture's, and only -o json asks for errors as JSON (a new-user trial: a JSON exit object on stdout too)", () => {
    const r = cli(["graph", "nope.hcl", "--format", "json"], { cwd: temp() });
    expect([r.status, r.stdout]).toEqual([2, ""]);
    expect(r.stderr).toContain("argument 'json' is invalid. Allowed choices are svg, dot, mermaid.");
    // compile's --format json is its output's: an error is one JSON object there.
    const c = cli(["compile", "nope.hcl", "--format", "json"], { cwd: temp() });
    expect((JSON.parse(c.stdout) as { event: string }).event).toBe("exit");
  });
});

describe("clearer refusals", () => {
  it("apply - says apply does not read standard input (a new-user trial: '- does not exist … check the path')", () => {
    const dir = temp();
    const r = cli(["apply", "-", "-o", "text"], { cwd: dir, input: WF });
    expect([r.status, r.stderr]).toEqual([2, "criteria: -: apply does not read standard input; give the workflow file's path (validate, compile, graph, plan and fmt read -)\n"]);
  });

  it("a file .criteria in the working directory is 'a file, not a state directory' to apply, as to runs (a new-user trial: 'cannot open the journal …: it is not a directory')", () => {
    const dir = temp();
    writeFileSync(join(dir, "w.hcl"), WF);
    writeFileSync(join(dir, ".criteria"), "");
    const r = cli(["apply", "w.hcl", "-o", "text"], { cwd: dir });
    expect([r.status, r.stderr]).toEqual([1, `criteria: ${join(dir, ".criteria")} is a file, not a state directory; move it aside, or give --state-dir another directory\n`]);
  });
});

describe("settings", () => {
  it("a CRITERIA_LEASE_TTL_MS that is no lease period is a settings error (exit 2) said before any journal is opened (a new-user trial: 'cannot open the journal …', exit 1)", () => {
    const dir = temp();
    writeFileSync(join(dir, "w.hcl"), WF);
    for (const args of [["apply", "w.hcl", "-o", "text"], ["runs"]]) {
      const r = cli(args, { cwd: dir, env: { CRITERIA_LEASE_TTL_MS: "abc" } });
      expect([args, r.status, r.stderr]).toEqual([args, 2, 'criteria: CRITERIA_LEASE_TTL_MS: "abc" is not a lease period (a whole number of milliseconds from 100 to 86,400,000; 30000, 30 s, when unset)\n']);
    }
    expect(existsSync(join(dir, ".criteria"))).toBe(false);
  });
});

describe("--stdin-name", () => {
  it("is refused without - among the PATHs, as it names standard input (a new-user trial: validate --stdin-name f.yaml file.hcl ignored it silently)", () => {
    const dir = temp();
    writeFileSync(join(dir, "w.hcl"), WF);
    for (const args of [["validate"], ["compile"], ["graph"], ["plan"], ["fmt", "--to", "v0.5"]]) {
      const r = cli([...args, "--stdin-name", "f.yaml", "w.hcl"], { cwd: dir });
      expect([args, r.status, r.stderr]).toEqual([args, 2, "criteria: --stdin-name f.yaml: it names standard input, which is read with - as the PATH; give -, or drop --stdin-name\n"]);
    }
    // Empty, it names nothing (a trial: validate --stdin-name '' - printed ": ok").
    const empty = cli(["validate", "--stdin-name", "", "-"], { cwd: dir, input: WF });
    expect([empty.status, empty.stderr]).toEqual([2, "criteria: --stdin-name is empty; give the file the text stands for (e.g. --stdin-name workflow.hcl), or drop it\n"]);
    // With -, among other PATHs too, it is taken.
    expect(cli(["validate", "--stdin-name", "f.hcl", "-", "w.hcl"], { cwd: dir, input: WF }).stdout).toBe("f.hcl: ok\nw.hcl: ok\n");
  }, 60_000);
});
