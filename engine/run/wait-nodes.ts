import type { Graph, GraphExpr } from "../../compiler/build/graph.js";
import type { Value } from "../../compiler/expr/value.js";
import type { JournalEntry, NewEntry, Payloads } from "../journal/entry.js";
import type { RunRecord } from "../journal/fold.js";
import type { AppendOptions } from "../journal/journal.js";
import { SignalTakenError } from "../journal/errors.js";
import type { RunEvent } from "./events.js";

/**
 * Wait and approval nodes (docs/architecture.md, The engine): what the runner lends them.
 * Both journal their start before waiting and their end before moving on, so a resumed
 * run sleeps only what remains of a duration and never asks for a decision twice.
 */
export interface NodeHost {
  clock(): number;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** Aborted when the run is interrupted. */
  signal: AbortSignal;
  /** The error to throw when interrupted. */
  interrupted(): Error;
  append(entries: NewEntry[], opts?: AppendOptions): Promise<JournalEntry[]>;
  /** The error to park with at a duration wait due at `untilMs`, when the runner parks timers; else undefined (it sleeps). */
  parkTimer(untilMs: number): Error | undefined;
  entry<T extends keyof Payloads>(run_id: string, step_id: string, attempt: number, entry_type: T, payload: Payloads[T]): NewEntry;
  emit(e: RunEvent): void;
  /** The first unconsumed `signal.received` of that name; undefined once `untilMs` passes. */
  awaitSignal(name: string, untilMs?: number): Promise<JournalEntry<"signal.received"> | undefined>;
  autoApprove: boolean;
}

/** The run a node belongs to: its id, its journal record, and its expression scope. */
export interface NodeRun {
  runId: string;
  rec: RunRecord;
  evaluate(e: GraphExpr): Value;
}

/**
 * Where wait `w` goes when it ends in a way `names` call (the first of them it has an
 * outcome for): its `next` when set, else that outcome's target, else the target of its
 * only outcome; "" when nothing fits (the run then ends `unknown_outcome`).
 */
export function waitRoute(w: Graph["waits"][number], names: string[]): string {
  return w.next ?? names.map((n) => w.outcomes.find((o) => o.name === n)?.next).find((x) => x !== undefined) ?? (w.outcomes.length === 1 ? w.outcomes[0].next : "");
}

/**
 * Where a signal wait goes when its signal carries no outcome (it ends `received`): "" for
 * a wait whose outcomes are only ones a payload names (`approved`, `rejected`), which
 * `criteria signal` refuses to end so (cli/journal-commands.ts).
 */
export function receivedRoute(w: Graph["waits"][number]): string {
  return waitRoute(w, [w.signal ?? w.name, "received", "signal", "success"]);
}

/**
 * The outcomes a signal named `signal` must name to end a wait for it among `waits`: those of
 * the first such wait that routes no signal naming none (`receivedRoute` gives ""), or
 * undefined when a bare signal ends each (what apply, its events and `criteria runs` tell to
 * send: found by a trial of the Go tool's docs, whose approved / rejected wait refused the
 * command they gave).
 */
export function outcomesToName(waits: readonly Graph["waits"][number][], signal: string): string[] | undefined {
  return waits.find((w) => w.signal === signal && receivedRoute(w) === "")?.outcomes.map((o) => o.name);
}

/**
 * A wait node. `duration`: sleeps (after a resume, only what remains) and ends
 * `elapsed`. `signal`: waits for `criteria signal RUN NAME` and ends `received` (or the
 * outcome its payload names: `--payload '{"outcome":"rejected"}'`); with a
 * `duration` as well, the duration is its timeout and ends `timeout`. The route is `next`
 * when set, else the first declared outcome among the names for that ending (the
 * signal's own name, `received`, `signal`, `success`; or `timeout`, `elapsed`), else a
 * wait with one outcome takes it. Returns "" as `next` when nothing fits.
 */
export async function runWait(h: NodeHost, f: NodeRun, w: Graph["waits"][number], visit: number): Promise<{ outcome: string; next: string }> {
  const k = `${w.name}#${visit}`;
  const rec = f.rec.waits.get(k);
  if (rec?.completed) return { outcome: rec.completed.outcome, next: rec.completed.next };
  const route = (names: string[]) => waitRoute(w, names);
  let until = rec?.started?.payload.until_ms;
  if (!rec?.started) {
    until = w.duration_ms !== undefined ? h.clock() + w.duration_ms : undefined;
    // The deadline goes to the workers with it (a parked run is woken then).
    await h.append([h.entry(f.runId, w.name, 0, "wait.started", { visit, ...(until !== undefined ? { until_ms: until } : {}), ...(w.signal ? { signal: w.signal } : {}) })], until !== undefined ? { wake: { atMs: until } } : {});
  }
  // A signal that names none of its outcomes would not end a wait that routes only named ones: the event says them.
  const outcomes = w.signal ? outcomesToName([w], w.signal) : undefined;
  h.emit({ event: "wait.started", run_id: f.runId, node: w.name, ...(until !== undefined ? { until_ms: until } : {}), ...(w.signal ? { signal: w.signal } : {}), ...(outcomes ? { outcomes } : {}) });
  if (!w.signal) {
    if (h.signal.aborted) throw h.interrupted();
    const parked = until !== undefined ? h.parkTimer(until) : undefined;
    if (parked) throw parked;
    await h.sleep((until ?? h.clock()) - h.clock(), h.signal);
    if (h.signal.aborted) throw h.interrupted();
    const next = route(["elapsed", "timeout", "success"]);
    await h.append([h.entry(f.runId, w.name, 0, "wait.completed", { visit, outcome: "elapsed", next })]);
    h.emit({ event: "wait.completed", run_id: f.runId, node: w.name, outcome: "elapsed", next });
    return { outcome: "elapsed", next };
  }
  for (;;) {
    const sig = await h.awaitSignal(w.signal, until);
    if (!sig) {
      const next = route(["timeout", "elapsed"]);
      await h.append([h.entry(f.runId, w.name, 0, "wait.completed", { visit, outcome: "timeout", next })]);
      h.emit({ event: "wait.completed", run_id: f.runId, node: w.name, outcome: "timeout", next });
      return { outcome: "timeout", next };
    }
    // A payload {"outcome": "<name>"} naming one of the wait's outcomes takes it (the Go tool's
    // workflow.md: a wait's outcomes "map signal values to transition targets"; found by a
    // new-user trial: approved/rejected waits always ended "received").
    const p = sig.payload.payload;
    const named = p !== null && typeof p === "object" && !Array.isArray(p) && typeof p.outcome === "string" ? w.outcomes.find((o) => o.name === p.outcome) : undefined;
    const outcome = named ? named.name : "received";
    const next = named ? named.next : receivedRoute(w);
    const entry = h.entry(f.runId, w.name, 0, "wait.completed", { visit, outcome, next, signal_seq: sig.seq, ...(p !== undefined ? { signal_payload: p } : {}) });
    if (await consumed(h, entry, sig.seq)) {
      // Said as an approval's decision is (found by a new-user trial: a resumed wait said it waited, then nothing).
      h.emit({ event: "wait.completed", run_id: f.runId, node: w.name, outcome, next, signal: w.signal });
      return { outcome, next };
    }
  }
}

/**
 * Journals the end of a wait or an approval that consumes signal `seq`; false when
 * another wait of the tree consumed it first (a job advancing another run of the tree,
 * on another worker): nothing was written, and the caller waits for the next one.
 */
async function consumed(h: NodeHost, entry: NewEntry, seq: number): Promise<boolean> {
  try {
    await h.append([entry], { consumes: seq });
    return true;
  } catch (e) {
    if (e instanceof SignalTakenError) return false;
    throw e;
  }
}

/**
 * An approval node: decided by `criteria approve|reject RUN NODE`, or auto-approved when
 * no decision was given before (a journaled one wins over `--auto-approve`); with
 * a `timeout`, no decision by then ends it `timeout` (routed to a `timeout` outcome, else
 * the run fails). The deadline is journaled, so a resumed run waits only what remains.
 */
export async function runApproval(h: NodeHost, f: NodeRun, a: Graph["approvals"][number], visit: number): Promise<{ next?: string; decision: string }> {
  const k = `${a.name}#${visit}`;
  const rec = f.rec.approvals.get(k);
  const routeOf = (decision: "approved" | "rejected" | "timeout") => a.outcomes.find((o) => o.name === decision)?.next;
  if (rec?.decided) return { next: rec.decided.next || undefined, decision: rec.decided.decision };
  let until = rec?.requested?.until_ms;
  let reason = rec?.requested?.reason;
  if (!rec?.requested) {
    reason = a.reason ? String(f.evaluate(a.reason)) : undefined;
    until = a.timeout_ms !== undefined ? h.clock() + a.timeout_ms : undefined;
    await h.append([h.entry(f.runId, a.name, 0, "approval.requested", { visit, approvers: a.approvers, ...(reason ? { reason } : {}), ...(until !== undefined ? { until_ms: until } : {}) })], until !== undefined ? { wake: { atMs: until } } : {});
  }
  let decision: "approved" | "rejected" | "timeout";
  let next: string;
  if (!h.autoApprove) h.emit({ event: "approval.requested", run_id: f.runId, node: a.name, approvers: a.approvers, ...(reason ? { reason } : {}) });
  for (;;) {
    let by: string | undefined;
    let seq: number | undefined;
    // A decision already given (before a resume with --auto-approve) wins over it: found by
    // a new-user trial, a human's rejection became an approval.
    const given = h.autoApprove ? await h.awaitSignal(`approval:${a.name}`, Math.min(until ?? Infinity, h.clock())) : undefined;
    if (given) {
      decision = given.payload.payload === "rejected" ? "rejected" : "approved";
      by = given.payload.by;
      seq = given.seq;
    } else if (h.autoApprove) {
      decision = "approved";
      by = "--auto-approve";
    } else {
      const sig = await h.awaitSignal(`approval:${a.name}`, until);
      decision = !sig ? "timeout" : sig.payload.payload === "rejected" ? "rejected" : "approved";
      by = sig?.payload.by;
      seq = sig?.seq;
    }
    next = routeOf(decision) ?? "";
    const entry = h.entry(f.runId, a.name, 0, "approval.decided", { visit, decision, ...(by ? { by } : {}), outcome: decision, next, ...(seq !== undefined ? { signal_seq: seq } : {}) });
    if (seq === undefined) {
      await h.append([entry]);
      break;
    }
    if (await consumed(h, entry, seq)) break;
  }
  h.emit({ event: "approval.decided", run_id: f.runId, node: a.name, decision });
  return { next: next || undefined, decision };
}
