import type { Diagnostic } from "../diagnostics/diagnostic.js";
import type { Range } from "../diagnostics/range.js";
import type { AdapterSpec, AgentSpec, OutputSpec, VariableSpec, WorkflowSpec } from "../decode/spec.js";

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
    returnKeys: [...new Set(spec.steps.flatMap((st) => st.outcomes.filter((o) => o.next?.name === "return").flatMap((o) => Object.keys(o.output))))],
    expectedAdapters: spec.adapters.filter((a) => a.expected),
    expectedAgents: spec.agents.filter((a) => a.expected),
    inputsRead: new Map(),
  };
}
