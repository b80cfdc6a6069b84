/**
 * The engine's file functions and CRITERIA_WORKFLOW_ALLOWED_PATHS: directories outside
 * the workflow's that file(), fileexists(), fileset() and templatefile() may reach,
 * symlinks resolved; plus the size cap and UTF-8 rules through the same hooks.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, relative } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { evaluate, type EvalError, type Value } from "../../compiler/expr/index.js";
import { allowedPaths, fileOptionsFromEnv, workflowFileHooks } from "../../engine/run/workflow-files.js";
import { engineFunctions } from "../../engine/run/evaluate.js";
import { parseOk } from "./helpers.js";

let base: string;
let root: string;
let shared: string;

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "criteria-allowed-")));
  root = join(base, "wf");
  shared = join(base, "shared");
  const w = (p: string, text: string | Buffer) => {
    mkdirSync(join(p, ".."), { recursive: true });
    writeFileSync(p, text);
  };
  w(join(root, "main.md"), "main");
  w(join(shared, "prompts", "a.md"), "shared a");
  w(join(shared, "prompts", "b.md"), "shared b");
  w(join(shared, "greet.tmpl"), "Hi {{ .name }}");
  w(join(shared, "big.txt"), "y".repeat(5000));
  w(join(shared, "latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
  w(join(base, "private", "secret.txt"), "secret");
  // A link from the workflow directory into the allowed one, and one from the allowed
  // directory to a place nobody allowed.
  symlinkSync(join(shared, "prompts"), join(root, "linked"));
  symlinkSync(join(base, "private", "secret.txt"), join(shared, "escape.txt"));
  symlinkSync(join(base, "private"), join(shared, "private-dir"));
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

const saved = { allowed: process.env.CRITERIA_WORKFLOW_ALLOWED_PATHS, max: process.env.CRITERIA_FILE_FUNC_MAX_BYTES };
afterEach(() => {
  if (saved.allowed === undefined) delete process.env.CRITERIA_WORKFLOW_ALLOWED_PATHS;
  else process.env.CRITERIA_WORKFLOW_ALLOWED_PATHS = saved.allowed;
  if (saved.max === undefined) delete process.env.CRITERIA_FILE_FUNC_MAX_BYTES;
  else process.env.CRITERIA_FILE_FUNC_MAX_BYTES = saved.max;
});

function run(text: string, env?: Record<string, string | undefined>): { value?: Value; errors: EvalError[] } {
  return evaluate(parseOk(text), { variables: {}, functions: engineFunctions(root, env) });
}

function ok(text: string, env?: Record<string, string | undefined>): Value | undefined {
  const r = run(text, env);
  expect(r.errors).toEqual([]);
  return r.value;
}

function err(text: string, env?: Record<string, string | undefined>): EvalError {
  const r = run(text, env);
  expect(r.value).toBeUndefined();
  expect(r.errors).toHaveLength(1);
  return r.errors[0];
}

describe("without CRITERIA_WORKFLOW_ALLOWED_PATHS", () => {
  test.each([
    ['file("../shared/prompts/a.md")'],
    ['fileexists("../shared/prompts/a.md")'],
    ['fileset("../shared/prompts", "*")'],
    ['templatefile("../shared/greet.tmpl", {name = "x"})'],
    ['file("linked/a.md")'],
  ])("%s is outside the workflow directory", (text) => {
    delete process.env.CRITERIA_WORKFLOW_ALLOWED_PATHS;
    expect(err(text).message).toMatch(/outside the workflow directory \(allow more directories with CRITERIA_WORKFLOW_ALLOWED_PATHS\)/);
  });

  test("the workflow directory itself still works", () => {
    delete process.env.CRITERIA_WORKFLOW_ALLOWED_PATHS;
    expect(ok('file("main.md")')).toBe("main");
  });
});

describe("with CRITERIA_WORKFLOW_ALLOWED_PATHS", () => {
  const allow = () => {
    process.env.CRITERIA_WORKFLOW_ALLOWED_PATHS = ["/nonexistent-criteria-dir", shared].join(delimiter);
  };

  test("file, fileexists, fileset and templatefile reach the allowed directory", () => {
    allow();
    expect(ok('file("../shared/prompts/a.md")')).toBe("shared a");
    expect(ok(`file("${join(shared, "prompts", "b.md")}")`)).toBe("shared b");
    expect(ok('fileexists("../shared/prompts/a.md")')).toBe(true);
    expect(ok('fileexists("../shared/prompts/none.md")')).toBe(false);
    expect(ok('fileexists("../shared/prompts")')).toBe(false);
    expect(ok('fileset("../shared/prompts", "*.md")')).toEqual(["../shared/prompts/a.md", "../shared/prompts/b.md"]);
    expect(ok('[for p in fileset("../shared/prompts", "*.md") : file(p)]')).toEqual(["shared a", "shared b"]);
    expect(ok('templatefile("../shared/greet.tmpl", {name = "Ada"})')).toBe("Hi Ada");
  });

  test("a symlink from the workflow directory into an allowed directory is followed", () => {
    allow();
    expect(ok('file("linked/a.md")')).toBe("shared a");
    expect(ok('fileexists("linked/b.md")')).toBe(true);
  });

  test.each([
    ['file("../private/secret.txt")'],
    ['fileexists("../private/secret.txt")'],
    ['file("../shared/escape.txt")'],
    ['fileexists("../shared/escape.txt")'],
    ['fileset("../shared/private-dir", "*")'],
    ['file("/etc/hostname")'],
  ])("%s still leaves every allowed directory: an error", (text) => {
    allow();
    expect(err(text).message).toMatch(/outside the workflow directory and the directories of CRITERIA_WORKFLOW_ALLOWED_PATHS/);
  });

  test("the size cap and the UTF-8 rule hold in allowed directories too", () => {
    allow();
    process.env.CRITERIA_FILE_FUNC_MAX_BYTES = "4096";
    expect(err('file("../shared/big.txt")').message).toMatch(/"\.\.\/shared\/big\.txt" is larger than 4096 bytes \(the limit set by CRITERIA_FILE_FUNC_MAX_BYTES/);
    expect(err('templatefile("../shared/big.txt", {})').message).toMatch(/larger than 4096 bytes/);
    delete process.env.CRITERIA_FILE_FUNC_MAX_BYTES;
    expect(ok('length(file("../shared/big.txt"))')).toBe(5000);
    expect(err('file("../shared/latin1.txt")').message).toMatch(/"\.\.\/shared\/latin1\.txt" is not valid UTF-8/);
    expect(err('file("../shared/none.txt")').message).toMatch(/no file "\.\.\/shared\/none\.txt" in the workflow directory or the allowed directories/);
  });

  test("an explicit environment overrides process.env; relative entries resolve against the current directory", () => {
    delete process.env.CRITERIA_WORKFLOW_ALLOWED_PATHS;
    expect(ok('file("../shared/prompts/a.md")', { CRITERIA_WORKFLOW_ALLOWED_PATHS: shared })).toBe("shared a");
    const rel = relative(process.cwd(), shared);
    expect(ok('file("../shared/prompts/a.md")', { CRITERIA_WORKFLOW_ALLOWED_PATHS: `${delimiter}${rel}${delimiter}` })).toBe("shared a");
    expect(err('file("../shared/prompts/a.md")', {}).message).toMatch(/outside the workflow directory/);
  });
});

describe("helpers", () => {
  test("allowedPaths splits on the path delimiter and drops empty entries", () => {
    expect(allowedPaths(undefined)).toEqual([]);
    expect(allowedPaths("")).toEqual([]);
    expect(allowedPaths(["/a", "", "/b"].join(delimiter))).toEqual(["/a", "/b"]);
  });

  test("fileOptionsFromEnv reads both variables, clamping the cap", () => {
    expect(fileOptionsFromEnv({})).toEqual({ allowedRoots: [], maxBytes: 1024 * 1024 });
    expect(fileOptionsFromEnv({ CRITERIA_FILE_FUNC_MAX_BYTES: "1", CRITERIA_WORKFLOW_ALLOWED_PATHS: "/x" })).toEqual({ allowedRoots: ["/x"], maxBytes: 1024 });
  });

  test("workflowFileHooks: a missing directory for fileset, and a file given as a directory", () => {
    const h = workflowFileHooks(root, { allowedRoots: [shared] });
    expect(() => h.fileSet("../shared/none", "*")).toThrow(/directory "\.\.\/shared\/none" does not exist/);
    expect(() => h.fileSet("../shared/big.txt", "*")).toThrow(/is not a directory/);
    expect(h.fileSet("../shared", "**/a.md")).toEqual(["../shared/prompts/a.md"]);
  });
});
