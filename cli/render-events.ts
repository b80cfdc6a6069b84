import { shown } from "../compiler/diagnostics/control-pictures.js";
import type { JournalEntry } from "../engine/journal/entry.js";
import type { RunEvent } from "../engine/run/events.js";
import { itemLabel } from "../engine/run/item-label.js";
import { signalCommand } from "../engine/run/signal-command.js";
import { shellWord } from "../engine/shell-word.js";

/**
 * Human-readable progress lines for a TTY (`criteria apply` without `--output json`):
 * one line per event with the elapsed time, the step, its iteration i/n and outcome.
 * @param flag what the commands a line suggests add to find the run's journal again
 *   (` --state-dir DIR`, ` --store URL`: cli/journal-commands.ts `storeFlag`), "" for the default one
 */
export function renderEvent(e: RunEvent, startMs: number, flag = ""): string | undefined {
  const line = eventLine(e, startMs, flag);
  return line === undefined ? undefined : visible(line);
}

/**
 * `s` with the terminal control characters a step's output may carry (ESC, BEL, the C1
 * set; all but tab and line feed) shown as control pictures (␛, ␇) and bidirectional
 * overrides as U+FFFD, as diagnostics show them (compiler/diagnostics/control-pictures.ts):
 * a line of ours must not set the terminal's title or colour what follows (found by a
 * new-user trial: a step's stderr did, through the failure's detail).
 */
export function visible(s: string): string {
  return shown(s, true);
}

function eventLine(e: RunEvent, startMs: number, flag: string): string | undefined {
  const t = `[${fmtElapsed((e.at_ms ?? startMs) - startMs)}]`;
  const where = (runId: string) => {
    const i = runId.indexOf("/");
    return i < 0 ? "" : `${runId.slice(i + 1)} › `;
  };
  switch (e.event) {
    case "run.started":
      return `${t} run ${e.run_id} started: workflow ${e.workflow}`;
    case "run.resumed":
      return `${t} run ${e.run_id} resumed: workflow ${e.workflow}`;
    case "step.started":
      return `${t} ${where(e.run_id)}${e.step}${e.visit > 1 ? ` (visit ${e.visit})` : ""} …`;
    case "step.completed":
      return `${t} ${where(e.run_id)}${e.step} → ${e.outcome || "(none)"}${e.next ? ` → ${e.next}` : ""}${e.reason !== "ok" ? `  [${e.reason}${placeOf(e)}${e.detail ? `: ${oneLine(e.detail)}` : ""}]` : ""}  (${e.ms} ms)`;
    case "iteration.completed":
      // A while loop's total is unknown (-1): show the item's number alone.
      // A failed item says why, as a step does (found by a new-user trial: only in the journal).
      // A map's item by its key, as Terraform names `x["a"]`.
      return `${t} ${where(e.run_id)}${e.step} [${visible(itemLabel(e.index, e.total, e.key))}] ${e.outcome}${e.success ? "" : " ✗"}${e.reason !== "ok" ? `  [${e.reason}${placeOf(e)}${e.detail ? `: ${oneLine(e.detail)}` : ""}]` : ""}`;
    case "branch.taken":
      return `${t} ${where(e.run_id)}${e.node} → ${e.next}`;
    case "wait.started":
      return `${t} ${where(e.run_id)}${e.node}: waiting ${e.signal ? `for signal "${e.signal}" (${signalCommand(e.run_id.split("/")[0], e.signal, flag, e.outcomes)})` : `until ${new Date(e.until_ms ?? 0).toISOString()}`}`;
    case "wait.completed":
      return `${t} ${where(e.run_id)}${e.node}: ${e.outcome === "timeout" && e.signal === undefined ? "timed out" : e.outcome === "elapsed" ? "time elapsed" : `signal "${e.signal}" received${e.outcome === "received" ? "" : `: ${e.outcome}`}`} → ${e.next}`;
    case "approval.requested":
      // The run's own id (a nested run's reaches only it: parallel items waiting at one
      // approval are decided one by one) and the reason (found by a new-user trial); the
      // journal's --state-dir or --store too (found by a new-user trial: copied, the command
      // found no run).
      // Two whole commands, each one that can be pasted (`approve|reject` was a shell pipe: a new-user trial).
      return `${t} ${where(e.run_id)}${e.node}: waiting for approval${e.reason ? `: ${JSON.stringify(e.reason)}` : ""} (criteria approve ${shellWord(e.run_id)} ${e.node}${flag}, or criteria reject ${shellWord(e.run_id)} ${e.node}${flag})`;
    case "approval.decided":
      return `${t} ${where(e.run_id)}${e.node}: ${e.decision}`;
    case "warning":
      // A nested run's warning names its run, as its step lines do.
      return `${t} warning: ${where(e.run_id)}${e.message}`;
    case "worker.note":
      return `${t} ${e.message}`;
    case "run.completed": {
      const line = `${t} run ${e.run_id} ${e.success ? "succeeded" : "failed"}${e.state ? ` in state "${e.state}"` : ""}${e.success ? "" : ` (${e.reason}${e.detail ? `: ${oneLine(e.detail)}` : ""})`}`;
      // The root run's outputs, as Terraform prints its own after apply (found by a new-user
      // trial: only -o json showed them). Secret ones arrive masked.
      const names = e.run_id.includes("/") ? [] : Object.keys(e.outputs ?? {});
      return names.length === 0 ? line : `${line}\n\nOutputs:\n${names.map((k) => `  ${k} = ${JSON.stringify(e.outputs[k])}`).join("\n")}`;
    }
  }
}

/**
 * `s` on one line, its line breaks written ` ⏎ `: one event or entry is one line, whatever a
 * step's stderr holds (found by a new-user trial: a multi-line failure spilled over the
 * lines after it, and grep lost the rest of the entry).
 */
export function oneLine(s: string): string {
  return s.replace(/\r\n|\r|\n/g, " ⏎ ");
}

/** Elapsed time as `mm:ss.t`, rounded to the tenth first (59.96 s is `01:00.0`, not `00:60.0`: found by a new-user trial). */
function fmtElapsed(ms: number): string {
  const tenths = Math.round(Math.max(0, ms) / 100);
  const m = Math.floor(tenths / 600);
  return `${String(m).padStart(2, "0")}:${((tenths - m * 600) / 10).toFixed(1).padStart(4, "0")}`;
}

/**
 * One journal entry as a timeline line (`criteria journal RUN`). A nested run's entries
 * are indented one level per nesting under the step that spawned it (docs/language.md, Composition), and
 * name the run by its path below the root (`nested#1[1]/call_inner#1 ›`).
 */
export function renderEntry(e: JournalEntry, startMs: number): string {
  return visible(entryLine(e, startMs));
}

/** The width of the text journal's entry type column: its longest type, `step.attempt.interrupted` (found by a new-user trial: it overflowed a column of 21). */
const ENTRY_TYPE_COLUMN = "step.attempt.interrupted".length;

function entryLine(e: JournalEntry, startMs: number): string {
  // A damaged or hand-made entry may carry no object: shown with what it has (found by a trial).
  const p = (e.payload !== null && typeof e.payload === "object" ? e.payload : {}) as Record<string, unknown>;
  const parts = e.run_id.split("/");
  const indent = "  ".repeat(parts.length - 1);
  // The run's whole path below the root: the items of one step are told apart (found by a
  // new-user trial: both items' lines read "call_inner#1 › deep").
  // An entry of the run itself (spawned, completed) names no step: its path alone, not
  // `items#1[0] › [0]` or a dangling `›` (a new-user trial).
  const ofRun = e.step_id === "";
  const run = parts.length > 1 ? `${parts.slice(1).join("/")}${ofRun ? "" : " › "}` : "";
  const item = typeof p.iteration === "number" && !(ofRun && parts.length > 1) ? `[${p.iteration}]` : "";
  const head = `${String(e.seq).padStart(5)}  +${fmtElapsed(e.at_ms - startMs)}  ${indent}${e.entry_type.padEnd(ENTRY_TYPE_COLUMN)} ${run}${e.step_id}${item}${e.attempt ? ` #${e.attempt}` : ""}`;
  const bits: string[] = [];
  for (const k of ["workflow", "identity", "outcome", "next", "reason", "state", "success", "index", "decision", "name", "consuming_step_id", "cause", "detail"]) {
    if (p[k] !== undefined && p[k] !== "") bits.push(`${k}=${typeof p[k] === "string" ? oneLine(p[k]) : JSON.stringify(p[k])}`);
  }
  // Channel messages: who posted what to whom, and which message a receive took.
  const m = p.message as { id: string; from: string; to: string; body: unknown } | undefined;
  if (m && typeof p.channel === "string") bits.push(`post ${p.channel}: ${m.from} → ${m.to} ${clip(m.body)} (message ${m.id.slice(0, 12)}…)`);
  const r = p.recv as { as: string; from?: string } | undefined;
  if (r && typeof p.channel === "string") bits.push(`recv ${p.channel}: as ${r.as}${r.from ? ` from ${r.from}` : ""}`);
  // Entries a resume set aside (--discard-damaged): how many, from where, and what runs again.
  if (e.entry_type === "run.damage_discarded") bits.push(`set aside ${String(p.entries)} damaged or later entries from entry ${String(p.from_seq)} (the journal's quarantine keeps them)${Array.isArray(p.steps) && p.steps.length > 0 ? `; ran again: ${p.steps.join(", ")}` : ""}`);
  const got = p.received as { id: string } | undefined;
  const out = p.output as { from?: unknown; body?: unknown } | undefined;
  if (got) bits.push(`received message ${got.id.slice(0, 12)}… from ${String(out?.from)}: ${clip(out?.body)}`);
  return `${head}${bits.length ? "  " + bits.join(" ") : ""}`;
}

/**
 * ` at file:line:col` for a failed step or item: where the step is declared (found by a new-user
 * trial: an adapter's failure said no place), unless its detail starts with a place of its own
 * (an expression's).
 */
function placeOf(e: { at?: string; detail?: string }): string {
  return e.at && !/^[^\s:]+:\d+:\d+: /.test(e.detail ?? "") ? ` at ${e.at}` : "";
}

/** A message body for one timeline line: its JSON, cut at 60 characters. */
function clip(v: unknown): string {
  const s = JSON.stringify(v) ?? "null";
  return s.length > 60 ? `${s.slice(0, 59)}…` : s;
}
