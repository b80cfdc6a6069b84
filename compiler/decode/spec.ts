import type { Range } from "../diagnostics/range.js";
import type { JsonValue } from "../parse/document.js";
import type { ValueChars } from "../parse/source-map.js";

/**
 * The typed workflow tree both dialects decode to (docs/architecture.md, The compiler: Decode).
 * Every node keeps its declaration range and, where it has a name, the name's range
 * (HCL/Terraform: "every decoded struct keeps its declaration range").
 */

/** An expression as written: HCL native syntax, or a YAML/JSON string template. */
export interface ExprSource {
  /**
   * `hcl`: HCL native expression text; `template`: a string that may hold `${...}`;
   * `composite`: a YAML/JSON list or map with templates inside (`value` holds them,
   * `nested` their sources); `literal`: a plain value.
   */
  kind: "hcl" | "template" | "composite" | "literal";
  /** The source text (hcl/template) */
  text: string;
  /** The literal value (kind `literal`), or hcl2json's rendering of the expression. */
  value: JsonValue;
  /** Range of the expression text in its file. */
  range: Range;
  /** Offset at which `text` starts in the file (for exact sub-expression positions). */
  base: number;
  /** The key's range when the expression is a map entry (`input { key = ... }`). */
  keyRange?: Range;
  /**
   * False when offsets inside `text` cannot be placed in the file: problems inside it are
   * then reported at the whole expression. True for text as written from `base` on, and
   * for a YAML/JSON string whose characters are placed one by one (`chars`).
   */
  exact: boolean;
  /**
   * For a YAML/JSON string template not written character for character (escapes, `''`,
   * a value over lines, a literal or folded block): where each character of `text` is
   * written (offset `base + i` of the text is its character `i`; `exprRangeAt`,
   * compiler/resolve/check-expression.ts, maps through it).
   */
  chars?: ValueChars;
  /** For `composite`: every template inside `value`, with its own position. */
  nested?: ExprSource[];
  /**
   * For a YAML/JSON map (`literal` or `composite`): where each of its own keys and values
   * is written, so a problem with one field points at it, not at the whole map.
   */
  members?: Record<string, { range: Range; keyRange?: Range }>;
}

/** A path to another module as written, and the module it leads to once loaded (its id). */
export interface ModulePath {
  path: string;
  range: Range;
  /** The module's id (absolute real path), set after loading; absent when it could not be loaded. */
  module?: string;
  /** The module it would lead to when the loader refused it for closing a cycle. */
  cut?: string;
}

/** A name with where it is written. */
export interface Named {
  name: string;
  /** The whole declaration. */
  range: Range;
  /** The name (label or key). */
  nameRange: Range;
}

/** A reference to a graph node by name (`next = "review"`, `next = state.done`). */
export interface NodeRef {
  name: string;
  range: Range;
  /** The kind a traversal names (`state.done` → `state`); absent for a plain name. */
  kind?: "step" | "state" | "wait" | "approval" | "branch";
}

/** `workflow "name" { ... }` header. */
export interface HeaderSpec {
  name: string;
  nameRange: Range;
  range: Range;
  /** The header's own key (`workflow:`, HCL's `workflow` block): where what the header lacks is said. */
  keyRange?: Range;
  version?: string;
  initialState?: NodeRef;
  /** `initial_state` is written, but not as a name (`initial_state: 123`): its type error stands, it is not also missing. */
  initialStateInvalid?: true;
  targetState?: NodeRef;
  identity?: string;
  memory?: { script?: boolean; agent?: string; range: Range };
  /** Flows this workflow composes as agents (docs/language.md, Composition): each visible as `agent.<its name>`. */
  use: ModulePath[];
  /** What a subworkflow or flow receives from its caller (its adapters and agents are `expected`). */
  expects?: { range: Range };
  /** The Go tool's `verification` (OCI signature posture): accepted, nothing to verify here. */
  verification?: string;
  /** `environment = "shell.ci"` (or `environment.shell.ci`): the default environment of steps. */
  environment?: { name: string; range: Range };
}

export interface VariableSpec extends Named {
  type?: string;
  typeRange?: Range;
  default?: ExprSource;
  description?: string;
  /** `secret = true` (or `sensitive = true`): the value never appears in events, the journal or outputs. */
  secret?: boolean;
}

/** `data "internal" "n" { type, value }`: a run-time mutable value, read as `data.internal.n.value`. Key `kind.name`. */
export interface DataSpec extends Named {
  kind: string;
  type?: string;
  typeRange?: Range;
  value?: ExprSource;
}

/** `write { target = data.<kind>.<name>.value, value = ... }` in an outcome. */
export interface WriteSpec {
  /** `kind.name` of the data value. */
  target: string;
  targetRange: Range;
  value: ExprSource;
  range: Range;
}

export interface LocalSpec extends Named {
  value: ExprSource;
}

export interface PolicySpec {
  range: Range;
  /** Where the `policy` key (HCL: the block's name) is written. */
  nameRange: Range;
  maxTotalSteps?: number;
  maxStepRetries?: number;
  maxVisitsWarnThreshold?: number;
  maxDepth?: number;
}

/** `adapter "<type>" "<name>"`: a configured session of a plugin type. Key `type.name`. */
export interface AdapterSpec extends Named {
  type: string;
  onCrash?: string;
  config: Record<string, ExprSource>;
  /** Values passed as secrets (never journaled or shown). */
  secrets?: Record<string, ExprSource>;
  /** An OCI location (the Go tool's adapter distribution): out of scope, refused by `apply`. */
  source?: { text: string; range: Range };
  version?: string;
  /** Declared implicitly by an older `adapter = "<type>"` step field. */
  implicit?: boolean;
  /** `environment = shell.ci`: the environment of the steps that run on it, unless a step names its own (the Go tool's adapters guide). */
  environment?: { name: string; range: Range };
  /** Listed in the header's `expects`: the caller passes it in; it runs on the caller's session. */
  expected?: boolean;
}

/** `agent "n"`: declarative (`adapter`|`cli`, `model`, `config`) or a flow agent (`use`). */
export interface AgentSpec extends Named {
  adapter?: string;
  cli?: string;
  /** Where `adapter` (else `cli`) is written: a typo of its type is said there. */
  adapterRange?: Range;
  model?: string;
  onCrash?: string;
  /** A flow used as an agent (docs/language.md, Composition): calling it runs the flow as a nested run. */
  use?: ModulePath;
  /** What a flow agent passes to the flow: the caller's entries it expects. */
  adapters: { ref: string; range: Range }[];
  agents: { ref: string; range: Range }[];
  config: Record<string, ExprSource>;
  /** Listed in the header's `expects`: the caller passes it in. */
  expected?: boolean;
  /** Made visible by the header's `use` list (the flow's own name), not by an agent block. */
  fromHeader?: boolean;
}

export interface SubworkflowSpec extends Named {
  source: ModulePath;
  input: Record<string, ExprSource>;
  adapters: { ref: string; range: Range }[];
  agents: { ref: string; range: Range }[];
}

export interface ChannelSpec extends Named {
  participants: { ref: string; range: Range }[];
}

export interface EnvironmentSpec extends Named {
  type: string;
  variables: Record<string, ExprSource>;
  config: Record<string, ExprSource>;
}

export interface SharedVariableSpec extends Named {
  type?: string;
  value?: ExprSource;
}

/** What a step runs. `body` is an inline `workflow {}`; `file` a `workflow_file`. */
export type TargetSpec =
  | { kind: "adapter"; type: string; name: string; range: Range; implicit: boolean }
  | { kind: "agent"; name: string; range: Range }
  | { kind: "subworkflow"; name: string; range: Range }
  | { kind: "channel"; name: string; range: Range }
  | { kind: "body"; range: Range }
  | { kind: "file"; path: string; range: Range; module?: string };

export interface OutcomeSpec extends Named {
  next?: NodeRef;
  output: Record<string, ExprSource>;
  /** `output = <expression>` (an object at run time), when not written as a map. */
  outputExpr?: ExprSource;
  sharedWrites: Record<string, ExprSource>;
  writes: WriteSpec[];
}

export interface StepSpec extends Named {
  target?: TargetSpec;
  /** Some target field was written (even if it did not decode): no "has no target" echo. */
  targetWritten: boolean;
  description?: string;
  body?: WorkflowSpec;
  input?: Record<string, ExprSource>;
  /** `input = expr` where the whole input is one expression. */
  inputExpr?: ExprSource;
  /** `input` is written as neither a block nor an expression (a list, null): its type error stands, and no input field is also said to be missing. */
  inputInvalid?: true;
  timeout?: { text: string; ms: number; range: Range };
  maxVisits?: number;
  count?: ExprSource;
  forEach?: ExprSource;
  parallel?: ExprSource;
  /** `while = <condition>`: iterate while it is true (re-evaluated before each iteration). */
  while?: ExprSource;
  parallelMax?: number;
  /** `parallel_max` / `max_visits` written as compile-time expressions (`var.*`, `local.*`). */
  parallelMaxExpr?: ExprSource;
  maxVisitsExpr?: ExprSource;
  /** `secret_input { }`: input values that are secrets. */
  secretInput?: Record<string, ExprSource>;
  onFailure?: "continue" | "abort" | "ignore";
  /** Where some fields' keys were written, for checks that point at them. */
  fieldRanges?: Partial<Record<"on_failure" | "input" | "allow_tools", Range>>;
  defaultOutcome?: NodeRef;
  lifecycle?: "open" | "close";
  onCrash?: string;
  allowTools?: string[];
  environment?: { name: string; range: Range };
  outcomes: OutcomeSpec[];
}

export interface StateSpec extends Named {
  terminal: boolean;
  /** `terminal` is written but is no bool (`terminal = "yes"`): its own error says so, and nothing follows from it. */
  terminalInvalid?: true;
  success: boolean;
  /** A prerequisite state (parsed and checked; not enforced, as in the Go tool). */
  requires?: NodeRef;
}

export interface WaitSpec extends Named {
  duration?: { text: string; ms: number; range: Range };
  signal?: string;
  outcomes: OutcomeSpec[];
  next?: NodeRef;
}

export interface ApprovalSpec extends Named {
  approvers: string[];
  reason?: ExprSource;
  /** How long to wait for a decision; then the outcome `timeout`. */
  timeout?: { text: string; ms: number; range: Range };
  outcomes: OutcomeSpec[];
}

export interface BranchArmSpec {
  range: Range;
  when: ExprSource;
  next?: NodeRef;
  /** Stored as `steps.<switch>.*` when the arm is taken. */
  output: Record<string, ExprSource>;
}

/** `branch` (arm/when) and `switch` (condition/match) alike. */
export interface BranchSpec extends Named {
  arms: BranchArmSpec[];
  default?: NodeRef;
  defaultOutput?: Record<string, ExprSource>;
  keyword: "branch" | "switch";
}

export interface OutputSpec extends Named {
  type?: string;
  typeRange?: Range;
  description?: string;
  value?: ExprSource;
  /** `secret = true` / `sensitive = true`: the output may carry a secret (shown redacted). */
  secret?: boolean;
}

/**
 * A workflow: the root, or an inline body (which accepts every block a top-level
 * workflow accepts, docs/language.md, Composition). Lists are in declaration order.
 */
export interface WorkflowSpec {
  range: Range;
  /**
   * A YAML or JSON file none of whose fields a workflow has (a `vars.json`): its one error
   * says so, and no header or terminal state is asked of it (found by a new-user trial).
   */
  noWorkflowFields?: true;
  /**
   * Names declared under an unknown top-level field (`switches: { decide: ... }`), whose
   * `unknown_field` error stands: a `next` naming one is no second error, and the
   * reachability of a workflow with such a `next` is not judged (its graph has a hole).
   */
  misplaced?: ReadonlySet<string>;
  /** Unknown fields that are a near miss of a field of their block (check-schema.ts): a "missing" error for that field in the block is not said beside them. */
  nearMisses?: readonly NearMiss[];
  /**
   * Its files could not be used (a syntax error, an unreadable file): their own errors say
   * why, and nothing more is asked of it (found by a new-user trial: a body file's syntax
   * error was followed by "has no steps, so it has nowhere to start").
   */
  unread?: true;
  header?: HeaderSpec;
  variables: VariableSpec[];
  locals: LocalSpec[];
  policy?: PolicySpec;
  permissions?: { allowTools: string[]; range: Range };
  adapters: AdapterSpec[];
  agents: AgentSpec[];
  subworkflows: SubworkflowSpec[];
  channels: ChannelSpec[];
  environments: EnvironmentSpec[];
  sharedVariables: SharedVariableSpec[];
  data: DataSpec[];
  steps: StepSpec[];
  states: StateSpec[];
  waits: WaitSpec[];
  approvals: ApprovalSpec[];
  branches: BranchSpec[];
  outputs: OutputSpec[];
}

/** Aggregate outcomes of iterating steps (docs/language.md, Iteration). */
export const AGGREGATE_OUTCOMES: readonly string[] = ["all_succeeded", "any_failed"];

/**
 * The outcomes an iterating step takes once for all its items, its aggregates and `default`;
 * each of its others is taken per item, with the item's own result as the step's output
 * (engine/run/runner.ts, which keeps the same set).
 */
export const STEP_WIDE_OUTCOMES: ReadonlySet<string> = new Set([...AGGREGATE_OUTCOMES, "default"]);

/** True when a step iterates (`count`, `for_each`, `parallel` or `while`): it ends in an aggregate outcome. */
export function iterates(st: StepSpec): boolean {
  return st.count !== undefined || st.forEach !== undefined || st.parallel !== undefined || st.while !== undefined;
}

/** An empty workflow at `range`. */
export function emptyWorkflow(range: Range): WorkflowSpec {
  return {
    range,
    variables: [],
    locals: [],
    adapters: [],
    agents: [],
    subworkflows: [],
    channels: [],
    environments: [],
    sharedVariables: [],
    data: [],
    steps: [],
    states: [],
    waits: [],
    approvals: [],
    branches: [],
    outputs: [],
  };
}

/**
 * An unknown field that is a near miss of one its block takes (`targt` for `target`):
 * the field meant, and where the block is (its key, and its value).
 */
export interface NearMiss {
  field: string;
  typo: Range;
  blockKey: Range;
  block: Range;
}
