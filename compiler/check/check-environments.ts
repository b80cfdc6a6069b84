import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { suggest } from "../diagnostics/did-you-mean.js";
import type { Check } from "./context.js";

/**
 * The environment types of the upstream language (the upstream spec, "Environments"):
 * `shell` runs steps as local processes with the environment's variables; `sandbox`,
 * `container` and `remote` are isolation boundaries that compile (as in the Go tool)
 * and that `apply` refuses before the first step. Any other type is a typo.
 */
export const ENVIRONMENT_TYPES = ["shell", "sandbox", "container", "remote"];

export const checkEnvironments: Check = {
  name: "environments",
  run({ resolution }) {
    const out: Diagnostic[] = [];
    for (const s of resolution.scopes) {
      for (const e of s.workflow.environments) {
        if (ENVIRONMENT_TYPES.includes(e.type)) continue;
        // Named as the file writes it: HCL's two labels, YAML's and JSON's one key (found by a new-user trial: `environment "shellci" ""` in YAML).
        const named = /\.c?hcl$/i.test(e.nameRange.file) ? `environment "${e.type}" "${e.name.split(".").slice(1).join(".")}"` : `environment "${e.name}"`;
        out.push(diag("unknown_environment_type", e.nameRange, `${named}: unknown environment type "${e.type}"`, { hint: suggest(e.type, ENVIRONMENT_TYPES) ?? `the types are ${ENVIRONMENT_TYPES.join(", ")}` }));
      }
    }
    return out;
  },
};
