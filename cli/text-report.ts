import { expectedOf } from "../compiler/build/graph-edges.js";
import { formatGithub } from "../compiler/diagnostics/format-github.js";
import { formatText } from "../compiler/diagnostics/format-text.js";
import type { Compilation } from "../compiler/index.js";
import { formatUseGraph } from "../compiler/load/use-graph.js";

/**
 * What `criteria validate` prints for one PATH in text: each diagnostic with its excerpt
 * (and a GitHub annotation inside Actions, its file relative to `workspace`), the module graph with `verbose`, then
 * `PATH: ok` (with its warnings, and what a module expects from its caller) or
 * `PATH: N errors`. Shared by `validate` and `validate --watch`.
 */
export async function textReport(comp: Compilation, opts: { color: boolean; github: boolean; verbose: boolean; workspace?: string }): Promise<string> {
  let out = "";
  for (const d of comp.diagnostics) {
    out += (await formatText(d, comp.sources, { color: opts.color })) + "\n";
    if (opts.github) out += formatGithub(d, { workspace: opts.workspace }) + "\n";
  }
  const errors = comp.diagnostics.filter((d) => d.severity === "error").length;
  const warnings = comp.diagnostics.length - errors;
  if (opts.verbose && comp.useGraph) out += formatUseGraph(comp.useGraph);
  // A module validated alone says what its callers must pass (docs/language.md, Composition).
  const expects = comp.graph ? expectedOf(comp.graph) : [];
  if (errors === 0) out += `${comp.path}: ok${warnings ? ` (${plural(warnings, "warning")})` : ""}${expects.length ? `; expects ${expects.join(", ")} from its caller` : ""}\n`;
  else out += `${comp.path}: ${plural(errors, "error")}${warnings ? `, ${plural(warnings, "warning")}` : ""}\n`;
  return out;
}

function plural(n: number, w: string): string {
  return `${n} ${w}${n === 1 ? "" : "s"}`;
}
