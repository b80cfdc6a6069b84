import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { closestName } from "../diagnostics/did-you-mean.js";
import type { Range } from "../diagnostics/range.js";
import type { StepSpec } from "../decode/spec.js";
import type { Check } from "./context.js";
import type { Resolution } from "../resolve/resolve-workflow.js";
import type { Scope } from "../resolve/scope.js";
import { adapterFields, BUILT_IN_ADAPTER_TYPES } from "../resolve/adapter-fields.js";

/** The input each built-in needs to do anything (its `required` fields): `shell` runs `command`, agent CLIs send `prompt`. */
function requiredInput(type: string): { key: string; severity: "error" | "warning" }[] {
  return Object.entries(adapterFields(type)?.input ?? {}).flatMap(([key, f]) => (f.required ? [{ key, severity: f.required }] : []));
}

/**
 * Adapters are used as their type expects:
 * - a type that is not built in but is one typo away from one (`shel`) is a warning
 *   with a did-you-mean (it would need an executable `criteria-adapter-shel`); an agent's
 *   type written as an adapter block's name (`"shell.default"`) is an error;
 * - a `shell` step has an `input.command` (error: it could only fail), an agent-CLI step
 *   an `input.prompt` (warning: older files open sessions without one).
 * - an adapter with a `source` (an OCI location, the Go tool's distribution) is a warning:
 *   `apply` refuses it.
 * Steps whose input is one expression are checked at run time.
 */
export const checkAdapterUse: Check = {
  name: "adapter-use",
  run({ resolution }) {
    const out: Diagnostic[] = [];
    const typo = (type: string, at: Range, what: string) => {
      if ((BUILT_IN_ADAPTER_TYPES as readonly string[]).includes(type)) return;
      const near = closestName(type, BUILT_IN_ADAPTER_TYPES);
      if (near && near !== type) {
        out.push(
          diag("unknown_target", at, `${what}: "${type}" is not a built-in adapter type; did you mean "${near}"?`, {
            severity: "warning",
            hint: `as written it needs an executable criteria-adapter-${type} on PATH`,
          }),
        );
      }
    };
    for (const s of resolution.scopes) {
      for (const a of s.workflow.adapters) typo(a.type, a.nameRange, `adapter "${a.name}"`);
      // The Go tool fetched adapters from OCI registries; criteria does not, and `apply` refuses
      // them (engine/run/preflight.ts): said here too, where the file is written (found by a
      // trial of the Go tool's docs: their own example validated, then the run was refused).
      for (const a of s.workflow.adapters) {
        if (!a.source || a.expected) continue;
        const builtIn = (BUILT_IN_ADAPTER_TYPES as readonly string[]).includes(a.type);
        out.push(
          diag("adapter_source_unsupported", a.source.range, `adapter "${a.name}" comes from source = "${a.source.text}": criteria does not fetch, verify or sandbox OCI adapters, and apply refuses a run that declares it`, {
            hint: builtIn ? `remove source and version: "${a.type}" is built in` : `install criteria-adapter-${a.type} on PATH (or in $CRITERIA_PLUGINS) and remove source and version`,
          }),
        );
      }
      for (const a of s.workflow.agents) {
        const t = a.adapter ?? a.cli;
        // An adapter block's name where a type goes (`adapter = "shell.default"`): no executable
        // is named so; the run could only refuse it (found by a new-user trial).
        // A reference (`adapter = adapter.shell.default`, unquoted in HCL) is the same mistake; an
        // empty or otherwise dotted value names no type either (a new-user trial: each validated).
        const bare = t !== undefined && a.adapter !== undefined ? t.replace(/^\$\{\s*(.*?)\s*\}$/, "$1") : undefined;
        // (An empty one is missing_field's: the agent "needs adapter, cli or use".)
        if (bare !== undefined && bare !== "" && (bare.includes(".") || bare !== t)) {
          const dotted = /^(?:adapter\.)?([^.]+)\.[^.]+$/.exec(bare);
          out.push(
            diag("unknown_target", a.adapterRange ?? a.nameRange, `agent "${a.name}": "${bare}" is not an adapter type: an agent names the type of adapter it runs on${dotted ? ", not an adapter block" : ""}`, {
              hint: dotted ? `write adapter = "${dotted[1]}" (the agent's own settings go in its config { } block)` : 'write the type of its adapter, e.g. adapter = "shell"',
            }),
          );
          continue;
        }
        // At the value written (found by a new-user trial: at the agent's name).
        if (t) typo(t, a.adapterRange ?? a.nameRange, `agent "${a.name}"`);
      }
      for (const st of s.workflow.steps) {
        const type = st.target?.kind === "adapter" && st.target.implicit ? st.target.type : typeOf(st, s, resolution);
        if (type === undefined || (type === "" && !(st.target?.kind === "adapter" && st.target.implicit))) continue;
        if (st.target?.kind === "adapter" && st.target.implicit) {
          // The older field's value names no type (`adapter = ""`, `adapter.shell.default.x`): the run would refuse it (a new-user trial).
          if (type === "" || type.includes(".") || type.includes("$")) {
            out.push(
              diag("unknown_target", st.target.range, `step "${st.name}": ${type === "" ? "an empty adapter" : `"${type}"`} names no adapter`, {
                hint: "write target = adapter.<type>.<name>, e.g. target = adapter.shell.default (or the older adapter = \"shell\")",
              }),
            );
            continue;
          }
          typo(type, st.target.range, `step "${st.name}"`);
        }
        // An input of the wrong type (`input: [a, b]`, `input:`): its type error says it (found by a new-user trial: "has no input.command" beside it).
        if (st.lifecycle || st.inputExpr || st.inputInvalid) continue;
        for (const need of requiredInput(type)) {
          if (st.input && need.key in st.input) continue;
          out.push(
            diag("missing_field", st.nameRange, `step "${st.name}" runs on ${type} but has no input.${need.key}`, {
              severity: need.severity,
              hint: `add input { ${need.key} = "..." }`,
            }),
          );
        }
      }
    }
    return out;
  },
};

/** The adapter type a step runs on: its adapter's, or its agent's `adapter`/`cli`; undefined for other targets (bodies, subworkflows, channels, flows). */
export function typeOf(st: StepSpec, s: Scope, res: Resolution): string | undefined {
  if (st.target?.kind === "adapter") return res.adapterOf.get(st)?.type;
  if (st.target?.kind === "agent") {
    const a = s.lookup("agents", st.target.name)?.decl;
    return a?.adapter ?? a?.cli;
  }
  return undefined;
}
