import { describe, expect, test } from "vitest";
import { parseExpression, MAX_NESTING, type Expr } from "../../compiler/expr/index.js";
import { parseErr, parseOk, slice, sx } from "./helpers.js";

describe("literals", () => {
  test.each([
    ["42", 42], ["3.25", 3.25], ["1e3", 1000], ["2.5E-1", 0.25], ["true", true], ["false", false], ["null", null],
    ['"hi"', "hi"], ['""', ""],
  ])("%s", (text, value) => {
    const e = parseOk(text);
    expect(e).toEqual({ kind: "literal", value, start: 0, end: text.length });
  });

  test("offsets are shifted by baseOffset", () => {
    expect(parseOk("  12 ", 100)).toEqual({ kind: "literal", value: 12, start: 102, end: 104 });
  });
});

describe("traversals", () => {
  test("scope traversal with exact step offsets", () => {
    const text = 'steps.s[0].k["x"].0.*';
    const e = parseOk(text);
    expect(e.kind).toBe("scope_traversal");
    if (e.kind !== "scope_traversal") return;
    expect(e.root).toBe("steps");
    expect([e.start, e.rootEnd, e.end]).toEqual([0, 5, text.length]);
    expect(e.steps.map((s) => [s.kind, slice(text, s)])).toEqual([
      ["attr", ".s"], ["index", "[0]"], ["attr", ".k"], ["index", '["x"]'], ["legacy_index", ".0"], ["splat", ".*"],
    ]);
  });

  test("identifiers may contain dashes and unicode", () => {
    expect(sx(parseOk("my-var.some_attr.é"))).toBe("my-var.some_attr.é");
  });

  test("full and attribute-only splats", () => {
    expect(sx(parseOk("a[*].b[0]"))).toBe("a[*].b[0]");
    expect(sx(parseOk("a.*.b"))).toBe("a.*.b");
    expect(sx(parseOk("a[ * ]"))).toBe("a[*]");
  });

  test("relative traversals after any expression", () => {
    const text = "f(x).a[0]";
    const e = parseOk(text);
    expect(sx(e)).toBe("(rel (f x) .a[0])");
    expect([e.start, e.end]).toEqual([0, 9]);
    expect(sx(parseOk("[1, 2][*]"))).toBe("(rel [1 2] [*])");
    expect(sx(parseOk('{a = 1}.a'))).toBe('(rel {"a"=1} .a)');
    expect(sx(parseOk("(a).b"))).toBe("(rel (paren a) .b)");
    expect(sx(parseOk('"s"[0]'))).toBe('(rel "s" [0])');
  });

  test("dynamic index", () => {
    expect(sx(parseOk("var.m[each.key]"))).toBe("var.m[each.key]");
  });

  test("keywords are literals, but fine as attribute names", () => {
    expect(sx(parseOk("a.true.null.for"))).toBe("a.true.null.for");
  });
});

describe("function calls", () => {
  test("arguments, trailing comma, offsets", () => {
    const text = "join(\",\", [a, b],)";
    const e = parseOk(text);
    expect(sx(e)).toBe('(join "," [a b])');
    if (e.kind !== "call") throw new Error();
    expect([e.start, e.nameEnd, e.end]).toEqual([0, 4, text.length]);
  });
  test("expansion and namespaced names", () => {
    expect(sx(parseOk("min(xs...)"))).toBe("(min xs...)");
    expect(sx(parseOk("provider::ns::fn(1)"))).toBe("(provider::ns::fn 1)");
    expect(sx(parseOk("f()"))).toBe("(f )");
    expect(sx(parseOk("f(\n  1,\n  2\n)"))).toBe("(f 1 2)");
  });
});

describe("operators and precedence", () => {
  test.each([
    ["1 + 2 * 3", "(+ 1 (* 2 3))"],
    ["1 * 2 + 3", "(+ (* 1 2) 3)"],
    ["1 - 2 - 3", "(- (- 1 2) 3)"],
    ["8 / 4 % 3", "(% (/ 8 4) 3)"],
    ["-a * b", "(* (- a) b)"],
    ["!a == b", "(== (! a) b)"],
    ["!!a", "(! (! a))"],
    ["- -1", "(- (- 1))"],
    ["a < b == c > d", "(== (< a b) (> c d))"],
    ["a >= 1 && b <= 2", "(&& (>= a 1) (<= b 2))"],
    ["a || b && c", "(|| a (&& b c))"],
    ["a && b || c && d", "(|| (&& a b) (&& c d))"],
    ["a == b != c", "(!= (== a b) c)"],
    ["a + b > c * d", "(> (+ a b) (* c d))"],
    ["a ? b : c ? d : e", "(? a b (? c d e))"],
    ["a || b ? c + 1 : d", "(? (|| a b) (+ c 1) d)"],
    ["(1 + 2) * 3", "(* (paren (+ 1 2)) 3)"],
    ["-x.y[0]", "(- x.y[0])"],
    ['var.env == "prod"', '(== var.env "prod")'],
  ])("%s", (text, expected) => {
    expect(sx(parseOk(text))).toBe(expected);
  });

  test("binary node offsets", () => {
    const text = "a  +  bc";
    const e = parseOk(text, 10);
    expect(e).toMatchObject({ kind: "binary", op: "+", start: 10, end: 18, opStart: 13, opEnd: 14 });
  });

  test("conditional offsets", () => {
    const e = parseOk("x ? 1 : 2");
    expect(e).toMatchObject({ kind: "conditional", start: 0, end: 9 });
  });

  test("identifier with dash vs subtraction", () => {
    expect(sx(parseOk("a-b"))).toBe("a-b");
    expect(sx(parseOk("a - b"))).toBe("(- a b)");
  });
});

describe("collections", () => {
  test("tuples", () => {
    const e = parseOk("[1, \"two\", [3],\n]");
    expect(sx(e)).toBe('[1 "two" [3]]');
    expect([e.start, e.end]).toEqual([0, 17]);
    expect(sx(parseOk("[]"))).toBe("[]");
  });

  test("objects with every key form and separator", () => {
    const text = '{\n  a = 1\n  "b": 2, (c) = 3\n  4 = x\n}';
    const e = parseOk(text);
    expect(sx(e)).toBe('{"a"=1 "b"=2 (paren c)=3 4=x}');
    expect([e.start, e.end]).toEqual([0, text.length]);
    expect(sx(parseOk("{}"))).toBe("{}");
    expect(sx(parseOk("{ a = 1, }"))).toBe('{"a"=1}');
    expect(sx(parseOk('{ "${k}" = 1 }'))).toBe('{(tpl ${k})=1}');
  });

  test("a bare-name key is a string literal with the name's offsets", () => {
    const e = parseOk("{ key = 1 }");
    if (e.kind !== "object") throw new Error();
    expect(e.items[0].key).toEqual({ kind: "literal", value: "key", start: 2, end: 5 });
  });

  test("object values may be multi-line inside brackets", () => {
    expect(sx(parseOk("{\n a = [\n 1,\n 2\n ]\n b = f(\n x)\n}"))).toBe('{"a"=[1 2] "b"=(f x)}');
  });

  test("for expressions", () => {
    expect(sx(parseOk("[for s in var.list : upper(s)]"))).toBe("(for s var.list (upper s))");
    expect(sx(parseOk("[for i, s in xs : s if i > 0]"))).toBe("(for i,s xs s if (> i 0))");
    expect(sx(parseOk("{for k, v in m : k => v}"))).toBe("(for k,v m k => v)");
    expect(sx(parseOk("{for k, v in m : v => k... if k != \"x\"}"))).toBe('(for k,v m v => k... if (!= k "x"))');
    expect(sx(parseOk("[\n for x in xs :\n x\n]"))).toBe("(for x xs x)");
    const text = "[for x in y : x]";
    const e = parseOk(text, 5);
    if (e.kind !== "for") throw new Error();
    expect([e.start, e.end]).toEqual([5, 5 + text.length]);
    expect(e.valueVar).toEqual({ name: "x", start: 10, end: 11 });
  });

  test("`for` alone is an ordinary name", () => {
    expect(sx(parseOk("[for]"))).toBe("[for]");
    expect(sx(parseOk("{for = 1}"))).toBe('{"for"=1}');
  });
});

describe("comments and whitespace", () => {
  test("comments are ignored", () => {
    expect(sx(parseOk("a /* c */ + # line\n b // end"))).toBe("(+ a b)");
  });
  test("top-level newlines are tolerated", () => {
    expect(sx(parseOk("\n a\n  + b\n"))).toBe("(+ a b)");
  });
});

describe("syntax errors", () => {
  test.each([
    ["", 0, 0, /expected the start of an expression/],
    ["a +", 3, 3, /expected the start of an expression/],
    ["a b", 2, 3, /Extra characters after expression/],
    ["'x'", 0, 1, /single quotes/],
    ["a & b", 2, 3, /bitwise/],
    ["(a", 2, 2, /closing parenthesis/],
    ["[1 2]", 3, 4, /Missing item separator/],
    ["{a = 1 b = 2}", 7, 8, /Missing attribute separator/],
    ["{a 1}", 3, 4, /Missing key\/value separator/],
    ["f(a b)", 4, 5, /Missing argument separator/],
    ["f(a..., b)", 8, 9, /expanding argument/],
    ["a ? b", 5, 5, /Missing false expression/],
    ["a.", 2, 2, /Invalid attribute name/],
    ["a.0.1", 2, 5, /legacy index/],
    ["x[1", 3, 3, /Missing close bracket/],
    ["[for x y : x]", 7, 8, /"in"/],
    ["[for x in y x]", 12, 13, /colon/],
    ["{for k, v in m : k v}", 19, 20, /=>/],
    ["[for x in y : x...]", 15, 18, /grouping/],
    ["/* open", 0, 7, /Unterminated comment/],
    ["1e999", 0, 5, /too large/],
    ["ns::fn", 6, 6, /Missing function arguments/],
    ["<<EOT", 0, 2, /heredoc introducer/],
  ])("%j", (text, start, end, message) => {
    const e = parseErr(text);
    expect(e.message).toMatch(message);
    expect([e.start, e.end]).toEqual([start, end]);
  });

  test("error offsets include baseOffset", () => {
    const r = parseExpression("a +", 40);
    expect(r.errors).toEqual([{ start: 43, end: 43, message: expect.any(String), code: "expr_syntax" }]);
  });

  test("nesting is capped with an error, not a stack overflow", () => {
    for (const [open, close] of [["(", ")"], ["[", "]"], ["{a=", "}"], ["f(", ")"], ["x[", "]"], ['"${', '}"']]) {
      const text = open.repeat(5000) + "1" + close.repeat(5000);
      const e = parseErr(text);
      expect(e.message).toMatch(/too deeply nested/);
    }
    expect(parseErr("!".repeat(100000) + "a").message).toMatch(/too deeply nested/);
    expect(parseErr("a" + "[*]".repeat(MAX_NESTING + 1)).message).toMatch(/splat/);
  });

  test("nesting below the cap is fine", () => {
    const depth = 50;
    expect(parseExpression("(".repeat(depth) + "1" + ")".repeat(depth)).errors).toEqual([]);
  });

  test("long binary chains are capped by AST depth", () => {
    expect(parseExpression(Array(900).fill("1").join(" + ")).errors).toEqual([]);
    expect(parseErr(Array(5000).fill("1").join(" + ")).message).toMatch(/too deeply nested/);
  });

  test("large flat inputs parse in roughly linear time", () => {
    const items = Array.from({ length: 50000 }, (_, i) => `"item${i}"`).join(", ");
    const t0 = performance.now();
    const e = parseOk(`[${items}]`) as Expr;
    expect(e.kind === "tuple" && e.items.length).toBe(50000);
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});
