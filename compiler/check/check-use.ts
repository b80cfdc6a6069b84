import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { ModuleSet } from "../load/load-modules.js";
import type { ModuleLookup } from "../resolve/module-interface.js";

/** Codes that, as a flow's first problem, are already reported at one of its own edges. */
const ECHOES = new Set(["use_cycle", "module_cycle", "use_not_found", "use_invalid", "use_undeclared"]);

/**
 * A flow named by `use` must compile and be a workflow (docs/language.md, Composition: `use_invalid`).
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
      // A flow whose first problem is one of its own uses (missing, invalid, a cycle) has it
      // reported where that use is written: saying so again here would be an echo.
      if (!callee || (callee.firstError && ECHOES.has(callee.firstError.code))) continue;
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
