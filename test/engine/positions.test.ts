import { describe, expect, it } from "vitest";
import { positionsRelativeTo } from "../../engine/run/positions.js";

describe("a graph's positions made relative to another directory (resume from elsewhere)", () => {
  const graph = { name: "w", at: "sub/w.hcl:3:1", steps: [{ at: "sub/w.hcl:8:6", input: { command: { at: "sub/body.hcl:2:3", source: "x" } } }, { at: "/abs/m.hcl:1:1" }], note: "sub/w.hcl:1:1" };

  it("rewrites every relative `at` (nested in arrays and objects), keeps absolute ones and other strings", () => {
    const moved = positionsRelativeTo(graph, "/work", "/work/sub");
    expect(moved).toEqual({ name: "w", at: "w.hcl:3:1", steps: [{ at: "w.hcl:8:6", input: { command: { at: "body.hcl:2:3", source: "x" } } }, { at: "/abs/m.hcl:1:1" }], note: "sub/w.hcl:1:1" });
    expect(positionsRelativeTo(graph, "/work", "/elsewhere").steps[0].at).toBe("../work/sub/w.hcl:8:6");
    // The journaled graph itself is not changed.
    expect(graph.steps[0].at).toBe("sub/w.hcl:8:6");
  });

  it("gives the graph itself back when the two directories are one", () => {
    expect(positionsRelativeTo(graph, "/work", "/work/")).toBe(graph);
  });
});
