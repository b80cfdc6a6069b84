/**
 * The Go tool's flags and commands that criteria spells otherwise (docs/language.md,
 * Differences), by the name commander refuses: what to write here instead. Found by a trial
 * of the Go tool's language: `--diag-json`, `--out` and `langserver` were refused with no
 * pointer (`--out` was offered `--root`).
 */
const EQUIVALENTS: Readonly<Record<string, string>> = {
  "--diag-json": "--format json",
  "--out": "a redirect of standard output (criteria compile PATH -f dot > graph.dot)",
  "--subworkflow-root": "--root DIR",
  "--events-file": "-o json, its events as NDJSON on standard output (> events.ndjson)",
  "--server": "criteria worker --store postgres://… (runs spread over machines), or no flag (a run in this process)",
  langserver: "criteria lsp",
};

/**
 * The hint for a refusal commander wrote (`error: unknown option '--diag-json'`), when it
 * names one of the Go tool's flags or commands; undefined otherwise.
 */
export function goToolHint(message: string): string | undefined {
  const name = /unknown (?:option|command) '([^']+)'/.exec(message)?.[1];
  const instead = name === undefined ? undefined : EQUIVALENTS[name.split("=")[0]];
  return instead === undefined ? undefined : `hint: the Go tool's ${name!.split("=")[0]} is ${instead} here`;
}
