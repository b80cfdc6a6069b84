import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { Check } from "./context.js";
import { stronglyConnected } from "./strongly-connected.js";

/**
 * Locals are values of the workflow, computed once (the upstream spec, "locals"; the Go
 * tool folds them at compile time): a local may not read `steps.*` (a step's output
 * does not exist yet when locals are computed, and would not change them after), and
 * locals may not refer to themselves or form a cycle (the whole cycle is shown).
 */
export const checkLocals: Check = {
  name: "locals",
  run({ resolution }) {
    const out: Diagnostic[] = [];
    for (const s of resolution.scopes) {
      const locals = s.workflow.locals;
      if (locals.length === 0) continue;
      const index = new Map(locals.map((l, i) => [l.name, i]));
      for (const l of locals) {
        const steps = s.localReads.get(l.name)?.steps;
        if (steps) {
          out.push(diag("local_reads_steps", steps.range, `local "${l.name}" reads ${steps.raw}: locals are computed once, before any step runs`, { hint: "read the step's output where it is used (an input, a condition), or project it in the step's outcome output" }));
        }
      }
      const adjacency = locals.map((l) => (s.localReads.get(l.name)?.locals ?? []).filter((n) => index.has(n)).map((n) => index.get(n)!));
      for (const comp of stronglyConnected(adjacency)) {
        const self = comp.length === 1 && adjacency[comp[0]].includes(comp[0]);
        if (comp.length < 2 && !self) continue;
        // Show the cycle in declaration order from its first local, following its reads.
        const members = new Set(comp);
        const start = Math.min(...comp);
        const path = [start];
        for (let at = start; ; ) {
          const next = adjacency[at].find((n) => members.has(n) && (n === start || !path.includes(n)));
          if (next === undefined || next === start) break;
          path.push(next);
          at = next;
        }
        const chain = [...path, start].map((i) => `local.${locals[i].name}`).join(" → ");
        const first = locals[start];
        out.push(
          diag("local_cycle", first.nameRange, self ? `local "${first.name}" refers to itself` : `locals refer to each other in a cycle: ${chain}`, {
            hint: "a local's value must be computable from variables and other locals that do not lead back to it",
            related: path.slice(1).map((i) => ({ message: `local "${locals[i].name}" is part of the cycle`, range: locals[i].nameRange })),
          }),
        );
      }
    }
    return out;
  },
};
