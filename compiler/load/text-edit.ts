/**
 * One change of a text: what lay from `start` to `oldEnd` of the text before became what lies
 * from `start` to `newEnd` of the text after. UTF-16 offsets.
 */
export interface TextEdit {
  start: number;
  oldEnd: number;
  newEnd: number;
}

/**
 * The change from text `a` to text `b`, found by their common start and end: every edit an
 * editor makes between two versions lies in it (several at once count as one spanning them).
 * Used by the block-by-block re-parse (compiler/load/reparse-hcl.ts) and by the language
 * server's positions between versions (cli/lsp/stale-spec.ts).
 */
export function editBetween(a: string, b: string): TextEdit {
  let p = 0;
  const shorter = Math.min(a.length, b.length);
  while (p < shorter && a.charCodeAt(p) === b.charCodeAt(p)) p++;
  let s = 0;
  while (s < shorter - p && a.charCodeAt(a.length - 1 - s) === b.charCodeAt(b.length - 1 - s)) s++;
  return { start: p, oldEnd: a.length - s, newEnd: b.length - s };
}
