/**
 * schema/workflow.schema.json (docs/language.md, Files and modules): a valid draft-07 schema that ajv
 * compiles in strict mode, that every YAML/JSON example validates against directly
 * (as an editor using it would), and that fails closed on unknown fields.
 */
import { Ajv } from "ajv";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { extname, join } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "..");
const schema = JSON.parse(readFileSync(join(repo, "schema", "workflow.schema.json"), "utf8"));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) return n === "scripts" || n === "adapters" ? [] : files(p);
    return [".yaml", ".yml", ".json"].includes(extname(n)) && n !== "package.json" ? [p] : [];
  });
}

describe("workflow.schema.json", () => {
  const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false });
  // The editor keywords of yaml-language-server (VS Code's JSON schemas use the same): a
  // pattern's message, and what completion inserts. Ajv knows no others.
  ajv.addKeyword({ keyword: "patternErrorMessage", schemaType: "string" });
  ajv.addKeyword({ keyword: "defaultSnippets", schemaType: "array" });
  const validate = ajv.compile(schema);

  it("is draft-07 and closed at the top", () => {
    expect(schema.$schema).toBe("http://json-schema.org/draft-07/schema#");
    expect(schema.additionalProperties).toBe(false);
  });

  const examples = files(join(repo, "examples"));
  it("there are YAML and JSON examples", () => {
    expect(examples.some((f) => f.endsWith(".yaml"))).toBe(true);
    expect(examples.some((f) => f.endsWith(".json"))).toBe(true);
  });
  for (const f of examples) {
    it(`${f.slice(repo.length + 1)} validates`, () => {
      const ok = validate(parse(readFileSync(f, "utf8")));
      expect(validate.errors ?? []).toEqual([]);
      expect(ok).toBe(true);
    });
  }

  it("rejects unknown fields at every level", () => {
    const base = { workflow: { name: "w", initial_state: "a" }, steps: { a: { adapter: "noop", outcomes: { success: "done" } } }, states: { done: { terminal: true } } };
    expect(validate(base)).toBe(true);
    expect(validate({ ...base, stepz: {} })).toBe(false);
    expect(validate({ ...base, steps: { a: { adapter: "noop", outcome: {} } } })).toBe(false);
    expect(validate({ ...base, states: { done: { terminal: "yes" } } })).toBe(false);
  });
});
