/**
 * Chaos on loopback (the scale-out issue, item 5): 3 worker processes share a PostgreSQL
 * journal; 50 runs of a workflow with effectful shell steps, an iterating step, a
 * subworkflow (run in a job of its own) and a duration wait are submitted; every few seconds a random worker is
 * SIGKILLed (and replaced), and one is SIGSTOPped until its runs are taken over, then continued.
 * Every run must end as pinned; every effect must be confirmed exactly once (one
 * `effect.confirmed` per idempotency key: a worker that lost its lease never confirms), and
 * the ledger the steps write must show no confirmed effect run again.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compile } from "../../../compiler/index.js";
import { apply, RunSubmitted } from "../../../engine/index.js";
import type { JournalEntry } from "../../../engine/journal/entry.js";
import { PostgresJournal } from "../../../engine/journal/postgres-journal.js";
import { temp } from "../../pipeline/helpers.js";
import { useCluster } from "../journal/postgres-cluster.js";
import { seededRandom } from "../../seeded-random.js";
import { chaos, startWorker, stopWorker, until, type WorkerProcess } from "./helpers.js";

const { skip, cluster } = useCluster();

const RUNS = 50;
const WORKERS = 3;
const TTL_MS = 1500;
const OUTPUTS = { summary: "ready\n/a,b,c/s/all-done\n" };

/** How many live leases each worker process holds, by pid (the owner token is `host:pid:random`). */
async function leasesByPid(url: string): Promise<Map<number, number>> {
  const { default: pg } = await import("pg");
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const { rows } = await c.query<{ owner: string; n: string }>("SELECT owner, count(*) AS n FROM leases WHERE pid <> 0 AND expires_at > clock_timestamp() GROUP BY owner");
  await c.end();
  return new Map(rows.map((r) => [Number(r.owner.split(":")[1]), Number(r.n)]));
}

/** How many run trees the process `pid` still holds the lease of, live or expired (not taken over, not given back). */
async function heldBy(url: string, pid: number): Promise<number> {
  const { default: pg } = await import("pg");
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const { rows } = await c.query<{ n: string }>("SELECT count(*) AS n FROM leases WHERE pid = $1", [pid]);
  await c.end();
  return Number(rows[0].n);
}

describe.skipIf(skip !== undefined)("workers under chaos", () => {
  it(`${RUNS} runs, ${WORKERS} workers, SIGKILL and SIGSTOP: every run ends as pinned, every effect confirmed once`, async () => {
    const seed = Number(process.env.CHAOS_SEED ?? Date.now() % 100_000);
    console.log(`chaos seed ${seed} (CHAOS_SEED=${seed} replays the schedule)`);
    const random = seededRandom(seed);
    const url = await cluster().freshDatabase();
    const dir = temp("criteria-chaos-");
    const ledger = join(dir, "ledger");
    const env = { CRITERIA_LEASE_TTL_MS: String(TTL_MS) };

    // Submitted in-process (one compile, fifty run.spawned + wake-ups); the workers are real processes.
    const c = await compile(chaos);
    expect(c.graph, JSON.stringify(c.diagnostics)).toBeDefined();
    for (let i = 0; i < RUNS; i++) {
      const r = await apply(c.graph!, { ledger, pace: "0.8" }, { store: url, stateDir: join(dir, "submit"), baseDir: join(chaos, ".."), runId: `c${i}`, detach: true }).catch((e: unknown) => e);
      expect(r).toBeInstanceOf(RunSubmitted);
    }

    let serial = 0;
    const start = () => startWorker(url, join(dir, `w${serial++}`), env);
    const live: WorkerProcess[] = Array.from({ length: WORKERS }, start);
    const finished: WorkerProcess[] = [];
    const killed: WorkerProcess[] = [];
    const frozen: WorkerProcess[] = [];
    let kills = 0;
    let stops = 0;
    let frozenHeld = 0;
    /** Runs the frozen worker still held when it was continued (none were taken over from it: it may go on with them). */
    let stillHeld = 0;
    const deadline = Date.now() + 150_000;
    /** SIGKILLs a live worker (not one frozen, nor `spare`) and starts another in its place. */
    const killOne = (spare?: WorkerProcess) => {
      const candidates = live.filter((w) => !frozen.includes(w) && w !== spare);
      const victim = candidates[Math.floor(random() * candidates.length)];
      live.splice(live.indexOf(victim), 1);
      process.kill(-victim.child.pid!, "SIGKILL");
      killed.push(victim);
      kills++;
      live.push(start());
    };
    const allEnded = () => until(url, (rows) => rows.length === RUNS && rows.every((r) => r.status !== "active"), 0);
    while (Date.now() < deadline && !(await allEnded()).every((r) => r.status !== "active")) {
      await new Promise((r) => setTimeout(r, 800 + random() * 1200));
      // A zombie, once, after the first three kills (frozen first, the other workers could finish
      // every run during the freeze, before the third kill: found by a suite run, 2 kills): the
      // worker holding the most runs (at least two, so that some of them are mid-step when it
      // comes back) is frozen past its lease, then continued (and spared the kills after, so its
      // report of what it was refused is kept).
      const held = kills >= 3 && stops === 0 ? await leasesByPid(url) : new Map<number, number>();
      const busy = live.filter((w) => !frozen.includes(w)).reduce((best, w) => ((held.get(w.child.pid!) ?? 0) > (held.get(best.child.pid!) ?? 0) ? w : best));
      if ((held.get(busy.child.pid!) ?? 0) >= 2) {
        frozenHeld = held.get(busy.child.pid!)!;
        busy.child.kill("SIGSTOP");
        // Frozen until every run it held has been taken over by another worker (20 s at most),
        // while the kills go on (one per lease period, three more; CHAOS_KILLS_DURING_FREEZE=0
        // turns them off). This variant was opt-in while one of its runs had a run with 8
        // effect confirmations instead of 7 (seed 38282) and the default one an effect run
        // twice in attempt 1 (seed 48404): both were a frozen worker's append committed after
        // its lease was taken over (postgres.test.ts, "a holder frozen mid-append").
        const thawAt = Date.now() + 20_000;
        do {
          await new Promise((r) => setTimeout(r, TTL_MS));
          if (process.env.CHAOS_KILLS_DURING_FREEZE !== "0" && kills < 6) killOne(busy);
        } while ((stillHeld = await heldBy(url, busy.child.pid!)) > 0 && Date.now() < thawAt);
        busy.child.kill("SIGCONT");
        frozen.push(busy);
        stops++;
      } else killOne();
    }
    const rows = await allEnded();
    for (const w of live) {
      await stopWorker(w);
      finished.push(w);
    }
    const reports = finished.map((w) => w.out().split("\n").filter((l) => l.startsWith('{"event":"exit"')).map((l) => JSON.parse(l) as { fenced: number; swept: number; busy: number; advanced: number })[0]);
    console.log(`chaos: ${kills} workers killed, ${stops} frozen past their lease (holding ${frozenHeld} runs, ${stillHeld} still when continued); exits: ${JSON.stringify(reports)}`);

    const failed = rows.filter((r) => r.status !== "succeeded");
    if (failed.length > 0 || process.env.CHAOS_KEEP) {
      // Kept for a post-mortem: every worker's output.
      const { writeFileSync } = await import("node:fs");
      [...finished, ...killed].forEach((w, i) => writeFileSync(join(dir, `worker-${i}.log`), w.out()));
      console.log(`chaos: worker logs in ${dir}`);
    }
    if (failed.length > 0) {
      // Say why, from the journal: the failing steps' reasons.
      const j = await PostgresJournal.open(url, { stateDir: dir, mustExist: true });
      const why: unknown[] = [];
      for (const r of failed.slice(0, 3)) {
        why.push((await j.read(r.run_id)).entries.map((e) => `${e.seq} ${e.run_id} ${e.step_id} a${e.attempt} ${e.entry_type} ${JSON.stringify(e.payload).slice(0, 160)}`));
      }
      await j.close();
      expect(failed.map((r) => r.run_id), JSON.stringify(why, null, 1)).toEqual([]);
    }
    expect(rows).toHaveLength(RUNS);

    // The ledger against the journal.
    const lines = readFileSync(ledger, "utf8").trim().split("\n").map((l) => l.split(" ") as [string, string]);
    const j = await PostgresJournal.open(url, { stateDir: dir, mustExist: true });
    let effects = 0;
    let again = 0;
    try {
      const keys = new Set<string>();
      for (let i = 0; i < RUNS; i++) {
        const entries = (await j.read(`c${i}`)).entries;
        const end = entries.find((e) => e.entry_type === "run.completed" && e.run_id === `c${i}`);
        expect(end?.payload, `c${i}`).toMatchObject({ state: "done", success: true, outputs: OUTPUTS });
        // The subworkflow (it inherits only the stateless shell session) ran in a job of its own.
        expect(entries.filter((e) => e.entry_type === "run.spawned" && (e.payload as { detached?: boolean }).detached).map((e) => e.run_id)).toEqual([`c${i}/stage#1`]);
        const confirmed = entries.filter((e): e is JournalEntry<"effect.confirmed"> => e.entry_type === "effect.confirmed");
        // On a failure, the run's effect and attempt entries say what happened.
        const story = () => entries.filter((e) => e.entry_type.startsWith("effect.") || e.entry_type.startsWith("step.")).map((e) => `${e.seq} ${e.run_id} ${e.step_id} a${e.attempt} ${e.entry_type} ${JSON.stringify(e.payload).slice(0, 120)}`).join("\n");
        expect(confirmed.length, `run c${i}:\n${story()}`).toBe(7);
        for (const e of confirmed) {
          const key = e.payload.idempotency_key;
          expect(keys.has(key), `effect ${key} confirmed twice`).toBe(false);
          keys.add(key);
          const ran = lines.filter(([k]) => k === key).map(([, a]) => Number(a));
          // It ran in the attempt that was confirmed, exactly once; never after it.
          expect(ran.filter((a) => a === e.attempt), `effect ${key} attempt ${e.attempt}: ${JSON.stringify(ran)}`).toHaveLength(1);
          expect(ran.every((a) => a <= e.attempt), `effect ${key} ran after its confirmation: ${JSON.stringify(ran)}`).toBe(true);
          again += ran.length - 1;
          effects++;
        }
      }
      // Nothing ran that is not one of these effects.
      expect(lines.filter(([k]) => !keys.has(k))).toEqual([]);
    } finally {
      await j.close();
    }
    console.log(`chaos: ${effects} effects confirmed once each; ${again} ran again after a kill before their confirmation`);
    // Then that the chaos was what it should be (checked after the promise, so that a run
    // short of kills still says whether every effect happened once).
    expect(kills).toBeGreaterThanOrEqual(3);
    expect(stops, "no worker ever held two runs at once: nothing to freeze").toBe(1);
    // A frozen worker held runs when it came back, all taken over from it: it was fenced, not
    // allowed to confirm. (With kills during the freeze, the worker taking a run over may be
    // killed too, and after 20 s the frozen one is continued still holding a lease nobody
    // took: going on with it is no zombie. Two loops of that variant failed here, every
    // effect confirmed once.)
    if (stillHeld === 0) expect(reports.reduce((n, r) => n + (r?.fenced ?? 0), 0), `the frozen worker held ${frozenHeld} runs`).toBeGreaterThan(0);
  }, 240_000);
});
