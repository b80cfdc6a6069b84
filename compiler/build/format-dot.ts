import type { Graph } from "./graph.js";

/**
 * Graphviz DOT of a graph, in the Go tool's layout (`rankdir=LR`, steps as boxes,
 * terminal states as double circles, a `__start__` point, edges labelled by outcome)
 * extended to every node kind; iterating steps are marked, and inline bodies are drawn
 * as clusters whose node ids are prefixed with the step (`loop/execute`).
 */
export function toDot(g: Graph): string {
  const lines = [`digraph ${q(g.name)} {`, "  rankdir=LR;", ""];
  body(g, "", "  ", lines);
  lines.push("}");
  return lines.join("\n") + "\n";
}

function q(s: string): string {
  return `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`;
}

function body(g: Graph, prefix: string, ind: string, lines: string[]): void {
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
    body(s.body, `${prefix}${s.name}/`, `${ind}  `, lines);
    lines.push(`${ind}}`);
  }
  lines.push("");
  const start = q(`${prefix}__start__`);
  lines.push(`${ind}${start} [shape=point,width=0.12,label=""];`);
  if (g.initial_state) lines.push(`${ind}${start} -> ${id(g.initial_state)} [label="initial"];`);
  const edge = (from: string, to: string, label: string) => {
    const target = to === "_continue" || to === "return" ? q(`${prefix}${to}`) : id(to);
    lines.push(`${ind}${id(from)} -> ${target} [label=${q(label)}];`);
  };
  for (const s of g.steps) for (const o of s.outcomes) edge(s.name, o.next, o.name);
  for (const w of g.waits) {
    if (w.next) edge(w.name, w.next, "next");
    for (const o of w.outcomes) edge(w.name, o.next, o.name);
  }
  for (const a of g.approvals) for (const o of a.outcomes) edge(a.name, o.next, o.name);
  for (const b of g.branches) {
    b.arms.forEach((arm) => edge(b.name, arm.next, arm.when.text));
    if (b.default) edge(b.name, b.default, "default");
  }
}
