import type { Value } from "../../compiler/expr/value.js";
import type { Adapter, Session, SessionContext } from "../adapters/adapter.js";

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

  /** @param ctx what adapters are told when a session opens */
  constructor(private readonly ctx: Omit<SessionContext, "adapter_id">) {}

  /**
   * The session for `id` (`adapter.T.N`, `agent.N`), opened on first use.
   * @param make how to open it: the adapter and its evaluated config
   */
  get(id: string, make: () => { adapter: Adapter; config: Record<string, Value> }): Promise<Session> {
    let s = this.open.get(id);
    if (!s) {
      const { adapter, config } = make();
      s = adapter.open(config, { ...this.ctx, adapter_id: id });
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

  /** Closes this scope's sessions, last opened first. Errors are collected, not thrown. */
  async close(): Promise<string[]> {
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
