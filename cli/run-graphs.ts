import type { Graph } from "../compiler/build/graph.js";
import type { TreeRecord } from "../engine/journal/fold.js";

/**
 * The compiled graphs of run tree `root`, from its root's `run.spawned` (the journal keeps the
 * graph, so nothing is read from the workflow's files): the root's, each step body's and each
 * module's, and theirs, in that order; [] when the journal holds no graph.
 */
export function graphsOf(tree: TreeRecord, root: string): Graph[] {
  const graph = tree.runs.get(root)?.spawned?.graph as Graph | undefined;
  const graphs: Graph[] = [];
  const walk = (g: Graph | undefined) => {
    if (!g) return;
    graphs.push(g);
    for (const s of g.steps) walk(s.body);
  };
  walk(graph);
  for (const m of Object.values(graph?.modules ?? {})) walk(m);
  return graphs;
}
