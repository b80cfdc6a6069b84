/**
 * Dominance in a workflow's graph of nodes: node `a` dominates node `b` when every path
 * from the start to `b` passes `a` (so when `b` runs, `a` has run). Computed once per
 * graph with the iterative algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast
 * Dominance Algorithm", 2001) over the nodes reachable from the start, then answered in
 * constant time from a depth-first numbering of the dominator tree. For
 * check-step-reads.ts, which asked a breadth-first search per step read: 19 ms of each
 * compile of a 500-step chain, most of an editor keystroke's budget.
 */

/** Dominance queries over the nodes reachable from a graph's start. */
export interface Dominance {
  /** Whether `n` can be reached from the start at all. */
  reachable(n: string): boolean;
  /** Whether every path from the start to `b` passes `a` (each node dominates itself); false when either is unreachable. */
  dominates(a: string, b: string): boolean;
}

/**
 * The dominance of the graph from `start` along `next` (each node's successors; a name
 * with no entry has none).
 */
export function dominance(start: string, next: ReadonlyMap<string, readonly string[]>): Dominance {
  // Reverse postorder of a depth-first walk from the start (iterative: chains are long).
  const order: string[] = [];
  const index = new Map<string, number>();
  const visited = new Set<string>([start]);
  const stack: { node: string; i: number }[] = [{ node: start, i: 0 }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    const succ = next.get(top.node) ?? [];
    if (top.i < succ.length) {
      const m = succ[top.i++];
      if (!visited.has(m)) {
        visited.add(m);
        stack.push({ node: m, i: 0 });
      }
    } else {
      order.push(top.node);
      stack.pop();
    }
  }
  order.reverse();
  order.forEach((n, i) => index.set(n, i));
  const preds: number[][] = order.map(() => []);
  order.forEach((n, i) => {
    for (const m of next.get(n) ?? []) {
      const j = index.get(m);
      if (j !== undefined) preds[j].push(i);
    }
  });
  // idom by reverse-postorder index; the start is its own.
  const idom = new Array<number>(order.length).fill(-1);
  idom[0] = 0;
  const intersect = (a: number, b: number): number => {
    while (a !== b) {
      while (a > b) a = idom[a];
      while (b > a) b = idom[b];
    }
    return a;
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (let i = 1; i < order.length; i++) {
      let d = -1;
      for (const p of preds[i]) if (idom[p] !== -1) d = d === -1 ? p : intersect(p, d);
      if (d !== idom[i]) {
        idom[i] = d;
        changed = true;
      }
    }
  }
  // Pre- and post-order numbers of the dominator tree: a dominates b iff b's interval lies in a's.
  const children: number[][] = order.map(() => []);
  for (let i = 1; i < order.length; i++) children[idom[i]].push(i);
  const pre = new Array<number>(order.length);
  const post = new Array<number>(order.length);
  let clock = 0;
  const walk: { n: number; i: number }[] = [{ n: 0, i: 0 }];
  pre[0] = clock++;
  while (walk.length > 0) {
    const top = walk[walk.length - 1];
    if (top.i < children[top.n].length) {
      const c = children[top.n][top.i++];
      pre[c] = clock++;
      walk.push({ n: c, i: 0 });
    } else {
      post[top.n] = clock++;
      walk.pop();
    }
  }
  return {
    reachable: (n) => index.has(n),
    dominates(a, b) {
      const x = index.get(a);
      const y = index.get(b);
      return x !== undefined && y !== undefined && pre[x] <= pre[y] && post[y] <= post[x];
    },
  };
}
