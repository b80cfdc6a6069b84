import type { Graph } from "./graph.js";
import { graphEdges } from "./graph-edges.js";

/**
 * A Mermaid `flowchart LR` of a graph: the same nodes and edges as {@link toDot}
 * (steps as rectangles, branches as rhombi, terminal states as double circles,
 * iterating steps marked, inline bodies as subgraphs), for Markdown and GitHub.
 */
export function toMermaid(g: Graph): string {
  const lines = ["flowchart LR"];
  const ids = new Map<string, string>();
  const id = (key: string) => {
    let v = ids.get(key);
    if (!v) {
      v = `n${ids.size}`;
      ids.set(key, v);
    }
    return v;
  };
  const label = (s: string) => `"${s.replace(/"/g, "#quot;")}"`;
  const walk = (gr: Graph, prefix: string, ind: string) => {
    for (const s of gr.steps) {
      const text = s.iteration ? `${s.name} [${s.iteration.kind}]` : s.name;
      if (s.body) {
        lines.push(`${ind}subgraph ${id(`${prefix}${s.name}#body`)}[${label(`${s.name} body`)}]`);
        walk(s.body, `${prefix}${s.name}/`, `${ind}  `);
        lines.push(`${ind}end`);
      }
      lines.push(`${ind}${id(prefix + s.name)}[${label(text)}]`);
    }
    for (const w of gr.waits) lines.push(`${ind}${id(prefix + w.name)}{{${label(w.name)}}}`);
    for (const a of gr.approvals) lines.push(`${ind}${id(prefix + a.name)}[/${label(a.name)}/]`);
    for (const b of gr.branches) lines.push(`${ind}${id(prefix + b.name)}{${label(b.name)}}`);
    for (const s of gr.states) lines.push(`${ind}${id(prefix + s.name)}(((${label(s.name)})))`);
    const start = id(`${prefix}__start__`);
    lines.push(`${ind}${start}((start))`);
    if (gr.initial_state) lines.push(`${ind}${start} --> ${id(prefix + gr.initial_state)}`);
    for (const e of graphEdges(gr)) {
      if ((e.to === "_continue" || e.to === "return") && !ids.has(prefix + e.to)) lines.push(`${ind}${id(prefix + e.to)}([${e.to}])`);
      lines.push(`${ind}${id(prefix + e.from)} -->|${label(e.label)}| ${id(prefix + e.to)}`);
    }
  };
  walk(g, "", "  ");
  return lines.join("\n") + "\n";
}
