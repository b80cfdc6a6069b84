/**
 * Small statistics helpers for the benchmarks. Samples are plain millisecond arrays;
 * nothing here asserts anything: the benchmarks print figures and compare them to goals.
 */

/** The `p`-th percentile (0..100) of `xs` by linear interpolation between closest ranks; NaN when empty. */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const rank = (p / 100) * (s.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return s[lo] + (s[hi] - s[lo]) * (rank - lo);
}

/** The median of `xs` (NaN when empty). */
export function median(xs: readonly number[]): number {
  return percentile(xs, 50);
}

/** The 90th percentile of `xs` (NaN when empty). */
export function p90(xs: readonly number[]): number {
  return percentile(xs, 90);
}

/** A summary of one set of samples, rounded for printing and JSON. */
export interface Summary {
  n: number;
  median: number;
  p90: number;
  min: number;
  max: number;
}

/** Summarises samples: count, median, p90, min and max (rounded to 0.1). */
export function summarize(xs: readonly number[]): Summary {
  return {
    n: xs.length,
    median: round(median(xs)),
    p90: round(p90(xs)),
    min: round(xs.length ? Math.min(...xs) : NaN),
    max: round(xs.length ? Math.max(...xs) : NaN),
  };
}

/** Rounds to `digits` decimals (default 1); keeps NaN. */
export function round(x: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
