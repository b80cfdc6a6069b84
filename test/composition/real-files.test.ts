/**
 * The Go tool's users' subworkflow files run end to end (docs/language.md, Composition):
 * `criteria apply` of the W14 phase3-subworkflow parent and of v0.5.7's
 * llm-pack/05-subworkflow, as real processes on real journals.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { JournalEntry } from "../../engine/journal/entry.js";
import { SqliteJournal } from "../../engine/journal/sqlite-journal.js";

const repo = join(import.meta.dirname, "..", "..");
const shared = join(repo, "..", "shared", "criteria");
const bin = join(repo, "bin", "criteria");

async function apply(path: string): Promise<{ status: number | null; entries: JournalEntry[]; stderr: string }> {
  const state = mkdtempSync(join(tmpdir(), "criteria-real-"));
  const r = spawnSync(process.execPath, [bin, "apply", path, "--state-dir", state, "--run-id", "real", "-o", "json"], { encoding: "utf8" });
  const j = new SqliteJournal(state);
  try {
    return { status: r.status, entries: (await j.read("real")).entries, stderr: r.stderr };
  } finally {
    await j.close();
  }
}

describe("real subworkflow files run end to end", () => {
  it("w14-f9cadf3/phase3-subworkflow/parent.hcl", async () => {
    const r = await apply(join(shared, "w14-f9cadf3", "phase3-subworkflow", "parent.hcl"));
    expect(r.status, r.stderr).toBe(0);
    expect(r.entries.at(-1)?.payload).toMatchObject({ state: "done", success: true });
  });

  it("v0.5.7/examples/llm-pack/05-subworkflow: the child's output reaches the parent's next step", async () => {
    const r = await apply(join(shared, "v0.5.7", "examples", "llm-pack", "05-subworkflow"));
    expect(r.status, r.stderr).toBe(0);
    const invoke = r.entries.find((e) => e.entry_type === "step.completed" && e.step_id === "invoke");
    expect(invoke?.payload).toMatchObject({ outcome: "success", output: { result: "processed:example" }, child_run_ids: ["real/invoke#1"], child_states: ["done"] });
    const child = r.entries.find((e) => e.entry_type === "run.spawned" && e.run_id === "real/invoke#1");
    expect(child?.payload).toMatchObject({ workflow: "process-one", identity: "process-one", call: "subworkflow", inputs: { item: "example" } });
    expect(r.entries.at(-1)?.payload).toMatchObject({ state: "done", success: true });
  });
});
