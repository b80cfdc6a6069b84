import type { Module, ModuleSet } from "./load-modules.js";

/**
 * The modules compiled on their own (docs/language.md, Composition): the entry and every module reached as a
 * subworkflow source or a flow (`use`), callees before their callers (post-order), so
 * each caller is checked against its callees' interfaces. Calls written in a
 * `workflow_file` body count as calls of the module the body belongs to. The loader has
 * already cut every cycle, so this terminates.
 */
export function callOrder(set: ModuleSet): Module[] {
  const out: Module[] = [];
  const seen = new Set<string>();
  /** The modules `m` calls, looking through the body files it includes. */
  const callees = (m: Module): Module[] => {
    const found: Module[] = [];
    const bodies = new Set<string>();
    const walk = (x: Module) => {
      for (const e of x.edges) {
        const to = e.to !== undefined ? set.modules.get(e.to) : undefined;
        if (!to) continue;
        if (e.kind === "workflow_file") {
          if (!bodies.has(to.id)) {
            bodies.add(to.id);
            walk(to);
          }
        } else found.push(to);
      }
    };
    walk(m);
    return found;
  };
  // Iterative post-order: a long chain of subworkflows must not overflow the stack.
  const stack: { m: Module; next: Module[]; i: number }[] = [{ m: set.entry, next: callees(set.entry), i: 0 }];
  seen.add(set.entry.id);
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    if (top.i < top.next.length) {
      const c = top.next[top.i++];
      if (seen.has(c.id)) continue;
      seen.add(c.id);
      stack.push({ m: c, next: callees(c), i: 0 });
      continue;
    }
    out.push(top.m);
    stack.pop();
  }
  return out;
}
