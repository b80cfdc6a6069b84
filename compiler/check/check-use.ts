import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { ModuleSet } from "../load/load-modules.js";
import type { ModuleLookup } from "../resolve/module-interface.js";

/**
 * A flow named by `use` must compile and be a workflow (seed 000, A5: `use_invalid`).
 * The flow's own first problem is shown under the refusal; its problems are also
 * reported in its own files. Runs over the whole module set, after every module is
 * compiled.
 */
export function checkUse(set: ModuleSet, lookup: ModuleLookup): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const m of set.modules.values()) {
    for (const e of m.edges) {
      if (e.kind !== "use" || e.to === undefined) continue;
      const callee = lookup(e.to);
      // A flow in a cycle has the cycle reported, with the chain, where it closes.
      if (!callee || callee.firstError?.code === "use_cycle" || callee.firstError?.code === "module_cycle") continue;
      if (!callee.firstError && !callee.hasHeader) {
        out.push(diag("use_invalid", e.range, `use "${e.path}": ${callee.path} is not a workflow (it has no workflow header)`, { hint: `a flow starts with workflow { name = "..." initial_state = "..." }` }));
      } else if (callee.firstError) {
        out.push(
          diag("use_invalid", e.range, `use "${e.path}": the flow ${callee.path} does not compile`, {
            related: [{ message: `its first problem: ${callee.firstError.message}`, range: callee.firstError.range }],
            hint: `criteria validate ${callee.path} lists its problems`,
          }),
        );
      }
    }
  }
  return out;
}
