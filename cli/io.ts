/**
 * Exit codes, one table for every command (docs/architecture.md, The command line; actionlint's
 * 0/1/2/3, extended for runs in pipelines: README, Use):
 * 0 ok; 1 problems found, or the run failed; 2 usage error (a bad flag, a missing
 * `--var` or `--input`); 3 internal fault (a bug); 4 stopped before its end and
 * resumable (interrupted by a signal, the journal could not be written); 5 parked:
 * waiting for an approval or a signal in non-interactive mode (`criteria resume` later).
 */
export const EXIT = { ok: 0, problems: 1, usage: 2, internal: 3, stopped: 4, parked: 5 } as const;

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

/**
 * A value the user gave, as a message echoes it: whole up to `max` characters, else its start
 * and its length (found by a new-user trial: a 5,000-character `--run-id` was echoed whole);
 * quoted as JSON when it holds spaces or control characters, so none is invisible or acts
 * on the terminal (found by a new-user trial: `'gate1 '` and an ESC sequence went out raw).
 */
export function echoed(value: string, max = 80): string {
  const chars = [...value];
  const cut = chars.length <= max ? value : `${chars.slice(0, max - 20).join("")}…`;
  const shown = /[\s\u0000-\u001f\u007f-\u009f]/.test(value) ? JSON.stringify(cut) : cut;
  return chars.length <= max ? shown : `${shown} (${chars.length} characters)`;
}

/**
 * Set on `globalThis` when standard output or error failed for a reason other than a
 * closed pipe; `bin/criteria` then exits 1 instead of 0.
 */
export const OUTPUT_LOST = Symbol.for("criteria.output-lost");

/** Where the CLI writes; tests pass their own. */
export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
  /** ANSI colours in diagnostics. */
  color: boolean;
  /** Standard output is a terminal (progress lines rather than NDJSON). */
  isTTY: boolean;
  env: NodeJS.ProcessEnv;
  /** Ends the process now with `code` (the CLI's process; absent where a test runs commands in its own). */
  exit?: (code: number) => void;
}

/**
 * The process's own streams and environment. A closed stdout or stderr (`criteria apply
 * -o json | head -1`, a CI log collector that went away, a terminal that hung up) never stops the command: what
 * it writes is dropped from then on, and the command ends with its own exit code. Any
 * other write failure (no space) is said on stderr and makes a successful command fail
 * ({@link OUTPUT_LOST}).
 */
export function processIo(): Io {
  const closed = { out: false, err: false };
  for (const [name, stream] of [["out", process.stdout], ["err", process.stderr]] as const) {
    stream.on("error", (e: NodeJS.ErrnoException) => {
      closed[name] = true;
      if (e.code === "EPIPE" || e.code === "ERR_STREAM_DESTROYED") return;
      // A terminal that hung up (its window closed, its SSH session dropped) has no reader
      // left either: EIO there is a closed pipe's EPIPE, not lost output (a new-user trial).
      if (e.code === "EIO" && stream.isTTY) return;
      // The output could not be written (a full disk, `> /dev/full`): said once on stderr,
      // and the command fails however it ended (found by a trial: it exited 0).
      (globalThis as Record<symbol, unknown>)[OUTPUT_LOST] = true;
      if (name === "out" && !closed.err) process.stderr.write(`criteria: the output could not be written (${e.code ?? e.message}): it is incomplete\n`);
    });
  }
  return {
    out: (s) => void (closed.out || process.stdout.write(s)),
    err: (s) => void (closed.err || process.stderr.write(s)),
    color: process.stdout.isTTY === true && !process.env.NO_COLOR,
    isTTY: process.stdout.isTTY === true,
    env: process.env,
    exit: (code) => process.exit(code),
  };
}
