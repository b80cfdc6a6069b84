import type { Graph } from "../../compiler/build/graph.js";
import type { FunctionTable, Value } from "../../compiler/expr/value.js";
import { conform, evalExpr } from "./evaluate.js";

/**
 * The `data "kind" "name"` values of one run (docs/language.md, Data values; the
 * upstream spec, "Data Values"): created from the graph's declarations (a missing
 * `value` is null), read as `data.<kind>.<name>.value`, changed only by outcomes'
 * `write` blocks, each converted to the declared type.
 *
 * Scoping: an isolated run (the root, a subworkflow, a flow) gets a store of its own,
 * so a module's writes never reach its caller ("Isolation across subworkflow bodies");
 * an inline body shares its caller's (it sees the caller's steps too) and adds its own
 * declarations on a child store that falls back to the caller's.
 *
 * Errors: `set` throws the {@link conform} error (an `EvalFailure`) when a value does
 * not convert to its type; nothing is changed then.
 */
export class DataStore {
  private readonly values = new Map<string, Value>();
  private readonly types = new Map<string, string | undefined>();

  /**
   * @param decls the graph's `data` entries (`name` is `kind.name`)
   * @param parent the caller's store (inline bodies only)
   */
  constructor(
    decls: NonNullable<Graph["data"]>,
    private readonly parent: DataStore | undefined,
    fns: FunctionTable,
  ) {
    for (const d of decls) {
      this.types.set(d.name, d.type);
      this.values.set(d.name, d.value ? conform(d.type ?? "any", evalExpr(d.value, {}, fns), `data "${d.name.replace(".", '" "')}"`) : null);
    }
  }

  /** A body's store: the caller's own when the body declares nothing. */
  static forBody(decls: Graph["data"], parent: DataStore, fns: FunctionTable): DataStore {
    return decls && decls.length > 0 ? new DataStore(decls, parent, fns) : parent;
  }

  private owner(key: string): DataStore | undefined {
    for (let s: DataStore | undefined = this; s; s = s.parent) if (s.types.has(key)) return s;
    return undefined;
  }

  /** `{ <kind>: { <name>: { value } } }` as expressions read it: a snapshot (later writes do not change it). */
  namespace(): Record<string, Value> {
    const out: Record<string, Record<string, Value>> = {};
    const chain: DataStore[] = [];
    for (let s: DataStore | undefined = this; s; s = s.parent) chain.unshift(s);
    // Inner declarations shadow outer ones: walk outermost first.
    for (const s of chain) {
      for (const [key, v] of s.values) {
        const [kind, name] = key.split(".");
        (out[kind] ??= {})[name] = { value: v };
      }
    }
    return out;
  }

  /** True when this run (or its caller, for bodies) declares data values. */
  get empty(): boolean {
    return this.values.size === 0 && (this.parent?.empty ?? true);
  }

  /**
   * Converts a write set to the declared types (all or nothing), for journaling.
   * @param writes `kind.name` → value, evaluated against the step-entry snapshot
   * @throws EvalFailure naming the write's position when a value does not convert
   */
  prepare(writes: { target: string; value: Value; at: string }[]): Record<string, Value> {
    const out: Record<string, Value> = {};
    for (const w of writes) {
      const owner = this.owner(w.target);
      const type = owner?.types.get(w.target);
      out[w.target] = type ? conform(type, w.value, `${w.at}: write to data "${w.target.replace(".", '" "')}"`) : w.value;
    }
    return out;
  }

  /** Applies a prepared (journaled) write set. Unknown keys (a changed workflow on resume) are ignored. */
  apply(writes: Record<string, Value> | undefined): void {
    if (!writes) return;
    for (const [k, v] of Object.entries(writes)) this.owner(k)?.values.set(k, v);
  }
}

