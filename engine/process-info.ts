import { readFileSync } from "node:fs";

/**
 * A process's state letter, parent pid, process group id and start time (clock ticks
 * since boot) from `/proc/<pid>/stat` (Linux). Together, pid + start time name one
 * process even after the pid is reused; state `Z` is a zombie (exited, not yet reaped).
 * @returns undefined when the process is gone or /proc is not there
 */
export function procStat(pid: number): { state: string; ppid: number; pgid: number; start: string } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { state: rest[0], ppid: Number(rest[1]), pgid: Number(rest[2]), start: rest[19] };
  } catch {
    return undefined;
  }
}
