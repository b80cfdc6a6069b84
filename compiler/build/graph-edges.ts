import type { Graph } from "./graph.js";

/** One transition of a compiled graph: from a node, to a node (or `_continue` / `return`), labelled. */
export interface GraphEdge {
  from: string;
  to: string;
  /** The outcome name, `next`, `default`, or a branch arm's condition text. */
  label: string;
}

/** Every transition of one graph (not its bodies), in declaration order: what dot and mermaid draw. */
export function graphEdges(g: Graph): GraphEdge[] {
  const out: GraphEdge[] = [];
  for (const s of g.steps) for (const o of s.outcomes) out.push({ from: s.name, to: o.next, label: o.name });
  for (const w of g.waits) {
    if (w.next) out.push({ from: w.name, to: w.next, label: "next" });
    for (const o of w.outcomes) out.push({ from: w.name, to: o.next, label: o.name });
  }
  for (const a of g.approvals) for (const o of a.outcomes) out.push({ from: a.name, to: o.next, label: o.name });
  for (const b of g.branches) {
    for (const arm of b.arms) out.push({ from: b.name, to: arm.next, label: arm.when.text });
    if (b.default) out.push({ from: b.name, to: b.default, label: "default" });
  }
  return out;
}
