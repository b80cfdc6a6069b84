import { Option, type Command } from "commander";
import { shown } from "../compiler/diagnostics/control-pictures.js";
import { suggest } from "../compiler/diagnostics/did-you-mean.js";
import type { Value } from "../compiler/expr/value.js";
import type { JournalEntry } from "../engine/journal/entry.js";
import type { RunRow } from "../engine/journal/journal.js";
import { renderEntry } from "./render-events.js";
import { timelineHtml } from "./timeline/html.js";
import { buildTimeline } from "./timeline/model.js";
import { CliError, EXIT, type Io } from "./io.js";
import { damageMessage, noRun, openJournal, placeOf, runArgument, STORE_HELP, storeFlag } from "./journal-place.js";
import { activityOf, type Idle } from "./run-activity.js";
import { graphsOf } from "./run-graphs.js";
import { jsonArgument } from "./run-inputs.js";
import { engine } from "./run-session.js";

const usage = (m: string) => new CliError(m, EXIT.usage);

/** Every how many polls `journal --follow` looks whether a process still runs the run. */
const FOLLOW_HOLDER_EVERY = 5;

/** How often `journal --follow` tries again a journal that stopped answering (ms). */
const FOLLOW_RETRY_MS = 1000;

/**
 * `rows` (newest root first) with each root run followed by its nested runs, in the order of
 * their ids (`p/loop#1[2]` before `p/loop#1[10]`): a nested run was listed before its root,
 * being newer (found by a new-user trial). Nested runs whose root is not listed come last.
 */
export function treeOrder(rows: readonly RunRow[]): RunRow[] {
  const nested = new Map<string, RunRow[]>();
  for (const r of rows) if (r.parent_run_id !== null) nested.set(r.root_run_id, [...(nested.get(r.root_run_id) ?? []), r]);
  const byId = (a: RunRow, b: RunRow) => a.run_id.localeCompare(b.run_id, "en", { numeric: true });
  const out: RunRow[] = [];
  for (const r of rows) {
    if (r.parent_run_id !== null) continue;
    out.push(r, ...(nested.get(r.run_id) ?? []).sort(byId));
    nested.delete(r.run_id);
  }
  for (const rest of nested.values()) out.push(...rest.sort(byId));
  return out;
}

/** How often `journal --follow` looks for new entries (ms). */
const FOLLOW_POLL_MS = 300;

/**
 * Registers the commands that read a journal or deliver to a run (docs/architecture.md, The engine): runs,
 * journal, signal, approve, reject. Each sets the exit code through `setCode`.
 */
export function registerJournalCommands(program: Command, io: Io, setCode: (c: number) => void): void {
  program
    .command("runs")
    .description("list runs in the journal, newest first")
    .option("--state-dir <dir>", "journal directory")
    .option("--store <url>", STORE_HELP)
    .option("--all", "include nested runs")
    .addOption(new Option("-o, --output <format>", "text or json").choices(["text", "json"]).default("text"))
    .action(async (opts: { stateDir?: string; store?: string; all?: boolean; output: string }) => {
      const place = placeOf(opts, io);
      const j = await openJournal(place, { readOnly: true });
      try {
        const rows = treeOrder(await j.runs({ roots: !opts.all }));
        // Columns as wide as their widest value (found by a new-user trial: nested runs' ids
        // pushed every field after them out of line).
        // Widths as a terminal shows them (found by a new-user trial: a workflow named in CJK,
        // two columns a character, put the columns after it out of line).
        const width = opts.output === "json" ? (t: string) => t.length : (await import("string-width")).default;
        const pad = (t: string, w: number) => t + " ".repeat(Math.max(0, w - width(t)));
        const idWidth = Math.max(0, ...rows.map((r) => width(r.run_id)));
        const workflowWidth = Math.max(0, ...rows.map((r) => width(r.workflow)));
        if (opts.output !== "json" && rows.length === 0) io.out("no runs\n");
        // What each active root run is doing, worked out once per root: an active nested run
        // (`--all`) is doing what its root is (found by a new-user trial: it had no activity).
        const roots = new Map<string, Promise<Idle>>();
        const rootActivity = (root: string): Promise<Idle> => {
          let p = roots.get(root);
          if (!p) roots.set(root, (p = activityOf(j, root, place)));
          return p;
        };
        for (const r of rows) {
          const root = r.status !== "active" ? undefined : await rootActivity(r.root_run_id);
          // A nested run with a lease of its own held by a live process is said as its own (found
          // by a new-user trial: every item of a parallel step read as run by one worker's process).
          const own = root && r.parent_run_id !== null && place.store ? await j.holder(r.run_id) : undefined;
          const held = !root || r.parent_run_id === null ? root : own?.alive ? { activity: "running" as const, text: `running: process ${own.pid} on ${own.host}` } : { activity: root.activity, text: `as its root run: ${root.text}` };
          // JSON carries the same words as `detail`, and what they say as `activity` (found by new-user
          // trials: it said nothing of a parked or queued run; then nothing a program could test).
          if (opts.output === "json") io.out(JSON.stringify(held ? { ...r, activity: held.activity, detail: held.text } : r) + "\n");
          else io.out(`${pad(r.run_id, idWidth)}  ${r.status.padEnd(9)}  ${pad(r.workflow, workflowWidth)}  ${new Date(r.created_ms).toISOString()}${r.final_state ? `  state=${r.final_state}` : ""}${held ? `  (${held.text})` : ""}\n`);
        }
      } finally {
        await j.close();
      }
    });

  program
    .command("journal")
    .description("print a run's journal as a timeline (or NDJSON)")
    .argument("<run>", "the run id", runArgument)
    .option("--state-dir <dir>", "journal directory")
    .option("--store <url>", STORE_HELP)
    .addOption(new Option("-o, --output <format>", "text, json (NDJSON) or html (default: text)").choices(["text", "json", "html"]))
    .addOption(new Option("--format <format>", "the same as --output; html: one self-contained page (criteria journal RUN --format html > run.html)").choices(["text", "json", "html"]))
    .option("--follow", "keep printing entries as they are journaled, until the run ends (exit 0 when it succeeded, 1 when it failed)")
    .action(async (run: string, opts: { stateDir?: string; store?: string; output?: string; format?: string; follow?: boolean }) => {
      if (opts.format !== undefined && opts.output !== undefined && opts.format !== opts.output) {
        io.err(`criteria: -o ${opts.output} and --format ${opts.format} disagree; give one of them\n`);
        setCode(EXIT.usage);
        return;
      }
      const format = opts.format ?? opts.output ?? "text";
      if (format === "html" && opts.follow) {
        io.err(`criteria: --follow prints entries as they come; an html page is written once (run it again for a newer page)\n`);
        setCode(EXIT.usage);
        return;
      }
      const place = placeOf(opts, io);
      let j = await openJournal(place, { readOnly: true });
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once("SIGINT", onSignal);
      process.once("SIGTERM", onSignal);
      try {
        // A nested run (`criteria runs --all` lists them) is read from its root's tree.
        const row = await j.run(run);
        const root = row?.root_run_id ?? run;
        // An ended tree's damage suggests no resume (its root says whether it ended).
        const rootRow = row && row.root_run_id !== run ? await j.run(root) : row;
        const mine = (e: JournalEntry) => root === run || e.run_id === run || e.run_id.startsWith(`${run}/`);
        let tree = await j.read(root);
        // Thrown, so that with -o json the refusal is one JSON object too (found by a new-user trial of CI use).
        if (!tree.entries.some(mine)) {
          // Its first entry damaged, a run the index lists has nothing readable: said as damage,
          // not as "no run" (found by a new-user trial: runs listed it, resume sent here).
          if (tree.damage) throw new CliError(damageMessage(await j.damageReport(root, tree.damage.seq), place, rootRow));
          throw new CliError(noRun(run, placeOf(opts, io)));
        }
        if (format === "html") {
          // What the journal holds up to any damage is drawn, under a notice saying what is
          // left out; the damage is reported on stderr too, and the command fails.
          const damage = tree.damage ? damageMessage(await j.damageReport(root, tree.damage.seq), place, rootRow) : undefined;
          const holder = await j.holder(root);
          const timeline = buildTimeline(tree.entries, run, { running: holder?.alive === true })!;
          io.out(timelineHtml(timeline, damage ? `The journal is damaged: ${damage}. This page shows the entries before it; what follows is left out.` : undefined));
          if (damage) {
            io.err(`criteria: ${shown(damage, true)}\n`);
            setCode(EXIT.problems);
          }
          return;
        }
        const { JournalReadError } = await engine();
        const start = tree.entries.find(mine)!.at_ms;
        let last = 0;
        let end: JournalEntry<"run.completed"> | undefined;
        let polls = 0;
        let idleSaid = false;
        for (;;) {
          for (const e of tree.entries) {
            last = e.seq;
            if (!mine(e)) continue;
            io.out((format === "json" ? JSON.stringify(e) : renderEntry(e, start)) + "\n");
            if (e.entry_type === "run.completed" && e.run_id === run) end = e as JournalEntry<"run.completed">;
          }
          // Damage is reported, and the command fails: what follows the damaged entry is not shown.
          // Thrown, as a damaged first entry is: with -o json the entries end with the same exit
          // object (found by a new-user trial: damage was said in two ways, one only on stderr).
          if (tree.damage) throw new CliError(damageMessage(await j.damageReport(root, tree.damage.seq), place, rootRow));
          if (!opts.follow || end || stop.signal.aborted) break;
          // Said once when no process runs the run any more (stopped, parked, its process
          // killed): following goes on, as another may continue it (found by a new-user trial:
          // it waited silently, its stop message saying the run "goes on"). With a shared
          // store, where workers hand a run from job to job, only when nothing will advance it
          // (stopped: no holder, no job queued; a new-user trial: it waited silently there too).
          if (!idleSaid && ++polls % FOLLOW_HOLDER_EVERY === 0) {
            const holder = await j.holder(root);
            if (!holder?.alive && !place.store) {
              idleSaid = true;
              io.err(`criteria: no process is running run ${run} now (stopped or parked): criteria resume ${root}${storeFlag(place)} continues it; still following\n`);
            } else if (!holder?.alive) {
              // What runs says of it, its child runs on workers counted (found by a new-user
              // trial: "nothing advances it" while a worker ran its subworkflow).
              const now = await activityOf(j, root, place);
              if (now.activity === "stopped") {
                idleSaid = true;
                io.err(`criteria: no worker or process will advance run ${run} now (${now.text}); still following\n`);
              }
            }
          }
          await new Promise((r) => setTimeout(r, FOLLOW_POLL_MS));
          // A store that stops answering (a database restart) is waited for, saying so once:
          // the run goes on without us (found by a new-user trial: a 4 s outage exited 1, which
          // a CI script reads as the run's failure). Ctrl-C still stops following (exit 4).
          let lost = false;
          while (!stop.signal.aborted) {
            try {
              // A journal read from a copy (another user's, in a directory SQLite cannot open it in):
              // copied again when it has changed (found by a new-user trial: the follower never saw more).
              if (j.stale?.()) {
                await j.close();
                j = await openJournal(place, { readOnly: true });
              }
              tree = await j.read(root, last);
              if (lost) io.err(`criteria: the journal answers again; following run ${run}\n`);
              break;
            } catch (e) {
              if (!(e instanceof JournalReadError)) throw e;
              if (!lost) io.err(`criteria: ${shown(e.message, true)}; trying again every ${FOLLOW_RETRY_MS / 1000} s (the run goes on without this; Ctrl-C stops following)\n`);
              lost = true;
              await new Promise((r) => setTimeout(r, FOLLOW_RETRY_MS));
            }
          }
          if (stop.signal.aborted) break;
        }
        if (opts.follow && end) setCode(end.payload.success ? EXIT.ok : EXIT.problems);
        // Found by a new-user trial: Ctrl-C exited 0, which `journal --follow && deploy` reads as success.
        else if (opts.follow) {
          io.err(`criteria: stopped following run ${run} before it ended (${idleSaid ? "no process runs it now" : "it goes on"}; criteria journal ${run}${storeFlag(place)} --follow picks it up again)\n`);
          setCode(EXIT.stopped);
        }
      } finally {
        process.off("SIGINT", onSignal);
        process.off("SIGTERM", onSignal);
        await j.close();
      }
    });

  /**
   * Records a signal or an approval decision for a run, after checking it can matter:
   * the run is active, the signal is one a `wait` of the workflow listens for, the
   * approval node exists and is waiting for a decision nobody has given yet.
   */
  const deliver = async (run: string, target: { signal: string } | { approval: string }, payload: Value | undefined, by: string | undefined, where: { stateDir?: string; store?: string }) => {
    const { deliverSignal, foldEntries, activeUnits, within, receivedRoute, TreeChangedError, RunEndedError } = await engine();
    const place = placeOf(where, io);
    const j = await openJournal(place);
    /** Refuses a signal or decision to run `row`, which has ended. */
    const ended = async (row: { root_run_id: string; status: string }): Promise<never> => {
      // A child run that ended while its tree goes on: say how to reach the tree (found by a trial).
      const root = row.root_run_id !== run ? await j.run(row.root_run_id) : undefined;
      const again = "signal" in target ? `signal ${row.root_run_id} ${target.signal}` : `${payload === "rejected" ? "reject" : "approve"} ${row.root_run_id} ${target.approval}`;
      const hint = root?.status === "active" ? `; its run tree is still active: criteria ${again}${storeFlag(place)} reaches every run of it` : "";
      throw new CliError(`run ${run} has already ended (${row.status})${hint}`);
    };
    try {
      const row = await j.run(run);
      if (!row) throw new CliError(noRun(run, place));
      if (row.status !== "active") await ended(row);
      // A decision is given only if the tree did not move on since it was read and checked
      // (one of two given at once is refused; found by a new-user trial: approve and reject run
      // together were both taken, and the second decided the approval's next request); read
      // and checked again when it did. What the checks note is said once it is given.
      for (let tries = 0; ; tries++) {
        const notes: string[] = [];
        const read = await j.read(row.root_run_id);
        // A damaged journal says so, as resume and journal do (found by a new-user trial: "not
        // waiting for approval" for a run that was waiting, its later entries unread).
        if (read.damage) throw new CliError(damageMessage(await j.damageReport(row.root_run_id, read.damage.seq), place));
        const tree = foldEntries(read.entries);
        const now = Date.now();
        const graphs = graphsOf(tree, row.root_run_id);
        let name: string;
        if ("signal" in target) {
          if (target.signal.startsWith("approval:")) throw usage(`"${target.signal}" is an approval: use criteria approve|reject ${run} ${target.signal.slice(9)}${storeFlag(place)}`);
          // Waits for a signal only (found by a new-user trial: a duration wait's name was offered).
          const signals = graphs.flatMap((g) => g.waits.flatMap((w) => (w.signal ? [w.signal] : w.duration_ms === undefined ? [w.name] : [])));
          if (!signals.includes(target.signal)) {
            // A wait's name given for its signal (found by a new-user trial): name the signal.
            const byName = graphs.flatMap((g) => g.waits).find((w) => w.name === target.signal && w.signal);
            if (byName) throw new CliError(`workflow of run ${run} waits for no signal "${target.signal}": its wait "${byName.name}" waits for signal "${byName.signal}"; send it with criteria signal ${run} ${byName.signal}${storeFlag(place)}`);
            // An approval's name given to signal (found by the next trial): name the commands that decide it.
            if (graphs.some((g) => g.approvals.some((a) => a.name === target.signal))) {
              throw new CliError(`workflow of run ${run} waits for no signal "${target.signal}": "${target.signal}" is an approval; decide it with criteria approve ${run} ${target.signal}${storeFlag(place)} (or criteria reject ${run} ${target.signal}${storeFlag(place)})`);
            }
            throw new CliError(`workflow of run ${run} waits for no signal "${target.signal}"${signals.length ? `; ${suggest(target.signal, signals) ?? `it waits for ${signals.join(", ")}`}` : ""}`);
          }
          name = target.signal;
          // A payload naming an outcome picks that outcome of the wait (wait-nodes.ts): one no
          // wait for this signal has would end it "received", the success route (found by a
          // new-user trial: {"outcome":"abrot"} for "abort" took it). Refused, with a did-you-mean.
          const outcome = payload !== null && typeof payload === "object" && !Array.isArray(payload) ? payload.outcome : undefined;
          const forIt = graphs.flatMap((g) => g.waits.filter((w) => (w.signal ?? w.name) === name));
          const outcomes = [...new Set(forIt.flatMap((w) => w.outcomes.map((o) => o.name)))];
          if (typeof outcome === "string") {
            if (!outcomes.includes(outcome)) {
              throw usage(`--payload names outcome "${outcome}", which no wait for signal "${name}" has${outcomes.length ? `; ${suggest(outcome, outcomes) ?? `its outcomes: ${outcomes.join(", ")}`}` : ""} (a payload without "outcome" ends the wait "received")`);
            }
          } else {
            // Ended "received", a wait needs a route for it (wait-nodes.ts): one whose outcomes are
            // only named ones (approved / rejected, the Go tool's docs' example) would end the run
            // unknown_outcome, for good (found by a new-user trial of the v0.5.7 docs). Refused, naming them.
            const unrouted = forIt.find((w) => receivedRoute(w) === "");
            if (unrouted) {
              throw usage(
                `wait "${unrouted.name}" for signal "${name}" has no route for a signal without an outcome (no next, no outcome "received"): it would end the run; name one of its outcomes (${unrouted.outcomes.map((o) => o.name).join(", ")}) with --payload '{"outcome":"${unrouted.outcomes[0]?.name ?? "received"}"}'`,
              );
            }
          }
          // A wait for it whose deadline passed takes its timeout route when the run goes on:
          // this signal is kept for a later wait of that name (the deadline decides).
          const late = [...tree.runs]
            .filter(([id]) => within(id, run))
            .flatMap(([id, r]) => [...r.waits].filter(([, w]) => w.started?.payload.signal === name && !w.completed && (w.started.payload.until_ms ?? Infinity) <= now).map(([k, w]) => ({ id, node: k.split("#")[0], until: w.started!.payload.until_ms! })));
          for (const w of late) {
            notes.push(`criteria: note: wait "${w.node}" of run ${w.id} timed out at ${new Date(w.until).toISOString()}: it takes its timeout route when the run goes on, and this signal is kept for a later wait for "${name}"\n`);
          }
          // Signals are kept until a wait takes them (as Temporal's are): one sent before its wait
          // starts ends that wait at once. Said, not refused (found by a new-user trial: a health
          // signal sent early promoted a canary later, "delivered" being all it was told).
          const open = [...tree.runs].filter(([id, r]) => within(id, run) && !r.completed).flatMap(([, r]) => [...r.waits.values()].filter((w) => w.started?.payload.signal === name && !w.completed && (w.started.payload.until_ms ?? Infinity) > now)).length;
          // Each open wait takes one signal: those given already and not taken yet go first (found by
          // a new-user trial: a CI job that sent its signal twice was told "delivered" twice, and the
          // second was kept for the next wait of that name, which it ended at once).
          // Only those addressed to this run or below count: a wait takes a signal addressed to its
          // own run before one to a run above it (a new-user trial: an item's own signal was said
          // to be kept behind the root's, and the item took it first).
          const given = tree.signals.filter((s) => s.payload.name === name && !tree.consumed.has(s.seq) && within(s.run_id, run));
          if (open === 0 && late.length === 0) notes.push(`criteria: note: run ${run} is not waiting for signal "${name}" now: the signal is kept, and the next wait for "${name}" takes it at once\n`);
          else if (open > 0 && given.length >= open) {
            notes.push(`criteria: note: run ${run}'s wait for signal "${name}" was given one already (journal entry ${given[given.length - 1].seq}), not taken yet: this signal is kept, and the next wait for "${name}" takes it at once\n`);
          }
        } else {
          const nodes = graphs.flatMap((g) => g.approvals.map((a) => a.name));
          if (!nodes.includes(target.approval)) {
            // A wait's name given to approve (found by a new-user trial): say what ends that wait.
            const wait = graphs.flatMap((g) => g.waits).find((w) => w.name === target.approval);
            if (wait) {
              const ends = wait.signal || wait.duration_ms === undefined ? `send its signal with criteria signal ${run} ${wait.signal ?? wait.name}${storeFlag(place)}` : "it ends by itself when its duration has passed";
              throw new CliError(`workflow of run ${run} has no approval "${target.approval}": "${target.approval}" is a wait, not an approval; ${ends}`);
            }
            throw new CliError(`workflow of run ${run} has no approval "${target.approval}"${nodes.length ? `; ${suggest(target.approval, nodes) ?? `its approvals: ${nodes.join(", ")}`}` : ""}`);
          }
          name = `approval:${target.approval}`;
          // Approvals of this run and the runs it started, not decided yet; and decisions given
          // to them (addressed here, above or below) that no approval has taken up yet. Several
          // children may wait on one approval node: each decision ends one of them.
          const waiting = [...tree.runs]
            .filter(([id]) => within(id, run))
            .flatMap(([id, r]) => [...r.approvals].filter(([k, a]) => k.startsWith(`${target.approval}#`) && a.requested && !a.decided).map(([, a]) => ({ id, until: a.requested!.until_ms })));
          // One whose deadline passed is no longer decided by a person: its timeout route is
          // taken when the run goes on (found by a new-user trial: an approval given after the
          // deadline won on resume).
          const pending = waiting.filter((a) => a.until === undefined || a.until > now).length;
          const undelivered = tree.signals.filter((s) => s.payload.name === name && !tree.consumed.has(s.seq));
          const given = undelivered.filter((s) => within(run, s.run_id) || within(s.run_id, run)).length;
          if (pending === 0 && waiting.length > 0) {
            const first = waiting[0];
            throw new CliError(`approval "${target.approval}" of run ${first.id} timed out at ${new Date(first.until!).toISOString()}: nothing was delivered; its timeout route is taken when the run goes on (criteria resume ${row.root_run_id}${storeFlag(place)})`);
          }
          // A decision can matter unless the approvals it may reach are all spoken for: for this
          // run or a run above it, the decisions addressed to it or below number at least its
          // open approvals. A decision given higher up may be taken elsewhere, so it does not
          // count against this run alone (found by a new-user trial: after one decision to the
          // root, each parallel item's own decision was refused as "already decided").
          const spokenFor = [run, ...ancestorsOf(run)].find((scope) => {
            const open = [...tree.runs].filter(([id]) => within(id, scope)).flatMap(([, r]) => [...r.approvals].filter(([k, a]) => k.startsWith(`${target.approval}#`) && a.requested && !a.decided && (a.requested.until_ms === undefined || a.requested.until_ms > now))).length;
            const decisions = undelivered.filter((s) => within(s.run_id, scope)).length;
            return decisions > 0 && decisions >= open;
          });
          if (spokenFor === run) {
            // Which decision, by whom, said (a new-user trial: "already been decided" was all).
            const d = undelivered.filter((x) => within(x.run_id, run)).at(-1)?.payload;
            // Who goes on with it: the process running the run, else a resume (a trial: a live run was sent to resume).
            const holder = d ? await j.holder(row.root_run_id) : undefined;
            const next = holder?.alive ? `process ${holder.pid} on ${holder.host}, which runs it, takes it` : `criteria resume ${row.root_run_id}${storeFlag(place)} goes on with it`;
            const which = d ? `: ${d.payload === "rejected" ? "rejected" : "approved"}${d.by ? ` by ${d.by}` : ""}, not taken by the run yet (${next})` : "";
            throw new CliError(`approval "${target.approval}" of run ${run} has already been decided${which}`);
          }
          if (spokenFor !== undefined) throw new CliError(`every approval "${target.approval}" waiting in run ${spokenFor} already has a decision given to it or a run in it: this one would not be taken`);
          if (pending === 0) {
            // Why not, said (a new-user trial: the same bare refusal before the approval was
            // reached and after it was decided, while a signal sent early is kept).
            const decided = [...tree.runs].filter(([id]) => within(id, run)).flatMap(([, r]) => [...r.approvals].filter(([k, a]) => k.startsWith(`${target.approval}#`) && a.decided).map(([, a]) => a.decided!));
            const last = decided.at(-1);
            if (last) throw new CliError(`approval "${target.approval}" of run ${run} was already decided: ${last.decision}${last.by ? ` by ${last.by}` : ""}`);
            throw new CliError(`run ${run} is not waiting for approval "${target.approval}" yet: a decision is taken only while the approval waits (unlike a signal, which is kept); give it once criteria runs${storeFlag(place)} shows the run waiting for it`);
          }
          // Several items may wait on one approval node (found by a new-user trial: which one a decision ended was not said).
          const open = waiting.filter((a) => a.until === undefined || a.until > now);
          // Decisions given before and not taken yet count (a new-user trial: "2 approvals wait", listing 3).
          const pendingDecisions = given > 0 ? `; ${given} decision${given > 1 ? "s" : ""} given before, not taken yet` : "";
          if (open.length - given > 1) notes.push(`criteria: note: ${open.length - given} approvals "${target.approval}" in run ${run} have no decision yet (${open.length} wait: ${open.map((a) => a.id).join(", ")}${pendingDecisions}): this decision ends one of them, the first to take it; give one decision per approval\n`);
          // Someone the workflow does not name as an approver: said, not refused (the Go tool's docs
          // call approvers "user IDs or roles", and a role is not criteria's to resolve; a new-user
          // trial: --by anyone was taken without a word).
          const approvers = [...new Set(graphs.flatMap((g) => g.approvals.filter((a) => a.name === target.approval).flatMap((a) => a.approvers)))];
          if (by !== undefined && approvers.length > 0 && !approvers.includes(by)) {
            notes.push(`criteria: note: ${by} is not among the approvers of "${target.approval}" (${approvers.join(", ")}): the decision is journaled as given by ${by} (an approver that names a role is not resolved by criteria)\n`);
          }
        }
        const lastSeq = read.entries.at(-1)?.seq ?? 0;
        // Fault injection for the race's test: a pause between the check and the write (where
        // another decision may come), as the crash matrix's CRITERIA_FAULT_* hooks do.
        const pause = Number(io.env.CRITERIA_FAULT_PAUSE_BEFORE_DECISION_MS ?? 0);
        if (pause > 0 && tries === 0) await new Promise((r) => setTimeout(r, pause));
        let e: JournalEntry;
        try {
          e = await deliverSignal(j, row.root_run_id, name, payload, by, now, activeUnits(tree, row.root_run_id), run, "approval" in target ? lastSeq : undefined);
        } catch (err) {
          // It ended since it was read (found by a new-user trial: a signal sent as its run ended
          // was written after the end, and said to be kept for the next wait).
          if (err instanceof RunEndedError) {
            // Its own end, or (a nested run left active) its tree's.
            const now = await j.run(run);
            await ended(now && now.status !== "active" ? now : { root_run_id: row.root_run_id, status: (await j.run(row.root_run_id))?.status ?? "ended" });
          }
          if (!(err instanceof TreeChangedError)) throw err;
          if (tries >= 200) throw new CliError(`run ${run} went on changing while the decision was being given (${tries + 1} tries): give it again`);
          await new Promise((r) => setTimeout(r, 5 + Math.random() * 20));
          continue;
        }
        for (const note of notes) io.err(note);
        // A decision says which (found by a new-user trial: reject printed "delivered approval:gate", as approve did).
        if ("signal" in target) io.out(`delivered ${name} to ${run} (journal entry ${e.seq})\n`);
        else io.out(`${payload === "rejected" ? "rejected" : "approved"} approval "${target.approval}" of run ${run}${by ? ` as ${by}` : ""} (journal entry ${e.seq})\n`);
        return EXIT.ok;
      }
    } finally {
      await j.close();
    }
  };

  program
    .command("signal")
    .description("deliver a signal to a run waiting in a wait { signal } node")
    .argument("<run>", "the run id (a nested run's id reaches only that run and the runs it started)", runArgument)
    .argument("<name>", "the signal name")
    .option("--payload <json>", "a JSON value carried with the signal")
    .option("--state-dir <dir>", "journal directory")
    .option("--store <url>", STORE_HELP)
    .action(async (run: string, name: string, opts: { payload?: string; stateDir?: string; store?: string }) => {
      let payload: Value | undefined;
      if (opts.payload !== undefined) {
        payload = jsonArgument("--payload", opts.payload, `write a JSON value, e.g. --payload '{"outcome": "approved"}'`) as Value;
      }
      setCode(await deliver(run, { signal: name }, payload, undefined, opts));
    });

  for (const decision of ["approve", "reject"] as const) {
    program
      .command(decision)
      .description(`${decision} a run's pending approval node`)
      .argument("<run>", "the run id (a nested run's id reaches only that run and the runs it started)", runArgument)
      .argument("<node>", "the approval node's name")
      .option("--by <name>", "who decides (recorded in the journal)", io.env.USER ?? "cli")
      .option("--state-dir <dir>", "journal directory")
      .option("--store <url>", STORE_HELP)
      .action(async (run: string, node: string, opts: { by: string; stateDir?: string; store?: string }) => {
        // Who decided is what the journal keeps of a decision (a new-user trial: --by "" recorded nobody).
        if (opts.by.trim() === "" || /[\p{Cc}]/u.test(opts.by)) throw usage(`--by ${JSON.stringify(opts.by)}: name who decides, on one line (it is journaled with the decision)`);
        setCode(await deliver(run, { approval: node }, decision === "approve" ? "approved" : "rejected", opts.by, opts));
      });
  }
}

/** The runs above nested run `run` (ids are paths: `root/call#1[2]` is under `root`), innermost first; none for a root run. */
function ancestorsOf(run: string): string[] {
  const parts = run.split("/");
  return parts.slice(1).map((_, i) => parts.slice(0, parts.length - 1 - i).join("/"));
}
