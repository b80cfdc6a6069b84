import { renderEntry, visible } from "../render-events.js";
import { formatDuration, isoTime, type Lane, type Mark, type Span, type Timeline } from "./model.js";

/**
 * A run's timeline as one self-contained HTML page (`criteria journal RUN --format html`;
 * the "See and edit" issue, item 2): inline CSS, no script, no external resource (a
 * Content-Security-Policy forbids fetching any), so it opens offline and can be attached
 * to a CI job. Lanes on a common time axis, one per run; every journal entry of a lane is
 * listed under it. Every text from the journal is escaped.
 */

/**
 * Escapes text for HTML content and double-quoted attributes, terminal control characters
 * written as `\x1b` as the text journal writes them (found by a new-user trial: a step's
 * ESC colour codes went raw into the bars' tooltips).
 */
export function escapeHtml(s: string): string {
  return visible(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** Tick spacings a person reads at a glance: round milliseconds, seconds, minutes, hours, days. */
const NICE_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 10e3, 15e3, 30e3, 60e3, 120e3, 300e3, 600e3, 900e3, 1800e3, 3600e3, 7200e3, 10800e3, 21600e3, 43200e3, 86400e3];

/**
 * The narrowest axis each layout is drawn for (px): a window of 900 px less the page's
 * margins and the 300 px label column, and one of 480 px less the 160 px column of the
 * narrow layout (`@media (max-width: 900px)`).
 */
const AXIS_PX = { wide: 900 - 32 - 300, narrow: 480 - 32 - 160 };

/** A tick label's width at most (px): 11 px system-ui, 7 px a character at the widest (`m`, digits ~6). */
const labelPx = (ms: number) => tickLabel(ms).length * 7;

/**
 * Tick spacing for at most `count` ticks over `span` ms, each label clear of the next on
 * an axis `axisPx` wide: a {@link NICE_STEPS} value, or whole days (found by CI and a test
 * of many lengths: `+1 s 200 ms` ran into `+1 s 400 ms` in a 1024 px window, and two labels
 * met at 480 px once, under load).
 */
function tickStep(span: number, count: number, axisPx: number): number {
  const raw = Math.max(1, span / count);
  const nice = NICE_STEPS.find((s) => s >= raw && ticksFit(s, span, axisPx));
  if (nice !== undefined) return nice;
  // Whole days, as many as it takes.
  let days = Math.max(1, Math.ceil(raw / 86400e3));
  while (!ticksFit(days * 86400e3, span, axisPx) && days * 86400e3 < span) days *= 2;
  return days * 86400e3;
}

/**
 * Whether the label of tick `v`, the last of its layout, ends at its tick: centred, it would
 * pass the axis's end on the narrowest axis of that layout, `axisPx` (wider ones leave it
 * more room; found by CI: a centred last label widened a 480 px page by a pixel).
 */
function endsAtTick(v: number, span: number, axisPx: number): boolean {
  return v > 0 && (1 - v / span) * axisPx < labelPx(v) / 2 + 2;
}

/**
 * Whether ticks every `step` ms over `span` ms keep their labels 4 px apart on an axis
 * `axisPx` wide, placed as the page places them: the first label starts at its tick, the
 * last ends at it when centred it would pass the axis's end ({@link endsAtTick}), the
 * others are centred on theirs.
 */
function ticksFit(step: number, span: number, axisPx: number): boolean {
  let right = labelPx(0);
  for (let v = step; v <= span; v += step) {
    const x = (v / span) * axisPx;
    const w = labelPx(v);
    const last = v + step > span && endsAtTick(v, span, axisPx);
    if ((last ? x - w : x - w / 2) < right + 4) return false;
    right = last ? x : x + w / 2;
  }
  return true;
}

/** A tick's label: exact, in the largest units that keep it so (`+1 h 30 min`, `+45 s`, `+250 ms`). */
function tickLabel(ms: number): string {
  if (ms === 0) return "0";
  const parts: string[] = [];
  let rest = ms;
  for (const [unit, size] of [["d", 86400e3], ["h", 3600e3], ["min", 60e3], ["s", 1e3], ["ms", 1]] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)} ${unit}`);
      rest %= size;
    }
  }
  return `+${parts.join(" ")}`;
}

const CSS = `
:root { --label: 300px; --ok: #2e7d32; --failed: #c62828; --warn: #ef8f00; --open: #9e9e9e; --neutral: #546e7a; font-family: system-ui, sans-serif; font-size: 13px; color: #212121; }
body { margin: 16px; }
h1 { font-size: 18px; margin: 0 0 4px; }
.summary { margin: 0 0 12px; color: #424242; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; color: #fff; font-weight: 600; }
.badge.succeeded { background: var(--ok); } .badge.failed { background: var(--failed); } .badge.running, .badge.waiting, .badge.stopped { background: var(--open); }
.failure, .notice { border-left: 4px solid var(--failed); background: #fdecea; padding: 8px 12px; margin: 0 0 12px; white-space: pre-wrap; overflow-wrap: anywhere; }
.notice { border-color: var(--warn); background: #fff4e0; }
.failure code { font-size: 12px; }
.legend { margin: 0 0 8px; color: #424242; }
.legend span { margin-right: 12px; }
.legend i { display: inline-block; width: 12px; height: 10px; margin-right: 4px; vertical-align: middle; border-radius: 2px; }
.axis, .lane-body { display: grid; grid-template-columns: var(--label) 1fr; }
.axis .ticks { position: relative; height: 20px; border-bottom: 1px solid #bdbdbd; }
.tick { position: absolute; top: 2px; transform: translateX(-50%); color: #616161; font-size: 11px; white-space: nowrap; }
.tick.first { transform: none; } .tick.last { transform: translateX(-100%); }
.tick::after { content: ""; position: absolute; left: 50%; top: 14px; height: 6px; border-left: 1px solid #9e9e9e; }
.lane { border-bottom: 1px solid #e0e0e0; padding: 4px 0; }
.lane-head { padding-left: min(calc(var(--depth) * 12px), 96px); overflow: hidden; overflow-wrap: anywhere; }
.lane-head .run { font-weight: 600; word-break: break-all; }
.lane-head .sub { color: #616161; }
.track { position: relative; background-image: linear-gradient(to right, #eeeeee 1px, transparent 1px); background-size: var(--grid) 100%; }
@media (max-width: 900px) { :root { --label: 160px; } .tick.wide { display: none; } .tick.last-narrow { transform: translateX(-100%); } }
.row { position: relative; height: 20px; margin: 2px 0; }
.row.marks { overflow: hidden; }
.bar { position: absolute; top: 2px; height: 16px; min-width: 6px; border-radius: 3px; color: #fff; font-size: 11px; line-height: 16px; padding: 0 3px; box-sizing: border-box; overflow: hidden; white-space: nowrap; text-overflow: ellipsis; }
.bar.wait, .bar.approval { background-image: repeating-linear-gradient(45deg, rgba(255,255,255,.25) 0 4px, transparent 4px 8px); }
.bar.attempt, .bar.recv { height: 12px; top: 4px; line-height: 12px; font-size: 10px; opacity: .85; }
.ok { background-color: var(--ok); } .failed { background-color: var(--failed); } .warn { background-color: var(--warn); } .open { background-color: var(--open); } .neutral { background-color: var(--neutral); }
.mark { position: absolute; top: 3px; width: 0; height: 14px; border-left: 2px solid var(--neutral); }
.mark span { position: absolute; left: 3px; top: 0; font-size: 10px; white-space: nowrap; color: #37474f; }
.mark.ok { border-color: var(--ok); background: none; } .mark.failed { border-color: var(--failed); background: none; } .mark.warn { border-color: var(--warn); background: none; } .mark.neutral, .mark.open { background: none; }
.mark.post, .mark.recv { border-left-style: dashed; }
.mark.flip span { left: auto; right: 3px; }
details.entries { margin: 2px 0 2px var(--label); }
details.entries summary { cursor: pointer; color: #616161; }
details.entries pre { margin: 4px 0; font-size: 11px; overflow-x: auto; }
.lane-state.failed { color: var(--failed); font-weight: 600; background: none; } .lane-state.ok { color: var(--ok); background: none; } .lane-state.open { color: #616161; background: none; }
details.entries pre { overflow-wrap: anywhere; white-space: pre-wrap; }
`;

/** `left` and `width` of an interval in percent of the axis. */
function place(t: Timeline, from: number, to: number): string {
  const span = Math.max(1, t.end_ms - t.start_ms);
  const left = ((from - t.start_ms) / span) * 100;
  const width = Math.max(0, ((to - from) / span) * 100);
  // A bar is at least 6 px wide: one that ends at the axis's end is drawn back from it.
  return `left:min(${left.toFixed(3)}%, calc(100% - 6px));width:${width.toFixed(3)}%`;
}

function spanHtml(t: Timeline, s: Span): string {
  const end = s.end_ms ?? t.end_ms;
  const title = s.end_ms === undefined ? `${s.title}\n(not ended at the last entry)` : s.title;
  const top = s.row === "attempt" ? `top:${(s.lane_row ?? 0) * 16 + 2}px;` : "";
  return `<div class="bar ${s.kind} ${s.tone}" data-kind="${s.kind}" style="${top}${place(t, s.start_ms, end)}" title="${escapeHtml(title)}">${escapeHtml(s.label)}</div>`;
}

/** Width of the track assumed when stacking marks so their labels do not overlap (px): a 1024 px window's. */
const TRACK_PX = 680;

/** The marks of a lane, stacked in as many rows as their labels need. */
function marksHtml(t: Timeline, marks: Mark[]): { html: string; rows: number } {
  const span = Math.max(1, t.end_ms - t.start_ms);
  const ends: number[] = [];
  const out: string[] = [];
  for (const m of [...marks].sort((a, b) => a.at_ms - b.at_ms)) {
    const left = ((m.at_ms - t.start_ms) / span) * 100;
    const width = ((m.label.length * 6 + 10) / TRACK_PX) * 100;
    // A label that would run past the right edge goes to the mark's left, inside the page (it
    // went there only past 80%: a long label at 75% made the page 13 px wider than its window).
    const flipped = left + width > 100;
    const from = flipped ? left - width : left;
    let row = ends.findIndex((end) => end <= from);
    if (row < 0) row = ends.push(0) - 1;
    ends[row] = from + width;
    const flip = flipped ? " flip" : "";
    out.push(`<div class="mark ${m.kind} ${m.tone}${flip}" data-kind="${m.kind}" style="top:${row * 16 + 3}px;left:min(${left.toFixed(3)}%, calc(100% - 2px))" title="${escapeHtml(m.title)}"><span>${escapeHtml(m.label)}</span></div>`);
  }
  return { html: out.join(""), rows: ends.length };
}

function laneHtml(t: Timeline, l: Lane, grid: string): string {
  const item = l.iteration !== undefined ? `[${l.iteration}]` : "";
  const under = l.parent_step ? `${l.call ?? "run"} of step ${l.parent_step}${item}` : "root run";
  const open = t.status === "running" ? "running" : t.status === "waiting" ? "waiting" : "not ended";
  const took = l.end_ms !== undefined ? formatDuration(l.end_ms - l.start_ms) : `${open} at the last entry, ${formatDuration(t.end_ms - l.start_ms)} in`;
  const state = l.success === undefined ? `<span class="lane-state open">${open}</span>` : `<span class="lane-state ${l.success ? "ok" : "failed"}">${escapeHtml(l.state || (l.success ? "succeeded" : "failed"))}${l.success ? "" : ` (${escapeHtml(l.reason ?? "")})`}</span>`;
  const nodes = l.spans.filter((s) => s.row === "node").map((s) => spanHtml(t, s));
  const attempts = l.spans.filter((s) => s.row === "attempt").map((s) => spanHtml(t, s));
  const marks = marksHtml(t, l.marks);
  const entries = l.entries.map((e) => escapeHtml(renderEntry(e, t.start_ms))).join("\n");
  return `<section class="lane" data-run="${escapeHtml(l.run_id)}" style="--depth:${l.depth};--grid:${grid}">
<div class="lane-body"><div class="lane-head"><div class="run">${escapeHtml(l.run_id)}</div><div class="sub">${escapeHtml(`${l.workflow} · ${under} · ${took}`)}</div><div>${state}</div></div>
<div class="track"><div class="row nodes">${nodes.join("")}</div><div class="row attempts" style="height:${Math.max(1, l.attempt_rows) * 16 + 4}px">${attempts.join("")}</div><div class="row marks" style="height:${Math.max(1, marks.rows) * 16 + 4}px">${marks.html}</div></div></div>
<details class="entries"><summary>${l.entries.length} journal entries</summary><pre>${entries}</pre></details>
</section>`;
}

/**
 * The page for a timeline.
 * @param notice a warning shown above everything (a damaged journal: what is left out)
 * @returns a complete HTML document (UTF-8), deterministic for a given timeline
 */
export function timelineHtml(t: Timeline, notice?: string): string {
  const span = Math.max(1, t.end_ms - t.start_ms);
  const step = tickStep(span, 8, AXIS_PX.wide);
  // The narrow layout shows every n-th of them: as many as keep their labels apart there.
  let every = 1;
  while (step * every < span && !ticksFit(step * every, span, AXIS_PX.narrow)) every++;
  const ticks: string[] = [];
  const lastAt = (n: number) => Math.floor(span / (step * n)) * step * n;
  for (let v = 0, i = 0; v <= span; v += step, i++) {
    // The last label of each layout ends at its tick when centred it would pass the axis's end.
    const end = (n: number, axisPx: number) => v === lastAt(n) && endsAtTick(v, span, axisPx);
    const cls = [v === 0 ? "first" : "", end(1, AXIS_PX.wide) ? "last" : "", i % every === 0 ? (end(every, AXIS_PX.narrow) ? "last-narrow" : "") : "wide"].filter(Boolean);
    ticks.push(`<div class="tick${cls.map((c) => ` ${c}`).join("")}" style="left:${((v / span) * 100).toFixed(3)}%">${escapeHtml(tickLabel(v))}</div>`);
  }
  const grid = `${((step / span) * 100).toFixed(4)}%`;
  const f = t.failure;
  const failure = f
    ? `<div class="failure" role="alert"><strong>Failed${f.step ? ` at step ${escapeHtml(f.step)}` : ""}</strong> in run ${escapeHtml(f.run_id)} (+${escapeHtml(formatDuration(f.at_ms - t.start_ms))}): ${escapeHtml(f.reason)}${f.detail ? `\n${escapeHtml(f.detail)}` : ""}${f.at ? `\nsource: <code class="position">${escapeHtml(f.at)}</code>` : ""}</div>`
    : "";
  const legend = [
    ["ok", "succeeded"],
    ["warn", "a failure state, failed items, or a timeout"],
    ["failed", "failed (a step's timeout too)"],
    ["open", "not ended"],
    ["neutral", "message, signal, branch"],
  ]
    .map(([c, text]) => `<span><i class="${c}"></i>${text}</span>`)
    .join("");
  const status = { succeeded: "succeeded", failed: "failed", running: "running", waiting: "waiting (parked at a wait or an approval)", stopped: "stopped (not ended; criteria resume continues it)" }[t.status];
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(`criteria run ${t.run_id} (${t.workflow})`)}</title>
<style>${CSS}</style></head>
<body>
<h1>Run ${escapeHtml(t.run_id)} · workflow ${escapeHtml(t.workflow)}</h1>
<p class="summary"><span class="badge ${t.status}">${escapeHtml(status)}</span>${t.state ? ` in state <strong>${escapeHtml(t.state)}</strong>` : ""} · started ${escapeHtml(isoTime(t.start_ms))} · ${escapeHtml(formatDuration(t.end_ms - t.start_ms))}${t.status === "succeeded" || t.status === "failed" ? "" : " to the last entry"} · ${t.lanes.length} run${t.lanes.length === 1 ? "" : "s"} · ${t.entries} journal entries</p>
${notice ? `<div class="notice" role="alert">${escapeHtml(notice)}</div>\n` : ""}${failure}
<p class="legend">${legend} <span>rows: node visits (steps, waits, approvals) · attempts and receives · events</span></p>
<div class="axis"><div></div><div class="ticks">${ticks.join("")}</div></div>
<main>
${t.lanes.map((l) => laneHtml(t, l, grid)).join("\n")}
</main>
</body></html>
`;
}
