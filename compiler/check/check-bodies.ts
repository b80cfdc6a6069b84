import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { Range } from "../diagnostics/range.js";
import type { Check } from "./context.js";

/**
 * What a body (inline `workflow {}` or `workflow_file`) cannot declare, because a body
 * is part of its enclosing workflow, not a module of its own (docs/language.md, Composition):
 * - a variable without a default (nothing binds a body's variables: no `--var`, no `input`);
 * - header fields of a module: `use`, `expects`, `memory`, `identity` (the enclosing
 *   workflow's header holds them; a body sees its adapters and agents already).
 */
export const checkBodies: Check = {
  name: "bodies",
  run({ resolution }) {
    const out: Diagnostic[] = [];
    for (const s of resolution.scopes) {
      if (!s.parent || !s.owner) continue;
      const where = `the body of step "${s.owner.name}"`;
      for (const v of s.workflow.variables) {
        if (v.default !== undefined) continue;
        out.push(diag("missing_field", v.nameRange, `variable "${v.name}" of ${where} has no default, and nothing can bind it`, { hint: `give it a default, or make it a variable of the enclosing workflow (a body sees those)` }));
      }
      const h = s.workflow.header;
      if (!h) continue;
      const fields: [string, { range: Range } | undefined][] = [
        ["use", h.use[0]],
        ["expects", h.expects],
        ["memory", h.memory],
      ];
      for (const [field, at] of fields) {
        if (!at) continue;
        out.push(diag("invalid_value", at.range, `${where}: "${field}" belongs in the header of a workflow of its own, not of a body`, { hint: `move it to the enclosing workflow's header, or call this file as a subworkflow or a flow` }));
      }
      if (h.identity !== undefined) {
        out.push(diag("invalid_value", h.range, `${where}: "identity" belongs in the header of a flow, not of a body`, { hint: "move it to the enclosing workflow's header, or use this file as a flow" }));
      }
    }
    return out;
  },
};
