/**
 * "Did you mean?" suggestions for misspelled names (variables, attributes, functions,
 * template keywords).
 *
 * Source: the same idea as hclsyntax's `nameSuggestion` (Levenshtein distance < 3).
 *
 * Shapes: `closestName(given, candidates)` returns the candidate with the smallest edit
 * distance when that distance is at most 2 (or at most a third of the name's length for
 * long names), else `undefined`. Ties keep the first candidate. Never throws.
 */

/** Levenshtein edit distance between two strings (UTF-16 units), O(a*b). */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
    }
    prev = cur;
  }
  return prev[b.length];
}

/** The closest candidate to `given`, if any is close enough to be a plausible typo. */
export function closestName(given: string, candidates: Iterable<string>): string | undefined {
  if (given.length > 100) return undefined;
  const limit = Math.max(2, Math.floor(given.length / 3));
  let best: string | undefined;
  let bestDist = Infinity;
  for (const c of candidates) {
    if (Math.abs(c.length - given.length) > limit || c.length > 100) continue;
    const d = editDistance(given.toLowerCase(), c.toLowerCase());
    if (d <= limit && d < bestDist) {
      best = c;
      bestDist = d;
    }
  }
  return best;
}
