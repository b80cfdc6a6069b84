import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { ExprSource } from "../decode/spec.js";
import { bareType, parseType } from "../decode/types.js";
import type { Expr } from "../expr/ast.js";
import { parseMemo } from "../expr/parse-memo.js";
import type { Scope } from "../resolve/scope.js";
import type { Check } from "./context.js";

/** What an expression is known to give before the run, as far as this check needs to know. */
type Kind = "string" | "number" | "bool" | "list" | "map" | "null";

/**
 * What `e` gives whatever the run: a literal's kind, a template's string, a variable's
 * declared type (a value of a typed variable is converted to it), a local's literal
 * value, a list or object built in place; `try(a, b...)` when all its arguments agree,
 * `can(x)` a bool; a conditional whose two results agree. Anything else (a step's
 * output, a function's result, `any`) is not known: undefined.
 */
export function staticKind(e: Expr, s: Scope): Kind | undefined {
  switch (e.kind) {
    case "literal":
      return kindOf(e.value);
    case "paren":
      return staticKind(e.expr, s);
    case "template":
      if (e.parts.length === 1 && e.parts[0].kind === "template_interp") return staticKind(e.parts[0].expr, s);
      return "string";
    case "tuple":
    case "for":
      return e.kind === "for" && e.keyExpr ? "map" : "list";
    case "object":
      return "map";
    case "conditional": {
      const a = staticKind(e.trueExpr, s);
      return a !== undefined && a === staticKind(e.falseExpr, s) ? a : undefined;
    }
    case "call": {
      if (e.name === "can" && e.args.length === 1) return "bool";
      if (e.name !== "try" || e.args.length === 0 || e.expandFinal) return undefined;
      const kinds = e.args.map((a) => staticKind(a, s));
      return kinds.every((k) => k !== undefined && k === kinds[0]) ? kinds[0] : undefined;
    }
    case "scope_traversal": {
      const first = e.steps[0];
      if (e.steps.length !== 1 || first.kind !== "attr") return undefined;
      if (e.root === "var") {
        const type = s.lookup("variables", first.name)?.decl.type;
        const t = type === undefined ? undefined : parseType(type).type;
        if (!t || t.kind === "any") return undefined;
        return t.kind === "set" || t.kind === "tuple" ? "list" : t.kind === "object" ? "map" : t.kind;
      }
      if (e.root === "local") {
        const v = s.lookup("locals", first.name)?.decl.value;
        return v?.kind === "literal" ? kindOf(v.value as Parameters<typeof kindOf>[0]) : undefined;
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

function kindOf(v: unknown): Kind {
  if (v === null) return "null";
  if (Array.isArray(v)) return "list";
  if (typeof v === "object") return "map";
  return typeof v as "string" | "number" | "bool";
}

/** The parsed expression of an HCL or template source, when it parses. */
function parsed(src: ExprSource): Expr | undefined {
  if (src.kind !== "hcl" && src.kind !== "template") return undefined;
  const r = parseMemo(src.kind === "hcl" ? "expression" : "template", src.text);
  return r.errors.length === 0 ? r.expr : undefined;
}

/**
 * A `for_each` or `parallel` expression that is known before the run to give neither a
 * list, a map nor (as `count` does) a number: a variable declared `string` or `bool`, a
 * template, a literal local (found by a new-user trial: `for_each = var.files` of a string
 * variable passed validate and failed the run). Literal values are checked-literal-types'.
 */
export const checkIterationTypes: Check = {
  name: "iteration-types",
  run({ resolution }) {
    const out: Diagnostic[] = [];
    for (const s of resolution.scopes) {
      for (const st of s.workflow.steps) {
        for (const [field, src] of [["for_each", st.forEach], ["parallel", st.parallel]] as const) {
          const e = src && parsed(src);
          const kind = e && staticKind(e, s);
          if (!src || !e || (kind !== "string" && kind !== "bool")) continue;
          const text = src.kind === "hcl" ? src.text.trim() : src.text;
          const declared = e.kind === "scope_traversal" && e.root === "var" ? s.lookup("variables", (e.steps[0] as { name: string }).name)?.decl.type : undefined;
          const what = declared !== undefined ? `${text} is declared ${bareType(declared)}` : `${text} is a ${kind}`;
          const want = field === "parallel" ? "a list, a map or a whole number" : "a list or a map";
          const words = `to iterate over the words of a string, write ${field} = split(" ", ${text})`;
          out.push(
            diag("invalid_type", src.range, `step "${st.name}": ${field} must be ${want}, but ${what}`, {
              hint: kind !== "string" ? `give it ${want}` : declared !== undefined ? `${words}, or declare the variable type = list(string)` : words,
            }),
          );
        }
      }
    }
    return out;
  },
};
