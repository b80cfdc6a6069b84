import type { JournalEntry } from "../../engine/journal/entry.js";

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
  kind: "post" | "recv" | "branch" | "signal" | "iteration" | "items" | "crash" | "interrupt" | "memory" | "decision" | "discard";
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
  /**
   * `running`: a live process holds it; `waiting`: parked at a wait or an approval;
   * `stopped`: not ended, and nothing runs it (killed, interrupted: `criteria resume` continues it).
   */
  status: "succeeded" | "failed" | "running" | "waiting" | "stopped";
  state?: string;
  failure?: Failure;
  lanes: Lane[];
  entries: number;
}

/** Where a failure detail points in source: the first `file.hcl|yaml|yml|json:line:col` it names. */
export function sourcePosition(detail: unknown): string | undefined {
  if (typeof detail !== "string") return undefined;
  // The engine's expression errors start with the position (`dir/my flows/wf.hcl:20:15: ...`): a path may hold spaces.
  const lead = /^((?:(?!: ).)+?\.(?:hcl|chcl|ya?ml|json):\d+:\d+): /.exec(detail);
  return lead?.[1] ?? detail.match(/[^\s"'`()]+\.(?:hcl|chcl|ya?ml|json):\d+:\d+/)?.[0];
}

/** An instant as ISO 8601, or as milliseconds since the epoch when no date can show it. */
export function isoTime(ms: number): string {
  const d = new Date(ms);
  return Number.isFinite(d.getTime()) ? d.toISOString() : `${ms} ms since the epoch`;
}

/** A journal payload as an object ({} when a damaged or hand-made entry has none). */
function payloadOf(e: JournalEntry): Record<string, unknown> {
  const p = e.payload as unknown;
  return p !== null && typeof p === "object" && !Array.isArray(p) ? (p as Record<string, unknown>) : {};
}

/** A payload field as text ("" when absent or not text). */
const text = (v: unknown): string => (typeof v === "string" ? v : v === undefined || v === null ? "" : JSON.stringify(v));

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

/** A step visit with more items than this shows them as one mark (and its failed items, up to as many). */
const ITEM_MARKS = 12;

/** Builds one lane from its run's entries (journal order). `lastSignBefore(seq)`: the time of the tree's last entry before `seq`. */
function laneOf(runId: string, entries: JournalEntry[], failing: Set<string>, lastSignBefore: (seq: number) => number): Lane {
  const first = entries[0];
  const spawned = first?.entry_type === "run.spawned" ? payloadOf(first) : {};
  const lane: Lane = {
    run_id: runId,
    depth: 0,
    parent_run_id: typeof spawned.parent_run_id === "string" ? spawned.parent_run_id : undefined,
    parent_step: typeof spawned.parent_step_id === "string" ? spawned.parent_step_id : undefined,
    iteration: typeof spawned.iteration === "number" ? spawned.iteration : undefined,
    call: spawned.call === "body" || spawned.call === "subworkflow" || spawned.call === "flow" ? spawned.call : undefined,
    workflow: text(spawned.workflow) || "?",
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
  const items = new Map<string, Mark[]>();
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
    a.span.end_ms = Math.max(a.span.start_ms, at);
    a.span.tone = tone;
    a.span.title += `\ntook ${formatDuration(a.span.end_ms - a.span.start_ms)}\n${fact}`;
    attempts.delete(key);
  };
  const outcomeTone = (reason: string, next: string | undefined): Tone => (reason !== "ok" ? "failed" : next && failing.has(next) ? "warn" : "ok");
  const num = (v: unknown) => (typeof v === "number" ? v : 0);

  for (const e of entries) {
    const p = payloadOf(e);
    const key = text(p.idempotency_key);
    const visit = num(p.visit);
    switch (e.entry_type) {
      case "step.attempt.started": {
        openNode("step", e.step_id, visit, e.at_ms);
        // A new attempt of the same key: the one before it failed (a retry).
        closeAttempt(key, e.at_ms, "failed", "retried");
        const iteration = typeof p.iteration === "number" ? p.iteration : undefined;
        const item = iteration !== undefined ? `[${iteration}]` : "";
        const span: Span = {
          row: "attempt",
          kind: "attempt",
          label: `${e.step_id}${item}${e.attempt > 1 ? ` retry ${e.attempt - 1}` : ""}`,
          start_ms: e.at_ms,
          tone: "open",
          title: `attempt ${e.attempt} of step ${e.step_id}${item}${p.adapter ? ` on ${text(p.adapter)}` : ""}\nidempotency key ${key}`,
        };
        attempts.set(key, { span, step: e.step_id, visit, iteration });
        lane.spans.push(span);
        break;
      }
      case "step.attempt.crashed":
      case "step.attempt.interrupted": {
        const crashed = e.entry_type === "step.attempt.crashed";
        if (crashed) {
          // Written by the resume that found the process gone: the attempt ended with the
          // last entry its process wrote, not now; the mark is the resume.
          const died = lastSignBefore(e.seq);
          closeAttempt(key, died, "failed", `its process died (the last entry it wrote: ${isoTime(died)}); found by the resume at ${isoTime(e.at_ms)}`);
          lane.marks.push({ kind: "crash", at_ms: e.at_ms, label: "resumed", tone: "failed", title: `${e.step_id} attempt ${e.attempt}: its process had died; criteria resume went on after ${formatDuration(e.at_ms - died)} without one` });
        } else {
          const why = `interrupted (${text(p.cause) || "signal"})`;
          closeAttempt(key, e.at_ms, "failed", why);
          lane.marks.push({ kind: "interrupt", at_ms: e.at_ms, label: "interrupted", tone: "failed", title: `${e.step_id} attempt ${e.attempt}: ${why}` });
        }
        break;
      }
      case "effect.recorded": {
        const m = p.message as Record<string, unknown> | undefined;
        const r = p.recv as Record<string, unknown> | undefined;
        if (p.kind === "post" && m && typeof m === "object") {
          lane.marks.push({ kind: "post", at_ms: e.at_ms, label: `${text(m.from)}→${text(m.to)}`, tone: "neutral", title: `${e.step_id} posted on channel ${text(p.channel)}: ${text(m.from)} → ${text(m.to)}\nmessage ${text(m.id)}\n${clip(m.body, 400)}` });
        } else if (p.kind === "recv" && r && typeof r === "object") {
          const span: Span = { row: "attempt", kind: "recv", label: `recv ${text(r.as)}`, start_ms: e.at_ms, tone: "open", title: `${e.step_id}: ${text(r.as)} receives on channel ${text(p.channel)}${r.from ? ` from ${text(r.from)}` : ""}\nuntil ${isoTime(num(r.until_ms))}` };
          receives.set(key, span);
          lane.spans.push(span);
        }
        break;
      }
      case "effect.confirmed": {
        const r = receives.get(key);
        const got = p.received as Record<string, unknown> | undefined;
        const out = (p.output ?? {}) as Record<string, unknown>;
        if (r) {
          receives.delete(key);
          r.end_ms = e.at_ms;
          r.tone = got ? "ok" : "warn";
          r.title += got ? `\nreceived message ${text(got.id)} from ${text(out.from)}\n${clip(out.body, 400)}` : `\n${text(p.outcome)}${p.detail ? `: ${text(p.detail)}` : ""}`;
          if (got) lane.marks.push({ kind: "recv", at_ms: e.at_ms, label: `${text(out.from)}→${text(got.as)}`, tone: "ok", title: `${e.step_id}: ${text(got.as)} received message ${text(got.id)} from ${text(out.from)}\n${clip(out.body, 400)}` });
        } else if (attempts.has(key)) {
          const reason = text(p.reason) || "ok";
          closeAttempt(key, e.at_ms, reason === "ok" ? "ok" : "failed", `${text(p.outcome) || "(no outcome)"}${reason !== "ok" ? ` [${reason}]` : ""}${p.detail ? `: ${clip(p.detail, 400)}` : ""}`);
        }
        break;
      }
      case "iteration.completed": {
        const index = num(p.index);
        const success = p.success === true;
        for (const [k, a] of attempts) if (a.step === e.step_id && a.visit === visit && a.iteration === index) closeAttempt(k, e.at_ms, success ? "ok" : "failed", text(p.outcome));
        openNode("step", e.step_id, visit, e.at_ms);
        const mark: Mark = { kind: "iteration", at_ms: e.at_ms, label: `[${index}] ${text(p.outcome)}`, tone: success ? "ok" : "failed", title: `${e.step_id} item ${index}: ${text(p.outcome)}${p.reason !== "ok" ? ` [${text(p.reason)}]` : ""}${p.child_run_id ? `\nrun ${text(p.child_run_id)}${p.child_state ? ` ended in "${text(p.child_state)}"` : ""}` : ""}` };
        const list = items.get(`${e.step_id}#${visit}`) ?? [];
        list.push(mark);
        items.set(`${e.step_id}#${visit}`, list);
        break;
      }
      case "step.completed": {
        const reason = text(p.reason) || "ok";
        const next = text(p.next);
        for (const [k, a] of attempts) if (a.step === e.step_id && a.visit === visit) closeAttempt(k, e.at_ms, reason === "ok" ? "ok" : "failed", text(p.outcome));
        // An iterating step some of whose items failed is not drawn as one that succeeded (found by a new-user trial).
        const tone = text(p.outcome) === "any_failed" && reason === "ok" ? "warn" : outcomeTone(reason, next);
        closeNode(e.step_id, visit, "step", e, tone, [`outcome ${text(p.outcome) || "(none)"} → ${next || "(end)"}`, ...(reason !== "ok" ? [`reason ${reason}${p.detail ? `: ${text(p.detail)}` : ""}`] : [])]);
        break;
      }
      case "branch.taken": {
        const arm = num(p.arm);
        lane.marks.push({ kind: "branch", at_ms: e.at_ms, label: `${e.step_id}→${text(p.next)}`, tone: "neutral", title: `branch ${e.step_id}: ${arm < 0 ? "default" : `arm ${arm + 1}`} → ${text(p.next)}` });
        cursor = e.at_ms;
        break;
      }
      case "wait.started": {
        const s = openNode("wait", e.step_id, visit, e.at_ms);
        s.title += p.signal ? `\nfor signal "${text(p.signal)}"` : typeof p.until_ms === "number" ? `\nuntil ${isoTime(p.until_ms)}` : "";
        break;
      }
      case "wait.completed": {
        const outcome = text(p.outcome);
        closeNode(e.step_id, visit, "wait", e, outcome === "timeout" ? "warn" : outcomeTone("ok", text(p.next)), [`outcome ${outcome} → ${text(p.next)}`, ...(p.signal_payload !== undefined ? [`signal payload ${clip(p.signal_payload)}`] : [])]);
        break;
      }
      case "approval.requested": {
        const s = openNode("approval", e.step_id, visit, e.at_ms);
        const approvers = Array.isArray(p.approvers) ? p.approvers.map(text) : [];
        s.title += `${approvers.length ? `\napprovers: ${approvers.join(", ")}` : ""}${p.reason ? `\nreason: ${text(p.reason)}` : ""}`;
        break;
      }
      case "approval.decided": {
        const decision = text(p.decision);
        const who = p.by ? ` by ${text(p.by)}` : "";
        const tone: Tone = decision === "approved" ? "ok" : decision === "rejected" ? "failed" : "warn";
        closeNode(e.step_id, visit, "approval", e, tone, [`${decision}${who}`, `outcome ${text(p.outcome)} → ${text(p.next)}`]);
        lane.marks.push({ kind: "decision", at_ms: e.at_ms, label: `${decision}${who}`, tone, title: `${e.step_id}: ${decision}${who}` });
        break;
      }
      case "signal.received": {
        const name = text(p.name);
        lane.marks.push({ kind: "signal", at_ms: e.at_ms, label: name.replace(/^approval:/, "decision "), tone: "neutral", title: `signal ${name} delivered${p.by ? ` by ${text(p.by)}` : ""}${p.payload !== undefined ? `\npayload ${clip(p.payload)}` : ""}` });
        break;
      }
      case "memory.injected": {
        const n = Array.isArray(p.items) ? p.items.length : 0;
        lane.marks.push({ kind: "memory", at_ms: e.at_ms, label: `memory ${n}`, tone: "neutral", title: `memory pack for ${text(p.consuming_step_id)}: ${n} item(s), ${num(p.bytes)} of ${num(p.budget_bytes)} bytes` });
        break;
      }
      case "run.damage_discarded": {
        const steps = Array.isArray(p.steps) ? p.steps.map(String) : [];
        lane.marks.push({ kind: "discard", at_ms: e.at_ms, label: "damage set aside", tone: "warn", title: `resume --discard-damaged set aside ${num(p.entries)} journal entries from entry ${num(p.from_seq)} on (the journal's quarantine keeps them)${steps.length > 0 ? `; ran again: ${steps.join(", ")}` : ""}` });
        break;
      }
      case "run.completed": {
        lane.end_ms = e.at_ms;
        lane.state = text(p.state);
        lane.success = p.success === true;
        lane.reason = text(p.reason);
        lane.detail = p.detail === undefined ? undefined : text(p.detail);
        break;
      }
      default:
        break;
    }
  }
  // Many items of one visit: one mark for them all, and the failed ones (up to as many).
  for (const [visitKey, list] of items) {
    if (list.length <= ITEM_MARKS) {
      lane.marks.push(...list);
      continue;
    }
    const failed = list.filter((m) => m.tone === "failed");
    const step = visitKey.replace(/#\d+$/, "");
    lane.marks.push({ kind: "items", at_ms: list[list.length - 1].at_ms, label: `${list.length} items${failed.length ? `, ${failed.length} failed` : ""}`, tone: failed.length ? "failed" : "ok", title: `${step}: ${list.length} items, ${list.length - failed.length} succeeded${failed.length ? `, ${failed.length} failed` : ""}\nfirst at ${isoTime(list[0].at_ms)}, last at ${isoTime(list[list.length - 1].at_ms)}` });
    lane.marks.push(...failed.slice(0, ITEM_MARKS));
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

/** Options of {@link buildTimeline}. */
export interface TimelineOptions {
  /** Whether a live process holds the run (its lease): an unfinished run is `running`, else `stopped` or `waiting`. */
  running?: boolean;
}

/**
 * The timeline of run `runId` from a journal read (its tree's entries, journal order):
 * the run and every run under it (`a/b` is under `a`), ordered as a tree, each nested lane
 * right after its parent, children by start time.
 * @returns undefined when no entry belongs to the run
 */
export function buildTimeline(entries: readonly JournalEntry[], runId: string, opts: TimelineOptions = {}): Timeline | undefined {
  const mine = entries.filter((e) => e.run_id === runId || e.run_id.startsWith(`${runId}/`));
  if (mine.length === 0) return undefined;
  const rootGraph = entries.find((e) => e.entry_type === "run.spawned" && payloadOf(e).graph !== undefined);
  const failing = failureStates(rootGraph ? payloadOf(rootGraph).graph : undefined);
  // The last sign of life before an entry: the time of the tree's entry just before it.
  const bySeq = [...entries].sort((a, b) => a.seq - b.seq);
  const lastSignBefore = (seq: number) => {
    let lo = 0;
    let hi = bySeq.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (bySeq[mid].seq < seq) lo = mid + 1;
      else hi = mid;
    }
    return lo > 0 ? bySeq[lo - 1].at_ms : (bySeq[0]?.at_ms ?? 0);
  };
  const byRun = new Map<string, JournalEntry[]>();
  for (const e of mine) {
    const list = byRun.get(e.run_id) ?? [];
    list.push(e);
    byRun.set(e.run_id, list);
  }
  const lanes = new Map([...byRun].map(([id, list]) => [id, laneOf(id, list, failing, lastSignBefore)]));
  // A child run is under a step of its parent: the parent's lane shows that step running
  // even when nothing else of it is journaled yet (a body parked at an approval).
  for (const child of lanes.values()) {
    const parent = child.parent_run_id !== undefined ? lanes.get(child.parent_run_id) : undefined;
    if (!parent || child.parent_step === undefined) continue;
    const covered = parent.spans.some((s) => s.row === "node" && s.label.split(" (")[0] === child.parent_step && s.start_ms <= child.start_ms && (s.end_ms === undefined || s.end_ms >= child.start_ms));
    if (!covered) parent.spans.push({ row: "node", kind: "step", label: child.parent_step, start_ms: child.start_ms, tone: "open", title: `step ${child.parent_step}\nits nested runs have not all ended` });
  }
  const ordered: Lane[] = [];
  const seen = new Set<Lane>();
  const visit = (lane: Lane, depth: number) => {
    if (seen.has(lane)) return;
    seen.add(lane);
    lane.depth = depth;
    ordered.push(lane);
    const children = [...lanes.values()].filter((l) => l.parent_run_id === lane.run_id && l !== lane).sort((a, b) => a.start_ms - b.start_ms || a.run_id.localeCompare(b.run_id));
    for (const c of children) visit(c, depth + 1);
  };
  const top = lanes.get(runId) ?? [...lanes.values()][0];
  visit(top, 0);
  // A run whose parent is not in the picture (its spawn was not journaled) still gets its lane.
  for (const l of lanes.values()) visit(l, 1);
  const root = lanes.get(runId);
  const last = mine.reduce((m, e) => (e.at_ms > m ? e.at_ms : m), mine[0].at_ms);
  const start = mine.reduce((m, e) => (e.at_ms < m ? e.at_ms : m), mine[0].at_ms);
  const parked = [...lanes.values()].some((l) => l.spans.some((s) => s.row === "node" && (s.kind === "wait" || s.kind === "approval") && s.end_ms === undefined));
  const status: Timeline["status"] = root?.success !== undefined ? (root.success ? "succeeded" : "failed") : opts.running ? "running" : parked ? "waiting" : "stopped";
  return {
    run_id: runId,
    workflow: top.workflow,
    start_ms: start,
    end_ms: last,
    status,
    state: root?.state,
    failure: status === "failed" && root ? failureOf(root, mine) : undefined,
    lanes: ordered,
    entries: mine.length,
  };
}

/**
 * Why a run failed: the step whose failure it ended with (the last failed step of its tree
 * whose reason is the run's, else the last failed step); for a failure state reached by a
 * routed outcome, the root step whose outcome led there, or the failure deeper in the tree
 * below it when that step itself ended well (found by a new-user trial: the headline said
 * only "reached state failed"); else the run itself (a policy limit).
 */
function failureOf(root: Lane, mine: readonly JournalEntry[]): Failure {
  const failed = mine.filter((e) => e.entry_type === "step.completed" && text(payloadOf(e).reason) !== "ok" && text(payloadOf(e).reason) !== "");
  let cause = [...failed].reverse().find((e) => text(payloadOf(e).reason) === root.reason) ?? (root.reason === "failure_state" ? undefined : failed[failed.length - 1]);
  if (!cause && root.reason === "failure_state") {
    const led = [...mine].reverse().find((e) => e.entry_type === "step.completed" && e.run_id === root.run_id && text(payloadOf(e).next) === root.state);
    if (led && text(payloadOf(led).reason) === "ok" && failed.length === 0) {
      const p = payloadOf(led);
      return { run_id: led.run_id, step: led.step_id, reason: `outcome "${text(p.outcome)}" led to failure state "${root.state ?? ""}"`, at: sourcePosition(root.detail), at_ms: led.at_ms };
    }
    cause = led && text(payloadOf(led).reason) !== "ok" ? led : failed[failed.length - 1];
  }
  if (cause) {
    const p = payloadOf(cause);
    const detail = p.detail === undefined ? undefined : text(p.detail);
    return { run_id: cause.run_id, step: cause.step_id, reason: text(p.reason), detail, at: sourcePosition(detail) ?? sourcePosition(root.detail), at_ms: cause.at_ms };
  }
  return { run_id: root.run_id, step: "", reason: root.reason ?? "?", detail: root.detail, at: sourcePosition(root.detail), at_ms: root.end_ms ?? root.start_ms };
}
