/**
 * Input limits that need generated files (docs/language.md, Files and modules): a file over 4 MiB is
 * refused before it is read, a non-regular file (a FIFO) is refused without blocking,
 * and a large valid file just under the limit still compiles.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bigNoteFile } from "../../bench/generate.js";
import { compile } from "../../compiler/index.js";
import { MAX_FILE_BYTES, unreadableHint } from "../../compiler/load/read-source.js";

const dir = mkdtempSync(join(tmpdir(), "criteria-limits-"));
const repo = join(import.meta.dirname, "..", "..");

describe("input limits", () => {
  it("refuses a file over 4 MiB with file_too_large at 1:1", async () => {
    const f = join(dir, "huge.hcl");
    writeFileSync(f, `# ${"x".repeat(MAX_FILE_BYTES)}\n`);
    const c = await compile(f);
    expect(c.diagnostics.map((d) => [d.code, d.range.start.line, d.range.start.column])).toEqual([["file_too_large", 1, 1]]);
  });

  it("refuses a FIFO without blocking on it", async () => {
    const f = join(dir, "pipe.hcl");
    execFileSync("mkfifo", [f]);
    const c = await compile(f);
    expect(c.diagnostics.map((d) => d.code)).toEqual(["file_unreadable"]);
    expect(c.diagnostics[0].hint).toBe("name a workflow file (.hcl, .yaml, .json) or the directory of one");
  });

  it("a file that cannot be read says why, with what to check (found by a new-user trial: EACCES had no hint)", async () => {
    const loop = join(dir, "loop.hcl");
    symlinkSync(loop, loop);
    const c = await compile(loop);
    expect(c.diagnostics.map((d) => [d.code, d.hint])).toEqual([["file_unreadable", "point the symlink at the file itself (ls -l shows where it leads)"]]);
    expect(unreadableHint("EACCES")).toBe("this user may not read it: check the file's owner and mode (ls -l) and those of its directories");
    expect(unreadableHint("EISDIR")).toBe("name a file, not a directory");
    expect(unreadableHint(undefined)).toBe("check that the file exists and can be read (ls -l)");
  });

  it("compiles a valid 3 MiB file", async () => {
    const big = bigNoteFile(3 * 1024 * 1024);
    const f = join(dir, "big.hcl");
    writeFileSync(f, big.text);
    const c = await compile(f);
    expect(c.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(c.graph?.steps.length).toBe(big.steps);
  }, 60_000);

  it("a run of 100,000 ! is nesting_too_deep where it passes the limit (it overflowed the stack of hcl2json's runtime), and the next file still parses", async () => {
    const f = join(dir, "deep.hcl");
    writeFileSync(f, `workflow "d" {\n  version = "1"\n  initial_state = "a"\n  target_state = "done"\n}\nlocals {\n  v = ${"!".repeat(100_000)}true\n}\n`);
    const c = await compile(f);
    // Column 70: the 65th "!" (MAX_DEPTH is 64) after "  v = ".
    expect(c.diagnostics.map((d) => `${d.range.start.line}:${d.range.start.column} ${d.code}`)).toEqual(["7:70 nesting_too_deep"]);
    const ok = await compile(join(repo, "examples", "review_loop"));
    expect(ok.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  }, 60_000);

  it("1,200 levels of block-style YAML are nesting_too_deep at the 65th, not the parser's stack overflow (found by a trial of --input @file.yaml); 64 levels parse", async () => {
    const deep = (n: number) => ["workflow:", "  name: d", "  version: \"1\"", "x-deep:", ...Array.from({ length: n }, (_, i) => `${"  ".repeat(i + 1)}k${i}:`), `${"  ".repeat(n + 1)}v: 1`].join("\n") + "\n";
    const f = join(dir, "deep.yaml");
    writeFileSync(f, deep(1200));
    const c = await compile(f);
    // x-deep is level 1 (workflow's block closed), so its 64th key line (line 68) is level 65.
    expect(c.diagnostics.map((d) => `${d.range.start.line}:${d.range.start.column} ${d.code}`)).toEqual(["68:129 nesting_too_deep"]);
    writeFileSync(f, deep(62));
    expect((await compile(f)).diagnostics.filter((d) => d.code === "nesting_too_deep")).toEqual([]);
  });

  it("a line of 100,000 $ is one syntax error (it took minutes: each echo re-read the line)", async () => {
    const f = join(dir, "dollars.hcl");
    writeFileSync(f, `workflow {\n  name = "x"\n}\nlocals {\n  v = ${"$".repeat(100_000)}\n}\n`);
    const c = await compile(f);
    expect(c.diagnostics).toHaveLength(1);
    expect(c.diagnostics[0]).toMatchObject({ code: "syntax_error", range: { start: { line: 5 } } });
    expect(c.diagnostics[0].message).toMatch(/invalid character: "\$"/);
  }, 60_000);
});
