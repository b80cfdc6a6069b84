import { crc32 } from "node:zlib";
import type { MemoryItem } from "./entry.js";
import type { RunsQuery } from "./journal.js";

/**
 * What every journal store computes the same way (engine/journal/journal.ts): entry
 * checksums, the text a run leaves in memory, how a memory pack is cut to its budget, and
 * which finished steps a damaged tail would run again, and how a runs row is read. Pure
 * functions and SQL text: no store, no I/O.
 */

/**
 * The runs table's rows as `RunRow`s (journal.ts), the same SQL on SQLite and PostgreSQL
 * (both their schemas): an active run's `updated_ms` is its newest entry's or a nested
 * run's (ids below it start with its id and "/"), found from the tree's newest entries
 * backwards by the `journal_root` index; an ended run's is when it ended. Followed by a
 * `WHERE`, `ORDER BY` or nothing.
 */
export const RUN_ROWS = `SELECT run_id, root_run_id, parent_run_id, workflow, status, created_ms,
  CASE WHEN status = 'active' THEN COALESCE((SELECT j.at_ms FROM journal j WHERE j.root_run_id = runs.root_run_id
    AND (j.run_id = runs.run_id OR substr(j.run_id, 1, length(runs.run_id) + 1) = runs.run_id || '/') ORDER BY j.seq DESC LIMIT 1), updated_ms)
  ELSE updated_ms END AS updated_ms, final_state, identity FROM runs`;

/**
 * What follows {@link RUN_ROWS} for {@link Journal.runs}'s query, newest first: the SQL with
 * `param(i)` as the i-th (1-based) placeholder (`$1` on PostgreSQL, `?` on SQLite) and the
 * values in order.
 */
export function runsQuerySql(q: RunsQuery, param: (i: number) => string): { sql: string; values: (string | number)[] } {
  const where: string[] = [];
  const values: (string | number)[] = [];
  const bind = (v: string | number) => {
    values.push(v);
    return param(values.length);
  };
  if (q.roots) where.push("parent_run_id IS NULL");
  if (q.childrenOf !== undefined) where.push(`root_run_id = ${bind(q.childrenOf)} AND run_id <> root_run_id`);
  if (q.active) where.push("status = 'active'");
  const sql = `${where.length ? `WHERE ${where.join(" AND ")} ` : ""}ORDER BY created_ms DESC, run_id DESC LIMIT ${bind(q.limit ?? 1000)}`;
  return { sql, values };
}

/**
 * CRC-32 of an entry's fields: detects a torn or corrupted row (not tampering, which
 * needs a key). CRC-32 rather than a cryptographic hash: it is checked for every entry
 * on every resume. An unsigned 32-bit number.
 */
export function checksum(seq: number, root: string, runId: string, stepId: string, attempt: number, type: string, atMs: number, payload: string): number {
  return crc32(`${seq}\0${root}\0${runId}\0${stepId}\0${attempt}\0${type}\0${atMs}\0${payload}`);
}

/** The text a run leaves in memory: its outputs, one `name: value` per line (strings as they are, the rest as JSON). */
export function memoryText(outputs: Record<string, unknown>): string {
  return Object.entries(outputs)
    .map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join("\n");
}

/** The words a memory query searches for: lower-cased letters, digits and `_`, two or more, at most 32, each once. */
export function recallTerms(query: string): string[] {
  return [...new Set(query.toLowerCase().match(/[\p{L}\p{N}_]{2,}/gu) ?? [])].slice(0, 32);
}

/**
 * A memory pack from candidate rows (best matches first, then the newest): each run once,
 * as many as fit in `budgetBytes` of UTF-8, the last one cut on a character boundary.
 */
export function pickMemory(rows: MemoryItem[], budgetBytes: number): MemoryItem[] {
  const out: MemoryItem[] = [];
  const seen = new Set<string>();
  let left = budgetBytes;
  for (const r of rows) {
    if (seen.has(r.run_id) || left <= 0) continue;
    seen.add(r.run_id);
    const bytes = Buffer.byteLength(r.text);
    const text = bytes <= left ? r.text : Buffer.from(r.text).subarray(0, left).toString("utf8").replace(/\uFFFD$/, "");
    out.push({ run_id: r.run_id, at_ms: Number(r.at_ms), text });
    left -= Buffer.byteLength(text);
  }
  return out;
}

/** An entry as a damage report sees it. */
export interface DamagedRow {
  run_id: string;
  step_id: string;
  entry_type: string;
}

/**
 * The steps that finished in the entries a damaged tail would lose (`lost`) and would run
 * again: a step whose effect was confirmed before the damage (`confirmedBefore`) is re-used.
 * A nested run's step is named with its run's path below the root, as the text journal
 * names it (`items#1[0] › w2`; found by a new-user trial: a bare `w2` said not which item).
 */
export function tallyDamage(confirmedBefore: DamagedRow[], lost: DamagedRow[]): string[] {
  const kept = new Set(confirmedBefore.filter((r) => r.entry_type === "effect.confirmed").map((r) => `${r.run_id}\u0000${r.step_id}`));
  const steps = new Set<string>();
  for (const r of lost) {
    if ((r.entry_type === "step.completed" || r.entry_type === "effect.confirmed") && !kept.has(`${r.run_id}\u0000${r.step_id}`)) {
      const below = r.run_id.indexOf("/");
      steps.add(below < 0 ? r.step_id : `${r.run_id.slice(below + 1)} › ${r.step_id}`);
    }
  }
  return [...steps];
}

/** Whether `row`, the first damaged entry of run tree `rootRunId`, is the tree's first entry (its root's `run.spawned`). */
export function isTreeStart(rootRunId: string, row: DamagedRow | undefined): boolean {
  return row !== undefined && row.run_id === rootRunId && row.entry_type === "run.spawned";
}
