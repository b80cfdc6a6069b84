import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { iterates } from "../decode/spec.js";
import { parseMemo } from "../expr/parse-memo.js";
import { exprRangeAt, unguardedReads } from "../resolve/check-expression.js";
import type { Check } from "./context.js";
import { nodeReads, sources } from "./node-reads.js";

/**
 * A read of `steps.<call>.<key>`, outside a condition or a `try`/`can`, where the module the
 * step calls gives `<key>` only when it ends by some of its `return`s (the others' projections
 * leave it out: `ModuleInterface.returnSomeKeys`). The run fails at the read when the module
 * ended by another; a warning (`reads_step_not_run`), since the user may know which return is
 * taken (found by a new-user trial: a switch returning `{ ka }` on one arm and `{ kb }` on
 * the other validated a read of `ka`, and the run said "did you mean kb").
 */
export const checkReturnKeyReads: Check = {
  name: "return-key-reads",
  run({ resolution, rangeAt }) {
    const out: Diagnostic[] = [];
    for (const s of resolution.scopes) {
      for (const read of nodeReads(s)) {
        for (const src of sources(read.src)) {
          const parsed = parseMemo(src.kind === "hcl" ? "expression" : "template", src.text);
          if (!parsed.expr || parsed.errors.length > 0) continue;
          const at = exprRangeAt(src, rangeAt);
          for (const r of unguardedReads(parsed.expr)) {
            const key = r.raw.split(".")[2];
            const step = s.lookup("steps", r.step)?.decl;
            if (key === undefined || !step || iterates(step)) continue;
            const callee = resolution.calleeOf.get(step);
            if (!callee?.returnSomeKeys?.includes(key)) continue;
            out.push(
              diag("reads_step_not_run", at(src.range.file, src.base + r.start, src.base + r.end), `${read.what}: reads ${r.raw}, which ${callee.path} gives only when it ends by a return that sets "${key}" (another of its returns leaves it out)`, {
                hint: `guard the read: try(${r.raw}, "") is "" when it is not set, or set "${key}" in every return's output`,
              }),
            );
          }
        }
      }
    }
    return out;
  },
};
