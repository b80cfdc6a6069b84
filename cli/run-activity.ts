/**
 * What an active run is doing, in `criteria runs`'s and `journal --follow`'s words: held and
 * running, queued for the workers, parked at what it waits for, stopped, its holder gone, or
 * damaged; and the commands that move it on. Reads the journal (and the workers' queue), writes
 * nothing.
 */
import type { TreeRecord, Waiting } from "../engine/journal/fold.js";
import type { Journal, LeaseHolder } from "../engine/journal/journal.js";
import { signalCommand } from "../engine/run/signal-command.js";
import { shellWord } from "../engine/shell-word.js";
import { storeFlag, type JournalPlace } from "./journal-place.js";
import { graphsOf } from "./run-graphs.js";
import { engine } from "./run-session.js";

/**
 * What an active root run (and so each of its active nested runs) is doing, for `criteria runs`: `activity` for machines (`-o json`),
 * `text` for people (its words in both). running: a live process holds it; queued: a worker
 * takes it soon; parked: it waits for an approval, a signal, a message or a timer; stopped:
 * nothing advances it until a resume; holder_gone: the process that held it is gone;
 * damaged: an entry of its journal fails its checksum, so resume refuses it as it stands.
 */
export interface Idle {
  activity: "running" | "queued" | "parked" | "stopped" | "holder_gone" | "damaged";
  text: string;
}

const idle = (activity: Idle["activity"], text: string): Idle => ({ activity, text });

/**
 * A damaged run's words for `criteria runs`: what resume would say, in short (found by a
 * new-user trial: a run whose first entry was damaged was offered `criteria resume`, which
 * refused it).
 */
async function damagedIdle(j: Journal, run: string, seq: number, flag: string): Promise<Idle> {
  const report = await j.damageReport(run, seq);
  return idle(
    "damaged",
    report.first
      ? `damaged: its first entry (${seq}), which holds its workflow, fails its checksum, so it cannot be resumed; criteria apply PATH${flag} starts the workflow afresh as a new run (its id stays taken)`
      : `damaged: entry ${seq} fails its checksum; criteria resume ${run}${flag} says what resuming past it loses, --discard-damaged does it`,
  );
}

/**
 * The words for a holder no longer running what it held (`what`: "it", or "its child run …"):
 * gone, its lease still running (a holder of this host known dead), else one that stopped
 * renewing it, gone, frozen or cut off (a new-user trial: a frozen apply was called "gone");
 * either way a worker takes it over; `also` says what else continues it.
 */
function holderGone(h: LeaseHolder, what: string, also = ""): string {
  const at = new Date(h.expiresMs).toISOString();
  return h.expiresMs > Date.now()
    ? `not running: process ${h.pid} on ${h.host} that ran ${what} is gone; a worker takes it over once its lease ends at ${at}${also}`
    : `not running: process ${h.pid} on ${h.host} that ran ${what} stopped renewing its lease (gone, frozen or cut off), which ran out at ${at}; a worker takes it over${also}`;
}

/**
 * What an active root run no live process holds is doing on a shared database, for
 * `criteria runs`: queued for the workers (a job due now); held by a process that is gone (a
 * worker's sweeper takes it over once the lease ends); ready to go on, its signal or decision
 * given, with a job or nothing to advance it; parked on what it waits for (a worker takes it
 * when that comes, or when its timer's job is due); or stopped with nothing to advance it (Ctrl-C
 * of a foreground apply, an unlock, a foreground run stopped at a duration wait, whose timer
 * no worker holds). Found by new-user trials: "a worker takes it when it is woken" of a run
 * nothing would wake, "queued" of a run parked for 15 minutes, "waiting for approval" of one
 * already approved.
 */
async function idleOnStore(j: Journal, run: string, flag: string, holder: LeaseHolder | undefined): Promise<Idle> {
  const { PostgresJournal, openDeadlines } = await engine();
  const job = j instanceof PostgresJournal ? await j.queuedJob(run) : undefined;
  const at = (ms: number) => new Date(ms).toISOString();
  // A gone holder's lease that has not ended keeps the run from every worker, whatever job is
  // queued (found by a new-user trial: "queued: a worker takes it", up to a lease period early).
  // Its lease running is a holder of this host known dead; run out, a holder anywhere that
  // stopped renewing it, gone or frozen (a new-user trial: a frozen apply was called "gone").
  const gone = holder && holderGone(holder, "it", `, or criteria resume ${run}${flag} continues it here`);
  if (gone && holder.expiresMs > Date.now()) return idle("holder_gone", gone);
  // Taken with unlock while its worker still stops the step (its job locked): not queued; it
  // waits for its user (found by a new-user trial: "queued: a worker takes it" for ~10 s).
  if (job?.locked && !holder && j instanceof PostgresJournal && (await j.leaseBroken(run))) {
    return idle("stopped", `stopped: its lease was taken (criteria unlock), and the worker that ran it stops what it runs at its next heartbeat; then nothing advances it: criteria resume ${run}${flag} continues it here, or with --detach hands it to the workers`);
  }
  if (job && job.dueInMs <= 1000) return idle("queued", "queued: a worker takes it");
  if (gone) return idle("holder_gone", gone);
  const stopped = `nothing advances it; criteria resume ${run}${flag} continues it here, or with --detach hands it to the workers`;
  const read = await readWaits(j, run, flag);
  if ("damaged" in read) return read.damaged;
  const { answered, waiting, words, still, tree } = read;
  if (answered.length > 0) return job ? idle("queued", `queued: its ${answered.join(", ")}; a worker takes it at ${at(job.atMs)}${still}`) : idle("stopped", `stopped: its ${answered.join(", ")}, but ${stopped}${still}`);
  if (waiting.length > 0) {
    const here = `criteria resume ${run}${flag} continues it here`;
    // A duration wait's timer is a worker's job only when a parked run handed it over.
    if (waiting.every((w) => w.kind === "time")) return job ? idle("parked", `parked, waiting for ${words}: a worker takes it at ${at(job.atMs)}; ${here}`) : idle("stopped", `stopped at ${words}: no worker holds its timer; ${stopped}`);
    // The deadline of what it waits for now, not the due time of any job of it: a finished
    // wait's timer stays queued (found by a new-user trial: an approval without a deadline was
    // said to be due at the signal wait's, passed before it).
    const deadlines = openDeadlines(tree).map((d) => d.untilMs);
    const due = deadlines.length > 0 ? Math.min(...deadlines) : undefined;
    return idle("parked", `parked, waiting for ${words}: a worker takes it when that comes${job && due !== undefined ? `, or at ${at(due)} when its deadline is due` : ""}; ${here}`);
  }
  if (job) return idle("queued", `queued: a worker takes it at ${at(job.atMs)}`);
  return idle("stopped", `stopped: ${stopped}`);
}

/**
 * What an active root run is doing, for `criteria runs` and `journal --follow`: running when
 * a live process holds it; on a shared store, running when a live process holds one of its
 * child runs (each advanced in a worker's job under a lease of its own: a new-user trial saw
 * "stopped: nothing advances it" and a resume that was refused), holder_gone when a process
 * that is gone held one (a worker takes it over when that lease ends: the same trial, after a
 * worker was killed); else what {@link idleOnStore} or {@link idleHere} says.
 */
export async function activityOf(j: Journal, root: string, place: JournalPlace): Promise<Idle> {
  const holder = await j.holder(root);
  if (holder?.alive) return runningNow(j, root, `running: process ${holder.pid} on ${holder.host}`);
  const flag = storeFlag(place);
  if (!place.store) return idleHere(j, root, flag);
  let gone: Idle | undefined;
  for (const child of await j.runs({ childrenOf: root, active: true, limit: 100_000 })) {
    const h = await j.holder(child.run_id);
    if (h?.alive) return idle("running", `running: its child run ${child.run_id} on process ${h.pid} on ${h.host}`);
    if (h && !gone) gone = idle("holder_gone", holderGone(h, `its child run ${child.run_id}`));
  }
  return gone ?? idleOnStore(j, root, flag, holder);
}

/**
 * What an active root run of a local journal no process holds is doing, for `criteria runs`:
 * parked at what it waits for (an approval, a signal, a message; or the time of a duration
 * wait), ready to go on (its decision or signal given), or stopped (killed, or Ctrl-C). Found
 * by a new-user trial: a run parked at an approval was listed as "active (stopped)". The
 * commands it suggests name `flag` (` --state-dir DIR` when the journal is not the default one).
 */
async function idleHere(j: Journal, run: string, flag: string): Promise<Idle> {
  const { timedOutIn } = await engine();
  const read = await readWaits(j, run, flag);
  if ("damaged" in read) return read.damaged;
  const { tree, answered, waiting, words, still, give } = read;
  if (answered.length > 0) return idle("stopped", `stopped: its ${answered.join(", ")}; criteria resume ${run}${flag} continues it${still}`);
  const late = timedOutIn(tree, Date.now());
  if (late.length > 0) return idle("stopped", `stopped: its ${late.join(", ")} timed out; criteria resume ${run}${flag} takes the timeout route`);
  if (waiting.length > 0 && waiting.every((w) => w.kind === "time")) return idle("stopped", `stopped at ${words}: criteria resume ${run}${flag} waits out the rest`);
  if (waiting.length > 0) return idle("parked", `parked, waiting for ${words}: ${give}, then criteria resume ${run}${flag}`);
  return idle("stopped", `stopped: criteria resume ${run}${flag} continues it`);
}

/**
 * Run `run`'s tree read for what it waits for: the waits answered and not taken yet
 * (fold.ts `answeredIn`), those still waiting and their words, and `still`, what else waits
 * once some of it was answered, with how to give it (found by a new-user trial: one of two
 * parallel approvals decided read as if both were); or, for a damaged journal, what to say.
 */
async function readWaits(j: Journal, run: string, flag: string): Promise<{ damaged: Idle } | { tree: TreeRecord; answered: string[]; waiting: Waiting[]; words: string; still: string; give: string }> {
  const { foldEntries, waitingIn, answeredIn, outcomesToName } = await engine();
  const read = await j.read(run);
  if (read.damage) return { damaged: await damagedIdle(j, run, read.damage.seq, flag) };
  const tree = foldEntries(read.entries);
  const waiting = waitingIn(tree);
  const words = waiting.map((w) => w.text).join(", ");
  // A wait with only named outcomes (approved / rejected) is ended by a signal naming one.
  const waits = graphsOf(tree, run).flatMap((g) => g.waits);
  const outcomesOf = (signal: string) => outcomesToName(waits, signal);
  const give = giveWith(run, waiting, flag, outcomesOf);
  const still = waiting.length > 0 ? `; it still waits for ${words}: ${give}` : "";
  return { tree, answered: answeredIn(tree), waiting, words, still, give };
}

/**
 * How to give what a run waits for (`waiting`: fold.ts `waitingIn`), as commands that
 * can be pasted: `criteria approve RUN gate FLAG (or reject)`, `criteria signal RUN go FLAG`;
 * "give it" for what no command gives (a channel's message). Found by a new-user trial: "give
 * it" named no command.
 */
function giveWith(run: string, waiting: readonly Waiting[], flag: string, outcomesOf: (signal: string) => string[] | undefined): string {
  const commands: string[] = [];
  for (const w of waiting) {
    if (w.kind === "approval") commands.push(`criteria approve ${shellWord(run)} ${shellWord(w.name)}${flag} (or criteria reject ${shellWord(run)} ${shellWord(w.name)}${flag})`);
    // Its wait may route no signal that names no outcome (found by a trial of the Go tool's docs: the command given was refused).
    else if (w.kind === "signal") commands.push(signalCommand(run, w.name, flag, outcomesOf(w.name)));
  }
  return commands.length === waiting.length ? `give it with ${commands.join("; ")}` : "give it";
}

/**
 * What a run a live process holds is doing: running, and what it waits for if it waits (found
 * by a new-user trial: a foreground apply waiting at an approval read just "running").
 */
async function runningNow(j: Journal, run: string, text: string): Promise<Idle> {
  const { foldEntries, waitingIn } = await engine();
  const read = await j.read(run);
  const waiting = waitingIn(foldEntries(read.entries));
  return idle("running", waiting.length > 0 ? `${text}, waiting for ${waiting.map((w) => w.text).join(", ")}` : text);
}
