/** Exit codes (DESIGN.md, CLI conventions; actionlint's 0/1/2/3). */
export const EXIT = { ok: 0, problems: 1, usage: 2, internal: 3 } as const;

/**
 * A user's mistake or a refusal the CLI reports as one line (`criteria: message`) with
 * its exit code: no stack trace (exit 2 for usage, 1 for problems).
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.problems,
  ) {
    super(message);
  }
}

/** Where the CLI writes; tests pass their own. */
export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
  /** ANSI colours in diagnostics. */
  color: boolean;
  /** Standard output is a terminal (progress lines rather than NDJSON). */
  isTTY: boolean;
  env: NodeJS.ProcessEnv;
}

/** The process's own streams and environment. */
export function processIo(): Io {
  return {
    out: (s) => void process.stdout.write(s),
    err: (s) => void process.stderr.write(s),
    color: process.stdout.isTTY === true && !process.env.NO_COLOR,
    isTTY: process.stdout.isTTY === true,
    env: process.env,
  };
}
