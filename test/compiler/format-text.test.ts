/**
 * The text diagnostic's excerpt (compiler/diagnostics/format-text.ts): the `^~~~` under
 * the range sits where a terminal shows it, wide characters (CJK, emoji) taking two
 * columns and combining marks none (found by a new-user trial: carets fell short after
 * wide characters).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { diag } from "../../compiler/diagnostics/diagnostic.js";
import { formatGithub } from "../../compiler/diagnostics/format-github.js";
import { toJsonReport } from "../../compiler/diagnostics/format-json.js";
import { formatText } from "../../compiler/diagnostics/format-text.js";
import { SourceFile } from "../../compiler/diagnostics/source-file.js";
import { compile } from "../../compiler/index.js";

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

describe("control characters in a source", () => {
  // Found by a user trial: an ESC in a string on an erroneous line, or in a YAML key
  // echoed by unknown_field, reached the terminal as it was (the excerpt cleared the
  // screen and set the window's title; the message turned the rest red).
  const dir = mkdtempSync(join(tmpdir(), "criteria-controls-"));
  const hcl = join(dir, "esc.hcl");
  writeFileSync(
    hcl,
    'workflow "demo" {\n  version       = "1"\n  initial_state = "review"\n  target_state  = "done"\n}\n\nstep "review" {\n  target = adapter.shell.default\n  input { command = "\x1b[2J\x1b]0;pwned\x07 ${var.nope}" }\n  outcome "success" { next = "done" }\n}\n\nstate "done" { terminal = true }\n',
  );
  const yaml = join(dir, "esc.yaml");
  writeFileSync(yaml, 'workflow:\n  name: demo\n  version: "1"\n  initial_state: review\n  target_state: done\nagents:\n  rev:\n    adapter: copilot\n    "mo\\e[31mdle": x\n');

  /** The text output of `path`'s diagnostic `code`, and that diagnostic. */
  async function report(path: string, code: string) {
    const comp = await compile(path);
    const d = comp.diagnostics.find((x) => x.code === code);
    if (!d) throw new Error(`no ${code} in ${path}`);
    return { d, text: await formatText(d, comp.sources) };
  }

  it("shows them as control pictures in the excerpt, the caret still under the range", async () => {
    const { text } = await report(hcl, "unknown_reference");
    expect(text).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
    const [, , excerpt, caret] = text.split("\n");
    expect(excerpt).toBe('9 |   input { command = "\u241b[2J\u241b]0;pwned\u2407 ${var.nope}" }');
    expect(caret.indexOf("^")).toBe(excerpt.indexOf("var.nope"));
  });

  it("shows them so in the message; JSON keeps the exact string", async () => {
    const { d, text } = await report(yaml, "unknown_field");
    expect(text).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
    expect(text.split("\n")[0]).toContain('unknown field "mo\u241b[31mdle"');
    expect(text.split("\n")[2]).toBe('9 |     "mo\\e[31mdle": x');
    expect(toJsonReport([yaml], [d]).diagnostics[0].message).toContain('"mo\x1b[31mdle"');
  });

  it("a line feed in a name stays on the diagnostic's line, and a GitHub annotation carries no raw control character (found by a new-user trial: a next of \"d\\n::warning file=README.md,line=1::injected\" printed a line GitHub Actions runs as a command)", async () => {
    const nl = join(dir, "nl.hcl");
    writeFileSync(nl, 'workflow "x" {\n  version = "1"\n  initial_state = "a"\n  target_state = "done"\n}\nadapter "shell" "default" {}\nstep "a" {\n  target = adapter.shell.default\n  input { command = "echo \x1b[31mhi" }\n  outcome "success" { next = "d\\n::warning file=README.md,line=1::injected" }\n}\nstate "done" { terminal = true }\n');
    const comp = await compile(nl);
    const d = comp.diagnostics.find((x) => x.message.includes("::warning"));
    if (!d) throw new Error(`no diagnostic quoting the name: ${comp.diagnostics.map((x) => x.message).join("; ")}`);
    const text = await formatText(d, comp.sources);
    for (const line of text.split("\n")) expect(line.startsWith("::")).toBe(false);
    expect(text).toContain("d\u240a::warning");
    const yamlEsc = (await compile(yaml)).diagnostics.find((x) => x.code === "unknown_field")!;
    for (const x of [d, yamlEsc]) {
      const line = formatGithub(x);
      expect(line.split("\n")).toHaveLength(1);
      expect(line).not.toMatch(/[\x00-\x1f\x7f]/);
    }
  });
});
