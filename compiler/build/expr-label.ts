import { singleInterpolation } from "../diagnostics/dialect-hint.js";
import type { GraphExpr } from "./graph.js";

/**
 * An expression as a picture or `plan` shows it: a template that is one `${...}` — how
 * YAML and JSON write an expression (`count: "${var.max_rounds}"`) — as the expression
 * alone (`var.max_rounds`), as HCL writes it; anything else as written. Found by a
 * new-user trial: labels read `${var.env == "prod"}`.
 */
export function exprLabel(e: GraphExpr): string {
  return (e.kind === "template" ? singleInterpolation(e.text) : undefined) ?? e.text;
}
