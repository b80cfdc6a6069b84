/**
 * Child runs across workers (the scale-out issue, item 4), with real worker processes on a
 * real PostgreSQL cluster: a child run gets a job and a lease of its own; its parent waits
 * for it through the journal (the parent's worker may be gone when the child ends); a
 * signal reaches a child parked on another worker, and one signal ends one wait; a process
 * without workers cannot run a child another process holds; a child that inherits an
 * agent's session stays in its caller's job. The same protocol in process:
 * test/engine/child-jobs.test.ts.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { JournalEntry } from "../../../engine/journal/entry.js";
import { PostgresJournal } from "../../../engine/journal/postgres-journal.js";
import { cli, temp } from "../../pipeline/helpers.js";
import { useCluster } from "../journal/postgres-cluster.js";
import { startWorker, stopWorker, until, type WorkerProcess } from "./helpers.js";

const { skip, cluster } = useCluster();

const testdata = join(import.meta.dirname, "..", "..", "..", "testdata", "engine", "child-jobs", "main.hcl");
const examples = join(import.meta.dirname, "..", "..", "..", "examples");

/** Every entry of a run tree, as `criteria journal -o json` prints them. */
function journal(url: string, run: string): JournalEntry[] {
  const r = cli(["journal", run, "--store", url, "-o", "json"]);
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout.trim().split("\n").map((l) => JSON.parse(l) as JournalEntry);
}

/** Polls until `done` holds or `ms` pass. */
async function waitFor(done: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!done() && Date.now() < end) await new Promise((r) => setTimeout(r, 200));
}

/** The leases taken so far, by run. */
async function leases(url: string): Promise<string[]> {
  const { default: pg } = await import("pg");
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const { rows } = await c.query<{ root_run_id: string }>("SELECT root_run_id FROM leases ORDER BY root_run_id");
  await c.end();
  return rows.map((r) => r.root_run_id);
}

describe.skipIf(skip !== undefined)("child runs across workers", () => {
  const workers: WorkerProcess[] = [];
  afterAll(async () => {
    for (const w of workers) await stopWorker(w);
  });

  it("a child run has its own job and lease; its parent waits through the journal, even for a worker that came after it", async () => {
    const url = await cluster().freshDatabase();
    const dir = temp("criteria-cj-");
    const ledger = join(dir, "ledger");
    const a = startWorker(url, join(dir, "a"), { WORKER_NAME: "A" });
    workers.push(a);
    const submitted = cli(["apply", testdata, "--store", url, "--state-dir", join(dir, "s"), "--run-id", "split", "--var", `ledger=${ledger}`, "--detach"]);
    expect(submitted.status, submitted.stderr).toBe(0);
    // Worker A: the root spawns both children into jobs of their own and parks; each child job parks at its signal wait.
    const parked = (child: string) => new RegExp(`run split/fan#1\\[${child}\\] parked, waiting for signal \\\\"go\\\\"`);
    await waitFor(() => parked("0").test(a.out()) && parked("1").test(a.out()), 20_000);
    expect(a.out()).toMatch(parked("0"));
    expect(a.out()).toMatch(parked("1"));
    expect(a.out()).toMatch(/run split parked, waiting for child runs split\/fan#1\[0\], split\/fan#1\[1\] \(advanced by workers\)/);
    const spawned = journal(url, "split").filter((e): e is JournalEntry<"run.spawned"> => e.entry_type === "run.spawned");
    expect(spawned.map((e) => [e.run_id, e.payload.detached ?? false])).toEqual([
      ["split", false],
      ["split/fan#1[0]", true],
      ["split/fan#1[1]", true],
    ]);
    expect(await leases(url)).toEqual(["split", "split/fan#1[0]", "split/fan#1[1]"]);

    // A process without workers cannot run a child run someone else holds.
    const holder = await PostgresJournal.open(url, { stateDir: join(dir, "h") });
    await holder.lock("split/fan#1[0]");
    const local = cli(["resume", "split", "--store", url, "--state-dir", join(dir, "s"), "--no-wait"]);
    await holder.unlock("split/fan#1[0]");
    await holder.close();
    expect(local.status).toBe(1);
    expect(local.stderr).toMatch(/^criteria: run split\/fan#1\[0\] is being executed by process \d+ on [^,]+, whose lease runs until .*; refusing to run it twice: let that process end, or take the run over with criteria resume split --force --store \S+ \(that process can then no longer write\)\n/);
    expect(local.stderr).not.toMatch(/\n\s+at /);

    // Worker A leaves; B comes. A signal wakes every active run of the tree; one child takes it.
    expect(await stopWorker(a)).toBe(0);
    const b = startWorker(url, join(dir, "b"), { WORKER_NAME: "B" });
    workers.push(b);
    expect(cli(["signal", "split", "go", "--store", url]).status).toBe(0);
    const lines = () => (existsSync(ledger) ? readFileSync(ledger, "utf8").trim().split("\n").filter(Boolean) : []);
    await waitFor(() => lines().length === 1, 20_000);
    // The other child parked again: one signal ends one wait.
    await new Promise((r) => setTimeout(r, 1500));
    expect(lines()).toHaveLength(1);
    expect(journal(url, "split").filter((e) => e.entry_type === "wait.completed")).toHaveLength(1);
    expect(cli(["signal", "split", "go", "--store", url]).status).toBe(0);
    const rows = await until(url, (r) => r.some((x) => x.run_id === "split" && x.status !== "active"), 30_000);
    expect(rows.find((r) => r.run_id === "split"), b.out()).toMatchObject({ status: "succeeded", final_state: "done" });
    expect(lines().sort()).toEqual(["a B", "b B"]);
    const entries = journal(url, "split");
    const end = entries.find((e) => e.entry_type === "run.completed" && e.run_id === "split");
    expect(end?.payload).toMatchObject({ outputs: { summary: "A|a B,b B|B" } });
    // Each child ended in its own job on B, which woke the parent (whose job says so just after).
    await waitFor(() => /run split ended/.test(b.out()), 5000);
    expect(b.out()).toMatch(/run split\/fan#1\[\d\] ended in state \\"done\\" \(succeeded\)/);
    expect(b.out()).toMatch(/run split ended in state \\"done\\" \(succeeded\)/);
  }, 90_000);

  it("a detached child resumed by hand, with no worker running, wakes its parent's job when it ends", async () => {
    const url = await cluster().freshDatabase();
    const dir = temp("criteria-cj-");
    const ledger = join(dir, "ledger");
    const a = startWorker(url, join(dir, "a"), { WORKER_NAME: "A" });
    workers.push(a);
    expect(cli(["apply", testdata, "--store", url, "--state-dir", join(dir, "s"), "--run-id", "hand", "--var", `ledger=${ledger}`, "--detach"]).status).toBe(0);
    await waitFor(() => /run hand\/fan#1\[1\] parked/.test(a.out()) && /run hand\/fan#1\[0\] parked/.test(a.out()), 20_000);
    expect(await stopWorker(a)).toBe(0);
    expect(cli(["signal", "hand", "go", "--store", url]).status).toBe(0);
    // Only what the resumed child's end enqueues is left in the queue.
    const { default: pg } = await import("pg");
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query("DELETE FROM graphile_worker._private_jobs");
      const resumed = cli(["resume", "hand/fan#1[0]", "--store", url, "--state-dir", join(dir, "s")], { env: { WORKER_NAME: "me" } });
      expect(resumed.status, resumed.stderr).toBe(0);
      const { rows } = await c.query<{ key: string }>("SELECT key FROM graphile_worker._private_jobs ORDER BY key");
      expect(rows.map((r) => r.key)).toEqual(["hand"]);
    } finally {
      await c.end();
    }
    expect(readFileSync(ledger, "utf8")).toBe("a me\n");
    const b = startWorker(url, join(dir, "b"), { WORKER_NAME: "B" });
    workers.push(b);
    expect(cli(["signal", "hand", "go", "--store", url]).status).toBe(0);
    const rows = await until(url, (r) => r.some((x) => x.run_id === "hand" && x.status !== "active"), 30_000);
    expect(rows.find((r) => r.run_id === "hand"), b.out()).toMatchObject({ status: "succeeded" });
    expect(readFileSync(ledger, "utf8")).toBe("a me\nb B\n");
  }, 60_000);

  it("a child that inherits an agent's session runs in its caller's job", async () => {
    const url = await cluster().freshDatabase();
    const dir = temp("criteria-cj-");
    const w = startWorker(url, join(dir, "w"));
    workers.push(w);
    const wf = join(examples, "subworkflow_with_adapter", "workflow.hcl");
    expect(cli(["apply", wf, "--store", url, "--state-dir", join(dir, "s"), "--run-id", "keep", "--detach"]).status).toBe(0);
    const rows = await until(url, (r) => r.some((x) => x.run_id === "keep" && x.status !== "active"), 30_000);
    expect(rows.find((r) => r.run_id === "keep"), w.out()).toMatchObject({ status: "succeeded" });
    const spawned = journal(url, "keep").filter((e): e is JournalEntry<"run.spawned"> => e.entry_type === "run.spawned");
    expect(spawned).toHaveLength(4);
    expect(spawned.filter((e) => e.payload.detached)).toEqual([]);
    expect(await leases(url)).toEqual(["keep"]);
  }, 60_000);
});
