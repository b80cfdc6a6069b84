/** The terminal's progress lines and journal timeline (cli/render-events.ts): their elapsed-time stamps. */
import { describe, expect, it } from "vitest";
import type { JournalEntry } from "../engine/journal/entry.js";
import { renderEntry, renderEvent } from "../cli/render-events.js";

describe("elapsed time stamps", () => {
  const stamp = (ms: number) => renderEvent({ event: "run.started", run_id: "r", workflow: "w", at_ms: 1_000 + ms }, 1_000)?.slice(0, 9);

  it("round to the tenth before carrying into minutes (a new-user trial saw [07:60.0])", () => {
    expect([0, 49, 50, 9_940, 59_940, 59_950, 59_960, 59_999, 60_000, 479_970, 3_599_960].map(stamp)).toEqual([
      "[00:00.0]",
      "[00:00.0]",
      "[00:00.1]",
      "[00:09.9]",
      "[00:59.9]",
      "[01:00.0]",
      "[01:00.0]",
      "[01:00.0]",
      "[01:00.0]",
      "[08:00.0]",
      "[60:00.0]",
    ]);
  });

  it("the journal's timeline uses the same stamps", () => {
    const e = { seq: 7, run_id: "r", step_id: "", attempt: 0, entry_type: "run.completed", at_ms: 60_960, payload: { success: true, state: "done", reason: "ok" } } as JournalEntry;
    expect(renderEntry(e, 1_000)).toContain("+01:00.0  ");
  });
});

describe("an item's end", () => {
  it("a failed item says why, as a step does (found by a new-user trial: the reason was only in the journal)", () => {
    const line = (e: { outcome: string; success: boolean; reason: "ok" | "adapter_failed"; detail?: string }) =>
      renderEvent({ event: "iteration.completed", run_id: "r", step: "each", index: 1, total: 3, ...e }, 0)?.replace(/^\S+ /, "");
    expect(line({ outcome: "failure", success: false, reason: "adapter_failed", detail: "exit code 2: b broke" })).toBe("each [2/3] failure ✗  [adapter_failed: exit code 2: b broke]");
    expect(line({ outcome: "success", success: true, reason: "ok" })).toBe("each [2/3] success");
  });

  it("a map's item is named by its key, as Terraform names x[\"a\"] (found by a new-user trial: [1/2] said not which)", () => {
    expect(renderEvent({ event: "iteration.completed", run_id: "r", step: "each", index: 0, total: 2, key: "eu-west", outcome: "success", success: true, reason: "ok" }, 0)?.replace(/^\S+ /, "")).toBe('each ["eu-west"] success');
  });
});

describe("one line per event and entry", () => {
  it("a multi-line failure detail is written on its line, its breaks as ⏎ (found by a new-user trial: it spilled over the lines after it)", () => {
    const step = renderEvent({ event: "step.completed", run_id: "r", step: "s", visit: 1, outcome: "failure", next: "done", reason: "adapter_failed", detail: "exit code 3: first\nsecond\r\n\nlast", ms: 5 }, 0);
    expect(step).toBe("[00:00.0] s → failure → done  [adapter_failed: exit code 3: first ⏎ second ⏎  ⏎ last]  (5 ms)");
    const e = { seq: 7, run_id: "r", step_id: "s", attempt: 1, entry_type: "effect.confirmed", at_ms: 0, payload: { outcome: "failure", reason: "adapter_failed", detail: "a\nb" } } as unknown as JournalEntry;
    expect(renderEntry(e, 0).split("\n")).toHaveLength(1);
    expect(renderEntry(e, 0)).toContain("detail=a ⏎ b");
  });
});

describe("a nested run's entries", () => {
  it("name the run by its path below the root, so two items' runs are told apart (found by a new-user trial: both read call_inner#1 ›)", () => {
    const e = (run_id: string) => ({ seq: 7, run_id, step_id: "deep", attempt: 1, entry_type: "step.completed", at_ms: 0, payload: { outcome: "failure", reason: "adapter_failed" } }) as unknown as JournalEntry;
    expect(renderEntry(e("r/nested#1[0]/call_inner#1"), 0)).toContain("nested#1[0]/call_inner#1 › deep");
    expect(renderEntry(e("r/nested#1[1]/call_inner#1"), 0)).toContain("nested#1[1]/call_inner#1 › deep");
    expect(renderEntry(e("r"), 0)).toMatch(/step\.completed\s+deep #1/);
  });

  it("a warning names its nested run too, as its step lines do (found by a new-user trial: two items' warnings read the same)", () => {
    const warn = (run_id: string) => renderEvent({ event: "warning", run_id, message: 'step "look" attempt 1 was interrupted; running it again' }, 0)?.replace(/^\S+ /, "");
    expect(warn("r/build_all#1[0]/verify#1")).toBe('warning: build_all#1[0]/verify#1 › step "look" attempt 1 was interrupted; running it again');
    expect(warn("r")).toBe('warning: step "look" attempt 1 was interrupted; running it again');
  });

  it("an entry of the nested run itself names its path alone: not items#1[0] › [0], no dangling › (found by a new-user trial)", () => {
    const run = (entry_type: string, payload: object) => ({ seq: 2, run_id: "r/items#1[0]", step_id: "", attempt: 0, entry_type, at_ms: 0, payload }) as unknown as JournalEntry;
    expect(renderEntry(run("run.spawned", { workflow: "items.body", iteration: 0 }), 0)).toMatch(/run\.spawned\s+items#1\[0\]  workflow=items\.body$/);
    expect(renderEntry(run("run.completed", { reason: "ok", state: "_continue", success: true }), 0)).toMatch(/run\.completed\s+items#1\[0\]  reason=ok state=_continue success=true$/);
  });
});

describe("the entry type column", () => {
  it("holds the longest type, so what follows starts at one column on every line (found by a new-user trial: step.attempt.interrupted overflowed it)", () => {
    const e = (entry_type: string) => ({ seq: 7, run_id: "r", step_id: "build", attempt: 1, entry_type, at_ms: 0, payload: {} }) as unknown as JournalEntry;
    const types = ["run.spawned", "step.attempt.started", "step.attempt.interrupted", "run.damage_discarded", "effect.confirmed"];
    expect(new Set(types.map((t) => renderEntry(e(t), 0).indexOf("build #1"))).size).toBe(1);
  });
});

describe("a wait's end", () => {
  it("is said: the signal received (and the outcome it named), timed out, or elapsed, with where it goes (a new-user trial: a resumed wait said nothing)", () => {
    const line = (e: { outcome: string; next: string; signal?: string }) => renderEvent({ event: "wait.completed", run_id: "r/call#1", node: "w", ...e }, 0)?.replace(/^\S+ /, "");
    expect(line({ outcome: "received", next: "build", signal: "go" })).toBe('call#1 › w: signal "go" received → build');
    expect(line({ outcome: "approved", next: "ship", signal: "verdict" })).toBe('call#1 › w: signal "verdict" received: approved → ship');
    expect(line({ outcome: "timeout", next: "gave_up" })).toBe("call#1 › w: timed out → gave_up");
    // A signal whose payload named the outcome "timeout" is a signal, not the deadline (found by a new-user trial).
    expect(line({ outcome: "timeout", next: "gave_up", signal: "go" })).toBe('call#1 › w: signal "go" received: timeout → gave_up');
    expect(line({ outcome: "elapsed", next: "poll" })).toBe("call#1 › w: time elapsed → poll");
  });
});
