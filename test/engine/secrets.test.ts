/**
 * Secrets at run time, in process (engine/run/secrets.ts; docs/language.md, Secrets): an
 * adapter's `"env:NAME"` references resolved from criteria's environment (other providers
 * refused), and the positions of the expressions that read a secret — the runner withholds
 * their error messages — over a graph compiled from real text: bodies see their workflow's
 * secrets, modules only their own, a name that merely starts like a secret's is not one,
 * and what an expression holds is data even under a key named `body`.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compile } from "../../compiler/index.js";
import type { Graph } from "../../compiler/build/graph.js";
import { resolveSecrets, secretReaders } from "../../engine/run/secrets.js";
import { EvalFailure } from "../../engine/run/evaluate.js";

describe("resolveSecrets: an adapter's secrets", () => {
  it("reads env:NAME from criteria's environment and keeps every other value as it is", () => {
    process.env.CRITERIA_TEST_SECRET_A = "s3cret";
    try {
      expect(resolveSecrets({ A: "env:CRITERIA_TEST_SECRET_A", B: "plain", C: 7, D: "x env:CRITERIA_TEST_SECRET_A", E: null, F: "env:CRITERIA_TEST_SECRET_A\nmore" }, "w.hcl:3:1")).toStrictEqual({
        A: "s3cret",
        B: "plain",
        C: 7,
        D: "x env:CRITERIA_TEST_SECRET_A",
        E: null,
        F: "env:CRITERIA_TEST_SECRET_A\nmore",
      });
    } finally {
      delete process.env.CRITERIA_TEST_SECRET_A;
    }
  });

  it("refuses an unset variable and the providers it does not support, naming the adapter's position and the key", () => {
    const fails = (values: Record<string, string>) => {
      try {
        resolveSecrets(values, "w.hcl:3:1");
      } catch (e) {
        expect(e).toBeInstanceOf(EvalFailure);
        return (e as Error).message;
      }
      throw new Error("resolveSecrets accepted it");
    };
    expect(fails({ TOKEN: "env:CRITERIA_TEST_SURELY_UNSET" })).toBe('w.hcl:3:1: secret "TOKEN": the environment variable CRITERIA_TEST_SURELY_UNSET is not set');
    expect(fails({ K: "env:" })).toBe('w.hcl:3:1: secret "K": the environment variable  is not set');
    for (const p of ["vault", "file", "sops", "keychain"]) {
      expect(fails({ K: `${p}:a/b` })).toBe(`w.hcl:3:1: secret "K": the "${p}:" provider is not supported; bind a secret variable instead (CRITERIA_VAR_<name> or --var)`);
    }
  });
});

describe("secretReaders: where an expression reads a secret", () => {
  const starts = (g: Graph) => secretReaders(g).map((e) => e.at);
  const dir = mkdtempSync(join(tmpdir(), "criteria-secrets-"));
  writeFileSync(
    join(dir, "child.hcl"),
    [
      "workflow {",
      '  name          = "child"',
      '  version       = "1"',
      '  initial_state = "pick"',
      '  target_state  = "done"',
      "}",
      'variable "key" {',
      "  type   = string",
      "  secret = true",
      "}",
      'variable "tok" {',
      "  type = string",
      "}",
      'switch "pick" {',
      "  match {",
      '    condition = var.key == "a"',
      "    next      = state.done",
      "  }",
      "  match {",
      '    condition = var.tok == "b"',
      "    next      = state.done",
      "  }",
      "  default { next = state.done }",
      "}",
      'state "done" { terminal = true }',
      "",
    ].join("\n"),
  );
  const main = [
    "workflow {",
    '  name          = "main"',
    '  version       = "1"',
    '  initial_state = "route"',
    '  target_state  = "done"',
    "}",
    'variable "tok" {',
    "  type   = string",
    "  secret = true",
    "}",
    'variable "token" {',
    "  type    = string",
    '  default = "t"',
    "}",
    'variable "api-key" {',
    "  type   = string",
    "  secret = true",
    "}",
    'adapter "shell" "default" {}',
    'subworkflow "child" {',
    '  source = "./child.hcl"',
    '  input  = { tok = var.token, key = var.tok }',
    "}",
    'switch "route" {',
    "  match {",
    '    condition = var.tok == "x"',
    "    next      = step.loop",
    "  }",
    "  match {",
    '    condition = var.token == "y"',
    "    next      = step.loop",
    "  }",
    "  match {",
    '    condition = var.api-key == "z"',
    "    next      = step.loop",
    "  }",
    "  default { next = step.loop }",
    "}",
    'step "loop" {',
    "  count = 1",
    "  workflow {",
    '    step "inner" {',
    "      target = adapter.shell.default",
    '      input { command = "true" }',
    "      secret_input { T = var.tok }",
    '      outcome "success" { next = state.fin }',
    "    }",
    '    state "fin" { terminal = true }',
    "  }",
    '  outcome "all_succeeded" { next = step.call }',
    "}",
    'step "call" {',
    "  target = subworkflow.child",
    '  outcome "success" { next = step.say }',
    "}",
    'step "say" {',
    "  target = adapter.shell.default",
    '  input { command = "echo ${var.token}" }',
    '  secret_input { TOK = var.tok }',
    '  outcome "success" { next = state.done }',
    "}",
    'state "done" { terminal = true }',
    "",
  ].join("\n");
  writeFileSync(join(dir, "main.hcl"), main);

  it("lists the workflow's, its bodies' (its own secrets) and each module's (the module's own), and nothing that reads a plain variable", async () => {
    const c = await compile(join(dir, "main.hcl"), { cwd: dir });
    expect(c.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const at = starts(c.graph!).sort();
    const line = (file: string, text: string) => `${file}:${(file === "main.hcl" ? main : "").split("\n").indexOf(text) + 1}`;
    expect(at.map((a) => a.replace(/:\d+$/, ""))).toEqual(
      [line("main.hcl", '    condition = var.tok == "x"'), line("main.hcl", '    condition = var.api-key == "z"'), line("main.hcl", "      secret_input { T = var.tok }"), line("main.hcl", "  input  = { tok = var.token, key = var.tok }"), line("main.hcl", "  secret_input { TOK = var.tok }"), "child.hcl:16"].sort(),
    );
  });

  it("finds nothing in a workflow without secrets, and reads what an expression holds as data (a post's body is no workflow body)", async () => {
    const plain = join(dir, "plain.hcl");
    writeFileSync(plain, main.replaceAll("  secret = true\n", "").replace(/^ +secret_input .*\n/gm, ""));
    writeFileSync(join(dir, "child.hcl"), readFileSync(join(dir, "child.hcl"), "utf8").replace("  secret = true\n", ""));
    const c = await compile(plain, { cwd: dir });
    expect(c.graph).toBeDefined();
    expect(starts(c.graph!)).toEqual([]);
    // A value under a key `body` that is no graph: walked as data, its expressions seen.
    const g = { variables: [{ name: "tok", secret: true }], steps: [{ name: "s", input: { body: { text: "var.tok", at: "x.hcl:1:1", kind: "template" }, note: { text: "var.token", at: "x.hcl:2:1", kind: "template" } }, outcomes: [] }], modules: {} } as never;
    expect(starts(g)).toEqual(["x.hcl:1:1"]);
  });
});
