/**
 * YAML and JSON syntax errors said as the mistake a writer made, once, where it was made
 * (compiler/parse/yaml-error.ts), found by a new-user trial writing YAML and JSON: a tab
 * was said two columns after it and then on a correct line, a key indented two spaces
 * short gave three errors on other lines, `key:value` and `key = value` were "Implicit
 * keys need to be on a single line", an unclosed `{` was said on the next line, `\q` was
 * told about indentation, and a duplicate key did not say where the first one is. The
 * inputs are the trial's files (testdata/invalid), with variants of them.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compile } from "../../compiler/index.js";
import type { Diagnostic } from "../../compiler/diagnostics/diagnostic.js";

const invalid = join(import.meta.dirname, "..", "..", "testdata", "invalid");
const base = readFileSync(join(invalid, "yaml_invalid_escape.yaml"), "utf8").replace(' \\q"', '"');

/** Compiles `text` as a file named `name` (its extension is its dialect); each diagnostic as `line:col-line:col code: message`. */
async function said(name: string, text: string): Promise<{ lines: string[]; diagnostics: Diagnostic[] }> {
  const file = join(mkdtempSync(join(tmpdir(), "criteria-yamlsyn-")), name);
  writeFileSync(file, text);
  const c = await compile(file);
  const lines = c.diagnostics.map((d) => `${d.range.start.line}:${d.range.start.column}-${d.range.end.line}:${d.range.end.column} ${d.code}: ${d.message}`);
  return { lines, diagnostics: c.diagnostics };
}

/** The base file with its line `n` (1-based) replaced. */
function withLine(n: number, line: string): string {
  const lines = base.split("\n");
  lines[n - 1] = line;
  return lines.join("\n");
}

describe("YAML syntax errors a new-user trial made", () => {
  it("the trial's base file is valid", async () => {
    expect((await said("w.yaml", base)).lines.filter((l) => !l.includes("warning"))).toEqual([]);
  });

  it("an invalid escape is told to use single quotes or \\\\", async () => {
    const { diagnostics } = await said("w.yaml", readFileSync(join(invalid, "yaml_invalid_escape.yaml"), "utf8"));
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0].range.start).toMatchObject({ line: 16, column: 39 });
    expect(diagnostics[0].hint).toMatch(/single quotes/);
    expect(diagnostics[0].hint).toMatch(/write \\\\ for a backslash/);
    expect(diagnostics[0].hint).not.toMatch(/indentation/);
  });

  it("key:value is told to put a space after the colon, first line or last of a mapping", async () => {
    expect((await said("w.yaml", readFileSync(join(invalid, "yaml_key_without_space.yaml"), "utf8"))).lines).toEqual([
      `14:5-14:33 syntax_error: "target:adapter.shell.default" is read as one word: a key needs a space after its ":"`,
    ]);
    const last = await said("w.yaml", withLine(19, "      failure:failed"));
    expect(last.lines).toEqual([`19:7-19:21 syntax_error: "failure:failed" is read as one word: a key needs a space after its ":"`]);
    expect(last.diagnostics[0].hint).toBe('put a space after the ":": failure: failed');
  });

  it("an unclosed { or [ is said at the bracket, in the middle of a file or at its end", async () => {
    expect((await said("w.yaml", readFileSync(join(invalid, "yaml_unclosed_flow_map.yaml"), "utf8"))).lines).toEqual([`11:18-11:19 syntax_error: this "{" is never closed: the mapping it opens has no "}"`]);
    expect((await said("w.yaml", readFileSync(join(invalid, "yaml_unclosed_flow_seq.yaml"), "utf8"))).lines).toEqual([`11:18-11:19 syntax_error: this "[" is never closed: the list it opens has no "]"`]);
    expect((await said("w.yaml", withLine(18, "      success: { next: done"))).lines).toEqual([`18:16-18:17 syntax_error: this "{" is never closed: the mapping it opens has no "}"`]);
    expect((await said("w.yaml", withLine(28, "    value: { a: 1"))).lines).toEqual([`28:12-28:13 syntax_error: this "{" is never closed: the mapping it opens has no "}"`]);
  });

  it("a key indented less than its siblings is one error at the key, naming their column", async () => {
    const { lines, diagnostics } = await said("w.yaml", readFileSync(join(invalid, "yaml_key_dedented.yaml"), "utf8"));
    expect(lines).toEqual([`14:3-14:9 syntax_error: "target" starts at column 3, but the other keys of "build" (input, outcomes) start at column 5`]);
    expect(diagnostics[0].hint).toMatch(/^indent target by 4 spaces/);
    // One space short: still the key, not the lines after it.
    expect((await said("w.yaml", withLine(14, "   target: adapter.shell.default"))).lines).toEqual([
      `14:4-14:10 syntax_error: "target" starts at column 4, but the other keys of "build" (input, outcomes) start at column 5`,
    ]);
  });

  it("a tab in the indentation is one error at the tab (column 1), with no cascade", async () => {
    expect((await said("w.yaml", readFileSync(join(invalid, "yaml_tab_indent.yaml"), "utf8"))).lines).toEqual(["16:1-16:3 syntax_error: Tabs are not allowed as indentation"]);
    const one = await said("w.yaml", readFileSync(join(invalid, "yaml_tab_indent_one_key.yaml"), "utf8"));
    expect(one.lines).toEqual(["14:1-14:2 syntax_error: Tabs are not allowed as indentation"]);
    expect(one.diagnostics[0].hint).toMatch(/^indent YAML with spaces/);
    // A file indented with tabs throughout: the first, and how many more lines.
    const all = await said("w.yaml", base.replace(/^ {4}/gm, "\t"));
    expect(all.lines).toEqual(["8:1-8:2 syntax_error: Tabs are not allowed as indentation (11 more lines are indented with tabs after this one)"]);
    // CRLF line ends (the trial's y_crlf_tabs.yaml) change nothing.
    expect((await said("w.yaml", withLine(16, '\tcommand: "echo hello ${var.who}"').replace(/\n/g, "\r\n"))).lines).toEqual(["16:1-16:2 syntax_error: Tabs are not allowed as indentation"]);
  });

  it("key = value is told that YAML writes key: value", async () => {
    const { lines, diagnostics } = await said("w.yaml", readFileSync(join(invalid, "yaml_hcl_equals.yaml"), "utf8"));
    expect(lines).toEqual([`14:5-14:35 syntax_error: "target = adapter.shell.default": YAML writes a key and its value with ":", not "="`]);
    expect(diagnostics[0].hint).toBe('this is a YAML file: write target: adapter.shell.default ("key = value" is HCL, for a .hcl file)');
    expect((await said("w.yaml", withLine(19, "      failure = failed"))).lines).toEqual([`19:7-19:23 syntax_error: "failure = failed": YAML writes a key and its value with ":", not "="`]);
  });

  it("a duplicate key says where the first one is, in YAML and in JSON", async () => {
    const step = await said("w.yaml", readFileSync(join(invalid, "yaml_duplicate_step.yaml"), "utf8"));
    expect(step.lines).toEqual([`20:3-20:8 syntax_error: duplicate key "build": it is already set on line 13`]);
    expect(step.diagnostics[0].related?.map((r) => `${r.message} ${r.range.start.line}:${r.range.start.column}-${r.range.end.line}:${r.range.end.column}`)).toEqual(["first set here 13:3-13:8"]);
    const json = await said("w.json", readFileSync(join(invalid, "json_duplicate_key_in_step.json"), "utf8"));
    expect(json.lines).toEqual([`8:7-8:15 syntax_error: duplicate key "target": it is already set on line 7`]);
    expect(json.diagnostics[0].related?.map((r) => `${r.message} ${r.range.start.line}:${r.range.start.column}`)).toEqual(["first set here 7:7"]);
  });
});

describe("a JSON document that is not an object", () => {
  it("is told in JSON: an object, not a mapping with a leading -", async () => {
    for (const [text, got] of [
      ["[]", "an array"],
      ['"hello"', "a string"],
    ]) {
      const { diagnostics } = await said("w.json", text);
      expect(diagnostics).toHaveLength(1);
      expect(diagnostics[0].message).toMatch(new RegExp(`the document must be an object \\(\\{ "workflow": \\{\\.\\.\\.\\}, "steps": \\{\\.\\.\\.\\}, \\.\\.\\. \\}\\), not ${got}$`));
      expect(diagnostics[0].hint).toMatch(/^a \.json workflow is one object: \{ "workflow": /);
      expect(diagnostics[0].hint).not.toMatch(/leading -/);
    }
  });

  it("a YAML file keeps its YAML wording", async () => {
    const { diagnostics } = await said("w.yaml", "- a\n");
    expect(diagnostics[0].message).toMatch(/the document must be a mapping \(workflow:, steps:, \.\.\.\), not a list$/);
  });
});
