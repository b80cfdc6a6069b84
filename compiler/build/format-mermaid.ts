import type { Graph } from "./graph.js";

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
    const edge = (from: string, to: string, text: string) => {
      if ((to === "_continue" || to === "return") && !ids.has(prefix + to)) lines.push(`${ind}${id(prefix + to)}([${to}])`);
      lines.push(`${ind}${id(prefix + from)} -->|${label(text)}| ${id(prefix + to)}`);
    };
    for (const s of gr.steps) for (const o of s.outcomes) edge(s.name, o.next, o.name);
    for (const w of gr.waits) {
      if (w.next) edge(w.name, w.next, "next");
      for (const o of w.outcomes) edge(w.name, o.next, o.name);
    }
    for (const a of gr.approvals) for (const o of a.outcomes) edge(a.name, o.next, o.name);
    for (const b of gr.branches) {
      for (const arm of b.arms) edge(b.name, arm.next, arm.when.text);
      if (b.default) edge(b.name, b.default, "default");
    }
  };
  walk(g, "", "  ");
  return lines.join("\n") + "\n";
}
