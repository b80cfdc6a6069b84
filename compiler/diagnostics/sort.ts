import type { Diagnostic } from "./diagnostic.js";
import { compareRanges } from "./range.js";

/**
 * The one place diagnostics are ordered and de-duplicated (actionlint's orchestrator
 * does the same): by file, start, end, then code and message; exact repeats (same
 * code, range and message) are dropped. Returns a new array.
 */
export function sortDiagnostics(ds: readonly Diagnostic[]): Diagnostic[] {
  const sorted = [...ds].sort(
    (a, b) =>
      compareRanges(a.range, b.range) ||
      (a.code < b.code ? -1 : a.code > b.code ? 1 : 0) ||
      (a.message < b.message ? -1 : a.message > b.message ? 1 : 0),
  );
  const out: Diagnostic[] = [];
  let prevKey = "";
  for (const d of sorted) {
    const key = `${d.range.file}\0${d.range.start.offset}\0${d.range.end.offset}\0${d.code}\0${d.message}`;
    if (key !== prevKey) out.push(d);
    prevKey = key;
  }
  return out;
}
