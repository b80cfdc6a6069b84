/**
 * The one did-you-mean helper (after HCL's `nameSuggestion`): the closest candidate
 * within an edit distance of 3 (and less than half the name's length, so short
 * names do not match everything), else a short "expected one of ..." list.
 */
export function suggest(name: string, candidates: Iterable<string>): string | undefined {
  const list = [...new Set(candidates)].filter((c) => c !== name);
  if (list.length === 0) return undefined;
  const best = closestName(name, list);
  if (best !== undefined) return `did you mean "${best}"?`;
  return expectedOneOf(list);
}

/** `expected one of "a", "b", ...` (sorted, at most 8 shown); undefined for no candidates. */
export function expectedOneOf(candidates: Iterable<string>): string | undefined {
  const sorted = [...new Set(candidates)].sort();
  if (sorted.length === 0) return undefined;
  const shown = sorted.slice(0, 8).map((c) => `"${c}"`).join(", ");
  return `expected one of ${shown}${sorted.length > 8 ? `, ... (${sorted.length} in all)` : ""}`;
}

/**
 * The candidate closest to `name` when it is a plausible typo: edit distance at most 2 (3
 * for a name of 8 characters or more) and at most half the longer one's length (`rgn` is not
 * `n`: a trial), case-insensitive; ties go to the smaller name (found by a new-user trial: `--var bogus` was asked whether it
 * meant "tags", three edits away in five letters; Terraform's suggestions stop at 2 edits).
 */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  if (name.length > 100) return undefined;
  let best: string | undefined;
  let bestDist = Infinity;
  const lower = name.toLowerCase();
  for (const c of candidates) {
    if (c === name || c.length > 100) continue;
    const d = c.toLowerCase() === lower ? 0 : distance(lower, c.toLowerCase());
    if (d < bestDist || (d === bestDist && best !== undefined && c < best)) {
      best = c;
      bestDist = d;
    }
  }
  return best !== undefined && bestDist <= (name.length >= 8 ? 3 : 2) && bestDist <= Math.max(1, Math.floor(Math.max(name.length, best.length) / 2)) ? best : undefined;
}

/** Damerau-Levenshtein (optimal string alignment) distance, O(a·b). */
export function distance(a: string, b: string): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > 3) return Math.abs(a.length - b.length);
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = [];
  for (let i = 0; i < rows; i++) d.push(new Array<number>(cols).fill(0));
  for (let i = 0; i < rows; i++) d[i][0] = i;
  for (let j = 0; j < cols; j++) d[0][j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.length][b.length];
}
