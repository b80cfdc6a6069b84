/**
 * The crash matrix's other kills (docs/architecture.md, The engine): a torn write-ahead log
 * (truncated mid-frame) is detected and resumed from the last whole entry; an attempt's
 * processes do not outlive a killed criteria.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, statSync, truncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { procStat } from "../../../engine/process-info.js";
import { bin, cli, final, lines, REFERENCES, referenceRun } from "./matrix.js";

const { workflow, lines: LINES } = REFERENCES[0];

describe("crash matrix: torn write", () => {
  let reference: { completed: unknown; count: number };
  beforeAll(async () => {
    reference = await referenceRun(workflow, LINES);
  }, 120_000);

  it("detects a torn write-ahead log and resumes from the last whole entry", async () => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-torn-"));
    const log = join(dir, "log.txt");
    const state = join(dir, "state");
    const kill = Math.floor(reference.count / 2);
    const first = cli(["apply", workflow, "--var", `log=${log}`, "--state-dir", state, "--run-id", "t", "--output", "json"], { CRITERIA_FAULT_KILL_AFTER_SEQ: String(kill) });
    expect(first.signal).toBe("SIGKILL");
    const wal = join(state, "journal.db-wal");
    const size = statSync(wal).size;
    // What the journal held before the tear (read from a copy: opening the original would checkpoint it).
    const copy = join(dir, "copy");
    cpSync(state, copy, { recursive: true });
    const whole = (await final(copy, "t")).entries;
    truncateSync(wal, size - 100); // cut the last frame short
    const again = cli(["resume", "t", "--state-dir", state, "--output", "json"]);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain("torn");
    const after = await final(state, "t");
    expect(after.completed).toEqual(reference.completed);
    // Nothing before the torn transaction is lost (the last transaction holds at most 3 entries).
    const prefix = whole.slice(0, whole.length - 3);
    expect(prefix.length).toBeGreaterThan(0);
    expect(after.entries.slice(0, prefix.length)).toEqual(prefix);
    for (const l of LINES) expect(lines(log)).toContain(l);
  }, 120_000);
});

describe("an attempt's processes do not outlive a killed criteria", () => {
  it("resume stops the orphaned process group before running the step again", async () => {
    const { spawn } = await import("node:child_process");
    const { writeFileSync, rmSync, readdirSync } = await import("node:fs");
    const dir = mkdtempSync(join(tmpdir(), "criteria-orphan-"));
    const log = join(dir, "log.txt");
    const flag = join(dir, "slow");
    writeFileSync(flag, "");
    writeFileSync(
      join(dir, "w.hcl"),
      `workflow "o" {
  version = "1"
  initial_state = "work"
  target_state = "done"
}
adapter "shell" "default" {}
step "work" {
  target = adapter.shell.default
  input { command = "echo start >> '${log}'; if [ -f '${flag}' ]; then sleep 30; fi; echo end >> '${log}'" }
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
`,
    );
    const state = join(dir, "state");
    const child = spawn(process.execPath, [bin, "apply", join(dir, "w.hcl"), "--state-dir", state, "--run-id", "o", "-o", "json"], { stdio: "ignore" });
    // Killed once the step runs and criteria has recorded its process (under load the shell may
    // write its line before criteria writes the record: found when the suite ran 3 files at once).
    const recorded = () => existsSync(join(state, "processes")) && readdirSync(join(state, "processes")).length > 0;
    for (let i = 0; i < 200 && !(lines(log).includes("start") && recorded()); i++) await new Promise((r) => setTimeout(r, 50));
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    const [pidFile] = readdirSync(join(state, "processes"));
    const orphan = Number(readFileSync(join(state, "processes", pidFile), "utf8").split(" ")[0]);
    expect(() => process.kill(orphan, 0)).not.toThrow(); // the sleep outlived criteria
    rmSync(flag);
    const again = cli(["resume", "o", "--state-dir", state, "-o", "json"]);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain("leftover processes were stopped");
    const state2 = procStat(orphan)?.state;
    expect(state2 === undefined || state2 === "Z", `orphan state ${state2}`).toBe(true); // gone (or dead, awaiting its reaper)
    expect(lines(log).filter((l) => l === "end")).toHaveLength(1);
  }, 60_000);
});
