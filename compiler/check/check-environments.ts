import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { suggest } from "../diagnostics/did-you-mean.js";
import type { Check } from "./context.js";

/**
 * The environment types of the upstream language (the upstream spec, "Environments"):
 * `shell` runs steps as local processes with the environment's variables; `sandbox`,
 * `container` and `remote` are isolation boundaries that compile (as in the Go tool)
 * and that `apply` refuses before the first step. Any other type is a typo. A `PATH`
 * written without the system's directories is warned of (`environment_path_replaced`); a
 * variable written as a list or an object is refused (its value is text).
 */
export const ENVIRONMENT_TYPES = ["shell", "sandbox", "container", "remote"];

export const checkEnvironments: Check = {
  name: "environments",
  run({ resolution }) {
    const out: Diagnostic[] = [];
    for (const s of resolution.scopes) {
      for (const e of s.workflow.environments) {
        // Named as the file writes it: HCL's two labels, YAML's and JSON's one key (found by a new-user trial: `environment "shellci" ""` in YAML).
        const named = /\.c?hcl$/i.test(e.nameRange.file) ? `environment "${e.type}" "${e.name.split(".").slice(1).join(".")}"` : `environment "${e.name}"`;
        // A PATH of the environment's replaces the process's (the Go tool kept its own and warned):
        // one without the system's directories leaves its steps without sh, ls, git... (found by
        // a trial of the Go tool's docs: PATH = "/nope" made every command "not found", unsaid).
        const path = e.variables.PATH;
        // Written out (the decoder's literal: a template is known only at run time).
        const written = path?.kind === "literal" && typeof path.value === "string" ? path.value : undefined;
        if (path && written !== undefined && !written.split(":").some((d) => /^\/(usr\/)?bin\/?$/.test(d))) {
          out.push(
            diag("environment_path_replaced", path.keyRange ?? path.range, `${named} sets PATH to ${JSON.stringify(written)}: it replaces the PATH its steps find their programs in, and leaves out /usr/bin and /bin`, {
              hint: "list every directory its steps need, e.g. \"/opt/tools/bin:/usr/local/bin:/usr/bin:/bin\", or leave PATH out",
            }),
          );
        }
        // A variable's value is text (a number or a bool becomes its text: the Go tool's workflow.md,
        // Environments): a list or an object written out is refused (found by a trial of its docs:
        // LIST = ["x", "y"] reached the steps as the JSON text ["x","y"]).
        for (const [k, v] of Object.entries(e.variables)) {
          if (v.kind !== "literal" || v.value === null || typeof v.value !== "object") continue;
          const what = Array.isArray(v.value) ? "a list" : "an object";
          out.push(diag("invalid_type", v.range, `${named}: variable "${k}" is ${what}, and an environment variable holds text (a number or a bool becomes its text)`, { hint: `write the text the steps read, e.g. ${k} = "x y", or jsonencode(...) of it for JSON` }));
        }
        if (ENVIRONMENT_TYPES.includes(e.type)) continue;
        out.push(diag("unknown_environment_type", e.nameRange, `${named}: unknown environment type "${e.type}"`, { hint: suggest(e.type, ENVIRONMENT_TYPES) ?? `the types are ${ENVIRONMENT_TYPES.join(", ")}` }));
      }
    }
    return out;
  },
};
