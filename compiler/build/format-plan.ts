import { durationText } from "../decode/durations.js";
import type { Graph, GraphExpr, GraphOutcome, GraphStep } from "./graph.js";
import { BUILT_IN_ADAPTER_TYPES } from "../resolve/adapter-fields.js";
import { exprLabel } from "./expr-label.js";
import { expectedOf } from "./graph-edges.js";

/**
 * The readable `criteria plan` summary, in the Go tool's layout and with its facts
 * (header, policy, variables, adapters with type, on_crash and config keys, steps in
 * declaration order with their target, input keys and outcomes, states, adapters
 * required), extended with agents, iteration, bodies (indented), the other node kinds,
 * subworkflows and their modules; waits with their signal and timeout, approvals with
 * their timeout, both with their routes; each step's limits (timeout, max_visits,
 * parallel_max, on_failure), locals and outputs as written. Secret values are never shown.
 */
export function toPlan(g: Graph): string {
  const out: string[] = [];
  out.push(`workflow: ${g.name}${g.version !== undefined ? `  (version ${g.version})` : ""}`);
  out.push(`initial_state: ${g.initial_state}   target_state: ${g.target_state ?? "(none)"}`);
  out.push(`policy: max_total_steps=${g.policy.max_total_steps}  max_step_retries=${g.policy.max_step_retries}`);
  out.push("", "variables:");
  if (g.variables.length === 0) out.push("  (none)");
  for (const v of g.variables) out.push(`  ${variableLine(v)}`);
  out.push("", "adapters:");
  const own = g.adapters.filter((a) => !a.inherited);
  if (own.length === 0) out.push("  (none)");
  for (const a of own) {
    out.push(`  ${a.id}   type=${a.type}   on_crash=${a.on_crash ?? "fail"}${a.source ? `   source=${a.source}` : ""}`);
    const keys = Object.keys(a.config);
    out.push(`    config: ${keys.length ? keys.join(", ") : "(none)"}`);
    if (a.secrets) out.push(`    secrets: ${Object.keys(a.secrets).join(", ")}`);
  }
  out.push("", "agents:");
  if (g.agents.length === 0) out.push("  (none)");
  for (const a of g.agents) out.push(`  ${a.name}   ${a.flow ? `flow=${a.flow.module}` : a.adapter ? `adapter=${a.adapter}` : a.cli ? `cli=${a.cli}` : ""}${a.model ? `  model=${a.model}` : ""}${a.inherited ? "  (inherited)" : ""}`.trimEnd());
  if (g.channels.length > 0) {
    out.push("", "channels:");
    for (const c of g.channels) out.push(`  ${c.name}   participants=${c.participants.join(", ")}`);
  }
  out.push("", "steps (declaration order):");
  steps(g.steps, "  ", out, g.policy.max_total_steps);
  nodes(g, "", out, true);
  if ((g.data ?? []).length > 0) {
    out.push("", "data:");
    for (const d of g.data!) out.push(`  ${d.name}${d.type ? `: ${d.type}` : ""}${d.value ? ` = ${d.value.text}` : ""}`);
  }
  // Locals and outputs, each with what it is written as (found by a new-user trial: left out).
  if (g.locals.length > 0) {
    out.push("", "locals:");
    for (const l of g.locals) out.push(`  ${l.name} = ${written(l.value)}`);
  }
  if (g.outputs.length > 0) {
    out.push("", "outputs:");
    for (const o of g.outputs) out.push(`  ${outputLine(o)}`);
  }
  out.push("", "states:");
  // A workflow that ends through return may declare none (found by a trial: an empty section).
  if (g.states.length === 0) out.push("  (none)");
  for (const s of g.states) out.push(stateLine(s, "  "));
  if ((g.subworkflows ?? []).length > 0) {
    out.push("", "subworkflows:");
    subworkflows(g, "  ", out);
  }
  const expects = expectedOf(g);
  if (expects.length > 0) out.push("", `expects from its caller: ${expects.join(", ")}`);
  for (const [key, m] of Object.entries(g.modules ?? {})) {
    out.push("", `module ${key}: workflow ${m.name}`);
    const ex = expectedOf(m);
    if (ex.length > 0) out.push(`  expects from its caller: ${ex.join(", ")}`);
    // What a caller binds and reads: its variables and outputs (found by a new-user trial: left out).
    if (m.variables.length > 0) out.push("  variables:", ...m.variables.map((v) => `    ${variableLine(v)}`));
    if (m.outputs.length > 0) out.push("  outputs:", ...m.outputs.map((o) => `    ${outputLine(o)}`));
    steps(m.steps, "  ", out, g.policy.max_total_steps);
    // Its other nodes, as a body's (found by a new-user trial: a module's waits and states were left out).
    nodes(m, "  ", out, false);
    if (m.states.length > 0) out.push("  states:", ...m.states.map((st) => stateLine(st, "    ")));
    // Its own subworkflows, as the root's are listed (found by a new-user trial: left out).
    if ((m.subworkflows ?? []).length > 0) {
      out.push("  subworkflows:");
      subworkflows(m, "    ", out);
    }
  }
  out.push("", "adapters required:");
  if (g.plugins_required.length === 0) out.push("  (none)");
  for (const p of g.plugins_required) out.push(`  ${p}   ${(BUILT_IN_ADAPTER_TYPES as readonly string[]).includes(p) ? "(built in)" : `(search: $CRITERIA_PLUGINS, ./adapters, $PATH for criteria-adapter-${p})`}`);
  return out.join("\n") + "\n";
}

/** A variable as plan lists it: `name: type = default`, or `(required)`; a secret's default withheld. */
function variableLine(v: Graph["variables"][number]): string {
  return `${v.name}${v.type ? `: ${v.type}` : ""}${v.default ? ` = ${v.secret ? "(secret)" : v.default.text}` : `  (required${v.secret ? ", secret" : ""})`}`;
}

/** An output as plan lists it: `name: type = expression`, a secret one's expression withheld. */
function outputLine(o: Graph["outputs"][number]): string {
  return `${o.name}${o.type ? `: ${o.type}` : ""}${o.secret ? "  (secret)" : o.value ? ` = ${written(o.value)}` : ""}`;
}

/** A workflow's subworkflow blocks: the module each calls, its input keys, what it passes. */
function subworkflows(g: Graph, ind: string, out: string[]): void {
  for (const s of g.subworkflows ?? []) {
    const passes = [...s.adapters.map((a) => `adapter.${a}`), ...s.agents.map((a) => `agent.${a}`)];
    out.push(`${ind}${s.name}   module=${s.module}${Object.keys(s.input).length ? `  input: ${Object.keys(s.input).join(", ")}` : ""}${passes.length ? `  passes: ${passes.join(", ")}` : ""}`);
  }
}

/** An expression as a file writes it: a string quoted (`"hi there"`, a template `"echo ${x}"`), anything else as its text. */
function written(e: GraphExpr): string {
  if (e.kind === "template") return `"${e.text}"`;
  return e.kind === "literal" ? JSON.stringify(e.value) : e.text;
}

/** Outcomes as `name -> next`, comma separated; `(none)` when there are none. */
function routes(outcomes: readonly GraphOutcome[]): string {
  return outcomes.map((o) => `${o.name} -> ${o.next}`).join(", ") || "(none)";
}

function targetText(s: GraphStep): string {
  switch (s.target.kind) {
    case "adapter":
      return `adapter=${s.target.id}`;
    case "agent":
      return `agent=${s.target.name}`;
    case "body":
      return "workflow body";
    case "subworkflow":
      return `subworkflow=${s.target.name}`;
    case "channel":
      return `channel=${s.target.name}`;
    default:
      return "";
  }
}

/** @param budget the run's max_total_steps (nested runs count toward their root's) */
function steps(list: GraphStep[], ind: string, out: string[], budget: number): void {
  for (const s of list) {
    const it = s.iteration ? `   ${s.iteration.kind}=${exprLabel(s.iteration.expr)}` : "";
    // The environment it runs in, its own or the header's (found by a new-user trial: not shown).
    const env = s.environment ? `   environment=${s.environment.id}` : "";
    out.push(`${ind}${s.name}   ${targetText(s)}${it}${env}`.trimEnd());
    const envKeys = s.environment ? Object.keys(s.environment.variables) : [];
    if (envKeys.length > 0) out.push(`${ind}  environment variables: ${envKeys.join(", ")}`);
    const keys = Object.keys(s.input);
    out.push(`${ind}  input keys: ${keys.length ? keys.join(", ") : "(none)"}`);
    out.push(`${ind}  allow_tools: ${s.allow_tools.length ? s.allow_tools.join(", ") : "(none)"}`);
    out.push(`${ind}  outcomes: ${routes(s.outcomes)}`);
    // What bounds the step's runs (found by a new-user trial: a YAML `timeout: 2s` and a
    // `max_visits = var.max_rounds` shaped the run and plan said neither).
    const limits = [
      s.timeout_ms !== undefined ? `timeout=${durationText(s.timeout_ms)}` : "",
      s.max_visits !== undefined ? `max_visits=${s.max_visits}` : s.max_visits_expr ? `max_visits=${exprLabel(s.max_visits_expr)}` : "",
      // A while loop without max_visits ends only when the run's step budget does (the Go
      // tool's ADR-0002, "Runaway risk"; found by a new-user trial: plan named neither).
      s.iteration?.kind === "while" && s.max_visits === undefined && !s.max_visits_expr ? `max_visits=none (max_total_steps=${budget} stops the loop)` : "",
      s.iteration?.parallel_max !== undefined ? `parallel_max=${s.iteration.parallel_max}` : s.iteration?.parallel_max_expr ? `parallel_max=${exprLabel(s.iteration.parallel_max_expr)}` : s.iteration?.kind === "parallel" ? "parallel_max=all" : "",
      // Defaults too: parallel's is abort, the others' continue (found by a new-user trial: a
      // parallel step showed none, and its first failure stopping the rest was a surprise).
      s.iteration ? `on_failure=${s.on_failure}` : "",
    ].filter(Boolean);
    if (limits.length > 0) out.push(`${ind}  limits: ${limits.join("   ")}`);
    if (s.secret_input) out.push(`${ind}  secret_input: ${Object.keys(s.secret_input).join(", ")}`);
    const writes = s.outcomes.flatMap((o) => (o.writes ?? []).map((w) => `${o.name}: data.${w.target}`));
    if (writes.length > 0) out.push(`${ind}  writes: ${writes.join(", ")}`);
    if (s.body) {
      out.push(`${ind}  body:`);
      steps(s.body.steps, `${ind}    `, out, budget);
      // Its other nodes and states (found by a new-user trial: a body's wait showed only as an outcome's target).
      nodes(s.body, `${ind}    `, out, false);
      if (s.body.states.length > 0) out.push(`${ind}    states:`, ...s.body.states.map((st) => stateLine(st, `${ind}      `)));
    }
  }
}

/** A state as plan lists it. */
function stateLine(s: Graph["states"][number], ind: string): string {
  return `${ind}${s.name}    terminal=${s.terminal}   success=${s.success}`;
}

/**
 * A graph's branches, waits and approvals, each kind under its title at `ind` and its
 * nodes indented under it; `blank`: a blank line before each title (the root's layout;
 * a body's and a module's nodes follow their steps without one).
 */
function nodes(g: Graph, ind: string, out: string[], blank: boolean): void {
  const title = (t: string) => (blank ? out.push("", `${ind}${t}`) : out.push(`${ind}${t}`));
  if (g.branches.length > 0) {
    title("branches:");
    for (const b of g.branches) {
      out.push(`${ind}  ${b.name}`);
      for (const a of b.arms) out.push(`${ind}    when ${exprLabel(a.when)} -> ${a.next}${a.output ? `  output: ${Object.keys(a.output).join(", ")}` : ""}`);
      if (b.default) out.push(`${ind}    default -> ${b.default}${b.default_output ? `  output: ${Object.keys(b.default_output).join(", ")}` : ""}`);
    }
  }
  if (g.waits.length > 0) {
    title("waits:");
    // A signal wait with a duration waits for the signal, the duration its timeout (found by a
    // new-user trial: it read as a plain timer); durations as a file writes them.
    for (const w of g.waits) {
      const what = w.signal ? `signal="${w.signal}"${w.duration_ms !== undefined ? `   timeout=${durationText(w.duration_ms)}` : ""}` : `duration=${durationText(w.duration_ms ?? 0)}`;
      out.push(`${ind}  ${w.name}   ${what}`);
      out.push(`${ind}    ${w.next !== undefined ? `next -> ${w.next}` : `outcomes: ${routes(w.outcomes)}`}`);
    }
  }
  if (g.approvals.length > 0) {
    title("approvals:");
    for (const a of g.approvals) {
      out.push(`${ind}  ${a.name}   approvers=${a.approvers.join(",") || "(any)"}${a.timeout_ms !== undefined ? `   timeout=${durationText(a.timeout_ms)}` : ""}`);
      out.push(`${ind}    outcomes: ${routes(a.outcomes)}`);
    }
  }
}
