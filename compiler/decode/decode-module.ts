import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { Range } from "../diagnostics/range.js";
import type { Module, ModuleSet } from "../load/load-modules.js";
import { checkSchema } from "./check-schema.js";
import { decodeWorkflow } from "./decode-workflow.js";
import type { ModulePath, NearMiss, WorkflowSpec } from "./spec.js";

/**
 * Decodes one loaded module into a `WorkflowSpec` (docs/architecture.md, The compiler: Decode): its
 * shape is checked against the schema, then every path it names is tied to the module
 * the loader found there (`module` on subworkflow sources, agents' and the header's
 * `use`), and every `workflow_file` step gets the body file decoded as its `body`,
 * exactly like an inline `workflow {}` body (docs/language.md, Composition). A body file is decoded
 * afresh for each step that names it, since each sees its own enclosing workflow; so
 * that nested uses cannot grow without bound, a module expands to at most
 * {@link MAX_BODY_COPIES} body copies (`expansion_limit`).
 *
 * @param role `body` for a workflow_file body: it needs no header of its own
 * @param budget body copies left for the module being decoded (shared down the recursion)
 */
export function decodeModule(m: Module, set: ModuleSet, role: "workflow" | "body" = "workflow", budget = { copies: MAX_BODY_COPIES }): { spec: WorkflowSpec; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const doc = m.doc ?? {};
  const schema = checkSchema(doc, m.map, m.fileStart, role);
  diagnostics.push(...schema.diagnostics);
  const decoded = decodeWorkflow(doc, m.map, m.fileStart);
  if (schema.noWorkflowFields || m.noWorkflow) decoded.spec.noWorkflowFields = true;
  if (schema.misplaced.size > 0) decoded.spec.misplaced = schema.misplaced;
  if (schema.nearMisses.length > 0) decoded.spec.nearMisses = schema.nearMisses;
  if (m.doc === undefined) decoded.spec.unread = true;
  diagnostics.push(...decoded.diagnostics);
  const edges = new Map(m.edges.map((e) => [key(e.range), e]));
  const targets = new Map(m.edges.map((e) => [key(e.range), e.to]));
  const tie = (p: ModulePath) => {
    const e = edges.get(key(p.range));
    if (e?.to !== undefined) p.module = e.to;
    if (e?.cut !== undefined) p.cut = e.cut;
  };
  const visit = (w: WorkflowSpec) => {
    for (const u of w.header?.use ?? []) tie(u);
    for (const a of w.agents) if (a.use) tie(a.use);
    for (const s of w.subworkflows) tie(s.source);
    for (const st of w.steps) {
      const t = st.target;
      if (t?.kind === "file") {
        const to = targets.get(key(t.range));
        const body = to !== undefined ? set.modules.get(to) : undefined;
        if (body && budget.copies <= 0) {
          if (budget.copies === 0) {
            diagnostics.push(
              diag("expansion_limit", t.range, `workflow_file "${t.path}": bodies are copied once per use, and this workflow's nested uses would make more than ${MAX_BODY_COPIES} copies`, {
                hint: "call the shared steps as a subworkflow (compiled once) instead of including the same body file at many places",
              }),
            );
          }
          budget.copies--;
        } else if (body) {
          budget.copies--;
          t.module = body.id;
          const d = decodeModule(body, set, "body", budget);
          diagnostics.push(...d.diagnostics);
          st.body = d.spec;
          if (d.spec.nearMisses) decoded.spec.nearMisses = [...(decoded.spec.nearMisses ?? []), ...d.spec.nearMisses];
        }
      }
      if (st.body && t?.kind !== "file") visit(st.body);
    }
  };
  visit(decoded.spec);
  return { spec: decoded.spec, diagnostics };
}

/** How many workflow_file body copies one module may expand to (each use is a copy). */
export const MAX_BODY_COPIES = 1000;

/** The codes that say a field is missing (or what its absence means): not said beside a near miss of that field. */
const MISSING_CODES = new Set(["missing_field", "missing_initial_state", "dead_end", "wait_trigger", "missing_outcome"]);

/**
 * The diagnostics without those that say a field is missing in a block where an unknown
 * field is a near miss of it (`targt` beside "step "build" has no target"): the
 * unknown_field's did-you-mean is the one fix (found by a new-user trial: `targt`,
 * `inputs`, `terminl`, `duraton`, `nxt`, `intial_state`, an arm's `condition` each
 * gave a missing_field at the block, printed first, beside the unknown_field at the typo).
 * A "missing" diagnostic belongs to the block when it is at the block's key or inside it, and names the field.
 */
export function withoutMissingBesideNearMiss(diagnostics: Diagnostic[], nearMisses: readonly NearMiss[] | undefined): Diagnostic[] {
  if (!nearMisses || nearMisses.length === 0) return diagnostics;
  const covered = (d: Diagnostic) =>
    MISSING_CODES.has(d.code) &&
    nearMisses.some((n) => {
      if (n.block.file !== d.range.file) return false;
      const at = d.range.start.offset;
      const inBlock = at === n.blockKey.start.offset || (at >= n.block.start.offset && at <= n.block.end.offset);
      // `transition_to` is the older spelling of `next`, which the "needs next" error names.
      const field = n.field === "transition_to" ? "next" : n.field;
      return inBlock && new RegExp(`(^|[^\\w])${field.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}([^\\w]|$)`).test(`${d.message} ${d.hint ?? ""}`);
    });
  return diagnostics.filter((d) => !covered(d));
}

function key(r: Range): string {
  return `${r.file}\u0000${r.start.offset}`;
}
