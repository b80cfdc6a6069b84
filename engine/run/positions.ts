import { isAbsolute, relative, resolve } from "node:path";

/**
 * Positions of a compiled graph made relative to another directory. A graph's positions
 * (`at`: `file:line:col` of a declaration or an expression, for run-time messages) name the
 * file as compile showed it: relative to the directory the run was applied from. A run
 * resumed from another directory would print paths that do not resolve there (found by a
 * new-user trial), so resume makes them relative to its own directory.
 * @param graph a compiled graph (plain data, as journaled in `run.spawned`); not changed
 * @param from the directory its positions are relative to (absolute)
 * @param to the directory they are to be relative to (absolute)
 * @returns `graph` itself when the two are one directory, else a copy with every `at` that
 * is a relative `file:line:col` rewritten (an absolute file stays as it is)
 */
export function positionsRelativeTo<T>(graph: T, from: string, to: string): T {
  if (resolve(from) === resolve(to)) return graph;
  const moved = new Map<string, string>();
  const file = (f: string) => {
    let m = moved.get(f);
    if (m === undefined) moved.set(f, (m = relative(to, resolve(from, f)) || f));
    return m;
  };
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== "object") return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const at = k === "at" && typeof x === "string" ? /^(.+):(\d+):(\d+)$/.exec(x) : null;
      out[k] = at && !isAbsolute(at[1]) ? `${file(at[1])}:${at[2]}:${at[3]}` : walk(x);
    }
    return out;
  };
  return walk(graph) as T;
}
