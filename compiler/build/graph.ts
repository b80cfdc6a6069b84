import type { JsonValue } from "../parse/document.js";

/**
 * The compiled workflow: plain, JSON-serialisable data, the only thing that crosses
 * from `compiler/` into `engine/` (docs/architecture.md; XState's "the machine
 * is plain data"). The engine never reads source files; expressions travel as source
 * text and are parsed again with `compiler/expr`.
 */
export interface Graph {
  schema_version: 1;
  name: string;
  version?: string;
  /** The node a run starts at. */
  initial_state: string;
  target_state?: string;
  identity?: string;
  policy: GraphPolicy;
  variables: GraphVariable[];
  locals: { name: string; value: GraphExpr }[];
  shared_variables: { name: string; type?: string; value?: GraphExpr }[];
  /**
   * `data "kind" "name"` values (`name` is `kind.name`): run-time mutable, read as
   * `data.<kind>.<name>.value`, written by outcomes' `write` blocks. Each isolated run
   * (the root, a subworkflow, a flow) has its own store; an inline body shares its caller's.
   */
  data?: { name: string; type?: string; value?: GraphExpr }[];
  /** Sessions of this scope. An `inherited` entry aliases the parent's live session. */
  adapters: GraphAdapter[];
  agents: GraphAgent[];
  channels: { name: string; participants: string[] }[];
  steps: GraphStep[];
  /** `requires` names a prerequisite state: carried for tools, not enforced (as in the Go tool). */
  states: { name: string; terminal: boolean; success: boolean; requires?: string }[];
  waits: { name: string; duration_ms?: number; signal?: string; next?: string; outcomes: GraphOutcome[] }[];
  /** Approval nodes; `timeout_ms` bounds the wait for a decision (then the outcome `timeout`). */
  approvals: { name: string; approvers: string[]; reason?: GraphExpr; timeout_ms?: number; outcomes: GraphOutcome[] }[];
  /**
   * Branch and switch nodes: the first arm whose `when` holds is taken, else `default`.
   * An arm's (or the default's) `output` becomes `steps.<node>.*` before its target is entered.
   */
  branches: { name: string; switch?: true; arms: { when: GraphExpr; next: string; output?: Record<string, GraphExpr> }[]; default?: string; default_output?: Record<string, GraphExpr> }[];
  /** Declared outputs; `secret` ones are redacted wherever a run's outputs are shown. */
  outputs: { name: string; type?: string; description?: string; value?: GraphExpr; secret?: boolean }[];
  /** Step names in declaration order. */
  step_order: string[];
  /** Adapter types the run needs (built in or `criteria-adapter-<type>` on PATH), its modules' included. */
  plugins_required: string[];
  /** The `input.<key>` names the workflow reads: a run of it needs them (`apply --input`, a flow agent's step input). */
  input_keys?: string[];
  /** True when the workflow reads its input whole or by a computed key (`lookup(input, k)`): any key may be read. */
  input_any?: boolean;
  /** The flow's `memory { script, agent }` (docs/language.md, Composition): recalled before its first step. */
  memory?: { script: boolean; agent?: string };
  /** For a module's graph: its directory relative to the root's (what its relative paths resolve against). */
  dir?: string;
  /** Its `subworkflow` declarations: the module each calls and what it passes in. */
  subworkflows?: GraphSubworkflow[];
  /**
   * Only on the root graph: the graph of every module called as a subworkflow or used as
   * a flow, once each (not copied per call site), keyed by path relative to the root's
   * directory (`subworkflows/inner`). Module graphs hold no `modules` of their own.
   */
  modules?: Record<string, Graph>;
}

/**
 * A `subworkflow` declaration: calling it runs module `module` as an isolated child run
 * whose variables `input` binds, and whose `expects` the parent's adapters and agents
 * fill (same ids in both: the child's entries are aliases of the parent's live sessions).
 */
export interface GraphSubworkflow {
  name: string;
  /** Key in the root graph's `modules`. */
  module: string;
  input: Record<string, GraphExpr>;
  /** Adapter ids (`copilot.reviewer`) passed to the child. */
  adapters: string[];
  /** Agent names passed to the child. */
  agents: string[];
}

/** Policy with defaults filled in (the Go tool's defaults). */
export interface GraphPolicy {
  max_total_steps: number;
  max_step_retries: number;
  max_visits_warn_threshold: number;
  /** How deep runs may nest (bodies, subworkflows, flows); optional in graphs journaled before it existed. */
  max_depth?: number;
}

/**
 * An expression as source text; `kind` says how to parse it. `literal` carries the value;
 * `composite` is a list or map (YAML/JSON) whose strings may be templates, evaluated leaf by leaf.
 */
export interface GraphExpr {
  kind: "hcl" | "template" | "composite" | "literal";
  text: string;
  value: JsonValue;
  /** `file:line:col` of the expression, for run-time error messages. */
  at: string;
  /**
   * True when `text` stands in the file as written, starting at `at` (HCL; a plain YAML
   * scalar) or at `textAt` (a quoted YAML/JSON string without escapes or folding), or
   * in pieces (`places`): an offset in `text` is then a place in the file, and a
   * run-time error points at the failing part (engine/run/evaluate.ts), not at `at`.
   */
  exact?: true;
  /** `file:line:col` where an exact `text` starts when that is not `at`: after a quoted string's opening quote. */
  textAt?: string;
  /**
   * For an exact `text` that is not written as it reads (a YAML/JSON string with escapes,
   * `''`, folding, a block scalar): where each run of it written as it reads starts, as
   * `[index in text, line, column]` (each run on one line; columns in grapheme clusters).
   * An offset in `text` is placed from the last run starting at or before it.
   */
  places?: Array<[number, number, number]>;
}

export interface GraphVariable {
  name: string;
  type?: string;
  description?: string;
  default?: GraphExpr;
  required: boolean;
  /** `secret = true` / `sensitive = true`: never journaled or shown; a resume reads it again from `CRITERIA_VAR_<name>`. */
  secret?: boolean;
}

export interface GraphAdapter {
  /** `<type>.<name>`. */
  id: string;
  type: string;
  name: string;
  on_crash?: string;
  config: Record<string, GraphExpr>;
  /** True when this scope uses the enclosing scope's session (an alias, not a copy). */
  inherited: boolean;
  /** Declared implicitly by an older `adapter = "<type>"` step field. */
  implicit: boolean;
  /** `file:line:col` of the declaration (for run-time refusals). */
  at?: string;
  /** An OCI `source` (the Go tool's adapter distribution): `apply` refuses it before the first step. */
  source?: string;
  version?: string;
  /** Secret settings, evaluated at session start and passed with the config; their values are redacted everywhere. */
  secrets?: Record<string, GraphExpr>;
}

export interface GraphAgent {
  name: string;
  adapter?: string;
  cli?: string;
  model?: string;
  on_crash?: string;
  config: Record<string, GraphExpr>;
  /** True when the agent is the caller's (a body's enclosing workflow, or a module's `expects`). */
  inherited: boolean;
  /** An agent that is a flow (docs/language.md, Composition): calling it runs module `module` as a child run. */
  flow?: { module: string; adapters: string[]; agents: string[] };
}

export interface GraphOutcome {
  name: string;
  /** A node of the same graph, or `_continue` / `return`. */
  next: string;
  output: Record<string, GraphExpr>;
  /** `output = <expression>` (an object at run time) instead of a map of expressions. */
  output_expr?: GraphExpr;
  shared_writes: Record<string, GraphExpr>;
  /** `write` blocks: data values (`kind.name`) set atomically from the step-entry snapshot. */
  writes?: { target: string; value: GraphExpr }[];
}

/** What a step runs: an adapter session (`adapter.T.N`), an agent, or its inline body. */
export type GraphTarget =
  | { kind: "adapter"; id: string }
  | { kind: "agent"; name: string }
  | { kind: "body" }
  | { kind: "subworkflow"; name: string }
  | { kind: "channel"; name: string }
  | { kind: "none" };

export interface GraphStep {
  name: string;
  /**
   * Where the step is declared (`file:line:col` of its name, the file as compile showed it),
   * for what is said of its runs (a failing adapter's event); absent from graphs journaled
   * before it was added.
   */
  at?: string;
  target: GraphTarget;
  /** The adapter type the step runs on (for agents: the agent's adapter/cli). */
  adapter_type?: string;
  description?: string;
  input: Record<string, GraphExpr>;
  input_expr?: GraphExpr;
  timeout_ms?: number;
  max_visits?: number;
  /** `max_visits` written as an expression of `var.*` / `local.*`, evaluated when the run starts the step. */
  max_visits_expr?: GraphExpr;
  /**
   * How the step iterates. `while` re-evaluates `expr` (a bool) before each iteration;
   * `parallel_max_expr` is `parallel_max` written as an expression of `var.*` / `local.*`.
   */
  iteration?: { kind: "count" | "for_each" | "parallel" | "while"; expr: GraphExpr; parallel_max?: number; parallel_max_expr?: GraphExpr };
  /** `secret_input { }`: input values passed to the step but redacted from every record of the run. */
  secret_input?: Record<string, GraphExpr>;
  on_failure: "continue" | "abort" | "ignore";
  default_outcome?: string;
  lifecycle?: "open" | "close";
  on_crash?: string;
  /** Tools an agent may use: the step's `allow_tools`, else the nearest `permissions.allow_tools`. */
  allow_tools: string[];
  /** The environment the step runs in: its own `environment`, else the workflow header's. */
  environment?: { id: string; variables: Record<string, GraphExpr>; config: Record<string, GraphExpr>; at?: string };
  outcomes: GraphOutcome[];
  /** The inline body's graph (a child run). Its `initial_state` is its first step unless set. */
  body?: Graph;
}

/** Policy defaults: the Go tool's (100 total steps, 0 retries, warn at 200 visits; its v0.5.7 plan goldens); nesting depth 16. */
export const DEFAULT_POLICY: GraphPolicy = { max_total_steps: 100, max_step_retries: 0, max_visits_warn_threshold: 200, max_depth: 16 };
