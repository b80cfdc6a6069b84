import { describe, expect, test } from "vitest";
import { functionDocs, functionNames, makeFunctions, type Value } from "../../compiler/expr/index.js";
import { evalErr, evalOk, slice } from "./helpers.js";

const REQUIRED = [
  "length", "upper", "lower", "trimspace", "join", "split", "replace", "format", "concat", "contains", "keys", "values",
  "lookup", "merge", "coalesce", "tostring", "tonumber", "tobool", "jsonencode", "jsondecode", "min", "max", "abs", "ceil",
  "floor", "range", "element", "slice", "distinct", "flatten", "startswith", "endswith", "substr", "file",
];

describe("function table and docs", () => {
  test("every required function exists with docs and consistent arity", () => {
    const t = makeFunctions();
    for (const name of REQUIRED) {
      expect(t[name], name).toBeDefined();
      expect(t[name].doc.length).toBeGreaterThan(10);
      expect(t[name].minArgs).toBeLessThanOrEqual(t[name].maxArgs);
    }
    expect([...functionNames()].sort()).toEqual(Object.keys(t).sort());
    expect(functionDocs().find((d) => d.name === "join")).toEqual({ name: "join", signature: "join(separator, lists...)", doc: expect.any(String), minArgs: 2, maxArgs: Infinity, params: "separator, lists..." });
    expect([...functionNames()]).toEqual([...functionNames()].sort());
  });
});

const v: Record<string, Value> = { m: { b: 2, a: 1 }, l: [3, 1, 2], s: "héllo wörld", n: null };

describe("behaviour", () => {
  test.each<[string, Value]>([
    ['length("héllo")', 5],
    ['length("👍🏽x")', 2],
    ["length(l)", 3],
    ["length(m)", 2],
    ['upper("abc")', "ABC"],
    ['lower("ÀB")', "àb"],
    ['trimspace("  a b \\n")', "a b"],
    ['join(", ", ["a", 1, true])', "a, 1, true"],
    ['join("-", ["a"], ["b", "c"])', "a-b-c"],
    ['split(",", "a,b,,c")', ["a", "b", "", "c"]],
    ['split(",", "")', [""]],
    ['replace("a-b-c", "-", "+")', "a+b+c"],
    ['replace("hello world", "/o(\\\\w)?/", "0$1")', "hell0 w0rld"],
    ['replace("ab", "", "-")', "-a-b-"],
    ['format("%s is %d years, %.2f%%", "ann", 30, 1.5)', "ann is 30 years, 1.50%"],
    ['format("%v %v %v %v", "x", 1, true, null)', "x 1 true null"],
    ['format("%v|%#v", [1, "a"], "s")', '[1,"a"]|"s"'],
    ['format("%q", "a\\"b")', '"a\\"b"'],
    ['format("%5s|%-5s|%05d|%+d|%x|%X|%b|%o|%t", "a", "b", 42, 3, 255, 255, 5, 8, true)', "    a|b    |00042|+3|ff|FF|101|10|true"],
    ['format("%[2]s %[1]s", "a", "b")', "b a"],
    ['format("%.3s|%e", "abcdef", 1234.5)', "abc|1.234500e+03"],
    ["concat([1], [], [2, 3])", [1, 2, 3]],
    ['contains(["a", [1]], [1])', true],
    ['contains(["a"], "b")', false],
    ["keys(m)", ["a", "b"]],
    ["values(m)", [1, 2]],
    ['lookup(m, "a")', 1],
    ['lookup(m, "z", 0)', 0],
    ["merge(m, {b = 3, c = 4}, null)", { a: 1, b: 3, c: 4 }],
    ["merge()", {}],
    ['coalesce(null, "x", "y")', "x"],
    ["tostring(1.5)", "1.5"],
    ["tostring(null)", null],
    ['tonumber("42")', 42],
    ['tobool("true")', true],
    ['jsonencode({b = [1, "<x>"], a = null})', '{"a":null,"b":[1,"\\u003cx\\u003e"]}'],
    ['jsondecode("{\\"a\\": [1, true, null]}")', { a: [1, true, null] }],
    ["min(3, 1, 2)", 1],
    ['max("4", 10)', 10],
    ["abs(-2.5)", 2.5],
    ["ceil(1.2)", 2],
    ["ceil(-0.5)", 0],
    ["floor(-1.2)", -2],
    ["range(3)", [0, 1, 2]],
    ["range(1, 4)", [1, 2, 3]],
    ["range(4, 1)", [4, 3, 2]],
    ["range(0, 1, 0.25)", [0, 0.25, 0.5, 0.75]],
    ["range(0)", []],
    ["element(l, 4)", 1],
    ["slice(l, 1, 3)", [1, 2]],
    ["slice(l, 3, 3)", []],
    ['distinct([1, "1", 1, [2], [2]])', [1, "1", [2]]],
    ["flatten([1, [2, [3, []]], [[4]]])", [1, 2, 3, 4]],
    ['startswith("criteria", "crit")', true],
    ['endswith("criteria", "x")', false],
    ["substr(s, 1, 4)", "éllo"],
    ["substr(s, -5, -1)", "wörld"],
    ['substr("abc", 1, 100)', "bc"],
  ])("%s", (text, expected) => {
    expect(evalOk(text, v)).toEqual(expected);
  });

  test("file() uses the caller's reader", () => {
    const readFile = (p: string) => {
      if (p.includes("..")) throw new Error(`path ${p} escapes the workflow directory`);
      return `contents of ${p}`;
    };
    expect(evalOk('file("a.txt")', {}, { readFile })).toBe("contents of a.txt");
    const errs = evalErr('file("../x")', {}, { readFile });
    expect(errs[0].message).toMatch(/escapes the workflow directory/);
  });
});

describe("argument errors point at the argument", () => {
  test.each<[string, string, RegExp]>([
    ["length(1)", "1", /string, list or object is required/],
    ["length(n)", "n", /must not be null/],
    ['join(",", ["a", null])', '["a", null]', /element 1 is null/],
    ['join(",", "a")', '"a"', /list is required/],
    ['replace("a", "/(/", "b")', '"/(/"', /invalid regular expression/],
    ['format("%d", "x")', '"x"', /%d needs a whole number/],
    ['format("%s %s", "x")', '"%s %s"', /not enough values/],
    ['format("%s", "x", "y")', '"y"', /too many values/],
    ['format("%z", 1)', '"%z"', /unsupported format verb/],
    ['format("%s", [1])', "[1]", /%s needs a string/],
    ['lookup(m, "z")', '"z"', /no key "z"/],
    ["merge(m, 1)", "1", /object or map is required/],
    ["coalesce(null, null)", "coalesce(null, null)", /no non-null/],
    ["tostring([1])", "[1]", /cannot convert list to string/],
    ['tonumber("x")', '"x"', /cannot convert string "x" to number/],
    ['tobool("yes")', '"yes"', /cannot convert string "yes" to bool/],
    ['jsondecode("{")', '"{"', /invalid JSON/],
    ["min()", "min()", /Not enough function arguments/],
    ['abs("x")', '"x"', /number is required/],
    ["range(0, 10, 0)", "0", /step must not be zero/],
    ["range(5000)", "range(5000)", /more than 1024/],
    ["range(0, 5, -1)", "-1", /never reach/],
    ["element([], 0)", "[]", /empty list/],
    ["element(l, -1)", "-1", /negative/],
    ["element(l, 1.5)", "1.5", /whole number/],
    ["slice(l, 2, 1)", "1", /end index/],
    ["slice(l, 5, 6)", "5", /out of range/],
    ['substr("abc", 9, 1)', "9", /beyond the end/],
    ['file("x")', 'file("x")', /not available/],
  ])("%s", (text, covered, message) => {
    const errs = evalErr(text, v);
    expect(errs).toHaveLength(1);
    expect(errs[0].message).toMatch(message);
    expect(slice(text, errs[0])).toBe(covered);
  });
});

describe("length and substr on long strings", () => {
  // Regression: Intl.Segmenter is quadratic on long inputs in Node 20 (150 KB took 23 s);
  // the line-by-line path keeps these inputs to milliseconds.
  test("count 400 KB of ASCII and of multi-line Unicode", () => {
    const f = makeFunctions();
    const ascii = "x".repeat(400_000);
    const unicode = "ça va 😀\n".repeat(40_000);
    expect(f.length.impl([ascii])).toBe(400_000);
    expect(f.length.impl([unicode])).toBe(40_000 * 8);
    expect(f.substr.impl([unicode, 0, 3])).toBe("ça ");
  });
});
