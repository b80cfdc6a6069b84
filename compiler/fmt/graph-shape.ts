import type { Graph } from "../build/graph.js";

/**
 * What `fmt --to v0.5` must keep of a compiled graph (docs/language.md, Upgrading to
 * v0.5: "The rewritten workflow compiles to the same graph"): the graph as plain JSON
 * without source positions (`at`, `range`, `places`: a rewrite moves text) and without `implicit`
 * (an adapter the rewrite declares was implicit before) and without a branch's `switch`
 * mark (a `branch` rewritten as a `switch`), where an agent that is only an
 * adapter session (`agent "n" { adapter = "t" }`, no flow) is that session
 * (`adapter "t" "n"`), and a step targeting it targets the session. Two graphs of the
 * same files before and after a correct rewrite have equal shapes (compare with
 * `JSON.stringify`); any other difference is a rewrite that changed what runs.
 *
 * @param graph a compiled root graph (its modules' graphs included)
 * @returns a JSON value; sessions sorted by id at every level
 */
export function graphShape(graph: Graph): unknown {
  const sessions = new Map<string, string>();
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== "object") return v;
    const o: Record<string, unknown> = { ...(v as Record<string, unknown>) };
    delete o.at;
    delete o.range;
    delete o.places;
    delete o.implicit;
    // A branch written as a switch is the same node (only messages name it differently).
    if (Array.isArray(o.arms)) delete o.switch;
    if (Array.isArray(o.agents) && Array.isArray(o.adapters)) {
      const agents: unknown[] = [];
      const adapters = [...(o.adapters as Record<string, unknown>[])];
      for (const a of o.agents as Record<string, unknown>[]) {
        if (typeof a.adapter !== "string" || a.flow !== undefined || a.cli !== undefined || a.model !== undefined) {
          agents.push(a);
          continue;
        }
        sessions.set(String(a.name), `${a.adapter}.${String(a.name)}`);
        const { adapter, name, ...rest } = a;
        adapters.push({ id: `${adapter}.${String(name)}`, type: adapter, name, ...rest });
      }
      o.agents = agents;
      o.adapters = adapters.sort((x, y) => String(x.id).localeCompare(String(y.id)));
    }
    const target = o.target as { kind?: string; name?: string } | undefined;
    if (target?.kind === "agent" && target.name !== undefined && sessions.has(target.name)) o.target = { kind: "adapter", id: sessions.get(target.name) };
    // A scope's agents come before its steps (and bodies): one walk converts both.
    for (const k of Object.keys(o)) o[k] = walk(o[k]);
    return o;
  };
  return walk(JSON.parse(JSON.stringify(graph)));
}
