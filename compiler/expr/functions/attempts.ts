/**
 * The functions that catch evaluation errors: Terraform's `try(expr, fallback...)` and
 * `can(expr)` (HCL's ext/tryfunc). Both evaluate their arguments lazily (value.ts,
 * `FunctionDef.lazy`): `try` evaluates them in order and returns the first that evaluates
 * without an error (the later ones are not evaluated); `can` is true when its argument
 * evaluates without an error. What they catch is only what fails while the run evaluates
 * (a step that has not run, a missing key or index, a failed conversion or function call):
 * an unknown name or function, or a wrong number of arguments, is still refused by
 * validate, as Terraform refuses them in static references.
 *
 * Errors: `try` of which no argument evaluates throws `FunctionError` listing each
 * argument's first error.
 */
import { fn } from "./args.js";
import { FunctionError, type FunctionTable } from "../value.js";

/** `try` and `can`. */
export function attemptFunctions(): FunctionTable {
  return {
    try: {
      // The eager form (an evaluator without lazy calls): every argument already evaluated.
      ...fn("expressions...", "The first argument that evaluates without an error (a step that has not run, a missing key, a failed conversion); later arguments are not evaluated.", 1, Infinity, (a) => a[0]),
      lazy: (args) => {
        const failures: string[] = [];
        for (const [i, attempt] of args.entries()) {
          const r = attempt();
          if (r.ok) return r.value;
          failures.push(`argument ${i + 1}: ${(r.errors[0] ?? "failed").replace(/\.$/, "")}`);
        }
        throw new FunctionError(`no argument evaluated without an error (${failures.join("; ")})`);
      },
    },
    can: {
      ...fn("expression", "True when the argument evaluates without an error, false when it fails (e.g. can(steps.review.stdout): the step has run).", 1, 1, () => true),
      lazy: ([attempt]) => attempt?.().ok ?? false,
    },
  };
}
