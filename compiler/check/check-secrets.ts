import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { Check } from "./context.js";

/**
 * A secret variable with a default holds its secret in the workflow's source, which is
 * checked in, shown by `compile` and journaled with the compiled workflow: warn (the
 * value is still masked in what a run records). Where secrets may be read is checked
 * with the expressions (`secret_exposed`, resolve/check-expression.ts).
 */
export const checkSecrets: Check = {
  name: "secrets",
  run({ resolution }) {
    const out: Diagnostic[] = [];
    for (const s of resolution.scopes) {
      for (const v of s.workflow.variables) {
        if (!v.secret || v.default === undefined) continue;
        out.push(diag("secret_default", v.default.range, `variable "${v.name}" is secret but has a default: the value is in the workflow's source`, { hint: `remove the default and pass it at run time: CRITERIA_VAR_${v.name}=... or --var ${v.name}=...` }));
      }
    }
    return out;
  },
};
