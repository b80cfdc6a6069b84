/**
 * Type expressions (compiler/decode/types.ts): bare and quoted forms, and object
 * attributes written optional(T) or optional(T, default), as Terraform 1.3 and the
 * Go tool's variable types allow.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compile } from "../../compiler/index.js";
import { convert, mismatch, parseType, typeMismatchHint } from "../../compiler/decode/types.js";

describe("optional object attributes", () => {
  const t = parseType('object({ name = string, retries = optional(number, 3), tags = optional(list(string)), mode = optional(string, "fast lane") })').type!;

  it("parse, with spaces kept inside a default string", () => {
    expect(t).toEqual({
      kind: "object",
      fields: { name: { kind: "string" }, retries: { kind: "number" }, tags: { kind: "list", of: { kind: "string" } }, mode: { kind: "string" } },
      optional: { retries: { default: 3 }, tags: { default: null }, mode: { default: "fast lane" } },
    });
  });

  it("an absent optional attribute is no mismatch; an absent required one is", () => {
    expect(mismatch(t, { name: "x" })).toBeUndefined();
    expect(mismatch(t, { retries: 1 })).toBe('missing attribute "name"');
    expect(mismatch(t, { name: "x", retries: "many" })).toBe('"many" is not a number at .retries');
  });

  it("conversion fills defaults, converts leaves and drops undeclared attributes, at every depth", () => {
    expect(convert(parseType("list(number)").type!, ["1", "2"])).toEqual([1, 2]);
    expect(convert(parseType("object({ a = number })").type!, { a: "7", extra: 1 })).toEqual({ a: 7 });
    expect(convert(parseType("object({ inner = optional(object({ x = optional(bool, true) }), {}) })").type!, {})).toEqual({ inner: { x: true } });
    expect(convert(parseType("map(string)").type!, { a: 1, b: true })).toEqual({ a: "1", b: "true" });
    expect(convert(t, { name: "x" })).toEqual({ name: "x", retries: 3, tags: null, mode: "fast lane" });
    expect(convert(t, { name: "x", retries: 5, tags: ["a"] })).toEqual({ name: "x", retries: 5, tags: ["a"], mode: "fast lane" });
    const list = parseType("list(object({ a = optional(bool, true) }))").type!;
    expect(convert(list, [{}, { a: false }])).toEqual([{ a: true }, { a: false }]);
  });

  it("a default that does not fit its type, or is not a literal, is an error", () => {
    expect(parseType("object({ n = optional(number, \"x\") })").error).toMatch(/optional\(\.\.\.\) of "n": the default "x" is not a number/);
    expect(parseType("object({ n = optional(number, var.x) })").error).toMatch(/a default must be a literal value/);
    expect(parseType("object({ n = optional(number, 1 })").error).toMatch(/expected "\)" after optional/);
  });
});

describe("typeMismatchHint", () => {
  it('says "without quotes" only of a quoted value (a new-user trial: a list bound to a number was told to drop quotes)', () => {
    expect(typeMismatchHint("number", "3")).toBe("write a number without quotes, e.g. 3");
    expect(typeMismatchHint("number", [1, 2])).toBe("write a number, e.g. 3");
    expect(typeMismatchHint("${number}", { a: 1 })).toBe("write a number, e.g. 3");
    expect(typeMismatchHint("bool", "true")).toBe("write true or false without quotes");
    expect(typeMismatchHint("bool", 1)).toBe("write true or false");
    expect(typeMismatchHint("list(string)", "a")).toContain("write a list");
  });

  it("says \"without quotes\" only of a string written in quotes: not of a YAML plain scalar (a new-user trial: `default: two`)", async () => {
    expect(typeMismatchHint("number", "two", "two\n")).toBe("write a number, e.g. 3");
    expect(typeMismatchHint("number", "two", '"two"')).toBe("write a number without quotes, e.g. 3");
    expect(typeMismatchHint("bool", "nope", "'nope'")).toBe("write true or false without quotes");
    // Through the compiler, each dialect's file: the check reads where the literal is written.
    const dir = mkdtempSync(join(tmpdir(), "criteria-types-"));
    const head = "workflow:\n  name: w\n  initial_state: done\n  target_state: done\nstates:\n  done:\n    terminal: true\nvariables:\n  n:\n    type: number\n";
    const hints = async (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return (await compile(join(dir, name))).diagnostics.filter((d) => d.code === "invalid_type").map((d) => d.hint);
    };
    expect(await hints("plain.yaml", `${head}    default: two\n`)).toEqual(["write a number, e.g. 3"]);
    expect(await hints("quoted.yaml", `${head}    default: "two"\n`)).toEqual(["write a number without quotes, e.g. 3"]);
    expect(await hints("w.hcl", `workflow "w" {\n  version = "1"\n  initial_state = "done"\n  target_state = "done"\n}\nstate "done" { terminal = true }\nvariable "n" {\n  type = number\n  default = "two"\n}\n`)).toEqual(["write a number without quotes, e.g. 3"]);
  });
});
