import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { Range } from "../diagnostics/range.js";
import type { Check } from "./context.js";

/**
 * A `return` whose `output` projection leaves out declared outputs: in a workflow (a module,
 * or the root) the projection replaces its `output` blocks when it ends there (the Go tool's
 * v0.5.7 docs, Return semantics: "`outcome.output` always wins over top-level `output` block
 * declarations when `next = return` is used"), so a caller reading a left-out output finds
 * nothing, which validate could not tell it (its reads are checked against the declared
 * outputs). A warning at each such step outcome or switch arm, naming what it leaves out.
 * Not for an inline body (its `return` leaves the body; the step's outputs are not replaced)
 * nor for a projection written as one expression (its keys are known at run time only).
 */
export const checkReturnOutputs: Check = {
  name: "return-outputs",
  onlyWhenValid: false,
  run({ resolution }) {
    const out: Diagnostic[] = [];
    for (const s of resolution.scopes) {
      if (s.owner) continue;
      const w = s.workflow;
      if (w.outputs.length === 0) continue;
      const projections: { keys: string[]; at: Range; what: string }[] = [
        ...w.steps.flatMap((st) => st.outcomes.filter((o) => o.next?.name === "return" && !o.outputExpr && Object.keys(o.output).length > 0).map((o) => ({ keys: Object.keys(o.output), at: o.nameRange, what: `step "${st.name}" outcome "${o.name}"` }))),
        ...w.branches.flatMap((b) => [
          ...b.arms.filter((a) => a.next?.name === "return" && Object.keys(a.output).length > 0).map((a, i) => ({ keys: Object.keys(a.output), at: a.range, what: `${b.keyword} "${b.name}" ${b.keyword === "switch" ? "match" : "arm"} ${i + 1}` })),
          ...(b.default?.name === "return" && b.defaultOutput && Object.keys(b.defaultOutput).length > 0 ? [{ keys: Object.keys(b.defaultOutput), at: b.default.range, what: `${b.keyword} "${b.name}" default` }] : []),
        ]),
      ];
      for (const p of projections) {
        const missing = w.outputs.filter((o) => !p.keys.includes(o.name)).map((o) => o.name);
        if (missing.length === 0) continue;
        const names = missing.map((n) => `"${n}"`).join(", ");
        out.push(
          diag("return_replaces_outputs", p.at, `${p.what} returns with an output projection, which replaces the workflow's output blocks when it ends there: ${names} ${missing.length > 1 ? "are" : "is"} not in it, so ${missing.length > 1 ? "they are" : "it is"} missing from the workflow's outputs then (a caller reading ${missing.length > 1 ? "them" : "it"} finds nothing)`, {
            severity: "warning",
            hint: `add ${missing.map((n) => `${n} = …`).join(", ")} to the projection, or route to a terminal state, which ends with the output blocks`,
          }),
        );
      }
    }
    return out;
  },
};
