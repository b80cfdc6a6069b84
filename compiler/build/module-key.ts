import { dirname, relative, sep } from "node:path";
import type { Module } from "../load/load-modules.js";

/**
 * A module's key in the root graph's `modules` table: its path relative to the entry
 * module's directory, with `/` separators (`subworkflows/inner`, `reviewer.hcl`), so a
 * compiled graph (and the journal holding it) reads the same on every machine.
 */
export function moduleKey(entry: Module, m: Module): string {
  const base = entry.kind === "dir" ? entry.id : dirname(entry.id);
  const rel = relative(base, m.id);
  return (rel === "" ? "." : rel).split(sep).join("/");
}
