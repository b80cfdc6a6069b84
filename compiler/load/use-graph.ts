import type { ModuleLookup } from "../resolve/module-interface.js";
import type { EdgeKind } from "./module-edges.js";
import type { ModuleSet } from "./load-modules.js";

/**
 * The resolved module graph of one compilation (docs/language.md, Files and
 * modules): every module loaded, once, and every edge between them with where it is
 * written. `validate --verbose` prints it; `validate --format json` always includes it.
 */
export interface UseGraph {
  modules: { path: string; kind: "file" | "dir"; name?: string; identity?: string; files: string[] }[];
  /** `cycle`: the edge closes a cycle and was refused (`module_cycle`, `use_cycle`): nothing was loaded through it. */
  edges: { from: string; to: string; kind: EdgeKind; at: string; cycle?: true }[];
}

/** The use graph of a loaded module set (paths as shown in diagnostics). */
export function useGraph(set: ModuleSet, lookup: ModuleLookup): UseGraph {
  const modules: UseGraph["modules"] = [];
  const edges: UseGraph["edges"] = [];
  for (const m of set.modules.values()) {
    const iface = lookup(m.id);
    modules.push({ path: m.path, kind: m.kind, ...(iface?.name ? { name: iface.name } : {}), ...(iface?.identity ? { identity: iface.identity } : {}), files: m.files });
    for (const e of m.edges) {
      const to = set.modules.get(e.to ?? e.cut ?? "");
      if (to) edges.push({ from: m.path, to: to.path, kind: e.kind, at: `${e.range.file}:${e.range.start.line}:${e.range.start.column}`, ...(e.to === undefined ? { cycle: true as const } : {}) });
    }
  }
  return { modules, edges };
}

/** The use graph as indented text: each module, then what it names (`validate --verbose`). */
export function formatUseGraph(g: UseGraph): string {
  const lines: string[] = [];
  const byFrom = new Map<string, UseGraph["edges"]>();
  for (const e of g.edges) byFrom.set(e.from, [...(byFrom.get(e.from) ?? []), e]);
  const label = (path: string) => {
    const m = g.modules.find((x) => x.path === path);
    const bits = [m?.name ? `workflow "${m.name}"` : "", m?.identity ? `identity "${m.identity}"` : ""].filter(Boolean);
    return bits.length ? `${path} (${bits.join(", ")})` : path;
  };
  const seen = new Set<string>();
  const walk = (path: string, depth: number) => {
    for (const e of byFrom.get(path) ?? []) {
      const again = seen.has(e.to);
      lines.push(`${"  ".repeat(depth)}${e.kind} -> ${label(e.to)}  [${e.at}]${e.cycle ? " (closes a cycle: refused)" : again ? " (already shown)" : ""}`);
      if (!again && !e.cycle) {
        seen.add(e.to);
        walk(e.to, depth + 1);
      }
    }
  };
  const root = g.modules[0];
  if (root) {
    lines.push(label(root.path));
    seen.add(root.path);
    walk(root.path, 1);
  }
  return lines.join("\n") + "\n";
}
