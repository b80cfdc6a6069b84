/**
 * The closed set of diagnostic codes, with the default severity and a one-line
 * description of each (the table `criteria explain CODE` and the docs read from).
 *
 * Every code has a fixture under `testdata/invalid/` (a test fails when one is
 * missing), in the manner of TypeScript's diagnostic table and eemeli/yaml's error codes.
 */
export type Severity = "error" | "warning";

export const CODES = {
  // load
  file_not_found: { severity: "error", doc: "A path named on the command line or in a workflow does not exist." },
  file_unreadable: { severity: "error", doc: "A file exists but could not be read (permissions, a directory where a file was expected)." },
  file_too_large: { severity: "error", doc: "A workflow file is larger than the 4 MiB limit." },
  file_not_utf8: { severity: "error", doc: "A workflow file is not valid UTF-8 text." },
  file_binary: { severity: "error", doc: "A workflow file contains NUL bytes: it is binary, not text." },
  file_empty: { severity: "error", doc: "A workflow file is empty or holds only comments." },
  no_workflow_files: { severity: "error", doc: "A directory holds no *.hcl, *.yaml, *.yml or *.json workflow file." },
  path_outside_root: { severity: "error", doc: "A file (or a symlink in a workflow directory) points outside the workflow's directory." },
  unsupported_file_type: { severity: "error", doc: "A file's extension is not one of .hcl, .chcl, .yaml, .yml, .json." },
  // load: the module graph (workflow_file, subworkflow source, use)
  module_cycle: { severity: "error", doc: "A subworkflow source or workflow_file leads back to a module that (indirectly) names it: the whole chain is shown." },
  module_overlap: { severity: "error", doc: "A file of a directory module (all its files are merged into one workflow) is also named by workflow_file or use: move it into a subfolder." },
  expansion_limit: { severity: "error", doc: "workflow_file bodies are copied once per use; nested uses would copy them more than 1,000 times." },
  use_not_found: { severity: "error", doc: "A flow named by `use` (in the header or an agent) does not exist." },
  use_invalid: { severity: "error", doc: "A flow named by `use` does not compile or is not a workflow; its own first problem is shown under it." },
  use_cycle: { severity: "error", doc: "Flows used as agents use each other in a cycle: the whole chain is shown." },
  use_undeclared: { severity: "error", doc: "An agent is a flow (`use = \"...\"`) that the workflow header's `use` list does not declare." },
  // parse
  syntax_error: { severity: "error", doc: "The file is not valid HCL, YAML or JSON." },
  yaml_alias_limit: { severity: "error", doc: "A YAML document expands too many aliases (an alias bomb); it is refused, not expanded." },
  number_as_text: { severity: "warning", doc: "A YAML/JSON number written otherwise than it reads back (1.10 reads 1.1) where text is wanted: it is kept as written; quote it." },
  nesting_too_deep: { severity: "error", doc: "Values nest deeper than the limit (64 levels)." },
  // decode
  unknown_field: { severity: "error", doc: "An argument or block (a field, in YAML and JSON) that this position does not accept (fails closed, with a did-you-mean)." },
  missing_field: { severity: "error", doc: "A required argument is missing." },
  invalid_type: { severity: "error", doc: "A literal has the wrong type (a string where a number is expected, ...)." },
  invalid_value: { severity: "error", doc: "A value is of the right type but not allowed (an unknown enum member, a negative count, ...)." },
  duplicate_name: { severity: "error", doc: "Two declarations of the same kind share a name." },
  duplicate_block: { severity: "error", doc: "A block that may appear once (policy, workflow header, default) appears twice." },
  name_clash: { severity: "error", doc: "A step, state, wait, approval or branch shares its name with another node kind." },
  reserved_name: { severity: "error", doc: "A declaration uses a reserved name (`_continue`, `return`, names starting with `__`)." },
  invalid_name: { severity: "error", doc: "A name is not an identifier (Unicode letters, digits, `_` and `-`, starting with a letter or `_`)." },
  conflicting_fields: { severity: "error", doc: "Two arguments that exclude each other are both set (e.g. `target` and `adapter`)." },
  // resolve
  expression_syntax: { severity: "error", doc: "An expression or template does not parse." },
  unknown_reference: { severity: "error", doc: "An expression refers to a name that does not exist (`var.x`, `local.x`, `steps.s`, ...)." },
  unknown_target: { severity: "error", doc: "A step targets an adapter, agent, subworkflow or channel that is not declared in scope." },
  unknown_node: { severity: "error", doc: "An outcome, branch arm or header names a node that does not exist." },
  unknown_function: { severity: "error", doc: "An expression calls a function that is not in the stdlib." },
  each_outside_iteration: { severity: "error", doc: "`each.*` is used outside an iterating step (count, for_each, parallel) or its body." },
  noop_output_missing: { severity: "warning", doc: "An expression reads `steps.<name>.<key>` of a `noop` step whose input, which it echoes as its output, has no such key: the run fails at the read unless the step is given that input or another target." },
  reads_step_not_run: { severity: "warning", doc: "An expression reads `steps.<name>` where the run can get without that step having run (a path that skips it, the first round of a loop), or a key the module the step calls gives only by some of its `return`s, outside a condition or a `try`/`can`: the run fails there." },
  reads_own_output: { severity: "warning", doc: "A step's input reads the step's own output (`steps.<itself>`), which is not there on its first visit, outside a condition that could skip it or a `try`/`can`." },
  // check
  missing_initial_state: { severity: "error", doc: "The workflow header has no `initial_state` (it is required: the node a run starts at), or an inline body has no step to start from." },
  missing_target_state: { severity: "warning", doc: "The workflow header has no `target_state` (not warned when runs end by `return` and no successful terminal state is declared)." },
  no_terminal_state: { severity: "error", doc: "No terminal state is declared and no outcome targets `return`: a run could never end." },
  unreachable_step: { severity: "error", doc: "A step can never run: no path leads to it from the initial node." },
  unreachable_node: { severity: "warning", doc: "A state, wait, approval or branch can never be reached." },
  missing_outcome: { severity: "error", doc: "A required outcome is missing (`all_succeeded` on an iterating step, any outcome on a step, an outcome a built-in adapter ends in, such as a shell step's `success`, when a declared one is a typo of it)." },
  loop_exit_on_success: { severity: "warning", doc: "An iterating step (not `while`) routes `all_succeeded`, yet its item outcome `success` leaves the loop (any target but `_continue`) and `failure` does not go on to the next item: the first item that succeeds ends it, and the items after it never run." },
  undeclared_outcome: { severity: "error", doc: "A reference to an outcome the step does not declare (`default_outcome`, aggregate outcomes on a non-iterating step)." },
  channel_input: { severity: "error", doc: "A step that targets a channel needs input `post = { from, to, body }` or `recv = { as, from, timeout }`: exactly one, with those fields." },
  channel_not_participant: { severity: "error", doc: "A channel step's `from`, `to` or `as` is not one of the channel's participants." },
  channel_recv_unbounded: { severity: "error", doc: "A channel `recv` has no `timeout`: a message that never comes would hold the run for ever." },
  channel_participants: { severity: "warning", doc: "A channel's participants list is empty (nobody can post or receive on it) or names an agent twice." },
  channel_participant_not_spawned: { severity: "error", doc: "A channel participant is an agent that no step of the workflow runs (referenced but never spawned)." },
  continue_outside_iteration: { severity: "error", doc: "`_continue` is used outside the body of an iterating step." },
  return_replaces_outputs: { severity: "warning", doc: "A `return` with an `output` projection (a step outcome's or a switch arm's) in a workflow that declares outputs leaves some of them out: the projection replaces the output blocks when the workflow ends there (upstream: `outcome.output` wins over `output` blocks on `return`), so those outputs are missing then (run alone, as a subworkflow or as a flow; a `workflow_file` body ends with its output blocks)." },
  no_exit: { severity: "error", doc: "Nodes a run can reach never lead to a state, `_continue` or `return`: a run that gets there cannot end." },
  exit_code_as_text: { severity: "warning", doc: "A shell step's `exit_code` (a number) is compared with `==` or `!=` to quoted text, as the Go tool's string outputs were: it is never equal." },
  unbounded_loop: { severity: "warning", doc: "A cycle of steps has no `max_visits` on any step in it, and only a `policy.max_total_steps` above `max_visits_warn_threshold` (default 200; 0 turns the warning off) stops it." },
  wait_trigger: { severity: "error", doc: "A wait sets neither `duration` nor `signal`: it needs one." },
  wait_duration_and_signal: { severity: "warning", doc: "A wait sets both `duration` and `signal`: the duration bounds the signal wait (write `timeout`; the Go tool refuses both)." },
  wait_outcome: { severity: "error", doc: "A wait has no outcome and no `next`: a run could not leave it." },
  approval_outcomes: { severity: "error", doc: "An approval does not route both decisions: it needs `approved` and `rejected` outcomes; or it has an outcome no decision takes (an approval takes `approved`, `rejected` and `timeout`)." },
  approval_timeout_unrouted: { severity: "warning", doc: "An approval has a timeout and no `timeout` outcome: a run that gets no decision in time fails there." },
  switch_without_default: { severity: "warning", doc: "A switch has no default and no condition that always holds: a run where none holds fails there." },
  node_outcome_effects: { severity: "error", doc: "A wait's or approval's outcome sets `output`, `write` or `shared_writes`: only step outcomes produce values." },
  on_failure_not_iterating: { severity: "error", doc: "`on_failure` is set on a step that does not iterate (count, for_each, parallel, while)." },
  lifecycle_input: { severity: "error", doc: "A `lifecycle = \"close\"` step has input: closing a session runs nothing." },
  lifecycle_allow_tools: { severity: "error", doc: "A lifecycle (open/close) step sets `allow_tools`: it runs no agent turn." },
  shared_writes_aggregate: { severity: "error", doc: "`shared_writes` on an aggregate outcome read the step's output (a list of items) without an `output` projection." },
  local_cycle: { severity: "error", doc: "Locals refer to themselves or to each other in a cycle (the cycle is shown)." },
  local_reads_steps: { severity: "error", doc: "A local reads `steps.*`: locals are computed once, before any step runs." },
  unknown_environment_type: { severity: "error", doc: "An `environment` block's type is not shell, sandbox, container or remote." },
  condition_is_string: { severity: "error", doc: "A `when`/`condition`/`while` is a string template (text outside `${}`): it would be a string, never true or false." },
  secret_exposed: { severity: "error", doc: "A secret variable is read where its value would be recorded, shown or passed in plain (input, config, a template, a non-secret output)." },
  secret_default: { severity: "warning", doc: "A secret variable has a default: the value is written in the workflow's source (and journaled with the compiled workflow)." },
  write_reads_write: { severity: "warning", doc: "A `write` value reads a data value another write of the same outcome sets: it sees the step-entry value, not the other write's (a write reading its own target, `x = x - 1`, is a plain update)." },
  module_policy_ignored: { severity: "warning", doc: "A called module (subworkflow source, flow) or a body declares a `policy`: limits are the run tree's, from the root workflow's policy, so theirs has no effect." },
  unread_input: { severity: "warning", doc: "A step calling a flow passes an input key the flow neither reads (`input.<key>`) nor declares as a variable (a flow reading its input whole takes any key)." },
  unused_declaration: { severity: "warning", doc: "An adapter, agent, local or subworkflow is declared but never used (a variable is an input: never reported)." },
  max_depth_exceeded: { severity: "error", doc: "Runs would nest deeper than `policy { max_depth }` (default 16): bodies, subworkflows and flows used as agents, with the chain." },
  adapter_source_unsupported: { severity: "warning", doc: "An adapter declares `source` (an OCI location, how the Go tool distributed adapters): criteria does not fetch, verify or sandbox them, and `apply` refuses the run; install `criteria-adapter-<type>` instead (or use the built-in type) and remove `source` and `version`." },
  environment_path_replaced: { severity: "warning", doc: "An environment sets `PATH` to a literal without `/usr/bin` or `/bin`: it replaces the PATH its steps find their programs in (the Go tool kept its own and warned), so `sh`, `git` and the like are not found." },
  iteration_over_budget: { severity: "error", doc: "A `count` (or a `for_each`/`parallel` number) written as a literal is more than the root's `policy { max_total_steps }` (default 100): the run would stop at that step, refused before any item runs." },
  step_budget_too_small: { severity: "warning", doc: "The deepest chain of nested runs needs more step visits (one per level, one at the bottom) than the root's `policy { max_total_steps }`, which counts the steps of every run in the tree." },
  dead_end: { severity: "error", doc: "A non-terminal state has no way out (a step with no outcomes, a state that is not terminal)." },
  // internal
  internal_error: { severity: "error", doc: "A bug in criteria itself; please report it with the input." },
} as const satisfies Record<string, { severity: Severity; doc: string }>;

/** A diagnostic code: a member of the closed table above. */
export type Code = keyof typeof CODES;

/** All codes, in table order. */
export const ALL_CODES = Object.keys(CODES) as Code[];
