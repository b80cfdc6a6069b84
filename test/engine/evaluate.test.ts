/**
 * Run-time evaluation in process (engine/run/evaluate.ts, engine/run/iteration-items.ts):
 * compiled expressions of each kind against run namespaces, the failures a step gets
 * (`eval_error` with the expression's `file:line:col`), conversion to declared types,
 * the file functions confined to the workflow's directory, and the items an iterating
 * step walks (docs/language.md, Expressions, Functions and Iteration). The same
 * behaviours run end to end in runner.test.ts and the CLI tests; these reach the two
 * modules where a mutant in them is seen.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { GraphExpr } from "../../compiler/build/graph.js";
import { makeFunctions } from "../../compiler/expr/functions.js";
import type { Value } from "../../compiler/expr/value.js";
import { conform, engineFunctions, evalExpr, evalMap } from "../../engine/run/evaluate.js";
import { iterationItems } from "../../engine/run/iteration-items.js";
import { failure } from "./eval-failure.js";

const fns = makeFunctions();
const hcl = (text: string): GraphExpr => ({ kind: "hcl", text, value: `\${${text}}`, at: "w.hcl:3:7" });
const vars = { var: { x: 2, name: "ci" } } as Record<string, Value>;

describe("evalExpr", () => {
  it("a literal is its value; an HCL expression and a template are evaluated against the namespaces", () => {
    expect(evalExpr({ kind: "literal", text: "5", value: 5, at: "w.hcl:1:1" }, {}, fns)).toBe(5);
    expect(evalExpr(hcl("var.x + 1"), vars, fns)).toBe(3);
    expect(evalExpr({ kind: "template", text: "run-${var.name}-${var.x}", value: "", at: "w.yaml:2:3" }, vars, fns)).toBe("run-ci-2");
  });

  it("a syntax error fails with the expression's place and the parser's message, every time it is evaluated", () => {
    const e = hcl("1 +");
    const first = failure(() => evalExpr(e, {}, fns));
    expect(first.message).toMatch(/^w\.hcl:3:7: \S/);
    expect(first.reason).toBe("eval_error");
    expect(failure(() => evalExpr(e, {}, fns)).message).toBe(first.message);
    const t = failure(() => evalExpr({ kind: "template", text: "a ${", value: "", at: "w.yaml:1:1" }, {}, fns));
    expect(t.message).toMatch(/^w\.yaml:1:1: \S/);
  });

  it("an evaluation error fails with the place and every error's message", () => {
    const f = failure(() => evalExpr(hcl("var.missing"), vars, fns));
    expect(f.message).toMatch(/^w\.hcl:3:7: .*missing/);
    const two = failure(() => evalExpr(hcl('"a" + 1'), {}, fns));
    expect(two.message.startsWith("w.hcl:3:7: ")).toBe(true);
    expect(two.message.length).toBeGreaterThan("w.hcl:3:7: ".length + 5);
  });

  it("a YAML/JSON list or map is evaluated leaf by leaf: templates evaluated, other values kept", () => {
    const value = { a: "x-${var.x}", b: [1, "${var.name}", "cost $5"], c: "%{ if var.x > 1 }big%{ endif }", d: null, e: true, f: { g: "plain" } } as unknown as GraphExpr["value"];
    const out = evalExpr({ kind: "composite", text: "", value, at: "w.yaml:4:3" }, vars, fns);
    expect(out).toEqual({ a: "x-2", b: [1, "ci", "cost $5"], c: "big", d: null, e: true, f: { g: "plain" } });
    expect(evalExpr({ kind: "composite", text: "", value: "no template $ here", at: "w.yaml:1:1" }, {}, fns)).toBe("no template $ here");
    // A failing leaf names the composite's place.
    expect(failure(() => evalExpr({ kind: "composite", text: "", value: ["${var.nope}"], at: "w.yaml:9:1" }, vars, fns)).message).toMatch(/^w\.yaml:9:1: /);
  });

  it("an error inside text that stands in the file as written points at the failing part (found by a new-user trial: at the string's opening quote)", () => {
    const at = (text: string, exact: boolean) => failure(() => evalExpr({ kind: "hcl", text, value: "", at: "w.hcl:30:21", ...(exact ? { exact: true as const } : {}) }, { each: { _prev: null } }, fns)).message;
    // The body-loop case: each._prev is null on the first item; the error is at ".notes".
    expect(at('"notes: ${each._prev.notes}"', true)).toMatch(/^w\.hcl:30:41: Attempt to get attribute from null value/);
    // On a later line: columns count from the line's start, in characters as a user sees them.
    expect(at('<<EOT\n  é🎉 ${each._prev.notes}\nEOT\n', true)).toMatch(/^w\.hcl:31:18: /);
    // Not exact (a YAML string with escapes, a folded scalar): the expression's own place.
    expect(at('"notes: ${each._prev.notes}"', false)).toMatch(/^w\.hcl:30:21: /);
  });

  it("evalMap evaluates each entry", () => {
    expect({ ...evalMap({ a: hcl("var.x * 2"), b: { kind: "literal", text: "true", value: true, at: "x" } }, vars, fns) }).toEqual({ a: 4, b: true });
  });
});

describe("conform", () => {
  it("converts to the declared type at every depth, or fails naming what does not fit", () => {
    expect(conform("number", "3", "var x")).toBe(3);
    expect(conform("string", 3, "var x")).toBe("3");
    expect(conform("object({ a = string })", { a: 1, b: 2 }, "output o")).toEqual({ a: "1" });
    expect(conform("list(bool)", ["true", false], "data d")).toEqual([true, false]);
    const f = failure(() => conform("number", "many", 'data "internal" "n"'));
    expect(f.message).toMatch(/^data "internal" "n": .+ \(type number\)$/);
  });

  it("a type it cannot read leaves the value as it is (validate reports the type)", () => {
    expect(conform("notatype(", { a: 1 }, "x")).toEqual({ a: 1 });
  });
});

describe("engineFunctions", () => {
  it("reads files inside the workflow's directory only, at most CRITERIA_FILE_FUNC_MAX_BYTES (clamped to at least 1 KiB)", () => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-evalfns-"));
    writeFileSync(join(dir, "small.txt"), "hello");
    writeFileSync(join(dir, "big.txt"), "x".repeat(3000));
    const f = engineFunctions(dir, {});
    expect(evalExpr(hcl('file("small.txt")'), {}, f)).toBe("hello");
    expect(failure(() => evalExpr(hcl('file("/etc/hostname")'), {}, f)).message).toMatch(/outside/);
    const capped = engineFunctions(dir, { CRITERIA_FILE_FUNC_MAX_BYTES: "10" });
    expect(evalExpr(hcl('length(file("small.txt"))'), {}, capped)).toBe(5);
    expect(failure(() => evalExpr(hcl('file("big.txt")'), {}, capped)).message).toMatch(/1024|1 KiB|bytes/);
  });

  it("a file that cannot be read is an error try() and can() catch (validate lets a missing one through them)", () => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-evalfns-"));
    writeFileSync(join(dir, "here.txt"), "hello");
    const f = engineFunctions(dir, {});
    expect(evalExpr(hcl('can(file("nope.txt"))'), {}, f)).toBe(false);
    expect(evalExpr(hcl('can(file("here.txt"))'), {}, f)).toBe(true);
    expect(evalExpr(hcl('try(file("nope.txt"), "none")'), {}, f)).toBe("none");
    expect(evalExpr(hcl('try(file("/etc/hostname"), "refused")'), {}, f)).toBe("refused");
  });
});

describe("iterationItems", () => {
  const items = (v: Value, max = 100) => iterationItems(v, "count", "w.hcl:5:11", max);

  it("count n gives 0..n-1 (a string of digits too); a list its values by index; a map its entries in key order", () => {
    expect(items(3)).toEqual([{ key: 0, value: 0 }, { key: 1, value: 1 }, { key: 2, value: 2 }]);
    expect(items("2")).toEqual([{ key: 0, value: 0 }, { key: 1, value: 1 }]);
    expect(items("12")).toHaveLength(12);
    expect(items(0)).toEqual([]);
    expect(items(["a", "b"])).toEqual([{ key: 0, value: "a" }, { key: 1, value: "b" }]);
    expect(items({ b: 2, a: 1 })).toEqual([{ key: "a", value: 1 }, { key: "b", value: 2 }]);
  });

  it("a count that is not a whole number fails naming it", () => {
    expect(failure(() => items(2.5)).message).toBe("w.hcl:5:11: count must be a whole number, not 2.5");
    // A negative one is a whole number: what is wrong is said (a trial of the Go tool's docs).
    expect(failure(() => items(-1)).message).toBe("w.hcl:5:11: count must not be negative, not -1");
  });

  it("a count past max_total_steps fails at once with policy_exceeded; one equal to it is built", () => {
    const f = failure(() => items(101));
    expect(f.reason).toBe("policy_exceeded");
    expect(f.message).toBe("w.hcl:5:11: count = 101 is more than policy max_total_steps = 100");
    expect(items(100)).toHaveLength(100);
  });

  it("anything else fails naming the value", () => {
    for (const [v, shown] of [[null, "null"], [true, "true"], ["3a", '"3a"'], ["a3", '"a3"'], ["", '""']] as const) {
      expect(failure(() => iterationItems(v, "for_each", "w.hcl:1:2", 100)).message).toBe(`w.hcl:1:2: for_each must be a list, a map or a whole number, not ${shown}`);
    }
    // count takes a number: its message says so (found by a new-user trial: "count must be a list, ...").
    expect(failure(() => iterationItems("staging", "count", "w.yaml:9:12", 100)).message).toBe('w.yaml:9:12: count must be a whole number, not "staging"');
  });
});
