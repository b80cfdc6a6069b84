/**
 * Strongly connected components of a directed graph given as adjacency lists over
 * node indexes 0..n-1: Tarjan's algorithm with an explicit stack, so a 5,000-step
 * chain cannot overflow the call stack (the recursive version in @dagrejs/graphlib
 * does at about 3,000 nodes). O(nodes + edges).
 *
 * @returns the components, each a list of node indexes
 */
export function stronglyConnected(adjacency: readonly (readonly number[])[]): number[][] {
  const n = adjacency.length;
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  const out: number[][] = [];
  let counter = 0;
  // Each frame: [node, next edge position].
  const frames: [number, number][] = [];
  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue;
    frames.push([root, 0]);
    index[root] = low[root] = counter++;
    stack.push(root);
    onStack[root] = 1;
    while (frames.length > 0) {
      const frame = frames[frames.length - 1];
      const [v, i] = frame;
      const edges = adjacency[v];
      if (i < edges.length) {
        frame[1]++;
        const w = edges[i];
        if (index[w] === -1) {
          index[w] = low[w] = counter++;
          stack.push(w);
          onStack[w] = 1;
          frames.push([w, 0]);
        } else if (onStack[w]) low[v] = Math.min(low[v], index[w]);
        continue;
      }
      frames.pop();
      if (frames.length > 0) {
        const parent = frames[frames.length - 1][0];
        low[parent] = Math.min(low[parent], low[v]);
      }
      if (low[v] === index[v]) {
        const comp: number[] = [];
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = 0;
          comp.push(w);
        } while (w !== v);
        out.push(comp);
      }
    }
  }
  return out;
}
