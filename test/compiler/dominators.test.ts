/**
 * compiler/check/dominators.ts against the definition it replaces in check-step-reads.ts:
 * `a` dominates `b` when `b` cannot be reached from the start without passing `a` (a
 * breadth-first search that never enters `a`). Random graphs with loops, self-loops,
 * unreachable nodes and diamonds.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dominance } from "../../compiler/check/dominators.js";

/** Nodes reachable from `start` along `next` without entering `avoid`. */
function reachableWithout(start: string, next: Map<string, string[]>, avoid?: string): Set<string> {
  const seen = new Set<string>();
  if (start === avoid) return seen;
  seen.add(start);
  const queue = [start];
  for (let i = 0; i < queue.length; i++) for (const m of next.get(queue[i]) ?? []) if (m !== avoid && !seen.has(m)) (seen.add(m), queue.push(m));
  return seen;
}

const graph = fc.integer({ min: 1, max: 12 }).chain((n) =>
  fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: n * 3 }).map((edges) => {
    const next = new Map<string, string[]>();
    for (const [a, b] of edges) next.set(`n${a}`, [...(next.get(`n${a}`) ?? []), `n${b}`]);
    return { names: Array.from({ length: n }, (_, i) => `n${i}`), next };
  }),
);

describe("dominance", () => {
  it("answers as a search avoiding the dominator does, for every pair of nodes", () => {
    fc.assert(
      fc.property(graph, ({ names, next }) => {
        const d = dominance("n0", next);
        const all = reachableWithout("n0", next);
        for (const b of names) {
          expect(d.reachable(b)).toBe(all.has(b));
          for (const a of names) {
            const want = all.has(a) && all.has(b) && (a === b || !reachableWithout("n0", next, a).has(b));
            expect(d.dominates(a, b), `${a} dominates ${b} in ${JSON.stringify([...next])}`).toBe(want);
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it("a 5,000-node chain with a loop back to its start: no recursion, every earlier node dominates every later one", () => {
    const next = new Map<string, string[]>();
    for (let i = 0; i < 5000; i++) next.set(`s${i}`, [i + 1 < 5000 ? `s${i + 1}` : "s0"]);
    const d = dominance("s0", next);
    expect(d.dominates("s10", "s4999")).toBe(true);
    expect(d.dominates("s4999", "s10")).toBe(false);
  });
});
