/**
 * engine/run/runner.ts, in process: what the runner asks of its journal — entries masked of
 * every secret, wake-ups for the workers only from a submitted or parking run, group commits
 * where the store has them and one append at a time where it has not, a write that fails before
 * the run exists, a damaged journal on resume, secrets asked for again on resume. What
 * Stryker's pass over runner.ts lines 240–520 left alive: these paths were only reached from
 * the CLI's child processes, which mutants of the source do not reach.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import type { Adapter } from "../../engine/adapters/adapter.js";
import { adapterFor } from "../../engine/adapters/registry.js";
import { JournalDamagedError, JournalWriteError } from "../../engine/journal/errors.js";
import type { Journal } from "../../engine/journal/journal.js";
import { SqliteJournal } from "../../engine/journal/sqlite-journal.js";
import type { RunEvent } from "../../engine/run/events.js";
import { RunNeedsSecrets, RunParked, Runner, RunRefused, RunSubmitted, type RunnerOptions } from "../../engine/run/runner.js";
import { deliverSignal } from "../../engine/run/signals.js";
import { graphOf } from "./graph-of.js";
import { recorded } from "./runner-fixtures.js";

const HEAD = (initial: string) => `workflow "t" {\n  version = "1"\n  initial_state = "${initial}"\n  target_state = "done"\n}\nstate "done" { terminal = true }\n`;

const runners: SqliteJournal[] = [];
afterEach(async () => {
  for (const j of runners.splice(0)) await j.close();
});

function runner(journal: Journal, extra: Partial<RunnerOptions> = {}, events: RunEvent[] = []) {
  return new Runner({ journal, adapterFor, baseDir: tmpdir(), events: (e) => events.push(e), pollMs: 5, ...extra });
}

const PARALLEL = `${HEAD("fan")}
adapter "noop" "default" {}
step "fan" {
  target = adapter.noop.default
  parallel = ["a", "b", "c", "d"]
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "done" }
}`;

describe("the runner's appends", () => {
  it("group commit: the appends asked in one turn of the event loop go in one appendGroup call, in the order asked", async () => {
    const r = recorded();
    runners.push(r.inner);
    const end = await runner(r.journal).start(await graphOf(PARALLEL), {}, "p");
    expect(end).toMatchObject({ state: "done", success: true });
    expect(r.groups()).toBeGreaterThan(0);
    expect(r.groups()).toBeLessThan(r.appends.length);
    // One commit per turn that asked for appends: none empty, at least one of several.
    expect(r.groupSizes.every((n) => n > 0)).toBe(true);
    expect(Math.max(...r.groupSizes)).toBeGreaterThan(1);
    const seqs = (await r.inner.read("p")).entries.map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  });

  it("a store without group commit (PostgreSQL's kind) gets one append at a time, in order, and the same run", async () => {
    const grouped = recorded();
    const serial = recorded({ group: false });
    runners.push(grouped.inner, serial.inner);
    await runner(grouped.journal).start(await graphOf(PARALLEL), {}, "p");
    const end = await runner(serial.journal).start(await graphOf(PARALLEL), {}, "p");
    expect(end).toMatchObject({ state: "done", success: true });
    expect(serial.groups()).toBe(0);
    expect(serial.maxInFlight()).toBe(1);
    const shape = async (j: SqliteJournal) => (await j.read("p")).entries.map((e) => `${e.entry_type}:${e.step_id}`).sort();
    expect(await shape(serial.inner)).toEqual(await shape(grouped.inner));
  });

  it("every append names the lease it is written under: the run's own", async () => {
    const r = recorded();
    runners.push(r.inner);
    await runner(r.journal).start(await graphOf(PARALLEL), {}, "p");
    expect(new Set(r.appends.map((a) => a.opts.lease))).toEqual(new Set(["p"]));
  });
});

describe("wake-ups for the workers", () => {
  const NAP = `${HEAD("nap")}\nwait "nap" {\n  duration = "60s"\n  next = "done"\n}\n`;

  it("a submitted run wakes its own job in the append of its run.spawned, and runs nothing", async () => {
    const r = recorded();
    runners.push(r.inner);
    await expect(runner(r.journal, { submit: true }).start(await graphOf(NAP), {}, "s")).rejects.toBeInstanceOf(RunSubmitted);
    expect(r.appends.map((a) => a.types)).toEqual([["run.spawned"]]);
    expect(r.appends[0].opts.wake).toEqual([{ runs: ["s"] }]);
  });

  it("a parking run hands its timer to the workers (a wake-up at the wait's end, for its own job); a run that waits itself hands none", async () => {
    let now = 1_000_000;
    const parking = recorded();
    runners.push(parking.inner);
    await expect(runner(parking.journal, { park: true, parkTimers: true, clock: () => now }).start(await graphOf(NAP), {}, "w")).rejects.toBeInstanceOf(RunParked);
    const wakes = parking.appends.flatMap((a) => [a.opts.wake ?? []].flat());
    expect(wakes).toEqual([{ atMs: 1_060_000, runs: ["w"] }]);

    const waiting = recorded();
    runners.push(waiting.inner);
    const end = await runner(waiting.journal, { clock: () => now, sleep: async (ms) => void (now += ms) }).start(await graphOf(NAP), {}, "w");
    expect(end).toMatchObject({ state: "done" });
    expect(waiting.appends.flatMap((a) => [a.opts.wake ?? []].flat())).toEqual([]);
    // Not even an empty list: the store is asked for no wake-up at all.
    expect(waiting.appends.filter((a) => a.opts.wake !== undefined)).toEqual([]);
  });
});

describe("a journal that cannot be written", () => {
  const ONE = `${HEAD("a")}\nadapter "noop" "default" {}\nstep "a" {\n  target = adapter.noop.default\n  outcome "success" { next = "done" }\n}\n`;

  it("before the run exists: start refuses, saying nothing was started", async () => {
    const r = recorded({ failAt: 0 });
    runners.push(r.inner);
    const e = await runner(r.journal).start(await graphOf(ONE), {}, "f").catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RunRefused);
    expect((e as Error).message).toBe(`cannot write the journal ${r.inner.location}: the disk is full; nothing was started (run f was not created): check the state directory's permissions and free space, then apply again`);
  });

  it("once the run exists: the write error names the run (resume continues it)", async () => {
    const r = recorded({ failAt: 1 });
    runners.push(r.inner);
    const e = await runner(r.journal).start(await graphOf(ONE), {}, "f").catch((x: unknown) => x);
    expect(e).toBeInstanceOf(JournalWriteError);
    expect((e as JournalWriteError & { runId?: string }).runId).toBe("f");
  });
});

describe("secrets", () => {
  const GATE = `${HEAD("gate")}
variable "token" {
  type   = string
  secret = true
}
variable "pin" {
  type   = number
  secret = true
}
variable "region" {
  type = string
}
output "length" {
  value  = length(var.token)
  secret = true
}
output "pin" {
  value  = var.pin
  secret = true
}
output "region" { value = var.region }
wait "gate" {
  signal = "go"
  next = "done"
}`;

  it("a secret variable's value is in no journaled byte; resume asks for it again, by name, and takes it from secretVars or CRITERIA_VAR_<name>, typed", async () => {
    const r = recorded();
    runners.push(r.inner);
    const g = await graphOf(GATE);
    await expect(runner(r.journal, { park: true }).start(g, { token: "hunter2-long-secret", pin: 7, region: "eu" }, "s")).rejects.toBeInstanceOf(RunParked);
    const db = new Database(join(r.dir, "journal.db"), { readonly: true });
    const bytes = (db.prepare("SELECT payload FROM journal").all() as { payload: string }[]).map((x) => x.payload).join("\n");
    db.close();
    expect(bytes).not.toContain("hunter2-long-secret");
    expect((await r.inner.spawned("s"))?.secret_variables).toEqual(["token", "pin"]);

    const refused = await runner(r.journal).resume("s").catch((x: unknown) => x);
    expect(refused).toBeInstanceOf(RunNeedsSecrets);
    expect((refused as RunNeedsSecrets).names).toEqual(["token", "pin"]);
    expect((refused as Error).message).toBe('secret variables "token", "pin" are not journaled: pass --var token=... (or CRITERIA_VAR_token) and --var pin=... (or CRITERIA_VAR_pin) to resume');

    const one = await runner(r.journal, { secretVars: { token: "12345678" } }).resume("s").catch((x: unknown) => x);
    expect((one as Error).message).toBe('secret variable "pin" is not journaled: pass --var pin=... (or CRITERIA_VAR_pin) to resume');

    await deliverSignal(r.journal, "s", "go", null, "test", Date.now());
    process.env.CRITERIA_VAR_pin = "35";
    try {
      const end = await runner(r.journal, { secretVars: { token: "12345678" } }).resume("s");
      // The journaled variables come back as they were; a secret given again is converted to its type.
      expect(end).toMatchObject({ state: "done", success: true, outputs: { length: 8, pin: 35, region: "eu" } });
    } finally {
      delete process.env.CRITERIA_VAR_pin;
    }
  });

  it("a submitted run asks its workers for a secret it was not given, and journals none", async () => {
    const r = recorded();
    runners.push(r.inner);
    await expect(runner(r.journal, { submit: true }).start(await graphOf(GATE), { pin: 1, region: "eu" }, "q")).rejects.toBeInstanceOf(RunSubmitted);
    expect((await r.inner.spawned("q"))?.secret_variables).toEqual(["token", "pin"]);
  });
});

describe("resume refuses", () => {
  it("a run the journal does not have, and a child run that runs in its parent's job (a usage error naming its root)", async () => {
    const r = recorded();
    runners.push(r.inner);
    const missing = await runner(r.journal).resume("nope").catch((x: unknown) => x);
    expect(missing).toBeInstanceOf(RunRefused);
    expect((missing as Error).message).toBe(`no run nope in the journal (criteria runs --state-dir ${r.dir} lists them)`);
    const body = `${HEAD("loop")}\nstep "loop" {\n  count = 2\n  workflow {\n    step "work" {\n      adapter = "noop"\n      outcome "success" { next = "_continue" }\n    }\n  }\n  outcome "all_succeeded" { next = "done" }\n  outcome "any_failed" { next = "done" }\n}\n`;
    await runner(r.journal).start(await graphOf(body), {}, "p");
    const child = (await r.inner.runs({ roots: false })).find((x) => x.parent_run_id === "p")!;
    const nested = await runner(r.journal).resume(child.run_id).catch((x: unknown) => x);
    expect(nested).toBeInstanceOf(RunRefused);
    expect((nested as RunRefused).usage).toBe(true);
    expect((nested as Error).message).toBe(`run ${child.run_id} is a child run that runs in its parent's job: resume its root run, criteria resume p --state-dir ${r.dir}`);
  });
});

/** An effectful adapter answering success with the step's name; each step it runs is pushed to `calls`. */
function countAdapter(calls: string[] = []): Adapter {
  return {
    type: "count",
    effectful: true,
    async open() {
      return {
        execute: async (req) => {
          calls.push(req.step);
          return { outcome: "success", output: { step: req.step }, reason: "ok" };
        },
        close: async () => undefined,
      };
    },
  };
}

describe("resume of a damaged journal", () => {
  const TWO = `${HEAD("one")}
adapter "count" "default" {}
step "one" {
  target = adapter.count.default
  outcome "success" { next = "two" }
}
step "two" {
  target = adapter.count.default
  outcome "success" { next = "done" }
}`;

  it("is refused naming the damage; with discardDamaged the entries from it on are set aside, said in a warning naming the step that runs again", async () => {
    const calls: string[] = [];
    const count = countAdapter(calls);
    const dir = mkdtempSync(join(tmpdir(), "criteria-runner-damage-"));
    const journal = new SqliteJournal(dir);
    runners.push(journal);
    const g = await graphOf(TWO);
    const adapters = (t: string) => (t === "count" ? count : adapterFor(t));
    await new Runner({ journal, adapterFor: adapters, baseDir: dir }).start(g, {}, "d");
    // Damage step "two"'s confirmed effect: its checksum no longer holds.
    const entries = (await journal.read("d")).entries;
    const two = entries.find((e) => e.entry_type === "effect.confirmed" && e.step_id === "two")!;
    const db = new Database(join(dir, "journal.db"));
    db.prepare("UPDATE journal SET payload = replace(payload, '\"success\"', '\"failure\"') WHERE seq = ?").run(two.seq);
    db.close();
    // The run ended, but its end lies past the damage: resume must look at the journal.
    const refused = await new Runner({ journal, adapterFor: adapters, baseDir: dir }).resume("d").catch((x: unknown) => x);
    expect(refused).toBeInstanceOf(JournalDamagedError);
    const events: RunEvent[] = [];
    calls.length = 0;
    const end = await new Runner({ journal, adapterFor: adapters, baseDir: dir, discardDamaged: true, events: (e) => events.push(e) }).resume("d");
    expect(end).toMatchObject({ state: "done", success: true });
    const warning = events.find((e) => e.event === "warning") as { message: string } | undefined;
    expect(warning?.message).toMatch(new RegExp(`^--discard-damaged: set aside \\d+ journal entries from entry ${two.seq} on \\(the journal's quarantine keeps them\\); step "two" runs again$`));
    expect(calls).toEqual(["two"]);
    // What was set aside is journaled after what remains, with the step that ran again.
    const discarded = (await journal.read("d")).entries.filter((e) => e.entry_type === "run.damage_discarded");
    const moved = Number(/set aside (\d+) journal entries/.exec(warning!.message)![1]);
    expect(discarded.map((e) => e.payload)).toEqual([{ from_seq: two.seq, entries: moved, steps: ["two"] }]);
    // Set-aside seqs are never given again: it comes right after them, first of what is new.
    const after = (await journal.read("d")).entries.filter((e) => e.seq >= two.seq);
    expect(after[0]).toMatchObject({ entry_type: "run.damage_discarded", seq: two.seq + moved });
  });

  it("the warning names every step that runs again, or none when only the run's end was set aside", async () => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-runner-damage-"));
    const journal = new SqliteJournal(dir);
    runners.push(journal);
    const adapters = (t: string) => (t === "count" ? countAdapter() : adapterFor(t));
    const g = await graphOf(TWO);
    const damaged = async (id: string, pick: (e: { entry_type: string; step_id: string }) => boolean) => {
      await new Runner({ journal, adapterFor: adapters, baseDir: dir }).start(g, {}, id);
      const seq = (await journal.read(id)).entries.find(pick)!.seq;
      const db = new Database(join(dir, "journal.db"));
      db.prepare("UPDATE journal SET at_ms = at_ms + 1 WHERE seq = ?").run(seq);
      db.close();
      const events: RunEvent[] = [];
      const end = await new Runner({ journal, adapterFor: adapters, baseDir: dir, discardDamaged: true, events: (e) => events.push(e) }).resume(id);
      expect(end).toMatchObject({ state: "done", success: true });
      return { seq, message: (events.find((e) => e.event === "warning") as { message: string }).message };
    };
    const both = await damaged("d2", (e) => e.entry_type === "effect.confirmed" && e.step_id === "one");
    expect(both.message).toMatch(new RegExp(`^--discard-damaged: set aside \\d+ journal entries from entry ${both.seq} on \\(the journal's quarantine keeps them\\); steps "one", "two" run again$`));
    const end = await damaged("d0", (e) => e.entry_type === "run.completed");
    expect(end.message).toBe(`--discard-damaged: set aside 1 journal entries from entry ${end.seq} on (the journal's quarantine keeps them)`);
  });

  it("damaged at its first entry, nothing is set aside even with discardDamaged: there is nothing to resume from", async () => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-runner-damage-"));
    const journal = new SqliteJournal(dir);
    runners.push(journal);
    await new Runner({ journal, adapterFor, baseDir: dir }).start(await graphOf(PARALLEL), {}, "d");
    const before = (await journal.read("d")).entries.length;
    const db = new Database(join(dir, "journal.db"));
    db.prepare("UPDATE journal SET at_ms = at_ms + 1 WHERE seq = 1").run();
    db.close();
    const e = await new Runner({ journal, adapterFor, baseDir: dir, discardDamaged: true }).resume("d").catch((x: unknown) => x);
    expect(e).toBeInstanceOf(JournalDamagedError);
    const db2 = new Database(join(dir, "journal.db"), { readonly: true });
    expect((db2.prepare("SELECT count(*) AS n FROM journal").get() as { n: number }).n).toBe(before);
    db2.close();
  });
});

describe("start refuses a run id already taken (a usage error, nothing written)", () => {
  const ONE = `${HEAD("a")}\nadapter "noop" "default" {}\nstep "a" {\n  target = adapter.noop.default\n  outcome "success" { next = "done" }\n}\n`;
  const NAP = `${HEAD("nap")}\nwait "nap" {\n  signal = "go"\n  next = "done"\n}\n`;
  const count = async (j: SqliteJournal, id: string) => (await j.read(id)).entries.length;

  it("by a run that has ended: it names its status and where to read it", async () => {
    const r = recorded();
    runners.push(r.inner);
    await runner(r.journal).start(await graphOf(ONE), {}, "t");
    const before = await count(r.inner, "t");
    const e = await runner(r.journal).start(await graphOf(ONE), {}, "t").catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RunRefused);
    expect((e as RunRefused).usage).toBe(true);
    expect((e as Error).message).toBe(`run t already exists and has ended (succeeded); choose another --run-id (criteria journal t --state-dir ${r.dir} shows it)`);
    expect(await count(r.inner, "t")).toBe(before);
  });

  it("by an active run: resume continues it", async () => {
    const r = recorded();
    runners.push(r.inner);
    await expect(runner(r.journal, { park: true }).start(await graphOf(NAP), {}, "t")).rejects.toBeInstanceOf(RunParked);
    const before = await count(r.inner, "t");
    const e = await runner(r.journal).start(await graphOf(NAP), {}, "t").catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RunRefused);
    expect((e as RunRefused).usage).toBe(true);
    expect((e as Error).message).toBe(`run t already exists; continue it with criteria resume t --state-dir ${r.dir}, or choose another --run-id`);
    expect(await count(r.inner, "t")).toBe(before);
  });

  it("in a database's journal: the command it suggests names the store (--store), not a state directory", async () => {
    const r = recorded();
    runners.push(r.inner);
    await expect(runner(r.journal, { park: true }).start(await graphOf(NAP), {}, "t")).rejects.toBeInstanceOf(RunParked);
    // The same journal seen as a database's: not beside a checkout, located by its URL.
    const database = new Proxy(r.journal, { get: (target, prop, receiver) => (prop === "besideCheckout" ? false : prop === "location" ? "postgres://ci@db/criteria" : (Reflect.get(target, prop, receiver) as unknown)) });
    const e = await runner(database).start(await graphOf(NAP), {}, "t").catch((x: unknown) => x);
    expect((e as Error).message).toBe("run t already exists; continue it with criteria resume t --store postgres://ci@db/criteria, or choose another --run-id");
  });

  it("by an active run whose first entry is damaged: resume is not offered; damage further on still offers it", async () => {
    const r = recorded();
    runners.push(r.inner);
    await expect(runner(r.journal, { park: true }).start(await graphOf(NAP), {}, "t")).rejects.toBeInstanceOf(RunParked);
    const last = (await r.inner.read("t")).entries.at(-1)!.seq;
    expect(last).toBeGreaterThan(1);
    const damage = (seq: number) => {
      const db = new Database(join(r.dir, "journal.db"));
      db.prepare("UPDATE journal SET at_ms = at_ms + 1 WHERE seq = ?").run(seq);
      db.close();
    };
    damage(last);
    const later = await runner(r.journal).start(await graphOf(NAP), {}, "t").catch((x: unknown) => x);
    expect((later as Error).message).toBe(`run t already exists; continue it with criteria resume t --state-dir ${r.dir}, or choose another --run-id`);
    damage(1);
    const first = await runner(r.journal).start(await graphOf(NAP), {}, "t").catch((x: unknown) => x);
    expect(first).toBeInstanceOf(RunRefused);
    expect((first as RunRefused).usage).toBe(true);
    expect((first as Error).message).toBe("run t already exists, and cannot be resumed: its first entry (1), which holds its workflow, fails its checksum; leave out --run-id for a new run of the workflow, or choose another");
  });
});
