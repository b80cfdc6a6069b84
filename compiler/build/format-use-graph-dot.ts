import type { UseGraph } from "../load/use-graph.js";

/**
 * A picture of the modules a PATH loads and how each names the next (`criteria graph`
 * when validation refused a module or `use` cycle, so that no workflow graph was built;
 * the "See and edit" issue, item 1): one box per module (its workflow's name and path),
 * one edge per `workflow_file`, `subworkflow { source }` or `use`, labelled by kind; the
 * edges that close a cycle red and dashed (`class="cycle"`). Ids: `module:<path>`,
 * `edge:<from>-><to>#<kind>` (a count `~n` after the first of two alike).
 */
export function useGraphDot(g: UseGraph, name: string): string {
  const q = (s: string) => `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`;
  const lines = [
    `digraph ${q(name)} {`,
    "  rankdir=LR;",
    `  graph [fontname="Helvetica", label=${q("modules: a cycle (red) was refused, so no workflow graph was built")}, labelloc=t];`,
    `  node [fontname="Helvetica", shape=box3d]; edge [fontname="Helvetica", fontsize=10];`,
    "",
  ];
  for (const m of g.modules) lines.push(`  ${q(m.path)} [label=${q(`${m.name ? `workflow ${m.name}\n` : ""}${m.path}`)},id=${q(`module:${m.path}`)}];`);
  const seen = new Map<string, number>();
  for (const e of g.edges) {
    const key = `edge:${e.from}->${e.to}#${e.kind}`;
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    const cycle = e.cycle ? `,color="#d00000",fontcolor="#d00000",penwidth=2,style=dashed,class="cycle"` : "";
    lines.push(`  ${q(e.from)} -> ${q(e.to)} [label=${q(`${e.kind}${e.cycle ? "\ncloses a cycle" : ""}`)},tooltip=${q(e.at)},id=${q(n === 0 ? key : `${key}~${n}`)}${cycle}];`);
  }
  lines.push("}");
  return lines.join("\n") + "\n";
}
