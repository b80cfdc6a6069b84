import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { BUILT_IN_ADAPTER_TYPES } from "./adapter-fields.js";
import { closestName, distance, expectedOneOf, suggest } from "../diagnostics/did-you-mean.js";
import type { Range } from "../diagnostics/range.js";
import { iterates, STEP_WIDE_OUTCOMES, type AdapterSpec, type AgentSpec, type ExprSource, type NodeRef, type StepSpec, type WorkflowSpec } from "../decode/spec.js";
import type { Expr } from "../expr/ast.js";
import { referencesMemo } from "../expr/parse-memo.js";
import type { Reference } from "../expr/references.js";
import { checkExpression, exprRangeAt, unguardedReads, type ExprContext, type RangeAt } from "./check-expression.js";
import { flowFailed, type ModuleInterface, type ModuleLookup } from "./module-interface.js";
import { outputTypeOf, runsOnShell, SHELL_OUTPUT_KEYS } from "./adapter-outputs.js";
import { Scope, type NodeKind } from "./scope.js";

/** The resolve stage's result: one scope per workflow (root first, then bodies, depth first). */
export interface Resolution {
  root: Scope;
  scopes: Scope[];
  /** Scope of each step's inline body. */
  bodyOf: Map<StepSpec, Scope>;
  /** The adapter each step with an adapter target runs on (declared, or implicit from `adapter = "T"`). */
  adapterOf: Map<StepSpec, AdapterSpec>;
  /** The module each step calls (a subworkflow, or a flow used as an agent). */
  calleeOf: Map<StepSpec, ModuleInterface>;
  /** `input.<key>` names the workflow's expressions read, each at its first reading. */
  inputsRead: Map<string, Range>;
  /** Where an expression first reads the input whole or by a computed key (any key may be read). */
  inputReadWhole?: Range;
}

/** What resolution needs besides the spec. */
export interface ResolveOptions {
  /** Offsets → ranges in the loaded files. */
  rangeAt: RangeAt;
  /** The interfaces of the modules the workflow calls. */
  modules?: ModuleLookup;
  /** What the shown file paths of ranges are relative to (default: the process's). */
  cwd?: string;
  /** Absolute directories outside a workflow's own that its file functions may read (`CRITERIA_WORKFLOW_ALLOWED_PATHS`, as the engine reads them). */
  fileRoots?: readonly string[];
}

/** Reserved names: targets with a meaning of their own (`continue` too, v0.5's keyword), and the `__` prefix kept for generated nodes. */
export function isReservedName(name: string): boolean {
  return name === "_continue" || name === "continue" || name === "return" || name.startsWith("__");
}

/**
 * Resolves names (docs/architecture.md, The compiler: Resolve): builds a scope per workflow with inline
 * bodies nested in their parent's scope (docs/language.md, Composition: a body sees the enclosing agents,
 * adapters and variables), and checks every step target, `next`, subworkflow and
 * channel reference, and every expression's references. Unknown names get a
 * did-you-mean over what is visible from that point.
 */
export function resolveWorkflow(spec: WorkflowSpec, opts: ResolveOptions): { value: Resolution; diagnostics: Diagnostic[] } {
  const r = new Resolver(opts.rangeAt, opts.modules ?? (() => undefined), opts.cwd ?? process.cwd(), opts.fileRoots ?? []);
  const root = r.declare(spec, undefined, undefined);
  for (const s of r.scopes) r.resolve(s);
  const res: Resolution = { root, scopes: r.scopes, bodyOf: r.bodyOf, adapterOf: r.adapterOf, calleeOf: r.calleeOf, inputsRead: r.inputsRead, ...(r.inputReadWhole ? { inputReadWhole: r.inputReadWhole } : {}) };
  return { value: res, diagnostics: r.diagnostics };
}

/**
 * The agents standing in for flows of a `use` list that could not be loaded (missing, outside
 * the root, ...; see addHeaderAgents) or parsed (`unparsed`: a syntax error, found by a trial
 * of this check): named after their files, as the flows' own names are unknown. An unknown agent may be one of those flows, so it gets no error of its own and no
 * did-you-mean toward a stand-in: found by a new-user trial, where `use = ["./flows/reviewr.hcl"]`
 * made `agent.reviewer` (the flow's right name) an error with the hint `did you mean "reviewr"?`.
 */
function unloadedFlows(s: Scope, modules: ModuleLookup): AgentSpec[] {
  const out: AgentSpec[] = [];
  for (let x: Scope | undefined = s; x; x = x.parent) {
    for (const a of x.agents.values()) if (a.fromHeader && flowFailed(a, modules)) out.push(a);
  }
  return out;
}

/** The agent names visible from `s`, without the stand-ins of flows that could not be loaded. */
function loadedAgents(s: Scope, modules: ModuleLookup): string[] {
  const standIns = new Set(unloadedFlows(s, modules).map((a) => a.name));
  return s.visible("agents").filter((n) => !standIns.has(n));
}

/** The scope of the module's own workflow (the outermost around `s`). */
function rootOf(s: Scope): Scope {
  let root = s;
  while (root.parent) root = root.parent;
  return root;
}

class Resolver {
  readonly diagnostics: Diagnostic[] = [];
  readonly scopes: Scope[] = [];
  readonly bodyOf = new Map<StepSpec, Scope>();
  readonly adapterOf = new Map<StepSpec, AdapterSpec>();
  readonly calleeOf = new Map<StepSpec, ModuleInterface>();
  readonly inputsRead = new Map<string, Range>();
  inputReadWhole: Range | undefined;
  /** Implicit adapters (`adapter = "noop"`), one per type, owned by the root scope. */
  private readonly implicit = new Map<string, AdapterSpec>();

  constructor(
    private readonly rangeAt: RangeAt,
    private readonly modules: ModuleLookup,
    private readonly cwd: string,
    private readonly fileRoots: readonly string[],
  ) {}

  /** Registers a workflow's declarations (and, recursively, its bodies'). */
  declare(w: WorkflowSpec, parent: Scope | undefined, owner: StepSpec | undefined): Scope {
    const iterating = owner !== undefined && iterates(owner);
    const s = new Scope(w, parent, owner, iterating);
    this.scopes.push(s);
    const add = <T extends { name: string; nameRange: Range }>(
      table: "adapters" | "agents" | "subworkflows" | "channels" | "environments" | "variables" | "locals" | "shared" | "data",
      noun: string,
      items: T[],
    ) => {
      for (const it of items) {
        if (it.name.startsWith("__")) {
          this.diagnostics.push(diag("reserved_name", it.nameRange, `${noun} "${it.name}": names starting with "__" are reserved`, { hint: "pick a name that starts with a letter" }));
          continue;
        }
        const same = (s[table] as unknown as Map<string, T>).get(it.name);
        if (same && (it as { expected?: boolean }).expected) {
          this.diagnostics.push(
            diag("duplicate_name", it.nameRange, `${noun} "${it.name}" is both expected from the caller and declared here`, {
              related: [{ message: "declared here", range: same.nameRange }],
              hint: `keep one: the caller's (expects) or an own ${noun} block`,
            }),
          );
          continue;
        }
        const outer = parent?.lookup(table, it.name);
        // A body's `expects` is refused where it is written (not a body's); what it lists and
        // the enclosing workflow declares is that workflow's, not a second one (a new-user trial).
        if (outer && (it as { expected?: boolean }).expected) continue;
        if (outer) {
          this.diagnostics.push(
            diag("duplicate_name", it.nameRange, `${noun} "${it.name}" is already declared by the enclosing workflow`, {
              related: [{ message: "declared here", range: (outer.decl as { nameRange: Range }).nameRange }],
              hint: `a workflow body sees the enclosing workflow's ${noun}s; use that one or pick another name`,
            }),
          );
        }
        (s[table] as unknown as Map<string, T>).set(it.name, it);
      }
    };
    add("adapters", "adapter", w.adapters);
    add("agents", "agent", w.agents);
    add("subworkflows", "subworkflow", w.subworkflows);
    add("channels", "channel", w.channels);
    add("environments", "environment", w.environments);
    add("variables", "variable", w.variables);
    add("locals", "local", w.locals);
    add("shared", "shared_variable", w.sharedVariables);
    add("data", "data", w.data);
    const nodes: [NodeKind, { name: string; nameRange: Range }[]][] = [
      ["step", w.steps],
      ["state", w.states],
      ["wait", w.waits],
      ["approval", w.approvals],
      ["branch", w.branches],
    ];
    const first = new Map<string, { kind: NodeKind; range: Range }>();
    for (const [kind, list] of nodes) {
      for (const n of list) {
        if (isReservedName(n.name)) {
          this.diagnostics.push(diag("reserved_name", n.nameRange, `"${n.name}" is a reserved name and cannot name a ${kind}`, { hint: `"continue", "_continue" and "return" are targets with a meaning of their own; names starting with "__" are kept for criteria` }));
          continue;
        }
        const prev = first.get(n.name);
        if (prev) {
          this.diagnostics.push(
            diag("name_clash", n.nameRange, `${kind} "${n.name}" has the same name as ${prev.kind} "${n.name}"`, {
              related: [{ message: `the ${prev.kind}`, range: prev.range }],
              hint: "steps, states, waits, approvals and branches share one namespace: outcomes name them",
            }),
          );
          continue;
        }
        first.set(n.name, { kind, range: n.nameRange });
        s.nodes.set(n.name, kind);
      }
    }
    for (const st of w.steps) s.steps.set(st.name, st);
    for (const b of w.branches) {
      const keys = new Set([...b.arms.flatMap((a) => Object.keys(a.output)), ...Object.keys(b.defaultOutput ?? {})]);
      if (keys.size > 0) s.switchOutputs.set(b.name, [...keys]);
    }
    for (const st of w.steps) if (st.body) this.bodyOf.set(st, this.declare(st.body, s, st));
    return s;
  }

  /** Checks an expression; returns what it references (`[]` when it does not parse). */
  private expr(src: ExprSource | undefined, ctx: ExprContext): readonly Reference[] {
    const e = this.parsed(src, ctx);
    return e ? referencesMemo(e) : [];
  }

  /** Checks an expression; returns it parsed (undefined for a literal or when it does not parse), offsets from `src.base`. */
  private parsed(src: ExprSource | undefined, ctx: ExprContext): Expr | undefined {
    if (!src) return undefined;
    const r = checkExpression(src, ctx, this.rangeAt);
    this.diagnostics.push(...r.diagnostics);
    return r.expr;
  }

  private exprs(m: Record<string, ExprSource> | undefined, ctx: ExprContext, what: string) {
    for (const [k, v] of Object.entries(m ?? {})) this.expr(v, { ...ctx, what: `${ctx.what} ${what} "${k}"` });
  }

  /**
   * Checks a `next`-like reference against this workflow's nodes and the reserved targets.
   * @param reserved whether `_continue` and `return` may stand there (not where a run starts)
   * @param owner the node whose outcome (or arm, or default) this is: never offered as the fix
   */
  private node(ref: NodeRef | undefined, s: Scope, what: string, reserved = true, owner?: string) {
    if (!ref) return;
    if (ref.name === "_continue" || ref.name === "return") return; // placement is a check (check/)
    const actual = s.nodes.get(ref.name);
    if (actual && ref.kind && actual !== ref.kind) {
      // The Go tool takes step.<name> for a switch: its LANGUAGE-SPEC's worked example 2
      // writes next = step.switch_env (found by a trial of its language: refused here).
      if (ref.kind === "step" && actual === "branch") return;
      const word = actual === "branch" && s.workflow.branches.find((b) => b.name === ref.name)?.keyword === "switch" ? "switch" : actual;
      this.diagnostics.push(
        diag("invalid_value", ref.range, `${what}: "${ref.kind}.${ref.name}" names a ${ref.kind}, but "${ref.name}" is a ${word}`, {
          hint: `write ${word}.${ref.name}, or just "${ref.name}"`,
        }),
      );
      return;
    }
    // Declared under an unknown top-level field: that field's error says what to write (found by a new-user trial).
    if (!s.nodes.has(ref.name) && !(s.parent === undefined && s.workflow.misplaced?.has(ref.name))) {
      this.diagnostics.push(diag("unknown_node", ref.range, `${what}: unknown node "${ref.name}"`, { hint: this.unknownNodeHint(ref, s, reserved, owner) }));
    }
  }

  /**
   * The hint of an unknown node. A kind prefix (`state.faild`) offers only nodes of that
   * kind (`step.` takes a switch too): naming a step as `state.` is an error of its own
   * (found by a new-user trial: `state.faild` was offered the steps "execute" and "review").
   * A close name of another kind is offered with its own prefix (`did you mean step.review?`);
   * a plain name is offered every node, and the reserved targets that may stand there
   * (none where a run starts: found by a new-user trial, "return").
   * A suggestion must be a plausible fix (found by a new-user trial): the node whose
   * outcome this is is never offered (following it made a self-loop: `failure: failed`
   * in step "build" with no states was told `did you mean "build"?`), and a plain name is
   * offered only a near node (edit distance at most 2), as it may be of any kind
   * (`initial_state: build` with no steps was told `did you mean "failed"?`, a state).
   * With nothing to offer, the hint says what is missing: no steps, or declare it.
   */
  private unknownNodeHint(ref: NodeRef, s: Scope, reserved: boolean, owner?: string): string | undefined {
    const fits = (k: NodeKind) => !ref.kind || k === ref.kind || (ref.kind === "step" && k === "branch");
    const nodes = [...s.nodes].filter(([n, k]) => fits(k) && n !== owner).map(([n]) => n);
    const candidates = ref.kind ? nodes : [...nodes, ...(reserved && s.inIteration ? ["_continue"] : []), ...(reserved && s.parent ? ["return"] : [])];
    // A plain name may be of any kind: only a near node is a plausible fix (no far one of another kind).
    const hint = suggest(ref.name, ref.kind ? candidates : candidates.filter((c) => distance(ref.name.toLowerCase(), c.toLowerCase()) <= 2));
    if (hint?.startsWith("did you mean")) return hint;
    if (ref.kind) {
      const other = closestName(ref.name, [...s.nodes.keys()].filter((n) => n !== owner));
      const kind = other === undefined ? undefined : s.nodes.get(other);
      if (other !== undefined && kind !== undefined) {
        const word = kind === "branch" ? (s.workflow.branches.find((b) => b.name === other)?.keyword ?? "switch") : kind;
        return `did you mean ${word}.${other}?`;
      }
      return hint ?? `no ${ref.kind === "branch" ? "switch" : ref.kind} is declared here: declare one named "${ref.name}", or name another node`;
    }
    if (!reserved && s.workflow.steps.length === 0) return `no steps are declared: declare step "${ref.name}" { ... }, or start at a declared node`;
    if (candidates.length === 0) return `no node "${ref.name}" is declared: declare it (state "${ref.name}" { terminal = true }, or a step)`;
    return expectedOneOf(candidates);
  }

  resolve(s: Scope) {
    const w = s.workflow;
    // Inside an iterating body, `each` is the innermost iterating step's.
    let inner: Scope | undefined = s;
    while (inner && !inner.iterating) inner = inner.parent;
    const eachValueOf = inner?.owner && inner.parent ? this.eachValueOf(inner.owner, inner.parent) : undefined;
    const base: ExprContext = {
      scope: s,
      each: s.inIteration,
      ...(eachValueOf ? { eachValueOf } : {}),
      steps: true,
      what: "",
      outputKeys: (st, at) => this.outputKeys(st, at),
      outputType: (st, at, key) => this.outputType(st, at, key),
      outputSecret: (st, at, key) => (this.callee(st, at)?.outputs ?? st.body?.outputs ?? []).some((o) => o.name === key && o.secret === true),
      itemKeys: (name, at) => this.itemKeys(name, at),
      noopOutputKeys,
      readsInput: (name, at) => {
        if (name === undefined) this.inputReadWhole ??= at;
        else if (!this.inputsRead.has(name)) this.inputsRead.set(name, at);
      },
      memory: rootOf(s).workflow.header?.memory?.script === true,
      cwd: this.cwd,
      fileRoots: this.fileRoots,
    };
    if (w.header) {
      this.node(w.header.initialState, s, "initial_state", false);
      this.environment(w.header.environment, s, `workflow "${w.header.name}"`);
      // target_state names a state: its hint offers states only (found by a new-user trial: with no states, "expected one of "build"").
      const t = w.header.targetState;
      if (t && !s.nodes.has(t.name) && !w.misplaced?.has(t.name) && t.name !== "return" && t.name !== "_continue") this.diagnostics.push(diag("unknown_node", t.range, `target_state: unknown node "${t.name}"`, { hint: this.unknownNodeHint({ ...t, kind: "state" }, s, false) }));
    }
    for (const a of w.adapters) this.environment(a.environment, s, `adapter "${a.type}" "${a.name.slice(a.type.length + 1)}"`);
    for (const v of w.variables) this.expr(v.default, { ...base, each: false, steps: false, what: `variable "${v.name}" default` });
    for (const l of w.locals) {
      const refs = this.expr(l.value, { ...base, what: `local "${l.name}"` });
      const stepRef = refs.find((r) => r.root === "steps");
      s.localReads.set(l.name, {
        locals: refs.filter((r) => r.root === "local" && typeof r.path[0] === "string").map((r) => r.path[0] as string),
        ...(stepRef ? { steps: { raw: stepRef.raw, range: l.value.range } } : {}),
      });
    }
    for (const a of w.adapters) {
      this.exprs(a.config, { ...base, each: false, steps: false, what: `adapter "${a.name}"` }, "config");
      this.exprs(a.secrets, { ...base, each: false, steps: false, secretOk: true, what: `adapter "${a.name}"` }, "secrets");
    }
    for (const a of w.agents) {
      this.exprs(a.config, { ...base, each: false, steps: false, what: `agent "${a.name}"` }, "config");
      if (a.use && !a.fromHeader) this.undeclaredUse(a, s);
      for (const x of a.adapters) this.ref(s, "adapters", x.ref.replace(/^adapter\./, ""), x.range, `agent "${a.name}" adapters`, true);
      for (const x of a.agents) this.ref(s, "agents", x.ref.replace(/^agent\./, ""), x.range, `agent "${a.name}" agents`, true);
    }
    // An environment's values are fixed for the run (no step outputs, no items); a secret
    // would reach every step's process in plain: bind it with secret_input instead.
    for (const e of w.environments) {
      const what = `environment "${e.type}" "${e.name.slice(e.type.length + 1)}"`;
      this.exprs(e.variables, { ...base, each: false, steps: false, what }, "variables");
      this.exprs(e.config, { ...base, each: false, steps: false, what }, "config");
    }
    for (const sw of w.subworkflows) {
      const secrets = secretVariables(sw.source.module ? this.modules(sw.source.module) : undefined);
      for (const [k, v] of Object.entries(sw.input)) this.expr(v, { ...base, what: `subworkflow "${sw.name}" input "${k}"`, secretOk: secrets.has(k) });
      for (const a of sw.adapters) this.ref(s, "adapters", a.ref.replace(/^adapter\./, ""), a.range, `subworkflow "${sw.name}" adapters`, true);
      for (const a of sw.agents) this.ref(s, "agents", a.ref.replace(/^agent\./, ""), a.range, `subworkflow "${sw.name}" agents`, true);
    }
    for (const c of w.channels) {
      for (const p of c.participants) this.ref(s, "agents", p.ref.replace(/^agent\./, ""), p.range, `channel "${c.name}" participants`);
    }
    for (const sv of w.sharedVariables) this.expr(sv.value, { ...base, steps: false, what: `shared_variable "${sv.name}"` });
    for (const d of w.data) {
      // The initial value is a literal (the upstream spec, "Data Values"): it exists before anything runs.
      const refs = this.expr(d.value, { ...base, steps: false, what: `data "${d.name.replace(".", '" "')}"` });
      if (d.value && (refs.length > 0 || d.value.kind === "template")) {
        this.diagnostics.push(diag("invalid_value", d.value.range, `data "${d.name.replace(".", '" "')}": the initial value must be a literal, not an expression`, { hint: "write the value itself; set it from an expression with a write block in the first step's outcome" }));
      }
    }
    for (const st of w.steps) this.step(st, s, base);
    for (const wt of w.waits) {
      this.node(wt.next, s, `wait "${wt.name}"`, true, wt.name);
      for (const o of wt.outcomes) this.node(o.next, s, `wait "${wt.name}" outcome "${o.name}"`, true, wt.name);
    }
    for (const ap of w.approvals) {
      this.expr(ap.reason, { ...base, what: `approval "${ap.name}" reason` });
      for (const o of ap.outcomes) this.node(o.next, s, `approval "${ap.name}" outcome "${o.name}"`, true, ap.name);
    }
    for (const b of w.branches) {
      b.arms.forEach((arm, i) => {
        // A switch's arms are its match blocks.
        const what = `${b.keyword} "${b.name}" ${b.keyword === "switch" ? "match" : "arm"} ${i + 1}`;
        this.expr(arm.when, { ...base, what, secretOk: true });
        this.node(arm.next, s, what, true, b.name);
        this.exprs(arm.output, { ...base, what }, "output");
      });
      this.node(b.default, s, `${b.keyword} "${b.name}" default`, true, b.name);
      this.exprs(b.defaultOutput, { ...base, what: `${b.keyword} "${b.name}" default` }, "output");
    }
    for (const st of w.states) if (st.requires) this.node(st.requires, s, `state "${st.name}" requires`);
    for (const o of w.outputs) this.expr(o.value, { ...base, what: `output "${o.name}"`, secretOk: o.secret === true });
  }

  private environment(env: { name: string; range: Range } | undefined, s: Scope, what: string) {
    if (env && !s.lookup("environments", env.name)) {
      this.diagnostics.push(
        diag("unknown_reference", env.range, `${what}: unknown environment "${env.name}"`, {
          hint: suggest(env.name, s.visible("environments")) ?? `declare it: environment "${env.name.split(".")[0]}" "${env.name.split(".")[1] ?? "default"}" { variables = { ... } }`,
        }),
      );
    }
  }

  /**
   * An agent that is a flow (`use = "./x.hcl"`) must be declared by the header's `use`
   * list (docs/language.md, Composition: every flow used as an agent is listed in the header).
   */
  private undeclaredUse(a: { name: string; use?: { path: string; range: Range; module?: string } }, s: Scope) {
    if (!a.use?.module) return;
    const header = rootOf(s).workflow.header;
    if (header?.use.some((u) => u.module === a.use!.module)) return;
    this.diagnostics.push(
      diag("use_undeclared", a.use.range, `agent "${a.name}": the flow "${a.use.path}" is not declared in the workflow's use list`, {
        hint: header ? `add it: use = [${[...header.use.map((u) => JSON.stringify(u.path)), JSON.stringify(a.use.path)].join(", ")}]` : `declare it in the header: workflow { name = "..." use = ["${a.use.path}"] }`,
      }),
    );
  }

  /** The module a step calls: its subworkflow's source, or the flow its agent uses. */
  private callee(st: StepSpec, s: Scope): ModuleInterface | undefined {
    const t = st.target;
    const id = t?.kind === "subworkflow" ? s.lookup("subworkflows", t.name)?.decl.source.module : t?.kind === "agent" ? s.lookup("agents", t.name)?.decl.use?.module : undefined;
    return id ? this.modules(id) : undefined;
  }

  /**
   * The output names `steps.<step>.*` may read when the step runs on the `shell` adapter,
   * calls a module or runs a body that declares outputs (plus its outcomes' `output` keys);
   * undefined when open.
   */
  private outputKeys(st: StepSpec, s: Scope): string[] | undefined {
    // An outcome whose projection is one expression (output = jsondecode(...)) may give any key
    // (found by a trial of this session's checks: a valid read was refused).
    if (st.outcomes.some((o) => o.outputExpr)) return undefined;
    const outcomeKeys = st.outcomes.flatMap((o) => Object.keys(o.output));
    // A shell step's output is known (a step on a plugin or agent may give anything).
    if (runsOnShell(st.target)) return [...SHELL_OUTPUT_KEYS, ...outcomeKeys];
    const callee = this.callee(st, s);
    // A module a file of which did not parse may declare any output.
    if (callee?.unknown) return undefined;
    const declared = callee?.outputs ?? st.body?.outputs ?? [];
    // A module without outputs that only ends by a step's `return` gives that projection.
    if (declared.length === 0) return callee?.returnOnlyKeys ? [...callee.returnOnlyKeys, ...outcomeKeys] : undefined;
    // A module that can end at a `return` with a projection gives its caller those keys instead (found by a new-user trial).
    return [...declared.map((o) => o.name), ...(callee?.returnKeys ?? []), ...st.outcomes.flatMap((o) => Object.keys(o.output))];
  }

  /**
   * The declared type of output `key` of step `st` (declared in `s`), when one alone gives it:
   * a shell step's (`stdout` a string, `exit_code` a number), a called module's or a body's
   * declared output's `type`; undefined when an outcome's projection or a module's `return`
   * may give that key too, or nothing says.
   */
  private outputType(st: StepSpec, s: Scope, key: string): string | undefined {
    const callee = this.callee(st, s);
    return callee?.unknown ? undefined : outputTypeOf(st, key, callee?.outputs ?? st.body?.outputs, callee?.returnKeys);
  }

  /**
   * What `each.value` is for iterating step `st` (declared in `s`) when its `for_each` or
   * `parallel` is `steps.<x>` written alone and the items of `x` have known output keys.
   */
  private eachValueOf(st: StepSpec, s: Scope): { step: string; keys: string[]; typeOf: (key: string) => string | undefined; shell: boolean } | undefined {
    const over = st.forEach ?? st.parallel;
    // `steps.x` in HCL, `"${steps.x}"` in a YAML or JSON file (or an HCL string) alike.
    const m = over?.kind === "hcl" ? /^\s*(?:steps\.([A-Za-z_][\w-]*)|"\$\{\s*steps\.([A-Za-z_][\w-]*)\s*\}")\s*$/.exec(over.text) : over?.kind === "template" ? /^\$\{\s*steps\.([A-Za-z_][\w-]*)\s*\}$/.exec(over.text) : null;
    const name = m?.[1] ?? m?.[2];
    const keys = name ? this.itemKeys(name, s) : undefined;
    const found = name ? s.lookup("steps", name) : undefined;
    return name && keys && found ? { step: name, keys, typeOf: (key) => this.outputType(found.decl, found.scope, key), shell: runsOnShell(found.decl.target) } : undefined;
  }

  /** The output keys of each item of step `name` as seen from `s`, when it iterates and they are known; else undefined. */
  private itemKeys(name: string, s: Scope): string[] | undefined {
    const found = s.lookup("steps", name);
    return found && iterates(found.decl) ? this.outputKeys(found.decl, found.scope) : undefined;
  }

  /**
   * Resolves a reference to a declaration of `table`, or says it is unknown where it is named.
   * @param passed the reference is in a call's `adapters` or `agents` list (a subworkflow's, an
   *   agent's): one of the other kind is said to belong in the other list (found by a new-user
   *   trial: `adapters = [agent.rev]` was an unknown adapter "agent.rev", without a word of `agents`)
   */
  private ref(s: Scope, table: "adapters" | "agents" | "subworkflows" | "channels", name: string, range: Range, what: string, passed = false): boolean {
    const found = s.lookup(table, name);
    if (found) {
      found.scope.used.add(`${table}:${name}`);
      return true;
    }
    const noun = table.slice(0, -1);
    const other = table === "adapters" ? { prefix: "agent.", table: "agents" as const } : table === "agents" ? { prefix: "adapter.", table: "adapters" as const } : undefined;
    if (passed && other && name.startsWith(other.prefix) && s.lookup(other.table, name.slice(other.prefix.length))) {
      this.diagnostics.push(diag("unknown_target", range, `${what}: ${name} is ${other.table === "agents" ? "an agent" : "an adapter"}, not ${noun === "adapter" ? "an adapter" : "an agent"}`, { hint: `list it in ${other.table} = [${name}]` }));
      return false;
    }
    const candidates = table === "agents" ? loadedAgents(s, this.modules) : s.visible(table);
    if (table === "agents" && unloadedFlows(s, this.modules).length && closestName(name, candidates) === undefined) return false; // see step()
    // Adapters are suggested as they are written in an adapters list or a target (adapter.shell.default),
    // as a step's target and a call's expects hints name them (found by a new-user trial: two forms).
    const written = (n: string) => (table === "adapters" ? `adapter.${n}` : table === "agents" ? `agent.${n}` : n);
    this.diagnostics.push(
      diag("unknown_target", range, `${what}: unknown ${noun} "${name}"`, {
        hint: suggest(written(name), candidates.map(written)) ?? (candidates.length === 0 ? `no ${table} are declared; declare one with ${table === "adapters" ? `adapter "${name.split(".")[0]}" "${name.split(".")[1] ?? "default"}" { }` : `${noun} "${name}" { ... }`}` : undefined),
      }),
    );
    return false;
  }

  private step(st: StepSpec, s: Scope, base: ExprContext) {
    const what = `step "${st.name}"`;
    const t = st.target;
    if (t?.kind === "adapter") {
      const key = `${t.type}.${t.name}`;
      const found = s.lookup("adapters", key);
      if (found) {
        this.adapterOf.set(st, found.decl);
        found.scope.used.add(`adapters:${key}`);
      }
      else if (t.implicit) {
        // Older files name a plugin type directly (`adapter = "noop"`): one implicit session per type.
        let a = this.implicit.get(t.type);
        if (!a) {
          a = { name: key, type: t.type, range: t.range, nameRange: t.range, config: {}, implicit: true };
          this.implicit.set(t.type, a);
        }
        this.adapterOf.set(st, a);
      } else {
        const candidates = s.visible("adapters").map((k) => `adapter.${k}`);
        const near = closestName(`adapter.${key}`, candidates);
        // A module that expects adapters from its caller may mean this one too: "expected one of"
        // its other adapters sent the user to rename it (found by a new-user trial).
        const expects = rootOf(s).workflow.header?.expects;
        const expected = [...rootOf(s).workflow.adapters.filter((a) => a.expected).map((a) => `adapter.${a.name}`), `adapter.${key}`];
        const declare = `adapter "${t.type}" "${t.name}" { }`;
        // The near declaration is the typo (`shel.default`, for a built-in `shell`): point there, not
        // here (found by a new-user trial: the right target was told did you mean "adapter.shel.default").
        const builtIn: readonly string[] = BUILT_IN_ADAPTER_TYPES;
        const typo = near === undefined ? undefined : s.lookup("adapters", near.slice("adapter.".length))?.decl;
        const typoDecl = typo && builtIn.includes(t.type) && !builtIn.includes(typo.type) && typo.name.slice(typo.type.length + 1) === t.name ? typo : undefined;
        this.diagnostics.push(
          diag("unknown_target", t.range, `${what}: unknown adapter "${key}"`, {
            ...(near === undefined && expects ? { related: [{ message: "the module's expects", range: expects.range }] } : {}),
            ...(typoDecl ? { related: [{ message: `the declaration "${typoDecl.name}"`, range: typoDecl.nameRange }] } : {}),
            hint: typoDecl
              ? `the declaration "${typoDecl.name}" has the type "${typoDecl.type}", a typo of "${t.type}": correct the declaration to "${key}"`
              : near !== undefined
                ? `did you mean "${near}"?`
                : expects
                  ? `add it to the module's expects { adapters = [${expected.join(", ")}] } for its caller to pass, or declare it in the module: ${declare}`
                  : (suggest(`adapter.${key}`, candidates) ?? `declare it: ${declare}`),
          }),
        );
      }
    } else if (t?.kind === "agent") {
      const found = s.lookup("agents", t.name);
      if (found) {
        found.scope.used.add(`agents:${t.name}`);
        const callee = this.callee(st, s);
        if (callee) this.calleeOf.set(st, callee);
      } else if (!unloadedFlows(s, this.modules).length || closestName(t.name, loadedAgents(s, this.modules)) !== undefined) {
        // (Else a flow of the use list that could not be loaded may be that agent: the failed use is the error.)
        const visible = loadedAgents(s, this.modules);
        this.diagnostics.push(
          diag("unknown_target", t.range, `${what}: unknown agent "${t.name}"`, {
            hint: suggest(t.name, visible) ?? (visible.length === 0 ? `no agents are declared; declare one with agent "${t.name}" { adapter = "..." }` : undefined),
          }),
        );
      }
    } else if (t?.kind === "subworkflow" || t?.kind === "channel") {
      this.ref(s, t.kind === "subworkflow" ? "subworkflows" : "channels", t.name, t.range, what);
      const callee = this.callee(st, s);
      if (callee) this.calleeOf.set(st, callee);
    } else if (t?.kind === "file") {
      // The body file was loaded and decoded into st.body (a missing one is reported by the loader).
    } else if (!t && !st.targetWritten && st.lifecycle === undefined) {
      this.diagnostics.push(
        diag("missing_field", st.nameRange, `${what} has no target`, {
          hint: `set target = adapter.<type>.<name> | agent.<name> | subworkflow.<name>, or give it a workflow { } body`,
        }),
      );
    }
    const iterating = iterates(st);
    const ownEach = iterating ? this.eachValueOf(st, s) : base.eachValueOf;
    const own: ExprContext = { ...base, each: base.each || iterating, eachValueOf: ownEach, what, ...(st.while !== undefined ? { while: true } : {}) };
    // (Contexts and their messages are made only for the expressions a step has: a 500-step
    // file is checked again on every keystroke in an editor.)
    for (const [k, src] of [["count", st.count], ["for_each", st.forEach], ["parallel", st.parallel]] as const) {
      if (src) this.expr(src, { ...base, what: `${what} ${k}` });
    }
    // A step calling a module binds its variables by input key: a secret one may take a secret.
    const calleeSecrets = secretVariables(this.callee(st, s));
    const inputs: { at: string; src: ExprSource; secretOk: boolean }[] = Object.entries(st.input ?? {}).map(([k, src]) => ({ at: `${what} input "${k}"`, src, secretOk: calleeSecrets.has(k) }));
    if (st.inputExpr) inputs.push({ at: `${what} input`, src: st.inputExpr, secretOk: false });
    for (const { at, src, secretOk } of inputs) {
      const e = this.parsed(src, { ...own, what: at, secretOk });
      // Its own output is not there on its first visit: the run fails there (found by a new-user trial).
      for (const read of e ? unguardedReads(e, st.name) : []) {
        this.diagnostics.push(
          diag("reads_own_output", exprRangeAt(src, this.rangeAt)(src.range.file, src.base + read.start, src.base + read.end), `${at}: reads the step's own output, which is not there before the step has run (its first visit fails here)`, {
            hint: `read it in an outcome as step.output.<key>; in a loop, guard it: try(steps.${st.name}.x, "") is "" on the first visit`,
          }),
        );
      }
    }
    if (st.while) this.expr(st.while, { ...own, what: `${what} while`, secretOk: true });
    if (st.secretInput) this.exprs(st.secretInput, { ...own, secretOk: true }, "secret_input");
    // Compile-time numbers: variables and locals only.
    for (const [k, e] of [["max_visits", st.maxVisitsExpr], ["parallel_max", st.parallelMaxExpr]] as const) {
      if (e) this.expr(e, { ...base, each: false, steps: false, what: `${what} ${k}` });
    }
    // The keys of the step's own result, when a module it calls declares them (one item's, or the whole list's, for an iterating step: not checked).
    const declared = iterating ? [] : (this.callee(st, s)?.outputs ?? []);
    const ownKeys = declared.length > 0 ? declared.map((o) => o.name) : undefined;
    for (const o of st.outcomes) {
      this.node(o.next, s, `${what} outcome "${o.name}"`, true, st.name);
      if (!o.outputExpr && o.writes.length === 0 && Object.keys(o.output).length === 0 && Object.keys(o.sharedWrites).length === 0) continue;
      const outcomeCtx: ExprContext = { ...own, what: `${what} outcome "${o.name}"`, step: true, ...(ownKeys ? { ownOutputKeys: ownKeys } : {}) };
      this.exprs(o.output, outcomeCtx, "output");
      this.expr(o.outputExpr, { ...outcomeCtx, what: `${outcomeCtx.what} output` });
      const written = new Set(o.writes.map((w) => w.target));
      // What a write's `output.*` may read (engine/run/outcome-effects.ts): the outcome's projection
      // over the step's own result (an item's, in an iterating step's per-item outcome: found by a
      // new-user trial, output.stdout was refused there), or the projection alone in its
      // step-wide ones (its own result is a list); unknown when the projection is one expression
      // or the step's result is open.
      const projected = Object.keys(o.output);
      const selfKeys = iterating && STEP_WIDE_OUTCOMES.has(o.name) ? [] : this.outputKeys(st, s);
      const projectedKeys = o.outputExpr || selfKeys === undefined ? undefined : [...new Set([...selfKeys, ...projected])];
      for (const w of o.writes) {
        if (!s.lookup("data", w.target)) {
          this.diagnostics.push(diag("unknown_reference", w.targetRange, `${what} outcome "${o.name}": write to unknown data value "${w.target}"`, { hint: suggest(w.target, s.visible("data")) ?? `declare it: data "${w.target.split(".")[0]}" "${w.target.split(".")[1]}" { type = string }` }));
        } else s.lookup("data", w.target)!.scope.used.add(`data:${w.target}`);
        // Every write reads the step-entry snapshot: reading what another write of this outcome
        // writes sees the old value. A write reading its own target (`left = left - 1`) is the
        // plain update it looks like (found by a new-user trial: the docs' own example warned).
        for (const ref of this.expr(w.value, { ...outcomeCtx, what: `${outcomeCtx.what} write`, projected: true, ...(projectedKeys ? { projectedKeys } : {}) })) {
          const key = ref.root === "data" && typeof ref.path[0] === "string" && typeof ref.path[1] === "string" ? `${ref.path[0]}.${ref.path[1]}` : undefined;
          if (key !== undefined && key !== w.target && written.has(key)) {
            this.diagnostics.push(
              diag("write_reads_write", w.value.range, `${what} outcome "${o.name}": this write reads data "${key.replace(".", '" "')}", which the same outcome writes: it sees the value from before the step`, {
                hint: "writes of one step are atomic against the step-entry snapshot; to read a write's result, write in a later step",
              }),
            );
            break;
          }
        }
      }
      this.exprs(o.sharedWrites, outcomeCtx, "shared_writes");
      for (const [k, v] of Object.entries(o.sharedWrites)) {
        if (!s.lookup("shared", k)) {
          this.diagnostics.push(diag("unknown_reference", v.keyRange ?? v.range, `${what} outcome "${o.name}": unknown shared variable "${k}"`, { hint: suggest(k, s.visible("shared")) }));
        }
      }
    }
    this.environment(st.environment, s, what);
    // The called module's steps run in their own environments: this one would bind nothing
    // (the Go tool's workflow.md, Step-level environment override: a compile error; found
    // by a trial of its language: accepted, and the child never saw the variables).
    if (st.environment && st.target?.kind === "subworkflow") {
      this.diagnostics.push(
        diag("invalid_value", st.environment.range, `${what}: "environment" on a step that calls subworkflow "${st.target.name}" would have no effect: the module's steps run in the environments it declares`, {
          hint: "declare the environment in the module's own files (an environment on the subworkflow block is not there yet), or pass the values as its input",
        }),
      );
    }
  }
}

/** The module's variables marked secret (a binding of one may take a secret). */
function secretVariables(m: ModuleInterface | undefined): Set<string> {
  return new Set((m?.variables ?? []).filter((v) => v.secret).map((v) => v.name));
}

/**
 * The keys a `noop` step's output has when its input is written key by key: a noop step
 * echoes its input (engine/adapters/noop.ts), plus its outcomes' `output` keys; undefined
 * for any other step, an input given as one expression, or a projection written as one.
 */
function noopOutputKeys(st: StepSpec): string[] | undefined {
  if (st.target?.kind !== "adapter" || st.target.type !== "noop" || st.inputExpr || st.outcomes.some((o) => o.outputExpr)) return undefined;
  // Its secret_input is not echoed (a secret is never an output).
  return [...Object.keys(st.input ?? {}), ...st.outcomes.flatMap((o) => Object.keys(o.output))];
}
