/**
 * try(expr, fallback...) and can(expr): Terraform's functions that catch evaluation
 * errors, evaluating their arguments lazily (found by a new-user trial: a step that may
 * not have run could not be read at all; lookup() and coalesce() failed the same way).
 */
import { describe, expect, test } from "vitest";
import { evaluate, MAX_EVAL_STEPS, makeFunctions, type Value } from "../../compiler/expr/index.js";
import { evalErr, evalOk, parseOk, slice } from "./helpers.js";

/** `steps` as the engine gives it: a declared step that has not run has no key. */
const ran: Record<string, Value> = { steps: { build: { stdout: "ok", exit_code: 0 } }, m: { a: 1 } };

describe("try", () => {
  test.each<[string, Value]>([
    ['try(steps.review.stdout, "nothing")', "nothing"],
    ['try(steps.build.stdout, "nothing")', "ok"],
    ['try(steps.review.stdout, steps.build.stdout, "x")', "ok"],
    ['try(m.b, m["c"], m.a)', 1],
    ['try(tonumber("x"), 0)', 0],
    ['try([1, 2][5], "none")', "none"],
    ['try(jsondecode("{"), {})', {}],
    ['"said: ${try(steps.review.stdout, "")}"', "said: "],
    ["try(null)", null],
  ])("%s", (text, want) => {
    expect(evalOk(text, ran)).toEqual(want);
  });

  test("later arguments are not evaluated once one succeeds", () => {
    expect(evalOk('try("first", "x"[0])', ran)).toBe("first");
  });

  test("no argument succeeds: one error at the call, naming each argument's error", () => {
    const text = 'try(steps.review.stdout, m.zz)';
    const errs = evalErr(text, ran);
    expect(errs).toHaveLength(1);
    expect(slice(text, errs[0])).toBe(text);
    expect(errs[0].message).toMatch(/^Error in function call: try: no argument evaluated without an error \(argument 1: step "review" has not run in this run.*; argument 2: Unsupported attribute/);
    // Inside try, the not-run message does not tell to use try.
    expect(errs[0].message).not.toContain("write try(");
  });

  test("running out of evaluation steps is not caught", () => {
    const text = "try([for i in range(1000) : [for j in range(1000) : [for k in range(1000) : k]]], 0)";
    const r = evaluate(parseOk(text), { variables: {}, functions: makeFunctions() });
    expect(r.value).toBeUndefined();
    expect(r.errors.map((e) => e.message)).toEqual([`Evaluation limit exceeded: the expression needs more than ${MAX_EVAL_STEPS} steps.`]);
  });
});

describe("can", () => {
  test.each<[string, Value]>([
    ["can(steps.review.stdout)", false],
    ["can(steps.review)", false],
    ["can(steps.build.stdout)", true],
    ['can(tonumber("x"))', false],
    ['can(steps.review) ? steps.review.stdout : "skipped"', "skipped"],
    ['can(steps.build) ? steps.build.stdout : "skipped"', "ok"],
  ])("%s", (text, want) => {
    expect(evalOk(text, ran)).toEqual(want);
  });
});

test("the not-run error tells how to guard the read", () => {
  const errs = evalErr("steps.review.stdout", ran);
  expect(errs[0].message).toContain('To read it only when it has run, write try(steps.review.stdout, "") (or test can(steps.review) in a condition).');
  // The whole step's outputs fall back to {}: lookup(try(steps.review, ""), ...) failed on the string (a trial).
  expect(evalErr('lookup(steps.review, "stdout", "none")', ran)[0].message).toContain("write try(steps.review, {})");
});
