import type { Graph, GraphAdapter, GraphAgent, GraphSubworkflow } from "../../compiler/build/graph.js";
import type { Value } from "../../compiler/expr/value.js";
import type { RunRecord } from "../journal/fold.js";
import type { DataStore } from "./data-store.js";
import type { SessionScope } from "./sessions.js";

/**
 * One run in progress (root or nested) as the runner walks it: its graph, values and
 * sessions, and the run it is nested in. Nested runs come in two kinds (docs/language.md, Composition): a
 * body (inline or `workflow_file`) sees everything of its enclosing run; a module's run
 * (a subworkflow, a flow used as an agent) is `isolated`: it sees only what the call
 * passed (its variables, `input`, and the adapters and agents it `expects`).
 */
export interface Frame {
  graph: Graph;
  runId: string;
  parent?: Frame;
  /** The sessions this run owns. */
  sessions: SessionScope;
  vars: Record<string, Value>;
  locals?: Record<string, Value>;
  each?: Record<string, Value>;
  /** The `input` namespace: `apply --input`, a flow agent's step input, a subworkflow's bindings. */
  inputs: Record<string, Value>;
  /** Step outputs visible from this run (`steps.<name>`): enclosing runs' (bodies only) and its own. */
  outputs: Record<string, Value>;
  rec: RunRecord;
  /** The run's `data` values (an inline body shares its caller's store). */
  data: DataStore;
  /** Step outputs merged in completion order (a body's result when it declares no outputs). */
  merged: Record<string, Value>;
  /** A module's run: the namespaces of the runs around it are not visible. */
  isolated: boolean;
  /** 0 for the root; one more per nested run. */
  depth: number;
  /**
   * What this run and the runs it started have used of the root's `max_total_steps`
   * (step visits and while iterations, replayed ones included), journaled with its
   * `run.completed` so that a resumed caller counts a child it does not walk again.
   * An object: frames copied with a spread (`{ ...f, each }`) count into the same one.
   */
  spent: { steps: number };
  /** The memory pack recalled for this run (`memory.*`), when its header asks for one. */
  memory?: Value;
  /**
   * Aborted when this run must stop: the whole run is interrupted, or a step `timeout`
   * around this run (or a run it is nested in) has passed.
   */
  signal: AbortSignal;
  /** The timeout of the step that spawned this run, when it has one. */
  deadline?: { ms: number; signal: AbortSignal };
}

/** A step's `timeout` passed while the child run it spawned was running. */
export class DeadlineExceeded extends Error {
  constructor(
    /** The child run the timeout belongs to. */
    readonly runId: string,
    readonly ms: number,
  ) {
    super(`timed out after ${ms} ms`);
  }
}

/**
 * Why `f` must stop, once its signal is aborted: the innermost run whose deadline
 * passed, or undefined when it is the whole run that was interrupted.
 */
export function deadlineOf(f: Frame): DeadlineExceeded | undefined {
  for (let x: Frame | undefined = f; x; x = x.parent) if (x.deadline?.signal.aborted) return new DeadlineExceeded(x.runId, x.deadline.ms);
  return undefined;
}

/**
 * The run that owns adapter `id` (`kind = "adapters"`) or agent `id` (`"agents"`), and
 * its declaration, walking out from `f`: an entry marked `inherited` (a body's, or one a
 * module `expects`) belongs to an enclosing run. Undefined when nothing declares it.
 */
export function ownerOf(f: Frame, kind: "adapters", id: string): { frame: Frame; decl: GraphAdapter } | undefined;
export function ownerOf(f: Frame, kind: "agents", id: string): { frame: Frame; decl: GraphAgent } | undefined;
export function ownerOf(f: Frame, kind: "adapters" | "agents", id: string): { frame: Frame; decl: GraphAdapter | GraphAgent } | undefined {
  for (let x: Frame | undefined = f; x; x = x.parent) {
    const decl = kind === "adapters" ? x.graph.adapters.find((a) => a.id === id) : x.graph.agents.find((a) => a.name === id);
    if (decl && !decl.inherited) return { frame: x, decl };
    // A module sees only what it declares or expects from its caller.
    if (!decl && x.isolated) return undefined;
  }
  return undefined;
}

/** The `subworkflow` declaration named `name` visible from `f` (its own run's, or an enclosing body's). */
export function subworkflowOf(f: Frame, name: string): GraphSubworkflow | undefined {
  for (let x: Frame | undefined = f; x; x = x.parent) {
    const decl = x.graph.subworkflows?.find((s) => s.name === name);
    if (decl) return decl;
    if (x.isolated) return undefined;
  }
  return undefined;
}

/** The root run's frame (its graph holds the policy and every module's graph). */
export function rootOf(f: Frame): Frame {
  let x = f;
  while (x.parent) x = x.parent;
  return x;
}

/** The chain of runs from the root to `f`, as workflow names (for depth errors). */
export function chainOf(f: Frame): string {
  const names: string[] = [];
  for (let x: Frame | undefined = f; x; x = x.parent) names.unshift(x.graph.name);
  return names.join(" > ");
}
