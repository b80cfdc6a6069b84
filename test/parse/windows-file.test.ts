/**
 * A workflow saved on Windows (CRLF line endings and a UTF-8 BOM) runs: its heredoc
 * reaches the shell without "\r" (with hcl2json, `set -eu\r` made the shell step die with
 * `set: Illegal option -`). A real process, a real journal.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { apply, repo } from "../language/helpers.js";

describe("a Windows-saved HCL file", () => {
  it("CRLF + BOM + a heredoc with set -eu: the shell step succeeds", async () => {
    const r = await apply(join(repo, "testdata", "windows", "crlf_bom.hcl"));
    expect(r.status, r.stderr).toBe(0);
    expect(r.completed).toMatchObject({ success: true, state: "done" });
    const build = r.entries.find((e) => e.entry_type === "step.completed" && e.step_id === "build");
    expect((build?.payload as unknown as { output: { stdout: string; stderr: string } }).output).toMatchObject({ stdout: expect.stringMatching(/^built on /), stderr: "" });
  });
});
