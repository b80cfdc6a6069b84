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
