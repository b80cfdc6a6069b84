import { describe, it, expect } from "vitest";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import fc from "fast-check";
import { parse as hclToJson } from "@cdktn/hcl2json";
import { SourceFile } from "../../compiler/diagnostics/source-file.js";
import { childPointer } from "../../compiler/parse/source-map.js";
import { scanHcl, MAX_DEPTH } from "./oracle/hcl-scan.js";
import { canonicalNumber, decodeQuoted } from "./oracle/hcl-lex.js";

const CRITERIA = join(import.meta.dirname, "..", "..", "..", "shared", "criteria");
const FIXTURES = new URL("../../testdata/hcl-scan/", import.meta.url).pathname;

function hclFiles(dir: string): string[] {
  let out: string[] = [];
  const names = readdirSync(dir).sort();
  for (const name of names) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out = out.concat(hclFiles(path));
    else if (name.endsWith(".hcl")) out.push(path);
  }
  return out;
}

/** hcl2json's key for a computed object key (`(k)`, `"${k}"`, `-1`): holds an unescaped `${` or `%{`. */
const COMPUTED_KEY = /(^|[^$])\$\{|(^|[^%])%\{/;

/** Every pointer of `value`; `required` leaves out subtrees under computed keys. */
function jsonPointers(value: unknown): { all: Set<string>; required: Set<string> } {
  const all = new Set<string>();
  const required = new Set<string>();
  const walk = (v: unknown, pointer: string, computed: boolean): void => {
    all.add(pointer);
    if (!computed) required.add(pointer);
    if (Array.isArray(v)) v.forEach((item, i) => walk(item, childPointer(pointer, i), computed));
    else if (v !== null && typeof v === "object") {
      for (const [k, item] of Object.entries(v)) walk(item, childPointer(pointer, k), computed || COMPUTED_KEY.test(k));
    }
  };
  walk(value, "", false);
  return { all, required };
}

function lastSegment(pointer: string): string {
  return pointer.slice(pointer.lastIndexOf("/") + 1).replace(/~1/g, "/").replace(/~0/g, "~");
}

function parentPointer(pointer: string): string {
  return pointer.slice(0, pointer.lastIndexOf("/"));
}

/**
 * The name a key token's text stands for: quoted keys decoded (object keys with `${`/`%{`
 * re-escaped as hcl2json does, block labels not), numbers canonical, others as written.
 */
function keyName(keyText: string, objectKey = false): string {
  if (keyText.startsWith('"')) {
    const decoded = decodeQuoted(keyText);
    return objectKey ? decoded.replace(/([$%])\{/g, "$1$1{") : decoded;
  }
  if (/^[0-9]/.test(keyText)) return canonicalNumber(keyText) ?? keyText;
  return keyText;
}

/**
 * The scan of `text` agrees with hcl2json's JSON for it: the same pointers both ways,
 * exprText = the range's text, key ranges name their keys, and source order.
 */
async function expectMatchesHcl2json(name: string, text: string): Promise<void> {
  const file = new SourceFile(name, text);
  const json: unknown = await hclToJson(name, text);
  const { map, errors } = scanHcl(file);
  expect(errors).toEqual([]);
  const { all, required } = jsonPointers(json);
  expect([...required].filter((p) => !map.has(p))).toEqual([]);
  expect([...map.keys()].filter((p) => !all.has(p))).toEqual([]);

  const slice = (r: { start: { offset: number }; end: { offset: number } }) => text.slice(r.start.offset, r.end.offset);
  let previousAnchor = -1;
  for (const [pointer, entry] of map) {
    const { range, keyRange, exprText } = entry;
    expect(range.file).toBe(name);
    expect(range.start.offset).toBeLessThanOrEqual(range.end.offset);
    expect(range.end.offset).toBeLessThanOrEqual(text.length);
    expect(range.start).toEqual(file.position(range.start.offset));
    expect(range.end).toEqual(file.position(range.end.offset));
    // Source order: each entry is anchored (by its key, else its value) no earlier than the last.
    const anchor = (keyRange ?? range).start.offset;
    expect(anchor, pointer).toBeGreaterThanOrEqual(previousAnchor);
    previousAnchor = anchor;
    if (pointer === "") continue;
    const segment = lastSegment(pointer);
    if (exprText !== undefined) {
      // An attribute, object member or tuple element.
      expect(slice(range), pointer).toBe(exprText);
      expect(exprText.trim(), pointer).toBe(exprText);
      expect(exprText.length, pointer).toBeGreaterThan(0);
      if (keyRange) expect(keyName(slice(keyRange), true), pointer).toBe(segment);
      else expect(segment, pointer).toMatch(/^\d+$/);
    } else {
      // A block level: type keyword, label, or instance (keyed by its last label or type).
      expect(keyRange, pointer).toBeDefined();
      const keyText = slice(keyRange!);
      const named = /^\d+$/.test(segment) && keyName(keyText) !== segment ? lastSegment(parentPointer(pointer)) : segment;
      expect(keyName(keyText), pointer).toBe(named);
      expect(slice(range), pointer).toMatch(/^[\p{L}_][\p{L}\p{N}_-]*[\s\S]*\}$/u);
    }
  }
}

// The Go tool's users' files sit beside the repository (../shared); a clone alone has none.
const realFiles = existsSync(CRITERIA) ? hclFiles(CRITERIA) : [];
const fixtureFiles = hclFiles(FIXTURES);

describe("scanHcl agrees with hcl2json", () => {
  it("finds the shared criteria examples and the fixtures", () => {
    if (existsSync(CRITERIA)) expect(realFiles.length).toBeGreaterThan(0);
    expect(fixtureFiles.length).toBeGreaterThanOrEqual(3);
  });

  for (const path of [...realFiles, ...fixtureFiles]) {
    const name = relative(process.cwd(), path);
    const text = readFileSync(path, "utf8");
    it(`${name} (LF)`, async () => {
      await expectMatchesHcl2json(name, text.replace(/\r\n/g, "\n"));
    });
    it(`${name} (CRLF)`, async () => {
      await expectMatchesHcl2json(name, text.replace(/\r?\n/g, "\r\n"));
    });
  }

  it("inline cases", async () => {
    const cases = [
      "",
      "# only a comment\n",
      "a = 1",
      "a = { x = 1 }\nb = [1, [2, { c = 3 }]]\n",
      'blk "l" { x = 1 }\nblk "l" { x = 2 }\nblk "m" { x = 3 }\n',
      'a = "${ {a = 1} }"\nb = "${[1, 2]}"\nc = "${ 1 }"\nd = ["${ {x = 1} }"]\n',
      'a = "${ {a=1}.a }"\nb = "${ {a=1} }x"\nc = "${x}${y}"\n',
      "a = <<EOT\n${x}\nEOT\nb = [<<EOT\nx\nEOT\n, 2]\n",
      "a = <<-EOT\n\tx\n\tEOT\n",
      "x = 2\nx {}\ny {}\ny = 1\nz \"l\" {}\nz = { l = 1 }\n",
      "a = { k = 1, k = { later = true } }\nb = { k = { gone = 1 }, k = 2 }\n",
      'a = { "\\u00e9" = 1, "é" = 2 }\n',
      'blk "a" "b" {}\nblk "c" {}\nblk "a" "d" {}\n',
      "a = {\n  b = 1 }\nc = [\n\n  1\n\n  ,\n\n  2\n\n]\n",
    ];
    for (const [i, text] of cases.entries()) await expectMatchesHcl2json(`inline-${i}.hcl`, text);
  });
});

describe("scanHcl agrees with hcl2json on generated HCL (property)", () => {
  const IDENT_KEYS = ["a", "b", "k-1", "_u", "é", "null", "for_each"];
  const OTHER_KEYS = ['"q k"', '"a/b~c"', '"$${x}"', '"\\u00e9"', "1", "2.50", "t.u", "(k)", '"${k}"'];
  const STRINGS = [
    '"a"', '"a b"', '"esc\\n\\"q\\""', '"${x}"', '"a ${x.y} b"', '"${ {a = 1} }"', '"$${lit}"',
    '"%{ if c }y%{ endif }"', '"é😀"', '"${f("}")}"', '""',
  ];
  const ATOMS = ["1", "1.5", "0", "1e3", "true", "null", "var.x", "a.b[0]", "-1", "[for v in var.l : v]", "{for k, v in m : k => v}"];
  const HEREDOCS = ["<<EOT\nline ${x}\nEOT\n", "<<-EOT\n  x\n  EOT\n"];
  const sep = fc.constantFrom(", ", ",\n", ",\n\n  ", " ,");

  const { expr } = fc.letrec<{ expr: string }>((tie) => ({
    expr: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.constantFrom(...ATOMS, ...STRINGS),
      fc.constantFrom(...HEREDOCS),
      fc.tuple(fc.array(tie("expr"), { maxLength: 4 }), sep, fc.boolean()).map(
        ([items, s, trailing]) => "[" + items.map((x, i) => x + (i < items.length - 1 || trailing ? s : "")).join("") + "]",
      ),
      fc
        .tuple(
          fc.array(fc.tuple(fc.constantFrom(...IDENT_KEYS, ...OTHER_KEYS), fc.constantFrom(" = ", ": ", "="), tie("expr"), fc.constantFrom(", ", "\n", ",\n", "\n  # c\n")), { maxLength: 4 }),
          fc.constantFrom("", "\n", " "),
        )
        .map(([items, pad]) => "{" + pad + items.map(([k, eq, v, s], i) => k + eq + v + (v.endsWith("\n") || i === items.length - 1 ? "" : s)).join("") + pad + "}"),
      fc.tuple(tie("expr"), tie("expr")).map(([a, b]) => `f(${a},\n ${b})`),
      fc.tuple(tie("expr"), tie("expr")).map(([a, b]) => `var.c ? ${a} : ${b}`.replace(/\n$/, "\n\n")),
      tie("expr").map((a) => `(${a})`),
    ),
  }));

  /**
   * Attribute values. A heredoc must be followed by a line break, which ends an attribute
   * outside brackets: drop the shapes where that makes invalid HCL (`c ? <<EOT…`,
   * `(<<EOT…`, more after the heredoc) to keep most samples valid.
   */
  const value = expr.filter((e) => !/\?[^]*<<|<<[^]*\?|\(<<|<<-?EOT\n[^]*EOT\n\S/.test(e));
  const labels = fc.array(fc.constantFrom('"l1"', '"l2"', "bare", '"esc\\"q"', '"x/y"'), { maxLength: 2 });

  const { body } = fc.letrec<{ body: string }>((tie) => ({
    body: fc
      .array(
        fc.oneof(
          { depthSize: "small" },
          fc.tuple(fc.constant("attr"), value, fc.constantFrom("", " # c", " // c", " /* c */")),
          fc.tuple(fc.constantFrom("step", "out", "a0"), labels, tie("body")),
          fc.tuple(fc.constantFrom("step", "out"), labels, value.filter((v) => !v.includes("\n")).map((v) => `x = ${v}`)),
        ),
        { maxLength: 5 },
      )
      .map((items) =>
        items
          .map((item, i) => {
            if (item[0] === "attr") return `a${i} = ${item[1]}${item[2]}\n`;
            const [type, ls, inner] = item as [string, string[], string];
            const head = [type, ...ls].join(" ");
            return inner.startsWith("x = ") ? `${head} { ${inner} }\n` : `${head} {\n${inner}}\n`;
          })
          .join(""),
      ),
  }));

  it("maps every pointer of hcl2json's JSON for generated files", async () => {
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(body, fc.boolean(), async (text, crlf) => {
        const source = crlf ? text.replace(/\n/g, "\r\n") : text;
        try {
          await hclToJson("gen.hcl", source);
        } catch {
          return; // not valid HCL (e.g. mixed label counts under one block type): nothing to compare
        }
        compared++;
        await expectMatchesHcl2json("gen.hcl", source);
      }),
      { numRuns: 400 },
    );
    expect(compared).toBeGreaterThan(200);
  }, 120_000);
});

describe("positions", () => {
  const path = join(CRITERIA, "v0.3.0/switch_basic.hcl");
  const switchBasic = new SourceFile("switch_basic.hcl", readFileSync(path, "utf8"));
  const { map } = scanHcl(switchBasic);
  const at = (pointer: string) => {
    const entry = map.get(pointer);
    expect(entry, pointer).toBeDefined();
    return entry!;
  };
  const span = (r: { start: { line: number; column: number }; end: { line: number; column: number } }) =>
    `${r.start.line}:${r.start.column}-${r.end.line}:${r.end.column}`;

  it("maps attributes to their expression and name", () => {
    const match = at("/switch/decide/0/condition/0/match");
    expect(span(match.range)).toBe("25:13-25:30");
    expect(span(match.keyRange!)).toBe("25:5-25:10");
    expect(match.exprText).toBe('var.env == "prod"');
    const next = at("/step/build/0/outcome/success/0/next");
    expect(span(next.range)).toBe("20:30-20:38");
    expect(next.exprText).toBe('"decide"');
  });

  it("maps blocks to the whole block and their labels", () => {
    expect(span(at("/adapter").range)).toBe("16:1-16:28");
    expect(span(at("/adapter").keyRange!)).toBe("16:1-16:8");
    expect(span(at("/adapter/noop").keyRange!)).toBe("16:9-16:15");
    expect(span(at("/adapter/noop/default/0").keyRange!)).toBe("16:16-16:25");
    expect(span(at("/switch/decide/0").range)).toBe("23:1-39:2");
    expect(span(at("/switch/decide/0/condition/1").range)).toBe("28:3-31:4");
    expect(span(at("/switch/decide/0/condition/1").keyRange!)).toBe("28:3-28:12");
    // The shared levels take the first block's range.
    expect(span(at("/state").range)).toBe("41:1-44:2");
    expect(span(at("/state/done").range)).toBe("56:1-59:2");
  });

  it("counts columns in graphemes (HCL's count) and handles CRLF and heredocs", () => {
    const text = 'a = "😀"\r\nbé = "x" # c\r\nh = <<EOT\r\nline ${x}\r\n  EOT\r\nt = [\r\n  1,\r\n  "two",\r\n]\r\n';
    const file = new SourceFile("u.hcl", text);
    const { map: m, errors } = scanHcl(file);
    expect(errors).toEqual([]);
    expect(span(m.get("/a")!.range)).toBe("1:5-1:8");
    expect(span(m.get("/bé")!.keyRange!)).toBe("2:1-2:3");
    expect(span(m.get("/bé")!.range)).toBe("2:6-2:9");
    expect(span(m.get("/h")!.range)).toBe("3:5-5:6");
    expect(m.get("/h")!.exprText).toBe("<<EOT\r\nline ${x}\r\n  EOT");
    expect(span(m.get("/t")!.range)).toBe("6:5-9:2");
    expect(span(m.get("/t/1")!.range)).toBe("8:3-8:8");
  });

  it("keeps source order across interleaved blocks", () => {
    const text = 'step "a" { x = 1 }\nstep "b" {}\nstep "a" {}\nstate "s" {}\nstep "c" {}\n';
    const { map: m } = scanHcl(new SourceFile("o.hcl", text));
    expect([...m.keys()].filter((p) => /^\/\w+\/\w+\/\d+$/.test(p))).toEqual([
      "/step/a/0",
      "/step/b/0",
      "/step/a/1",
      "/state/s/0",
      "/step/c/0",
    ]);
    expect([...m.keys()].slice(0, 5)).toEqual(["", "/step", "/step/a", "/step/a/0", "/step/a/0/x"]);
  });

  it("maps exprText of object members and tuple elements", () => {
    const text = 'input = {\n  a = var.x\n  "b": [1, f(2)]\n}\n';
    const { map: m } = scanHcl(new SourceFile("e.hcl", text));
    expect(m.get("/input/a")!.exprText).toBe("var.x");
    expect(m.get("/input/b")!.exprText).toBe("[1, f(2)]");
    expect(m.get("/input/b/1")!.exprText).toBe("f(2)");
    expect(text.slice(m.get("/input/b")!.keyRange!.start.offset, m.get("/input/b")!.keyRange!.end.offset)).toBe('"b"');
  });
});

describe("malformed input", () => {
  /**
   * Scans (which must not throw) and checks every range and error lies within the text.
   * Plain checks rather than `expect`, as this runs thousands of times.
   */
  function scanSafely(text: string) {
    const file = new SourceFile("bad.hcl", text);
    const result = scanHcl(file);
    const inText = (start: number, end: number) => 0 <= start && start <= end && end <= text.length;
    for (const [pointer, entry] of result.map) {
      for (const r of [entry.range, entry.keyRange]) {
        if (r && !inText(r.start.offset, r.end.offset)) throw new Error(`bad range at ${pointer} for ${JSON.stringify(text)}`);
      }
      if (entry.exprText !== undefined && entry.exprText !== text.slice(entry.range.start.offset, entry.range.end.offset)) {
        throw new Error(`exprText differs from its range at ${pointer} for ${JSON.stringify(text)}`);
      }
    }
    for (const e of result.errors) {
      if (!inText(e.start, e.end) || /internal/.test(e.message)) {
        throw new Error(`bad error ${JSON.stringify(e)} for ${JSON.stringify(text)}`);
      }
    }
    return result;
  }

  it("returns errors and recovers", () => {
    const cases: Array<[string, RegExp, string[]]> = [
      ['a = "unterminated\nb = 2\n', /unterminated string/, ["/b"]],
      ['a = "${x\n', /unterminated/, []],
      ["a = <<EOT\nno end\n", /unterminated heredoc/, []],
      ["a = <<EOT\nx\nEOT \nb = 1\n", /unterminated heredoc/, []],
      ['step "a" {\n  x = 1\n', /not closed/, ["/step/a/0/x"]],
      ["}\na = 1\n", /unexpected "}"/, ["/a"]],
      ["a = (1 + \nb = 2\n", /not closed/, ["/a"]],
      ["a = 1 ]\nb = 2\n", /unmatched/, ["/a", "/b"]],
      ["a = [1, 2\n}\nb = 1\n", /unmatched|not closed/, ["/a"]],
      ["a = { b = 1\n", /not closed/, ["/a", "/a/b"]],
      ["a = { b c }\nz = 1\n", /expected "=" or ":"/, ["/a", "/z"]],
      ["a =\nb = 1\n", /expected an expression/, ["/b"]],
      ["= 1\nb = 1\n", /expected an attribute or a block/, ["/b"]],
      ['step "a"\nb = 1\n', /expected "\{"/, ["/b"]],
      ["/* unterminated comment\na = 1\n", /unterminated block comment/, []],
      ['a = "\\', /unterminated string/, []],
    ];
    for (const [text, message, pointers] of cases) {
      const { map, errors } = scanSafely(text);
      expect(errors.map((e) => e.message).join("; "), JSON.stringify(text)).toMatch(message);
      for (const p of pointers) expect(map.has(p), `${JSON.stringify(text)} ${p}`).toBe(true);
    }
  });

  it("handles empty and trivial files", () => {
    for (const text of ["", "\n", "\r\n", "   ", "# c", "/**/", "\ufeff"]) {
      const { map } = scanSafely(text);
      expect([...map.keys()]).toEqual([""]);
    }
  });

  it("survives every prefix of every fixture", () => {
    for (const path of [...fixtureFiles, ...realFiles]) {
      const text = readFileSync(path, "utf8");
      for (let end = 0; end <= text.length; end++) scanSafely(text.slice(0, end));
    }
  }, 60_000);

  it("survives deep nesting without exhausting the stack", () => {
    const n = 100_000;
    const nested = [
      "a = " + '"${'.repeat(n),
      "a = " + '"${'.repeat(n) + "1" + '}"'.repeat(n),
      "a = " + "{".repeat(n),
      "a = " + "[".repeat(n) + "]".repeat(n),
      "a = " + "{ a = ".repeat(n) + "1" + " }".repeat(n),
      "b { ".repeat(n) + "}".repeat(n),
      "b { ".repeat(n),
      "a = <<EOT\n" + "${<<EOT\n".repeat(1000),
    ];
    for (const text of nested) scanSafely(text);
    const { errors } = scanSafely("a = " + "[".repeat(MAX_DEPTH + 5) + "]".repeat(MAX_DEPTH + 5));
    expect(errors.map((e) => e.message).join()).toMatch(/nested deeper/);
  }, 60_000);

  it("never throws on random text (property)", () => {
    const fragments = [
      "a", "b", "step", "for", " ", "\n", "\r\n", "\t", "=", "==", ":", ",", ".", "{", "}", "[", "]", "(", ")",
      '"', "\\", "${", "%{", "$${", "%%{", "~", "<<EOT\n", "<<-EOT\n", "EOT", "\nEOT\n", "#", "//", "/*", "*/",
      "1", "1.5e3", "-", "!", "?", "=>", "...", "é", "😀", "\ud800",
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...fragments), { maxLength: 60 }), (parts) => {
        scanSafely(parts.join(""));
      }),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 200 }), (text) => {
        scanSafely(text);
      }),
      { numRuns: 2000 },
    );
  }, 60_000);
});

describe("large files", () => {
  function generate(steps: number): string {
    const lines = ['workflow "big" {', '  version = "0.1"', '  initial_state = "s0"', "}", ""];
    for (let i = 0; i < steps; i++) {
      lines.push(
        `step "s${i}" {`,
        `  adapter = "noop"`,
        `  input {`,
        `    label = "step ${i}: \${each.value}"`,
        `    items = [${i}, "x", { k = ${i} }]`,
        `  }`,
        `  outcome "success" { transition_to = "s${i + 1}" }`,
        `  outcome "failure" { transition_to = "failed" }`,
        "}",
        "",
      );
    }
    lines.push('state "failed" { terminal = true }', "");
    return lines.join("\n");
  }

  it("scans a generated 5,000-step file with every pointer", async () => {
    const text = generate(5000);
    const file = new SourceFile("big.hcl", text);
    const { map, errors } = scanHcl(file);
    expect(errors).toEqual([]);
    const { all } = jsonPointers(await hclToJson("big.hcl", text));
    expect(map.size).toBe(all.size);
    expect([...all].filter((p) => !map.has(p))).toEqual([]);
    expect(map.get("/step/s4999/0/outcome/success/0/transition_to")!.exprText).toBe('"s5000"');
  }, 60_000);
});
