import { describe, expect, test } from "vitest";
import { evaluate, FunctionError, makeFunctions, type Value } from "../../compiler/expr/index.js";
import { evalErr, evalOk, parseOk, slice } from "./helpers.js";

const vars: Record<string, Value> = {
  var: { env: "prod", list: ["a", "b"], n: 3, s: "5", flag: true, obj: { a: 1, b: { c: [10, 20] } }, nothing: null },
  each: { key: "k1", value: "v1" },
  steps: { build: { exit_code: 0, outputs: [{ id: "x" }, { id: "y" }] } },
  local: { people: [{ name: "ann", tags: ["a"] }, { name: "bob", tags: ["b", "c"] }] },
};

/** The single error of evaluating `text`, as [covered text, message]. */
function oneErr(text: string, v: Record<string, Value> = vars): [string, string] {
  const errs = evalErr(text, v);
  expect(errs).toHaveLength(1);
  return [slice(text, errs[0]), errs[0].message];
}

describe("values and operators", () => {
  test.each<[string, Value]>([
    ["1 + 2 * 3", 7],
    ["(1 + 2) * 3", 9],
    ["7 / 2", 3.5],
    ["7 % 3", 1],
    ["-var.n", -3],
    ['var.s + 1', 6],
    ['"2" * "3"', 6],
    ["var.n > 2 && var.n <= 3", true],
    ['1 == "1"', false],
    ["[1, [2, {a = 3}]] == [1, [2, {a = 3}]]", true],
    ["{a = 1, b = 2} == {b = 2, a = 1}", true],
    ["{a = 1} != {a = 1, b = 2}", true],
    ["null == null", true],
    ["var.nothing == null", true],
    ['!var.flag || "true"', true],
    ['var.env == "prod" ? "p" : "d"', "p"],
    ["false ? 1 : true ? 2 : 3", 2],
    ['"true" ? 1 : 2', 1],
    ["[1, var.env]", [1, "prod"]],
    ['{ a = 1, "b" = 2, (var.env) = 3, 4 = 5 }', { a: 1, b: 2, prod: 3, "4": 5 }],
  ])("%s", (text, expected) => {
    expect(evalOk(text, vars)).toEqual(expected);
  });

  test("&& and || short-circuit", () => {
    expect(evalOk("var.nothing != null && var.nothing.x", vars)).toBe(false);
    expect(evalOk("var.nothing == null || var.nothing.x", vars)).toBe(true);
  });

  test("conditional evaluates only the chosen branch", () => {
    expect(evalOk("true ? 1 : undefined_thing", vars)).toBe(1);
  });
});

describe("templates", () => {
  test("number and bool conversion", () => {
    expect(evalOk('"${var.n}-${var.flag}-${1.5}-${0.000001}-${1e21}"', vars)).toBe("3-true-1.5-0.000001-1000000000000000000000");
  });
  test('"${x}" returns the value unconverted', () => {
    expect(evalOk('"${var.list}"', vars)).toEqual(["a", "b"]);
    expect(evalOk('"${var.n}"', vars)).toBe(3);
  });
  test("interpolating null or a collection is an error on the interpolated expression", () => {
    expect(oneErr('"x ${var.nothing}"')).toEqual(["var.nothing", expect.stringMatching(/null/)]);
    expect(oneErr('"x ${var.list}"')).toEqual(["var.list", expect.stringMatching(/cannot include a list/)]);
  });
});

describe("traversals", () => {
  test("attributes and indexes", () => {
    expect(evalOk("var.obj.b.c[1]", vars)).toBe(20);
    expect(evalOk('var.obj["b"]["c"][0]', vars)).toBe(10);
    expect(evalOk('var.list["1"]', vars)).toBe("b");
    expect(evalOk("var.obj.b.c.0", vars)).toBe(10);
    expect(evalOk("steps.build.exit_code", vars)).toBe(0);
    expect(evalOk("each.value", vars)).toBe("v1");
  });

  test("splats", () => {
    expect(evalOk("steps.build.outputs[*].id", vars)).toEqual(["x", "y"]);
    expect(evalOk("steps.build.outputs.*.id", vars)).toEqual(["x", "y"]);
    expect(evalOk("local.people[*].tags[0]", vars)).toEqual(["a", "b"]);
    expect(evalOk("local.people.*.tags[0]", vars)).toEqual(["a"]);
    expect(evalOk("var.nothing[*]", vars)).toEqual([]);
    expect(evalOk("var.obj[*].a", vars)).toEqual([1]);
    expect(evalOk("[[1, 2], [3]][*][0]", vars)).toEqual([1, 3]);
    expect(evalOk("local.people[*].tags[*]", vars)).toEqual([["a"], ["b", "c"]]);
  });

  test("relative traversal after calls and literals", () => {
    expect(evalOk('jsondecode("{\\"a\\": [1, 2]}").a[1]', vars)).toBe(2);
    // A number beyond the range of numbers is an error, not null (it came back as null).
    expect(evalErr('jsondecode("1e400")', vars)[0].message).toMatch(/beyond the range of numbers/);
    // The same text on every Node version (22 and later add " (line 1 column 2)" to V8's).
    expect(evalErr('jsondecode("{nope")', vars)[0].message).toMatch(/invalid JSON: Expected property name or '\}' in JSON at position 1$/);
    expect(evalOk("[10, 20, 30][2]", vars)).toBe(30);
  });

  test("own properties only", () => {
    expect(oneErr("var.constructor")).toEqual([".constructor", expect.stringMatching(/Unsupported attribute/)]);
    expect(evalOk('{ "__proto__" = 1 }["__proto__"]', vars)).toBe(1);
    expect(oneErr("toString")[1]).toMatch(/Unknown variable/);
  });
});

describe("for expressions", () => {
  test("tuples and objects", () => {
    expect(evalOk("[for s in var.list : upper(s)]", vars)).toEqual(["A", "B"]);
    expect(evalOk("[for i, s in var.list : \"${i}:${s}\"]", vars)).toEqual(["0:a", "1:b"]);
    expect(evalOk("{for p in local.people : p.name => length(p.tags)}", vars)).toEqual({ ann: 1, bob: 2 });
    expect(evalOk("[for k, v in {b = 2, a = 1} : k]", vars)).toEqual(["a", "b"]);
    expect(evalOk("[for x in [1, 2, 3, 4] : x * 10 if x % 2 == 0]", vars)).toEqual([20, 40]);
    expect(evalOk('{for s in ["a", "bb", "cc"] : length(s) => s...}', vars)).toEqual({ "1": ["a"], "2": ["bb", "cc"] });
    expect(evalOk("[for x in [1] : [for y in [2] : x + y]]", vars)).toEqual([[3]]);
  });

  test("for-bound names shadow variables", () => {
    expect(evalOk("[for var in [1] : var]", vars)).toEqual([1]);
  });
});

describe("functions in expressions", () => {
  test("calls and expansion", () => {
    expect(evalOk('join("-", var.list)', vars)).toBe("a-b");
    expect(evalOk("max([3, 9, 4]...)", vars)).toBe(9);
    expect(evalOk("max(1, [3, 9]...)", vars)).toBe(9);
  });
});

describe("evaluation errors carry the offending sub-expression's range", () => {
  test.each<[string, string, RegExp]>([
    ["unknwn.x", "unknwn", /Unknown variable: there is no variable named "unknwn"/],
    ["vr.x", "vr", /Did you mean "var"\?/],
    ["var.evn", ".evn", /Unsupported attribute.*"evn".*Did you mean "env"\?/],
    // A step that has not run (a path not taken): said so, not "this object does not have an attribute" (a new-user trial).
    // At steps.deploy, what has no value (found by a new-user trial: a template's error pointed at its quote).
    ["steps.deploy.stdout", "steps.deploy", /^step "deploy" has not run in this run, so steps\.deploy has no value/],
    ["steps.build.stdout_x", ".stdout_x", /Unsupported attribute/],
    ["var.nothing.x", ".x", /Attempt to get attribute from null value/],
    ["var.list.x", ".x", /on a list/],
    ["var.env.x", ".x", /on a string value/],
    ["var.list[5]", "[5]", /index 5 is out of range for a list of 2 elements/],
    ["var.list[-1]", "[-1]", /out of range/],
    ["var.list.7", ".7", /out of range/],
    ['var.list["x"]', '"x"', /list index must be a number/],
    ["var.list[0.5]", "0.5", /whole number/],
    ["var.list[var.nothing]", "var.nothing", /null value as an indexing key/],
    ['var.obj["zz"]', '["zz"]', /"zz" does not identify an element/],
    ["var.nothing[0]", "[0]", /Attempt to index null value/],
    ["var.env[0]", "[0]", /string value does not have any indices/],
    ['var.env + 1', "var.env", /Invalid left operand: a number is required, but got string "prod"/],
    ['1 * [1]', "[1]", /right operand.*number is required, but got list/],
    ["var.nothing > 1", "var.nothing", /got null/],
    ["!1", "1", /bool is required/],
    ['-"x"', '"x"', /number is required/],
    ["1 && true", "1", /left operand: a bool is required/],
    ["var.n ? 1 : 2", "var.n", /Incorrect condition type/],
    ["var.nothing ? 1 : 2", "var.nothing", /Null condition/],
    ["1 / 0", "1 / 0", /Division by zero/],
    ["var.n % (1 - 1)", "var.n % (1 - 1)", /Division by zero/],
    ["1e308 * 10", "1e308 * 10", /not a finite number/],
    ["uper(var.env)", "uper", /Call to unknown function.*Did you mean "upper"\?/],
    ["upper()", "upper()", /Not enough function arguments: upper\(string\) needs at least 1/],
    ['upper("a", "b")', '"b"', /Too many function arguments/],
    ["upper(var.list)", "var.list", /upper \(argument 1\): a string is required, but got list/],
    ['max(var.env...)', "var.env", /expanding argument/],
    ["[for x in var.nothing : x]", "var.nothing", /Iteration over null value/],
    ["[for x in 3 : x]", "3", /non-iterable/],
    ['{for x in ["a", "a"] : x => 1}', "x", /Duplicate object key: .*"a"/],
    ['{for x in [1] : null => 1}', "null", /Null value as key/],
    ["{(var.list) = 1}", "(var.list)", /Incorrect key type/],
    ['{a = 1, "a" = 2}', '"a"', /Duplicate object attribute: an attribute named "a"/],
    ["[for x in [1] : x if x]", "x", /Incorrect condition type/],
    ['"%{if var.nothing}x%{endif}"', "var.nothing", /Null condition/],
    ['"%{for x in 1}x%{endfor}"', "1", /non-iterable/],
  ])("%s", (text, covered, message) => {
    const [got, msg] = oneErr(text);
    expect(msg).toMatch(message);
    expect(got).toBe(covered);
  });

  test("offsets are absolute with a base offset", () => {
    const r = evaluate(parseOk("x.y", 500), { variables: {}, functions: {} });
    expect(r).toEqual({ errors: [{ start: 500, end: 501, message: expect.stringMatching(/Unknown variable/), code: "eval_error" }] });
  });

  test("several independent errors are all reported", () => {
    const errs = evalErr("[a, b, c]");
    expect(errs.map((e) => e.message.match(/"(\w)"/)![1])).toEqual(["a", "b", "c"]);
  });

  test("repeated identical errors are reported once", () => {
    expect(evalErr("[for x in [1, 2, 3] : x.nope]", vars).length).toBe(1);
  });
});

describe("never throws", () => {
  test("misbehaving caller functions become errors", () => {
    const functions = {
      ...makeFunctions(),
      boom: { params: "", doc: "", minArgs: 0, maxArgs: 0, impl: (): Value => { throw new Error("kaput"); } },
      argbad: { params: "x", doc: "", minArgs: 1, maxArgs: 1, impl: (): Value => { throw new FunctionError("nope", 0); } },
      weird: { params: "", doc: "", minArgs: 0, maxArgs: 0, impl: (): Value => { throw "string thrown"; } },
    };
    const ev = (t: string) => evaluate(parseOk(t), { variables: {}, functions });
    expect(ev("boom()").errors[0].message).toMatch(/Error in function call: boom: kaput/);
    const text = "argbad(1 + 1)";
    expect(slice(text, ev(text).errors[0])).toBe("1 + 1");
    expect(ev("weird()").errors[0].message).toMatch(/string thrown/);
  });

  test("a missing or odd context is tolerated", () => {
    const e = parseOk("a + f(1)");
    // @ts-expect-error deliberately wrong context
    expect(evaluate(e, undefined).errors.length).toBeGreaterThan(0);
    // @ts-expect-error deliberately wrong context
    expect(evaluate(e, { variables: null, functions: null }).errors.length).toBeGreaterThan(0);
  });

  test("runaway work is cut off with an error", () => {
    const r = evaluate(parseOk("[for a in range(1000) : [for b in range(1000) : [for c in range(1000) : c]]]"), { variables: {}, functions: makeFunctions() });
    expect(r.errors[0].message).toMatch(/Evaluation limit exceeded/);
  }, 20000);
});
