import type { Graph, GraphExpr } from "../../compiler/build/graph.js";
import type { Value } from "../../compiler/expr/value.js";
import type { JournalEntry, NewEntry, Payloads } from "../journal/entry.js";
import type { RunRecord } from "../journal/fold.js";
import type { RunEvent } from "./events.js";

/**
 * Wait and approval nodes (DESIGN.md, Engine; issue #3): what the runner lends them.
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
  append(entries: NewEntry[]): JournalEntry[];
  entry<T extends keyof Payloads>(run_id: string, step_id: string, attempt: number, entry_type: T, payload: Payloads[T]): NewEntry;
  emit(e: RunEvent): void;
  /** The first unconsumed `signal.received` of that name (waits for one). */
  awaitSignal(name: string): Promise<JournalEntry<"signal.received">>;
  autoApprove: boolean;
}

/** The run a node belongs to: its id, its journal record, and its expression scope. */
export interface NodeRun {
  runId: string;
  rec: RunRecord;
  evaluate(e: GraphExpr): Value;
}

/** A wait node: a duration (sleeps what remains after a resume) or a signal. */
export async function runWait(h: NodeHost, f: NodeRun, w: Graph["waits"][number], visit: number): Promise<string> {
  const k = `${w.name}#${visit}`;
  const rec = f.rec.waits.get(k);
  if (rec?.completed) return rec.completed.next;
  const route = (preferred: string) => w.next ?? w.outcomes.find((o) => o.name === preferred)?.next ?? w.outcomes[0]?.next ?? "";
  if (w.duration_ms !== undefined) {
    let until = rec?.started?.payload.until_ms;
    if (until === undefined) {
      until = h.clock() + w.duration_ms;
      h.append([h.entry(f.runId, w.name, 0, "wait.started", { visit, until_ms: until })]);
    }
    h.emit({ event: "wait.started", run_id: f.runId, node: w.name, until_ms: until });
    await h.sleep(until - h.clock(), h.signal);
    if (h.signal.aborted) throw h.interrupted();
    const next = route("elapsed");
    h.append([h.entry(f.runId, w.name, 0, "wait.completed", { visit, outcome: "elapsed", next })]);
    return next;
  }
  if (!rec?.started) h.append([h.entry(f.runId, w.name, 0, "wait.started", { visit, signal: w.signal })]);
  h.emit({ event: "wait.started", run_id: f.runId, node: w.name, signal: w.signal });
  const sig = await h.awaitSignal(w.signal ?? w.name);
  const next = route(sig.payload.name);
  h.append([h.entry(f.runId, w.name, 0, "wait.completed", { visit, outcome: "signal", next, signal_seq: sig.seq, ...(sig.payload.payload !== undefined ? { signal_payload: sig.payload.payload } : {}) })]);
  return next;
}

/** An approval node: auto-approved, or decided by `criteria approve|reject RUN NODE`. */
export async function runApproval(h: NodeHost, f: NodeRun, a: Graph["approvals"][number], visit: number): Promise<string | undefined> {
  const k = `${a.name}#${visit}`;
  const rec = f.rec.approvals.get(k);
  const routeOf = (decision: "approved" | "rejected") => a.outcomes.find((o) => o.name === decision)?.next;
  if (rec?.decided) return rec.decided.next || undefined;
  if (!rec?.requested) {
    const reason = a.reason ? String(f.evaluate(a.reason)) : undefined;
    h.append([h.entry(f.runId, a.name, 0, "approval.requested", { visit, approvers: a.approvers, ...(reason ? { reason } : {}) })]);
  }
  let decision: "approved" | "rejected";
  let by: string | undefined;
  let seq: number | undefined;
  if (h.autoApprove) {
    decision = "approved";
    by = "--auto-approve";
  } else {
    h.emit({ event: "approval.requested", run_id: f.runId, node: a.name, approvers: a.approvers });
    const sig = await h.awaitSignal(`approval:${a.name}`);
    decision = sig.payload.payload === "rejected" ? "rejected" : "approved";
    by = sig.payload.by;
    seq = sig.seq;
  }
  const next = routeOf(decision) ?? "";
  h.append([h.entry(f.runId, a.name, 0, "approval.decided", { visit, decision, ...(by ? { by } : {}), outcome: decision, next, ...(seq !== undefined ? { signal_seq: seq } : {}) })]);
  h.emit({ event: "approval.decided", run_id: f.runId, node: a.name, decision });
  return next || undefined;
}
