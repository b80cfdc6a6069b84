import type { Value } from "../../compiler/expr/value.js";
import type { Adapter, Session, SessionContext } from "../adapters/adapter.js";

/**
 * The sessions of one scope (a run: root or nested). Opened lazily, once, on first
 * use; closed LIFO when the scope ends, also on failure (DESIGN.md, Engine). A child
 * scope asks its parent for an inherited adapter or agent, so it uses the parent's
 * *live* session: an alias, not a copy.
 */
export class SessionScope {
  private readonly open = new Map<string, Promise<Session>>();
  private readonly order: string[] = [];

  /**
   * @param parent the enclosing scope's sessions
   * @param inherited ids (`adapter.T.N`, `agent.N`) this scope's graph marks `inherited`
   * @param ctx what adapters are told when a session opens
   */
  constructor(
    readonly parent: SessionScope | undefined,
    private readonly inherited: ReadonlySet<string>,
    private readonly ctx: Omit<SessionContext, "adapter_id">,
  ) {}

  /**
   * The session for `id`, from the scope that owns it (opened there on first use).
   * @param make how to open it (adapter and evaluated config) when this scope owns it
   */
  get(id: string, make: () => { adapter: Adapter; config: Record<string, Value> }): Promise<Session> {
    if (this.inherited.has(id) && this.parent) return this.parent.get(id, make);
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
   * Closes and forgets one session of the scope that owns `id`, so the next `get` opens a
   * fresh one (after a crashed adapter process, before a retry).
   */
  async discard(id: string): Promise<void> {
    if (this.inherited.has(id) && this.parent) return this.parent.discard(id);
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
