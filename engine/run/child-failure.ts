/** How a step names one of its child runs in a failure: `nested run ID`, `subworkflow "m" (run ID)` or `flow "f" (run ID)`. */
const LABEL = /^(?:nested run \S+|(?:subworkflow|flow) "[^"]*" \(run \S+\)) failed: /;

/** What each level adds when its step has no route for the failure (runner.ts `route`): its own step's completion says it. */
const ROUTE_NOTE = /; step "[^"]*" has no "[^"]*" outcome to route it(?: \(declared: [^)]*\))?/g;

/**
 * The failure detail of a step whose child run failed: the child's label, then what failed
 * at the bottom of the chain, once — `subworkflow "l1" (run R/s#1) failed: subworkflow "l9"
 * (run R/s#1/…/s#1) failed: exit status 1` — never the levels between (the deepest run's id
 * names them), nor what each level below said of its own routing. Repeating each level's
 * whole detail made a 300-deep chain's journal 4 MB with 32 KB lines (found by a new-user
 * trial).
 * @param label the child as the step names it (see LABEL)
 * @param child the child run's end: its reason, and its detail when it has one
 * @returns the detail, one or two labels long whatever the depth
 */
export function childFailureDetail(label: string, child: { reason: string; detail?: string }): string {
  const below = child.detail ?? child.reason;
  // A policy stop is passed up as itself (runner.ts), its detail a chain as a failure's is.
  if (child.reason !== "child_failed" && child.reason !== "policy_exceeded") return `${label} failed: ${below}`;
  // `below` is the child's own detail: its child's label, then either that run's own reason
  // or (a deeper chain) the deepest run's label and reason, which is all that is kept.
  const first = LABEL.exec(below);
  const rest = first ? below.slice(first[0].length) : below;
  return `${label} failed: ${(first && LABEL.test(rest) ? rest : below).replace(ROUTE_NOTE, "")}`;
}
