import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { closestName, distance, suggest } from "../diagnostics/did-you-mean.js";
import type { ExprSource } from "../decode/spec.js";
import { formatNumber, type Value } from "../expr/value.js";
import { adapterFields, readFieldValue, type FieldSpec } from "../resolve/adapter-fields.js";
import { typeOf } from "./check-adapter-use.js";
import type { Check } from "./context.js";

/**
 * A built-in adapter's `config` (of an `adapter` block or an agent) and a step's `input` hold
 * the fields the adapter reads, as compiler/resolve/adapter-fields.ts describes them — the
 * description the adapters read their values with (found by a new-user trial: `timout`,
 * `max_output_bytes = "lots"` and `command = ["echo", "hi"]` passed validate, then failed
 * the step at run time):
 * - a key the adapter does not read is an error with a did-you-mean (`unknown_field`; where
 *   other keys are allowed — noop, the agent CLIs' Go-era keys — only a close typo of a
 *   field, as a warning);
 * - a literal value not of the field's kind is the run's own sentence as an error
 *   (`invalid_type`, or `invalid_value` for a value of the right type that is not allowed:
 *   an empty command, a duration without a unit). A value that is an expression is known only
 *   at run time, and checked then.
 * Plugins' fields are their own: never checked.
 */
export const checkAdapterFields: Check = {
  name: "adapter-fields",
  run({ resolution }) {
    const out: Diagnostic[] = [];
    const check = (type: string, what: string, where: "config" | "input", values: Record<string, ExprSource> | undefined) => {
      const fields = adapterFields(type);
      if (!fields || !values) return;
      const specs: Readonly<Record<string, FieldSpec>> = fields[where];
      const open = where === "config" ? fields.openConfig : fields.openInput;
      const names = Object.keys(specs);
      for (const [key, e] of Object.entries(values)) {
        const spec = Object.hasOwn(specs, key) ? specs[key] : undefined;
        if (!spec) {
          const near = closestName(key, names);
          if (!open) {
            out.push(
              diag("unknown_field", e.keyRange ?? e.range, `${what}: the ${type} adapter has no ${where} field "${key}"`, {
                hint: suggest(key, names) ?? `the ${type} adapter takes no ${where}`,
              }),
            );
          } else if (near && typo(key, near)) {
            out.push(
              diag("unknown_field", e.keyRange ?? e.range, `${what}: the ${type} adapter does not read ${where} field "${key}" (it is ignored)`, {
                severity: "warning",
                hint: `did you mean "${near}"?`,
              }),
            );
          }
          continue;
        }
        if (e.kind !== "literal" || e.value === null) continue;
        const r = readFieldValue(spec, e.value);
        if (r.ok) continue;
        out.push(diag(r.wrongType ? "invalid_type" : "invalid_value", e.range, `${what}: ${where}.${key}: ${r.problem}`, { hint: hintOf(spec, key, e.value) }));
      }
    };
    for (const s of resolution.scopes) {
      const w = s.workflow;
      for (const a of w.adapters) check(a.type, `adapter "${a.type}" "${a.name.slice(a.type.length + 1)}"`, "config", a.config);
      for (const a of w.agents) {
        const type = a.use ? undefined : (a.adapter ?? a.cli);
        if (type) check(type, `agent "${a.name}"`, "config", a.config);
      }
      for (const st of w.steps) {
        const type = typeOf(st, s, resolution);
        if (type && !st.lifecycle) check(type, `step "${st.name}"`, "input", st.input);
      }
    }
    return out;
  },
};

/**
 * Whether an extra key of an open map (noop input, an agent CLI's config) is a typo of a
 * field, not a key of its own (`timout` of timeout, not `said` of fail): one edit, or two
 * in a name of six letters or more.
 */
function typo(key: string, field: string): boolean {
  const d = distance(key.toLowerCase(), field.toLowerCase());
  return d <= 1 || (d <= 2 && key.length >= 6);
}

/** What to write instead of `value`, with an example. */
function hintOf(spec: FieldSpec, key: string, value: Value): string {
  switch (spec.kind) {
    case "duration":
      return typeof value === "number"
        ? `a duration is a quoted string with a unit: ${key} = "${formatNumber(value)}s" for ${formatNumber(value)} seconds, "${formatNumber(value)}ms" for milliseconds`
        : `a duration is a number with a unit (ms, s, m, h): ${key} = ${spec.example}`;
    case "count":
      return `write a number without quotes: ${key} = ${spec.example}`;
    case "text":
    case "string":
      // A list of words where one string is wanted (command = ["echo", "hi"]): the line they make.
      if (Array.isArray(value) && value.length > 0 && value.every((x) => typeof x === "string")) return `write one string: ${key} = ${JSON.stringify(value.join(" "))}`;
      // An empty string is already quoted: what it lacks is text (found by a trial).
      if (typeof value === "string") return `give it some text: ${key} = ${spec.example}`;
      return `write the text in quotes: ${key} = ${spec.example}`;
    case "strings":
      return `write a list of strings: ${key} = ${spec.example}`;
    case "env":
      return `write a map of strings: ${key} = ${spec.example}`;
    case "bool":
      return `write true or false, without quotes: ${key} = ${spec.example}`;
    case "choice":
      return `write one of ${(spec.choices ?? []).map((c) => JSON.stringify(c)).join(", ")}: ${key} = ${spec.example}`;
  }
}
