import { basename } from "node:path";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { ModulePath, WorkflowSpec } from "../decode/spec.js";

/**
 * Each flow in the header's `use` list becomes visible as `agent.<its name>` (docs/language.md, Composition:
 * a flow imported by `use` is called as an agent), unless an agent block binds that
 * flow. Added before resolution, marked `fromHeader`. Two flows of the same name, or a
 * flow named like an agent block that binds something else, are `duplicate_name`:
 * nothing may silently shadow a flow. The same flow listed twice is added once (the
 * schema reports the list's duplicate). An agent block of the flow's name whose `use` could
 * not be loaded takes the name without a duplicate_name (its own error is the one to fix).
 *
 * @param nameOf the workflow name of the flow a `use` path leads to, when it could be read
 */
export function addHeaderAgents(spec: WorkflowSpec, nameOf: (u: ModulePath) => string | undefined): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const u of spec.header?.use ?? []) {
    if (spec.agents.some((a) => !a.fromHeader && a.use?.module !== undefined && a.use.module === u.module)) continue;
    // A flow that could not be loaded (missing, outside the root) or has no name was
    // reported where `use` names it; its file's name stands in, so steps calling it are
    // not reported again as unknown agents.
    const name = nameOf(u) || basename(u.path).replace(/\.[^.]*$/, "");
    const taken = spec.agents.find((a) => a.name === name);
    // An agent block of that name whose own `use` could not be loaded (a path typo, a
    // cycle) most likely meant this flow: its error says so with a did-you-mean, and a
    // duplicate_name beside it would only blame the header (found by a new-user trial).
    if (taken && !taken.fromHeader && taken.use && taken.use.module === undefined) continue;
    // The same flow listed twice: the header's list says so (the schema's duplicate item);
    // "bind it under another name" would be the wrong advice (found by a new-user trial).
    if (taken?.fromHeader && (taken.use?.module ?? taken.use?.path) === (u.module ?? u.path)) continue;
    if (taken) {
      out.push(
        diag("duplicate_name", u.range, `use "${u.path}": its flow "${name}" has the name of ${taken.fromHeader ? `the flow of use "${taken.use?.path}"` : `agent "${name}"`}, so agent.${name} would be ambiguous`, {
          related: [{ message: "the other one", range: taken.nameRange }],
          hint: `bind it under another name: agent "${name}_2" { use = "${u.path}" }`,
        }),
      );
      continue;
    }
    spec.agents.push({ name, range: u.range, nameRange: u.range, use: u, fromHeader: true, adapters: [], agents: [], config: {} });
  }
  return out;
}
