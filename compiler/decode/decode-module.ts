import type { Diagnostic } from "../diagnostics/diagnostic.js";
import type { Range } from "../diagnostics/range.js";
import type { Module, ModuleSet } from "../load/load-modules.js";
import { checkSchema } from "./check-schema.js";
import { decodeWorkflow } from "./decode-workflow.js";
import type { ModulePath, WorkflowSpec } from "./spec.js";

/**
 * Decodes one loaded module into a `WorkflowSpec` (DESIGN.md, Pipeline step 3): its
 * shape is checked against the schema, then every path it names is tied to the module
 * the loader found there (`module` on subworkflow sources, agents' and the header's
 * `use`), and every `workflow_file` step gets the body file decoded as its `body`,
 * exactly like an inline `workflow {}` body (issue #6, item 2). A body file is decoded
 * afresh for each step that names it, since each sees its own enclosing workflow.
 *
 * @param role `body` for a workflow_file body: it needs no header of its own
 */
export function decodeModule(m: Module, set: ModuleSet, role: "workflow" | "body" = "workflow"): { spec: WorkflowSpec; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const doc = m.doc ?? {};
  diagnostics.push(...checkSchema(doc, m.map, m.fileStart, role));
  const decoded = decodeWorkflow(doc, m.map, m.fileStart);
  diagnostics.push(...decoded.diagnostics);
  const targets = new Map(m.edges.map((e) => [key(e.range), e.to]));
  const tie = (p: ModulePath) => {
    const to = targets.get(key(p.range));
    if (to !== undefined) p.module = to;
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
        if (body) {
          t.module = body.id;
          const d = decodeModule(body, set, "body");
          diagnostics.push(...d.diagnostics);
          st.body = d.spec;
        }
      }
      if (st.body && t?.kind !== "file") visit(st.body);
    }
  };
  visit(decoded.spec);
  return { spec: decoded.spec, diagnostics };
}

function key(r: Range): string {
  return `${r.file}\u0000${r.start.offset}`;
}
