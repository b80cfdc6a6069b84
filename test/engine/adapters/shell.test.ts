import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Session } from "../../../engine/adapters/adapter.js";
import { createShellAdapter, shellAdapter, takeOutcomeMarker } from "../../../engine/adapters/shell.js";
import { TailBuffer } from "../../../engine/adapters/tail-buffer.js";
import { context, isAlive, readPid, request, tempDir, waitFor } from "./helpers.js";

let dir: string;
beforeAll(() => {
  dir = tempDir("criteria-shell-");
  mkdirSync(join(dir, "sub"));
});

const open = (config: Record<string, never> | Record<string, unknown> = {}, opts = {}): Promise<Session> =>
  createShellAdapter(opts).open(config as never, context(dir));

describe("shell adapter: exit codes and output", () => {
  it("is effectful", () => {
    expect(shellAdapter.effectful).toBe(true);
    expect(shellAdapter.type).toBe("shell");
  });

  it("maps exit 0 to success with exit_code, stdout and stderr", async () => {
    const s = await open();
    const r = await s.execute(request({ input: { command: "echo hi; echo oops >&2" } }));
    expect(r).toEqual({
      outcome: "success",
      reason: "ok",
      output: { exit_code: 0, stdout: "hi\n", stderr: "oops\n", stdout_truncated: false, stderr_truncated: false },
    });
  });

  it("maps a non-zero exit to failure / adapter_failed with the stderr tail", async () => {
    const s = await open();
    const r = await s.execute(request({ input: { command: "echo 'no such thing' >&2; exit 3" } }));
    expect(r.outcome).toBe("failure");
    expect(r.reason).toBe("adapter_failed");
    expect(r.output.exit_code).toBe(3);
    expect(r.detail).toBe("exit code 3: no such thing");
  });

  it("reports a missing or non-string command as adapter_error", async () => {
    const s = await open();
    const missing = await s.execute(request({ input: {} }));
    expect(missing.reason).toBe("adapter_error");
    expect(missing.detail).toMatch(/input\.command is required/);
    expect((await s.execute(request({ input: { command: 42 } }))).reason).toBe("adapter_error");
    expect((await s.execute(request({ input: { command: "  " } }))).reason).toBe("adapter_error");
  });

  it("reports a bad config as adapter_error on execute", async () => {
    const s = await open({ env: "FOO=1" });
    const r = await s.execute(request({ input: { command: "true" } }));
    expect(r.reason).toBe("adapter_error");
    expect(r.detail).toMatch(/config\.env: expected a map of strings/);
    const t = await (await open({ timeout: "soon" })).execute(request({ input: { command: "true" } }));
    expect(t.detail).toMatch(/config\.timeout/);
  });

  it("uses the configured shell", async () => {
    const s = await open({ shell: "/bin/sh" });
    expect((await s.execute(request({ input: { command: "echo $0" } }))).output.stdout).toBe("/bin/sh\n");
    const bad = await (await open({ shell: "/no/such/shell" })).execute(request({ input: { command: "true" } }));
    expect(bad.reason).toBe("adapter_error");
    expect(bad.detail).toMatch(/not found/);
  });
});

describe("shell adapter: CRITERIA_OUTCOME marker", () => {
  it("takes the outcome from a trailing marker line and removes it from stdout", async () => {
    const s = await open();
    const r = await s.execute(request({ input: { command: "echo checked; echo CRITERIA_OUTCOME=needs_review" } }));
    expect(r.outcome).toBe("needs_review");
    expect(r.reason).toBe("ok");
    expect(r.output.stdout).toBe("checked\n");
  });

  it("ignores a marker that is not the last line, or when the exit code is not 0", async () => {
    const s = await open();
    const notLast = await s.execute(request({ input: { command: "echo CRITERIA_OUTCOME=a; echo more" } }));
    expect(notLast.outcome).toBe("success");
    expect(notLast.output.stdout).toBe("CRITERIA_OUTCOME=a\nmore\n");
    const failing = await s.execute(request({ input: { command: "echo CRITERIA_OUTCOME=approved; exit 1" } }));
    expect(failing.outcome).toBe("failure");
    expect(failing.reason).toBe("adapter_failed");
  });

  it("parses markers exactly", () => {
    expect(takeOutcomeMarker("CRITERIA_OUTCOME=x\n")).toEqual({ stdout: "", outcome: "x" });
    expect(takeOutcomeMarker("a\r\nCRITERIA_OUTCOME=ok-2\r\n\n")).toEqual({ stdout: "a\r\n", outcome: "ok-2" });
    expect(takeOutcomeMarker("CRITERIA_OUTCOME=has space\n").outcome).toBeUndefined();
    expect(takeOutcomeMarker("CRITERIA_OUTCOME=\n").outcome).toBeUndefined();
    expect(takeOutcomeMarker(" CRITERIA_OUTCOME=x").outcome).toBeUndefined();
  });

  it("gives adapter_failed when the marker chooses failure", async () => {
    const r = await (await open()).execute(request({ input: { command: "echo CRITERIA_OUTCOME=failure" } }));
    expect(r).toMatchObject({ outcome: "failure", reason: "adapter_failed" });
  });
});

describe("shell adapter: environment and working directory", () => {
  it("layers process env, config env, req.env and CRITERIA_* variables", async () => {
    const s = await open({ env: { FROM_CONFIG: "c", BOTH: "config", NUM: 7 } }, { baseEnv: { ...process.env, FROM_BASE: "b", BOTH: "base" } });
    const r = await s.execute(request({
      run_id: "run-42",
      step: "build",
      attempt: 3,
      idempotency_key: "abc123",
      env: { FROM_REQ: "r", BOTH: "req" },
      input: { command: 'printf "%s|" "$FROM_BASE" "$FROM_CONFIG" "$FROM_REQ" "$BOTH" "$NUM" "$CRITERIA_RUN_ID" "$CRITERIA_STEP" "$CRITERIA_ATTEMPT" "$CRITERIA_IDEMPOTENCY_KEY" "${CRITERIA_ITERATION_INDEX-unset}"' },
    }));
    expect(r.output.stdout).toBe("b|c|r|req|7|run-42|build|3|abc123|unset|");
  });

  it("sets iteration variables when the step runs for an item", async () => {
    const s = await open({}, { baseEnv: { ...process.env, CRITERIA_ITERATION_INDEX: "stale" } });
    const r = await s.execute(request({
      each: { index: 2, total: 5, key: "src/a.ts", value: { mode: "fix" } },
      input: { command: 'printf "%s|" "$CRITERIA_ITERATION_INDEX" "$CRITERIA_ITERATION_TOTAL" "$CRITERIA_EACH_KEY" "$CRITERIA_EACH_VALUE"' },
    }));
    expect(r.output.stdout).toBe('2|5|src/a.ts|{"mode":"fix"}|');
    const plain = await s.execute(request({ input: { command: 'printf "%s" "${CRITERIA_ITERATION_INDEX-unset}"' } }));
    expect(plain.output.stdout).toBe("unset");
  });

  it("runs in base_dir by default, in input.cwd (relative to base_dir) when given", async () => {
    const s = await open();
    expect((await s.execute(request({ input: { command: "pwd" } }))).output.stdout).toBe(`${dir}\n`);
    expect((await s.execute(request({ input: { command: "pwd", cwd: "sub" } }))).output.stdout).toBe(`${join(dir, "sub")}\n`);
    expect((await s.execute(request({ input: { command: "pwd", cwd: "/" } }))).output.stdout).toBe("/\n");
    const cfg = await open({ cwd: "sub" });
    expect((await cfg.execute(request({ input: { command: "pwd" } }))).output.stdout).toBe(`${join(dir, "sub")}\n`);
  });

  it("reports a missing working directory as adapter_error", async () => {
    const r = await (await open()).execute(request({ input: { command: "pwd", cwd: "nope" } }));
    expect(r.reason).toBe("adapter_error");
    expect(r.detail).toContain(`working directory ${join(dir, "nope")} does not exist`);
  });
});

describe("shell adapter: output cap", () => {
  it("keeps the tail of each stream and marks truncation", async () => {
    const s = await open({ max_output_bytes: 100 });
    const r = await s.execute(request({ input: { command: "i=0; while [ $i -lt 200 ]; do printf 'line %03d\\n' $i; i=$((i+1)); done; echo END; echo short >&2" } }));
    const out = r.output.stdout as string;
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(100);
    expect(out.endsWith("line 199\nEND\n")).toBe(true);
    expect(r.output.stdout_truncated).toBe(true);
    expect(r.output.stderr).toBe("short\n");
    expect(r.output.stderr_truncated).toBe(false);
  });

  it("defaults to 1 MiB per stream", async () => {
    const s = await open();
    const r = await s.execute(request({ input: { command: "head -c 1100000 /dev/zero | tr '\\0' x" } }));
    expect((r.output.stdout as string).length).toBe(1024 * 1024);
    expect(r.output.stdout_truncated).toBe(true);
  });

  it("never splits a UTF-8 character at the cut", () => {
    const b = new TailBuffer(5);
    b.write(Buffer.from("ééé")); // 6 bytes: the first é is cut in half
    expect(b.text()).toBe("éé");
    expect(b.truncated).toBe(true);
    expect(b.totalBytes).toBe(6);
  });
});

describe("shell adapter: timeout and cancellation", () => {
  it("kills the whole process group on timeout, grandchildren included", async () => {
    const pidFile = join(dir, "grandchild.pid");
    const s = await open();
    const started = Date.now();
    const r = await s.execute(request({ timeout_ms: 300, input: { command: `sleep 30 & echo $! > '${pidFile}'; wait` } }));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(r.outcome).toBe("failure");
    expect(r.reason).toBe("timeout");
    expect(r.detail).toMatch(/timed out after 300 ms/);
    const pid = await readPid(pidFile);
    expect(await waitFor(() => !isAlive(pid), 3000)).toBe(true);
  });

  it("uses config.timeout when the step has none", async () => {
    const r = await (await open({ timeout: "200ms" })).execute(request({ input: { command: "sleep 10" } }));
    expect(r.reason).toBe("timeout");
  });

  it("SIGKILLs a grandchild that ignores SIGTERM after the grace period", async () => {
    const pidFile = join(dir, "stubborn.pid");
    const s = await open({}, { killGraceMs: 300 });
    const r = await s.execute(request({
      timeout_ms: 200,
      input: { command: `(trap '' TERM; echo $$ >/dev/null; exec sleep 30) & echo $! > '${pidFile}'; wait` },
    }));
    expect(r.reason).toBe("timeout");
    const pid = await readPid(pidFile);
    expect(await waitFor(() => !isAlive(pid), 3000)).toBe(true);
  });

  it("kills the process group when req.signal aborts: reason cancelled", async () => {
    const pidFile = join(dir, "cancel.pid");
    const ctl = new AbortController();
    const s = await open();
    const p = s.execute(request({ signal: ctl.signal, input: { command: `echo partial; sleep 30 & echo $! > '${pidFile}'; wait` } }));
    const pid = await readPid(pidFile);
    ctl.abort();
    const r = await p;
    expect(r.reason).toBe("cancelled");
    expect(r.output.stdout).toBe("partial\n");
    expect(await waitFor(() => !isAlive(pid), 3000)).toBe(true);
  });

  it("does not start a command whose signal is already aborted", async () => {
    const marker = join(dir, "should-not-exist");
    const r = await (await open()).execute(request({ signal: AbortSignal.abort(), input: { command: `touch '${marker}'` } }));
    expect(r.reason).toBe("cancelled");
    expect(existsSync(marker)).toBe(false);
  });

  it("does not wait for a background process that outlives the command", async () => {
    const pidFile = join(dir, "daemon.pid");
    const s = await open();
    const started = Date.now();
    const r = await s.execute(request({ input: { command: `sleep 20 & echo $! > '${pidFile}'; echo started` } }));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(r).toMatchObject({ outcome: "success", output: { stdout: "started\n" } });
    const pid = await readPid(pidFile);
    process.kill(pid, "SIGKILL");
  });
});

describe("shell adapter: misc", () => {
  it("runs a script file relative to base_dir", async () => {
    writeFileSync(join(dir, "hello.sh"), "echo \"hello $1\"\n");
    const r = await (await open()).execute(request({ input: { command: "sh ./hello.sh world" } }));
    expect(r.output.stdout).toBe("hello world\n");
  });

  it("reports a signal-killed command with exit code 128+n", async () => {
    const r = await (await open()).execute(request({ input: { command: "kill -9 $$" } }));
    expect(r.outcome).toBe("failure");
    expect(r.output.exit_code).toBe(137);
    expect(r.detail).toMatch(/SIGKILL/);
  });
});

describe("shell adapter: the shell's program, started behind the start gate (start-gate.ts), as spawn found it (a trial of the gate)", () => {
  it("a shell named on a relative PATH entry, or an empty one, is found from the step's directory", async () => {
    const base = tempDir("criteria-shell-path-");
    mkdirSync(join(base, "bin"));
    writeFileSync(join(base, "bin", "mysh"), '#!/bin/sh\nexec /bin/sh "$@"\n', { mode: 0o755 });
    writeFileSync(join(base, "cwdsh"), '#!/bin/sh\nexec /bin/sh "$@"\n', { mode: 0o755 });
    for (const [shell, path] of [["mysh", "bin:/usr/bin:/bin"], ["cwdsh", ":/usr/bin:/bin"]]) {
      const s = await createShellAdapter().open({ shell, env: { PATH: path } } as never, context(base));
      const r = await s.execute(request({ input: { command: "echo found" } }));
      expect(r, shell).toMatchObject({ outcome: "success", output: { stdout: "found\n" } });
    }
  });

  it("a shell whose #! interpreter is missing cannot start: adapter_error, not the gate's exit 127", async () => {
    const base = tempDir("criteria-shell-bang-");
    writeFileSync(join(base, "badshebang"), "#!/nonexistent/interp\n", { mode: 0o755 });
    const s = await createShellAdapter().open({ shell: "./badshebang" } as never, context(base));
    const r = await s.execute(request({ input: { command: "echo x" } }));
    expect(r).toMatchObject({ outcome: "failure", reason: "adapter_error" });
    expect(r.detail).toMatch(/^shell: cannot start "\.\/badshebang": /);
    expect(r.detail).not.toMatch(/step-gate/);
  });
});
