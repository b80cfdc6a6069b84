import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { exprOfValue, fieldAs, writtenExpr } from "../diagnostics/dialect-hint.js";
import type { ExprSource, StepSpec } from "../decode/spec.js";
import { bareType, parseType } from "../decode/types.js";
import type { Expr } from "../expr/ast.js";
import { parseMemo } from "../expr/parse-memo.js";
import { outputTypeOf } from "../resolve/adapter-outputs.js";
import type { ModuleInterface } from "../resolve/module-interface.js";
import type { Scope } from "../resolve/scope.js";
import { totalStepBudget, type Check } from "./context.js";

/** The kinds of value {@link staticKind} tells apart: what an expression is known to give before the run. */
export type Kind = "string" | "number" | "bool" | "list" | "map" | "null";

/**
 * What `e` gives whatever the run: a literal's kind, a template's string, a variable's
 * declared type (a value of a typed variable is converted to it), a local's literal
 * value, a list or object built in place; `try(a, b...)` when all its arguments agree,
 * `can(x)` a bool; a conditional whose two results agree; a key of a step's output that
 * is known without a projection over it (a `shell` step's `stdout`, a called module's
 * output declared with a type: {@link stepOutputKind}). Anything else (a plugin's or
 * an agent's output, a function's result, `any`) is not known: undefined.
 * @param calleeOf the module each step calls (the resolution's)
 */
export function staticKind(e: Expr, s: Scope, calleeOf?: ReadonlyMap<StepSpec, ModuleInterface>): Kind | undefined {
  switch (e.kind) {
    case "literal":
      return kindOf(e.value);
    case "paren":
      return staticKind(e.expr, s, calleeOf);
    case "template":
      if (e.parts.length === 1 && e.parts[0].kind === "template_interp") return staticKind(e.parts[0].expr, s, calleeOf);
      return "string";
    case "tuple":
    case "for":
      return e.kind === "for" && e.keyExpr ? "map" : "list";
    case "object":
      return "map";
    case "conditional": {
      const a = staticKind(e.trueExpr, s, calleeOf);
      return a !== undefined && a === staticKind(e.falseExpr, s, calleeOf) ? a : undefined;
    }
    case "call": {
      if (e.name === "can" && e.args.length === 1) return "bool";
      if (e.name !== "try" || e.args.length === 0 || e.expandFinal) return undefined;
      const kinds = e.args.map((a) => staticKind(a, s, calleeOf));
      return kinds.every((k) => k !== undefined && k === kinds[0]) ? kinds[0] : undefined;
    }
    case "scope_traversal": {
      const first = e.steps[0];
      if (e.root === "steps" && e.steps.length === 2 && first.kind === "attr" && e.steps[1].kind === "attr") {
        const step = s.lookup("steps", first.name)?.decl;
        return step && stepOutputKind(step, e.steps[1].name, calleeOf?.get(step));
      }
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

/**
 * What `steps.<step>.<key>` is before the run, when known: a `shell` step's `stdout` and
 * `stderr` are strings, `exit_code` a number, the `_truncated`/`_binary` flags bools
 * (engine/adapters' shell output); a called module's output of a declared type is of that
 * type. Undefined when the step iterates (`steps.<step>` is then its items), or when one of
 * its outcomes projects over its output (found by a new-user trial: `for_each` over a
 * shell step's stdout and over a module's `string` output passed validate, failed the run).
 */
function stepOutputKind(step: StepSpec, key: string, callee: ModuleInterface | undefined): Kind | undefined {
  if (step.forEach || step.count || step.parallel || step.while) return undefined;
  // (A module that can end by `return` gives its projection instead of its outputs.)
  const declared = outputTypeOf(step, key, callee && !callee.unknown ? callee.outputs : undefined, callee?.returnKeys);
  if (declared === undefined) return undefined;
  const t = parseType(declared).type;
  if (!t || t.kind === "any") return undefined;
  return t.kind === "set" || t.kind === "tuple" ? "list" : t.kind === "object" ? "map" : t.kind;
}

function kindOf(v: unknown): Kind {
  if (v === null) return "null";
  if (Array.isArray(v)) return "list";
  if (typeof v === "object") return "map";
  return typeof v as "string" | "number" | "bool";
}

/** The parsed expression of an HCL or template source, when it parses (undefined for a literal, or one that does not parse). */
export function parsed(src: ExprSource): Expr | undefined {
  if (src.kind !== "hcl" && src.kind !== "template") return undefined;
  const r = parseMemo(src.kind === "hcl" ? "expression" : "template", src.text);
  return r.errors.length === 0 ? r.expr : undefined;
}

/**
 * A `for_each` or `parallel` expression that is known before the run to give neither a
 * list, a map nor (as `count` does) a number, and a `count` known to give a string or a
 * bool: a variable declared `string` or `bool`, a template, a literal local, a shell
 * step's `stdout`, a module's output declared `string` (found by new-user trials:
 * `for_each = var.files` of a string variable, `count: "${var.env}"`, passed validate and
 * failed the run). Literal values are checked-literal-types'.
 */
export const checkIterationTypes: Check = {
  name: "iteration-types",
  run({ resolution, spec, entry }) {
    const out: Diagnostic[] = [];
    // The budget is the root's (a module's steps count against its caller's): known here for the file the user named.
    const budget = entry ? totalStepBudget(spec) : undefined;
    for (const s of resolution.scopes) {
      for (const st of s.workflow.steps) {
        for (const [field, src] of [["for_each", st.forEach], ["parallel", st.parallel], ["count", st.count]] as const) {
          const e = src && parsed(src);
          // A number of items the run refuses before the first (engine/run/iteration-items.ts;
          // found by a trial of the Go tool's docs: count = 150 validated, then stopped the run).
          const n = src?.kind === "literal" && typeof src.value === "number" ? src.value : undefined;
          if (src && n !== undefined && budget !== undefined && budget >= 1 && Number.isInteger(n) && n > budget) {
            out.push(
              diag("iteration_over_budget", src.range, `step "${st.name}": its ${field} (${n}) is more than the policy's max_total_steps (${budget}), which counts every item: the run would stop at this step`, {
                hint: `raise it: policy { max_total_steps = ${n * 2} }, or iterate over fewer items`,
              }),
            );
          }
          const kind = e && staticKind(e, s, resolution.calleeOf);
          if (!src || !e || (kind !== "string" && kind !== "bool")) continue;
          const bare = e.kind === "template" && e.parts.length === 1 && e.parts[0].kind === "template_interp" ? e.parts[0].expr : e;
          // As an expression: a YAML/JSON template of one `${...}` is its expression; one with
          // text around it, a quoted string (an HCL expression's text is one already).
          // A lone "${...}" in HCL is said as its expression (a trial: "${var.s}" is declared string).
          const text = src.kind === "hcl" ? (bare !== e ? writtenExpr(src.text) : src.text.trim()) : bare !== e ? exprOfValue(src.text) : JSON.stringify(src.text);
          const declared = bare.kind === "scope_traversal" && bare.root === "var" ? s.lookup("variables", (bare.steps[0] as { name: string }).name)?.decl.type : undefined;
          const what = declared !== undefined ? `${text} is declared ${bareType(declared)}` : `${text} is a ${kind}`;
          const want = field === "count" ? "a whole number" : field === "parallel" ? "a list, a map or a whole number" : "a list or a map";
          // In YAML and JSON, split(...) goes inside the template (found by a new-user trial:
          // `for_each: split(" ", ${var.env})` was told to split again).
          // A step's output (stdout) is iterated by its lines, a variable by its words.
          const lines = bare.kind === "scope_traversal" && bare.root === "steps";
          const words = `to iterate over the ${lines ? "lines" : "words"} of a string, write ${fieldAs(src.range.file, field === "count" ? "for_each" : field, lines ? `split("\\n", trimspace(${text}))` : `split(" ", ${text})`)}`;
          const retype = declared !== undefined ? `, or declare the variable type = ${field === "count" ? "number" : "list(string)"}` : "";
          out.push(
            diag("invalid_type", src.range, `step "${st.name}": ${field} must be ${want}, but ${what}`, {
              hint: kind !== "string" ? `give it ${want}` : `${words}${retype}`,
            }),
          );
        }
      }
    }
    return out;
  },
};
