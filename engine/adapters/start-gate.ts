import { existsSync } from "node:fs";
import { basename, delimiter, resolve } from "node:path";
import { findExecutable, isExecutableFile } from "./find-executable.js";

/**
 * The start gate of a step's process (shell commands, agent CLIs): the process is spawned
 * as `/bin/sh -c <gate> step-gate FILE ARGS...`, which waits for one line on its fd 3
 * before it `exec`s `FILE ARGS...` (same pid, so the same process group and start time).
 * `runProcess` writes that line only once the group is listed with the group watcher and
 * its orphan file is written. A criteria killed between the spawn and the listing (a window
 * of a spawn's length: about half the kills of a run starting 1,000 parallel items, found
 * by a new-user trial, whose leftover process then ran its effect beside the resumed run's)
 * closes the pipe: the gate reads end of file and exits 125 without running anything.
 * POSIX only (a `/bin/sh`); elsewhere, and where `/bin/sh` is missing, processes start
 * ungated, as before.
 */
const GATE_LINE = "IFS= read -r _ <&3 || exit 125; exec 3<&-";
const GATE = `${GATE_LINE}; exec "$@"`;

/** Shells that read the gate's line as POSIX sh does, by their program's name. */
const POSIX_SHELLS = new Set(["sh", "dash", "bash", "ash", "ksh", "zsh"]);

/** The gate's `$0`, what `ps` shows before it execs the step's program. */
const GATE_NAME = "step-gate"; // not "criteria": a `pkill -f criteria` must not take it for criteria

/** Whether processes start gated here (decided once). */
let gated: boolean | undefined;

/**
 * How to spawn `file args` behind the gate: the program and arguments to give `spawn`, with
 * fd 3 a pipe (`stdio[3] = "pipe"`) whose first line opens it; `file` and `args` as they are
 * where processes start ungated (`gate: false`). `inline`: the gate is the first line of a
 * POSIX shell's own `-c` command (the program is spawned itself, so spawn says what fails).
 */
export function gatedCommand(file: string, args: string[]): { file: string; args: string[]; gate: boolean; inline: boolean } {
  gated ??= process.platform !== "win32" && existsSync("/bin/sh");
  if (!gated) return { file, args, gate: false, inline: false };
  // A POSIX shell's `-c COMMAND` (the shell adapter's) reads the gate's line first, in the same
  // line, so no second shell starts (a second exec cost a shell step ~0.6 ms: bench/shell-steps.ts).
  if (args.length === 2 && args[0] === "-c" && POSIX_SHELLS.has(basename(file))) return { file, args: ["-c", `${GATE_LINE}; ${args[1]}`], gate: true, inline: true };
  return { file: "/bin/sh", args: ["-c", GATE, GATE_NAME, file, ...args], gate: true, inline: false };
}

/**
 * Why `file` cannot be started from `cwd` with `env`'s PATH, as spawn would say it (an
 * errno code: `ENOENT` when nothing is found, `EACCES` when what is found may not be
 * executed), or undefined when it can. Checked before a gated spawn, whose `/bin/sh` always
 * starts: the step's missing program is then still a `spawn_error`, not the shell's exit 127.
 * A name with a `/` is a path (relative to `cwd`); one without is looked up on PATH (its
 * relative and empty entries from `cwd`, as the step's program is started there).
 */
export function startProblem(file: string, cwd: string, env: Record<string, string | undefined>): "ENOENT" | "EACCES" | undefined {
  if (file.includes("/")) {
    const path = resolve(cwd, file);
    if (isExecutableFile(path)) return undefined;
    return existsSync(path) ? "EACCES" : "ENOENT";
  }
  if (env.PATH === undefined) return undefined; // the shell's own default PATH: its exit 127 says it
  // As the program is looked up once in `cwd`: a relative entry from there, an empty one is
  // `cwd` itself (found by a new-user trial: PATH = "bin:/usr/bin" found no bin/mysh).
  const dirs = env.PATH.split(delimiter).map((d) => resolve(cwd, d));
  if (findExecutable(file, dirs) !== undefined) return undefined;
  return dirs.some((d) => existsSync(resolve(d, file))) ? "EACCES" : "ENOENT";
}

/**
 * The reason the gate's `exec` failed, when `stderr` (of a gated process that exited 126 or
 * 127) is the shell's own message about it, named by the gate's `$0` (`step-gate: 1: exec:
 * ./tool: not found` from dash, `step-gate: line 1: ./tool: … bad interpreter …` from
 * bash): the program never started. Undefined for anything else (the program's own exit).
 */
export function gateExecFailure(stderr: string): string | undefined {
  const m = new RegExp(`^${GATE_NAME}: (?:line )?\\d+: (?:exec: )?(.+)\\n?$`).exec(stderr);
  return m?.[1];
}

