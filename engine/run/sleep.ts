/** Node timers overflow past 2^31 - 1 ms (~24.8 days) and then fire at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Sleeps `ms` (any length: in timer-sized chunks), or until `signal` aborts. */
export async function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  let left = Math.max(0, ms);
  do {
    if (signal.aborted) return;
    const chunk = Math.min(left, MAX_TIMER_MS);
    await new Promise<void>((res) => {
      const done = () => {
        clearTimeout(t);
        signal.removeEventListener("abort", done);
        res();
      };
      const t = setTimeout(done, chunk);
      signal.addEventListener("abort", done, { once: true });
    });
    left -= chunk;
  } while (left > 0);
}
