import type { Range } from "../../compiler/diagnostics/range.js";
import type { ExprSource, Named, WorkflowSpec } from "../../compiler/decode/spec.js";

/**
 * What `criteria lsp` reads off a decoded workflow (compiler/decode/spec.ts): its
 * declarations as an outline (document symbols), where a name is declared (go to
 * definition), and the names in scope (completion). Bodies are nested under their step.
 */

/** The kinds of declaration, as LSP's SymbolKind numbers (an editor's icons). */
export const KIND = { step: 12 /* Function */, state: 20 /* Key */, wait: 24 /* Event */, approval: 24, branch: 23 /* Struct */, adapter: 11 /* Interface */, agent: 5 /* Class */, variable: 13 /* Variable */, local: 14 /* Constant */, channel: 8 /* Field */, output: 7 /* Property */, subworkflow: 2 /* Module */, iteration: 13 /* Variable */ } as const;

/** One declaration of the outline. */
export interface Declaration {
  kind: keyof typeof KIND;
  name: string;
  range: Range;
  nameRange: Range;
  children: Declaration[];
}

/** The declarations of `w`, in kind order, steps with their bodies' declarations as children. */
export function outline(w: WorkflowSpec): Declaration[] {
  const of = (kind: keyof typeof KIND, list: Named[]) => list.map((d) => ({ kind, name: d.name, range: d.range, nameRange: d.nameRange, children: [] as Declaration[] }));
  return [
    ...of("variable", w.variables),
    ...of("local", w.locals),
    ...of("adapter", w.adapters),
    ...of("agent", w.agents),
    ...of("subworkflow", w.subworkflows),
    ...of("channel", w.channels),
    ...w.steps.map((s) => ({ kind: "step" as const, name: s.name, range: s.range, nameRange: s.nameRange, children: s.body ? outline(s.body) : [] })),
    ...of("wait", w.waits),
    ...of("approval", w.approvals),
    ...of("branch", w.branches),
    ...of("state", w.states),
    ...of("output", w.outputs),
  ];
}

/** Every declaration of the outline, depth first. */
function flat(ds: Declaration[]): Declaration[] {
  return ds.flatMap((d) => [d, ...flat(d.children)]);
}

/** What a prefix (`agent.`, `var.`, `next = "`) names: the kinds it may refer to. */
const PREFIX: Record<string, (keyof typeof KIND)[]> = {
  agent: ["agent"],
  adapter: ["adapter"],
  subworkflow: ["subworkflow"],
  channel: ["channel"],
  var: ["variable"],
  local: ["local"],
  steps: ["step"],
  step: ["step"],
  state: ["state"],
  wait: ["wait"],
  approval: ["approval"],
  branch: ["branch"],
};

/** Node kinds a bare name (`next = "review"`) may refer to. */
const NODES: (keyof typeof KIND)[] = ["step", "state", "wait", "approval", "branch"];

/** A place in a file: its path as the compiler shows it, a 1-based line and UTF-16 column. */
export interface Place {
  file: string;
  line: number;
  utf16Column: number;
}

/** Whether `r` holds `at`. */
function holds(r: Range, at: Place): boolean {
  if (r.file !== at.file) return false;
  const after = at.line > r.start.line || (at.line === r.start.line && at.utf16Column >= r.start.utf16Column);
  const before = at.line < r.end.line || (at.line === r.end.line && at.utf16Column <= r.end.utf16Column);
  return after && before;
}

/** The workflows whose names are in scope at `at`: the step bodies that hold it, innermost first, out to `w`. */
function chain(w: WorkflowSpec, at: Place): WorkflowSpec[] {
  const inner = w.steps.find((s) => s.body && holds(s.body.range, at));
  return [...(inner?.body ? chain(inner.body, at) : []), w];
}

/**
 * The declarations in scope at `at`, innermost first: those of the step bodies that hold it
 * (a body's own names), then their workflow's, out to the top; without `at`, every
 * declaration, bodies' first.
 */
function scopes(w: WorkflowSpec, at: Place | undefined): Declaration[] {
  return at ? chain(w, at).flatMap(outline) : flat(outline(w)).reverse();
}

/**
 * The declaration a word under the cursor refers to: `agent.security`, `adapter.shell.default`,
 * `var.x`, `steps.build.stdout`, `state.done`, or a bare node name (`next = "review"`).
 * The innermost declaration of that name in scope at `at` wins: a body's own before its
 * workflow's (found by a new-user trial: `next = "ci"` in a body went to the top level's
 * `ci`, not the body's).
 */
export function declarationOf(w: WorkflowSpec, word: string, at?: Place): Declaration | undefined {
  const parts = word.split(".");
  if ((parts[0] === "each" || parts[0] === "while") && at) return iterationAt(w, at, parts[0]);
  const all = scopes(w, at);
  const kinds = PREFIX[parts[0]];
  if (kinds && parts.length > 1) {
    const name = parts[0] === "adapter" ? parts.slice(1, 3).join(".") : parts[1];
    return all.find((d) => kinds.includes(d.kind) && d.name === name);
  }
  return all.find((d) => NODES.includes(d.kind) && d.name === word);
}

/**
 * What `each.*` (or `while.*`) at `at` iterates over: the innermost step holding `at` that
 * iterates (`for_each`, `count`, `parallel`; `while`), its own fields or its body's (written
 * inline or in a `workflow_file`), as a declaration named by the step and placed at that
 * expression (found by a new-user trial: definition of `each.value` gave nothing).
 */
function iterationAt(w: WorkflowSpec, at: Place, ns: "each" | "while"): Declaration | undefined {
  for (const s of w.steps) {
    if (!holds(s.range, at) && !(s.body && holds(s.body.range, at))) continue;
    const inner = s.body ? iterationAt(s.body, at, ns) : undefined;
    if (inner) return inner;
    const expr: ExprSource | undefined = ns === "while" ? s.while : (s.forEach ?? s.count ?? s.parallel);
    if (expr) return { kind: "iteration", name: s.name, range: expr.keyRange ? { ...expr.range, start: expr.keyRange.start } : expr.range, nameRange: expr.range, children: [] };
  }
  return undefined;
}

/**
 * Completion after a prefix: the names of the kinds it refers to (`agent.` → the agents),
 * or the node names for a bare word.
 */
export function namesAfter(w: WorkflowSpec, prefix: string | undefined, at?: Place): Declaration[] {
  const kinds = prefix !== undefined ? PREFIX[prefix] : NODES;
  if (!kinds) return [];
  const seen = new Set<string>();
  // Inside a body: its own nodes and steps (a body's `next` stays in it); the other kinds
  // (agents, adapters, variables...) from it and the workflows around it.
  const candidates = !at ? flat(outline(w)) : kinds.some((k) => NODES.includes(k)) ? outline(chain(w, at)[0]) : scopes(w, at);
  return candidates.filter((d) => kinds.includes(d.kind) && !seen.has(`${d.kind}:${d.name}`) && seen.add(`${d.kind}:${d.name}`));
}
