import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { evaluate, type EvalError, type Value } from "../../compiler/expr/index.js";
import { fileMaxBytes, FILE_MAX_BYTES } from "../../engine/run/workflow-files.js";
import { globToRegExp } from "../../compiler/expr/functions/files.js";
import { engineFunctions } from "../../engine/run/evaluate.js";
import { evalErr, parseOk, slice } from "./helpers.js";

let base: string;
let root: string;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), "criteria-files-"));
  root = join(base, "wf");
  const w = (p: string, text: string | Buffer) => {
    mkdirSync(join(root, p, ".."), { recursive: true });
    writeFileSync(join(root, p), text);
  };
  w("prompts/alpha.md", "---\ntitle: Alpha\n---\nalpha body\n");
  w("prompts/beta.md", "beta body\n");
  w("prompts/notes.txt", "notes");
  w("prompts/a10.md", "");
  w("prompts/a2.md", "");
  w("prompts/sub/gamma.md", "gamma");
  w("prompts/sub/deeper/delta.md", "delta");
  w("prompts/.hidden.md", "hidden");
  w("templates/greet.tmpl", 'Hello, {{ .name }}!{{ range $i, $x := .items }} {{ $i }}:{{ $x | printf "%q" }}{{ end }}\n');
  w("templates/value.tmpl", "{{ .items }}");
  w("templates/missing.tmpl", "line one\n  {{ .nope }}\n");
  w("templates/nested-missing.tmpl", "{{ range .steps }}\n{{ .name }}: {{ .result.summary }}\n{{ end }}");
  w("templates/bad.tmpl", "ok\n{{ if .x }\n");
  w("templates/unclosed.tmpl", "a\n  {{ range .items }}\n  b\n");
  w("templates/recursive.tmpl", '{{ templatefile "templates/value.tmpl" . }}');
  w("templates/fails.tmpl", "a\nb {{ index .x 5 }}");
  w("templates/runaway.tmpl", "{{ range .n }}{{ range $.n }}{{ end }}{{ end }}");
  w("templates/huge.tmpl", '{{ range .n }}{{ printf "%1000d" 1 }}{{ end }}');
  w(
    "templates/prompt.tmpl",
    [
      "{{- /* A review prompt, as LLM workflows write them. */ -}}",
      "You are reviewing {{ .repo }} (score {{ .score }}, threshold {{ printf \"%.1f\" .threshold }}).",
      "{{ if .files -}}",
      "Files:",
      "{{- range $i, $f := .files }}",
      "  {{ $i }}. {{ $f.path }}{{ with $f.note }} ({{ . }}){{ end }}",
      "{{- end }}",
      "{{ else -}}",
      "No files.",
      "{{ end -}}",
      "Labels: {{ range $k, $v := .labels }}{{ $k }}={{ $v }} {{ end }}",
      "Reviewer: {{ .reviewer }}",
      "",
    ].join("\n"),
  );
  w("binary.bin", Buffer.from([0x66, 0x6f, 0xff, 0xfe]));
  w("big.txt", "x".repeat(3000));
  w("empty.txt", "");
  writeFileSync(join(base, "secret.txt"), "secret");
  mkdirSync(join(base, "outside-dir"));
  writeFileSync(join(base, "outside-dir", "o.md"), "o");
  symlinkSync(join(base, "secret.txt"), join(root, "escape.txt"));
  symlinkSync(join(root, "prompts", "beta.md"), join(root, "prompts", "link.md"));
  symlinkSync(join(base, "outside-dir"), join(root, "outdir"));
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

const savedMax = process.env.CRITERIA_FILE_FUNC_MAX_BYTES;
afterEach(() => {
  if (savedMax === undefined) delete process.env.CRITERIA_FILE_FUNC_MAX_BYTES;
  else process.env.CRITERIA_FILE_FUNC_MAX_BYTES = savedMax;
});

function run(text: string, variables: Record<string, Value> = {}): { value?: Value; errors: EvalError[] } {
  return evaluate(parseOk(text), { variables, functions: engineFunctions(root) });
}

function ok(text: string, variables: Record<string, Value> = {}): Value | undefined {
  const r = run(text, variables);
  expect(r.errors).toEqual([]);
  return r.value;
}

function err(text: string): EvalError {
  const r = run(text);
  expect(r.value).toBeUndefined();
  expect(r.errors).toHaveLength(1);
  return r.errors[0];
}

describe("file()", () => {
  test("reads UTF-8 files relative to the workflow directory", () => {
    expect(ok('file("prompts/beta.md")')).toBe("beta body\n");
    expect(ok('file("./prompts/../prompts/beta.md")')).toBe("beta body\n");
    expect(ok('file("empty.txt")')).toBe("");
    expect(ok('file("prompts/link.md")')).toBe("beta body\n");
  });

  test.each<[string, RegExp]>([
    ['file("../secret.txt")', /"\.\.\/secret\.txt" is outside the workflow directory/],
    ['file("escape.txt")', /"escape\.txt" is outside the workflow directory/],
    [`file("${"/etc/hostname"}")`, /outside the workflow directory/],
    ['file("nope.txt")', /no file "nope\.txt"/],
    ['file("prompts")', /"prompts" is not a regular file/],
    ['file("binary.bin")', /"binary\.bin" is not valid UTF-8/],
  ])("%s is refused", (text, message) => {
    expect(err(text).message).toMatch(message);
  });

  test("CRITERIA_FILE_FUNC_MAX_BYTES caps the size (clamped to [1 KiB, 64 MiB])", () => {
    process.env.CRITERIA_FILE_FUNC_MAX_BYTES = "2000";
    expect(err('file("big.txt")').message).toMatch(/"big\.txt" is larger than 2000 bytes.*CRITERIA_FILE_FUNC_MAX_BYTES/);
    process.env.CRITERIA_FILE_FUNC_MAX_BYTES = "10";
    expect(err('file("big.txt")').message).toMatch(/larger than 1024 bytes/);
    process.env.CRITERIA_FILE_FUNC_MAX_BYTES = "3000";
    expect(ok('length(file("big.txt"))')).toBe(3000);
    delete process.env.CRITERIA_FILE_FUNC_MAX_BYTES;
    expect(ok('length(file("big.txt"))')).toBe(3000);
  });

  test("fileMaxBytes parses and clamps the setting", () => {
    expect(fileMaxBytes(undefined)).toBe(1024 * 1024);
    expect(fileMaxBytes("")).toBe(FILE_MAX_BYTES.default);
    expect(fileMaxBytes("abc")).toBe(FILE_MAX_BYTES.default);
    expect(fileMaxBytes("-5")).toBe(FILE_MAX_BYTES.default);
    expect(fileMaxBytes("1.5")).toBe(FILE_MAX_BYTES.default);
    expect(fileMaxBytes("0")).toBe(1024);
    expect(fileMaxBytes(" 4096 ")).toBe(4096);
    expect(fileMaxBytes("999999999999")).toBe(64 * 1024 * 1024);
  });
});

describe("fileexists()", () => {
  test.each<[string, boolean]>([
    ['fileexists("prompts/alpha.md")', true],
    ['fileexists("./prompts/sub/gamma.md")', true],
    ['fileexists("prompts/link.md")', true],
    ['fileexists("prompts/nope.md")', false],
    ['fileexists("nope/nope.md")', false],
    ['fileexists("prompts/beta.md/x")', false],
    ['fileexists("prompts")', false],
    ['fileexists(".")', false],
  ])("%s", (text, expected) => {
    expect(ok(text)).toBe(expected);
  });

  test.each([['fileexists("../secret.txt")'], ['fileexists("../nothing-here")'], ['fileexists("escape.txt")'], ['fileexists("outdir/o.md")']])("%s leaves the root: an error", (text) => {
    expect(err(text).message).toMatch(/is outside the workflow directory/);
  });
});

describe("fileset()", () => {
  test.each<[string, string[]]>([
    ['fileset("prompts", "*.md")', ["prompts/.hidden.md", "prompts/a10.md", "prompts/a2.md", "prompts/alpha.md", "prompts/beta.md"]],
    ['fileset("./prompts/", "a*.md")', ["prompts/a10.md", "prompts/a2.md", "prompts/alpha.md"]],
    ['fileset("prompts", "?eta.md")', ["prompts/beta.md"]],
    ['fileset("prompts", "[ab]?.md")', ["prompts/a2.md"]],
    ['fileset("prompts", "[!a]*")', ["prompts/.hidden.md", "prompts/beta.md", "prompts/notes.txt"]],
    ['fileset("prompts", "{alpha,sub/gamma}.md")', ["prompts/alpha.md", "prompts/sub/gamma.md"]],
    ['fileset("prompts", "*/*.md")', ["prompts/sub/gamma.md"]],
    ['fileset("prompts", "**/*.md")', ["prompts/.hidden.md", "prompts/a10.md", "prompts/a2.md", "prompts/alpha.md", "prompts/beta.md", "prompts/sub/deeper/delta.md", "prompts/sub/gamma.md"]],
    ['fileset("prompts", "sub/**")', ["prompts/sub/deeper/delta.md", "prompts/sub/gamma.md"]],
    ['fileset(".", "prompts/*.txt")', ["prompts/notes.txt"]],
    ['fileset("prompts/sub", "*")', ["prompts/sub/gamma.md"]],
    ['fileset("prompts", "*.none")', []],
  ])("%s", (text, expected) => {
    expect(ok(text)).toEqual(expected);
  });

  test("the example: for_each over fileset, then file(each.value)", () => {
    expect(ok('[for p in fileset("prompts", "[ab]*.md") : trimfrontmatter(file(p)) if length(file(p)) > 0]')).toEqual(["alpha body\n", "beta body\n"]);
  });

  test("symlinks are skipped (the Go tool lists regular files only)", () => {
    expect(ok('fileset("prompts", "link.md")')).toEqual([]);
    expect(ok('fileset(".", "outdir/*")')).toEqual([]);
  });

  test.each<[string, RegExp]>([
    ['fileset("missing", "*")', /directory "missing" does not exist/],
    ['fileset("empty.txt", "*")', /"empty\.txt" is not a directory/],
    ['fileset("..", "*")', /outside the workflow directory/],
    ['fileset("outdir", "*")', /outside the workflow directory/],
  ])("%s is refused", (text, message) => {
    expect(err(text).message).toMatch(message);
  });

  test.each([['fileset("prompts", "[ab")'], ['fileset("prompts", "{a,b")'], ['fileset("prompts", "a\\\\")']])("%s: a bad pattern blames the pattern", (text) => {
    const e = err(text);
    expect(e.message).toMatch(/invalid pattern/);
    expect(slice(text, e)).toBe(text.slice(text.indexOf(", ") + 2, -1));
  });
});

describe("globToRegExp", () => {
  test.each<[string, string, boolean]>([
    ["*.md", "a.md", true],
    ["*.md", "x/a.md", false],
    ["**/*.md", "a.md", true],
    ["**/*.md", "x/y/a.md", true],
    ["x/**/a.md", "x/a.md", true],
    ["x/**/a.md", "x/y/z/a.md", true],
    ["x/**", "x/y/z", true],
    ["**", "any/thing", true],
    ["a**b", "axxb", true],
    ["a**b", "a/b", false],
    ["?", "/", false],
    ["[a-c]", "b", true],
    ["[^a-c]", "d", true],
    ["[!a-c]", "/", false],
    ["{a,b{c,d}}.txt", "bd.txt", true],
    ["{a,b{c,d}}.txt", "b.txt", false],
    ["a,b", "a,b", true],
    ["\\*", "*", true],
    ["\\*", "a", false],
    ["(x)+.md", "(x)+.md", true],
  ])("%s ~ %s = %s", (pattern, path, expected) => {
    expect(globToRegExp(pattern).test(path)).toBe(expected);
  });
});

describe("templatefile(): Go text/template, through the engine's file hooks", () => {
  test("renders the file with vars as its data (fields, range with $i, $x, pipes into printf)", () => {
    expect(ok('templatefile("templates/greet.tmpl", {name = "Ada", items = ["x", "y"]})')).toBe('Hello, Ada! 0:"x" 1:"y"\n');
    expect(ok('templatefile("templates/greet.tmpl", v)', { v: { name: "Bo", items: [] } })).toBe("Hello, Bo!\n");
    expect(ok('templatefile("./templates/../templates/greet.tmpl", {name = "Cy", items = null})')).toBe("Hello, Cy!\n");
  });

  test("the result is always a string (a list prints as Go prints it)", () => {
    expect(ok('templatefile("templates/value.tmpl", {items = [1, 2.5, "a", null, true]})')).toBe("[1 2.5 a <nil> true]");
  });

  test("an LLM prompt template: trim markers, comments, if/else, range over a list and a sorted map, with, printf, null", () => {
    const vars = {
      repo: "criteria",
      score: 42.0,
      threshold: 0.75,
      files: [{ path: "a.go", note: "new" }, { path: "b.go", note: null }],
      labels: { z: 1, a: "x" },
      reviewer: null,
    };
    expect(ok("templatefile(\"templates/prompt.tmpl\", v)", { v: vars })).toBe(
      "You are reviewing criteria (score 42, threshold 0.8).\nFiles:\n  0. a.go (new)\n  1. b.go\nLabels: a=x z=1 \nReviewer: <no value>\n",
    );
    expect(ok("templatefile(\"templates/prompt.tmpl\", v)", { v: { ...vars, files: [], labels: {} } })).toBe(
      "You are reviewing criteria (score 42, threshold 0.8).\nNo files.\nLabels: \nReviewer: <no value>\n",
    );
  });

  test.each<[string, RegExp, string]>([
    // missingkey=error: the key and path:line:col; blamed on vars.
    ['templatefile("templates/missing.tmpl", {})', /templates\/missing\.tmpl:2:6: at <\.nope>: map has no entry for key "nope"$/, "{}"],
    ['templatefile("templates/nested-missing.tmpl", {steps = [{name = "a", result = {}}]})', /templates\/nested-missing\.tmpl:2:17: at <\.result\.summary>: map has no entry for key "summary"/, "{steps = [{name = \"a\", result = {}}]}"],
    // vars must be an object or map.
    ['templatefile("templates/greet.tmpl", ["x"])', /vars must be an object or map, but got list/, '["x"]'],
    ['templatefile("templates/greet.tmpl", "x")', /vars must be an object or map, but got string/, '"x"'],
    ['templatefile("templates/greet.tmpl", null)', /vars must be an object or map, but got null/, "null"],
    // Syntax errors: file, line and column; blamed on the path.
    ['templatefile("templates/bad.tmpl", {})', /templates\/bad\.tmpl:2:10: unexpected "\}" in operand$/, '"templates/bad.tmpl"'],
    ['templatefile("templates/unclosed.tmpl", {items = []})', /templates\/unclosed\.tmpl:4:1: unexpected EOF: the \{\{range\}\} at 2:6 has no \{\{end\}\}/, '"templates/unclosed.tmpl"'],
    ['templatefile("templates/recursive.tmpl", {})', /templates\/recursive\.tmpl:1:4: function "templatefile" not defined/, '"templates/recursive.tmpl"'],
    // Execution errors: the whole call.
    ['templatefile("templates/fails.tmpl", {x = [1]})', /templates\/fails\.tmpl:2:6: at <index \.x 5>: error calling index: index out of range: 5/, 'templatefile("templates/fails.tmpl", {x = [1]})'],
    ['templatefile("templates/runaway.tmpl", {n = 1001})', /runaway\.tmpl:1:24: at <\$\.n>: range loops ran more than 1000000 iterations/, 'templatefile("templates/runaway.tmpl", {n = 1001})'],
    ['templatefile("templates/huge.tmpl", {n = 5000})', /huge\.tmpl:1:\d+: .*the output is larger than 4194304 bytes/, 'templatefile("templates/huge.tmpl", {n = 5000})'],
    // The file hooks' rules hold.
    ['templatefile("../secret.txt", {})', /outside the workflow directory/, 'templatefile("../secret.txt", {})'],
    ['templatefile("escape.txt", {})', /outside the workflow directory/, 'templatefile("escape.txt", {})'],
    ['templatefile("nope.tmpl", {})', /no file "nope\.tmpl"/, 'templatefile("nope.tmpl", {})'],
    ['templatefile("binary.bin", {})', /not valid UTF-8/, 'templatefile("binary.bin", {})'],
  ])("%s", (text, message, covered) => {
    const e = err(text);
    expect(e.message).toMatch(message);
    expect(slice(text, e)).toBe(covered);
  });

  test("the size cap of CRITERIA_FILE_FUNC_MAX_BYTES applies to templates", () => {
    process.env.CRITERIA_FILE_FUNC_MAX_BYTES = "2000";
    expect(err('templatefile("big.txt", {})').message).toMatch(/"big\.txt" is larger than 2000 bytes/);
    delete process.env.CRITERIA_FILE_FUNC_MAX_BYTES;
    expect(ok('length(templatefile("big.txt", {}))')).toBe(3000);
  });

  test("vars keys need not be identifiers (index reaches them)", () => {
    writeFileSync(join(root, "templates", "keys.tmpl"), '{{ index . "bad name" }}/{{ index . "x-y" }}');
    expect(ok('templatefile("templates/keys.tmpl", {"bad name" = 1, "x-y" = "z"})')).toBe("1/z");
  });

  test("a template's text is data: HCL ${} and %{} are not interpolated", () => {
    writeFileSync(join(root, "templates", "hcl.tmpl"), "${name} %{ if x }{{ .name }}");
    expect(ok('templatefile("templates/hcl.tmpl", {name = "n"})')).toBe("${name} %{ if x }n");
  });
});

describe("without file-system hooks", () => {
  test.each([['fileexists("a")'], ['fileset(".", "*")'], ['templatefile("a", {})']])("%s is not available", (text) => {
    const e = evalErr(text);
    expect(e[0].message).toMatch(/is not available in this context/);
  });

  test("fileset still checks its pattern", () => {
    expect(evalErr('fileset(".", "{")')[0].message).toMatch(/invalid pattern "\{": unterminated \{/);
  });
});
