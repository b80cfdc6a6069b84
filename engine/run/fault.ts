/**
 * Fault injection for the crash matrix (test/engine/crash-matrix/), beside the
 * journal's `CRITERIA_FAULT_KILL_AFTER_SEQ`: with `CRITERIA_FAULT_KILL_AFTER_EFFECT=N` in
 * the environment, the process SIGKILLs itself right after the N-th effect of the
 * process (an effectful adapter's attempt) returned, before its confirmation is
 * journaled: the one window no journal entry marks (the effect ran, the journal does not
 * know). Unset, nothing happens.
 */
const limit = /^\d+$/.test(process.env.CRITERIA_FAULT_KILL_AFTER_EFFECT ?? "") ? Number(process.env.CRITERIA_FAULT_KILL_AFTER_EFFECT) : undefined;
let effects = 0;

/** Called after each effect returns; kills the process at the configured one. */
export function afterEffect(): void {
  if (limit === undefined) return;
  effects++;
  if (effects >= limit) process.kill(process.pid, "SIGKILL");
}
