/**
 * Differential oracle: the native HCL parser (compiler/parse/hcl/) against @cdktn/hcl2json
 * (Go's HCL in WebAssembly, the reference for values and verdicts) and hcl-scan.ts (the
 * reference for the source map), over every .hcl/.chcl file of the repository and of
 * ../shared/criteria, and over generated files (valid ones, and mutated ones).
 *
 * For every input: the same verdict (accepted or refused); for accepted ones the same
 * JSON value (deep equal, -0 included); for accepted ones also the source map: exactly
 * hcl2json's pointers (less those under computed keys, which are not mapped) with the
 * ranges, key ranges and expression texts scanHcl gives.
 *
 * Every difference must be fixed or be one of DEVIATIONS below: places where hcl2json
 * departs from the HCL native syntax specification (hashicorp/hcl hclsyntax/spec.md),
 * and the spec wins.
 *
 * scanHcl is compared entry by entry where it has the pointer and reported no error. It
 * maps less than hcl2json in two corners the native parser gets right: a template that is
 * one interpolation of another such template (`"${"${ {a = 1} }"}"`: scanHcl unwraps one
 * level), and a heredoc whose closing marker line has trailing blanks (scanHcl reports
 * an unterminated heredoc; HCL, hcl2json and the native parser accept it).
 *
 * HCL_DIFF_SEED=n and HCL_DIFF_SCALE=k explore other and larger generated samples.
 */
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hasErrors } from "../../compiler/diagnostics/diagnostic.js";
import { SourceFile } from "../../compiler/diagnostics/source-file.js";
import { scanHcl } from "./oracle/hcl-scan.js";
import { parseHclNative, type HclParseResult } from "../../compiler/parse/hcl/index.js";
import { childPointer } from "../../compiler/parse/source-map.js";
import { hcl2jsonOracle } from "./hcl2json-oracle.js";
import { corpusHclFiles } from "./hcl-files.js";

const REPO = join(import.meta.dirname, "..", "..");

type Reference = { accept: true; value: unknown } | { accept: false; error: string };

async function reference(text: string): Promise<Reference> {
  const r = await hcl2jsonOracle(text);
  return "value" in r ? { accept: true, value: r.value } : { accept: false, error: r.error };
}

function native(text: string, name = "x.hcl"): { result: HclParseResult; accept: boolean } {
  const result = parseHclNative(new SourceFile(name, text));
  return { result, accept: result.parsed !== undefined && !hasErrors(result.diagnostics) };
}

/**
 * Deep equality of JSON values, telling -0 from 0 and ignoring prototypes. `rounded`:
 * numbers compare as hcl2json renders them (1e400 as Infinity or null, -0 as 0).
 */
function sameJson(a: unknown, b: unknown, rounded = false): boolean {
  if (rounded && typeof a === "number" && (b === null || typeof b === "number")) {
    return a === b || (b === null && !Number.isFinite(a));
  }
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return Object.is(a, b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameJson(x, b[i], rounded));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  const bo = b as Record<string, unknown>;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(bo, k) && sameJson((a as Record<string, unknown>)[k], bo[k], rounded));
}

/** `value` with every `\r\n` in its strings made `\n`. */
function lfStrings(value: unknown): unknown {
  if (typeof value === "string") return value.replace(/\r\n/g, "\n");
  if (Array.isArray(value)) return value.map(lfStrings);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replace(/\r\n/g, "\n"), lfStrings(v)]));
  }
  return value;
}

/**
 * Documented deviations of hcl2json from the HCL native syntax specification. Each names
 * the spec rule it breaks and recognises the difference it explains.
 */
const DEVIATIONS: { id: string; rule: string; explains: (text: string, ref: Reference, mine: HclParseResult) => boolean }[] = [
  {
    id: "exact-numbers",
    rule:
      'spec "Numeric Literals" and "Arithmetic Operators" (numbers are arbitrary-precision): hcl2json rounds through float64 ' +
      "(12345678901234567890 → 12345678901234567000, 1e400 → null, 1e-400 → 0); the native parser refuses such a literal " +
      "with invalid_value (hint: quote it) instead of rounding it silently",
    explains: (_text, ref, mine) =>
      ref.accept &&
      mine.parsed !== undefined &&
      mine.diagnostics.length > 0 &&
      mine.diagnostics.every((d) => d.code === "invalid_value" && /^the number /.test(d.message)) &&
      // Everything else agrees: the same value once rounded (hcl2json gives null for an infinity).
      sameJson(lfStrings(mine.parsed.value), lfStrings(ref.value), true),
  },
  {
    id: "crlf-values",
    rule:
      'spec "Comments and Whitespace": a newline sequence is LF or CR LF, one line break; hcl2json keeps the CR of CRLF ' +
      "files in heredoc text and in ${…} source text; the native parser gives \\n",
    explains: (text, ref, mine) => text.includes("\r\n") && ref.accept && mine.parsed !== undefined && sameJson(mine.parsed.value, lfStrings(ref.value)),
  },
  {
    id: "nesting-depth",
    rule:
      "not a syntax rule: this project's nesting bound (MAX_DEPTH in compiler/parse/document.ts, 64 levels), which parse-hcl.ts " +
      "also applies before calling hcl2json; hcl2json itself accepts deeper files",
    explains: (_text, ref, mine) => ref.accept && mine.diagnostics.some((d) => d.code === "nesting_too_deep"),
  },
];

/** Which deviation explains a difference, or undefined. */
function deviation(text: string, ref: Reference, mine: HclParseResult): string | undefined {
  return DEVIATIONS.find((d) => d.explains(text, ref, mine))?.id;
}

/** hcl2json's key for a computed object key (`(k)`, `"${k}"`, `-1`): holds an unescaped `${` or `%{`. */
const COMPUTED_KEY = /(^|[^$])\$\{|(^|[^%])%\{/;

/** Every pointer of `value`. */
function allPointers(value: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown, pointer: string): void => {
    out.push(pointer);
    if (Array.isArray(v)) v.forEach((item, i) => walk(item, childPointer(pointer, i)));
    else if (v !== null && typeof v === "object") for (const [k, item] of Object.entries(v)) walk(item, childPointer(pointer, k));
  };
  walk(value, "");
  return out;
}

/** True when a pointer passes through a computed object key (`${…}`), which is not mapped. */
function underComputedKey(pointer: string): boolean {
  return pointer.split("/").some((segment) => COMPUTED_KEY.test(segment.replace(/~1/g, "/").replace(/~0/g, "~")));
}

/**
 * Compares one input; returns a description of the difference (undefined when they
 * agree or a documented deviation explains it) and which deviation applied.
 */
async function compare(text: string, name = "x.hcl"): Promise<{ problem?: string; deviation?: string; accepted: boolean }> {
  const ref = await reference(text);
  const { result, accept } = native(text, name);
  if (ref.accept !== accept || (ref.accept && !sameJson(result.parsed!.value, ref.value))) {
    const d = deviation(text, ref, result);
    if (d) return { deviation: d, accepted: ref.accept };
    const mineText = accept
      ? JSON.stringify(result.parsed!.value)
      : result.diagnostics.map((x) => `${x.range.start.line}:${x.range.start.column} ${x.code} ${x.message}`).join("; ");
    return {
      problem: `${ref.accept ? `hcl2json accepts: ${JSON.stringify(ref.value)}` : `hcl2json refuses: ${ref.error}`}\n  native ${accept ? "accepts" : "refuses"}: ${mineText}`,
      accepted: ref.accept,
    };
  }
  if (!ref.accept) return { accepted: false };
  // The source map: hcl2json's pointers, scanHcl's entries.
  const map = result.parsed!.map;
  const expected = new Set(allPointers(ref.value));
  const missing = [...expected].filter((p) => !map.has(p) && !underComputedKey(p));
  const extra = [...map.keys()].filter((p) => !expected.has(p));
  if (missing.length > 0 || extra.length > 0) {
    return { problem: `map pointers differ: missing ${JSON.stringify(missing.slice(0, 5))}, extra ${JSON.stringify(extra.slice(0, 5))}`, accepted: true };
  }
  const scan = scanHcl(new SourceFile(name, text));
  if (scan.errors.length === 0) {
    const scanKeys = [...scan.map.keys()];
    const mineKeys = [...map.keys()].filter((k) => scan.map.has(k));
    if (scanKeys.filter((k) => map.has(k)).join("\n") !== mineKeys.join("\n")) return { problem: "map order differs from scanHcl", accepted: true };
    for (const [k, entry] of scan.map) {
      const mine = map.get(k);
      if (mine && JSON.stringify(mine) !== JSON.stringify(entry)) {
        return { problem: `map entry ${k}: scanHcl ${JSON.stringify(entry)}\n  native ${JSON.stringify(mine)}`, accepted: true };
      }
    }
  }
  return { accepted: true };
}

const files = corpusHclFiles();

describe("native HCL parser vs hcl2json + scanHcl: files", () => {
  it("finds the repository's files", () => {
    expect(files.length).toBeGreaterThan(100);
  });

  it(`agrees on ${files.length} files, LF and CRLF`, async () => {
    const problems: string[] = [];
    const deviations: Record<string, number> = {};
    let accepted = 0;
    for (const path of files) {
      const text = readFileSync(path, "utf8");
      for (const variant of [text.replace(/\r\n/g, "\n"), text.replace(/\r?\n/g, "\r\n")]) {
        const r = await compare(variant, relative(REPO, path));
        if (r.problem) problems.push(`${relative(REPO, path)}: ${r.problem}`);
        if (r.deviation) deviations[r.deviation] = (deviations[r.deviation] ?? 0) + 1;
        if (r.accepted) accepted++;
      }
    }
    console.log(`files: ${files.length} (${files.length * 2} with CRLF variants), ${accepted} accepted by hcl2json, deviations: ${JSON.stringify(deviations)}`);
    expect(problems).toEqual([]);
  }, 120_000);
});

// --- generated HCL -------------------------------------------------------------------------

const IDENT_KEYS = ["a", "b", "k-1", "_u", "é", "null", "true", "for_each", "__proto__"];
const OTHER_KEYS = ['"q k"', '"a/b~c"', '"$${x}"', '"\\u00e9"', "1", "2.50", "t.u", "t[0]", 't["x"]', "(k)", '"${k}"', "-1", "f(x)"];
const STRINGS = [
  '"a"', '"a b"', '"esc\\n\\t\\"q\\"\\\\"', '"${x}"', '"a ${x.y} b"', '"${ {a = 1} }"', '"${ [1, "${y}"] }"', '"$${lit}"', '"%%{lit}"',
  '"%{ if c }y%{ endif }"', '"%{ if c }y%{ else }n%{ endif }"', '"%{ for k, v in m ~} ${k}=${v} %{~ endfor }"', '"x ${~ y ~} z"',
  '"é😀"', '"${f("}")}"', '""', '"\\U0001F600\\u00e9"', '"${ c ? "a" : "b" }"', '"${1.50}${true}${null}"', '"$"', '"100%"', '"${-1}"',
  '"${ "q${x}" }"', '"${"${ {b = 2} }"}"',
];
const NUMBERS = ["1", "1.5", "0", "1e3", "1.5e+3", "-1", "-0", "007", "0.10", "9007199254740993", "123456789012345678901234", "1e400", "1e-400", "0.1000000000000000055511151231257827"];
const ATOMS = [
  "true", "false", "null", "var.x", "a.b[0]", 'a["k"]', "a.0", "x[*].y", "x.*.y", "!true", "!x", "-x", "- 1", "(1)", "a + b * c", "a == b && c || !d",
  "[for v in var.l : v if v]", "{for k, v in m : k => v...}", "f(1, 2...)", "ns::f()", "c ? 1 : 2", "x[y]", "x[\"${y}\"]", "list(string)",
];
const HEREDOCS = [
  "<<EOT\nline ${x}\nEOT\n",
  "<<-EOT\n    set -eu\n      x ${y}\n    EOT\n",
  "<<-EOT\n\tx\n\n  y\n  EOT\n",
  "<<EOT\n  $${a} %%{b} %{ if c ~}\n  yes\n  %{~ endif }\nEOT\n",
  "<<EOT\nEOT\n",
  "<<-EOT\n  a ${~ x}\n  b  ${x ~}  \n    c\n  EOT\n",
];
const sep = fc.constantFrom(", ", ",\n", ",\n\n  ", " ,");

const { expr } = fc.letrec<{ expr: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom(...ATOMS, ...STRINGS, ...NUMBERS),
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
    fc.tuple(tie("expr"), tie("expr")).map(([a, b]) => `var.c ? ${a} : ${b}`),
    tie("expr").map((a) => `(${a})`),
    tie("expr").map((a) => `"pre \${${a.includes("\n") ? "x" : a}} post"`),
  ),
}));

/** A heredoc must be followed by a line break, which ends an attribute outside brackets. */
const value = expr.filter((e) => !/\?[^]*<<|<<[^]*\?|\(<<|<<-?EOT\n[^]*EOT\n\S/.test(e));
const labels = fc.array(fc.constantFrom('"l1"', '"l2"', "bare", '"esc\\"q"', '"x/y"', '"$${z}"'), { maxLength: 2 });

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
          return inner.startsWith("x = ") ? `${head} { ${inner} }\n` : `# doc\n${head} {\n${inner}}\n`;
        })
        .join(""),
    ),
}));

/** Edits that break or bend a file: a character removed, inserted, or a line doubled. */
const INSERTS = ["{", "}", "[", "]", "(", ")", '"', "=", ",", "\n", "${", "%{", "~", "#", "/*", "<<EOT\n", "\\", "$", ".", "*", ":", "?", " ", "'", ";", "1"];
const mutated = fc
  .tuple(body, fc.array(fc.tuple(fc.nat(), fc.nat({ max: 2 }), fc.constantFrom(...INSERTS)), { minLength: 1, maxLength: 3 }))
  .map(([text, edits]) => {
    let t = text;
    for (const [at, kind, ins] of edits) {
      const i = t.length === 0 ? 0 : at % (t.length + 1);
      if (kind === 0) t = t.slice(0, i) + t.slice(i + 1);
      else if (kind === 1) t = t.slice(0, i) + ins + t.slice(i);
      else {
        const start = t.lastIndexOf("\n", i - 1) + 1;
        const end = t.indexOf("\n", i);
        const line = t.slice(start, end < 0 ? t.length : end + 1);
        t = t.slice(0, start) + line + t.slice(start);
      }
    }
    return t;
  });

/** TODO list: differences the generated cases still show (patterns of the problem text). None today. */
const KNOWN_GENERATED_TODO: RegExp[] = [];

async function runGenerated(arb: fc.Arbitrary<string>, numRuns: number, seed: number) {
  const problems: string[] = [];
  const deviations: Record<string, number> = {};
  let accepted = 0;
  let cases = 0;
  await fc.assert(
    fc.asyncProperty(arb, fc.boolean(), async (text, crlf) => {
      // As the loader gives text: valid UTF-8 (a mutation may split a surrogate pair).
      const wellFormed = Buffer.from(text, "utf8").toString("utf8");
      const source = crlf ? wellFormed.replace(/\n/g, "\r\n") : wellFormed;
      cases++;
      const r = await compare(source);
      if (r.accepted) accepted++;
      if (r.deviation) deviations[r.deviation] = (deviations[r.deviation] ?? 0) + 1;
      if (r.problem && !KNOWN_GENERATED_TODO.some((re) => re.test(r.problem!)) && problems.length < 5) {
        problems.push(`${JSON.stringify(source)}\n  ${r.problem}`);
      }
    }),
    { numRuns, seed },
  );
  return { problems, deviations, accepted, cases };
}

/** Other seeds and larger samples: HCL_DIFF_SEED=7 HCL_DIFF_SCALE=10 npx vitest run test/parse/hcl-differential.test.ts */
const SEED = Number(process.env.HCL_DIFF_SEED ?? 0);
const SCALE = Number(process.env.HCL_DIFF_SCALE ?? 1);

describe("native HCL parser vs hcl2json + scanHcl: generated files (property)", () => {
  it("agrees on 2,500 generated files", async () => {
    const r = await runGenerated(body, 2500 * SCALE, 20261130 + SEED);
    console.log(`generated: ${r.cases} cases, ${r.accepted} accepted by hcl2json, deviations: ${JSON.stringify(r.deviations)}`);
    expect(r.problems).toEqual([]);
    expect(r.accepted).toBeGreaterThan(1000 * SCALE);
  }, 120_000 * SCALE);

  it("agrees on 3,000 mutated files (verdicts, and values when both accept)", async () => {
    const r = await runGenerated(mutated, 3000 * SCALE, 4242 + SEED);
    console.log(`mutated: ${r.cases} cases, ${r.accepted} accepted by hcl2json, deviations: ${JSON.stringify(r.deviations)}`);
    expect(r.problems).toEqual([]);
  }, 120_000 * SCALE);
});

describe("documented deviations", () => {
  it("each names the spec rule and is exercised", async () => {
    for (const d of DEVIATIONS) expect(d.rule.length, d.id).toBeGreaterThan(40);
    const cases: [string, string][] = [
      ["a = 12345678901234567890\n", "exact-numbers"],
      ["a = 1e400\n", "exact-numbers"],
      ["a = <<EOT\r\nx\r\nEOT\r\n", "crlf-values"],
      ["a = " + "[".repeat(70) + "]".repeat(70) + "\n", "nesting-depth"],
    ];
    for (const [text, id] of cases) {
      const r = await compare(text);
      expect(r.problem, text).toBeUndefined();
      expect(r.deviation, text).toBe(id);
    }
  });
});
