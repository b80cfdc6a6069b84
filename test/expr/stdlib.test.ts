/**
 * One value case and one error case (at least) for every function of the Go tool's
 * list (LANGUAGE-SPEC.md "Functions": the criteria table, the go-cty stdlib table and
 * the function notes) plus templatefile and fileset, evaluated through the
 * engine's function table (file hooks confined to a temporary workflow directory).
 * Errors must be evaluation errors (`eval_error`), never crashes.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { evaluate, functionDocs, functionNames, makeFunctions, type Value } from "../../compiler/expr/index.js";
import { engineFunctions } from "../../engine/run/evaluate.js";
import { parseOk } from "./helpers.js";

const SPEC = {
  criteria: ["sha256", "sha1", "sha512", "md5", "base64encode", "base64decode", "urlencode", "yamlencode", "yamldecode", "uuid", "timestamp", "startswith", "endswith", "strrev"],
  numeric: ["abs", "add", "ceil", "divide", "floor", "int", "log", "max", "min", "modulo", "multiply", "negate", "parseint", "pow", "signum", "subtract"],
  string: ["chomp", "format", "formatlist", "indent", "join", "lower", "replace", "split", "strlen", "substr", "title", "trim", "trimprefix", "trimspace", "trimsuffix", "upper"],
  collection: [
    "chunklist", "coalesce", "coalescelist", "compact", "concat", "contains", "csvdecode", "distinct", "element", "flatten", "index", "keys", "length",
    "lookup", "merge", "range", "regex", "regexall", "regexreplace", "reverse", "reverselist", "slice", "sort", "values", "zipmap",
  ],
  set: ["sethaselement", "setintersection", "setproduct", "setsubtract", "setsymmetricdifference", "setunion"],
  encoding: ["byteslen", "bytesslice", "jsondecode", "jsonencode"],
  logical: ["and", "assertnotnull", "equal", "greaterthan", "greaterthanorequalto", "hasindex", "lessthan", "lessthanorequalto", "not", "notequal", "or"],
  time: ["formatdate", "timeadd"],
  files: ["file", "fileexists", "trimfrontmatter", "templatefile", "fileset"],
};
const ALL = Object.values(SPEC).flat();

/** [expression, expected value (or an asymmetric matcher)]. */
type Ok = [string, unknown];
/** [expression, message pattern]. */
type Err = [string, RegExp];

const CASES: Record<string, { ok: Ok[]; err: Err[] }> = {
  // criteria
  sha256: { ok: [['sha256("abc")', "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"]], err: [["sha256([1])", /string is required, but got list/]] },
  sha1: { ok: [['sha1("abc")', "a9993e364706816aba3e25717850c26c9cd0d89d"]], err: [["sha1(null)", /must not be null/]] },
  sha512: { ok: [['substr(sha512("abc"), 0, 16)', "ddaf35a193617aba"]], err: [["sha512({})", /string is required, but got object/]] },
  md5: { ok: [['md5("abc")', "900150983cd24fb0d6963f7d28e17f72"]], err: [["md5([])", /string is required/]] },
  base64encode: { ok: [['base64encode("Hello, World!")', "SGVsbG8sIFdvcmxkIQ=="]], err: [["base64encode([])", /string is required/]] },
  base64decode: { ok: [['base64decode("SGVsbG8sIFdvcmxkIQ==")', "Hello, World!"]], err: [['base64decode("SGVsbG8")', /failed to decode base64 data/]] },
  urlencode: { ok: [['urlencode("a b&c=d/é")', "a+b%26c%3Dd%2F%C3%A9"]], err: [["urlencode(null)", /must not be null/]] },
  yamlencode: { ok: [['yamlencode({a = 1, b = ["x", true]})', "a: 1\nb:\n  - x\n  - true\n"]], err: [["yamlencode()", /Not enough function arguments/]] },
  yamldecode: { ok: [['yamldecode("a: 1\\nb: [x, true]")', { a: 1, b: ["x", true] }]], err: [['yamldecode("a: [")', /invalid YAML/]] },
  uuid: { ok: [["uuid()", expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)]], err: [["uuid(1)", /Too many function arguments/]] },
  timestamp: { ok: [["timestamp()", expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)]], err: [['timestamp("now")', /Too many function arguments/]] },
  startswith: { ok: [['startswith("hello", "he")', true], ['startswith("hello", "lo")', false]], err: [['startswith(null, "a")', /must not be null/]] },
  endswith: { ok: [['endswith("hello", "lo")', true], ['endswith("hello", "he")', false]], err: [['endswith("a", [1])', /string is required, but got list/]] },
  strrev: { ok: [['strrev("hello")', "olleh"]], err: [["strrev({})", /string is required/]] },

  // numeric
  abs: { ok: [["abs(-12.5)", 12.5], ["abs(3)", 3]], err: [['abs("x")', /number is required/]] },
  add: { ok: [["add(2, 3)", 5]], err: [["add(1, [2])", /number is required, but got list/]] },
  ceil: { ok: [["ceil(4.1)", 5], ["ceil(-4.9)", -4]], err: [['ceil("x")', /number is required/]] },
  divide: { ok: [["divide(9, 4)", 2.25]], err: [["divide(1, 0)", /cannot divide by zero/]] },
  floor: { ok: [["floor(4.9)", 4], ["floor(-4.1)", -5]], err: [["floor(null)", /must not be null/]] },
  int: { ok: [["int(-7.9)", -7], ['int("5.5")', 5]], err: [["int([1])", /number is required/]] },
  log: { ok: [["log(16, 2)", 4]], err: [['log("a", 2)', /number is required/]] },
  max: { ok: [["max(12, 54, 3)", 54]], err: [['max(1, "x")', /number is required/], ["max()", /Not enough function arguments/]] },
  min: { ok: [["min(12, 54, 3)", 3]], err: [['min("a")', /number is required/]] },
  modulo: { ok: [["modulo(10, 3)", 1]], err: [["modulo(1, 0)", /modulo with zero/]] },
  multiply: { ok: [["multiply(6, 7)", 42]], err: [["multiply(true, 2)", /number is required, but got bool/]] },
  negate: { ok: [["negate(5)", -5]], err: [["negate(true)", /number is required, but got bool/]] },
  parseint: { ok: [['parseint("100", 10)', 100], ['parseint("FF", 16)', 255]], err: [['parseint("12", 99)', /base must be a whole number between 2 and 62/]] },
  pow: { ok: [["pow(3, 2)", 9]], err: [["pow(null, 2)", /must not be null/]] },
  signum: { ok: [["signum(-13)", -1], ["signum(0)", 0], ["signum(344)", 1]], err: [["signum(null)", /must not be null/]] },
  subtract: { ok: [["subtract(10, 4)", 6]], err: [['subtract("a", 1)', /number is required/]] },

  // string
  chomp: { ok: [['chomp("hello\\n\\n")', "hello"]], err: [["chomp([1])", /string is required/]] },
  format: {
    ok: [
      ['format("Hello, %s!", "Ander")', "Hello, Ander!"],
      ['format("There are %d lights", 4)', "There are 4 lights"],
      ['format("%5d|%-5d|%05d", 42, 42, 42)', "   42|42   |00042"],
      ['format("%.2f %f", 3.14159, 1.5)', "3.14 1.500000"],
      ['format("%q %t %v", "hi", true, 1)', '"hi" true 1'],
      ['format("%v %#v", ["a", 1], "x")', '["a",1] "x"'],
      ['format("%x %X %o %b %%", 255, 255, 8, 5)', "ff FF 10 101 %"],
      ['format("%[2]s %[1]s", "a", "b")', "b a"],
    ],
    err: [['format("%d", "x")', /%d needs a whole number/], ['format("%s %s", "x")', /not enough values/]],
  },
  formatlist: { ok: [['formatlist("%s=%d", ["a", "b"], [1, 2])', ["a=1", "b=2"]]], err: [['formatlist("%s", ["a"], ["b", "c"])', /inconsistent with argument 1/]] },
  indent: { ok: [['indent(2, "a\\nb")', "a\n  b"]], err: [['indent(-1, "a")', /must not be negative/]] },
  join: { ok: [['join(", ", ["foo", "bar"], ["baz"])', "foo, bar, baz"]], err: [['join(",", "a")', /list is required/]] },
  lower: { ok: [['lower("HELLO Ä")', "hello ä"]], err: [["lower([])", /string is required/]] },
  replace: { ok: [['replace("1 + 2 + 3", "+", "-")', "1 - 2 - 3"], ['replace("hello world", "/w.*d/", "everybody")', "hello everybody"]], err: [['replace("a", "/(/", "b")', /invalid regular expression/]] },
  split: { ok: [['split(",", "foo,bar,baz")', ["foo", "bar", "baz"]]], err: [['split(",", null)', /must not be null/]] },
  strlen: { ok: [['strlen("héllo")', 5]], err: [["strlen([1])", /string is required/]] },
  substr: { ok: [['substr("hello world", 1, 4)', "ello"], ['substr("hello", -3, -1)', "llo"]], err: [['substr("abc", 9, 1)', /beyond the end/]] },
  title: { ok: [['title("hello world")', "Hello World"]], err: [["title(null)", /must not be null/]] },
  trim: { ok: [['trim("?!hello?!", "!?")', "hello"]], err: [['trim({}, "a")', /string is required/]] },
  trimprefix: { ok: [['trimprefix("helloworld", "hello")', "world"]], err: [['trimprefix("a", [1])', /string is required/]] },
  trimspace: { ok: [['trimspace("  hello\\n")', "hello"]], err: [["trimspace({})", /string is required/]] },
  trimsuffix: { ok: [['trimsuffix("helloworld", "world")', "hello"]], err: [['trimsuffix(null, "x")', /must not be null/]] },
  upper: { ok: [['upper("hello ä")', "HELLO Ä"]], err: [["upper([1])", /string is required/]] },

  // collection
  chunklist: { ok: [['chunklist(["a", "b", "c"], 2)', [["a", "b"], ["c"]]]], err: [["chunklist([1], -1)", /size argument must be positive/]] },
  coalesce: { ok: [['coalesce(null, "b", "c")', "b"], ["coalesce(null, 1)", 1]], err: [["coalesce(null, null)", /no non-null/]] },
  coalescelist: { ok: [['coalescelist([], ["c"])', ["c"]]], err: [['coalescelist("a")', /list is required/]] },
  compact: { ok: [['compact(["a", "", null, "b"])', ["a", "b"]]], err: [["compact([[1]])", /element 0 is a list/]] },
  concat: { ok: [['concat(["a"], ["b", "c"])', ["a", "b", "c"]]], err: [['concat(["a"], "b")', /list is required/]] },
  contains: { ok: [['contains(["a", "b"], "b")', true], ['contains(["a"], "z")', false]], err: [['contains("abc", "a")', /list is required/]] },
  csvdecode: { ok: [['csvdecode("a,b\\n1,2\\n")', [{ a: "1", b: "2" }]]], err: [['csvdecode("a,b\\n1,2,3")', /wrong number of fields/]] },
  distinct: { ok: [['distinct(["a", "b", "a", "c"])', ["a", "b", "c"]]], err: [['distinct("a")', /list is required/]] },
  element: { ok: [['element(["a", "b", "c"], 3)', "a"]], err: [["element([], 0)", /empty list/]] },
  flatten: { ok: [['flatten([["a", "b"], [], ["c", ["d"]]])', ["a", "b", "c", "d"]]], err: [['flatten("a")', /list is required/]] },
  index: { ok: [['index(["a", "b", "c"], 1)', "b"], ['index({a = 1, b = 2}, "b")', 2]], err: [["index([1, 2], 2)", /invalid index 2/], ['index({a = 1}, "z")', /no key "z"/]] },
  keys: { ok: [["keys({b = 1, a = 2})", ["a", "b"]]], err: [["keys([1])", /object or map is required, but got list/]] },
  length: { ok: [['length(["a", "b"])', 2], ["length({a = 1})", 1], ['length("héllo")', 5]], err: [["length(1)", /string, list or object is required/]] },
  lookup: { ok: [['lookup({a = "x"}, "a", "d")', "x"], ['lookup({a = "x"}, "b", "d")', "d"]], err: [['lookup({a = 1}, "z")', /no key "z"/]] },
  merge: { ok: [["merge({a = 1, b = 1}, {b = 2}, null)", { a: 1, b: 2 }]], err: [["merge({}, 1)", /object or map is required/]] },
  range: { ok: [["range(3)", [0, 1, 2]], ["range(1, 8, 3)", [1, 4, 7]], ["range(4, 1)", [4, 3, 2]]], err: [["range(0, 10, 0)", /step must not be zero/], ["range(5000)", /more than 1024/]] },
  regex: { ok: [['regex("[a-z]+", "53453453.345345aaabbbccc23454")', "aaabbbccc"], ['regex("(\\\\d+)-(\\\\d+)", "12-34")', ["12", "34"]], ['regex("(?P<y>\\\\d{4})", "in 2024")', { y: "2024" }]], err: [['regex("[a-z]+", "123")', /did not match/]] },
  regexall: { ok: [['regexall("[a-z]+", "1234abcd5678efgh9")', ["abcd", "efgh"]]], err: [['regexall("[", "x")', /missing closing ]/]] },
  regexreplace: { ok: [['regexreplace("2019-02-01", "(\\\\d+)-(\\\\d+)-(\\\\d+)", "$3/$2/$1")', "01/02/2019"]], err: [['regexreplace("x", "(", "y")', /invalid regular expression pattern/]] },
  reverse: { ok: [["reverse([1, 2, 3])", [3, 2, 1]], ['reverse("abc")', "cba"]], err: [["reverse(1)", /list is required/]] },
  reverselist: { ok: [['reverselist(["a", "b"])', ["b", "a"]]], err: [['reverselist("abc")', /list is required/]] },
  slice: { ok: [['slice(["a", "b", "c", "d"], 1, 3)', ["b", "c"]]], err: [['slice(["a"], 0, 5)', /end index 5 must be between 0 and 1/]] },
  sort: { ok: [['sort(["e", "d", "a", "x"])', ["a", "d", "e", "x"]]], err: [['sort(["a", null])', /element 1 is null/]] },
  values: { ok: [['values({b = "x", a = "y"})', ["y", "x"]]], err: [['values("a")', /object or map is required/]] },
  zipmap: { ok: [['zipmap(["a", "b"], [1, 2])', { a: 1, b: 2 }]], err: [['zipmap(["a"], [1, 2])', /number of keys \(1\) does not match number of values \(2\)/]] },

  // set
  sethaselement: { ok: [['sethaselement(["a", "b"], "a")', true], ['sethaselement(["a"], "c")', false]], err: [['sethaselement("a", "a")', /list is required/]] },
  setintersection: { ok: [['setintersection(["a", "b"], ["b", "c"], ["b", "d"])', ["b"]]], err: [['setintersection(["a"], 2)', /list is required/]] },
  setproduct: { ok: [['setproduct(["a", "b"], [1, 2])', [["a", 1], ["a", 2], ["b", 1], ["b", 2]]]], err: [['setproduct(["a"])', /Not enough function arguments/], ['setproduct(["a"], "b")', /list is required/]] },
  setsubtract: { ok: [['setsubtract(["a", "b", "c"], ["a", "c"])', ["b"]]], err: [['setsubtract("a", ["a"])', /list is required/]] },
  setsymmetricdifference: { ok: [['setsymmetricdifference(["a", "b"], ["b", "c"])', ["a", "c"]]], err: [['setsymmetricdifference(["a"], null)', /must not be null/]] },
  setunion: { ok: [['setunion(["a", "b"], ["b", "c"])', ["a", "b", "c"]]], err: [['setunion(["a"], "b")', /list is required/]] },

  // encoding
  byteslen: { ok: [['byteslen("héllo")', 6]], err: [["byteslen([1])", /string is required/]] },
  bytesslice: { ok: [['bytesslice("hello", 1, 3)', "ell"]], err: [['bytesslice("abc", 4, 1)', /greater than total buffer length/]] },
  jsondecode: { ok: [['jsondecode("{\\"a\\": [1, true, null]}")', { a: [1, true, null] }]], err: [['jsondecode("{")', /invalid JSON/]] },
  jsonencode: { ok: [['jsonencode({b = [1, "<x>"], a = true})', '{"a":true,"b":[1,"\\u003cx\\u003e"]}']], err: [["jsonencode(1, 2)", /Too many function arguments/]] },

  // logical
  and: { ok: [["and(true, false)", false], ["and(true, true)", true]], err: [['and(true, "yes")', /bool is required/]] },
  assertnotnull: { ok: [['assertnotnull("x")', "x"]], err: [["assertnotnull(null)", /must not be null/]] },
  equal: { ok: [["equal([1, {a = 2}], [1, {a = 2}])", true], ['equal(1, "1")', false]], err: [["equal(1)", /Not enough function arguments/]] },
  greaterthan: { ok: [["greaterthan(2, 1)", true]], err: [["greaterthan([1], 1)", /number is required/]] },
  greaterthanorequalto: { ok: [["greaterthanorequalto(1, 1)", true]], err: [['greaterthanorequalto("x", 1)', /number is required/]] },
  hasindex: { ok: [['hasindex(["a"], 0)', true], ['hasindex({a = 1}, "b")', false]], err: [['hasindex("abc", 1)', /list, a map or a tuple/]] },
  lessthan: { ok: [["lessthan(1, 2)", true]], err: [["lessthan(1, null)", /must not be null/]] },
  lessthanorequalto: { ok: [["lessthanorequalto(3, 2)", false]], err: [["lessthanorequalto({}, 1)", /number is required/]] },
  not: { ok: [["not(false)", true]], err: [["not(1)", /bool is required/]] },
  notequal: { ok: [['notequal("a", "b")', true]], err: [['notequal("a")', /Not enough function arguments/]] },
  or: { ok: [["or(false, true)", true]], err: [["or(null, true)", /must not be null/]] },

  // date and time
  formatdate: { ok: [['formatdate("DD MMM YYYY hh:mm ZZZ", "2018-01-02T23:12:01Z")', "02 Jan 2018 23:12 UTC"], ['formatdate("EEEE, h:mmaa", "2018-01-02T13:05:00-08:00")', "Tuesday, 13:05pm"]], err: [['formatdate("YYYY", "2018-01-02")', /not a valid RFC3339 timestamp/], ['formatdate("q", "2018-01-02T23:12:01Z")', /invalid date format verb/]] },
  timeadd: { ok: [['timeadd("2017-11-22T00:00:00Z", "1h30m")', "2017-11-22T01:30:00Z"], ['timeadd("2017-11-22T00:00:00Z", "-10m")', "2017-11-21T23:50:00Z"]], err: [['timeadd("2017-11-22T00:00:00Z", "1d")', /unknown unit "d"/]] },

  // files (relative to the temporary workflow directory)
  file: { ok: [['file("doc.md")', "---\ntitle: T\n---\nBody\n"]], err: [['file("../outside.txt")', /outside the workflow directory/], ['file("missing.txt")', /no file "missing\.txt"/]] },
  fileexists: { ok: [['fileexists("doc.md")', true], ['fileexists("dir")', false], ['fileexists("missing.txt")', false]], err: [['fileexists("../outside.txt")', /outside the workflow directory/]] },
  trimfrontmatter: { ok: [['trimfrontmatter(file("doc.md"))', "Body\n"], ['trimfrontmatter("plain")', "plain"]], err: [["trimfrontmatter([1])", /string is required/]] },
  templatefile: { ok: [['templatefile("t.tmpl", {name = "Ada", items = ["x", "y"]})', "Hi Ada: x,y,"]], err: [['templatefile("t.tmpl", {name = "Ada"})', /t\.tmpl:1:\d+: .*map has no entry for key "items"/], ['templatefile("t.tmpl", [1])', /vars must be an object or map, but got list/]] },
  fileset: { ok: [['fileset("dir", "*.md")', ["dir/a.md", "dir/b.md"]], ['fileset(".", "**/*.md")', ["dir/a.md", "dir/b.md", "dir/sub/c.md", "doc.md"]]], err: [['fileset("nope", "*")', /directory "nope" does not exist/], ['fileset("dir", "[a")', /invalid pattern/]] },
};

let base: string;
let root: string;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), "criteria-stdlib-"));
  root = join(base, "wf");
  mkdirSync(join(root, "dir", "sub"), { recursive: true });
  writeFileSync(join(root, "doc.md"), "---\ntitle: T\n---\nBody\n");
  writeFileSync(join(root, "t.tmpl"), '{{ "Hi" }} {{ .name }}: {{ range .items }}{{ . }},{{ end }}');
  writeFileSync(join(root, "dir", "a.md"), "a");
  writeFileSync(join(root, "dir", "b.md"), "b");
  writeFileSync(join(root, "dir", "notes.txt"), "n");
  writeFileSync(join(root, "dir", "sub", "c.md"), "c");
  writeFileSync(join(base, "outside.txt"), "outside");
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

function run(text: string) {
  return evaluate(parseOk(text), { variables: {}, functions: engineFunctions(root, {}) });
}

describe("the spec's function list", () => {
  test("every function has value and error cases here", () => {
    expect(Object.keys(CASES).sort()).toEqual([...ALL].sort());
    for (const [name, c] of Object.entries(CASES)) {
      expect(c.ok.length, name).toBeGreaterThan(0);
      expect(c.err.length, name).toBeGreaterThan(0);
      for (const [text] of [...c.ok, ...c.err]) expect(text, name).toContain(`${name}(`);
    }
  });

  test("every function is in makeFunctions() and functionDocs() with the same arity bounds", () => {
    const table = makeFunctions();
    const docs = new Map(functionDocs().map((d) => [d.name, d]));
    const names = new Set(functionNames());
    for (const name of ALL) {
      expect(table[name], name).toBeDefined();
      expect(names.has(name), name).toBe(true);
      const d = docs.get(name)!;
      expect([d.minArgs, d.maxArgs], name).toEqual([table[name].minArgs, table[name].maxArgs]);
      expect(d.minArgs, name).toBeLessThanOrEqual(d.maxArgs);
      expect(d.signature, name).toBe(`${name}(${table[name].params})`);
    }
  });

  test.each<[string, number, number]>([
    ["uuid", 0, 0], ["timestamp", 0, 0], ["sha256", 1, 1], ["yamlencode", 1, 1], ["startswith", 2, 2], ["strrev", 1, 1],
    ["max", 1, Infinity], ["min", 1, Infinity], ["parseint", 2, 2], ["log", 2, 2], ["format", 1, Infinity], ["formatlist", 1, Infinity],
    ["join", 2, Infinity], ["substr", 3, 3], ["coalesce", 1, Infinity], ["coalescelist", 1, Infinity], ["concat", 1, Infinity],
    ["lookup", 2, 3], ["merge", 0, Infinity], ["range", 1, 3], ["slice", 3, 3], ["setproduct", 2, Infinity], ["setunion", 1, Infinity],
    ["setintersection", 1, Infinity], ["setsubtract", 2, 2], ["setsymmetricdifference", 1, Infinity], ["bytesslice", 3, 3],
    ["hasindex", 2, 2], ["assertnotnull", 1, 1], ["formatdate", 2, 2], ["timeadd", 2, 2], ["file", 1, 1], ["fileexists", 1, 1],
    ["templatefile", 2, 2], ["fileset", 2, 2], ["trimfrontmatter", 1, 1],
  ])("%s takes %d to %d arguments", (name, min, max) => {
    const d = functionDocs().find((x) => x.name === name)!;
    expect([d.minArgs, d.maxArgs]).toEqual([min, max]);
  });
});

for (const category of Object.keys(SPEC) as (keyof typeof SPEC)[]) {
  describe(category, () => {
    const ok = SPEC[category].flatMap((n) => CASES[n]?.ok ?? []);
    const err = SPEC[category].flatMap((n) => CASES[n]?.err ?? []);
    test.each(ok)("%s", (text, expected) => {
      const r = run(text);
      expect(r.errors).toEqual([]);
      expect(r.value).toEqual(expected);
    });
    test.each(err)("%s fails", (text, message) => {
      const r = run(text);
      expect(r.value).toBeUndefined();
      expect(r.errors).toHaveLength(1);
      expect(r.errors[0].code).toBe("eval_error");
      expect(r.errors[0].message).toMatch(message);
    });
  });
}

describe("static evaluation has no file access", () => {
  test.each([['file("doc.md")'], ['fileexists("doc.md")'], ['fileset(".", "*")'], ['templatefile("t.tmpl", {})']])("%s is not available without hooks", (text) => {
    const r = evaluate(parseOk(text), { variables: {}, functions: makeFunctions() });
    expect(r.value).toBeUndefined();
    expect(r.errors[0].message).toMatch(/is not available in this context/);
  });
});

describe("non-deterministic functions", () => {
  test("uuid() differs between calls; timestamp() is now", () => {
    const a = run("[uuid(), uuid()]").value as Value[];
    expect(a[0]).not.toBe(a[1]);
    const t = Date.parse(run("timestamp()").value as string);
    expect(Math.abs(t - Date.now())).toBeLessThan(5000);
  });
});
