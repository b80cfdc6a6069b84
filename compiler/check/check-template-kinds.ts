import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { ExprSource } from "../decode/spec.js";
import { childExprs, type Expr, type TemplateInterp, type TemplatePart } from "../expr/ast.js";
import { parseMemo } from "../expr/parse-memo.js";
import { exprRangeAt } from "../resolve/check-expression.js";
import { staticKind } from "./check-iteration-types.js";
import type { Check } from "./context.js";
import type { Scope } from "../resolve/scope.js";
import { nodeReads, sources, type Read } from "./node-reads.js";

/**
 * A string template (text around `${...}`, or two of them) interpolates a value known before
 * the run to be a list or a map: a variable declared `list(...)` or `object(...)`, a list
 * written in place, a module's output declared so ({@link staticKind}). The run fails there
 * ("cannot include a list value in a string template", as in Terraform), so validate says
 * it now, with the functions that make text of it (found by a new-user trial:
 * `"echo ${var.names}"` of a `list(string)` passed validate and failed the run). Steps',
 * waits', approvals' and switches' expressions, locals, outputs, and adapters', agents' and
 * environments' values; `${...}` inside `%{if}` and `%{for}` too. A template that is one
 * `${...}` alone is its value, unconverted, and is not flagged.
 */
export const checkTemplateKinds: Check = {
  name: "template-kinds",
  run({ resolution, rangeAt }) {
    const out: Diagnostic[] = [];
    for (const s of resolution.scopes) {
      for (const read of [...nodeReads(s), ...declarationReads(s)]) {
        for (const src of sources(read.src)) {
          const parsed = parseMemo(src.kind === "hcl" ? "expression" : "template", src.text);
          if (!parsed.expr || parsed.errors.length > 0) continue;
          const at = exprRangeAt(src, rangeAt);
          visit(parsed.expr, (e) => {
            if (e.kind !== "template" || (e.parts.length === 1 && e.parts[0].kind === "template_interp")) return;
            for (const p of interpolations(e.parts)) {
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

/** What a workflow's declarations evaluate: locals, outputs, adapters' and agents' config, environments. */
function declarationReads(s: Scope): Read[] {
  const w = s.workflow;
  const out: Read[] = [];
  const each = (m: Record<string, ExprSource>, what: string) => Object.entries(m).forEach(([k, src]) => out.push({ node: "", what: `${what} "${k}"`, src }));
  for (const l of w.locals) out.push({ node: "", what: `local "${l.name}"`, src: l.value });
  for (const o of w.outputs) if (o.value) out.push({ node: "", what: `output "${o.name}"`, src: o.value });
  for (const a of w.adapters) each(a.config, `adapter "${a.name}" config`);
  for (const a of w.agents) each(a.config, `agent "${a.name}" config`);
  for (const e of w.environments) {
    each(e.variables, `environment "${e.name}" variables`);
    each(e.config, `environment "${e.name}" config`);
  }
  return out;
}

/** A template's `${...}` parts, those inside its `%{if}` and `%{for}` directives too. */
function interpolations(parts: TemplatePart[]): TemplateInterp[] {
  return parts.flatMap((p) => (p.kind === "template_interp" ? [p] : p.kind === "template_if" ? [...interpolations(p.thenParts), ...interpolations(p.elseParts)] : p.kind === "template_for" ? interpolations(p.body) : []));
}

function visit(e: Expr, f: (e: Expr) => void): void {
  f(e);
  for (const c of childExprs(e)) visit(c, f);
}
