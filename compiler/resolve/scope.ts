import type { Range } from "../diagnostics/range.js";
import type {
  AdapterSpec,
  AgentSpec,
  ChannelSpec,
  DataSpec,
  EnvironmentSpec,
  LocalSpec,
  SharedVariableSpec,
  StepSpec,
  SubworkflowSpec,
  VariableSpec,
  WorkflowSpec,
} from "../decode/spec.js";

/** The kinds of graph node a name may stand for. */
export type NodeKind = "step" | "state" | "wait" | "approval" | "branch";

/**
 * The names one workflow (root or inline body) declares, and its enclosing scope
 * (docs/architecture.md, The compiler: Resolve): an inline body sees its parent's adapters, agents,
 * variables, locals and steps and may declare its own; lookups walk outwards.
 */
export class Scope {
  readonly adapters = new Map<string, AdapterSpec>();
  readonly agents = new Map<string, AgentSpec>();
  readonly subworkflows = new Map<string, SubworkflowSpec>();
  readonly channels = new Map<string, ChannelSpec>();
  readonly environments = new Map<string, EnvironmentSpec>();
  readonly variables = new Map<string, VariableSpec>();
  readonly locals = new Map<string, LocalSpec>();
  readonly shared = new Map<string, SharedVariableSpec>();
  /** `data "kind" "name"` values, keyed `kind.name`. */
  readonly data = new Map<string, DataSpec>();
  /** Graph nodes of this workflow only (a body's nodes are its own). */
  readonly nodes = new Map<string, NodeKind>();
  readonly steps = new Map<string, StepSpec>();
  /** What each local's value reads: other locals (in order) and the first `steps.*` reference, if any. */
  readonly localReads = new Map<string, { locals: string[]; steps?: { raw: string; range: Range } }>();
  /** Switch/branch nodes whose arms store an `output`: their keys (all arms'), read as `steps.<switch>.<key>`. */
  readonly switchOutputs = new Map<string, string[]>();
  /** Declarations of this scope that something uses: `agents:x`, `adapters:T.N`, `locals:x`, ... */
  readonly used = new Set<string>();

  /**
   * @param workflow the workflow this scope belongs to
   * @param parent the enclosing workflow's scope (undefined at the root)
   * @param owner the step whose inline body this is
   * @param iterating true when the owner iterates (count / for_each / parallel): `each.*` and `_continue` are valid
   */
  constructor(
    readonly workflow: WorkflowSpec,
    readonly parent?: Scope,
    readonly owner?: StepSpec,
    readonly iterating = false,
  ) {}

  /** Depth 0 at the root. */
  get depth(): number {
    return this.parent ? this.parent.depth + 1 : 0;
  }

  /** True inside any iterating body, however deep. */
  get inIteration(): boolean {
    return this.iterating || (this.parent?.inIteration ?? false);
  }

  /** Finds a declaration in this scope or an enclosing one. */
  lookup<K extends "adapters" | "agents" | "subworkflows" | "channels" | "environments" | "variables" | "locals" | "shared" | "data" | "steps">(
    table: K,
    name: string,
  ): { decl: NonNullable<ReturnType<Scope[K]["get"]>>; scope: Scope } | undefined {
    for (let s: Scope | undefined = this; s; s = s.parent) {
      const d = s[table].get(name) as NonNullable<ReturnType<Scope[K]["get"]>> | undefined;
      if (d !== undefined) return { decl: d, scope: s };
    }
    return undefined;
  }

  /** The output keys of a switch visible from this scope, if it stores any. */
  switchOutput(name: string): string[] | undefined {
    for (let s: Scope | undefined = this; s; s = s.parent) {
      const keys = s.switchOutputs.get(name);
      if (keys) return keys;
    }
    return undefined;
  }

  /** Every name visible in a table (for did-you-mean). */
  visible(table: "adapters" | "agents" | "subworkflows" | "channels" | "environments" | "variables" | "locals" | "shared" | "data" | "steps"): string[] {
    const out: string[] = [];
    for (let s: Scope | undefined = this; s; s = s.parent) out.push(...s[table].keys());
    return out;
  }
}
