/**
 * Unit tests of the native HCL parser (compiler/parse/hcl/): each construct's canonical
 * value, source-map entries, each diagnostic at its exact position, line endings and BOM,
 * exact numbers, the concrete syntax tree and its comments, robustness (random input,
 * deep nesting) and a 3 MiB file. The agreement with hcl2json on whole
 * files is test/parse/hcl-differential.test.ts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Diagnostic } from "../../compiler/diagnostics/diagnostic.js";
import { SourceFile } from "../../compiler/diagnostics/source-file.js";
import { parseHclNative, scanTokens, T, tokenKindName } from "../../compiler/parse/hcl/index.js";

function parse(text: string) {
  return parseHclNative(new SourceFile("t.hcl", text));
}

/** The value of `text`, which must parse without diagnostics. */
function value(text: string): unknown {
  const r = parse(text);
  expect(r.diagnostics.map((d) => d.message), JSON.stringify(text)).toEqual([]);
  return JSON.parse(JSON.stringify(r.parsed!.value));
}

/** The single diagnostic of `text`, as `line:col-line:col code message | hint`. */
function only(text: string): Diagnostic & { at: string; snippet: string } {
  const r = parse(text);
  expect(r.diagnostics.length, `${JSON.stringify(text)}: ${r.diagnostics.map((d) => d.message).join(" / ")}`).toBe(1);
  const d = r.diagnostics[0];
  return {
    ...d,
    at: `${d.range.start.line}:${d.range.start.column}-${d.range.end.line}:${d.range.end.column}`,
    snippet: text.slice(d.range.start.offset, d.range.end.offset),
  };
}

describe("values of each construct (hcl2json's shapes)", () => {
  it("attributes and literals", () => {
    expect(value('a = 1\nb = 1.5\nc = true\nd = null\ne = "s"\nf = -2\ng = !false\nh = 1e3\n')).toEqual({
      a: 1, b: 1.5, c: true, d: null, e: "s", f: -2, g: true, h: 1000,
    });
  });

  it("blocks: labels quoted and bare, grouping by label path, one-line blocks", () => {
    expect(value('step "a" { x = 1 }\nstep "b" {\n  y = 2\n}\nstep "a" {}\nlocals {\n  z = 3\n}\nb l1 "l 2" {}\n')).toEqual({
      step: { a: [{ x: 1 }, {}], b: [{ y: 2 }] },
      locals: [{ z: 3 }],
      b: { l1: { "l 2": [{}] } },
    });
    expect(value('b "\\u00e9" "$${x}" {}\n')).toEqual({ b: { é: { "${x}": [{}] } } });
    expect(value("x = 2\nx {}\n")).toEqual({ x: 2 });
  });

  it("templates: interpolation, directives, strip markers, escapes", () => {
    expect(value('a = "x ${ y } z"\n')).toEqual({ a: "x ${y} z" });
    expect(value('a = "${x}"\n')).toEqual({ a: "${x}" });
    expect(value('a = "${1}"\n')).toEqual({ a: 1 });
    expect(value('a = "${ {k = 1} }"\n')).toEqual({ a: { k: 1 } });
    expect(value('a = "%{ if c }y%{ else }n%{ endif }"\n')).toEqual({ a: "%{if c}y%{else}n%{endif}" });
    expect(value('a = "%{ for k, v in m ~} ${v} %{~ endfor }"\n')).toEqual({ a: "%{for k, v in m}${v}%{endfor}" });
    expect(value('a = "x ${~ y ~} z"\n')).toEqual({ a: "x${y}z" });
    expect(value('a = "${c ? "a" : 1}-${null}-${1.50}"\n')).toEqual({ a: "%{if c}a%{else}1%{endif}-null-1.5" });
    expect(value('a = "\\n\\t\\"\\\\\\u00e9\\U0001F600"\n')).toEqual({ a: '\n\t"\\é😀' });
    expect(value('a = "$${lit} %%{lit} $ %"\n')).toEqual({ a: "$${lit} %%{lit} $ %" });
  });

  it("heredocs, with the <<- indentation rule", () => {
    expect(value("a = <<EOT\nhello ${x}\n  there\nEOT\n")).toEqual({ a: "hello ${x}\n  there\n" });
    expect(value("a = <<-EOT\n    a\n  ${x}\n\tb\n    EOT\n")).toEqual({ a: "   a\n ${x}\nb\n" });
    expect(value("a = <<-EOT\n    x\n\n      y\n    EOT\n")).toEqual({ a: "x\n\n  y\n" });
    expect(value("a = <<EOT\n  x\n  EOT  \nb = 1\n")).toEqual({ a: "  x\n", b: 1 });
    expect(value("a = [<<EOT\nx\nEOT\n, 1]\n")).toEqual({ a: ["x\n", 1] });
  });

  it("collections, keys, and every other expression as ${source}", () => {
    expect(value('a = [1, "two", [3]]\nb = { k = 1, "q k": 2, t.u = 3, 1.50 = 4, (k) = 5, "${k}" = 6, -1 = 7 }\n')).toEqual({
      a: [1, "two", [3]],
      b: { k: 1, "q k": 2, "t.u": 3, "1.5": 4, "${(k)}": 5, "${k}": 6, "${-1}": 7 },
    });
    expect(value("a = {\n  x = 1, y = 2\n  x = 3,\n}\n")).toEqual({ a: { x: 3, y: 2 } });
    const other = ["var.x", "a.b[0].c", "x[*].y", "x.*.y", "f(1, 2...)", "ns::f()", "[for v in l : v if v]", "{for k, v in m : k => v...}", "c ? 1 : 2", "a + b * c", "!x", "-x", "(1)", "x[y]", "a || b && !c == d"];
    for (const e of other) expect(value(`a = ${e}\n`)).toEqual({ a: `\${${e}}` });
  });

  it("comments of all three kinds", () => {
    expect(value("# one\n// two\n/* three\n   lines */ a = 1 # after\nb = /* inline */ 2\n")).toEqual({ a: 1, b: 2 });
  });
});

describe("source map (hcl-scan.ts's shapes)", () => {
  it("maps attributes, blocks, labels, members and elements", () => {
    const text = 'step "a" {\n  x = [1, f(2)]\n  y = { k = "v" }\n}\nh = <<EOT\nq\nEOT  \n';
    const map = parse(text).parsed!.map;
    const at = (p: string) => {
      const e = map.get(p)!;
      return `${e.range.start.line}:${e.range.start.column}-${e.range.end.line}:${e.range.end.column}${e.keyRange ? ` key ${e.keyRange.start.line}:${e.keyRange.start.column}-${e.keyRange.end.line}:${e.keyRange.end.column}` : ""}`;
    };
    expect([...map.keys()]).toEqual(["", "/step", "/step/a", "/step/a/0", "/step/a/0/x", "/step/a/0/x/0", "/step/a/0/x/1", "/step/a/0/y", "/step/a/0/y/k", "/h"]);
    expect(at("/step")).toBe("1:1-4:2 key 1:1-1:5");
    expect(at("/step/a")).toBe("1:1-4:2 key 1:6-1:9");
    expect(at("/step/a/0")).toBe("1:1-4:2 key 1:6-1:9");
    expect(at("/step/a/0/x")).toBe("2:7-2:16 key 2:3-2:4");
    expect(at("/step/a/0/x/1")).toBe("2:11-2:15");
    expect(at("/step/a/0/y/k")).toBe("3:13-3:16 key 3:9-3:10");
    expect(map.get("/step/a/0/x/1")!.exprText).toBe("f(2)");
    // A heredoc's range ends at its marker (blanks after it are not part of the value).
    expect(at("/h")).toBe("5:5-7:4 key 5:1-5:2");
  });
});

describe("diagnostics: HCL's messages at the exact position, one per mistake", () => {
  const cases: [string, string, RegExp, string, RegExp?][] = [
    // [text, range, message, snippet, hint]
    ["a 1\nb = 2\n", "1:1-1:2", /argument or block definition required: expected "=" after "a"/, "a", /write a = value/],
    ['name "value"\nb = 2\n', "1:13-2:1", /a block needs "\{"/, "\n", /write name = "value"/],
    ["b {\n  x = 1\n", "1:3-1:4", /unclosed block/, "{"],
    ["a = [1, 2\nb = 3\n", "2:1-2:2", /missing item separator/, "b"],
    ["a = (1 + 2\n", "1:5-1:6", /unbalanced parentheses: there is no "\)"/, "("],
    ['a = "abc\nb = 2\n', "1:5-1:9", /unterminated string: quoted strings cannot span lines/, '"abc', /heredoc/],
    ["a = <<EOT\nabc\n", "1:5-1:10", /unterminated heredoc: no closing "EOT" line/, "<<EOT"],
    ["a = <<EOT\nabc\nEOT", "1:5-1:10", /closing "EOT" line, the last of the file, has no line break/, "<<EOT", /add a line break/],
    ["b { x = 1\n}\n", "1:10-2:1", /single-line block/, "\n", /put the "}" right after the argument/],
    ["b { x = 1, y = 2 }\n", "1:10-1:11", /a single-line block can hold only one argument/, ","],
    ['a = "%{ fi x }"\n', "1:9-1:11", /invalid template control keyword: "fi".*did you mean "if"/, "fi", /%%\{/],
    ['a = "echo ${HOME:-x}"\n', "1:17-1:18", /extra characters after interpolation expression/, ":", /\$\$\{/],
    ['a = "price ${"\n', "1:12-1:14", /invalid interpolation/, "${", /\$\$\{/],
    ['a = "${ }"\n', "1:6-1:8", /invalid interpolation/, "${", /\$\$\{/],
    ["b { c {} }\n", "1:5-1:8", /a single-line block can contain only one argument, not a nested block/, "c {"],
    ['a "x" = 1\n', "1:7-1:8", /the equals sign "=" makes an argument/, "="],
    ["a = 1, b = 2\n", "1:6-1:7", /unexpected comma after argument/, ","],
    ["a = {\n  b c\n}\n", "2:5-2:6", /missing key\/value separator/, "c"],
    ["a = 1\na = 2\n", "2:1-2:2", /attribute redefined/, "a"],
    ["a = 'x'\n", "1:5-1:6", /single quotes are not valid/, "'"],
    ["a = x ; b = 1\n", "1:7-1:8", /";" character is not valid/, ";"],
    ['a = "\\q"\n', "1:6-1:8", /invalid escape sequence/, "\\q"],
    ['b "${x}" {}\n', "1:4-1:6", /template sequences are not allowed in a block label/, "${", /\$\$\{/],
    ['a = "%{ if x }y"\n', "1:6-1:15", /unclosed "if" directive/, "%{ if x }"],
    ["a = x ? y\n", "1:10-2:1", /missing false expression in conditional/, "\n"],
    ["/* open\na = 1\n", "1:1-1:3", /unterminated comment/, "/*"],
    ["a = 1.2.3\n", "1:5-1:10", /invalid number literal/, "1.2.3"],
    ["a = x.0.1\n", "1:7-1:10", /invalid legacy index syntax/, "0.1", /\[0\]\[1\]/],
    ["}\na = 1\n", "1:1-1:2", /unexpected "}"/, "}"],
    ["a = \rb\n", "1:5-2:1", /carriage return/, "\r"],
  ];
  for (const [text, at, message, snippet, hint] of cases) {
    it(JSON.stringify(text), () => {
      const d = only(text);
      expect(d.code).toBe("syntax_error");
      expect(d.message).toMatch(message);
      expect(d.at).toBe(at);
      expect(d.snippet).toBe(snippet);
      if (hint) expect(d.hint).toMatch(hint);
    });
  }

  it("recovers: one error per broken item, later items still checked", () => {
    const r = parse("a = 1 2\nb = = 3\nc = 4\nd {\n  e = [1,\n}\n");
    expect(r.diagnostics.map((d) => `${d.range.start.line}:${d.range.start.column}`)).toEqual(["1:7", "2:5", "6:1"]);
    // An unterminated string breaks its line only.
    expect(parse('a = "x\nb = 2\nc = 3\n').diagnostics).toHaveLength(1);
  });

  it("blocks written with and without labels (hcl2json refuses them)", () => {
    const d = only('b "l" {}\nb {}\n');
    expect(d.code).toBe("missing_field");
    expect(d.at).toBe("2:1-2:2");
    expect(d.message).toBe("a b block needs a name label");
    expect(only('b {}\nb "l" {}\n').code).toBe("missing_field");
  });
});

describe("line endings, BOM, numbers", () => {
  it("CRLF + BOM + heredoc: no \\r reaches a value, positions stay UTF-16 offsets", () => {
    const text = '\ufeffscript = <<-EOT\r\n  set -eu\r\n  echo "${x}"\r\n  EOT\r\nb = "two"\r\nc = [for v in l :\r\n v]\r\n';
    const r = parse(text);
    expect(r.diagnostics).toEqual([]);
    expect(r.parsed!.value).toEqual({ script: 'set -eu\necho "${x}"\n', b: "two", c: "${[for v in l :\n v]}" });
    const b = r.parsed!.map.get("/b")!;
    expect(b.range.start).toEqual({ line: 5, column: 5, utf16Column: 5, offset: text.indexOf('"two"') });
    expect(JSON.stringify(r.parsed!.value)).not.toMatch(/\\r/);
  });

  it("numbers: exact when a JSON number holds them, else invalid_value (never rounded silently)", () => {
    expect(value("a = 9007199254740991\nb = 0.1\nc = 1e21\nd = 007\n")).toEqual({ a: 9007199254740991, b: 0.1, c: 1e21, d: 7 });
    for (const n of ["9007199254740993", "12345678901234567890", "1152921504606846976", "1e400", "1e-400", "0.1000000000000000055511151231257827"]) {
      const d = only(`a = ${n}\n`);
      expect(d.code, n).toBe("invalid_value");
      expect(d.snippet, n).toBe(n);
      expect(d.hint, n).toBe("quote it to keep it as text");
    }
    expect(only("a = -9007199254740993\n").snippet).toBe("-9007199254740993");
    // In templates and keys numbers are text, kept exactly.
    expect(value('a = "n ${12345678901234567890}"\nb = { 12345678901234567890 = 1 }\n')).toEqual({ a: "n 12345678901234567890", b: { "12345678901234567890": 1 } });
    // A template that is one interpolation is its expression's value: a number again.
    expect(only('a = "${12345678901234567890}"\n').code).toBe("invalid_value");
    expect(only("a = -true\n").code).toBe("invalid_value");
  });
});

describe("concrete syntax tree", () => {
  it("tokens cover the text (gaps are blanks only) and comments attach to items", () => {
    const text = '# file\n\n# about a\na = 1 # trailing a\n// about b\nb "l" {\n  # inside\n  c = "x ${y}"\n  # dangling in b\n}\n/* end */\n';
    const { cst } = parse(text);
    const t = cst.tokens;
    let pos = 0;
    for (let i = 0; i < t.count; i++) {
      expect(text.slice(pos, t.starts[i]).trim(), `gap before ${tokenKindName(t.kinds[i])}`).toBe("");
      pos = t.ends[i];
    }
    expect(t.kinds[t.count - 1]).toBe(T.EOF);
    const txt = (i: number) => text.slice(t.starts[i], t.ends[i]);
    const [a, b] = cst.body.items;
    expect(a.comments.leading.map(txt)).toEqual(["# about a"]);
    expect(a.comments.trailing.map(txt)).toEqual(["# trailing a"]);
    expect(b.comments.leading.map(txt)).toEqual(["// about b"]);
    expect(cst.body.dangling.map(txt)).toEqual(["# file", "/* end */"]);
    expect(b.kind === "block" && b.body.items[0].comments.leading.map(txt)).toEqual(["# inside"]);
    expect(b.kind === "block" && b.body.dangling.map(txt)).toEqual(["# dangling in b"]);
    expect(b.kind === "block" && [b.type, b.labels, txt(b.openToken), txt(b.closeToken)]).toEqual(["b", ["l"], "{", "}"]);
  });

  it("template tokens: quoted literals, heredoc lines, sequences", () => {
    const text = 'a = "x${y}z"\nb = <<EOT\nl1\n${q}l2\nEOT\n';
    const t = scanTokens(text);
    const kinds = Array.from(t.kinds.slice(0, t.count), tokenKindName);
    expect(kinds).toEqual([
      "Ident", "Equal", "OQuote", "QuotedLit", "TemplateInterp", "Ident", "TemplateSeqEnd", "QuotedLit", "CQuote", "Newline",
      "Ident", "Equal", "OHeredoc", "StringLit", "TemplateInterp", "Ident", "TemplateSeqEnd", "StringLit", "CHeredoc", "Newline", "EOF",
    ]);
  });
});

describe("robustness", () => {
  /** Parses; checks it did not fail inside and every diagnostic range lies in the text. */
  function safely(text: string) {
    const r = parse(text);
    for (const d of r.diagnostics) {
      if (d.code === "internal_error") throw new Error(`internal error for ${JSON.stringify(text)}: ${d.message}`);
      if (!(0 <= d.range.start.offset && d.range.start.offset <= d.range.end.offset && d.range.end.offset <= text.length)) {
        throw new Error(`bad range for ${JSON.stringify(text)}`);
      }
    }
    return r;
  }

  it("never throws on random text (property)", () => {
    const fragments = [
      "a", "step", "for", "in", "if", " ", "\n", "\r\n", "\r", "\t", "=", "==", ":", ",", ".", "{", "}", "[", "]", "(", ")", '"', "\\", "${", "%{",
      "~}", "$${", "%%{", "~", "<<EOT\n", "<<-EOT\n", "EOT", "\nEOT\n", "#", "//", "/*", "*/", "1", "1.5e3", "1.2.3", "-", "!", "?", "=>", "...",
      "é", "😀", "\ud800", "\ufeff", "'", ";", "&", "|",
    ];
    fc.assert(fc.property(fc.array(fc.constantFrom(...fragments), { maxLength: 60 }), (parts) => void safely(parts.join(""))), { numRuns: 3000 });
  });

  it("never throws on random bytes (property)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => void safely(new TextDecoder().decode(bytes))),
      { numRuns: 2000 },
    );
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 200 }), (s) => void safely(s)), { numRuns: 2000 });
  });

  it("bounds nesting without exhausting the stack", () => {
    const n = 100_000;
    const deep = [
      "a = " + "[".repeat(n) + "]".repeat(n),
      "a = " + '"${'.repeat(n),
      "a = " + "{ a = ".repeat(n) + "1" + " }".repeat(n),
      "b {\n".repeat(n) + "}\n".repeat(n),
      "a = " + "-".repeat(n) + "1",
      "a = " + "x ? ".repeat(n) + "1",
      "a = " + "f(".repeat(n),
      "a = <<EOT\n" + "${<<EOT\n".repeat(1000),
    ];
    for (const text of deep) {
      const r = safely(text);
      expect(r.parsed, text.slice(0, 20)).toBeUndefined();
    }
    expect(only("a = " + "[".repeat(65) + "]".repeat(65) + "\n").code).toBe("nesting_too_deep");
    expect(parse("a = " + "[".repeat(60) + "]".repeat(60) + "\n").diagnostics).toEqual([]);
  });

  it("survives every prefix of a file with every construct", () => {
    const text = 'step "a" {\n  x = [1, { k = "v ${y ? "a" : "b"}" }]\n  h = <<-EOT\n    %{ for v in l ~}\n    ${v}\n    %{ endfor }\n  EOT\n  o { p = f(1, 2...) }\n}\n';
    for (let end = 0; end <= text.length; end++) safely(text.slice(0, end));
  });
});

describe("a big file", () => {
  it("parses a generated 3 MiB file (comments, heredocs, expressions) without a problem (its speed: bench/scaling.ts)", () => {
    const parts: string[] = [];
    let size = 0;
    for (let i = 0; size < 3 * 1024 * 1024; i++) {
      const s =
        `# step ${i}\nstep "s${i}" {\n  target = adapter.shell.default\n  input {\n    command = "echo \${var.x} ${i}"\n` +
        `    list = [1, 2.5, "three", { a = true }]\n  }\n  outcome "success" { next = "s${i + 1}" }\n` +
        `  script = <<-EOT\n    set -eu\n    echo ${i}\n  EOT\n  when = var.a == "x" && length(var.l) > ${i} ? true : false\n}\n\n`;
      parts.push(s);
      size += s.length;
    }
    const text = parts.join("");
    const r = parseHclNative(new SourceFile("big.hcl", text));
    expect(r.diagnostics).toEqual([]);
    expect(r.cst.tokens.count).toBeGreaterThan(0);
    expect(Object.keys((r.parsed!.value as { step: object }).step).length).toBeGreaterThan(5000);
  }, 60_000);
});
