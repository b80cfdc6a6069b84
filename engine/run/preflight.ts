import type { Graph } from "../../compiler/build/graph.js";
import { isBuiltIn } from "../adapters/registry.js";

/** Environment types whose isolation criteria does not provide (the upstream spec, "Environments"). */
const UNSUPPORTED_ENVIRONMENTS = new Set(["sandbox", "container", "remote"]);

/**
 * What a run cannot do, found before its first step (docs/language.md, What apply
 * refuses): an adapter distributed as an OCI artifact (`source`: criteria does not
 * fetch, verify or sandbox adapters), an adapter type that is neither built in nor an
 * installed `criteria-adapter-<type>` (when `adapterExists` is given), and a step in a
 * `sandbox`, `container` or `remote` environment. `validate` accepts them, as the Go tool
 * does (the first with the warning `adapter_source_unsupported`); a run refuses them rather
 * than ignoring them.
 *
 * @param graph the root graph (its modules and bodies are searched too)
 * @param adapterExists whether an adapter type can be served, from the module's directory
 * @returns one message per problem, each starting with the declaration's `file:line:col`
 */
export function preflight(graph: Graph, baseDir: string, adapterExists?: (type: string, dir: string) => boolean): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const visit = (g: Graph, dir: string) => {
    for (const a of g.adapters) {
      if (a.inherited && !a.implicit) continue;
      const at = a.at ? `${a.at}: ` : "";
      if (a.source !== undefined) {
        // A built-in type needs no install (found by a trial of the Go tool's language: claude was told to).
        const fix = isBuiltIn(a.type) ? `remove source and version: "${a.type}" is built in` : `install criteria-adapter-${a.type} on PATH (or in $CRITERIA_PLUGINS) and remove source and version`;
        out.push(`${at}adapter "${a.id}" comes from source = "${a.source}"${a.version ? ` (version ${a.version})` : ""}: criteria does not fetch, verify or sandbox OCI adapters; ${fix}`);
      } else if (adapterExists && !seen.has(`${dir}\u0000${a.type}`) && !adapterExists(a.type, dir)) {
        out.push(`${at}adapter type "${a.type}" is neither built in nor installed: no criteria-adapter-${a.type} in $CRITERIA_PLUGINS, ${dir}/adapters or $PATH`);
      }
      seen.add(`${dir}\u0000${a.type}`);
    }
    for (const s of g.steps) {
      const env = s.environment;
      const type = env?.id.split(".")[0];
      if (env && type && UNSUPPORTED_ENVIRONMENTS.has(type) && !seen.has(`env:${env.id}`)) {
        seen.add(`env:${env.id}`);
        out.push(`${env.at ? `${env.at}: ` : ""}environment "${type}" "${env.id.slice(type.length + 1)}" (step "${s.name}"): criteria runs steps as local processes only; ${type} isolation is not provided, so the run is refused rather than run unisolated`);
      }
      if (s.body) visit(s.body, dir);
    }
  };
  visit(graph, baseDir);
  for (const [key, m] of Object.entries(graph.modules ?? {})) visit(m, m.dir ? `${baseDir}/${m.dir}` : `${baseDir}/${key}`);
  return out;
}
