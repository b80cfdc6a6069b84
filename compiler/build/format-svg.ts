import { requirePackage } from "../require-package.js";

/** Graphviz compiled to WebAssembly, loaded once on first use (only `criteria graph --format svg` needs it). */
let graphviz: Promise<{ dot(text: string): string }> | undefined;

/**
 * Lays out DOT text (from `toDot(g, { picture: true })`) with real Graphviz compiled to
 * WebAssembly (`@hpcc-js/wasm-graphviz`: no system package) and returns the SVG document.
 * Node, edge and cluster ids of the DOT become the ids of the SVG's `<g>` elements.
 * @throws GraphTooLarge past {@link MAX_SVG_EDGES} edges, at once; Error when Graphviz rejects
 *   the text or runs out of memory
 */
export async function toSvg(dot: string): Promise<string> {
  const edges = (dot.match(/^\s*"[^\n]*" -> "/gm) ?? []).length;
  if (edges > MAX_SVG_EDGES) throw new GraphTooLarge(edges);
  graphviz ??= requirePackage<typeof import("@hpcc-js/wasm-graphviz")>("@hpcc-js/wasm-graphviz", import.meta.url, "Graphviz (criteria graph --format svg)").Graphviz.load();
  return (await graphviz).dot(dot);
}

/**
 * The most edges laid out here: Graphviz in WebAssembly has a bounded stack and memory. A
 * 1,500-step workflow with a failure route from each step back to the first (3,001 edges)
 * lays out in about 4 s here; 2,000 such steps exhaust the stack (found by a new-user trial,
 * which also found 2.2 GB and 18 s spent before "out of memory", since fixed by jump markers
 * in the picture's DOT: format-dot.ts).
 */
export const MAX_SVG_EDGES = 3200;

/** A graph {@link toSvg} refuses before trying: `edges` is how many it has. */
export class GraphTooLarge extends Error {
  constructor(readonly edges: number) {
    super(`${edges} edges are more than Graphviz in WebAssembly lays out here (at most ${MAX_SVG_EDGES})`);
  }
}
