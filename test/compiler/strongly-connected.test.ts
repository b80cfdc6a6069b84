import { describe, expect, it } from "vitest";
import { stronglyConnected } from "../../compiler/check/strongly-connected.js";

const sorted = (cs: number[][]) => cs.map((c) => [...c].sort((a, b) => a - b)).sort((a, b) => a[0] - b[0]);

describe("stronglyConnected (iterative Tarjan)", () => {
  it("finds cycles, self loops and singletons", () => {
    // 0 -> 1 -> 2 -> 0, 2 -> 3, 3 -> 3, 4 alone
    expect(sorted(stronglyConnected([[1], [2], [0, 3], [3], []]))).toEqual([[0, 1, 2], [3], [4]]);
  });
  it("does not overflow on a 100,000-node chain or cycle (graphlib's recursion did at ~3,000)", () => {
    const n = 100_000;
    const chain = Array.from({ length: n }, (_, i) => (i + 1 < n ? [i + 1] : []));
    expect(stronglyConnected(chain)).toHaveLength(n);
    const cycle = Array.from({ length: n }, (_, i) => [(i + 1) % n]);
    expect(stronglyConnected(cycle)).toHaveLength(1);
  });
});
