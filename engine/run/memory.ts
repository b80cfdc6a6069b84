import type { Value } from "../../compiler/expr/value.js";
import type { MemoryItem } from "../journal/entry.js";

/**
 * Where a flow's memory comes from (docs/language.md, Composition; the `memory.injected` entry): given
 * the run's identity and a query (the text of its input), earlier runs' outputs within
 * a size budget. The default is the journal itself (`Journal.recall`: SQLite FTS5
 * over the outputs of this identity's earlier successful runs).
 */
export interface MemoryProvider {
  /**
   * @param budgetBytes the most text (UTF-8 bytes) to return
   * @param excludeRoot a run whose tree is not recalled (the run asking)
   */
  recall(identity: string, query: string, budgetBytes: number, excludeRoot: string): MemoryItem[] | Promise<MemoryItem[]>;
}

/** The size budget of one memory pack: 4 KiB of text. */
export const MEMORY_BUDGET_BYTES = 4096;

/** The words of every string in a value: what a memory pack is recalled for. */
export function queryOf(v: Value): string {
  if (typeof v === "string") return v;
  if (Array.isArray(v)) return v.map(queryOf).join(" ");
  if (v !== null && typeof v === "object") return Object.values(v).map(queryOf).join(" ");
  return "";
}

/** The `memory` namespace of a run: the pack's items and their text joined. */
export function memoryNamespace(items: MemoryItem[]): Value {
  return { text: items.map((i) => i.text).join("\n\n"), items: items.map((i) => ({ run_id: i.run_id, at_ms: i.at_ms, text: i.text })) };
}
