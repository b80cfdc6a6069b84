/**
 * compiler/parse/scalar-offsets.ts `scalarOffsets`: where each character of a YAML/JSON
 * string scalar's value is written, in every scalar style (plain, single- and
 * double-quoted, literal and folded blocks). Generated values written by the `yaml`
 * package itself in each style (narrow lines force folding; escapes, `''`, indentation
 * indicators, chomping), with LF or CRLF, parsed back: every character the scan places
 * stands at its place (an escape at its backslash, a fold at a line's end), and every
 * `${` of the value is a `${` in the file.
 */
import fc from "fast-check";
import { isMap, isScalar, parseDocument, Scalar, stringify } from "yaml";
import { describe, expect, it } from "vitest";
import { scalarOffsets } from "../../compiler/parse/scalar-offsets.js";

const STYLES = ["PLAIN", "QUOTE_SINGLE", "QUOTE_DOUBLE", "BLOCK_LITERAL", "BLOCK_FOLDED"] as const;
const piece = fc.constantFrom("a", "b", "z", " ", "  ", "\n", "\n\n", "\t", "${var.x}", "%{ if a }", "'", '"', "\\", "é", "🎉", "e\u0301", ":", "#", "  indented");

/** The scalar `key: <value>` (nested `depth` maps deep) as the yaml package writes it in `style`, and the parsed node. */
function written(value: string, style: (typeof STYLES)[number], depth: number, crlf: boolean) {
  const s = new Scalar(value);
  s.type = style;
  let doc: unknown = s;
  for (let i = 0; i < depth; i++) doc = { [`k${i}`]: doc };
  let text = stringify({ key: doc }, { lineWidth: 24, minContentWidth: 8 });
  if (crlf) text = text.replace(/\n/g, "\r\n");
  const parsed = parseDocument(text);
  let node: unknown = parsed.contents;
  for (let i = 0; i <= depth; i++) node = isMap(node) ? node.items[0].value : undefined;
  return { text, node: isScalar(node) ? node : undefined };
}

describe("scalarOffsets", () => {
  it("places every character of the value, in every style, as the yaml package writes it", () => {
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 14 }), fc.constantFrom(...STYLES), fc.integer({ min: 0, max: 2 }), fc.boolean(), (pieces, style, depth, crlf) => {
        const { text, node } = written(pieces.join(""), style, depth, crlf);
        if (!node || typeof node.value !== "string" || !node.range || !node.type) return;
        const value = node.value;
        // Only white space: it holds no template (and a block of it is not scanned).
        if (!/\S/.test(value)) return;
        const got = scalarOffsets(text, node.type, node.range[0], node.range[1], value);
        const what = `${node.type} ${JSON.stringify(text)}`;
        expect(got, what).toBeDefined();
        if (!got) return;
        expect(got.length, what).toBe(value.length + 1);
        for (let i = 0; i < value.length; i++) {
          const at = got[i];
          expect(at >= node.range[0] && at <= got[i + 1] && got[i + 1] <= node.range[1], `${what} at ${i}`).toBe(true);
          const c = value[i];
          // A character stands where it is said to, unless it is an escape's, a fold's or a line break's.
          const ok = text[at] === c || text[at] === "\\" || ((c === " " || c === "\n") && /\s/.test(text[at] ?? ""));
          expect(ok, `${what}: ${JSON.stringify(c)} at ${i} is ${JSON.stringify(text[at])}`).toBe(true);
          if (value.startsWith("${", i)) expect(text.slice(at, at + 2), `${what} at ${i}`).toBe("${");
        }
      }),
      { numRuns: 1500, seed: 20261201 },
    );
  });

  it("places the trial's strings at their characters", () => {
    const place = (yaml: string, find: string) => {
      const doc = parseDocument(yaml);
      const node = isMap(doc.contents) ? doc.contents.items[0].value : undefined;
      if (!isScalar(node) || typeof node.value !== "string" || !node.range || !node.type) throw new Error("not a scalar");
      const got = scalarOffsets(yaml, node.type, node.range[0], node.range[1], node.value);
      const i = node.value.indexOf(find);
      return got ? [got[i], got[i + find.length]] : undefined;
    };
    const at = (yaml: string, find: string) => [yaml.indexOf(find), yaml.indexOf(find) + find.length];
    for (const yaml of [
      'command: "echo \\t\\u00e9 \\"q\\" ${var.woh}"\n',
      "command: >-\n  echo one\n  hello ${var.woh}\n",
      "command: echo one\n  two ${var.woh}\n",
      'command: "echo one\n  two ${var.woh}"\n',
      "command: 'echo it''s ${var.woh}'\n",
      "command: |2-\n    echo one\n   hello ${var.woh}\n",
      '{ "command": "echo \\"hi\\" ${var.woh}" }',
    ]) {
      expect(place(yaml, "var.woh"), yaml).toEqual(at(yaml, "var.woh"));
    }
  });

  it("refuses what it cannot retrace: a value its source does not give", () => {
    expect(scalarOffsets("k: |\n  a\n  b\n", "BLOCK_LITERAL", 3, 12, "a\nc\n")).toBeUndefined();
    expect(scalarOffsets('k: "a\\tb"', "QUOTE_DOUBLE", 3, 9, "a b")).toBeUndefined();
    expect(scalarOffsets("k: a", "ALIAS", 3, 4, "a")).toBeUndefined();
    expect(scalarOffsets('k: "a\\tb"', "QUOTE_DOUBLE", 3, 9, "a\tb")).toEqual([4, 5, 7, 8]);
  });
});
