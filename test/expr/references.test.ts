import { describe, expect, test } from "vitest";
import { functionCalls, parseTemplate, references } from "../../compiler/expr/index.js";
import { parseOk, slice } from "./helpers.js";

const refs = (text: string) => references(parseOk(text)).map((r) => ({ root: r.root, path: r.path, raw: r.raw, text: slice(text, r) }));

describe("references", () => {
  test("simple traversals with paths and ranges", () => {
    const text = 'var.x == "a" && steps.build.exit_code == 0 || each.value';
    expect(refs(text)).toEqual([
      { root: "var", path: ["x"], raw: "var.x", text: "var.x" },
      { root: "steps", path: ["build", "exit_code"], raw: "steps.build.exit_code", text: "steps.build.exit_code" },
      { root: "each", path: ["value"], raw: "each.value", text: "each.value" },
    ]);
  });

  test("static index steps are part of the path", () => {
    expect(refs('steps.s[0].k')).toEqual([{ root: "steps", path: ["s", 0, "k"], raw: "steps.s[0].k", text: "steps.s[0].k" }]);
    expect(refs('local.m["a b"].c')).toEqual([{ root: "local", path: ["m", "a b", "c"], raw: 'local.m["a b"].c', text: 'local.m["a b"].c' }]);
    expect(refs("a.0.b")).toEqual([{ root: "a", path: [0, "b"], raw: "a[0].b", text: "a.0.b" }]);
  });

  test("the path stops at the first dynamic step; index expressions are visited", () => {
    expect(refs("var.m[each.key].name")).toEqual([
      { root: "var", path: ["m"], raw: "var.m", text: "var.m" },
      { root: "each", path: ["key"], raw: "each.key", text: "each.key" },
    ]);
    expect(refs("var.list[*].id")).toEqual([{ root: "var", path: ["list"], raw: "var.list", text: "var.list" }]);
    expect(refs('var.m["${x}"]').map((r) => r.raw)).toEqual(["var.m", "x"]);
  });

  test("adapter and state roots", () => {
    expect(refs("adapter.noop.default").map((r) => r.path)).toEqual([["noop", "default"]]);
    expect(refs("state.done").map((r) => r.root)).toEqual(["state"]);
  });

  test("names bound by for expressions are excluded, but not in the collection", () => {
    expect(refs("[for x in y : x.a]").map((r) => r.raw)).toEqual(["y"]);
    expect(refs("{for k, v in var.m : k => v.b if v.c && var.flag}").map((r) => r.raw)).toEqual(["var.m", "var.flag"]);
    expect(refs("[for x in x : x]").map((r) => r.raw)).toEqual(["x"]);
    expect(refs("[for x in a : [for y in x : y + z]]").map((r) => r.raw)).toEqual(["a", "z"]);
    expect(refs("concat([for x in a : x], [x])").map((r) => r.text)).toEqual(["a", "x"]);
  });

  test("names bound by %{for} directives are excluded", () => {
    expect(refs('"%{for i, s in var.list}${i}${s.name}${other}%{endfor}"').map((r) => r.raw)).toEqual(["var.list", "other"]);
  });

  test("references everywhere in the tree", () => {
    const text = '{ (k) = f(a, -b, c ? d : e, [g], "${h}") }.x';
    expect(refs(text).map((r) => r.raw)).toEqual(["k", "a", "b", "c", "d", "e", "g", "h"]);
  });

  test("bare object keys are not references", () => {
    expect(refs("{ key = val }").map((r) => r.raw)).toEqual(["val"]);
  });

  test("ranges include baseOffset", () => {
    const r = parseTemplate("run ${steps.build.output}", 1000);
    expect(references(r.expr!)).toEqual([
      { root: "steps", path: ["build", "output"], start: 1006, end: 1024, raw: "steps.build.output" },
    ]);
  });
});

describe("functionCalls", () => {
  test("lists calls with name ranges", () => {
    const text = "upper(lowr(x)) + length([for s in l : trimspace(s)])";
    const calls = functionCalls(parseOk(text));
    expect(calls.map((c) => [c.name, slice(text, c), c.argCount])).toEqual([
      ["upper", "upper", 1], ["lowr", "lowr", 1], ["length", "length", 1], ["trimspace", "trimspace", 1],
    ]);
    expect(slice(text, { start: calls[1].callStart, end: calls[1].callEnd })).toBe("lowr(x)");
  });
});
