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
  w("templates/greet.tmpl", "Hello, ${name}!%{ for i, x in items } ${i}:${upper(x)}%{ endfor }\n");
  w("templates/value.tmpl", "${items}");
  w("templates/missing.tmpl", "line one\n  ${nope}\n");
  w("templates/bad.tmpl", "ok\n${ (\n");
  w("templates/recursive.tmpl", '${templatefile("templates/value.tmpl", {items = 1})}');
  w("templates/fails.tmpl", "a\nb ${x + 1}");
  w("templates/nested.tmpl", "${trimfrontmatter(file(\"prompts/alpha.md\"))}");
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

describe("templatefile()", () => {
  test("renders an HCL template with the keys of vars as its variables; functions work", () => {
    expect(ok('templatefile("templates/greet.tmpl", {name = "Ada", items = ["x", "y"]})')).toBe("Hello, Ada! 0:X 1:Y\n");
    expect(ok('templatefile("templates/greet.tmpl", v)', { v: { name: "Bo", items: [] } })).toBe("Hello, Bo!\n");
  });

  test("a template that is one interpolation yields the value itself", () => {
    expect(ok('templatefile("templates/value.tmpl", {items = [1, 2]})')).toEqual([1, 2]);
  });

  test("file functions are available inside the template", () => {
    expect(ok('templatefile("templates/nested.tmpl", {})')).toBe("alpha body\n");
  });

  test.each<[string, RegExp, string]>([
    ['templatefile("templates/missing.tmpl", {})', /vars map does not contain key "nope", referenced at templates\/missing\.tmpl:2,5/, "{}"],
    ['templatefile("templates/greet.tmpl", {"bad name" = 1})', /invalid template variable name "bad name"/, '{"bad name" = 1}'],
    ['templatefile("templates/greet.tmpl", ["x"])', /object or map is required/, '["x"]'],
    ['templatefile("templates/bad.tmpl", {})', /templates\/bad\.tmpl:3,1: Invalid expression/, '"templates/bad.tmpl"'],
    ['templatefile("templates/recursive.tmpl", {})', /cannot recursively call templatefile/, 'templatefile("templates/recursive.tmpl", {})'],
    ['templatefile("templates/fails.tmpl", {x = "a"})', /templates\/fails\.tmpl:2,5: .*a number is required/, 'templatefile("templates/fails.tmpl", {x = "a"})'],
    ['templatefile("../secret.txt", {})', /outside the workflow directory/, 'templatefile("../secret.txt", {})'],
    ['templatefile("nope.tmpl", {})', /no file "nope\.tmpl"/, 'templatefile("nope.tmpl", {})'],
  ])("%s", (text, message, covered) => {
    const e = err(text);
    expect(e.message).toMatch(message);
    expect(slice(text, e)).toBe(covered);
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
