import type { Graph } from "./graph.js";
import { expectedOf, graphEdges, moduleCalls } from "./graph-edges.js";

/**
 * Graphviz DOT of a graph, in the Go tool's layout (`rankdir=LR`, steps as boxes,
 * terminal states as double circles, a `__start__` point, edges labelled by outcome)
 * extended to every node kind; iterating steps are marked, and inline bodies are drawn
 * as clusters whose node ids are prefixed with the step (`loop/execute`). Called modules
 * (subworkflows, flows) are drawn once each, as dashed clusters labelled with what they
 * expect from their caller, and each call as a dashed edge to the module's start.
 */
export function toDot(g: Graph): string {
  const lines = [`digraph ${q(g.name)} {`, "  rankdir=LR;", ""];
  body(g, "", "  ", lines, []);
  // Each called module once, as a cluster; calls are dashed edges to its start.
  for (const [key, m] of Object.entries(g.modules ?? {})) {
    const expects = expectedOf(m);
    lines.push("", `  subgraph ${q(`cluster_module_${key}`)} {`, `    label=${q(`${key}: workflow ${m.name}${expects.length ? `\nexpects ${expects.join(", ")} (the caller's)` : ""}`)};`, `    style=dashed;`);
    body(m, `${MODULE_PREFIX}${key}/`, "    ", lines, []);
    lines.push("  }");
  }
  lines.push("}");
  return lines.join("\n") + "\n";
}

/** Node ids of a module's nodes start with this and the module's key. */
const MODULE_PREFIX = "module:";

function q(s: string): string {
  return `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`;
}

function body(g: Graph, prefix: string, ind: string, lines: string[], outer: Graph[]): void {
  const id = (n: string) => q(prefix + n);
  for (const s of g.steps) {
    const it = s.iteration ? `,label=${q(`${s.name}\n[${s.iteration.kind}]`)}` : "";
    lines.push(`${ind}${id(s.name)} [shape=box${it}];`);
  }
  for (const w of g.waits) lines.push(`${ind}${id(w.name)} [shape=hexagon];`);
  for (const a of g.approvals) lines.push(`${ind}${id(a.name)} [shape=house];`);
  for (const b of g.branches) lines.push(`${ind}${id(b.name)} [shape=diamond];`);
  for (const s of g.states) lines.push(`${ind}${id(s.name)} [shape=${s.terminal ? "doublecircle" : "circle"}];`);
  for (const s of g.steps) {
    if (!s.body) continue;
    lines.push("", `${ind}subgraph ${q(`cluster_${prefix}${s.name}`)} {`, `${ind}  label=${q(`${s.name} body`)};`);
    body(s.body, `${prefix}${s.name}/`, `${ind}  `, lines, [g, ...outer]);
    lines.push(`${ind}}`);
  }
  lines.push("");
  const start = q(`${prefix}__start__`);
  lines.push(`${ind}${start} [shape=point,width=0.12,label=""];`);
  if (g.initial_state) lines.push(`${ind}${start} -> ${id(g.initial_state)} [label="initial"];`);
  for (const e of graphEdges(g)) {
    const target = e.to === "_continue" || e.to === "return" ? q(`${prefix}${e.to}`) : id(e.to);
    lines.push(`${ind}${id(e.from)} -> ${target} [label=${q(e.label)}];`);
  }
  for (const c of moduleCalls(g, outer)) lines.push(`${ind}${id(c.step)} -> ${q(`${MODULE_PREFIX}${c.module}/__start__`)} [style=dashed, label="calls"];`);
}
