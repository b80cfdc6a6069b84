/**
 * engine/adapters/run-process.ts: a process that cannot start says why, in words a user acts on.
 */
import { describe, expect, it } from "vitest";
import { runProcess } from "../../../engine/adapters/run-process.js";

describe("runProcess: a process that cannot start", () => {
  it("an environment string over the system's limit says so, with what to do (found by a new-user trial: a 2 MB variable gave a bare spawn E2BIG)", async () => {
    const r = await runProcess({ file: "sh", args: ["-c", "true"], cwd: process.cwd(), env: { ...process.env, BIG: "x".repeat(200 * 1024) }, timeoutMs: 10_000, maxOutputBytes: 1024 });
    expect(r.end).toBe("spawn_error");
    expect(r.error).toBe('cannot start "sh": its command line or environment is larger than the system allows (E2BIG; one string at most 128 KiB on Linux): pass a large value through a file instead');
  });

  it("a missing executable is named", async () => {
    const r = await runProcess({ file: "no-such-tool-xyz", args: [], cwd: process.cwd(), env: process.env, timeoutMs: 10_000, maxOutputBytes: 1024 });
    expect(r.end).toBe("spawn_error");
    expect(r.error).toBe('executable "no-such-tool-xyz" not found');
  });
});
