import type { Value } from "../../compiler/expr/value.js";
import type { JournalEntry, NewEntry } from "../journal/entry.js";
import type { Journal } from "../journal/journal.js";

/**
 * Records a signal or an approval decision for a run tree (`criteria signal|approve|reject`),
 * as a `signal.received` entry appended without a lease (it is not the run's holder), waking
 * in the same transaction the workers' jobs of `wake` (the tree's active lease units,
 * child-jobs.ts `activeUnits`: any of them may be the one waiting; default the root).
 * The entry's `run_id` is its address `to` (default the root): a wait or an approval of run R
 * takes it only when `to` is R or one of R's ancestors (child-jobs.ts `within`), so a signal to a
 * child run is not consumed by its sibling (found by a trial: `signal CHILD` said it was
 * delivered to CHILD, and another child of the tree took it).
 * @param ifLastSeq the tree's newest `seq` the caller read (an approval's decision, checked
 *   against it): written only if nothing came after it (journal.ts `AppendOptions.ifLastSeq`)
 * @returns the entry, with its `seq`
 * @throws JournalWriteError; TreeChangedError when the tree moved on past `ifLastSeq`;
 *   RunEndedError when run `to` or its tree has ended (checked in the append's transaction)
 */
export async function deliverSignal(
  journal: Journal,
  rootRunId: string,
  name: string,
  payload: Value | undefined,
  by: string | undefined,
  now: number,
  wake: string[] = [rootRunId],
  to: string = rootRunId,
  ifLastSeq?: number,
): Promise<JournalEntry> {
  const e: NewEntry = { run_id: to, step_id: "", attempt: 0, entry_type: "signal.received", at_ms: now, payload: { name, ...(payload !== undefined ? { payload } : {}), ...(by ? { by } : {}) } };
  // Refused once the run, or its tree, has ended (RunEndedError): no wait would ever take it.
  return (await journal.append(rootRunId, [e], { wake: { runs: wake }, unlessEnded: [...new Set([to, rootRunId])], ...(ifLastSeq !== undefined ? { ifLastSeq } : {}) }))[0];
}
