import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { ExprSource } from "../decode/spec.js";
import { childExprs, type Expr } from "../expr/ast.js";
import { parseMemo } from "../expr/parse-memo.js";
import { exprRangeAt } from "../resolve/check-expression.js";
import { staticKind } from "./check-iteration-types.js";
import type { Check } from "./context.js";
import { nodeReads, sources } from "./node-reads.js";

/**
 * A string template (text around `${...}`, or two of them) interpolates a value known before
 * the run to be a list or a map: a variable declared `list(...)` or `object(...)`, a list
 * written in place, a module's output declared so ({@link staticKind}). The run fails there
 * ("cannot include a list value in a string template", as in Terraform), so validate says
 * it now, with the functions that make text of it (found by a new-user trial:
 * `"echo ${var.names}"` of a `list(string)` passed validate and failed the run). A template
 * that is one `${...}` alone is its value, unconverted, and is not flagged.
 */
export const checkTemplateKinds: Check = {
  name: "template-kinds",
  run({ resolution, rangeAt }) {
    const out: Diagnostic[] = [];
    for (const s of resolution.scopes) {
      for (const read of nodeReads(s)) {
        for (const src of sources(read.src)) {
          const parsed = parseMemo(src.kind === "hcl" ? "expression" : "template", src.text);
          if (!parsed.expr || parsed.errors.length > 0) continue;
          const at = exprRangeAt(src, rangeAt);
          visit(parsed.expr, (e) => {
            if (e.kind !== "template" || (e.parts.length === 1 && e.parts[0].kind === "template_interp")) return;
            for (const p of e.parts) {
              if (p.kind !== "template_interp") continue;
              const kind = staticKind(p.expr, s, resolution.calleeOf);
              if (kind !== "list" && kind !== "map") continue;
              out.push(diagnostic(src, p.expr, kind, read.what, at(src.range.file, src.base + p.expr.start, src.base + p.expr.end)));
            }
          });
        }
      }
    }
    return out;
  },
};

function diagnostic(src: ExprSource, e: Expr, kind: "list" | "map", what: string, range: Diagnostic["range"]): Diagnostic {
  const text = src.text.slice(e.start, e.end);
  const noun = kind === "list" ? "a list" : "a map or object";
  return diag("invalid_type", range, `${what}: ${text} is ${noun}, which a string template cannot hold`, {
    hint: kind === "list" ? `write its items as text: join(" ", ${text}), or as JSON: jsonencode(${text})` : `read one field (${text}.<key>), or write it as JSON: jsonencode(${text})`,
  });
}

function visit(e: Expr, f: (e: Expr) => void): void {
  f(e);
  for (const c of childExprs(e)) visit(c, f);
}
