import type { JournalEntry, Payloads } from "../../engine/journal/entry.js";

/**
 * A run's journal as lanes on a time axis (`criteria journal RUN --format html`; the
 * "See and edit" issue, item 2): one lane per run of the tree (nested runs under the
 * step that started them), each with its node visits (steps, waits, approvals), its
 * attempts and channel receives, and point marks (messages posted, signals, branches,
 * iterations, crashes). A view of the journal only: it reads entries, never the store.
 */

/** How a span or mark is coloured: it succeeded, failed, was cut short, is still open, or is neither. */
export type Tone = "ok" | "failed" | "warn" | "open" | "neutral";

/** Something that lasted: a node visit (row `node`) or an attempt, a receive (row `attempt`). Times in ms since the epoch. */
export interface Span {
  row: "node" | "attempt";
  kind: "step" | "wait" | "approval" | "attempt" | "recv";
  /** Short text drawn on the bar. */
  label: string;
  start_ms: number;
  /** Absent while it is still open (the run is active, or stopped in it). */
  end_ms?: number;
  tone: Tone;
  /** Everything known about it, one fact per line (the bar's tooltip). */
  title: string;
  /** For the attempt row: which of its stacked sub-rows it is drawn in (0-based). */
  lane_row?: number;
}

/** Something that happened at one instant. */
export interface Mark {
  kind: "post" | "recv" | "branch" | "signal" | "iteration" | "crash" | "interrupt" | "memory" | "decision";
  at_ms: number;
  label: string;
  tone: Tone;
  title: string;
}

/** One run of the tree. */
export interface Lane {
  run_id: string;
  /** 0 for the root (or the run asked for), one more per nesting. */
  depth: number;
  parent_run_id?: string;
  parent_step?: string;
  iteration?: number;
  call?: "body" | "subworkflow" | "flow";
  workflow: string;
  start_ms: number;
  end_ms?: number;
  state?: string;
  success?: boolean;
  reason?: string;
  detail?: string;
  spans: Span[];
  marks: Mark[];
  /** How many sub-rows the attempt row needs (attempts of parallel iterations overlap). */
  attempt_rows: number;
  /** The lane's own entries, in journal order. */
  entries: JournalEntry[];
}

/** Why a run failed: the first step that failed (by journal order), or the run's own reason. */
export interface Failure {
  run_id: string;
  /** "" when no step failed (the run itself ended failed: policy, a refused resume...). */
  step: string;
  reason: string;
  detail?: string;
  /** `file:line:col` the failure points at, when its detail names one (expression errors do). */
  at?: string;
  at_ms: number;
}

/** The whole picture of one run (and the runs it started). */
export interface Timeline {
  run_id: string;
  workflow: string;
  start_ms: number;
  /** The last entry's time, or the start when there is one entry. */
  end_ms: number;
  status: "succeeded" | "failed" | "active";
  state?: string;
  failure?: Failure;
  lanes: Lane[];
  entries: number;
}

/** Where a failure detail points in source: the first `file.hcl|yaml|yml|json:line:col` it names. */
export function sourcePosition(detail: string | undefined): string | undefined {
  return detail?.match(/[^\s"'`()]+\.(?:hcl|ya?ml|json):\d+:\d+/)?.[0];
}

/** A duration for people: `820 ms`, `4.2 s`, `3 min 05 s`, `2 h 04 min`. */
export function formatDuration(ms: number): string {
  const v = Math.max(0, Math.round(ms));
  if (v < 1000) return `${v} ms`;
  if (v < 60_000) return `${(v / 1000).toFixed(v < 10_000 ? 2 : 1)} s`;
  if (v < 3_600_000) return `${Math.floor(v / 60_000)} min ${String(Math.floor((v % 60_000) / 1000)).padStart(2, "0")} s`;
  return `${Math.floor(v / 3_600_000)} h ${String(Math.floor((v % 3_600_000) / 60_000)).padStart(2, "0")} min`;
}

/** JSON of a value, cut at `max` characters. */
function clip(v: unknown, max = 120): string {
  const s = typeof v === "string" ? v : (JSON.stringify(v) ?? "null");
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** Failure terminal states of a compiled graph and of every body and module in it, by name. */
function failureStates(graph: unknown): Set<string> {
  const out = new Set<string>();
  const walk = (g: unknown) => {
    if (!g || typeof g !== "object") return;
    const gr = g as { states?: { name: string; terminal: boolean; success: boolean }[]; steps?: { body?: unknown }[]; modules?: Record<string, unknown> };
    for (const s of gr.states ?? []) if (s.terminal && !s.success) out.add(s.name);
    for (const s of gr.steps ?? []) walk(s.body);
    for (const m of Object.values(gr.modules ?? {})) walk(m);
  };
  walk(graph);
  return out;
}

interface OpenAttempt {
  span: Span;
  step: string;
  visit: number;
  iteration?: number;
}

/** Builds one lane from its run's entries (journal order). */
function laneOf(runId: string, entries: JournalEntry[], failing: Set<string>): Lane {
  const first = entries[0];
  const spawned = first?.entry_type === "run.spawned" ? (first.payload as Payloads["run.spawned"]) : undefined;
  const lane: Lane = {
    run_id: runId,
    depth: 0,
    parent_run_id: spawned?.parent_run_id,
    parent_step: spawned?.parent_step_id,
    iteration: spawned?.iteration,
    call: spawned?.call,
    workflow: spawned?.workflow ?? "?",
    start_ms: first?.at_ms ?? 0,
    spans: [],
    marks: [],
    attempt_rows: 0,
    entries,
  };
  // Nodes of one run follow each other: a node's visit began when the one before it ended.
  let cursor = lane.start_ms;
  const nodes = new Map<string, Span>();
  const attempts = new Map<string, OpenAttempt>();
  const receives = new Map<string, Span>();
  const openNode = (kind: Span["kind"], name: string, visit: number, at: number): Span => {
    const key = `${name}#${visit}`;
    let s = nodes.get(key);
    if (!s) {
      s = { row: "node", kind, label: visit > 1 ? `${name} (${visit})` : name, start_ms: Math.min(cursor, at), tone: "open", title: `${kind} ${name}${visit > 1 ? `, visit ${visit}` : ""}` };
      nodes.set(key, s);
      lane.spans.push(s);
    }
    return s;
  };
  const closeNode = (name: string, visit: number, kind: Span["kind"], e: JournalEntry, tone: Tone, facts: string[]) => {
    const s = openNode(kind, name, visit, e.at_ms);
    s.end_ms = e.at_ms;
    s.tone = tone;
    s.title = [s.title, `took ${formatDuration(e.at_ms - s.start_ms)}`, ...facts].join("\n");
    nodes.delete(`${name}#${visit}`);
    cursor = e.at_ms;
  };
  const closeAttempt = (key: string, at: number, tone: Tone, fact: string) => {
    const a = attempts.get(key);
    if (!a) return;
    a.span.end_ms = at;
    a.span.tone = tone;
    a.span.title += `\ntook ${formatDuration(at - a.span.start_ms)}\n${fact}`;
    attempts.delete(key);
  };
  const outcomeTone = (reason: string, next: string | undefined): Tone => (reason !== "ok" ? "failed" : next && failing.has(next) ? "warn" : "ok");

  for (const e of entries) {
    const p = e.payload as Record<string, unknown>;
    switch (e.entry_type) {
      case "step.attempt.started": {
        const q = e.payload as Payloads["step.attempt.started"];
        openNode("step", e.step_id, q.visit, e.at_ms);
        // A new attempt of the same key: the one before it failed (a retry).
        closeAttempt(q.idempotency_key, e.at_ms, "failed", "retried");
        const item = q.iteration !== undefined ? `[${q.iteration}]` : "";
        const span: Span = {
          row: "attempt",
          kind: "attempt",
          label: `${e.step_id}${item}${e.attempt > 1 ? ` retry ${e.attempt - 1}` : ""}`,
          start_ms: e.at_ms,
          tone: "open",
          title: `attempt ${e.attempt} of step ${e.step_id}${item}${q.adapter ? ` on ${q.adapter}` : ""}\nidempotency key ${q.idempotency_key}`,
        };
        attempts.set(q.idempotency_key, { span, step: e.step_id, visit: q.visit, iteration: q.iteration });
        lane.spans.push(span);
        break;
      }
      case "step.attempt.crashed":
      case "step.attempt.interrupted": {
        const q = e.payload as Payloads["step.attempt.interrupted"];
        const crashed = e.entry_type === "step.attempt.crashed";
        const why = crashed ? "the process running it died (found on resume)" : `interrupted (${q.cause})`;
        closeAttempt(q.idempotency_key, e.at_ms, "failed", why);
        lane.marks.push({ kind: crashed ? "crash" : "interrupt", at_ms: e.at_ms, label: crashed ? "crashed" : "interrupted", tone: "failed", title: `${e.step_id} attempt ${e.attempt}: ${why}` });
        break;
      }
      case "effect.recorded": {
        const q = e.payload as Payloads["effect.recorded"];
        if (q.kind === "post" && q.message) {
          const m = q.message;
          lane.marks.push({ kind: "post", at_ms: e.at_ms, label: `${m.from}→${m.to}`, tone: "neutral", title: `${e.step_id} posted on channel ${q.channel}: ${m.from} → ${m.to}\nmessage ${m.id}\n${clip(m.body, 400)}` });
        } else if (q.kind === "recv" && q.recv) {
          const span: Span = { row: "attempt", kind: "recv", label: `recv ${q.recv.as}`, start_ms: e.at_ms, tone: "open", title: `${e.step_id}: ${q.recv.as} receives on channel ${q.channel}${q.recv.from ? ` from ${q.recv.from}` : ""}\nuntil ${new Date(q.recv.until_ms).toISOString()}` };
          receives.set(q.idempotency_key, span);
          lane.spans.push(span);
        }
        break;
      }
      case "effect.confirmed": {
        const q = e.payload as Payloads["effect.confirmed"];
        const r = receives.get(q.idempotency_key);
        if (r) {
          receives.delete(q.idempotency_key);
          r.end_ms = e.at_ms;
          r.tone = q.received ? "ok" : "warn";
          const out = q.output as { from?: unknown; body?: unknown };
          r.title += q.received ? `\nreceived message ${q.received.id} from ${String(out.from)}\n${clip(out.body, 400)}` : `\n${q.outcome}${q.detail ? `: ${q.detail}` : ""}`;
          if (q.received) lane.marks.push({ kind: "recv", at_ms: e.at_ms, label: `${String(out.from)}→${q.received.as}`, tone: "ok", title: `${e.step_id}: ${q.received.as} received message ${q.received.id} from ${String(out.from)}\n${clip(out.body, 400)}` });
        } else if (attempts.has(q.idempotency_key)) {
          closeAttempt(q.idempotency_key, e.at_ms, q.reason === "ok" ? "ok" : "failed", `${q.outcome || "(no outcome)"}${q.reason !== "ok" ? ` [${q.reason}]` : ""}${q.detail ? `: ${clip(q.detail, 400)}` : ""}`);
        }
        break;
      }
      case "iteration.completed": {
        const q = e.payload as Payloads["iteration.completed"];
        for (const [k, a] of attempts) if (a.step === e.step_id && a.visit === q.visit && a.iteration === q.index) closeAttempt(k, e.at_ms, q.success ? "ok" : "failed", q.outcome);
        openNode("step", e.step_id, q.visit, e.at_ms);
        lane.marks.push({ kind: "iteration", at_ms: e.at_ms, label: `[${q.index}] ${q.outcome}`, tone: q.success ? "ok" : "failed", title: `${e.step_id} item ${q.index}: ${q.outcome}${q.reason !== "ok" ? ` [${q.reason}]` : ""}${q.child_run_id ? `\nrun ${q.child_run_id}${q.child_state ? ` ended in "${q.child_state}"` : ""}` : ""}` });
        break;
      }
      case "step.completed": {
        const q = e.payload as Payloads["step.completed"];
        for (const [k, a] of attempts) if (a.step === e.step_id && a.visit === q.visit) closeAttempt(k, e.at_ms, q.reason === "ok" ? "ok" : "failed", q.outcome);
        closeNode(e.step_id, q.visit, "step", e, outcomeTone(q.reason, q.next), [`outcome ${q.outcome || "(none)"} → ${q.next || "(end)"}`, ...(q.reason !== "ok" ? [`reason ${q.reason}${q.detail ? `: ${q.detail}` : ""}`] : [])]);
        break;
      }
      case "branch.taken": {
        const q = e.payload as Payloads["branch.taken"];
        lane.marks.push({ kind: "branch", at_ms: e.at_ms, label: `${e.step_id}→${q.next}`, tone: "neutral", title: `branch ${e.step_id}: ${q.arm < 0 ? "default" : `arm ${q.arm + 1}`} → ${q.next}` });
        cursor = e.at_ms;
        break;
      }
      case "wait.started": {
        const q = e.payload as Payloads["wait.started"];
        const s = openNode("wait", e.step_id, q.visit, e.at_ms);
        s.title += q.signal ? `\nfor signal "${q.signal}"` : q.until_ms !== undefined ? `\nuntil ${new Date(q.until_ms).toISOString()}` : "";
        break;
      }
      case "wait.completed": {
        const q = e.payload as Payloads["wait.completed"];
        closeNode(e.step_id, q.visit, "wait", e, outcomeTone("ok", q.next), [`outcome ${q.outcome} → ${q.next}`, ...(q.signal_payload !== undefined ? [`signal payload ${clip(q.signal_payload)}`] : [])]);
        break;
      }
      case "approval.requested": {
        const q = e.payload as Payloads["approval.requested"];
        const s = openNode("approval", e.step_id, q.visit, e.at_ms);
        s.title += `${q.approvers.length ? `\napprovers: ${q.approvers.join(", ")}` : ""}${q.reason ? `\nreason: ${q.reason}` : ""}`;
        break;
      }
      case "approval.decided": {
        const q = e.payload as Payloads["approval.decided"];
        const who = q.by ? ` by ${q.by}` : "";
        closeNode(e.step_id, q.visit, "approval", e, q.decision === "approved" ? "ok" : q.decision === "rejected" ? "failed" : "warn", [`${q.decision}${who}`, `outcome ${q.outcome} → ${q.next}`]);
        lane.marks.push({ kind: "decision", at_ms: e.at_ms, label: `${q.decision}${who}`, tone: q.decision === "approved" ? "ok" : q.decision === "rejected" ? "failed" : "warn", title: `${e.step_id}: ${q.decision}${who}` });
        break;
      }
      case "signal.received": {
        const q = e.payload as Payloads["signal.received"];
        lane.marks.push({ kind: "signal", at_ms: e.at_ms, label: q.name.replace(/^approval:/, "decision "), tone: "neutral", title: `signal ${q.name} delivered${q.by ? ` by ${q.by}` : ""}${q.payload !== undefined ? `\npayload ${clip(q.payload)}` : ""}` });
        break;
      }
      case "memory.injected": {
        const q = e.payload as Payloads["memory.injected"];
        lane.marks.push({ kind: "memory", at_ms: e.at_ms, label: `memory ${q.items.length}`, tone: "neutral", title: `memory pack for ${q.consuming_step_id}: ${q.items.length} item(s), ${q.bytes} of ${q.budget_bytes} bytes` });
        break;
      }
      case "run.completed": {
        const q = e.payload as Payloads["run.completed"];
        lane.end_ms = e.at_ms;
        lane.state = q.state;
        lane.success = q.success;
        lane.reason = q.reason;
        lane.detail = q.detail;
        break;
      }
      default:
        void p;
    }
  }
  // Stack overlapping attempts and receives (the items of a parallel step) in sub-rows.
  const ends: number[] = [];
  for (const s of lane.spans.filter((x) => x.row === "attempt").sort((a, b) => a.start_ms - b.start_ms)) {
    let row = ends.findIndex((end) => end <= s.start_ms);
    if (row < 0) row = ends.push(0) - 1;
    ends[row] = s.end_ms ?? Number.POSITIVE_INFINITY;
    s.lane_row = row;
  }
  lane.attempt_rows = ends.length;
  return lane;
}

/**
 * The timeline of run `runId` from a journal read (its tree's entries, journal order):
 * the run and every run under it (`a/b` is under `a`), ordered as a tree, each nested lane
 * right after its parent, children by start time.
 * @returns undefined when no entry belongs to the run
 */
export function buildTimeline(entries: readonly JournalEntry[], runId: string): Timeline | undefined {
  const mine = entries.filter((e) => e.run_id === runId || e.run_id.startsWith(`${runId}/`));
  if (mine.length === 0) return undefined;
  const rootGraph = entries.find((e) => e.entry_type === "run.spawned" && (e.payload as Payloads["run.spawned"]).graph !== undefined);
  const failing = failureStates(rootGraph ? (rootGraph.payload as Payloads["run.spawned"]).graph : undefined);
  const byRun = new Map<string, JournalEntry[]>();
  for (const e of mine) {
    const list = byRun.get(e.run_id) ?? [];
    list.push(e);
    byRun.set(e.run_id, list);
  }
  const lanes = new Map([...byRun].map(([id, list]) => [id, laneOf(id, list, failing)]));
  const ordered: Lane[] = [];
  const visit = (lane: Lane, depth: number) => {
    lane.depth = depth;
    ordered.push(lane);
    const children = [...lanes.values()].filter((l) => l.parent_run_id === lane.run_id && l !== lane).sort((a, b) => a.start_ms - b.start_ms || a.run_id.localeCompare(b.run_id));
    for (const c of children) visit(c, depth + 1);
  };
  const top = lanes.get(runId) ?? [...lanes.values()][0];
  visit(top, 0);
  // A run whose parent is not in the picture (its spawn was not journaled) still gets its lane.
  for (const l of lanes.values()) if (!ordered.includes(l)) visit(l, 1);
  const root = lanes.get(runId);
  const failedStep = mine.find((e) => e.entry_type === "step.completed" && (e.payload as Payloads["step.completed"]).reason !== "ok") as JournalEntry<"step.completed"> | undefined;
  const status = root?.success === undefined ? "active" : root.success ? "succeeded" : "failed";
  let failure: Failure | undefined;
  if (status === "failed" || failedStep) {
    const f = failedStep
      ? { run_id: failedStep.run_id, step: failedStep.step_id, reason: failedStep.payload.reason, detail: failedStep.payload.detail, at_ms: failedStep.at_ms }
      : { run_id: runId, step: "", reason: root?.reason ?? "?", detail: root?.detail, at_ms: root?.end_ms ?? mine[mine.length - 1].at_ms };
    failure = { ...f, at: sourcePosition(f.detail) ?? (status === "failed" ? sourcePosition(root?.detail) : undefined) };
  }
  return {
    run_id: runId,
    workflow: top.workflow,
    start_ms: mine[0].at_ms,
    end_ms: Math.max(...mine.map((e) => e.at_ms)),
    status,
    state: root?.state,
    failure,
    lanes: ordered,
    entries: mine.length,
  };
}
