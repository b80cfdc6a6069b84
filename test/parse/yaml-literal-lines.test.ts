/**
 * compiler/parse/parse-yaml.ts `literalLines`: where each line of a YAML literal block
 * scalar's value lies in the file, so positions inside its `${...}` are exact. Generated
 * block scalars (indentation, blank and more-indented lines, chomping, CRLF), parsed by
 * the YAML library itself: every offset given points at its line's characters.
 */
import fc from "fast-check";
import { isMap, isScalar, parseDocument } from "yaml";
import { describe, expect, it } from "vitest";
import { literalLines } from "../../compiler/parse/parse-yaml.js";

const line = fc.oneof(fc.constant(""), fc.stringMatching(/^[a-z ${}.]{1,12}[a-z}]$/));

describe("literalLines", () => {
  it("gives, for every line of the value, the offset of its characters in the file", () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 6 }), fc.constantFrom("", "-", "+"), fc.boolean(), (lines, indent, chomp, crlf) => {
        fc.pre(lines.some((l) => l !== "") && !lines[0].startsWith(" "));
        const pad = " ".repeat(indent);
        const nl = crlf ? "\r\n" : "\n";
        const text = `key: |${chomp}${nl}${lines.map((l) => (l === "" ? "" : pad + l)).join(nl)}${nl}`;
        const doc = parseDocument(text);
        const node = isMap(doc.contents) ? doc.contents.items[0].value : undefined;
        if (!isScalar(node) || typeof node.value !== "string" || !node.range) return;
        const value = node.value;
        const got = literalLines(text, node.range[0], value);
        expect(got, JSON.stringify(text)).toBeDefined();
        value.split("\n").forEach((l, i) => {
          if (got && i < got.length) expect(text.slice(got[i], got[i] + l.length), `${JSON.stringify(text)} line ${i}`).toBe(l);
        });
      }),
      { numRuns: 500, seed: 20261201 },
    );
  });

  it("refuses what it cannot map: a value that is not its lines less one indentation", () => {
    expect(literalLines("k: |\n  a\n  b\n", 3, "a\nc\n")).toBeUndefined();
    expect(literalLines("k: |\n  a\n b\n", 3, "a\nb\n")).toBeUndefined();
    expect(literalLines("k: |", 3, "a")).toBeUndefined();
    expect(literalLines("k: |\n  a\n   b\n", 3, "a\n b\n")).toEqual([7, 11]);
  });
});
