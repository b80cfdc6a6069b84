/**
 * The Journal contract (engine/journal/journal.ts): one suite every store passes, run
 * in-process against a real store (a real SQLite file; a real PostgreSQL cluster started
 * by the test). What each promise of the interface means, tested entry by entry.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { JournalEntry, NewEntry, Payloads } from "../../../engine/journal/entry.js";
import { JournalDamagedError, JournalWriteError, LeaseLostError, MessageTakenError, RunEndedError, RunLockedError, SignalTakenError, TreeChangedError } from "../../../engine/journal/errors.js";
import type { Journal } from "../../../engine/journal/journal.js";

/** What a store's test gives the contract. */
export interface StoreUnderTest {
  /** Opens a handle on one fresh store per call of `fresh` (handles of one store share its data). */
  fresh(): Promise<{ open(opts?: { leaseTtlMs?: number }): Promise<Journal>; corrupt(seq: number): Promise<void> }>;
}

let seq = 0;
/** An entry of run `run` (tree root: the part before the first `/`). */
export function entry<T extends keyof Payloads>(run: string, type: T, payload: Payloads[T], step = "", attempt = 0, at = 1_000 + seq++): NewEntry {
  return { run_id: run, step_id: step, attempt, entry_type: type, at_ms: at, payload } as NewEntry;
}

const spawned = (workflow: string, extra: Partial<Payloads["run.spawned"]> = {}): Payloads["run.spawned"] => ({ workflow, spec_hash: "h", inputs: {}, ...extra });
const completed = (success: boolean, state: string, outputs: Payloads["run.completed"]["outputs"] = {}): Payloads["run.completed"] => ({ state, success, reason: success ? "ok" : "adapter_failed", outputs });
const stepDone = (outcome: string, next: string): Payloads["step.completed"] => ({ visit: 1, outcome, next, output: {}, reason: "ok" });

/** Registers the contract's tests for one store. */
export function journalContract(name: string, store: StoreUnderTest): void {
  const open: Journal[] = [];
  afterEach(async () => {
    for (const j of open.splice(0)) await j.close();
  });
  async function fresh() {
    const s = await store.fresh();
    return {
      corrupt: s.corrupt,
      open: async (opts?: { leaseTtlMs?: number }) => {
        const j = await s.open(opts);
        open.push(j);
        return j;
      },
    };
  }

  describe(`Journal contract: ${name}: appends and reads`, () => {
    it("gives each entry a seq, increasing, and reads back exactly what was appended, in order", async () => {
      const j = await (await fresh()).open();
      const a = await j.append("r", [entry("r", "run.spawned", spawned("w")), entry("r", "step.attempt.started", { idempotency_key: "k", visit: 1 }, "s", 1)]);
      const b = await j.append("r", [entry("r", "signal.received", { name: "go", payload: { n: [1, "x"] }, by: "ann" })]);
      expect(a.map((e) => e.entry_type)).toEqual(["run.spawned", "step.attempt.started"]);
      const seqs = [...a, ...b].map((e) => e.seq);
      for (let i = 1; i < seqs.length; i++) expect(seqs[i]).toBeGreaterThan(seqs[i - 1]);
      const { entries, corrupt, damage } = await j.read("r");
      expect(corrupt).toBeUndefined();
      expect(damage).toBeUndefined();
      expect(entries).toEqual([...a, ...b]);
      expect(entries[2]).toMatchObject({ run_id: "r", step_id: "", attempt: 0, payload: { name: "go", payload: { n: [1, "x"] }, by: "ann" } });
      expect(entries[1]).toMatchObject({ step_id: "s", attempt: 1, at_ms: a[1].at_ms });
    });

    it("reads one run tree only, and after a given seq only", async () => {
      const j = await (await fresh()).open();
      const [x1] = await j.append("x", [entry("x", "run.spawned", spawned("w"))]);
      await j.append("y", [entry("y", "run.spawned", spawned("w"))]);
      const [x2] = await j.append("x", [entry("x/c#1", "run.spawned", spawned("c", { parent_run_id: "x" }))]);
      expect((await j.read("x")).entries.map((e) => e.seq)).toEqual([x1.seq, x2.seq]);
      expect((await j.read("x", x1.seq)).entries.map((e) => e.seq)).toEqual([x2.seq]);
      expect((await j.read("x", x2.seq)).entries).toEqual([]);
      expect((await j.read("nobody")).entries).toEqual([]);
      const seen: number[] = [];
      expect(await j.scan("x", (e) => seen.push(e.seq))).toBeUndefined();
      expect(seen).toEqual([x1.seq, x2.seq]);
    });

    it("an append is all or nothing: an entry that cannot be written fails the whole batch", async () => {
      const j = await (await fresh()).open();
      await j.append("r", [entry("r", "run.spawned", spawned("w"))]);
      const bad = entry("r", "signal.received", { name: "x", payload: 1n as unknown as number });
      await expect(j.append("r", [entry("r", "signal.received", { name: "first" }), bad])).rejects.toBeInstanceOf(JournalWriteError);
      expect((await j.read("r")).entries.map((e) => e.entry_type)).toEqual(["run.spawned"]);
      // The store is still usable.
      expect(await j.append("r", [entry("r", "signal.received", { name: "after" })])).toHaveLength(1);
    });

    it("appends from two handles (a signal from another process) interleave in seq order", async () => {
      const s = await fresh();
      const a = await s.open();
      const b = await s.open();
      const writes: Promise<JournalEntry[]>[] = [];
      for (let i = 0; i < 20; i++) writes.push((i % 2 ? a : b).append("r", [entry("r", "signal.received", { name: `n${i}` })]));
      const written = (await Promise.all(writes)).flat();
      const read = (await a.read("r")).entries;
      expect(read).toHaveLength(20);
      expect([...read].sort((p, q) => p.seq - q.seq)).toEqual(read);
      expect(new Set(read.map((e) => e.seq))).toEqual(new Set(written.map((e) => e.seq)));
      // A reader that resumes after the last seq it saw misses nothing.
      const half = read[9].seq;
      expect((await b.read("r", half)).entries).toEqual(read.slice(10));
    });
  });

  describe(`Journal contract: ${name}: the runs index`, () => {
    it("is written with the entries: spawned runs are active, completed ones carry their end", async () => {
      const j = await (await fresh()).open();
      await j.append("r", [entry("r", "run.spawned", spawned("main", { identity: "me" }), "", 0, 10)]);
      await j.append("r", [entry("r/c#1", "run.spawned", spawned("child", { parent_run_id: "r", parent_step_id: "c" }), "", 0, 20)]);
      // An active run's updated_ms is its newest entry's or a nested run's (found by a new-user trial: it did not move).
      expect(await j.run("r")).toEqual({ run_id: "r", root_run_id: "r", parent_run_id: null, workflow: "main", status: "active", created_ms: 10, updated_ms: 20, final_state: null, identity: "me" });
      expect(await j.run("r/c#1")).toMatchObject({ root_run_id: "r", parent_run_id: "r", workflow: "child", identity: null, created_ms: 20, updated_ms: 20 });
      await j.append("r", [entry("r/c#1/d#1", "run.spawned", spawned("grandchild", { parent_run_id: "r/c#1", parent_step_id: "d" }), "", 0, 25)]);
      // r/c#10 is not below r/c#1 (an id that only starts with its letters).
      await j.append("r", [entry("r/c#10", "run.spawned", spawned("child", { parent_run_id: "r", parent_step_id: "c" }), "", 0, 27)]);
      expect((await j.run("r"))?.updated_ms).toBe(27);
      expect((await j.run("r/c#1"))?.updated_ms).toBe(25);
      expect((await j.runs()).find((x) => x.run_id === "r/c#1")?.updated_ms).toBe(25);
      await j.append("r", [entry("r/c#1", "run.completed", completed(false, "failed"), "", 0, 30)]);
      await j.append("r", [entry("r", "run.completed", completed(true, "done"), "", 0, 40)]);
      expect(await j.run("r")).toMatchObject({ status: "succeeded", final_state: "done", created_ms: 10, updated_ms: 40 });
      expect(await j.run("r/c#1")).toMatchObject({ status: "failed", final_state: "failed", updated_ms: 30 });
      expect(await j.run("nobody")).toBeUndefined();
    });

    it("lists runs newest first, roots only when asked, as many as the limit", async () => {
      const j = await (await fresh()).open();
      await j.append("a", [entry("a", "run.spawned", spawned("w"), "", 0, 100)]);
      await j.append("b", [entry("b", "run.spawned", spawned("w"), "", 0, 300)]);
      await j.append("a", [entry("a/x#1", "run.spawned", spawned("w", { parent_run_id: "a" }), "", 0, 200)]);
      expect((await j.runs()).map((r) => r.run_id)).toEqual(["b", "a/x#1", "a"]);
      expect((await j.runs({ roots: true })).map((r) => r.run_id)).toEqual(["b", "a"]);
      expect((await j.runs({ limit: 1 })).map((r) => r.run_id)).toEqual(["b"]);
    });

    it("lists one root's nested runs, the active ones when asked (what unlock and runs read of a root whose children have leases of their own)", async () => {
      const j = await (await fresh()).open();
      await j.append("a", [entry("a", "run.spawned", spawned("w"), "", 0, 100)]);
      await j.append("a", [entry("a/x#1", "run.spawned", spawned("w", { parent_run_id: "a" }), "", 0, 200)]);
      await j.append("a", [entry("a/x#2", "run.spawned", spawned("w", { parent_run_id: "a" }), "", 0, 210)]);
      await j.append("a", [entry("a/x#2/y#1", "run.spawned", spawned("w", { parent_run_id: "a/x#2" }), "", 0, 220)]);
      await j.append("a", [entry("a/x#1", "run.completed", completed(true, "done"), "", 0, 230)]);
      await j.append("ab", [entry("ab", "run.spawned", spawned("w"), "", 0, 240)]);
      await j.append("ab", [entry("ab/x#1", "run.spawned", spawned("w", { parent_run_id: "ab" }), "", 0, 250)]);
      expect((await j.runs({ childrenOf: "a" })).map((r) => r.run_id)).toEqual(["a/x#2/y#1", "a/x#2", "a/x#1"]);
      expect((await j.runs({ childrenOf: "a", active: true })).map((r) => r.run_id)).toEqual(["a/x#2/y#1", "a/x#2"]);
      expect((await j.runs({ childrenOf: "a", active: true, limit: 1 })).map((r) => r.run_id)).toEqual(["a/x#2/y#1"]);
      expect((await j.runs({ active: true, roots: true })).map((r) => r.run_id)).toEqual(["ab", "a"]);
      expect(await j.runs({ childrenOf: "nobody" })).toEqual([]);
    });

    it("spawned() gives a root run's own spawn, not a child's", async () => {
      const j = await (await fresh()).open();
      expect(await j.spawned("r")).toBeUndefined();
      await j.append("r", [entry("r", "run.spawned", spawned("root", { graph: { a: 1 } })), entry("r/c#1", "run.spawned", spawned("child", { parent_run_id: "r" }))]);
      expect(await j.spawned("r")).toEqual(spawned("root", { graph: { a: 1 } }));
    });
  });

  describe(`Journal contract: ${name}: memory`, () => {
    async function remembered() {
      const j = await (await fresh()).open();
      let t = 100;
      const run = async (id: string, identity: string, success: boolean, outputs: Record<string, string>) => {
        await j.append(id, [entry(id, "run.spawned", spawned("w", { identity }), "", 0, t++)]);
        await j.append(id, [entry(id, "run.completed", completed(success, success ? "done" : "failed", outputs), "", 0, t++)]);
      };
      await run("old", "rev", true, { verdict: "the retry loop needs a bound" });
      await run("mid", "rev", true, { verdict: "naming is fine", notes: "tests pass" });
      await run("new", "rev", true, { verdict: "looks good" });
      await run("lost", "rev", false, { verdict: "retry retry retry" });
      await run("empty", "rev", true, {});
      await run("other", "someone-else", true, { verdict: "retry everything" });
      return j;
    }

    it("recalls the identity's successful runs with outputs, best match first, then the newest", async () => {
      const j = await remembered();
      const items = await j.recall("rev", "the RETRY loop", 4096, "me");
      expect(items.map((i) => i.run_id)).toEqual(["old", "new", "mid"]);
      expect(items[0]).toEqual({ run_id: "old", at_ms: 101, text: "verdict: the retry loop needs a bound" });
      expect(items[2].text).toBe("verdict: naming is fine\nnotes: tests pass");
      // Without words to match: newest first.
      expect((await j.recall("rev", "", 4096, "me")).map((i) => i.run_id)).toEqual(["new", "mid", "old"]);
      expect(await j.recall("nobody", "retry", 4096, "me")).toEqual([]);
    });

    it("skips the asking run's tree and stays within the byte budget, cutting on a character", async () => {
      const j = await remembered();
      expect((await j.recall("rev", "retry", 4096, "old")).map((i) => i.run_id)).toEqual(["new", "mid"]);
      const cut = await j.recall("rev", "retry", 12, "me");
      expect(cut).toEqual([{ run_id: "old", at_ms: 101, text: "verdict: the" }]);
      await j.append("u", [entry("u", "run.spawned", spawned("w", { identity: "uni" }), "", 0, 1)]);
      await j.append("u", [entry("u", "run.completed", completed(true, "done", { v: "é" }), "", 0, 2)]);
      expect((await j.recall("uni", "", 5, "me"))[0].text).toBe("v: é");
      expect((await j.recall("uni", "", 4, "me"))[0].text).toBe("v: ");
      expect(await j.recall("rev", "retry", 0, "me")).toEqual([]);
      // A flow called inside the asking run's tree is skipped too; one of another tree whose id starts alike is not.
      for (const [root, id] of [["ask", "ask/review#1"], ["asked", "asked/review#1"]]) {
        await j.append(root, [entry(id, "run.spawned", spawned("w", { identity: "rev", parent_run_id: root }), "", 0, 900)]);
        await j.append(root, [entry(id, "run.completed", completed(true, "done", { verdict: "retry inside" }), "", 0, 901)]);
      }
      expect((await j.recall("rev", "inside", 4096, "ask")).map((i) => i.run_id)).toEqual(["asked/review#1", "new", "mid", "old"]);
    });
  });

  describe(`Journal contract: ${name}: damage`, () => {
    async function damaged() {
      const s = await fresh();
      const j = await s.open();
      await j.append("r", [entry("r", "run.spawned", spawned("w", { identity: "me" }))]);
      await j.append("r", [entry("r/k#1", "run.spawned", spawned("k", { parent_run_id: "r", identity: "kid" })), entry("r/k#1", "run.completed", completed(false, "broke"))]);
      await j.append("r", [entry("r", "effect.confirmed", { idempotency_key: "k1", visit: 1, outcome: "success", output: {}, reason: "ok" }, "one", 1)]);
      await j.append("r", [entry("r", "step.completed", stepDone("success", "two"), "one")]);
      const [bad] = await j.append("r", [entry("r", "step.completed", stepDone("success", "three"), "two")]);
      await j.append("r", [entry("r/c#1", "run.spawned", spawned("c", { parent_run_id: "r" })), entry("r", "step.completed", stepDone("success", "four"), "three")]);
      await j.append("r", [entry("r", "step.completed", stepDone("success", "done"), "one"), entry("r", "run.completed", completed(true, "done"))]);
      await s.corrupt(bad.seq);
      return { j, bad };
    }

    it("a read stops before the first entry that fails its checksum, and says which", async () => {
      const { j, bad } = await damaged();
      const { entries, damage, corrupt } = await j.read("r");
      expect(entries.map((e) => e.step_id)).toEqual(["", "", "", "one", "one"]);
      expect(damage).toEqual({ seq: bad.seq, message: `entry ${bad.seq} fails its checksum; reading stopped before it` });
      expect(corrupt).toBe(damage!.message);
      const seen: string[] = [];
      expect(await j.scan("r", (e) => seen.push(e.step_id))).toEqual(damage);
      expect(seen).toEqual(["", "", "", "one", "one"]);
    });

    it("the damage report counts what resuming past it loses and the finished steps that would run again", async () => {
      const { j, bad } = await damaged();
      const report = await j.damageReport("r", bad.seq);
      expect(report).toBeInstanceOf(JournalDamagedError);
      expect(report).toMatchObject({ runId: "r", seq: bad.seq, lost: 5 });
      // "one" completed again after the damage, but its effect was confirmed before it: it is re-used, not run.
      expect(report.steps).toEqual(["two", "three"]);
    });

    it("the damage report names a nested run's step by its run's path below the root (found by a new-user trial: `w2`, not `items#1[0] › w2`)", async () => {
      const s = await fresh();
      const j = await s.open();
      await j.append("r", [entry("r", "run.spawned", spawned("w"))]);
      await j.append("r", [entry("r/items#1[0]", "run.spawned", spawned("body", { parent_run_id: "r" })), entry("r/items#1[0]", "step.completed", stepDone("success", "w2"), "w1")]);
      const [bad] = await j.append("r", [entry("r/items#1[0]", "step.completed", stepDone("success", "done"), "w2")]);
      await j.append("r", [entry("r/items#1[0]/deep#1", "run.spawned", spawned("d", { parent_run_id: "r/items#1[0]" })), entry("r/items#1[0]/deep#1", "step.completed", stepDone("success", "done"), "x")]);
      await j.append("r", [entry("r", "step.completed", stepDone("success", "done"), "items")]);
      await s.corrupt(bad.seq);
      expect((await j.damageReport("r", bad.seq)).steps).toEqual(["items#1[0] › w2", "items#1[0]/deep#1 › x", "items"]);
    });

    it("a resume past the damage starts from the tree's last entry before it, not another run's or a set-aside one (found by a new-user trial)", async () => {
      const s = await fresh();
      const j = await s.open();
      const [start] = await j.append("r", [entry("r", "run.spawned", spawned("w"))]);
      await j.append("other", [entry("other", "run.spawned", spawned("w"))]);
      const [bad] = await j.append("r", [entry("r", "step.completed", stepDone("success", "done"), "one")]);
      await j.append("r", [entry("r", "step.completed", stepDone("success", "done"), "two")]);
      await s.corrupt(bad.seq);
      const report = await j.damageReport("r", bad.seq);
      expect(report.resumeFrom).toBe(start.seq);
      expect(report.message).toContain(`resumes from entry ${start.seq}`);
      // Set aside; what is written next is damaged again: the set-aside seqs are not named either.
      await j.quarantine("r", bad.seq, 5);
      const [again] = await j.append("r", [entry("r", "step.completed", stepDone("success", "done"), "one")]);
      await s.corrupt(again.seq);
      expect((await j.damageReport("r", again.seq)).resumeFrom).toBe(start.seq);
    });

    it("quarantine sets the damaged entries aside and rebuilds the runs index from what remains", async () => {
      const { j, bad } = await damaged();
      const kept = (await j.read("r")).entries;
      expect(await j.run("r")).toMatchObject({ status: "succeeded" });
      expect(await j.quarantine("r", bad.seq, 5)).toBe(5);
      expect((await j.read("r")).entries).toEqual(kept);
      expect((await j.read("r")).damage).toBeUndefined();
      expect(await j.run("r")).toMatchObject({ status: "active", final_state: null, parent_run_id: null, identity: "me", workflow: "w" });
      expect(await j.run("r/c#1")).toBeUndefined();
      expect(await j.run("r/k#1")).toMatchObject({ parent_run_id: "r", identity: "kid", status: "failed", final_state: "broke" });
      // The next append continues after what remains.
      const [next] = await j.append("r", [entry("r", "signal.received", { name: "x" })]);
      expect(next.seq).toBeGreaterThan(bad.seq - 1);
      expect((await j.read("r")).entries).toHaveLength(kept.length + 1);
    });
  });

  describe(`Journal contract: ${name}: leases`, () => {
    const e = () => entry("r", "signal.received", { name: "x" });

    it("a live holder's lease refuses another; force takes it over and fences the old holder", async () => {
      const s = await fresh();
      const a = await s.open();
      const b = await s.open();
      expect(await a.lock("r")).toBeUndefined();
      await a.append("r", [e()]);
      const refused = await b.lock("r").catch((x: unknown) => x);
      expect(refused).toBeInstanceOf(RunLockedError);
      expect((refused as RunLockedError).pid).toBe(process.pid);
      expect(await b.lock("r", { force: true })).toMatch(/^--force: took run r from process \d+ on .+, whose lease ran until .+; if it still runs, it stops what it runs at its next heartbeat, and can no longer write to the journal$/);
      await expect(a.append("r", [e()])).rejects.toBeInstanceOf(LeaseLostError);
      // Lost is lost: it stays refused.
      await expect(a.append("r", [e()])).rejects.toThrow(/can no longer write run r: its lease was taken away \(by criteria unlock or resume --force, or by another process after it expired\)/);
      expect(await b.append("r", [e()])).toHaveLength(1);
      // A process holding no lease (a signal from another shell) is not fenced.
      const c = await s.open();
      expect(await c.append("r", [e()])).toHaveLength(1);
      expect((await c.read("r")).entries).toHaveLength(3);
    });

    it("a lease given back is taken again without a note; holder() says who holds it", async () => {
      const s = await fresh();
      const a = await s.open();
      const b = await s.open();
      expect(await a.holder("r")).toBeUndefined();
      await a.lock("r");
      const h = await b.holder("r");
      expect(h).toMatchObject({ pid: process.pid, alive: true });
      expect(h!.expiresMs).toBeGreaterThan(Date.now());
      await a.unlock("r");
      expect(await b.holder("r")).toBeUndefined();
      expect(await b.lock("r")).toBeUndefined();
      await expect(a.append("r", [e()])).resolves.toHaveLength(1); // a holds nothing now: unfenced
      await b.unlock("r");
      await b.unlock("r"); // twice: never throws
    });

    it("an expired lease is taken over, saying whose it was; a renewed one is not", async () => {
      const s = await fresh();
      const a = await s.open({ leaseTtlMs: 150 });
      const b = await s.open({ leaseTtlMs: 150 });
      await a.lock("r");
      await new Promise((r) => setTimeout(r, 500)); // three TTLs: the heartbeat renewed it
      await expect(b.lock("r")).rejects.toBeInstanceOf(RunLockedError);
      await a.close(); // heartbeats stop; the lease is not given back
      await new Promise((r) => setTimeout(r, 250));
      expect(await b.holder("r")).toMatchObject({ alive: false });
      expect(await b.lock("r")).toMatch(/^took over run r from process \d+ on .+, whose lease expired at /);
    });

    it("breakLease ends the lease whoever holds it: its holder cannot write any more", async () => {
      const s = await fresh();
      const a = await s.open();
      const b = await s.open();
      expect(await b.breakLease("r")).toBeUndefined();
      await a.lock("r");
      expect(await b.breakLease("r")).toMatchObject({ pid: process.pid, alive: true });
      expect(await b.holder("r")).toBeUndefined();
      await expect(a.append("r", [e()])).rejects.toBeInstanceOf(LeaseLostError);
      expect(await b.lock("r")).toBeUndefined();
      expect(await b.append("r", [e()])).toHaveLength(1);
    });

    it("the loss of a held lease is told to its listeners, once: found by the heartbeat, or by an append; a listener that stopped listening is not told", async () => {
      // The runner stops what it runs when told (a fenced worker's step ran on beside its re-run: a new-user trial).
      const s = await fresh();
      const a = await s.open({ leaseTtlMs: 150 });
      const b = await s.open();
      await a.lock("r");
      const told: LeaseLostError[] = [];
      const stopped: LeaseLostError[] = [];
      a.onLeaseLost("r", (x) => told.push(x));
      a.onLeaseLost("r", (x) => stopped.push(x))();
      await new Promise((r) => setTimeout(r, 400)); // renewed meanwhile: nothing lost
      expect(told).toEqual([]);
      await b.breakLease("r");
      // The heartbeat (every 50 ms) finds it taken, no append needed.
      await vi.waitFor(() => expect(told).toHaveLength(1), { timeout: 3000, interval: 20 });
      expect(told[0]).toBeInstanceOf(LeaseLostError);
      expect(told[0].message).toMatch(/can no longer write run r: its lease was taken away/);
      await expect(a.append("r", [e()])).rejects.toBeInstanceOf(LeaseLostError);
      await new Promise((r) => setTimeout(r, 200));
      expect(told).toHaveLength(1);
      expect(stopped).toEqual([]);
      // Asked after the loss: told at once.
      const late: LeaseLostError[] = [];
      a.onLeaseLost("r", (x) => late.push(x));
      await vi.waitFor(() => expect(late).toHaveLength(1), { timeout: 1000, interval: 10 });
      // An append finds the loss before any heartbeat (a lease of a minute): told as well.
      const c = await s.open({ leaseTtlMs: 60_000 });
      const d = await s.open();
      await c.lock("q");
      const byAppend: LeaseLostError[] = [];
      c.onLeaseLost("q", (x) => byAppend.push(x));
      await d.lock("q", { force: true });
      await expect(c.append("q", [entry("q", "signal.received", { name: "x" })])).rejects.toBeInstanceOf(LeaseLostError);
      await vi.waitFor(() => expect(byAppend).toHaveLength(1), { timeout: 1000, interval: 10 });
      // No lease held: nothing to tell, ever.
      const none: LeaseLostError[] = [];
      d.onLeaseLost("nothing", (x) => none.push(x))();
      expect(none).toEqual([]);
    });

    it("a holder paused past its lease that finds it still its own loses nothing: no one took it", async () => {
      const s = await fresh();
      const a = await s.open({ leaseTtlMs: 150 });
      await a.lock("r");
      const told: LeaseLostError[] = [];
      a.onLeaseLost("r", (x) => told.push(x));
      // The whole process paused (its timers too) for three lease periods.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 450);
      await new Promise((r) => setTimeout(r, 300));
      expect(told).toEqual([]);
      expect(await a.append("r", [e()])).toHaveLength(1);
    });

    it("a lease this journal already holds is refused to a second runner of the same process, even forced", async () => {
      // Found by the workers' chaos test: two jobs for one run in one worker both "took" the
      // lease (same owner), ran the same step twice, and the first one's unlock unfenced the other.
      const j = await (await fresh()).open();
      await j.lock("r");
      await expect(j.lock("r")).rejects.toBeInstanceOf(RunLockedError);
      await expect(j.lock("r", { force: true })).rejects.toBeInstanceOf(RunLockedError);
      expect(await j.append("r", [e()])).toHaveLength(1);
      await j.unlock("r");
      expect(await j.lock("r")).toBeUndefined();
    });

    it("a runner that lost its lease gives back only that one, not the newer one another runner of this process took since", async () => {
      // Found by the workers' chaos test (Node 22, CI): a worker continued after a freeze had a
      // stale runner whose lease had been taken over, and a new job's runner that took the run
      // again; the stale runner's unlock gave back the new runner's lease, both stopped, and the
      // run was left with no holder and no wake-up.
      const s = await fresh();
      const j = await s.open();
      const other = await s.open();
      await j.lock("r");
      const stale = j.heldEpoch("r");
      expect(stale).toEqual(expect.any(Number));
      await other.breakLease("r");
      await expect(j.append("r", [e()], { lease: "r" })).rejects.toBeInstanceOf(LeaseLostError);
      // A new runner of the same process takes the run again (the lost lease is no obstacle).
      await j.lock("r");
      const fresh2 = j.heldEpoch("r");
      expect(fresh2).toBeGreaterThan(stale!);
      // The stale runner ends: its unlock leaves the new lease alone.
      await j.unlock("r", stale);
      expect(await other.holder("r")).toMatchObject({ pid: process.pid, alive: true });
      expect(await j.append("r", [e()], { lease: "r" })).toHaveLength(1);
      await j.unlock("r", fresh2);
      expect(await other.holder("r")).toBeUndefined();
      expect(j.heldEpoch("r")).toBeUndefined();
    });

    it("two runners of one process asking at the same moment: one takes the lease, the other is refused", async () => {
      // Found by a trial of one worker at --concurrency 8: children ending together woke their
      // root twice; both jobs passed the "held here already" check before either had taken the
      // lease, both were fenced, and the run was left active with no job to advance it.
      const j = await (await fresh()).open();
      const [a, b] = await Promise.allSettled([j.lock("r"), j.lock("r")]);
      expect([a.status, b.status].sort()).toEqual(["fulfilled", "rejected"]);
      expect(((a.status === "rejected" ? a : b) as PromiseRejectedResult).reason).toBeInstanceOf(RunLockedError);
      expect(await j.append("r", [e()])).toHaveLength(1);
    });

    it("leases are per run tree", async () => {
      const s = await fresh();
      const a = await s.open();
      const b = await s.open();
      await a.lock("r");
      expect(await b.lock("q")).toBeUndefined();
      expect(await b.append("q", [entry("q", "signal.received", { name: "x" })])).toHaveLength(1);
      expect(await a.append("r", [e()])).toHaveLength(1);
    });

    it("a child run's lease is its own: appends naming it are fenced by it, not by the root's", async () => {
      const s = await fresh();
      const parentJob = await s.open();
      const childJob = await s.open();
      await parentJob.lock("r");
      // A child run advanced in its own job, on another worker: its lease is taken beside the root's.
      expect(await childJob.lock("r/c#1")).toBeUndefined();
      await expect(parentJob.lock("r/c#1")).rejects.toBeInstanceOf(RunLockedError);
      expect(await childJob.append("r", [entry("r/c#1", "signal.received", { name: "x" })], { lease: "r/c#1" })).toHaveLength(1);
      expect(await parentJob.append("r", [entry("r", "signal.received", { name: "y" })], { lease: "r" })).toHaveLength(1);
      // Naming a lease this journal does not hold (never taken, or given back) is a loss.
      await expect(parentJob.append("r", [entry("r/c#1", "signal.received", { name: "z" })], { lease: "r/c#1" })).rejects.toThrow(
        "this process can no longer write run r/c#1: it holds no lease on it (never taken, or given back); it stopped without writing anything more",
      );
      await childJob.unlock("r/c#1");
      await expect(childJob.append("r", [entry("r/c#1", "signal.received", { name: "z" })], { lease: "r/c#1" })).rejects.toBeInstanceOf(LeaseLostError);
      // The child's lease broken by hand fences its holder.
      await parentJob.lock("r/c#1");
      await childJob.breakLease("r/c#1");
      await expect(parentJob.append("r", [entry("r/c#1", "signal.received", { name: "z" })], { lease: "r/c#1" })).rejects.toBeInstanceOf(LeaseLostError);
      expect((await parentJob.read("r")).entries).toHaveLength(2);
    });

    it("one signal is consumed once: a second append consuming it is refused and writes nothing", async () => {
      const s = await fresh();
      const a = await s.open();
      const b = await s.open();
      const [sig] = await a.append("r", [entry("r", "run.spawned", spawned("w")), entry("r", "signal.received", { name: "go" })]).then((x) => x.slice(1));
      const waited = (run: string) => entry(run, "wait.completed", { visit: 1, outcome: "received", next: "done", signal_seq: sig.seq }, "gate");
      expect(await a.append("r", [waited("r/x#1")], { consumes: sig.seq })).toHaveLength(1);
      const taken = b.append("r", [waited("r/y#1")], { consumes: sig.seq });
      await expect(taken).rejects.toBeInstanceOf(SignalTakenError);
      await expect(b.append("r", [waited("r/y#1")], { consumes: sig.seq })).rejects.toThrow(`journal entry ${sig.seq} (a signal or a decision) was consumed by another wait first`);
      // A decision is consumed the same way; another signal is not taken by it.
      const [other] = await b.append("r", [entry("r", "signal.received", { name: "approval:gate", payload: "approved", by: "ann" })]);
      expect(await b.append("r", [entry("r/y#1", "approval.decided", { visit: 1, decision: "approved", outcome: "approved", next: "done", signal_seq: other.seq }, "gate")], { consumes: other.seq })).toHaveLength(1);
      await expect(a.append("r", [entry("r/x#1", "approval.decided", { visit: 1, decision: "approved", outcome: "approved", next: "done", signal_seq: other.seq }, "gate")], { consumes: other.seq })).rejects.toBeInstanceOf(SignalTakenError);
      expect((await a.read("r")).entries.map((e) => e.entry_type)).toEqual(["run.spawned", "signal.received", "wait.completed", "signal.received", "approval.decided"]);
    });

    it("an append naming runs that must not have ended is refused once one has, and writes nothing (unlessEnded: a signal sent as its run ends)", async () => {
      const s = await fresh();
      const a = await s.open();
      const b = await s.open();
      await a.append("r", [entry("r", "run.spawned", spawned("w")), entry("r/c#1", "run.spawned", spawned("c"))]);
      const signal = (j: Journal, to: string) => j.append("r", [entry(to, "signal.received", { name: "go" })], { unlessEnded: [to, "r"] });
      expect(await signal(b, "r/c#1")).toHaveLength(1);
      await a.append("r", [entry("r/c#1", "run.completed", { state: "done", success: true, reason: "ok", outputs: {} })]);
      // The child has ended: refused; its tree goes on: a signal to the root is taken.
      await expect(signal(b, "r/c#1")).rejects.toBeInstanceOf(RunEndedError);
      await expect(signal(b, "r/c#1")).rejects.toThrow("run r/c#1 has ended");
      expect(await signal(b, "r")).toHaveLength(1);
      await a.append("r", [entry("r", "run.completed", { state: "done", success: false, reason: "failure_state", outputs: {} })]);
      await expect(signal(b, "r")).rejects.toBeInstanceOf(RunEndedError);
      expect((await a.read("r")).entries.map((e) => e.entry_type)).toEqual(["run.spawned", "run.spawned", "signal.received", "run.completed", "signal.received", "run.completed"]);
    });

    it("an append made from what was read is refused when the tree has moved on since, and writes nothing (ifLastSeq: one of two decisions given at once)", async () => {
      const s = await fresh();
      const a = await s.open();
      const b = await s.open();
      const [, requested] = await a.append("r", [entry("r", "run.spawned", spawned("w")), entry("r", "approval.requested", { visit: 1, approvers: ["ops"] }, "gate")]);
      // Another tree's entries do not count.
      await a.append("q", [entry("q", "run.spawned", spawned("w"))]);
      const decide = (j: Journal, payload: string) => j.append("r", [entry("r", "signal.received", { name: "approval:gate", payload, by: "ann" })], { ifLastSeq: requested.seq });
      const [given] = await decide(a, "approved");
      await expect(decide(b, "rejected")).rejects.toBeInstanceOf(TreeChangedError);
      await expect(decide(b, "rejected")).rejects.toThrow(`the run tree has entries after journal entry ${requested.seq}, the newest one read`);
      expect(await b.append("r", [entry("r", "signal.received", { name: "approval:gate", payload: "rejected" })], { ifLastSeq: given.seq })).toHaveLength(1);
      expect((await a.read("r")).entries.map((e) => e.entry_type)).toEqual(["run.spawned", "approval.requested", "signal.received", "signal.received"]);
      // A tree with no entry yet: its newest is 0.
      expect(await a.append("new", [entry("new", "run.spawned", spawned("w"))], { ifLastSeq: 0 })).toHaveLength(1);
    });

    it("one channel message is received once: a second receive taking it is refused and writes nothing", async () => {
      const s = await fresh();
      const a = await s.open();
      const b = await s.open();
      const message = { id: "k.1", from: "x", to: "y", body: "hi" };
      const [, post] = await a.append("r", [
        entry("r", "run.spawned", spawned("w")),
        entry("r", "effect.recorded", { idempotency_key: "k", adapter: "channel", visit: 1, kind: "post", channel: "c", message }, "say"),
      ]);
      const got = (run: string, id: string) => entry(run, "effect.confirmed", { idempotency_key: `${run}-hear`, visit: 1, outcome: "received", output: {}, reason: "ok", received: { channel: "c", as: "y", id } }, "hear");
      expect(await a.append("r", [got("r/a#1", "k.1")], { takes: { id: "k.1", after: post.seq } })).toHaveLength(1);
      await expect(b.append("r", [got("r/b#1", "k.1")], { takes: { id: "k.1", after: post.seq } })).rejects.toBeInstanceOf(MessageTakenError);
      await expect(b.append("r", [got("r/b#1", "k.1")], { takes: { id: "k.1", after: post.seq } })).rejects.toThrow("channel message k.1 was received by another receive first");
      // Another message is not taken by it.
      expect(await b.append("r", [got("r/b#1", "k.2")], { takes: { id: "k.2", after: post.seq } })).toHaveLength(1);
      expect((await a.read("r")).entries.map((e) => e.entry_type)).toEqual(["run.spawned", "effect.recorded", "effect.confirmed", "effect.confirmed"]);
    });
  });
}
