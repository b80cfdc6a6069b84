/**
 * The commands criteria suggests work as printed: with a --state-dir of the user's own, each
 * names it (found by a new-user trial: copied without it, they found "no run"). Each message
 * is triggered, its command taken from it word for word, and run.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, damage, entries, start, temp, until } from "./helpers.js";

/** A step, then an approval: a foreground apply waits there, a parked one (CI) stops there. */
const GATED = `workflow {\n  name = "gated"\n  initial_state = "one"\n  target_state = "done"\n}\nadapter "shell" "default" {}\nstep "one" {\n  target = adapter.shell.default\n  input { command = "echo out1" }\n  outcome "success" { next = approval.gate }\n}\napproval "gate" {\n  approvers = ["ops"]\n  outcome "approved" { next = state.done }\n  outcome "rejected" { next = state.done }\n}\nstate "done" { terminal = true }\n`;

/**
 * The `criteria VERB …` command `text` suggests that names `--state-dir state`, as arguments;
 * fails when there is none.
 */
function suggested(text: string, verb: string, state: string): string[] {
  const escaped = state.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  const m = text.match(new RegExp(`criteria (${verb} [^(),]*?--state-dir ${escaped}(?: --[a-z-]+)*)`));
  expect(m, `no "criteria ${verb} … --state-dir ${state}" in: ${text}`).not.toBeNull();
  return m![1].split(" ");
}

describe("suggested commands name the --state-dir given", () => {
  it("a foreground apply waiting at an approval suggests an approve that reaches it; resume of the ended run suggests a journal that shows it", async () => {
    const dir = temp();
    const wf = join(dir, "w.hcl");
    writeFileSync(wf, GATED);
    const state = join(dir, "state");
    const apply = start(["apply", wf, "--state-dir", state, "--run-id", "r", "--wait", "-o", "text"]);
    let out = "";
    apply.stdout.on("data", (b: Buffer) => (out += b.toString()));
    const exited = new Promise<number | null>((r) => apply.on("exit", (code) => r(code)));
    try {
      await until(() => out.includes("waiting for approval"));
      // Two whole commands, not "approve|reject" (a shell pipe when pasted: a new-user trial).
      expect(suggested(out, "reject", state).slice(0, 3)).toEqual(["reject", "r", "gate"]);
      const approve = suggested(out, "approve", state);
      expect(approve.slice(0, 3)).toEqual(["approve", "r", "gate"]);
      const given = cli(approve);
      expect(given.status, given.stderr).toBe(0);
      expect(await exited).toBe(0);
    } finally {
      if (apply.exitCode === null) process.kill(-apply.pid!, "SIGKILL");
    }
    // The run has ended: resume says so, and where to read it.
    const ended = cli(["resume", "r", "--state-dir", state]);
    expect(ended.status).toBe(0);
    const journal = cli(suggested(ended.stdout, "journal", state));
    expect(journal.status, journal.stderr).toBe(0);
    expect(journal.stdout).toContain("run.completed");
    // A run id the journal does not have: the listing it suggests is of this journal.
    const none = cli(["journal", "nope", "--state-dir", state]);
    expect(none.status).toBe(1);
    const runs = cli(suggested(none.stderr, "runs", state));
    expect(runs.status, runs.stderr).toBe(0);
    expect(runs.stdout).toMatch(/^r\s+succeeded/m);
  }, 60_000);

  it("a damaged journal: journal and resume suggest a resume --discard-damaged that goes past the damage", async () => {
    const dir = temp();
    const wf = join(dir, "w.hcl");
    writeFileSync(wf, GATED);
    const state = join(dir, "state");
    expect(cli(["apply", wf, "--state-dir", state, "--run-id", "r"], { env: { CI: "true" } }).status).toBe(5);
    damage(state, "entry_type = 'step.completed'", "out1", "EVIL");
    const journal = cli(["journal", "r", "--state-dir", state]);
    expect(journal.status).toBe(1);
    const refused = cli(["resume", "r", "--state-dir", state]);
    expect(refused.status).toBe(1);
    const fromJournal = suggested(journal.stderr, "resume", state);
    expect(suggested(refused.stderr, "resume", state)).toEqual(fromJournal);
    expect(fromJournal).toEqual(["resume", "r", "--state-dir", state, "--discard-damaged"]);
    // Followed: the damage is set aside, step one runs again, and the run parks at its approval again.
    const past = cli(fromJournal, { env: { CI: "true" } });
    expect(past.status, past.stderr).toBe(5);
    expect((await entries(state, "r")).some((e) => e.entry_type === "run.damage_discarded")).toBe(true);
    expect(cli(["journal", "r", "--state-dir", state]).status).toBe(0);
  }, 60_000);
});
