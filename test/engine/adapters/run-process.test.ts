/**
 * engine/adapters/run-process.ts: a process that cannot start says why, in words a user acts on.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { runProcess } from "../../../engine/adapters/run-process.js";

const repo = join(import.meta.dirname, "..", "..", "..");

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

describe("runProcess: a criteria killed as it starts a step's process", () => {
  // Killed between spawn() and the listing of the group with the watcher (a new-user trial:
  // with 1,000 parallel items, half the kills left one step's process running, unlisted,
  // unrecorded, whose effect then ran again beside the resumed run's). A real process,
  // SIGKILLed by a spawn hook right after the step's spawn returns, on the built engine.
  // A POSIX shell's -c command reads the gate's line itself; any other program is started by a gate shell.
  it.skipIf(process.platform === "win32").each([
    ["a shell command", (marker: string) => ({ file: "/bin/sh", args: ["-c", `sleep 0.3; echo ran > ${marker}`] })],
    ["another program", (marker: string) => ({ file: process.execPath, args: ["-e", `setTimeout(() => require("fs").writeFileSync(${JSON.stringify(marker)}, "ran"), 300)`] })],
  ])("its program never starts (%s): the start gate reads end of file", async (_what, command) => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-gate-"));
    const marker = join(dir, "ran");
    const { file, args } = command(marker);
    const script = join(dir, "kill-after-spawn.mjs");
    writeFileSync(
      script,
      `import cp from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
const spawn = cp.spawn;
cp.spawn = (...a) => {
  const child = spawn(...a);
  if (!String(a[1]?.[1] ?? "").includes("group watcher")) process.kill(process.pid, "SIGKILL");
  return child;
};
syncBuiltinESMExports();
const { runProcess } = await import(${JSON.stringify(pathToFileURL(join(repo, "dist", "engine", "adapters", "run-process.js")).href)});
await runProcess({ file: ${JSON.stringify(file)}, args: ${JSON.stringify(args)}, cwd: ${JSON.stringify(dir)}, env: process.env, maxOutputBytes: 1024 });
`,
    );
    const killed = await new Promise<string | null>((resolve) => spawn(process.execPath, [script], { stdio: "ignore" }).once("exit", (_c, signal) => resolve(signal)));
    expect(killed).toBe("SIGKILL");
    await new Promise((r) => setTimeout(r, 1500));
    expect(existsSync(marker)).toBe(false);
  });
});

describe("runProcess: out of file descriptors", () => {
  // A real criteria under a low ulimit -n: 100 parallel steps exhaust 128 descriptors (a
  // new-user trial: EMFILE was an "Unhandled 'error' event" that crashed criteria, the run left active).
  it.skipIf(process.platform === "win32")("the steps that cannot start fail with EMFILE said, and the run goes on to its end", () => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-emfile-"));
    writeFileSync(
      join(dir, "w.hcl"),
      `workflow "w" {\n  version = "1"\n  initial_state = "each"\n  target_state = "done"\n}\nadapter "shell" "y" {}\nstep "each" {\n  target = adapter.shell.y\n  parallel = 100\n  parallel_max = 100\n  input { command = "sleep 1" }\n  outcome "all_succeeded" { next = "done" }\n  outcome "any_failed" { next = "done" }\n}\nstate "done" { terminal = true }\n`,
    );
    const r = spawnSync("/bin/sh", ["-c", `ulimit -n 128 && exec "$0" "$@"`, process.execPath, join(repo, "bin", "criteria"), "apply", join(dir, "w.hcl"), "--state-dir", join(dir, "st"), "-o", "json"], { encoding: "utf8", env: { ...process.env, CI: "" } });
    expect(r.stderr).not.toMatch(/Unhandled|at .*\.js:\d+/);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/cannot start \\"\/bin\/sh\\": too many open files \(EMFILE\): raise the limit \(ulimit -n\) or run fewer steps at once \(parallel_max\)/);
    expect(r.stdout).toMatch(/"event":"run.completed"[^\n]*"state":"done"/);
  });
});
