import { createRequire } from "node:module";

/** Graphviz compiled to WebAssembly, loaded once on first use (only `criteria graph --format svg` needs it). */
let graphviz: Promise<{ dot(text: string): string }> | undefined;

/**
 * Lays out DOT text (from `toDot(g, { picture: true })`) with real Graphviz compiled to
 * WebAssembly (`@hpcc-js/wasm-graphviz`: no system package) and returns the SVG document.
 * Node, edge and cluster ids of the DOT become the ids of the SVG's `<g>` elements.
 * @throws Error when Graphviz rejects the text (a bug in the DOT writer, never user input)
 */
export async function toSvg(dot: string): Promise<string> {
  graphviz ??= (createRequire(import.meta.url)("@hpcc-js/wasm-graphviz") as typeof import("@hpcc-js/wasm-graphviz")).Graphviz.load();
  return (await graphviz).dot(dot);
}
