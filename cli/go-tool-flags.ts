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
  // The Go tool's other commands (its workflow.md, Commands; found by a trial of its docs: `spec` had no pointer).
  spec: "docs/language.md, the language reference (and criteria explain CODE for a diagnostic)",
  adapter: "not there: criteria runs its built-in adapters and criteria-adapter-<type> executables found on PATH or in $CRITERIA_PLUGINS (docs/language.md, What apply refuses)",
  status: "criteria runs, and criteria journal RUN for one run",
  inspect: "criteria journal RUN (--format html for its timeline page)",
  stop: "Ctrl-C (SIGINT or SIGTERM) to the criteria running it; criteria resume RUN continues it",
  pause: "Ctrl-C (SIGINT or SIGTERM) to the criteria running it; criteria resume RUN continues it",
};

/**
 * Flags a command does not take yet though a user expects them (docs/language.md, "Not
 * there yet"), by `command flag`: what the command does without them. Found by a new-user
 * trial: `plan --var` was a bare "unknown option".
 */
const NOT_YET: Readonly<Record<string, string>> = {
  "plan --var": "plan takes no variables yet: it shows every route a run may take, whatever their values",
  "plan --var-file": "plan takes no variables yet: it shows every route a run may take, whatever their values",
};

/**
 * The hint for a refusal commander wrote (`error: unknown option '--diag-json'`), when it
 * names one of the Go tool's flags or commands, or a flag `command` does not take yet;
 * undefined otherwise.
 *
 * @param command the command given (argv's first word), for the flags it does not take yet
 */
export function goToolHint(message: string, command?: string): string | undefined {
  const name = /unknown (?:option|command) '([^']+)'/.exec(message)?.[1]?.split("=")[0];
  if (name === undefined) return undefined;
  const notYet = NOT_YET[`${command} ${name}`];
  if (notYet !== undefined) return `hint: ${notYet} (docs/language.md, Not there yet)`;
  const instead = EQUIVALENTS[name];
  return instead === undefined ? undefined : `hint: the Go tool's ${name} is ${instead} here`;
}
