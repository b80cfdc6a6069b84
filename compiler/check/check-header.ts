import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { Check } from "./context.js";
import { endsThroughReturn } from "./context.js";

/** A declaration's name as the schema takes it (schema/workflow.schema.json's propertyNames). */
const VALID_NAME = /^[\p{ID_Start}_][\p{ID_Continue}-]*$/u;

/**
 * The root workflow has a header with a name, a start node and a way to end: a terminal
 * state, or an outcome that targets `return` (which ends the run successfully: docs/language.md,
 * Outcomes; docs/architecture.md, The compiler: Check). `target_state` must name a state; a
 * missing one is a warning, unless the workflow ends through `return` and declares no
 * successful terminal state (there is then no state to name).
 * A called module's `policy` is a warning (`module_policy_ignored`): the root's governs the tree.
 */
export const checkHeader: Check = {
  name: "header",
  run({ spec, resolution, fileStart, entry }) {
    const out: Diagnostic[] = [];
    // Limits are the run tree's, from its root workflow: a called module's go unused (found
    // by a new-user trial: a module's max_total_steps = 1 stopped it alone, never when called).
    if (!entry && spec.policy) {
      out.push(
        diag("module_policy_ignored", spec.policy.nameRange, `this module's policy has no effect when it is called: the root workflow's policy governs every run of the tree`, {
          hint: "set the limits in the calling workflow's policy block (max_total_steps counts the steps of every nested run), or remove this one",
        }),
      );
    }
    const h = spec.header;
    const root = resolution.root;
    const returns = endsThroughReturn(spec);
    const success = spec.states.find((s) => s.terminal && s.success);
    // A file of other values (a vars.json given as a workflow) has its own one error.
    if (!h && spec.noWorkflowFields) return out;
    if (!h) {
      out.push(diag("missing_field", fileStart, `no workflow header`, { hint: `start the file with workflow { name = "..." initial_state = "..." target_state = "..." }` }));
    } else {
      const w = h.name ? `workflow "${h.name}"` : "the workflow";
      // Said at the header's key, naming a first step that is a valid name (found by a new-user
      // trial: at the name's value, and `add initial_state: "123"` for a step named 123).
      const at = h.keyRange ?? h.nameRange;
      const first = spec.steps.find((st) => VALID_NAME.test(st.name));
      if (h.initialStateInvalid) {
        // initial_state: 123: its type error says it.
      } else if (!h.initialState && spec.steps.length === 0) {
        out.push(diag("missing_initial_state", at, `${w} has no initial_state and no steps`, { hint: 'add a step for the run to start at, or initial_state = "<a step or state>" in the header' }));
      } else if (!h.initialState) {
        out.push(diag("missing_initial_state", at, `${w} has no initial_state: it is required, the node a run starts at`, { hint: first ? `add initial_state = "${first.name}" (its first step) to the header` : `add initial_state = "<a step or state>" to the header` }));
      }
      if (!h.targetState) {
        if (success || !returns) out.push(diag("missing_target_state", h.nameRange, `${w} has no target_state`, { hint: "name the state a successful run ends in" }));
      } else if (root.nodes.has(h.targetState.name) && root.nodes.get(h.targetState.name) !== "state") {
        out.push(diag("invalid_value", h.targetState.range, `target_state "${h.targetState.name}" is a ${root.nodes.get(h.targetState.name)}, not a state`, { hint: "name a state block (state \"done\" { terminal = true }): the state a successful run ends in" }));
      }
    }
    for (const s of resolution.scopes) {
      // A body's policy, like a called module's, governs nothing (found by a new-user trial: its
      // max_depth was ignored silently).
      if (s.parent && s.workflow.policy) {
        out.push(
          diag("module_policy_ignored", s.workflow.policy.nameRange, `the policy of step "${s.owner?.name}"'s body has no effect: the root workflow's policy governs every run of the tree`, {
            hint: "set the limits in the root workflow's policy block (max_total_steps counts the steps of every nested run, max_depth their nesting), or remove this one",
          }),
        );
      }
      if (!s.parent || s.workflow.unread || s.workflow.header?.initialState || s.workflow.steps.length > 0) continue;
      // A body of waits and approvals only: name one it could start at (found by a new-user trial).
      const first = s.workflow.waits[0]?.name ?? s.workflow.approvals[0]?.name ?? s.workflow.branches[0]?.name;
      out.push(
        diag("missing_initial_state", s.owner?.nameRange ?? fileStart, `the workflow body of step "${s.owner?.name}" has no steps, so it has nowhere to start`, {
          hint: first !== undefined ? `a body starts at its first step; to start at "${first}", set initial_state = "${first}" in the body's workflow block` : "a body starts at its first step (or its own workflow { initial_state = ... })",
        }),
      );
    }
    // A state whose `terminal` is no bool may be the one meant to end runs: its own error says enough.
    // An outcome to `return` ends the run too (found by a new-user trial: a workflow that ends
    // only through return was refused, after unreachable_node had advised removing its state).
    if (!returns && !spec.states.some((s) => s.terminal || s.terminalInvalid)) {
      out.push(
        diag("no_terminal_state", h?.nameRange ?? fileStart, `workflow${h ? ` "${h.name}"` : ""} declares no terminal state: a run could never end`, {
          hint: `add state "done" { terminal = true } and route an outcome to it, or end the run with next = "return"`,
        }),
      );
    }
    return out;
  },
};
