import { childExprs, type Expr, type TemplatePart } from "../expr/ast.js";
import { evaluate, type EvalError } from "../expr/eval.js";
import { makeFunctions } from "../expr/functions.js";
import type { FunctionTable } from "../expr/value.js";

/**
 * Functions whose result is not known at compile time: they read files or the clock, or
 * draw at random. A call to one is never evaluated here.
 */
const NOT_CONSTANT = new Set(["file", "fileexists", "fileset", "templatefile", "timestamp", "uuid"]);

/** Functions that catch their arguments' evaluation errors (compiler/expr/functions/attempts.ts). */
export const CATCHING = new Set(["try", "can"]);

let functions: FunctionTable | undefined;

/**
 * The errors the parts of `expr` that reference nothing would raise at run time, where
 * every evaluation of them fails the same way (`"abc"[0]`, `"a" + 1`, `"${[1]}"`,
 * `jsondecode("{")`): the run's evaluator itself (compiler/expr/eval.ts) applied now to
 * each largest such part that is more than a literal. Parts under a reference, a `for`
 * (its names are bound at run time) or a call of a function in NOT_CONSTANT are left
 * to the run, and so are the arguments of a `try` or `can` that references something
 * (their errors are caught there); one that references nothing is evaluated whole. Offsets are the expression's (absolute, as the parser gave them).
 * Found by a new-user trial: such an error passed `validate` and failed the run.
 */
export function constantErrors(expr: Expr): EvalError[] {
  const out: EvalError[] = [];
  const known = new Map<Expr, boolean>();
  const visit = (e: Expr): void => {
    if (constant(e, known)) {
      if (e.kind === "literal" || (e.kind === "template" && e.parts.every((p) => p.kind === "template_literal"))) return;
      functions ??= makeFunctions();
      out.push(...evaluate(e, { variables: {}, functions }).errors);
      return;
    }
    // An argument of try() or can() may fail: that is what they are for.
    if (e.kind === "call" && CATCHING.has(e.name)) return;
    for (const c of childExprs(e)) visit(c);
  };
  visit(expr);
  return out;
}

/** True when `e` references nothing and calls only functions whose result is known now. */
function constant(e: Expr, known: Map<Expr, boolean>): boolean {
  const seen = known.get(e);
  if (seen !== undefined) return seen;
  let yes: boolean;
  switch (e.kind) {
    case "scope_traversal":
    case "for":
      yes = false;
      break;
    case "template":
      yes = e.parts.every((p) => partConstant(p, known));
      break;
    case "call":
      yes = !NOT_CONSTANT.has(e.name) && e.args.every((a) => constant(a, known));
      break;
    default:
      yes = childExprs(e).every((c) => constant(c, known));
  }
  known.set(e, yes);
  return yes;
}

function partConstant(p: TemplatePart, known: Map<Expr, boolean>): boolean {
  switch (p.kind) {
    case "template_literal":
      return true;
    case "template_interp":
      return constant(p.expr, known);
    case "template_if":
      return constant(p.condition, known) && p.thenParts.every((x) => partConstant(x, known)) && p.elseParts.every((x) => partConstant(x, known));
    case "template_for":
      return false;
  }
}
