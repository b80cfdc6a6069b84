import type { Diagnostic } from "../diagnostics/diagnostic.js";
import type { Range } from "../diagnostics/range.js";
import type { AdapterSpec, AgentSpec, NodeRef, OutputSpec, VariableSpec, WorkflowSpec } from "../decode/spec.js";

/**
 * What a caller sees of a module it calls as a subworkflow or uses as a flow agent
 * (docs/language.md, Composition): its variables (bound by `input`), its
 * outputs (read as `steps.<step>.<output>`), what it expects from its caller, and
 * whether it compiles. Modules are resolved apart; only this crosses between them.
 */
export interface ModuleInterface {
  /** The module's id (absolute real path). */
  id: string;
  /** The module as shown in diagnostics. */
  path: string;
  /** Its header's name ("" when it has no header). */
  name: string;
  identity?: string;
  hasHeader: boolean;
  variables: VariableSpec[];
  outputs: OutputSpec[];
  /**
   * The keys of the `output` projections of its top-level outcomes that lead to `return`:
   * a run ending there gives its caller that projection instead of its output blocks (the
   * Go tool's workflow.md, Subworkflows), so a caller may read them too.
   */
  returnKeys: string[];
  /**
   * Set when the module declares no `output` blocks and every way it ends well is a step's
   * `return` with a projection of named keys: those keys are all its caller may read (a
   * module without outputs that reaches a state gives its steps' merged outputs instead,
   * any key). Found by a new-user trial: `steps.call.pkgg` of a module returning `{ pkg }`
   * validated and failed the run.
   */
  returnOnlyKeys?: string[];
  /**
   * Of {@link returnOnlyKeys}, those some `return` projections leave out: a caller's read of
   * one finds nothing when the module ended by such a return (found by a new-user trial: a
   * switch returning `{ ka }` on one arm and `{ kb }` on the other validated a read of `ka`,
   * and the run failed with "did you mean kb").
   */
  returnSomeKeys?: string[];
  /** Adapters and agents listed in its `expects`: the caller must pass each. */
  expectedAdapters: AdapterSpec[];
  expectedAgents: AgentSpec[];
  /** `input.<key>` names its expressions read, each with its first reading. */
  inputsRead: Map<string, Range>;
  /** Where it first reads the input whole or by a computed key: then any key may be read. */
  inputReadWhole?: Range;
  /** Its first error, when it does not compile. */
  firstError?: Diagnostic;
  /**
   * Set when a file of it could not be parsed (or nothing of it could be read): what it
   * declares is not known, so a caller checks nothing against it (its inputs, adapters,
   * agents, outputs); the module's own syntax errors say what is wrong (found by a
   * new-user trial: a syntax error in one file came under "has no variable" errors).
   */
  unknown?: boolean;
}

/** Finds a module's interface by id (modules are compiled callees first). */
export type ModuleLookup = (id: string) => ModuleInterface | undefined;

/**
 * Whether agent `a`'s flow (its `use`) failed: not loaded (missing, outside the root: no
 * module, and not a cycle's cut edge) or not parsed (its interface unknown). Its name is
 * then a stand-in (the file's), not the flow's, so checks that would name it stay silent.
 */
export function flowFailed(a: AgentSpec, modules: ModuleLookup): boolean {
  if (!a.use) return false;
  return a.use.module === undefined ? a.use.cut === undefined : modules(a.use.module)?.unknown === true;
}

/** The interface of a decoded module; `inputsRead` and `firstError` are filled in by the caller. */
export function moduleInterface(id: string, path: string, spec: WorkflowSpec): ModuleInterface {
  return {
    id,
    path,
    name: spec.header?.name ?? "",
    ...(spec.header?.identity ? { identity: spec.header.identity } : {}),
    hasHeader: spec.header !== undefined,
    variables: spec.variables,
    outputs: spec.outputs,
    returnKeys: [...new Set(returnProjections(spec).flatMap((p) => (p ? Object.keys(p) : [])))],
    ...returnOnly(spec),
    expectedAdapters: spec.adapters.filter((a) => a.expected),
    expectedAgents: spec.agents.filter((a) => a.expected),
    inputsRead: new Map(),
  };
}

/**
 * The projections of a module's `return`s: each step outcome's and each switch arm's (or
 * default's) that leads to `return`, its `output` keys, or undefined when it has none or it
 * is one expression (any key).
 */
function returnProjections(spec: WorkflowSpec): (Record<string, unknown> | undefined)[] {
  const named = (output: Record<string, unknown> | undefined, expr?: unknown) => (expr || !output || Object.keys(output).length === 0 ? undefined : output);
  return [
    ...spec.steps.flatMap((st) => st.outcomes.filter((o) => o.next?.name === "return").map((o) => named(o.output, o.outputExpr))),
    ...spec.branches.flatMap((b) => [...b.arms.filter((a) => a.next?.name === "return").map((a) => named(a.output)), ...(b.default?.name === "return" ? [named(b.defaultOutput)] : [])]),
  ];
}

/**
 * `returnOnlyKeys` of a module (ModuleInterface): its `return` projections' keys (a step
 * outcome's or a switch arm's), when it declares no outputs, no `next` (nor its initial state)
 * names a state that ends well, and every `return` has a projection of named keys (a wait's or
 * an approval's `return`, or one without a projection, gives the merged outputs: any key).
 */
function returnOnly(spec: WorkflowSpec): { returnOnlyKeys: string[]; returnSomeKeys?: string[] } | Record<string, never> {
  if (spec.outputs.length > 0) return {};
  const endsWell = new Set(spec.states.filter((st) => st.success).map((st) => st.name));
  // A wait's or an approval's `return` gives the merged outputs: any key.
  const others: (NodeRef | undefined)[] = [
    ...spec.waits.flatMap((w) => [w.next, ...w.outcomes.map((o) => o.next)]),
    ...spec.approvals.flatMap((a) => a.outcomes.map((o) => o.next)),
  ];
  if (others.some((n) => n?.name === "return")) return {};
  const routes = [...others, ...spec.branches.flatMap((b) => [b.default, ...b.arms.map((a) => a.next)]), ...spec.steps.flatMap((st) => st.outcomes.map((o) => o.next)), spec.header?.initialState];
  if (routes.some((n) => n !== undefined && endsWell.has(n.name))) return {};
  const projections = returnProjections(spec);
  if (projections.some((p) => p === undefined)) return {};
  const keys = new Set(projections.flatMap((p) => Object.keys(p!)));
  const some = [...keys].filter((k) => projections.some((p) => !(k in p!)));
  return keys.size > 0 ? { returnOnlyKeys: [...keys], ...(some.length > 0 ? { returnSomeKeys: some } : {}) } : {};
}
