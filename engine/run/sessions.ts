import type { Value } from "../../compiler/expr/value.js";
import type { Adapter, Session, SessionContext } from "../adapters/adapter.js";
import { MAX_TIMER_MS } from "./sleep.js";

/**
 * The sessions one run (root or nested) owns. Opened lazily, once, on first use; closed
 * LIFO when the run ends, also on failure (docs/architecture.md, The engine). A run that uses an
 * adapter or agent it inherits (a body's enclosing workflow's, or a module's `expects`)
 * asks the owning run's scope (frame.ts `ownerOf`), so it uses the caller's *live*
 * session: an alias, not a copy.
 */
export class SessionScope {
  private readonly open = new Map<string, Promise<Session>>();
  private readonly order: string[] = [];
  /** Aborted by {@link close}: an opening still under way gives up (SessionContext.signal). */
  private readonly closing = new AbortController();

  /** @param ctx what adapters are told when a session opens */
  constructor(private readonly ctx: Omit<SessionContext, "adapter_id" | "signal">) {}

  /**
   * The session for `id` (`adapter.T.N`, `agent.N`), opened on first use.
   * @param make how to open it: the adapter and its evaluated config
   */
  get(id: string, make: () => { adapter: Adapter; config: Record<string, Value> }): Promise<Session> {
    let s = this.open.get(id);
    if (!s) {
      const { adapter, config } = make();
      s = adapter.open(config, { ...this.ctx, adapter_id: id, signal: this.closing.signal });
      this.open.set(id, s);
      this.order.push(id);
    }
    return s;
  }

  /**
   * Closes and forgets one session, so the next `get` opens a fresh one (after a crashed
   * adapter process, before a retry).
   */
  async discard(id: string): Promise<void> {
    const s = this.open.get(id);
    if (!s) return;
    this.open.delete(id);
    this.order.splice(this.order.lastIndexOf(id), 1);
    try {
      await (await s).close();
    } catch {
      // a crashed session may fail to close; it is gone either way
    }
  }

  /** Closes this scope's sessions, last opened first (one still opening gives up first). Errors are collected, not thrown. */
  async close(): Promise<string[]> {
    this.closing.abort();
    const errors: string[] = [];
    while (this.order.length > 0) {
      const id = this.order.pop()!;
      const s = this.open.get(id)!;
      this.open.delete(id);
      try {
        await (await s).close();
      } catch (e) {
        errors.push(`closing ${id}: ${(e as Error).message}`);
      }
    }
    return errors;
  }
}

/**
 * A session being opened, waited for at most `timeoutMs` (a step's `timeout`, which bounds
 * the whole step: an external adapter's handshake may take its own 30 s; found by a new-user
 * trial, a step of `timeout = "3s"` ended after 35 s with "handshake failed") and until
 * `signal` aborts (Ctrl-C, a stopping worker). The opening goes on for the steps that share
 * the session; only this wait ends.
 * @param timeoutMs ms, or undefined for no bound (held to what a Node timer holds)
 * @returns the session, or `timeout` or `aborted`, with how long was waited (ms)
 */
export async function openWithin(opening: Promise<Session>, timeoutMs: number | undefined, signal: AbortSignal): Promise<({ session: Session } | { ended: "timeout" | "aborted" }) & { waitedMs: number }> {
  const since = Date.now();
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const bounds = new Promise<"timeout" | "aborted">((resolve) => {
    if (timeoutMs !== undefined) timer = setTimeout(() => resolve("timeout"), Math.min(timeoutMs, MAX_TIMER_MS));
    onAbort = () => resolve("aborted");
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    const first = await Promise.race([opening.then((session) => ({ session })), bounds]);
    return typeof first === "string" ? { ended: first, waitedMs: Date.now() - since } : { ...first, waitedMs: Date.now() - since };
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}

