import { basename } from "node:path";
import type { WorkflowSpec } from "../decode/spec.js";
import type { ModuleLookup } from "./module-interface.js";

/**
 * Each flow in the header's `use` list becomes visible as `agent.<its name>` (seed 000:
 * a flow imported by `use` is called as an agent), unless an agent block already binds
 * that flow or the name. Added before resolution, marked `fromHeader`.
 */
export function addHeaderAgents(spec: WorkflowSpec, lookup: ModuleLookup): void {
  for (const u of spec.header?.use ?? []) {
    const iface = u.module ? lookup(u.module) : undefined;
    // A flow that could not be loaded (missing, outside the root, closing a cycle) or has
    // no name was reported where `use` names it; its file's name stands in, so steps
    // calling it are not reported again as unknown agents.
    const name = iface?.name || basename(u.path).replace(/\.[^.]*$/, "");
    if (!name) continue;
    if (spec.agents.some((a) => a.name === name || (a.use?.module !== undefined && a.use.module === u.module))) continue;
    spec.agents.push({ name, range: u.range, nameRange: u.range, use: u, fromHeader: true, adapters: [], agents: [], config: {} });
  }
}
