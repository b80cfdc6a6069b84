import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { ExprSource } from "../decode/spec.js";
import type { Check } from "./context.js";

/** Type names a variable may declare (the Go tool's and Terraform's primitives and collections). */
const TYPE_RE = /^(string|number|bool|any|list|map|object|tuple|set|list\(.+\)|map\(.+\)|set\(.+\)|object\(.+\)|tuple\(.+\))$/;

/**
 * Literal values agree with their declared or implied types: a variable's default
 * with its `type`; a literal `for_each` is a list or map; a literal `parallel` a list,
 * map or count; `parallel_max` positive. Expressions are checked at run time.
 */
export const checkLiteralTypes: Check = {
  name: "literal-types",
  run({ resolution }) {
    const out: Diagnostic[] = [];
    for (const s of resolution.scopes) {
      const w = s.workflow;
      for (const v of w.variables) {
        if (v.type === undefined) continue;
        const t = v.type.replace(/\s+/g, "");
        if (!TYPE_RE.test(t)) {
          out.push(diag("invalid_value", v.typeRange ?? v.nameRange, `variable "${v.name}": unknown type "${v.type}"`, { hint: `use string, number, bool, list(T), map(T), object or any` }));
          continue;
        }
        if (v.default && v.default.kind === "literal" && v.default.value !== null && !matches(t, v.default)) {
          out.push(diag("invalid_type", v.default.range, `variable "${v.name}": default ${JSON.stringify(v.default.value)} is not a ${v.type}`));
        }
      }
      for (const st of w.steps) {
        const fe = st.forEach;
        // Non-string literals of the wrong type are the schema's to report; a plain string is ours.
        if (fe && fe.kind === "literal" && typeof fe.value === "string") {
          out.push(diag("invalid_type", fe.range, `step "${st.name}": for_each must be a list or a map, not ${JSON.stringify(fe.value)}`));
        }
        const p = st.parallel;
        if (p && p.kind === "literal" && (typeof p.value === "string" || (typeof p.value === "number" && !(Number.isInteger(p.value) && p.value >= 0)))) {
          out.push(diag("invalid_type", p.range, `step "${st.name}": parallel must be a list, a map or a whole number, not ${JSON.stringify(p.value)}`));
        }
      }
    }
    return out;
  },
};

function matches(type: string, e: ExprSource): boolean {
  const v = e.value;
  const head = type.replace(/\(.*$/, "");
  switch (head) {
    case "string":
      return typeof v === "string" || typeof v === "number" || typeof v === "boolean";
    case "number":
      return typeof v === "number" || (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v)));
    case "bool":
      return typeof v === "boolean" || v === "true" || v === "false";
    case "list":
    case "set":
    case "tuple":
      return Array.isArray(v);
    case "map":
    case "object":
      return typeof v === "object" && v !== null && !Array.isArray(v);
    default:
      return true;
  }
}
