/**
 * The timeline page against what a new-user trial broke it with (each input is the
 * trial's, or the smallest that shows the same): a journal of 140,000 entries, an instant
 * no date can show, payloads a damaged or hand-made entry carries, the wrong step blamed,
 * a damaged journal drawn as if complete, a killed or parked run drawn as running, a crash
 * drawn as one long attempt, a parent lane empty while its body waits, timeout colours,
 * round ticks, a thousand items, and `-o` disagreeing with `--format`.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderEntry } from "../../cli/render-events.js";
import { timelineHtml } from "../../cli/timeline/html.js";
import { buildTimeline } from "../../cli/timeline/model.js";
import type { EntryType, JournalEntry } from "../../engine/journal/entry.js";
import { cli, entries, start, temp, until } from "../pipeline/helpers.js";

/** A journal entry made by hand (seq and time given). */
function entry(seq: number, at_ms: number, entry_type: EntryType, step_id: string, payload: unknown, run_id = "r", attempt = 0): JournalEntry {
  return { seq, at_ms, entry_type, step_id, attempt, run_id, payload } as JournalEntry;
}

const spawn = (at = 0) => entry(1, at, "run.spawned", "", { workflow: "w", spec_hash: "x", inputs: {} });

describe("the timeline model, on what the trial fed it", () => {
  it("draws a journal of 140,000 entries (a spread of its times overflowed the stack)", () => {
    const many: JournalEntry[] = [spawn()];
    for (let i = 0; i < 70_000; i++) {
      many.push(entry(2 * i + 2, i, "iteration.completed", "loop", { visit: 1, index: i, outcome: "success", success: true, output: {}, reason: "ok" }));
      many.push(entry(2 * i + 3, i, "effect.confirmed", "loop", { idempotency_key: `k${i}`, visit: 1, outcome: "success", output: {}, reason: "ok" }));
    }
    const t = buildTimeline(many, "r")!;
    expect(t.end_ms).toBe(69_999);
    // One mark for the items, not 70,000.
    expect(t.lanes[0].marks.filter((m) => m.kind === "iteration")).toEqual([]);
    expect(t.lanes[0].marks.find((m) => m.kind === "items")?.label).toBe("70000 items");
    expect(timelineHtml(t).length).toBeLessThan(100_000 + 140_003 * 200);
  });

  it("shows failed items beside the count when there are many", () => {
    const list: JournalEntry[] = [spawn()];
    for (let i = 0; i < 40; i++) list.push(entry(i + 2, i, "iteration.completed", "loop", { visit: 1, index: i, outcome: i % 10 === 3 ? "failure" : "success", success: i % 10 !== 3, output: {}, reason: "ok" }));
    const marks = buildTimeline(list, "r")!.lanes[0].marks;
    expect(marks.map((m) => m.label)).toEqual(["40 items, 4 failed", "[3] failure", "[13] failure", "[23] failure", "[33] failure"]);
  });

  it("shows an instant no date can show, and payloads that are not what the type says, without failing", () => {
    const odd = [
      spawn(),
      entry(2, 1, "wait.started", "w", { visit: 1, until_ms: 3.6e16 }),
      entry(3, 2, "step.completed", "a", {}),
      entry(4, 3, "step.completed", "b", { visit: 1, outcome: "x", next: "y", reason: "eval_error", detail: { not: "text" } }),
      entry(5, 4, "approval.requested", "g", null),
      entry(6, 5, "effect.recorded", "c", { kind: "recv", recv: "nonsense" }),
      entry(7, 6, "run.completed", "", { state: "y", success: false, reason: "eval_error", detail: 7 }),
    ];
    const t = buildTimeline(odd, "r")!;
    const page = timelineHtml(t);
    expect(page).toContain("36000000000000000 ms since the epoch");
    expect(t.failure).toMatchObject({ step: "b", reason: "eval_error", detail: '{"not":"text"}' });
    // The text timeline too (a null payload failed it).
    for (const e of odd) expect(renderEntry(e, 0)).toContain(e.entry_type);
  });

  it("names the step the run failed with, not an earlier one whose failure was routed on", () => {
    const t = buildTimeline(
      [
        spawn(),
        entry(2, 1, "step.completed", "flaky", { visit: 1, outcome: "failure", next: "fallback", reason: "adapter_failed", detail: "exit code 1" }),
        entry(3, 2, "step.completed", "fallback", { visit: 1, outcome: "", next: "", reason: "eval_error", detail: "found/wrong_cause.hcl:21:21: no value" }),
        entry(4, 3, "run.completed", "", { state: "", success: false, reason: "eval_error", detail: "found/wrong_cause.hcl:21:21: no value", outputs: {} }),
      ],
      "r",
    )!;
    expect(t.failure).toMatchObject({ step: "fallback", reason: "eval_error", at: "found/wrong_cause.hcl:21:21" });
    // A run that succeeded although a step failed (and was routed on) raises no alarm.
    const ok = buildTimeline(
      [spawn(), entry(2, 1, "step.completed", "flaky", { visit: 1, outcome: "failure", next: "done", reason: "adapter_failed", detail: "exit code 1" }), entry(3, 2, "run.completed", "", { state: "done", success: true, reason: "ok", outputs: {} })],
      "r",
    )!;
    expect(ok.failure).toBeUndefined();
    expect(timelineHtml(ok)).not.toContain('role="alert"');
  });

  it("colours a wait that timed out as a timeout, like an approval that did", () => {
    const t = buildTimeline(
      [
        spawn(),
        entry(2, 1, "wait.started", "ready", { visit: 1, signal: "go" }),
        entry(3, 2, "wait.completed", "ready", { visit: 1, outcome: "timeout", next: "gate" }),
        entry(4, 3, "approval.requested", "gate", { visit: 1, approvers: [] }),
        entry(5, 4, "approval.decided", "gate", { visit: 1, decision: "timeout", outcome: "timeout", next: "done" }),
      ],
      "r",
    )!;
    expect(t.lanes[0].spans.map((s) => [s.label, s.tone])).toEqual([
      ["ready", "warn"],
      ["gate", "warn"],
    ]);
  });

  it("puts a mark's label to its left wherever it would run past the right edge, and clips the marks' row (a 35-character label at 75% made a page 13 px wider than its 1024 px window)", () => {
    const at = (ms: number) => timelineHtml(buildTimeline([spawn(0), entry(2, ms, "branch.taken", "choose_the_reviewer", { next: "apply_all_changes", arm: 0 }), entry(3, 1000, "run.completed", "", { state: "done", success: true, reason: "ok", outputs: {} })], "r")!);
    expect(at(750)).toMatch(/<div class="mark branch neutral flip"/);
    expect(at(850)).toMatch(/<div class="mark branch neutral flip"/);
    expect(at(100)).toMatch(/<div class="mark branch neutral"/);
    expect(at(750)).toContain(".row.marks { overflow: hidden; }");
  });

  it("labels ticks with round, exact times and lines the grid up with them (a 3-hour run)", () => {
    const page = timelineHtml(buildTimeline([spawn(0), entry(2, 3 * 3600e3, "run.completed", "", { state: "done", success: true, reason: "ok", outputs: {} })], "r")!);
    const ticks = [...page.matchAll(/<div class="tick[^"]*" style="left:[^"]*">([^<]*)<\/div>/g)].map((m) => m[1]);
    expect(ticks).toEqual(["0", "+30 min", "+1 h", "+1 h 30 min", "+2 h", "+2 h 30 min", "+3 h"]);
    expect(page).toContain("--grid:16.6667%");
  });
});

describe("criteria journal --format html, on the trial's runs", () => {
  const SLOW = (side: string) => `workflow "slow" {
  version       = "1"
  initial_state = "slow"
  target_state  = "done"
}
adapter "shell" "default" {}
step "slow" {
  target = adapter.shell.default
  input { command = "touch ${side}/started; while [ ! -e ${side}/go ]; do sleep 0.05; done" }
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
`;

  it("a killed run is stopped, not running; after resume its crashed attempt ends where its process died", async () => {
    const dir = temp("criteria-timeline-kill-");
    const side = join(dir, "side");
    mkdirSync(side);
    writeFileSync(join(dir, "w.hcl"), SLOW(side));
    const state = join(dir, "state");
    const child = start(["apply", join(dir, "w.hcl"), "--state-dir", state, "--run-id", "k"]);
    const exit = new Promise((r) => child.once("exit", r));
    await until(() => existsSync(join(side, "started")));
    process.kill(-child.pid!, "SIGKILL");
    await exit;
    const killed = cli(["journal", "k", "--state-dir", state, "--format", "html"]);
    expect(killed.status).toBe(0);
    expect(killed.stdout).toContain('class="badge stopped"');
    expect(killed.stdout).not.toContain("running at the last entry");
    await new Promise((r) => setTimeout(r, 1200));
    writeFileSync(join(side, "go"), "");
    expect(cli(["resume", "k", "--state-dir", state]).status).toBe(0);
    const t = buildTimeline(await entries(state, "k"), "k")!;
    const [first, second] = t.lanes[0].spans.filter((s) => s.kind === "attempt");
    const crash = (await entries(state, "k")).find((e) => e.entry_type === "step.attempt.crashed")!;
    expect(first.tone).toBe("failed");
    expect(first.end_ms!).toBeLessThan(crash.at_ms - 1000);
    expect(t.lanes[0].marks.find((m) => m.kind === "crash")).toMatchObject({ label: "resumed", at_ms: crash.at_ms });
    expect(second.tone).toBe("ok");
  }, 30_000);

  it("a run parked inside a body: waiting, and the parent lane shows the step that runs the body", () => {
    const dir = temp("criteria-timeline-park-");
    writeFileSync(
      join(dir, "w.hcl"),
      `workflow "p" {\n  version = "1"\n  initial_state = "envs"\n  target_state = "done"\n}\nstep "envs" {\n  for_each = ["staging"]\n  workflow {\n    initial_state = "gate"\n    approval "gate" {\n      approvers = ["ops"]\n      outcome "approved" { next = "_continue" }\n      outcome "rejected" { next = "_continue" }\n    }\n  }\n  outcome "all_succeeded" { next = "done" }\n  outcome "any_failed" { next = "done" }\n}\nstate "done" { terminal = true }\n`,
    );
    const state = join(dir, "state");
    expect(cli(["apply", join(dir, "w.hcl"), "--state-dir", state, "--run-id", "p"], { env: { CI: "true" } }).status).toBe(5);
    const page = cli(["journal", "p", "--state-dir", state, "--format", "html"]).stdout;
    expect(page).toContain('class="badge waiting"');
    const root = page.slice(page.indexOf('data-run="p"'), page.indexOf('data-run="p/'));
    expect(root).toMatch(/class="bar step open"[^>]*>envs</);
  });

  it("a damaged journal: the page says so above what it shows, and the command fails", () => {
    // (Checked on a real damaged file in timeline.test.ts; here the notice's words.)
    const page = timelineHtml(buildTimeline([spawn()], "r")!, "The journal is damaged: entry 5 fails its checksum. This page shows the entries before it; what follows is left out.");
    expect(page).toMatch(/<div class="notice" role="alert">The journal is damaged: entry 5/);
  });

  it("refuses -o and --format that disagree", () => {
    const r = cli(["journal", "x", "--state-dir", temp(), "-o", "json", "--format", "html"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("-o json and --format html disagree");
  });
});
