/**
 * The longest duration there is: Go's `time.Duration` (int64 nanoseconds, about 292
 * years), past which the Go tool's `time.ParseDuration` fails; in milliseconds.
 */
export const MAX_DURATION_MS = Math.floor(Number(2n ** 63n - 1n) / 1e6);

/** A duration's milliseconds, however large, or undefined when the text is not one. */
function rawDuration(text: string): number | undefined {
  const s = text.trim();
  if (s === "0") return 0;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h|d)/gy;
  const unit: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
  let total = 0;
  let matched = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s)) !== null) {
    total += Number(m[1]) * unit[m[2]];
    matched = re.lastIndex;
  }
  if (matched === 0 || matched !== s.length) return undefined;
  return Math.round(total);
}

/**
 * Parses a Go-style duration (`"90s"`, `"1h30m"`, `"250ms"`, `"2.5m"`), as the Go tool's
 * `timeout` and `wait { duration }` take them. Units: ns, us, µs, ms, s, m, h, d.
 * @returns milliseconds, or undefined when the text is not a duration or is longer than
 *   {@link MAX_DURATION_MS} (as in Go: a wait of "9999999999h" has no end time a clock can show)
 */
export function parseDuration(text: string): number | undefined {
  const ms = rawDuration(text);
  return ms !== undefined && ms <= MAX_DURATION_MS ? ms : undefined;
}

/** Whether the text is a duration longer than {@link MAX_DURATION_MS}. */
export function durationTooLong(text: string): boolean {
  return (rawDuration(text) ?? 0) > MAX_DURATION_MS;
}

/**
 * Milliseconds as a duration is written (`1800000` → `"30m"`, `5400000` → `"1h30m"`,
 * `1500` → `"1.5s"`, `250` → `"250ms"`, `0` → `"0s"`): the largest units first, none
 * that is zero; what {@link parseDuration} reads back to the same milliseconds.
 * For `criteria plan`, which shows waits and timeouts as a file writes them.
 */
export function durationText(ms: number): string {
  if (ms <= 0) return "0s";
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  return `${h > 0 ? `${h}h` : ""}${m > 0 ? `${m}m` : ""}${s > 0 ? `${s}s` : ""}`;
}
