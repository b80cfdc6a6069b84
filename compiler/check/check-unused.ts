import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { flowFailed } from "../resolve/module-interface.js";
import type { Check } from "./context.js";

/**
 * Declarations nothing uses are warnings (`unused_declaration`): an adapter no step
 * targets, an agent no step or channel names, a local no expression reads, a
 * subworkflow no step runs. Variables are inputs and are not reported. A channel is used
 * by its participants' steps even when no step targets it (their agents reach it with
 * `criteria channel`); one whose participants no step runs is check-channels.ts's error.
 * Uses are recorded by the resolver in the declaring scope.
 */
export const checkUnused: Check = {
  name: "unused",
  onlyWhenValid: true,
  run({ resolution, modules }) {
    const out: Diagnostic[] = [];
    // A body that could not be read may use any of them: none is said unused until it is read.
    if (resolution.scopes.some((s) => s.workflow.unread)) return out;
    for (const s of resolution.scopes) {
      const w = s.workflow;
      // The stand-ins of `use` flows that do not parse (their error says so): their real names are unknown.
      const standIns = new Set(w.agents.filter((a) => a.fromHeader && a.use?.module !== undefined && flowFailed(a, modules)).map((a) => a.name));
      const groups: [string, string, { name: string; nameRange: import("../diagnostics/range.js").Range }[]][] = [
        ["adapters", "adapter", w.adapters],
        ["agents", "agent", w.agents],
        ["locals", "local", w.locals],
        ["subworkflows", "subworkflow", w.subworkflows],
      ];
      for (const [table, noun, list] of groups) {
        for (const d of list) {
          if (table === "agents" && standIns.has(d.name)) continue;
          if (!s.used.has(`${table}:${d.name}`)) {
            out.push(diag("unused_declaration", d.nameRange, `${noun} "${d.name}" is declared but never used`, { hint: `remove it, or use it from a step` }));
          }
        }
      }
    }
    return out;
  },
};
