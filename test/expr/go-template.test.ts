/**
 * The Go text/template interpreter of templatefile (compiler/expr/functions/go-template/).
 *
 * Every expected value in VALUES was produced by Go's own text/template (go1.19, data
 * converted as the Go tool converts vars: whole numbers int64, others float64, option
 * missingkey=error); DEVIATIONS lists where we differ on purpose. Each construct has
 * value cases and error cases (with the line:col the error names).
 */
import { describe, expect, test } from "vitest";
import {
  executeGoTemplate, GO_TEMPLATE_LIMITS, GoTemplateError, parseGoTemplate, renderGoTemplate, type GoTemplateErrorKind,
} from "../../compiler/expr/functions/go-template/index.js";
import type { ObjectValue } from "../../compiler/expr/index.js";

const V: ObjectValue = {
  name: "Ada", n: 42.0, f: 1.5, big: 1e21, neg: -3, zero: 0, t: true, fa: false, none: null, s: "héllo", empty: "",
  list: ["a", "b", "c"], nums: [3, 1, 2], mixed: [1, null, "x"], el: [], m: { b: 2, a: 1, é: 3 }, em: {},
  nested: { user: { name: "Bo", tags: ["x", "y"] } },
  items: [{ name: "a", ok: true }, { name: "b", ok: false }],
};

function render(text: string, vars: ObjectValue = V): string {
  return renderGoTemplate(text, vars, "t.tmpl");
}

function failure(text: string, vars: ObjectValue = V): GoTemplateError {
  try {
    render(text, vars);
  } catch (e) {
    if (e instanceof GoTemplateError) return e;
    throw e;
  }
  throw new Error(`no error from ${JSON.stringify(text)}`);
}

/** [template, output of Go's text/template], by construct. */
const VALUES: Record<string, [string, string][]> = {
  "text, actions, trim markers and comments": [
    ["plain text, no actions", "plain text, no actions"],
    ["Hello, {{ .name }}!", "Hello, Ada!"],
    ["{{.name}}{{.name}}", "AdaAda"],
    ["a  \n {{- .name -}} \n  b", "aAdab"],
    ["a {{- .name}} b", "aAda b"],
    ["a {{.name -}}\n\n b", "a Adab"],
    ["{{-3}} {{3 -}} x", "-3 3x"],
    ["x {{/* a comment */}} y", "x  y"],
    ["x {{- /* trimmed comment */ -}} y", "xy"],
    ["{{/* spans\nlines */}}z", "z"],
    ["{{ if\n  .t\n}}multi-line action{{ end }}", "multi-line action"],
    ["{{ \"}}\" }} {{ `{{` }}", "}} {{"],
  ],
  "fields, variables and literals": [
    ["{{ .nested.user.name }} {{ .nested.user.tags }}", "Bo [x y]"],
    ["{{ $.name }} {{ with .nested.user }}{{ .name }}/{{ $.name }}{{ end }}", "Ada Bo/Ada"],
    ["{{ $x := .name }}{{ $x }}", "Ada"],
    ["{{ $x := 1 }}{{ $x = 2 }}{{ $x }}", "2"],
    ["{{ $u := .nested.user }}{{ $u.name }}", "Bo"],
    ["{{ (index .items 1).name }}", "b"],
    ["{{ \"a\\tb\\u00e9\\x41\\101\" }} {{ `raw\\n` }}", "a\tbéAA raw\\n"],
    ["{{ 42 }} {{ -7 }} {{ 1.5 }} {{ 1e3 }} {{ 0x1F }} {{ 0o17 }} {{ 017 }} {{ 0b101 }} {{ 1_000 }} {{ 'a' }} {{ '\\n' }}", "42 -7 1.5 1000 31 15 15 5 1000 97 10"],
    ["{{ true }} {{ false }} {{ print nil }}", "true false <nil>"],
    ["{{ . | len }}", "19"],
  ],
  "values as Go prints them": [
    ["{{ .n }} {{ .f }} {{ .big }} {{ .neg }} {{ .zero }}", "42 1.5 1e+21 -3 0"],
    ["{{ .none }} {{ print .none }} {{ .mixed }}", "<no value> <nil> [1 <nil> x]"],
    ["{{ .list }} {{ .m }} {{ .el }} {{ .em }}", "[a b c] map[a:1 b:2 é:3] [] map[]"],
    ["{{ .items }}", "[map[name:a ok:true] map[name:b ok:false]]"],
    ["{{ .t }} {{ .fa }}", "true false"],
  ],
  "if, else if, else": [
    ["{{ if .t }}yes{{ end }}", "yes"],
    ["{{ if .fa }}yes{{ else }}no{{ end }}", "no"],
    ["{{ if .none }}a{{ else if .zero }}b{{ else if .s }}c{{ else }}d{{ end }}", "c"],
    ["{{ if .empty }}a{{ else if .el }}b{{ else if .em }}c{{ else }}falsy{{ end }}", "falsy"],
    ["{{ if and .t .s }}both{{ end }}{{ if or .fa .n }} either{{ end }}{{ if not .none }} not-nil{{ end }}", "both either not-nil"],
    ["{{ if $x := .name }}{{ $x }}{{ end }}", "Ada"],
    ["{{ if .list }}{{ len .list }}{{ end }}", "3"],
  ],
  "with, else with, else": [
    ["{{ with .nested.user }}{{ .name }}{{ end }}", "Bo"],
    ["{{ with .none }}a{{ else }}none{{ end }}", "none"],
    ["{{ with $v := .m }}{{ $v.a }}{{ end }}", "1"],
    ["{{ with .el }}a{{ else }}empty list{{ end }}", "empty list"],
  ],
  "range": [
    ["{{ range .list }}[{{ . }}]{{ end }}", "[a][b][c]"],
    ["{{ range $i, $e := .list }}{{ if $i }}, {{ end }}{{ $i }}={{ $e }}{{ end }}", "0=a, 1=b, 2=c"],
    ["{{ range $e := .nums }}{{ $e }}{{ end }}", "312"],
    ["{{ range $k, $v := .m }}{{ $k }}:{{ $v }} {{ end }}", "a:1 b:2 é:3 "],
    ["{{ range .m }}{{ . }}{{ end }}", "123"],
    ["{{ range .el }}x{{ else }}empty{{ end }} {{ range .em }}x{{ else }}empty map{{ end }} {{ range .none }}x{{ else }}nil{{ end }}", "empty empty map nil"],
    ["{{ range .items }}{{ .name }}{{ if .ok }}+{{ end }} {{ end }}", "a+ b "],
    ["{{ range .list }}{{ if eq . \"b\" }}{{ break }}{{ end }}{{ . }}{{ end }}", "a"],
    ["{{ range .list }}{{ if eq . \"b\" }}{{ continue }}{{ end }}{{ . }}{{ end }}", "ac"],
    ["{{ range $i, $a := .nums }}{{ range $j, $b := $.nums }}{{ if lt $a $b }}<{{ end }}{{ end }}{{ end }}", "<<<"],
    ["{{ $last := \"\" }}{{ range .list }}{{ $last = . }}{{ end }}{{ $last }}", "c"],
    ["{{ range .list -}}\n- {{ . }}\n{{ end -}}", "- a\n- b\n- c\n"],
  ],
  "comparison functions": [
    ["{{ eq .name \"Ada\" }} {{ eq .n 42 }} {{ eq .f 1.5 }} {{ eq .s \"x\" \"héllo\" }} {{ eq .none nil }} {{ eq .none \"x\" }}", "true true true true true false"],
    ["{{ ne .n 41 }} {{ lt .n 50 }} {{ le .n 42 }} {{ gt .neg -5 }} {{ ge .zero 0 }} {{ lt \"a\" \"b\" }} {{ lt \"é\" \"z\" }}", "true true true true true true false"],
    ["{{ lt .f 2.0 }} {{ gt .f 1.25 }}", "true true"],
  ],
  "and, or, not": [
    ["{{ and 1 0 2 }} {{ and 1 2 }} {{ or 0 \"\" 3 }} {{ or 0 \"\" }} {{ not 0 }} {{ not .list }}", "0 2 3  true false"],
    ["{{ and .none .missing_would_not_be_read }}", "<no value>"],
    ["{{ or .s .missing_would_not_be_read }}", "héllo"],
  ],
  "len, index, slice": [
    ["{{ len .list }} {{ len .m }} {{ len .s }} {{ len .empty }} {{ len .el }}", "3 3 6 0 0"],
    ["{{ index .list 1 }} {{ index .m \"a\" }} {{ index .nested \"user\" \"tags\" 0 }} {{ index .m \"missing\" }} {{ index .s 0 }}", "b 1 x <no value> 104"],
    ["{{ slice .list 1 }} {{ slice .list 1 2 }} {{ slice .list }} {{ slice .name 1 3 }}", "[b c] [b] [a b c] da"],
  ],
  "print, printf, println": [
    ["{{ print \"a\" \"b\" 1 2 \"c\" .t .none }}", "ab1 2ctrue <nil>"],
    ["{{ println \"a\" 1 }}", "a 1\n"],
    ["{{ printf \"%s is %d\" .name .n }}", "Ada is 42"],
    ["{{ printf \"%q %v %5s|%-5s|\" .name .list .name .name }}", "\"Ada\" [a b c]   Ada|Ada  |"],
    ["{{ printf \"%.2f %.0f %8.3f %e %g\" .f .f .f .f .f }}", "1.50 2    1.500 1.500000e+00 1.5"],
    ["{{ printf \"%05d %x %X %o %b %c %U %+d\" .n .n .n .n .n .n .n .n }}", "00042 2a 2A 52 101010 * U+002A +42"],
    ["{{ printf \"%t %v %T %T\" .t .fa .n .f }}", "true false int64 float64"],
    ["{{ printf \"%d%%\" 50 }}", "50%"],
    ["{{ printf \"%d\" }} {{ printf \"%d\" 1 2 }} {{ printf \"%z\" 1 }} {{ printf \"%d\" .name }}", "%!d(MISSING) 1%!(EXTRA int=2) %!z(int=1) %!d(string=Ada)"],
    ["{{ printf \"%[2]s %[1]s\" \"a\" \"b\" }} {{ printf \"%*d|%.*f\" 4 7 1 3.14159 }}", "b a    7|3.1"],
    ["{{ printf \"%v\" .m }} {{ printf \"%s\" .items }}", "map[a:1 b:2 é:3] [map[name:a ok:%!s(bool=true)] map[name:b ok:%!s(bool=false)]]"],
    ["{{ printf \"%.1f %.1f %.2f\" 0.25 0.35 1.005 }}", "0.2 0.3 1.00"],
  ],
  "pipes": [
    ["{{ .name | printf \"%q\" }}", "\"Ada\""],
    ["{{ .list | len | printf \"%d items\" }}", "3 items"],
    ["{{ \"x\" | printf \"%s-%s\" \"y\" }}", "y-x"],
    ["{{ .n | eq 42 }}", "true"],
    ["{{ .s | html | printf \"<%s>\" }}", "<héllo>"],
  ],
  "html, js, urlquery": [
    ["{{ html \"<a href=\\\"x\\\">&'\" }}", "&lt;a href=&#34;x&#34;&gt;&amp;&#39;"],
    ["{{ js \"it's \\\"q\\\" <b> & = \\\\\" }}", "it\\'s \\\"q\\\" \\u003Cb\\u003E \\u0026 \\u003D \\\\"],
    ["{{ urlquery \"a b&c=d/é\" }}", "a+b%26c%3Dd%2F%C3%A9"],
    ["{{ html 1 \"x\" 2 }} {{ urlquery .none }}", "1x2 %3Cno+value%3E"],
  ],
};

for (const [group, cases] of Object.entries(VALUES)) {
  describe(group, () => {
    test.each(cases)("%s", (text, expected) => {
      expect(render(text)).toBe(expected);
    });
  });
}

/** [template, our output, why Go's differs]. */
const DEVIATIONS: [string, string, string][] = [
  ["{{ printf \"%.1f\" .n }} {{ printf \"%.2f\" 42 }}", "42.0 42.00", "float verbs format integers, as the Go tool's docs promise (Go's fmt: %!f(int64=42))"],
  ["{{ range 3 }}{{ . }}{{ end }}", "012", "range over an integer, as Go 1.22"],
  ["{{ with .none }}a{{ else with .nested.user }}{{ .name }}{{ end }}", "Bo", "else with, as Go 1.23"],
];

describe("deliberate differences from go1.19", () => {
  test.each(DEVIATIONS)("%s", (text, expected) => {
    expect(render(text)).toBe(expected);
  });
});

/** [template, kind, line, column, message]. */
const ERRORS: [string, GoTemplateErrorKind, number, number, RegExp][] = [
  ["{{ .missing }}", "missingkey", 1, 4, /at <\.missing>: map has no entry for key "missing"/],
  ["line 1\n  {{ .nested.user.age }}", "missingkey", 2, 6, /map has no entry for key "age"/],
  ["{{ range .items }}{{ .title }}{{ end }}", "missingkey", 1, 22, /map has no entry for key "title"/],
  ["{{ .none.x }}", "missingkey", 1, 4, /nil data; no entry for key "x"/],
  ["{{ .name.x }}", "exec", 1, 4, /can't evaluate field x in type string/],
  ["{{ .name 1 }}", "exec", 1, 4, /name is not a method but has arguments/],
  ["{{ \"a\" \"b\" }}", "exec", 1, 4, /can't give argument to non-function \"a\"/],
  ["{{ nil }}", "exec", 1, 4, /nil is not a command/],
  ["{{ eq .n 1.5 }}", "exec", 1, 4, /error calling eq: incompatible types for comparison/],
  ["{{ lt .list 1 }}", "exec", 1, 4, /error calling lt: invalid type for comparison/],
  ["{{ eq .list .list }}", "exec", 1, 4, /non-comparable type/],
  ["{{ index .list 5 }}", "exec", 1, 4, /error calling index: index out of range: 5/],
  ["{{ index .m 1 }}", "exec", 1, 4, /value has type int; should be string/],
  ["{{ slice .list 2 1 }}", "exec", 1, 4, /invalid slice index: 2 > 1/],
  ["{{ len .n }}", "exec", 1, 4, /len of type int64/],
  ["{{ not }}", "exec", 1, 4, /wrong number of args for not: want 1 got 0/],
  ["{{ printf .n }}", "exec", 1, 11, /wrong type for value; expected string; got int64/],
  ["{{ range .name }}{{ end }}", "exec", 1, 10, /range can't iterate over Ada/],
  ["{{ call .name }}", "exec", 1, 4, /error calling call: non-function/],
  ["{{ $x = 1 }}", "exec", 1, 4, /undefined variable: \$x/],
  ["{{ if .t }}\n{{ $y := 1 }}{{ end }}{{ $y }}", "syntax", 2, 26, /undefined variable "\$y"/],
  ["{{ .name", "syntax", 1, 1, /unclosed action/],
  ["a\n{{ if .t }}b", "syntax", 2, 13, /unexpected EOF: the \{\{if\}\} at 2:4 has no \{\{end\}\}/],
  ["{{ end }}", "syntax", 1, 4, /unexpected \{\{end\}\}/],
  ["{{ else }}", "syntax", 1, 4, /unexpected \{\{else\}\}/],
  ["{{ if .t }}a{{ else }}b{{ else }}c{{ end }}", "syntax", 1, 27, /expected end; found \{\{else\}\}/],
  ["{{ if }}{{ end }}", "syntax", 1, 7, /missing value for if/],
  ["{{ foo .x }}", "syntax", 1, 4, /function "foo" not defined/],
  ["{{ $y }}", "syntax", 1, 4, /undefined variable "\$y"/],
  ["{{ \"abc }}", "syntax", 1, 4, /unterminated quoted string/],
  ["{{ `abc }}", "syntax", 1, 4, /unterminated raw quoted string/],
  ["{{ \"\\q\" }}", "syntax", 1, 4, /invalid syntax/],
  ["{{ 1.2.3 }}", "syntax", 1, 7, /unexpected "\.3" in operand/],
  ["{{ 12ab }}", "syntax", 1, 4, /bad number syntax: "12a"/],
  ["{{ 99999999999999999999 }}", "syntax", 1, 4, /integer overflow/],
  ["{{ .a-b }}", "syntax", 1, 6, /bad character U\+002D '-'/],
  ["{{ .a @ }}", "syntax", 1, 7, /unexpected "@" in operand/],
  ["{{ ( .a }}", "syntax", 1, 9, /unclosed left paren/],
  ["{{ .a ) }}", "syntax", 1, 7, /unexpected right paren/],
  ["{{ print 1 | 2 }}", "syntax", 1, 14, /non executable command in pipeline stage 2/],
  ["{{ | .a }}", "syntax", 1, 4, /unexpected "\|" in command/],
  ["{{/* a */ x }}", "syntax", 1, 1, /comment ends before closing delimiter/],
  ["{{/* a", "syntax", 1, 1, /unclosed comment/],
  ["{{ break }}", "syntax", 1, 4, /\{\{break\}\} outside \{\{range\}\}/],
  ["{{ range .list }}{{ else }}{{ continue }}{{ end }}", "syntax", 1, 31, /\{\{continue\}\} outside \{\{range\}\}/],
  ["{{ range $i, $e, $f := .list }}{{ end }}", "syntax", 1, 16, /too many declarations in range/],
  ["{{ range .list }}{{ else if .t }}{{ end }}", "syntax", 1, 21, /\{\{else if\}\} cannot continue a \{\{range\}\}/],
  ["{{ define \"x\" }}a{{ end }}", "syntax", 1, 4, /\{\{define\}\} is not supported/],
  ["{{ template \"x\" }}", "syntax", 1, 4, /\{\{template\}\} is not supported/],
  ["{{ block \"x\" . }}a{{ end }}", "syntax", 1, 4, /\{\{block\}\} is not supported/],
  ["{{ 1i }}", "syntax", 1, 4, /complex number 1i is not supported/],
  ["{{ .t ! }}", "syntax", 1, 7, /unexpected "!" in operand/],
  ["{{ .t § }}", "syntax", 1, 7, /unrecognized character in action: U\+00A7/],
];

describe("errors name the template, line and column", () => {
  test.each(ERRORS)("%s", (text, kind, line, col, message) => {
    const e = failure(text);
    expect(e.kind).toBe(kind);
    expect([e.line, e.col]).toEqual([line, col]);
    expect(e.message.startsWith(`t.tmpl:${line}:${col}: `)).toBe(true);
    expect(e.message).toMatch(message);
  });
});

describe("the Go tool's rules for templatefile", () => {
  test("numbers render as integers when exactly integral; null as <no value>", () => {
    expect(render("{{ .a }} {{ .b }} {{ .c }} {{ .d }} {{ .e }}", { a: 42.0, b: -0, c: 0.1, d: 2 ** 53, e: 2 ** 64 })).toBe("42 0 0.1 9007199254740992 1.8446744073709552e+19");
    expect(render("{{ .x }}|{{ .l }}|{{ .m }}", { x: null, l: [null], m: { k: null } })).toBe("<no value>|[<nil>]|map[k:<nil>]");
  });

  test("a missing key is an error even where a default would do (missingkey=error), but index yields <no value>", () => {
    expect(failure("{{ if .flag }}x{{ end }}", {}).message).toBe('t.tmpl:1:7: at <.flag>: map has no entry for key "flag"');
    expect(render('{{ index . "flag" }}', {})).toBe("<no value>");
    expect(render("{{ if .flag }}{{ .flag }}{{ end }}", { flag: null })).toBe("");
  });

  test("keys are data: prototype names are ordinary keys", () => {
    const vars = JSON.parse('{"__proto__": {"x": 1}, "constructor": "c", "toString": "t"}') as ObjectValue;
    expect(render("{{ .constructor }} {{ .toString }} {{ index . \"__proto__\" }}", vars)).toBe("c t map[x:1]");
    expect(failure("{{ .valueOf }}", vars).kind).toBe("missingkey");
  });

  test("columns count characters, not bytes or UTF-16 units", () => {
    const e = failure("é😀 {{ .nope }}", {});
    expect([e.line, e.col]).toEqual([1, 7]);
  });

  test("a parsed template executes again with other data", () => {
    const t = parseGoTemplate("{{ range . }}{{ . }}{{ end }}", "loop.tmpl");
    expect(executeGoTemplate(t, { a: 1, b: 2 })).toBe("12");
    expect(executeGoTemplate(t, { z: "x" })).toBe("x");
  });

  test("a trailing pipe is tolerated, as in Go", () => {
    expect(render("{{ .name | }}")).toBe("Ada");
  });
});

describe("limits: an error, never a hang", () => {
  const list = (n: number) => Array.from({ length: n }, (_, i) => i);

  test(`at most ${GO_TEMPLATE_LIMITS.iterations} range iterations in all`, () => {
    expect(render("{{ range .a }}{{ range $.b }}{{ end }}{{ end }}ok", { a: list(999), b: list(1000) })).toBe("ok");
    const e = failure("{{ range .a }}{{ range $.a }}{{ end }}{{ end }}", { a: list(1001) });
    expect(e.kind).toBe("limit");
    expect(e.message).toBe("t.tmpl:1:24: at <$.a>: range loops ran more than 1000000 iterations");
    expect(failure("{{ range .n }}{{ end }}", { n: 1e15 }).message).toMatch(/more than 1000000 iterations/);
  });

  test("at most 4 MiB of output", () => {
    const ok = "x".repeat(1024);
    expect(render("{{ range .a }}{{ $.s }}{{ end }}", { a: list(4096), s: ok }).length).toBe(4 * 1024 * 1024);
    const e = failure("{{ range .a }}{{ $.s }}{{ end }}", { a: list(4097), s: ok });
    expect(e.kind).toBe("limit");
    expect(e.message).toMatch(/the output is larger than 4194304 bytes/);
    expect(failure('{{ range .a }}{{ $.s }}{{ end }}', { a: list(2 ** 21 + 1), s: "é" }).kind).toBe("limit");
  });

  test("strings that functions make count too, even when not written", () => {
    const e = failure('{{ range .a }}{{ $x := printf "%1000000d" 1 }}{{ end }}', { a: list(100) });
    expect(e.kind).toBe("limit");
    expect(e.message).toMatch(/functions made more than 67108864 characters/);
  });

  test(`control structures and parentheses nest at most ${GO_TEMPLATE_LIMITS.nesting} deep`, () => {
    const n = GO_TEMPLATE_LIMITS.nesting;
    expect(render("{{ if 1 }}".repeat(n) + "deep" + "{{ end }}".repeat(n))).toBe("deep");
    expect(render("{{ " + "(".repeat(n - 1) + "1" + ")".repeat(n - 1) + " }}")).toBe("1");
    const e = failure("{{ with 1 }}".repeat(n + 1) + "{{ end }}".repeat(n + 1));
    expect([e.kind, e.message]).toEqual(["syntax", `t.tmpl:1:${12 * n + 4}: control structures nested more than ${n} deep`]);
    expect(failure("{{ " + "(".repeat(n + 1) + "1" + ")".repeat(n + 1) + " }}").message).toMatch(/nested more than 200 deep/);
  });

  test("a long else-if chain is not nesting", () => {
    const chain = Array.from({ length: 2000 }, (_, i) => `{{ else if eq .n ${i} }}${i}`).join("");
    expect(render(`{{ if .fa }}${chain}{{ end }}`, { fa: false, n: 1999 })).toBe("1999");
  });

  test(`data nested more than ${GO_TEMPLATE_LIMITS.dataDepth} deep is refused`, () => {
    let deep: ObjectValue["x"] = 1;
    for (let i = 0; i < 2000; i++) deep = [deep];
    expect(failure("{{ .d }}", { d: deep }).message).toMatch(/nested more than 1000 levels deep/);
  });
});
