import type { Graph } from "./graph.js";
import { stronglyConnected } from "../check/strongly-connected.js";
import { exprLabel } from "./expr-label.js";

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
    for (const arm of b.arms) out.push({ from: b.name, to: arm.next, label: exprLabel(arm.when) });
    if (b.default) out.push({ from: b.name, to: b.default, label: "default" });
  }
  return out;
}

/** A step of one graph that calls a module: a subworkflow, or an agent that is a flow. */
export interface ModuleCall {
  step: string;
  /** Key of the called module in the root graph's `modules`. */
  module: string;
}

/**
 * Every step of `g` (not its bodies) that calls a module: what dot and mermaid draw as
 * call edges (docs/language.md, Composition). `outer` are the enclosing graphs, innermost first: a
 * body's step may call a subworkflow or agent its enclosing workflow declares.
 */
export function moduleCalls(g: Graph, outer: Graph[] = []): ModuleCall[] {
  const scopes = [g, ...outer];
  const out: ModuleCall[] = [];
  for (const s of g.steps) {
    const t = s.target;
    let module: string | undefined;
    for (const x of scopes) {
      if (t.kind === "subworkflow") module ??= x.subworkflows?.find((d) => d.name === t.name)?.module;
      else if (t.kind === "agent") {
        const a = x.agents.find((d) => d.name === t.name);
        if (a && !a.inherited) module ??= a.flow?.module;
      }
    }
    if (module !== undefined) out.push({ step: s.name, module });
  }
  return out;
}

/** A step of `g` that posts or receives on a channel, and the prefix of the graph that declares the channel. */
export interface ChannelUse {
  step: string;
  channel: string;
  /** The node-id prefix of the graph that declares it: `g`'s own, or the nearest enclosing graph's. */
  at: string;
}

/**
 * The channel steps of `g` (a graph drawn under node-id `prefix`, `outer` its enclosing
 * graphs innermost first, each one's prefix one segment shorter), each with where its
 * channel is declared: `g`, or the nearest enclosing graph that declares one of that name.
 */
export function channelUses(g: Graph, prefix: string, outer: Graph[] = []): ChannelUse[] {
  const segments = prefix.split("/").filter(Boolean);
  const chain = [{ g, prefix }, ...outer.map((o, k) => ({ g: o, prefix: segments.slice(0, segments.length - k - 1).map((x) => `${x}/`).join("") }))];
  return g.steps.flatMap((s) => {
    if (s.target.kind !== "channel") return [];
    const name = s.target.name;
    return [{ step: s.name, channel: name, at: (chain.find((c) => c.g.channels.some((ch) => ch.name === name)) ?? chain[0]).prefix }];
  });
}

/** What a module's graph expects from its caller: `adapter.T.N` and `agent.N` (its inherited entries). */
export function expectedOf(g: Graph): string[] {
  return [...g.adapters.filter((a) => a.inherited && !a.implicit).map((a) => `adapter.${a.id}`), ...g.agents.filter((a) => a.inherited).map((a) => `agent.${a.name}`)];
}

/**
 * The edges (indexes into {@link graphEdges}) of each loop of `g` (not its bodies) that no
 * step of it bounds with `max_visits`: what validate's `unbounded_loop` warns about when
 * the policy sets no `max_total_steps` (compiler/check/check-loops.ts), drawn in red by
 * `criteria graph`. A loop is a strongly connected component of more than one node, or a
 * node with an edge to itself.
 */
export function unboundedLoopEdges(g: Graph): Set<number> {
  const edges = graphEdges(g);
  const names = [...new Set([...g.steps.map((s) => s.name), ...g.waits.map((w) => w.name), ...g.approvals.map((a) => a.name), ...g.branches.map((b) => b.name), ...g.states.map((s) => s.name)])];
  const index = new Map(names.map((n, i) => [n, i]));
  const adjacency: number[][] = names.map(() => []);
  for (const e of edges) {
    const from = index.get(e.from);
    const to = index.get(e.to);
    if (from !== undefined && to !== undefined) adjacency[from].push(to);
  }
  const bounded = new Set(g.steps.filter((s) => s.max_visits !== undefined || s.max_visits_expr !== undefined).map((s) => index.get(s.name)));
  const component = new Map<number, number>();
  stronglyConnected(adjacency).forEach((c, k) => {
    if (c.some((n) => bounded.has(n))) return;
    if (c.length > 1 || adjacency[c[0]].includes(c[0])) for (const n of c) component.set(n, k);
  });
  const out = new Set<number>();
  edges.forEach((e, i) => {
    const from = component.get(index.get(e.from) ?? -1);
    if (from !== undefined && from === component.get(index.get(e.to) ?? -1)) out.add(i);
  });
  return out;
}
