import { spawn, type ChildProcess } from "node:child_process";

/**
 * Stops the process groups this process started (a step's command, an agent CLI, a plugin)
 * when this process dies, however it dies: SIGKILL, the OOM killer, a CI runner's
 * cancellation past its grace period, a worker killed on a host whose run another host then
 * takes over (the issue "Runs spread over machines": a killed attempt's leftover processes
 * were stopped only by `reapOrphan`, through the orphan file in the state directory of the
 * host they run on, when a run resumed there; on another host, or never resumed, they ran
 * on beside the attempt that replaced them). A process cannot act after a SIGKILL, so a
 * watcher does: one small `/bin/sh` per criteria process, started at its first group, in a
 * process group of its own, reading lines from a pipe only this process writes: `+PGID`
 * when a group starts, `-PGID` when it has ended. When the pipe closes (this process is
 * gone: the kernel closes its end) the watcher sends SIGTERM to every group still listed,
 * and SIGKILL 2 s later, as a timeout does. A normal exit lists none, and ends the watcher
 * first (`closeGroupWatcher`, called by bin/criteria): this process reaps it, rather than
 * leaving it to PID 1, which in a container may reap nothing (found by a trial: a zombie per
 * run). A group is listed the moment its spawn returns, as its orphan file is written, and
 * only then is its program let start (start-gate.ts): a criteria killed in between leaves a
 * gate that exits without running anything. POSIX only; when the watcher cannot start,
 * nothing else changes (the orphan files still serve a resume).
 */

/**
 * The watcher: builtins only, so a group's line costs it no process of its own. Its first
 * line is what `ps` shows first: whose it is, without the word "criteria" (a trial's
 * `pkill -f criteria` would kill it with criteria, and the steps would run on).
 */
const script = () => `# group watcher of pid ${process.pid}: stops its step processes if it dies (engine/adapters/group-watcher.ts)
groups=
while IFS= read -r line; do
  case $line in
    +*) groups="$groups \${line#+}" ;;
    -*) kept=; for g in $groups; do [ "$g" = "\${line#-}" ] || kept="$kept $g"; done; groups=$kept ;;
  esac
done
[ -n "$groups" ] || exit 0
for g in $groups; do kill -s TERM -- "-$g" 2>/dev/null; done
sleep 2
for g in $groups; do kill -s KILL -- "-$g" 2>/dev/null; done
`;

/** The groups listed with the watcher (leader pids), to list again with a new one. */
const listed = new Set<number>();
let watcher: ChildProcess | undefined;
/** Set once the watcher could not start: not tried again. */
let unavailable = false;

/** The running watcher, started (with every listed group) when there is none. */
function running(): ChildProcess | undefined {
  if (watcher || unavailable) return watcher;
  try {
    // Its own PATH: under a criteria whose PATH holds no `sleep` (only node's directory, say)
    // SIGKILL followed SIGTERM at once (found by a trial).
    const w = spawn("/bin/sh", ["-c", script()], { stdio: ["pipe", "ignore", "ignore"], detached: true, env: { PATH: "/usr/bin:/bin" } });
    w.on("error", () => {
      unavailable = true;
      if (watcher === w) watcher = undefined;
    });
    // Killed from outside: the next group starts another, told of every group listed.
    w.on("exit", () => {
      if (watcher === w) watcher = undefined;
    });
    w.stdin!.on("error", () => undefined);
    // Neither the watcher nor its pipe keeps this process running.
    w.unref();
    (w.stdin as unknown as { unref?: () => void }).unref?.();
    watcher = w;
    if (listed.size > 0) w.stdin!.write([...listed].map((g) => `+${g}\n`).join(""));
  } catch {
    unavailable = true;
  }
  return watcher;
}

/**
 * Starts the watcher, if none runs, before a process group is spawned: the group's line is
 * then written as soon as its spawn returns, the window before it not lengthened by the
 * watcher's own start (a fork and an exec).
 */
export function readyGroupWatcher(): void {
  running();
}

/** Lists the process group led by `pid` with the watcher: stopped if this process dies while it runs. */
export function watchGroup(pid: number): void {
  if (listed.has(pid)) return;
  listed.add(pid);
  // A watcher started now is told of every listed group, this one included.
  if (watcher) watcher.stdin?.write(`+${pid}\n`);
  else running();
}

/** Takes the group led by `pid` off the watcher's list (it has ended, or was stopped by this process). */
export function unwatchGroup(pid: number): void {
  if (!listed.delete(pid)) return;
  watcher?.stdin?.write(`-${pid}\n`);
}

/**
 * Ends the watcher and waits (at most `ms`) for it to exit, so that this process reaps it. At
 * the end of a command (bin/criteria), when no group is listed: it exits at once. A group
 * still listed is stopped by it, as if this process had died. Later groups start another.
 */
export function closeGroupWatcher(ms = 1000): Promise<void> {
  const w = watcher;
  if (!w) return Promise.resolve();
  watcher = undefined;
  return new Promise((resolve) => {
    // Waited for: the watcher and the wait keep this process running until it has exited.
    w.ref();
    const give = setTimeout(resolve, ms);
    w.once("exit", () => {
      clearTimeout(give);
      resolve();
    });
    w.stdin?.end();
  });
}
// Found there by bin/criteria, which loads the engine only through the commands that run.
(globalThis as Record<symbol, unknown>)[Symbol.for("criteria.close-group-watcher")] = closeGroupWatcher;
