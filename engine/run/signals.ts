import type { Value } from "../../compiler/expr/value.js";
import type { JournalEntry, NewEntry } from "../journal/entry.js";
import type { SqliteJournal } from "../journal/sqlite-journal.js";

/** Records a signal or an approval decision for a run tree (`criteria signal|approve|reject`). */
export function deliverSignal(journal: SqliteJournal, rootRunId: string, name: string, payload: Value | undefined, by: string | undefined, now: number): JournalEntry {
  const e: NewEntry = { run_id: rootRunId, step_id: "", attempt: 0, entry_type: "signal.received", at_ms: now, payload: { name, ...(payload !== undefined ? { payload } : {}), ...(by ? { by } : {}) } };
  return journal.append(rootRunId, [e])[0];
}
