/**
 * `--var-file` (cli/run-inputs.ts `parseVars`): a `.json` file is strict JSON and any
 * other YAML, read as the compiler reads workflow files, and a syntax error is a usage
 * error (exit 2) at `FILE:line:col` with the parser's message (found by a new-user
 * trial: a JSON file with a trailing comma was accepted, and errors were worded as YAML's
 * and cut off before their position).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CliError, EXIT } from "../cli/io.js";
import { checkInput, parseVars } from "../cli/run-inputs.js";
import { graphOf } from "./engine/graph-of.js";

const WORKFLOW = `workflow "v" {\n  version = "1"\n  initial_state = "done"\n  target_state = "done"\n}\nvariable "a" { type = number }\nvariable "tags" {\n  type    = list(string)\n  default = []\n}\nstate "done" { terminal = true }\n`;

/** The usage error parseVars throws for a var file holding `text`, as `exit: message`. */
async function refusal(name: string, text: string | Buffer): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "criteria-varfile-"));
  const file = join(dir, name);
  writeFileSync(file, text);
  try {
    parseVars(await graphOf(WORKFLOW), [], [file], {}, {});
  } catch (e) {
    expect(e).toBeInstanceOf(CliError);
    return `${(e as CliError).exitCode}: ${(e as Error).message.split(dir + "/").join("")}`;
  }
  throw new Error("expected a usage error");
}

describe("--var-file", () => {
  it("reads a JSON or a YAML mapping of variables", async () => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-varfile-"));
    writeFileSync(join(dir, "v.json"), '{"a": 3, "tags": ["x"]}');
    writeFileSync(join(dir, "v.yaml"), "a: 4\n");
    const g = await graphOf(WORKFLOW);
    expect({ ...parseVars(g, [], [join(dir, "v.json")], {}, {}) }).toEqual({ a: 3, tags: ["x"] });
    expect({ ...parseVars(g, [], [join(dir, "v.json"), join(dir, "v.yaml")], {}, {}) }).toEqual({ a: 4, tags: ["x"] });
  });

  it("an HCL var file (the Go tool reads them) is said to be not read yet, with what to write instead (found by a trial of its language: \"expected a mapping\")", async () => {
    expect(await refusal("v.hcl", 'a = 3\ntags = ["x"]\n')).toBe(`${EXIT.usage}: --var-file v.hcl: HCL var files are not read yet; write it as JSON (v.json) or YAML, name: value per line`);
    expect(await refusal("v.yaml", "- a\n")).toBe(`${EXIT.usage}: --var-file v.yaml: expected a mapping of variable names to values`);
  });

  it("a .json file is strict JSON: a trailing comma or a bare word is refused at its line and column", async () => {
    // The comma is what is wrong, and said so (was reported at the "}" after it).
    expect(await refusal("v.json", '{\n  "a": 1,\n}\n')).toBe(`${EXIT.usage}: --var-file v.json:2:9: a trailing comma before "}" is not allowed in JSON (hint: a .json var file is strict JSON: no comments, no trailing commas, quoted keys)`);
    // Node 20 gives this one no position: it was reported at 1:1, over three lines (a new-user trial of CI use).
    expect(await refusal("v.json", '{\n  "n": 2,\n  "tags": ["a",]\n}\n')).toBe(`${EXIT.usage}: --var-file v.json:3:15: a trailing comma before "]" is not allowed in JSON (hint: a .json var file is strict JSON: no comments, no trailing commas, quoted keys)`);
    expect(await refusal("v.json", '{\n  "ok": tru\n}')).toMatch(/^2: --var-file v\.json:2:9: unexpected "tru" /);
    expect(await refusal("v.json", '{"a": 1')).toMatch(/^2: --var-file v\.json:1:8: /);
    expect(await refusal("v.json", "// vars\n{}")).toMatch(/^2: --var-file v\.json:1:1: /);
    // Cut short: wrong at its end, not at 1:1 (found by a new-user trial; Node 20 gives no position).
    expect(await refusal("v.json", '{"tag": ')).toMatch(/^2: --var-file v\.json:1:9: a value is expected, found the end of the text/);
    expect(await refusal("v.json", '{\n  "tag": [1,\n')).toMatch(/^2: --var-file v\.json:3:1: /);
  });

  it("a YAML file's syntax error is positioned and worded as validate words it, on one line", async () => {
    // At the bracket never closed, and at the tab itself (as validate says them since a trial of YAML authoring).
    const m = await refusal("v.yaml", "a: [1\n");
    expect(m).toMatch(/^2: --var-file v\.yaml:1:4: this "\[" is never closed[^\n]+$/);
    expect(m).not.toMatch(/:\s*$/);
    expect(await refusal("v.yml", "a: 1\n\tb: 2\n")).toMatch(/^2: --var-file v\.yml:2:1: Tabs/);
  });

  it("a file that holds no mapping, or is missing, says so", async () => {
    expect(await refusal("v.json", "[1, 2]")).toBe("2: --var-file v.json: expected a mapping of variable names to values");
    await expect(async () => parseVars(await graphOf(WORKFLOW), [], ["/nonexistent/v.json"], {}, {})).rejects.toThrow("--var-file /nonexistent/v.json: no such file");
  });

  it("is read as workflow files are: a BOM dropped; UTF-16 and bad UTF-8 refused by name (found by a second trial)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-varfile-"));
    writeFileSync(join(dir, "bom.json"), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a": 5}')]));
    expect({ ...parseVars(await graphOf(WORKFLOW), [], [join(dir, "bom.json")], {}, {}) }).toEqual({ a: 5 });
    const wide = await refusal("v.json", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"a": 1}', "utf16le")]));
    expect(wide).toMatch(/^2: --var-file v\.json is UTF-16LE \(little-endian\) text, not UTF-8 \(hint: save the file as UTF-8/);
    const latin1 = await refusal("v.yaml", Buffer.from([0x74, 0x61, 0x67, 0x3a, 0x20, 0xe9]));
    expect(latin1).toMatch(/^2: --var-file v\.yaml is not valid UTF-8 \(bad byte 0xe9 at byte 5\)/);
  });

  it("a number no variable can hold (infinite, not a number) is refused, not journaled as null", async () => {
    expect(await refusal("v.json", '{"a": 1e400}')).toBe("2: --var-file v.json: Infinity is not a finite number; write it as a string");
    expect(await refusal("v.yaml", "a: .nan\n")).toBe("2: --var-file v.yaml: NaN is not a finite number; write it as a string");
    await expect(async () => parseVars(await graphOf(WORKFLOW), ["a=1e400"], [], {}, {})).rejects.toThrow('--var a: "1e400" is beyond the largest number');
  });

  it("a JSON error's message is one line, and the strict-JSON hint goes with syntax errors only", async () => {
    const m = await refusal("v.json", '{\n  "s": "abc",\n  "a": nope\n}\n');
    expect(m).not.toContain("\n");
    expect(m).toMatch(/^2: --var-file v\.json:\d+:\d+: /);
    const unknown = await refusal("v.json", '{"zz": 1}');
    expect(unknown).toMatch(/unknown variable "zz"/);
    expect(unknown).not.toMatch(/strict JSON/);
  });
});

describe("--var for a bool", () => {
  it("takes true, false, 1 and 0, as the Go tool's (workflow.md: \"bool variables accept only true, false, 1, or 0\"; found by a new-user trial); anything else is a usage error", async () => {
    const g = await graphOf(`workflow "v" {\n  version = "1"\n  initial_state = "done"\n  target_state = "done"\n}\nvariable "flag" { type = bool }\nstate "done" { terminal = true }\n`);
    for (const [raw, want] of [["true", true], ["1", true], ["false", false], ["0", false]] as const) expect({ ...parseVars(g, [`flag=${raw}`], [], {}, {}) }).toEqual({ flag: want });
    let thrown: unknown;
    try {
      parseVars(g, ["flag=yes"], [], {}, {});
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(CliError);
    expect((thrown as CliError).exitCode).toBe(EXIT.usage);
    expect((thrown as Error).message).toBe('--var flag: "yes" is not true or false (or 1 or 0)');
  });
});

describe("--var for a list", () => {
  it("a bare word is refused with the list to write instead (found by a new-user trial: --var services=api)", async () => {
    const g = await graphOf(WORKFLOW);
    expect({ ...parseVars(g, ['a=1', 'tags=["api", "web"]'], [], {}, {}) }).toEqual({ a: 1, tags: ["api", "web"] });
    expect(() => parseVars(g, ["a=1", "tags=api"], [], {}, {})).toThrow(`--var tags: variable "tags": "api" is not a list (type list(string)); write a list: --var 'tags=["api"]'`);
  });
});

describe("--input keys", () => {
  const flow = (reads: string) => `workflow "f" {\n  version = "1"\n  initial_state = "s"\n  target_state = "done"\n}\nvariable "mode" {\n  type    = string\n  default = "m"\n}\nadapter "noop" "default" {}\nstep "s" {\n  target = adapter.noop.default\n  input { said = ${reads} }\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n`;

  it("a key neither read nor declared is a usage error, unless the workflow reads its input whole (a new-user trial: taken silently)", async () => {
    const named = await graphOf(flow("input.task"));
    expect(named.input_any).toBeUndefined();
    expect(() => checkInput(named, { task: "t", mode: "x" }, [])).not.toThrow();
    const thrown = (() => {
      try {
        checkInput(named, { task: "t", zzz: 1 }, []);
      } catch (e) {
        return e;
      }
    })();
    expect(thrown).toBeInstanceOf(CliError);
    expect((thrown as CliError).exitCode).toBe(EXIT.usage);
    expect((thrown as CliError).message).toBe(`--input "zzz": workflow "f" neither reads input.zzz nor declares variable "zzz"; expected one of "mode", "task"`);
    for (const whole of ['lookup(input, "task", "")', "jsonencode(input)"]) {
      const g = await graphOf(flow(whole));
      expect(g.input_any, whole).toBe(true);
      expect(() => checkInput(g, { anything: 1 }, [])).not.toThrow();
    }
  });

  it("a missing key given under a typo is named with what it may have meant (found by a new-user trial: --input '{\"tsk\": \"x\"}')", async () => {
    const named = await graphOf(flow("input.task"));
    expect(() => checkInput(named, { tsk: "x" }, [])).toThrow(`workflow "f" reads input.task: pass --input '{"task":"..."}' (--input "tsk" is not one of its keys; did you mean "task"?)`);
    expect(() => checkInput(named, { zzz: "x" }, [])).toThrow(/^workflow "f" reads input\.task: pass --input '\{"task":"\.\.\."\}'$/);
  });
});
