/**
 * A parallel step whose items leave through `return` (which ends only the item), killed after every item was journaled and before the step's completion:
 * the resumed run collects every journaled item, as the live run did. Found by the
 * channels' kill test (a resumed step lost the outputs of the items after a returning one).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { JournalEntry } from "../../engine/journal/entry.js";
import { cli, entries, temp } from "../pipeline/helpers.js";

const WORKFLOW = `workflow "fan" {
  version       = "1"
  initial_state = "fan"
  target_state  = "done"
}
variable "items" {
  type    = list(string)
  default = ["a", "b", "c"]
}
adapter "shell" "default" {}
step "fan" {
  parallel = var.items
  workflow {
    step "say" {
      target = adapter.shell.default
      input { command = "sleep \${each.value == "slow" ? 1 : 0}; echo \${each.value}" }
      outcome "success" { next = "return" }
    }
  }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed"    { next = "done" }
}
state "done" { terminal = true }
output "said" { value = [for o in steps.fan : trimspace(o.stdout)] }
`;

it("a resumed parallel step collects every item the journal holds, after a returning one too", async () => {
  const dir = temp("criteria-resume-ret-");
  writeFileSync(join(dir, "w.hcl"), WORKFLOW);
  const ref = join(dir, "ref");
  expect(cli(["apply", join(dir, "w.hcl"), "--state-dir", ref, "--run-id", "r"]).status).toBe(0);
  const en = await entries(ref, "r");
  const said = (e: JournalEntry[]) => (e.find((x): x is JournalEntry<"run.completed"> => x.entry_type === "run.completed" && x.run_id === "r")?.payload.outputs.said as string[]).slice().sort();
  expect(said(en)).toEqual(["a", "b", "c"]);
  const lastItem = en.filter((e) => e.entry_type === "iteration.completed").at(-1)!.seq;
  const state = join(dir, "k");
  expect(cli(["apply", join(dir, "w.hcl"), "--state-dir", state, "--run-id", "r"], { env: { CRITERIA_FAULT_KILL_AFTER_SEQ: String(lastItem) } }).signal).toBe("SIGKILL");
  expect(cli(["resume", "r", "--state-dir", state]).status).toBe(0);
  expect(said(await entries(state, "r"))).toEqual(["a", "b", "c"]);
}, 30_000);

it("a resumed parallel step finishes an item that was still running when another returned", async () => {
  const dir = temp("criteria-resume-ret-");
  writeFileSync(join(dir, "w.hcl"), WORKFLOW);
  const vars = ["--var", 'items=["quick", "slow"]'];
  const ref = join(dir, "ref");
  expect(cli(["apply", join(dir, "w.hcl"), ...vars, "--state-dir", ref, "--run-id", "r"]).status).toBe(0);
  const en = await entries(ref, "r");
  const said = (e: JournalEntry[]) => (e.find((x): x is JournalEntry<"run.completed"> => x.entry_type === "run.completed" && x.run_id === "r")?.payload.outputs.said as string[]).slice().sort();
  expect(said(en)).toEqual(["quick", "slow"]);
  // Killed right after the quick item's end, while the slow one sleeps.
  const quickEnd = en.find((e) => e.entry_type === "iteration.completed")!;
  expect((quickEnd.payload as { index: number }).index).toBe(0);
  const state = join(dir, "k");
  expect(cli(["apply", join(dir, "w.hcl"), ...vars, "--state-dir", state, "--run-id", "r"], { env: { CRITERIA_FAULT_KILL_AFTER_SEQ: String(quickEnd.seq) } }).signal).toBe("SIGKILL");
  expect((await entries(state, "r")).filter((e) => e.entry_type === "iteration.completed")).toHaveLength(1);
  expect(cli(["resume", "r", "--state-dir", state]).status).toBe(0);
  expect(said(await entries(state, "r"))).toEqual(["quick", "slow"]);
}, 30_000);

it("return ends only its own item of a parallel step: with parallel_max every item runs all the same (found by a new-user trial: the items not yet started were skipped)", () => {
  const dir = temp("criteria-par-ret-");
  writeFileSync(
    join(dir, "w.hcl"),
    WORKFLOW.replace("  parallel = var.items\n", "  parallel     = var.items\n  parallel_max = 2\n").replace('default = ["a", "b", "c"]', 'default = ["a", "b", "c", "d", "e"]'),
  );
  const r = cli(["apply", join(dir, "w.hcl"), "--state-dir", join(dir, "s"), "--run-id", "r", "-o", "json"]);
  expect(r.status, r.stderr).toBe(0);
  const end = r.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l) as { event: string; outputs?: { said?: string[] } }).find((e) => e.event === "run.completed");
  expect(end?.outputs?.said).toEqual(["a", "b", "c", "d", "e"]);
});
