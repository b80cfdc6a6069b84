/**
 * Printing helpers shared by the benchmarks: aligned text tables and PASS/MISS verdicts
 * against the goals. Verdicts are printed, never asserted.
 */

/** The verdict of one figure against its goal. */
export type Verdict = "PASS" | "MISS" | "n/a";

/** `PASS` when `value <= limit` (or `< limit` when `strict`), `n/a` for a missing figure. */
export function verdict(value: number | undefined, limit: number, strict = false): Verdict {
  if (value === undefined || Number.isNaN(value)) return "n/a";
  return (strict ? value < limit : value <= limit) ? "PASS" : "MISS";
}

/** Prints a table: a title, a header row and the rows, columns padded to fit. */
export function printTable(title: string, header: string[], rows: (string | number)[][], notes: string[] = []): void {
  const cells = [header, ...rows.map((r) => r.map((c) => (typeof c === "number" ? fmt(c) : c)))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  process.stdout.write(`\n${title}\n${"=".repeat(title.length)}\n`);
  process.stdout.write(line(cells[0]) + "\n" + widths.map((w) => "-".repeat(w)).join("  ") + "\n");
  for (const r of cells.slice(1)) process.stdout.write(line(r) + "\n");
  for (const n of notes) process.stdout.write(`  ${n}\n`);
}

/** Formats a number for a table: one decimal under 100, none above; `-` for NaN. */
export function fmt(x: number): string {
  if (Number.isNaN(x)) return "-";
  return Math.abs(x) >= 100 ? x.toFixed(0) : x.toFixed(1);
}

/** Formats a ratio as `3.21x`. */
export function fmtRatio(x: number): string {
  return Number.isNaN(x) ? "-" : `${x.toFixed(2)}x`;
}

/** Prints a progress line to stderr (kept off stdout so the tables stay clean). */
export function progress(msg: string): void {
  process.stderr.write(`  .. ${msg}\n`);
}
