import { describe, expect, test } from "vitest";
import { evaluate, parseExpression, parseTemplate } from "../../compiler/expr/index.js";
import { ctx, evalOk, parseErr, parseOk, slice, sx, templateOk } from "./helpers.js";

describe("quoted templates", () => {
  test("plain strings are literals with decoded escapes", () => {
    expect(parseOk('"a\\n\\t\\"\\\\\\u00e9\\U0001F600"')).toMatchObject({ kind: "literal", value: 'a\n\t"\\é😀' });
  });

  test("interpolation parts with offsets", () => {
    const text = '"execute:${each.value}!"';
    const e = parseOk(text);
    expect(sx(e)).toBe('(tpl "execute:" ${each.value} "!")');
    if (e.kind !== "template") throw new Error();
    expect(e.parts.map((p) => slice(text, p))).toEqual(["execute:", "${each.value}", "!"]);
    expect([e.start, e.end]).toEqual([0, text.length]);
  });

  test("a single interpolation stays a one-part template", () => {
    const e = parseOk('"${x}"');
    expect(sx(e)).toBe("(tpl ${x})");
  });

  test("$${ and %%{ are literal sequences", () => {
    expect(parseOk('"$${a} %%{b} $$ % $x"')).toMatchObject({ kind: "literal", value: "${a} %{b} $$ % $x" });
  });

  test("nested quoted templates inside interpolations", () => {
    expect(sx(parseOk('"a ${ "b ${c}" } d"'))).toBe('(tpl "a " ${(tpl "b " ${c})} " d")');
    expect(sx(parseOk('"${ {x = "}"}.x }"'))).toBe('(tpl ${(rel {"x"="}"} .x)})');
  });

  test("interpolations may span lines", () => {
    expect(sx(parseOk('"${\n  a +\n  b\n}"'))).toBe("(tpl ${(+ a b)})");
  });

  test("strip markers trim adjacent literal whitespace", () => {
    expect(sx(parseOk('"a  ${~ x ~}  b"'))).toBe('(tpl "a" ${x} "b")');
    expect(sx(parseOk('"a  ${ x ~}  b"'))).toBe('(tpl "a  " ${x} "b")');
    expect(evalOk('"[ %{~ if true ~} yes %{~ endif ~} ]"')).toBe("[yes]");
  });

  test("if / else / endif", () => {
    expect(sx(parseOk('"%{if a}yes%{else}no%{endif}"'))).toBe('(tpl %if(a "yes" | "no"))');
    expect(sx(parseOk('"%{ if a }yes%{ endif }"'))).toBe('(tpl %if(a "yes" | ))');
    expect(evalOk('"%{if n > 1}many%{else}one%{endif}"', { n: 2 })).toBe("many");
  });

  test("for / endfor with key and value", () => {
    expect(sx(parseOk('"%{for k, v in m}${k}=${v};%{endfor}"'))).toBe('(tpl %for(k,v m: ${k} "=" ${v} ";"))');
    expect(evalOk('"%{for k, v in m}${k}=${v};%{endfor}"', { m: { b: 2, a: 1 } })).toBe("a=1;b=2;");
    expect(evalOk('"%{for x in xs}%{if x > 1}${x}%{endif}%{endfor}"', { xs: [1, 2, 3] })).toBe("23");
  });

  test("directive offsets", () => {
    const text = '"x%{if a}y%{endif}"';
    const e = parseOk(text);
    if (e.kind !== "template") throw new Error();
    expect(slice(text, e.parts[1])).toBe("%{if a}y%{endif}");
  });

  test.each([
    ['"abc', 0, 4, /Unterminated template string/],
    ['"a\nb"', 0, 2, /multi-line string/],
    ['"\\q"', 1, 3, /Invalid escape sequence/],
    ['"\\u12"', 1, 5, /hexadecimal/],
    ['"${a"', 1, 3, /Unclosed template interpolation/],
    ['"${a b}"', 5, 6, /Extra characters after interpolation/],
    ['"${}"', 3, 4, /expected the start of an expression/],
    ['"%{endif}"', 1, 9, /Unexpected endif directive/],
    ['"%{if a}x"', 1, 8, /missing its corresponding endif/],
    ['"%{for x in y}x%{endif}"', 15, 23, /expecting an endfor/],
    ['"%{if a}%{else}%{else}%{endif}"', 15, 22, /already in the else clause/],
    ['"%{fi a}"', 3, 5, /Did you mean "if"\?/],
    ['"%{1}"', 3, 4, /keyword/],
    ['"%{for in y}%{endfor}"', 10, 11, /"in"/],
    ['"%{else x}"', 8, 9, /Extra characters in else marker/],
  ])("error %j", (text, start, end, message) => {
    const e = parseErr(text);
    expect(e.message).toMatch(message);
    expect([e.start, e.end]).toEqual([start, end]);
  });
});

describe("heredocs", () => {
  test("basic heredoc keeps the final newline and ends after the marker", () => {
    const text = "<<EOT\nhello ${name}\nEOT";
    const e = parseOk(text);
    expect(sx(e)).toBe('(tpl "hello " ${name} "\\n")');
    expect([e.start, e.end]).toEqual([0, text.length]);
    expect(evalOk(text, { name: "w" })).toBe("hello w\n");
  });

  test("no backslash escapes; template escapes still apply", () => {
    expect(parseOk('<<EOT\na\\nb "q" $${x} %%{y}\nEOT')).toMatchObject({ kind: "literal", value: 'a\\nb "q" ${x} %{y}\n' });
  });

  test("closing marker may be indented; other lines containing it are content", () => {
    expect(parseOk("<<EOT\nEOTX\n x EOT\n   EOT")).toMatchObject({ kind: "literal", value: "EOTX\n x EOT\n" });
  });

  test("empty heredoc", () => {
    expect(parseOk("<<EOT\nEOT")).toMatchObject({ kind: "literal", value: "" });
  });

  test("CRLF line endings", () => {
    expect(parseOk("<<EOT\r\nline\r\nEOT\r\n")).toMatchObject({ kind: "literal", value: "line\r\n" });
  });

  test("<<- strips the smallest common indentation, ignoring blank lines", () => {
    const text = "<<-EOT\n    a\n\n      b\n    c ${x}\n    EOT";
    expect(evalOk(text, { x: 1 })).toBe("a\n\n  b\nc 1\n");
  });

  test("<<- with an interpolation at a line start strips nothing", () => {
    expect(evalOk("<<-EOT\n  a\n${x}\n  EOT", { x: 1 })).toBe("  a\n1\n");
  });

  test("<<- literal offsets skip the stripped indentation", () => {
    const text = "<<-EOT\n  a ${x}\n  EOT";
    const e = parseOk(text);
    if (e.kind !== "template") throw new Error();
    expect(slice(text, e.parts[0])).toBe("a ");
  });

  test("directives with strip markers (the Terraform idiom)", () => {
    const text = "<<EOT\n%{ for ip in ips ~}\nserver ${ip}\n%{ endfor ~}\nEOT";
    expect(evalOk(text, { ips: ["10.0.0.1", "10.0.0.2"] })).toBe("server 10.0.0.1\nserver 10.0.0.2\n");
  });

  test("heredoc as an object value, followed by more items", () => {
    expect(evalOk("{\n  a = <<EOT\nx\nEOT\n  b = 1\n}")).toEqual({ a: "x\n", b: 1 });
  });

  test("heredoc inside a function call", () => {
    expect(evalOk("trimspace(<<EOT\n  hi\nEOT\n)")).toBe("hi");
  });

  test("unterminated heredoc", () => {
    const e = parseErr("<<EOT\nabc\n");
    expect(e.message).toMatch(/no closing marker line "EOT"/);
    expect([e.start, e.end]).toEqual([0, 5]);
    expect(parseErr("<<-END\nabc").end).toBe(6);
  });
});

describe("parseTemplate (bare templates)", () => {
  test("plain text is a literal covering the whole text", () => {
    expect(parseTemplate("hello", 10)).toEqual({ expr: { kind: "literal", value: "hello", start: 10, end: 15 }, errors: [] });
    expect(parseTemplate("", 3).expr).toEqual({ kind: "literal", value: "", start: 3, end: 3 });
  });

  test("no backslash escapes, newlines and quotes allowed", () => {
    expect(templateOk('a\\n "b"\nc')).toMatchObject({ kind: "literal", value: 'a\\n "b"\nc' });
  });

  test("$${ is a literal ${", () => {
    expect(templateOk("cost: $${price} and %%{x}")).toMatchObject({ kind: "literal", value: "cost: ${price} and %{x}" });
  });

  test("interpolations with absolute offsets", () => {
    const text = "hello ${var.name}!";
    const e = templateOk(text, 100);
    expect(sx(e)).toBe('(tpl "hello " ${var.name} "!")');
    if (e.kind !== "template") throw new Error();
    expect(e.parts[1]).toMatchObject({ start: 106, end: 117 });
    expect(e.parts[1].kind === "template_interp" && e.parts[1].expr).toMatchObject({ start: 108, end: 116 });
  });

  test('"${x}" evaluates to x unconverted', () => {
    const e = templateOk("${x}");
    expect(evaluate(e, ctx({ x: [1, 2] })).value).toEqual([1, 2]);
    expect(evaluate(templateOk(" ${x}"), ctx({ x: 5 })).value).toBe(" 5");
  });

  test("directives", () => {
    expect(evaluate(templateOk("%{ if ok }yes%{ else }no%{ endif }"), ctx({ ok: false })).value).toBe("no");
  });

  test("errors carry absolute offsets", () => {
    const r = parseTemplate("abc ${x", 50);
    expect(r.expr).toBeUndefined();
    expect(r.errors).toEqual([{ start: 54, end: 56, message: expect.stringMatching(/Unclosed/), code: "expr_syntax" }]);
    expect(parseTemplate("${ a b }", 0).errors[0].message).toMatch(/\$\$\{/);
  });

  test("parseExpression of a quoted template and parseTemplate of its contents agree", () => {
    const inner = "x=${a + 1}, %{if b}B%{endif}";
    const vars = { a: 1, b: true };
    const q = evaluate(parseExpression(`"${inner}"`).expr!, ctx(vars)).value;
    const t = evaluate(parseTemplate(inner).expr!, ctx(vars)).value;
    expect(q).toBe("x=2, B");
    expect(t).toBe(q);
  });
});
