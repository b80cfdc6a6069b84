import type { Range } from "../diagnostics/range.js";
import type { JsonObject, JsonValue } from "../parse/document.js";
import { childPointer, type SourceMap } from "../parse/source-map.js";

/** How one module names another (docs/architecture.md, The compiler: Load). */
export type EdgeKind = "workflow_file" | "subworkflow" | "use";

/** A path one module names: `workflow_file = "..."`, `subworkflow { source }`, `use`. */
export interface ModuleEdge {
  kind: EdgeKind;
  /** The path as written (relative to the directory of the file it is written in). */
  path: string;
  /** Where the path is written. */
  range: Range;
  /** The module it leads to (its id), once loaded; absent when it could not be, or when it closes a cycle. */
  to?: string;
  /** The module it would lead to, when it was refused for closing a cycle. */
  cut?: string;
}

const isObj = (v: JsonValue | undefined): v is JsonObject => v !== null && typeof v === "object" && !Array.isArray(v);

/** `"./x"`, or `${"./x"}` as hcl2json renders a quoted string in a bare expression. */
function pathText(v: JsonValue | undefined): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

/**
 * Every edge a canonical document names, in source order: the header's `use` list,
 * agents' `use`, subworkflows' `source` and steps' `workflow_file`, in the workflow and
 * in its inline bodies, however deep. Values of the wrong type are skipped (the schema
 * reports them).
 */
export function moduleEdges(doc: JsonObject, map: SourceMap, fallback: Range): ModuleEdge[] {
  const out: ModuleEdge[] = [];
  const at = (ptr: string) => map.get(ptr)?.range ?? fallback;
  const add = (kind: EdgeKind, v: JsonValue | undefined, ptr: string) => {
    const path = pathText(v);
    if (path !== undefined) out.push({ kind, path, range: at(ptr) });
  };
  const walk = (w: JsonObject, ptr: string) => {
    const header = w.workflow;
    if (isObj(header) && Array.isArray(header.use)) {
      header.use.forEach((u, i) => add("use", u, childPointer(childPointer(childPointer(ptr, "workflow"), "use"), i)));
    }
    if (isObj(w.agents)) {
      for (const [name, a] of Object.entries(w.agents)) if (isObj(a)) add("use", a.use, childPointer(childPointer(childPointer(ptr, "agents"), name), "use"));
    }
    if (isObj(w.subworkflows)) {
      for (const [name, s] of Object.entries(w.subworkflows)) if (isObj(s)) add("subworkflow", s.source, childPointer(childPointer(childPointer(ptr, "subworkflows"), name), "source"));
    }
    if (isObj(w.steps)) {
      for (const [name, s] of Object.entries(w.steps)) {
        if (!isObj(s)) continue;
        const sp = childPointer(childPointer(ptr, "steps"), name);
        add("workflow_file", s.workflow_file, childPointer(sp, "workflow_file"));
        if (isObj(s.workflow)) walk(s.workflow, childPointer(sp, "workflow"));
      }
    }
  };
  walk(doc, "");
  return out.sort((a, b) => (a.range.file === b.range.file ? a.range.start.offset - b.range.start.offset : a.range.file < b.range.file ? -1 : 1));
}
