import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  childExprs, evaluate, makeFunctions, parseExpression, parseTemplate, references, functionCalls,
  type Expr, type TemplatePart, type Value,
} from "../../compiler/expr/index.js";

const CORPUS = [
  'var.env == "prod"',
  '"execute:${each.value}"',
  "<<EOT\nhello ${var.name}\n%{ for x in var.list ~}\n- ${x}\n%{ endfor ~}\nEOT",
  "<<-EOT\n    indented ${a}\n      more\n    EOT",
  "adapter.shell.default",
  "[for s in var.list : upper(s) if s != \"\"]",
  "{for k, v in var.map : k => v... if v > 1}",
  "f(x).a[0]",
  "a[*].b.c[0]",
  "a.*.b.0",
  '!a && b || c == d ? e : [1, 2.5, "x", null, true]',
  '{ a = 1\n "b": 2, (c) = -3 * 4 % 5 }',
  'join(",", concat(var.list, ["${upper(each.key)}"])...)',
  '"%{if a}yes%{else}no%{endif} $${lit} \\n \\u00e9"',
  "steps.build.outputs[each.key].value",
  "# comment\n(a + b) / c - d // trailing",
  "length(var.list) >= 2 ? element(var.list, 1) : lookup(var.map, \"k\", 0)",
];

const TEMPLATE_CORPUS = [
  "hello ${var.name}",
  "cost $${price} %{ if a }A%{ else }B%{ endif }",
  "${x}",
  "%{for i, v in var.list}${i}=${v}\n%{endfor}",
];

const VARIABLES: Record<string, Value> = {
  var: { env: "prod", name: "n", list: ["a", "b", ""], map: { k: 2, j: 1 } },
  each: { key: "k", value: "v" },
  a: true, b: false, c: 2, d: 3, e: "e", x: { a: [1] },
  steps: { build: { outputs: { k: { value: 1 } } } },
};
const CTX = { variables: VARIABLES, functions: makeFunctions({ readFile: (p: string) => `file:${p}` }) };

/** Checks every invariant of one parse (and evaluation, when it parsed). */
function check(text: string, base: number, mode: "expr" | "template"): void {
  const r = mode === "expr" ? parseExpression(text, base) : parseTemplate(text, base);
  const lo = base;
  const hi = base + text.length;
  expect(r.expr === undefined).toBe(r.errors.length > 0);
  for (const e of r.errors) {
    expect(e.code).toBe("expr_syntax");
    expect(0 <= e.start && lo <= e.start && e.start <= e.end && e.end <= hi, `${JSON.stringify(e)} in [${lo}, ${hi}]`).toBe(true);
    expect(typeof e.message).toBe("string");
  }
  if (!r.expr) return;
  checkNode(r.expr, lo, hi);
  for (const ref of references(r.expr)) expect(lo <= ref.start && ref.start <= ref.end && ref.end <= hi).toBe(true);
  functionCalls(r.expr);
  const ev = evaluate(r.expr, CTX);
  expect(ev.value === undefined).toBe(ev.errors.length > 0);
  for (const e of ev.errors) {
    expect(e.code).toBe("eval_error");
    expect(lo <= e.start && e.start <= e.end && e.end <= hi, `${JSON.stringify(e)} in [${lo}, ${hi}]`).toBe(true);
  }
}

/** Node ranges are ordered and nested within their parent's range. */
function checkNode(e: Expr, lo: number, hi: number): void {
  const stack: [Expr | TemplatePart, number, number][] = [[e, lo, hi]];
  while (stack.length > 0) {
    const [n, plo, phi] = stack.pop()!;
    expect(plo <= n.start && n.start <= n.end && n.end <= phi, `${n.kind} [${n.start}, ${n.end}] outside [${plo}, ${phi}]`).toBe(true);
    if (n.kind === "template") for (const p of n.parts) stack.push([p, n.start, n.end]);
    else if (n.kind === "template_interp") stack.push([n.expr, n.start, n.end]);
    else if (n.kind === "template_if") {
      stack.push([n.condition, n.start, n.end]);
      for (const p of [...n.thenParts, ...n.elseParts]) stack.push([p, n.start, n.end]);
    } else if (n.kind === "template_for") {
      stack.push([n.collection, n.start, n.end]);
      for (const p of n.body) stack.push([p, n.start, n.end]);
    } else if (n.kind !== "template_literal") {
      for (const c of childExprs(n)) stack.push([c, n.start, n.end]);
    }
  }
}

const ALPHABET = [..."abcxyz019_.,:;?!=<>+-*/%&|~#$@^(){}[]\"'\\ \t\n\r${}%{}"].concat(
  ["${", "%{", "}", "~}", "<<EOT\n", "\nEOT", "<<-X\n", "for ", " in ", " if ", "=>", "...", "::", "[*]", ".*", "\\u", "é", "😀", "\u2028"],
);
const tokenSoup = fc.array(fc.constantFrom(...ALPHABET), { maxLength: 40 }).map((a) => a.join(""));
const base = fc.nat({ max: 10_000 });

/** A random edit of a valid expression: delete, insert, duplicate or truncate. */
const mutated = (corpus: string[]) =>
  fc.tuple(fc.constantFrom(...corpus), fc.array(fc.tuple(fc.nat(), fc.nat({ max: 8 }), fc.constantFrom(...ALPHABET), fc.nat({ max: 3 })), { minLength: 1, maxLength: 4 }))
    .map(([src, edits]) => {
      let s = src;
      for (const [at, len, ins, op] of edits) {
        const i = s.length === 0 ? 0 : at % (s.length + 1);
        if (op === 0) s = s.slice(0, i) + s.slice(i + len);
        else if (op === 1) s = s.slice(0, i) + ins + s.slice(i);
        else if (op === 2) s = s.slice(0, i) + s.slice(i, i + len) + s.slice(i);
        else s = s.slice(0, i);
      }
      return s;
    });

/** Random syntactically valid expressions from a small grammar. */
const validExpr: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom("1", "2.5", "true", "null", '"s"', "a", "c", "var.list", "var.map.k", "each.value", "x.a[0]", '"${c}"'),
    fc.tuple(tie("e"), fc.constantFrom("+", "-", "*", "/", "%", "==", "!=", "<", ">=", "&&", "||"), tie("e")).map(([l, op, r]) => `${l} ${op} ${r}`),
    tie("e").map((e) => `(${e})`),
    tie("e").map((e) => `!${e}`),
    tie("e").map((e) => `-${e}`),
    fc.tuple(tie("e"), tie("e"), tie("e")).map(([a, b, c]) => `${a} ? ${b} : ${c}`),
    fc.array(tie("e"), { maxLength: 3 }).map((xs) => `[${xs.join(", ")}]`),
    fc.array(tie("e"), { maxLength: 3 }).map((xs) => `{${xs.map((x, i) => `k${i} = ${x}`).join("\n")}}`),
    tie("e").map((e) => `[for v in var.list : ${e}]`),
    tie("e").map((e) => `{for k, v in var.map : k => ${e}}`),
    fc.tuple(fc.constantFrom("length", "upper", "tostring", "jsonencode", "coalesce", "nosuch"), tie("e")).map(([f, e]) => `${f}(${e})`),
    tie("e").map((e) => `"pre \${${e}} post"`),
    tie("e").map((e) => `(${e}).x[0]`),
    tie("e").map((e) => `[${e}][*]`),
  ),
})).e;

describe("robustness properties", () => {
  test("random token soup never throws and errors stay in range", () => {
    fc.assert(fc.property(tokenSoup, base, (text, b) => {
      check(text, b, "expr");
      check(text, b, "template");
    }), { numRuns: 3000 });
  });

  test("arbitrary unicode strings never throw", () => {
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 60 }), base, (text, b) => {
      check(text, b, "expr");
      check(text, b, "template");
    }), { numRuns: 1500 });
  });

  test("mutations of valid expressions never throw", () => {
    fc.assert(fc.property(mutated(CORPUS), base, (text, b) => check(text, b, "expr")), { numRuns: 3000 });
    fc.assert(fc.property(mutated(TEMPLATE_CORPUS), base, (text, b) => check(text, b, "template")), { numRuns: 1500 });
  });

  test("the unmutated corpus parses and evaluates cleanly where expected", () => {
    for (const text of CORPUS) expect(parseExpression(text).errors, text).toEqual([]);
    for (const text of TEMPLATE_CORPUS) expect(parseTemplate(text).errors, text).toEqual([]);
    expect(evaluate(parseExpression(CORPUS[2]).expr!, CTX).value).toBe("hello n\n- a\n- b\n- \n");
  });

  test("grammar-generated expressions always parse, and never throw when evaluated", () => {
    fc.assert(fc.property(validExpr, base, (text, b) => {
      const r = parseExpression(text, b);
      expect(r.errors, text).toEqual([]);
      check(text, b, "expr");
    }), { numRuns: 1500 });
  });
});
