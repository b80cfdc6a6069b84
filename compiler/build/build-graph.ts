import type { AdapterSpec, AgentSpec, ExprSource, OutcomeSpec, StepSpec, WorkflowSpec } from "../decode/spec.js";
import type { Resolution } from "../resolve/resolve-workflow.js";
import type { Scope } from "../resolve/scope.js";
import { DEFAULT_POLICY, type Graph, type GraphAdapter, type GraphAgent, type GraphExpr, type GraphOutcome, type GraphStep } from "./graph.js";

/**
 * Builds the `Graph` of a resolved, checked workflow (docs/architecture.md, The compiler: Build).
 * Child graphs hang off their step (`body`); a body's adapter and agent tables list
 * what it uses from enclosing scopes as `inherited` entries (aliases of the parent's
 * sessions, not copies). Only call when there are no errors.
 */
export function buildGraph(spec: WorkflowSpec, res: Resolution, moduleKey: (id: string) => string = (id) => id): Graph {
  return build(res.root, res, spec, moduleKey);
}

function expr(e: ExprSource): GraphExpr {
  // Exact when the text starts where `at` points and runs on in the file as written (found by a
  // new-user trial: a failing reference inside a string was reported at its opening quote).
  const exact = (e.kind === "hcl" || e.kind === "template") && e.exact && !e.chars && e.base === e.range.start.offset;
  // A quoted YAML/JSON string without escapes: its text starts after the quote, on the same
  // line (found by a new-user trial: such a string's failing part was reported at its quote).
  const quoted = e.kind === "template" && e.exact && !e.chars && e.base === e.range.start.offset + 1;
  const textAt = quoted ? `${e.range.file}:${e.range.start.line}:${e.range.start.column + 1}` : undefined;
  // Any other YAML/JSON string (escapes, folding, blocks): where each of its runs is written
  // (found by a new-user trial: an error inside such a string was said at its start).
  const places = e.kind === "template" && e.exact && e.chars ? e.chars.places() : undefined;
  return {
    kind: e.kind,
    text: e.text,
    value: e.value,
    at: at(e.range),
    ...(exact || quoted || places ? { exact: true as const } : {}),
    ...(textAt ? { textAt } : {}),
    ...(places ? { places: places.map((p) => [p[0], p[1], p[2]] as [number, number, number]) } : {}),
  };
}

function exprs(m: Record<string, ExprSource> | undefined): Record<string, GraphExpr> {
  const out = Object.create(null) as Record<string, GraphExpr>;
  for (const [k, v] of Object.entries(m ?? {})) out[k] = expr(v);
  return out;
}

function outcome(o: OutcomeSpec): GraphOutcome {
  return {
    name: o.name,
    next: o.next?.name ?? "",
    output: exprs(o.output),
    ...(o.outputExpr ? { output_expr: expr(o.outputExpr) } : {}),
    shared_writes: exprs(o.sharedWrites),
    ...(o.writes.length > 0 ? { writes: o.writes.map((w) => ({ target: w.target, value: expr(w.value) })) } : {}),
  };
}

const at = (r: { file: string; start: { line: number; column: number } }) => `${r.file}:${r.start.line}:${r.start.column}`;

/** What an adapter declaration adds to its graph entry: position, OCI source, secrets. */
function adapterExtras(a: AdapterSpec): Pick<GraphAdapter, "at" | "source" | "version" | "secrets"> {
  return {
    at: at(a.nameRange),
    ...(a.source ? { source: a.source.text } : {}),
    ...(a.version ? { version: a.version } : {}),
    ...(a.secrets && Object.keys(a.secrets).length > 0 ? { secrets: exprs(a.secrets) } : {}),
  };
}

function build(scope: Scope, res: Resolution, root: WorkflowSpec, moduleKey: (id: string) => string): Graph {
  const w = scope.workflow;
  const h = w.header;
  const adapters = new Map<string, GraphAdapter>();
  const agents = new Map<string, GraphAgent>();
  for (const a of w.adapters) {
    // An entry the module `expects` is the caller's: an alias, like a body's inherited one.
    adapters.set(a.name, { id: a.name, type: a.type, name: a.name.split(".")[1] ?? "default", ...(a.onCrash ? { on_crash: a.onCrash } : {}), config: exprs(a.config), inherited: a.expected === true, implicit: false, ...adapterExtras(a) });
  }
  for (const a of w.agents) agents.set(a.name, agentOf(a, a.expected === true, moduleKey));
  const steps: GraphStep[] = w.steps.map((st) => {
    const g = step(st, scope, res, root, moduleKey);
    // Register what the step uses from enclosing scopes as inherited aliases.
    if (g.target.kind === "adapter" && !adapters.has(g.target.id)) {
      const a = res.adapterOf.get(st)!;
      const own = scope.adapters.get(a.name) === a;
      adapters.set(a.name, { id: a.name, type: a.type, name: a.name.split(".")[1] ?? "default", config: exprs(a.config), inherited: !own && !(a.implicit && !scope.parent), implicit: a.implicit === true, ...adapterExtras(a) });
    }
    if (g.target.kind === "agent" && !agents.has(g.target.name)) {
      const found = scope.lookup("agents", g.target.name);
      if (found) agents.set(g.target.name, agentOf(found.decl, found.scope !== scope || found.decl.expected === true, moduleKey));
    }
    return g;
  });
  // A body inherits everything its own bodies inherit from further out.
  for (const st of steps) {
    for (const a of st.body?.adapters ?? []) if (a.inherited && !adapters.has(a.id)) adapters.set(a.id, { ...a, inherited: scope.lookup("adapters", a.id)?.scope !== scope && !(a.implicit && !scope.parent) });
    for (const a of st.body?.agents ?? []) if (a.inherited && !agents.has(a.name)) agents.set(a.name, { ...a, inherited: scope.lookup("agents", a.name)?.scope !== scope });
  }
  const policy = { ...DEFAULT_POLICY };
  const p = (scope.parent ? undefined : w.policy) ?? (scope.parent ? undefined : root.policy);
  if (p?.maxTotalSteps !== undefined) policy.max_total_steps = p.maxTotalSteps;
  if (p?.maxStepRetries !== undefined) policy.max_step_retries = p.maxStepRetries;
  if (p?.maxVisitsWarnThreshold !== undefined) policy.max_visits_warn_threshold = p.maxVisitsWarnThreshold;
  if (p?.maxDepth !== undefined) policy.max_depth = p.maxDepth;
  const plugins = new Set<string>();
  const collect = (g: Graph) => {
    for (const a of g.adapters) plugins.add(a.type);
    for (const a of g.agents) if (a.adapter ?? a.cli) plugins.add((a.adapter ?? a.cli)!);
    for (const s of g.steps) if (s.body) collect(s.body);
  };
  const memory = h?.memory && !scope.parent ? { memory: { script: h.memory.script === true, ...(h.memory.agent ? { agent: h.memory.agent } : {}) } } : {};
  const subworkflows = w.subworkflows.filter((sw) => sw.source.module !== undefined);
  const graph: Graph = {
    schema_version: 1,
    // A body's header need not be named (`workflow { initial_state = ... }`): it is its step's body.
    name: h?.name || (scope.owner ? `${scope.owner.name}.body` : ""),
    ...(h?.version !== undefined ? { version: h.version } : {}),
    initial_state: h?.initialState?.name ?? w.steps[0]?.name ?? "",
    ...(h?.targetState ? { target_state: h.targetState.name } : {}),
    ...(h?.identity ? { identity: h.identity } : {}),
    policy,
    variables: w.variables.map((v) => ({ name: v.name, ...(v.type ? { type: v.type } : {}), ...(v.description ? { description: v.description } : {}), ...(v.default ? { default: expr(v.default) } : {}), required: v.default === undefined, ...(v.secret ? { secret: true } : {}) })),
    locals: w.locals.map((l) => ({ name: l.name, value: expr(l.value) })),
    shared_variables: w.sharedVariables.map((s) => ({ name: s.name, ...(s.type ? { type: s.type } : {}), ...(s.value ? { value: expr(s.value) } : {}) })),
    ...(w.data.length > 0 ? { data: w.data.map((d) => ({ name: d.name, ...(d.type ? { type: d.type } : {}), ...(d.value ? { value: expr(d.value) } : {}) })) } : {}),
    adapters: [...adapters.values()],
    agents: [...agents.values()],
    channels: w.channels.map((c) => ({ name: c.name, participants: c.participants.map((p) => p.ref.replace(/^agent\./, "")) })),
    steps,
    states: w.states.map((s) => ({ name: s.name, terminal: s.terminal, success: s.success, ...(s.requires ? { requires: s.requires.name } : {}) })),
    waits: w.waits.map((x) => ({ name: x.name, ...(x.duration ? { duration_ms: x.duration.ms } : {}), ...(x.signal ? { signal: x.signal } : {}), ...(x.next ? { next: x.next.name } : {}), outcomes: x.outcomes.map(outcome) })),
    approvals: w.approvals.map((a) => ({ name: a.name, approvers: a.approvers, ...(a.reason ? { reason: expr(a.reason) } : {}), ...(a.timeout ? { timeout_ms: a.timeout.ms } : {}), outcomes: a.outcomes.map(outcome) })),
    branches: w.branches.map((b) => ({
      name: b.name,
      ...(b.keyword === "switch" ? { switch: true as const } : {}),
      arms: b.arms.map((a) => ({ when: expr(a.when), next: a.next?.name ?? "", ...(Object.keys(a.output).length > 0 ? { output: exprs(a.output) } : {}) })),
      ...(b.default ? { default: b.default.name } : {}),
      ...(b.defaultOutput && Object.keys(b.defaultOutput).length > 0 ? { default_output: exprs(b.defaultOutput) } : {}),
    })),
    outputs: w.outputs.map((o) => ({ name: o.name, ...(o.type ? { type: o.type } : {}), ...(o.description ? { description: o.description } : {}), ...(o.value ? { value: expr(o.value) } : {}), ...(o.secret ? { secret: true } : {}) })),
    step_order: w.steps.map((s) => s.name),
    plugins_required: [],
    ...memory,
    ...(subworkflows.length > 0
      ? {
          subworkflows: subworkflows.map((sw) => ({
            name: sw.name,
            module: moduleKey(sw.source.module!),
            input: exprs(sw.input),
            adapters: sw.adapters.map((a) => a.ref.replace(/^adapter\./, "")),
            agents: sw.agents.map((a) => a.ref.replace(/^agent\./, "")),
          })),
        }
      : {}),
  };
  collect(graph);
  graph.plugins_required = [...plugins].sort();
  return graph;
}

function agentOf(a: AgentSpec, inherited: boolean, moduleKey: (id: string) => string): GraphAgent {
  return {
    name: a.name,
    ...(a.adapter ? { adapter: a.adapter } : {}),
    ...(a.cli ? { cli: a.cli } : {}),
    ...(a.model ? { model: a.model } : {}),
    ...(a.onCrash ? { on_crash: a.onCrash } : {}),
    config: exprs(a.config),
    inherited,
    ...(a.use?.module
      ? { flow: { module: moduleKey(a.use.module), adapters: a.adapters.map((x) => x.ref.replace(/^adapter\./, "")), agents: a.agents.map((x) => x.ref.replace(/^agent\./, "")) } }
      : {}),
  };
}

/** The first value `f` gives walking from `scope` outwards. */
function nearest<T>(scope: Scope, f: (s: Scope) => T | undefined): T | undefined {
  for (let s: Scope | undefined = scope; s; s = s.parent) {
    const v = f(s);
    if (v !== undefined) return v;
  }
  return undefined;
}

/**
 * The environment a step runs in: its own, else the nearest header's, else the one
 * environment its workflow declares when it declares exactly one (the upstream spec,
 * "Default environment").
 */
function environmentOf(st: StepSpec, scope: Scope, adapter: AdapterSpec | undefined): Pick<GraphStep, "environment"> {
  const only = (s: Scope) => (s.workflow.environments.length === 1 ? s.workflow.environments[0].name : undefined);
  // A step's own, else its adapter's (found by a new-user trial: an adapter's environment was
  // accepted and ignored, so a sandbox one ran unisolated), else the header's, else the only one.
  const name = st.environment?.name ?? adapter?.environment?.name ?? nearest(scope, (s) => s.workflow.header?.environment?.name ?? only(s));
  const env = name ? scope.lookup("environments", name)?.decl : undefined;
  return env ? { environment: { id: env.name, variables: exprs(env.variables), config: exprs(env.config), at: at(env.nameRange) } } : {};
}

function step(st: StepSpec, scope: Scope, res: Resolution, root: WorkflowSpec, moduleKey: (id: string) => string): GraphStep {
  const t = st.target;
  let target: GraphStep["target"] = { kind: "none" };
  let adapterType: string | undefined;
  if (t?.kind === "adapter") {
    const a = res.adapterOf.get(st);
    target = { kind: "adapter", id: a?.name ?? `${t.type}.${t.name}` };
    adapterType = a?.type ?? t.type;
  } else if (t?.kind === "agent") {
    target = { kind: "agent", name: t.name };
    const a = scope.lookup("agents", t.name)?.decl;
    adapterType = a?.adapter ?? a?.cli;
  } else if (t?.kind === "body" || t?.kind === "file") target = { kind: "body" };
  else if (t?.kind === "subworkflow") target = { kind: "subworkflow", name: t.name };
  else if (t?.kind === "channel") target = { kind: "channel", name: t.name };
  const iteration = st.count
    ? { kind: "count" as const, expr: expr(st.count) }
    : st.forEach
      ? { kind: "for_each" as const, expr: expr(st.forEach) }
      : st.parallel
        ? {
            kind: "parallel" as const,
            expr: expr(st.parallel),
            ...(st.parallelMax !== undefined ? { parallel_max: st.parallelMax } : {}),
            ...(st.parallelMaxExpr ? { parallel_max_expr: expr(st.parallelMaxExpr) } : {}),
          }
        : st.while
          ? { kind: "while" as const, expr: expr(st.while) }
          : undefined;
  const bodyScope = res.bodyOf.get(st);
  return {
    name: st.name,
    at: at(st.nameRange),
    target,
    ...(adapterType ? { adapter_type: adapterType } : {}),
    ...(st.description ? { description: st.description } : {}),
    input: exprs(st.input),
    ...(st.inputExpr ? { input_expr: expr(st.inputExpr) } : {}),
    ...(st.timeout ? { timeout_ms: st.timeout.ms } : {}),
    ...(st.maxVisits !== undefined ? { max_visits: st.maxVisits } : {}),
    ...(st.maxVisitsExpr ? { max_visits_expr: expr(st.maxVisitsExpr) } : {}),
    ...(st.secretInput && Object.keys(st.secretInput).length > 0 ? { secret_input: exprs(st.secretInput) } : {}),
    ...(iteration ? { iteration } : {}),
    // The Go tool's defaults (LANGUAGE-SPEC.md, on_failure): "abort" for parallel, "continue" for the sequential kinds.
    on_failure: st.onFailure ?? (st.parallel ? "abort" : "continue"),
    ...(st.defaultOutcome ? { default_outcome: st.defaultOutcome.name } : {}),
    ...(st.lifecycle ? { lifecycle: st.lifecycle } : {}),
    ...(st.onCrash ? { on_crash: st.onCrash } : {}),
    allow_tools: st.allowTools ?? nearest(scope, (s) => s.workflow.permissions?.allowTools) ?? [],
    ...environmentOf(st, scope, t?.kind === "adapter" ? res.adapterOf.get(st) : undefined),
    outcomes: st.outcomes.map(outcome),
    ...(bodyScope ? { body: build(bodyScope, res, root, moduleKey) } : {}),
  };
}
