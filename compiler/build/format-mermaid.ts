import type { Graph } from "./graph.js";
import { channelUses, expectedOf, graphEdges, moduleCalls } from "./graph-edges.js";

/**
 * `s` as a Mermaid label, in quotes: `#` (which starts an entity code), `"`, `&`, `<` and
 * `>` written as entity codes (Mermaid reads a label as HTML: `a<b && b>0` lost `<b && b>`
 * as a tag; found by a new-user trial), each line break as `<br/>`.
 */
export function mermaidLabel(s: string): string {
  const text = s.replace(/#/g, "#35;").replace(/"/g, "#quot;").replace(/&/g, "#amp;").replace(/</g, "#lt;").replace(/>/g, "#gt;");
  return `"${text.replace(/\r?\n/g, "<br/>")}"`;
}

/**
 * A Mermaid `flowchart LR` of a graph: the same nodes and edges as {@link toDot}
 * (steps as rectangles, branches as rhombi, terminal states as double circles,
 * iterating steps marked, bodies as subgraphs their step runs (a dotted edge to their
 * start), each called module once as a subgraph with dotted call edges, channels as
 * trapezoids with their participants and dotted "uses" links from the steps that post or
 * receive), for Markdown and GitHub.
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
  const label = mermaidLabel;
  const walk = (gr: Graph, prefix: string, ind: string, outer: Graph[]) => {
    for (const s of gr.steps) {
      const text = s.iteration ? `${s.name} [${s.iteration.kind}]` : s.name;
      if (s.body) {
        lines.push(`${ind}subgraph ${id(`${prefix}${s.name}#body`)}[${label(`${s.name} body`)}]`);
        walk(s.body, `${prefix}${s.name}/`, `${ind}  `, [gr, ...outer]);
        lines.push(`${ind}end`);
      }
      lines.push(`${ind}${id(prefix + s.name)}[${label(text)}]`);
      // A step's body starts where the step runs it, as in the DOT picture (found by a
      // new-user trial: a workflow_file body hung in the picture unconnected).
      if (s.body) lines.push(`${ind}${id(prefix + s.name)} -.->|runs| ${id(`${prefix}${s.name}/__start__`)}`);
    }
    for (const w of gr.waits) lines.push(`${ind}${id(prefix + w.name)}{{${label(w.name)}}}`);
    for (const a of gr.approvals) lines.push(`${ind}${id(prefix + a.name)}[/${label(a.name)}/]`);
    for (const b of gr.branches) lines.push(`${ind}${id(prefix + b.name)}{${label(b.name)}}`);
    for (const s of gr.states) lines.push(`${ind}${id(prefix + s.name)}(((${label(s.name)})))`);
    for (const c of gr.channels) lines.push(`${ind}${id(`${prefix}channel.${c.name}`)}[/${label(`channel ${c.name}: ${c.participants.join(", ")}`)}\\]`);
    const start = id(`${prefix}__start__`);
    lines.push(`${ind}${start}((start))`);
    if (gr.initial_state) lines.push(`${ind}${start} --> ${id(prefix + gr.initial_state)}`);
    for (const e of graphEdges(gr)) {
      if ((e.to === "_continue" || e.to === "return") && !ids.has(prefix + e.to)) lines.push(`${ind}${id(prefix + e.to)}([${e.to}])`);
      lines.push(`${ind}${id(prefix + e.from)} -->|${label(e.label)}| ${id(prefix + e.to)}`);
    }
    for (const u of channelUses(gr, prefix, outer)) lines.push(`${ind}${id(prefix + u.step)} -.-|uses| ${id(`${u.at}channel.${u.channel}`)}`);
    for (const c of moduleCalls(gr, outer)) calls.push(`  ${id(prefix + c.step)} -.->|calls| ${id(`module:${c.module}/__start__`)}`);
  };
  const calls: string[] = [];
  walk(g, "", "  ", []);
  for (const [key, m] of Object.entries(g.modules ?? {})) {
    const expects = expectedOf(m);
    lines.push(`  subgraph ${id(`module:${key}#module`)}[${label(`${key}: workflow ${m.name}${expects.length ? ` (expects ${expects.join(", ")})` : ""}`)}]`);
    walk(m, `module:${key}/`, "    ", []);
    lines.push("  end");
  }
  lines.push(...calls);
  return lines.join("\n") + "\n";
}
