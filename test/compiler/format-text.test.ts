/**
 * The text diagnostic's excerpt (compiler/diagnostics/format-text.ts): the `^~~~` under
 * the range sits where a terminal shows it, wide characters (CJK, emoji) taking two
 * columns and combining marks none (found by a new-user trial: carets fell short after
 * wide characters).
 */
import { describe, expect, it } from "vitest";
import { diag } from "../../compiler/diagnostics/diagnostic.js";
import { formatText } from "../../compiler/diagnostics/format-text.js";
import { SourceFile } from "../../compiler/diagnostics/source-file.js";

/** The excerpt's caret line for a diagnostic over `word` on the one line of `text`. */
async function caretUnder(text: string, word: string): Promise<{ pad: number; marks: string }> {
  const file = new SourceFile("w.hcl", text);
  const at = text.indexOf(word);
  const out = await formatText(diag("unknown_reference", file.range(at, at + word.length), "x"), new Map([["w.hcl", file]]));
  const lines = out.split("\n");
  const caret = lines[lines.length - 1];
  const bar = caret.indexOf("|");
  return { pad: caret.indexOf("^") - bar - 2, marks: caret.slice(caret.indexOf("^")) };
}

describe("the excerpt's caret", () => {
  it("counts terminal columns before and under the range", async () => {
    expect(await caretUnder('label = "ab ${var.x}"', "var.x")).toEqual({ pad: 14, marks: "^~~~~" });
    // 漢字 are two columns each; the range itself holds one.
    expect(await caretUnder('label = "漢字 ${var.x}"', "var.x")).toEqual({ pad: 16, marks: "^~~~~" });
    expect(await caretUnder('label = "x ${漢.y}"', "漢.y")).toEqual({ pad: 13, marks: "^~~~" });
    // e + U+0301 is one column; 🎉 two.
    expect(await caretUnder('label = "e\u0301🎉 ${var.x}"', "var.x")).toEqual({ pad: 15, marks: "^~~~~" });
  });
});

/** A lone UTF-16 surrogate: half of an emoji, printed as garbage. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The grapheme clusters of `s` (characters as the eye sees them). */
function clusters(s: string): string[] {
  return [...new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(s)].map((x) => x.segment);
}

describe("the excerpt of a long line", () => {
  // Found by a user trial: `criteria validate` of a step whose input string held 300
  // characters of 😀 printed half an emoji where the window around the column was cut.
  const line = (before: string, after: string) => `  input { command = "${before}\${var.nope}${after}" }`;

  it("is cut between characters, never inside an emoji, with the caret under the range", async () => {
    const stringWidth = (await import("string-width")).default;
    for (const shift of ["", "a", "ab"]) {
      for (const text of [
        line(shift + "😀x".repeat(100), ""), // the window's start falls among the emojis
        line("😀x".repeat(10), shift + "😀x".repeat(100)), // its end does
        line(shift + "👨‍👩‍👧".repeat(40), ""), // one character of five code points
      ]) {
        const file = new SourceFile("w.hcl", text);
        const at = text.indexOf("var.nope");
        const out = await formatText(diag("unknown_reference", file.range(at, at + 8), "x"), new Map([["w.hcl", file]]));
        expect(out).not.toMatch(LONE_SURROGATE);
        const [, , excerpt, caret] = out.split("\n");
        const shown = excerpt.slice(excerpt.indexOf("|") + 2);
        const whole = new Set(clusters(text));
        for (const c of clusters(shown.replace(/^…|…$/g, ""))) expect(whole).toContain(c);
        const pad = caret.indexOf("^") - caret.indexOf("|") - 2;
        expect(pad).toBe(stringWidth(shown.slice(0, shown.indexOf("var.nope"))));
        expect(caret.slice(caret.indexOf("^"))).toBe("^~~~~~~~");
      }
    }
  });
});
