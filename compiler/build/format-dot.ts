import type { Graph } from "./graph.js";
import { channelUses, expectedOf, graphEdges, moduleCalls, unboundedLoopEdges } from "./graph-edges.js";

/**
 * How {@link toDot} draws: plain (the Go tool's layout, what `compile --format dot`
 * prints and the upstream tests compare), or a picture (`criteria graph`): stable ids on
 * every node, edge and cluster (`node:loop/execute`, `edge:a->b#success`,
 * `cluster:loop`, `module:key`; what the SVG golden tests compare), terminal states
 * coloured by success, channels as notes, inherited sessions in body labels, and, when
 * `unbounded` (validate said `unbounded_loop`), the edges of each loop with no bound in red.
 */
export interface DotStyle {
  picture?: boolean;
  unbounded?: boolean;
}

/**
 * Graphviz DOT of a graph, in the Go tool's layout (`rankdir=LR`, steps as boxes,
 * terminal states as double circles, a `__start__` point, edges labelled by outcome)
 * extended to every node kind; iterating steps are marked, and inline bodies are drawn
 * as clusters whose node ids are prefixed with the step (`loop/execute`). Called modules
 * (subworkflows, flows) are drawn once each, as dashed clusters labelled with what they
 * expect from their caller, and each call as a dashed edge to the module's start.
 */
export function toDot(g: Graph, style: DotStyle = {}): string {
  const lines = [`digraph ${q(g.name)} {`, "  rankdir=LR;"];
  if (style.picture) lines.push(`  graph [fontname="Helvetica"]; node [fontname="Helvetica"]; edge [fontname="Helvetica", fontsize=10];`);
  lines.push("");
  body(g, "", "  ", lines, [], style);
  // Each called module once, as a cluster; calls are dashed edges to its start.
  for (const [key, m] of Object.entries(g.modules ?? {})) {
    const expects = expectedOf(m);
    lines.push("", `  subgraph ${q(`cluster_module_${key}`)} {`, `    label=${q(`${key}: workflow ${m.name}${expects.length ? `\nexpects ${expects.join(", ")} (the caller's)` : ""}`)};`, `    style=dashed;`);
    if (style.picture) lines.push(`    id=${q(`${MODULE_PREFIX}${key}`)};`);
    body(m, `${MODULE_PREFIX}${key}/`, "    ", lines, [], style);
    lines.push("  }");
  }
  lines.push("}");
  return lines.join("\n") + "\n";
}

/** How many edges may lead to one drawing of a terminal state before it is drawn again (see {@link drawnAgain}). */
const SHARED_TERMINAL_EDGES = 3;

/**
 * How many edges may lead to one drawing of any other node before the further ones lead
 * to a jump marker beside their source instead (`→ name`): a failure route of every step
 * back to the first one of a long workflow made Graphviz take minutes and then run out of
 * memory (found by a new-user trial: 300 steps ran past ten minutes, 1,200 failed after
 * 27 s at 2.2 GB).
 */
const SHARED_NODE_EDGES = 8;

/**
 * Nodes of `g` drawn more than once: terminal states more than {@link SHARED_TERMINAL_EDGES}
 * edges lead to (copies of the state: it has no edge out), and other nodes more than
 * {@link SHARED_NODE_EDGES} lead to (jump markers); true for a terminal state.
 */
function drawnAgain(g: Graph): Map<string, boolean> {
  const terminal = new Set(g.states.filter((s) => s.terminal).map((s) => s.name));
  const into = new Map<string, number>();
  for (const e of graphEdges(g)) if (e.to !== "_continue" && e.to !== "return") into.set(e.to, (into.get(e.to) ?? 0) + 1);
  return new Map([...into].filter(([to, n]) => n > (terminal.has(to) ? SHARED_TERMINAL_EDGES : SHARED_NODE_EDGES)).map(([to]) => [to, terminal.has(to)]));
}

/** Node ids of a module's nodes start with this and the module's key. */
const MODULE_PREFIX = "module:";

function q(s: string): string {
  return `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`;
}

/** Fill colours of a picture: a terminal state's by its success, a channel's. */
const FILL = { success: "#d8f3dc", failure: "#ffd6d6", channel: "#fff3bf" };
/**
 * The Go tool's v0.5.7 fills in `compile --format dot`, written as it writes them
 * (shared/criteria/v0.5.7/expected/*.compile.dot): steps blue, success states green,
 * failure states red (found by a trial of its language: success and failure looked alike).
 */
const GO_FILL = { step: `, style="filled", fillcolor="#D6EAF8"`, success: `, style=filled, fillcolor="#D5F5E3"`, failure: `, style=filled, fillcolor="#FADBD8"` };

function body(g: Graph, prefix: string, ind: string, lines: string[], outer: Graph[], style: DotStyle): void {
  const id = (n: string) => q(prefix + n);
  // A picture's extra attributes: its stable id first, then the given ones.
  // In a body or a module, a picture labels nodes by their own names, not their prefixed ids.
  const extra = (nodeId: string, more = "") => (style.picture ? `,id=${q(`node:${prefix}${nodeId}`)}${prefix && !more.includes("label=") ? `,label=${q(nodeId)}` : ""}${more}` : "");
  for (const s of g.steps) {
    const it = s.iteration ? `,label=${q(`${s.name}\n[${s.iteration.kind}]`)}` : "";
    lines.push(`${ind}${id(s.name)} [shape=box${style.picture ? extra(s.name, it) : `${GO_FILL.step}${it}`}];`);
  }
  for (const w of g.waits) lines.push(`${ind}${id(w.name)} [shape=hexagon${extra(w.name)}];`);
  for (const a of g.approvals) lines.push(`${ind}${id(a.name)} [shape=house${extra(a.name)}];`);
  for (const b of g.branches) lines.push(`${ind}${id(b.name)} [shape=diamond${extra(b.name)}];`);
  for (const s of g.states) {
    if (!style.picture) lines.push(`${ind}${id(s.name)} [shape=${s.terminal ? `doublecircle${s.success ? GO_FILL.success : GO_FILL.failure}` : "circle"}];`);
    else if (!s.terminal) lines.push(`${ind}${id(s.name)} [shape=circle${extra(s.name)}];`);
    else lines.push(`${ind}${id(s.name)} [shape=${s.success ? "doublecircle" : "doubleoctagon"}${extra(s.name, `,style=filled,fillcolor=${q(s.success ? FILL.success : FILL.failure)}`)}];`);
  }
  if (style.picture) {
    for (const c of g.channels) {
      lines.push(`${ind}${q(`${prefix}channel.${c.name}`)} [shape=note,style=filled,fillcolor=${q(FILL.channel)},label=${q(`channel ${c.name}\n${c.participants.join(", ")}`)},id=${q(`channel:${prefix}${c.name}`)}];`);
    }
  }
  for (const s of g.steps) {
    if (!s.body) continue;
    const inherits = style.picture ? expectedOf(s.body) : [];
    lines.push("", `${ind}subgraph ${q(`cluster_${prefix}${s.name}`)} {`, `${ind}  label=${q(`${s.name} body${inherits.length ? `\ninherits ${inherits.join(", ")}` : ""}`)};`);
    if (style.picture) lines.push(`${ind}  id=${q(`cluster:${prefix}${s.name}`)};`);
    body(s.body, `${prefix}${s.name}/`, `${ind}  `, lines, [g, ...outer], style);
    lines.push(`${ind}}`);
  }
  lines.push("");
  const start = q(`${prefix}__start__`);
  lines.push(`${ind}${start} [shape=point,width=0.12${style.picture ? extra("__start__", `,label=""`) : `,label=""`}];`);
  if (g.initial_state) lines.push(`${ind}${start} -> ${id(g.initial_state)} [label="initial"${style.picture ? `,id=${q(`edge:${prefix}__start__->${prefix}${g.initial_state}#initial`)}` : ""}];`);
  const unbounded = style.picture && style.unbounded ? unboundedLoopEdges(g) : new Set<number>();
  if (style.picture) {
    // Where a body ends (`_continue`) or returns: drawn as plain words, with ids like any node.
    for (const end of new Set(graphEdges(g).map((e) => e.to).filter((t) => t === "_continue" || t === "return"))) {
      lines.push(`${ind}${id(end)} [shape=plaintext${extra(end)}];`);
    }
  }
  const seen = new Map<string, number>();
  // A terminal state many edges lead to is drawn again beside each source after the first
  // few: edges from all over a long workflow to one shared node make Graphviz route each
  // through every rank between (a 500-step chain exhausted its WebAssembly stack; with
  // copies it is laid out in about a second). A terminal state has no edge out, so a copy
  // tells the same story; past more edges, any other node gets a jump marker (`→ name`)
  // instead. Copies and markers are `node:<name>~<k>`; the edges keep their ids.
  const copies = style.picture ? drawnAgain(g) : new Map<string, boolean>();
  const drawn = new Map<string, number>();
  for (const [i, e] of graphEdges(g).entries()) {
    let target = e.to === "_continue" || e.to === "return" ? q(`${prefix}${e.to}`) : id(e.to);
    if (copies.has(e.to)) {
      const k = drawn.get(e.to) ?? 0;
      drawn.set(e.to, k + 1);
      const terminal = copies.get(e.to)!;
      if (k >= (terminal ? 1 : SHARED_NODE_EDGES)) {
        target = id(`${e.to}~${k}`);
        const state = g.states.find((x) => x.name === e.to);
        if (terminal && state) lines.push(`${ind}${target} [shape=${state.success ? "doublecircle" : "doubleoctagon"},style=filled,fillcolor=${q(state.success ? FILL.success : FILL.failure)},label=${q(e.to)},id=${q(`node:${prefix}${e.to}~${k}`)}];`);
        else lines.push(`${ind}${target} [shape=box,style="dashed,rounded",label=${q(`→ ${e.to}`)},tooltip=${q(`continues at ${e.to}`)},id=${q(`node:${prefix}${e.to}~${k}`)},class="jump"];`);
      }
    }
    let more = "";
    if (style.picture) {
      // Two edges alike (the same outcome twice) get a count, so every id is unique.
      const key = `edge:${prefix}${e.from}->${prefix}${e.to}#${e.label}`;
      const n = seen.get(key) ?? 0;
      seen.set(key, n + 1);
      more = `,id=${q(n === 0 ? key : `${key}~${n}`)}${unbounded.has(i) ? `,color="#d00000",fontcolor="#d00000",penwidth=2,class="unbounded"` : ""}`;
    }
    lines.push(`${ind}${id(e.from)} -> ${target} [label=${q(e.label)}${more}];`);
  }
  if (style.picture) {
    // A step's body starts where the step runs it.
    for (const s of g.steps) if (s.body) lines.push(`${ind}${id(s.name)} -> ${q(`${prefix}${s.name}/__start__`)} [style=dashed, label="runs",id=${q(`edge:${prefix}${s.name}->${prefix}${s.name}/__start__#runs`)}];`);
  }
  for (const c of moduleCalls(g, outer)) {
    lines.push(`${ind}${id(c.step)} -> ${q(`${MODULE_PREFIX}${c.module}/__start__`)} [style=dashed, label="calls"${style.picture ? `,id=${q(`edge:${prefix}${c.step}->${MODULE_PREFIX}${c.module}/__start__#calls`)}` : ""}];`);
  }
  if (style.picture) {
    // The channel is drawn where it is declared: this graph, or the nearest enclosing one.
    for (const u of channelUses(g, prefix, outer)) {
      lines.push(`${ind}${id(u.step)} -> ${q(`${u.at}channel.${u.channel}`)} [style=dotted, arrowhead=none, label="uses",id=${q(`edge:${prefix}${u.step}->${u.at}channel.${u.channel}#uses`)}];`);
    }
  }
}
