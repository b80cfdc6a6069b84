import type { UseGraph } from "../load/use-graph.js";
import { mermaidLabel } from "./format-mermaid.js";

/**
 * The picture of format-use-graph-dot.ts as a Mermaid `flowchart LR` (`criteria graph --format
 * mermaid` when validation refused a module or `use` cycle; found by a new-user trial: it
 * printed nothing): one box per module (its workflow's name and path), one labelled edge
 * per `workflow_file`, `subworkflow { source }` or `use`, the edges that close a cycle red
 * and dashed (`linkStyle`), a comment line saying why no workflow graph is drawn.
 */
export function useGraphMermaid(g: UseGraph): string {
  const label = mermaidLabel;
  const ids = new Map(g.modules.map((m, i) => [m.path, `m${i}`]));
  const lines = ["flowchart LR", "%% modules: a cycle (red) was refused, so no workflow graph was built"];
  for (const m of g.modules) lines.push(`  ${ids.get(m.path)}[${label(`${m.name ? `workflow ${m.name}\n` : ""}${m.path}`)}]`);
  const cycles: number[] = [];
  let links = 0;
  for (const e of g.edges) {
    const from = ids.get(e.from);
    const to = ids.get(e.to);
    if (from === undefined || to === undefined) continue;
    lines.push(`  ${from} -- ${label(`${e.kind}${e.cycle ? "\ncloses a cycle" : ""}`)} --> ${to}`);
    // linkStyle counts links in the order they are written.
    if (e.cycle) cycles.push(links);
    links++;
  }
  if (cycles.length > 0) lines.push(`  linkStyle ${cycles.join(",")} stroke:#d00000,stroke-width:2px,stroke-dasharray:5 5,color:#d00000`);
  return lines.join("\n") + "\n";
}
