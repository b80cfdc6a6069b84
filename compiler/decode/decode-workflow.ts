import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { exprAs, fieldAs } from "../diagnostics/dialect-hint.js";
import type { Range } from "../diagnostics/range.js";
import type { JsonObject, JsonValue } from "../parse/document.js";
import { childPointer, type SourceMap } from "../parse/source-map.js";
import { describePointer, pointerSegments } from "./describe.js";
import { durationTooLong, parseDuration } from "./durations.js";
import { bareType, parseType, type TypeExpr } from "./types.js";
import { meantKeys, type KeyedSection } from "./section-keys.js";
import { memoStep } from "./step-memo.js";
import {
  emptyWorkflow,
  type AdapterSpec,
  type AgentSpec,
  type BranchSpec,
  type ExprSource,
  type HeaderSpec,
  type NodeRef,
  type OutcomeSpec,
  type StepSpec,
  type TargetSpec,
  type WorkflowSpec,
  type WriteSpec,
} from "./spec.js";

/** Reserved node names: `_continue` (next iteration) and `return` (leave a body). */
export const RESERVED_TARGETS = new Set(["_continue", "return"]);

/** A reference written as a plain string where an expression was meant (`count: var.n` in YAML): hints write it as one. */
const REFERENCE = /^(var|local)\.[A-Za-z_][\w-]*$/;

/**
 * Decodes a canonical document (already shape-checked against the schema) into a
 * typed `WorkflowSpec`. Robust on invalid documents: a field of the wrong shape is
 * skipped (the schema already reported it), so a partial spec always comes back.
 *
 * Semantics decoded here (docs/language.md): both target forms (`target =
 * adapter.T.N` and the older `adapter = "T"` / `agent = "n"` / `type = "workflow"`),
 * `next` and its older spelling `transition_to`, `next = state.x` traversals, Go
 * durations. Problems found while decoding are diagnostics, never exceptions.
 */
export function decodeWorkflow(doc: JsonObject, map: SourceMap, fallback: Range): { spec: WorkflowSpec; diagnostics: Diagnostic[] } {
  const d = new Decoder(map, fallback);
  const spec = d.workflow(doc, "");
  return { spec, diagnostics: d.diagnostics };
}

/** True when a map (or a map inside a list or map) has a key holding a `${...}` template. */
function hasTemplateKey(v: JsonValue): boolean {
  if (Array.isArray(v)) return v.some(hasTemplateKey);
  if (v !== null && typeof v === "object") return Object.entries(v).some(([k, x]) => k.includes("${") || hasTemplateKey(x));
  return false;
}

/** True when a list or map holds a `${...}` or `%{...}` template anywhere inside. */
function hasTemplate(v: JsonValue): boolean {
  if (typeof v === "string") return v.includes("${") || v.includes("%{");
  if (Array.isArray(v)) return v.some(hasTemplate);
  if (v !== null && typeof v === "object") return Object.values(v).some(hasTemplate);
  return false;
}

const isObj = (v: JsonValue | undefined): v is JsonObject => v !== null && typeof v === "object" && !Array.isArray(v);
const str = (v: JsonValue | undefined): string | undefined => (typeof v === "string" ? v : undefined);
/** A type as written: quoted (`"list(string)"`) or bare (`list(string)`, rendered `${list(string)}`). */
const typeText = (v: JsonValue | undefined): string | undefined => {
  const s = str(v);
  return s === undefined ? undefined : bareType(s);
};
const int = (v: JsonValue | undefined): number | undefined => (typeof v === "number" && Number.isInteger(v) ? v : undefined);

/**
 * True when an expression is a string template with text outside its `${...}` (`"${a} b"`,
 * `"prod"`): as a condition it would be a string, never a bool. A template that is one
 * interpolation and nothing else (`"${a == b}"`) yields its value and is fine.
 */
function isStringTemplate(e: ExprSource): boolean {
  const t = e.kind === "hcl" ? e.text.trim() : e.kind === "template" ? `"${e.text}"` : "";
  if (!t.startsWith('"')) return false;
  const inner = t.slice(1, -1);
  return !(inner.startsWith("${") && inner.endsWith("}") && inner.indexOf("${", 2) === -1);
}

/** `${ x }` wrapping one traversal or name, as hcl2json renders a bare HCL expression. */
const WRAPPED = /^\$\{\s*([\p{ID_Start}_][\p{ID_Continue}-]*(?:\.[\p{ID_Start}_][\p{ID_Continue}-]*)*)\s*\}$/u;

class Decoder {
  readonly diagnostics: Diagnostic[] = [];
  constructor(
    private readonly map: SourceMap,
    private readonly fallback: Range,
  ) {}

  range(ptr: string): Range {
    let p = ptr;
    for (;;) {
      const e = this.map.get(p);
      if (e) return e.range;
      if (p === "") return this.fallback;
      p = p.slice(0, p.lastIndexOf("/"));
    }
  }

  keyRange(ptr: string): Range {
    const e = this.map.get(ptr);
    return e?.keyRange ?? this.range(ptr);
  }

  /** An expression field: HCL text with exact offsets, a YAML template, or a literal. */
  expr(v: JsonValue, ptr: string): ExprSource {
    const e = this.map.get(ptr);
    const range = e?.range ?? this.range(ptr);
    const dynamic = typeof v === "string" && (v.includes("${") || v.includes("%{"));
    const nested = v !== null && typeof v === "object" && hasTemplate(v);
    // HCL: the attribute's own source text, parsed whole (objects and lists included); a key
    // computed from an expression (`{ (var.v) = 1 }`, lowered to a "${...}" key) too: taken for
    // a literal, its key stayed that text at run time (found by a trial of this session's checks).
    if (e?.exprText !== undefined && (dynamic || nested || (v !== null && typeof v === "object" && hasTemplateKey(v)))) return { kind: "hcl", text: e.exprText, value: v, range, base: range.start.offset, exact: true };
    if (nested) {
      // YAML/JSON: a list or map with templates inside, each checked at its own position.
      const parts: ExprSource[] = [];
      const walk = (x: JsonValue, p: string) => {
        if (typeof x === "string" && (x.includes("${") || x.includes("%{"))) parts.push(this.expr(x, p));
        else if (Array.isArray(x)) x.forEach((y, i) => walk(y, childPointer(p, i)));
        else if (x !== null && typeof x === "object") for (const [k, y] of Object.entries(x)) walk(y, childPointer(p, k));
      };
      walk(v, ptr);
      return { kind: "composite", text: JSON.stringify(v), value: v, range, base: range.start.offset, exact: true, nested: parts, ...this.members(v, ptr) };
    }
    if (dynamic) {
      const chars = e?.valueOffset === undefined ? e?.valueChars : undefined;
      return { kind: "template", text: v as string, value: v, range, base: e?.valueOffset ?? range.start.offset, exact: e?.valueOffset !== undefined || chars !== undefined, ...(chars ? { chars } : {}) };
    }
    return { kind: "literal", text: typeof v === "string" ? v : JSON.stringify(v), value: v, range, base: range.start.offset, exact: true, ...this.members(v, ptr) };
  }

  /** Where each key of a map value is written (`members`), or nothing for other values. */
  private members(v: JsonValue, ptr: string): Pick<ExprSource, "members"> {
    if (!isObj(v)) return {};
    const members: NonNullable<ExprSource["members"]> = Object.create(null) as NonNullable<ExprSource["members"]>;
    for (const k of Object.keys(v)) {
      const m = this.map.get(childPointer(ptr, k));
      if (m) members[k] = { range: m.range, ...(m.keyRange ? { keyRange: m.keyRange } : {}) };
    }
    return { members };
  }

  exprMap(v: JsonValue | undefined, ptr: string): Record<string, ExprSource> {
    const out = Object.create(null) as Record<string, ExprSource>;
    if (!isObj(v)) return out;
    for (const [k, x] of Object.entries(v)) {
      const p = childPointer(ptr, k);
      const e = this.expr(x, p);
      const kr = this.map.get(p)?.keyRange;
      out[k] = kr ? { ...e, keyRange: kr } : e;
    }
    return out;
  }

  /** A reference written as a string or a bare traversal (`"${agent.x}"`), unwrapped. */
  refText(v: JsonValue | undefined): string | undefined {
    const s = str(v);
    if (s === undefined) return undefined;
    const m = WRAPPED.exec(s);
    return m ? m[1] : s;
  }

  nodeRef(v: JsonValue | undefined, ptr: string): NodeRef | undefined {
    const s = this.refText(v);
    if (s === undefined) return undefined;
    const m = /^(state|step|steps|wait|approval|branch|switch)\.([\p{ID_Start}_][\p{ID_Continue}-]*)$/u.exec(s);
    // v0.5 writes the reserved targets as keywords: next = continue (also "continue" in YAML), next = return.
    if (!m) return { name: s === "continue" ? "_continue" : s, range: this.range(ptr) };
    const kinds = { state: "state", step: "step", steps: "step", wait: "wait", approval: "approval", branch: "branch", switch: "branch" } as const;
    return { name: m[2], range: this.range(ptr), kind: kinds[m[1] as keyof typeof kinds] };
  }

  /**
   * A field that takes text: a YAML number written otherwise than it reads back (`1.10`)
   * is kept as written, with a warning to quote it (never `1.1`).
   */
  /**
   * A field that takes literal text (a signal's name, an approver, a version): an
   * expression there would be kept as its source text (`${var.x}`), so it is refused.
   */
  literal(v: JsonValue | undefined, ptr: string): string | undefined {
    const s = typeof v === "number" ? this.asText(v, ptr) : str(v);
    if (s === undefined) return undefined;
    if (/(^|[^$])\$\{/.test(s)) {
      // Named by its field (`timeout`, `approvers`), the expression as written (HCL's come as `${…}`).
      const segs = pointerSegments(ptr);
      const field = [...segs].reverse().find((x) => !/^\d+$/.test(x));
      const written = s.startsWith("${") && s.endsWith("}") && !s.includes("${", 2) ? s.slice(2, -1) : s;
      this.diagnostics.push(
        diag("invalid_value", this.range(ptr), `${describePointer(ptr)}${field ? ` ${field}` : ""}: must be literal text, not an expression (${written})`, {
          hint: "write the text itself, in quotes; these fields are fixed when the workflow is compiled",
        }),
      );
      return undefined;
    }
    return s;
  }

  /**
   * A `description`: shown as written, never evaluated, so a `${…}` in it is said once, as a
   * warning (found by a new-user trial: it was kept silently, while `timeout` refuses one).
   */
  description(v: JsonValue | undefined, ptr: string): string | undefined {
    const s = str(v);
    if (s !== undefined && /(^|[^$])\$\{/.test(s)) {
      this.diagnostics.push(
        diag("invalid_value", this.range(ptr), `${describePointer(ptr)} description: is shown as written; the \${…} in it is not evaluated`, {
          severity: "warning",
          hint: "write the text itself; to show a literal ${, write $${",
        }),
      );
    }
    return s;
  }

  asText(v: JsonValue, ptr: string): string {
    const written = typeof v === "number" ? this.map.get(ptr)?.numberText : undefined;
    if (written === undefined) return String(v);
    this.numberAsText(written, v as number, ptr);
    return written;
  }

  private numberAsText(written: string, v: number, ptr: string) {
    this.diagnostics.push(diag("number_as_text", this.range(ptr), `${describePointer(ptr)}: ${written} reads as the number ${v}; it is kept as written, "${written}"`, { hint: `quote it: "${written}"` }));
  }

  /**
   * A typed literal (a variable's default, an output's value): where the type wants a
   * string and the value is a YAML number written otherwise than it reads back, the text
   * as written (`list(string)` default `[3.9, 3.10]` keeps `"3.10"`), with a warning.
   */
  typedLiteral(e: ExprSource, typeText: string | undefined, ptr: string): ExprSource {
    const t = typeText ? parseType(typeText).type : undefined;
    if (!t || e.kind !== "literal") return e;
    const fix = (v: JsonValue, ty: TypeExpr, p: string): JsonValue => {
      if (ty.kind === "string" && typeof v === "number") {
        const written = this.map.get(p)?.numberText;
        if (written !== undefined) {
          this.numberAsText(written, v, p);
          return written;
        }
        return v;
      }
      if ((ty.kind === "list" || ty.kind === "set") && Array.isArray(v)) return v.map((x, i) => fix(x, ty.of, childPointer(p, i)));
      if (ty.kind === "tuple" && Array.isArray(v)) return v.map((x, i) => (ty.items[i] ? fix(x, ty.items[i], childPointer(p, i)) : x));
      if (ty.kind === "map" && isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fix(x, ty.of, childPointer(p, k))]));
      if (ty.kind === "object" && isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, ty.fields[k] ? fix(x, ty.fields[k], childPointer(p, k)) : x]));
      return v;
    };
    const value = fix(e.value, t, ptr);
    return value === e.value ? e : { ...e, value, text: typeof value === "string" ? value : JSON.stringify(value) };
  }

  /** `"shell.ci"` or `environment.shell.ci` → `shell.ci`. */
  envRef(v: JsonValue | undefined, ptr: string): { name: string; range: Range } | undefined {
    const s = this.refText(v);
    return s === undefined ? undefined : { name: s.replace(/^environment\./, ""), range: this.range(ptr) };
  }

  /**
   * A Go duration (`"30s"`, `"1h30m"`). Zero is refused unless `zeroOk` (a wait of no
   * time): a timeout of 0 would end every step before it starts.
   */
  duration(v: JsonValue | undefined, ptr: string, zeroOk = false): { text: string; ms: number; range: Range } | undefined {
    const s = str(v) === undefined ? undefined : this.literal(v, ptr);
    if (s === undefined) return undefined;
    const ms = parseDuration(s);
    if (ms === undefined && durationTooLong(s)) {
      this.diagnostics.push(diag("invalid_value", this.range(ptr), `${describePointer(ptr)}: "${s}" is longer than a duration can be (about 292 years, as in Go)`, { hint: `write a shorter one, e.g. "720h"` }));
      return undefined;
    }
    if (ms === undefined) {
      this.diagnostics.push(
        diag("invalid_value", this.range(ptr), `${describePointer(ptr)}: "${s}" is not a duration`, { hint: `write a number and a unit, e.g. "30s", "5m", "1h30m"` }),
      );
      return undefined;
    }
    if (ms <= 0 && !zeroOk) {
      this.diagnostics.push(diag("invalid_value", this.range(ptr), `${describePointer(ptr)}: a timeout of "${s}" would end the work before it starts`, { hint: `give it time, e.g. "30s", or leave the timeout out` }));
      return undefined;
    }
    return { text: s, ms, range: this.range(ptr) };
  }

  stringList(v: JsonValue | undefined, ptr: string): { ref: string; range: Range }[] {
    if (!Array.isArray(v)) return [];
    const out: { ref: string; range: Range }[] = [];
    v.forEach((x, i) => {
      const s = this.refText(x);
      if (s !== undefined) out.push({ ref: s, range: this.range(childPointer(ptr, i)) });
    });
    return out;
  }

  named(section: JsonValue | undefined, ptr: string): [string, JsonValue, string, { range: Range; nameRange: Range }][] {
    if (!isObj(section)) return [];
    return Object.entries(section).map(([name, v]) => {
      const p = childPointer(ptr, name);
      return [name, v, p, { range: this.range(p), nameRange: this.keyRange(p) }];
    });
  }

  /**
   * The entries of a section keyed `<type>.<name>` (`<kind>.<name>` for data): a key
   * without a dot, which the schema check reports, stands for what it was meant as
   * (section-keys.ts: `shell: { default: {} }` → `shell.default`, `shelldefault` →
   * `shell.default`, data `counter` → `internal.counter`), so a reference to the meant key
   * is no second error; one meant as nothing declares nothing, and so is never offered as
   * a did-you-mean (found by a new-user trial: `did you mean "adapter.shelldefault"?`).
   */
  keyed(section: KeyedSection, v: JsonValue | undefined, ptr: string): [string, JsonValue, string, { range: Range; nameRange: Range }][] {
    return this.named(v, ptr).flatMap((entry) => {
      const [key, value, p, r] = entry;
      if (key.includes(".")) return [entry];
      return meantKeys(section, key, value).keys.map((m): [string, JsonValue, string, { range: Range; nameRange: Range }] => {
        if (m.sub === undefined) return [m.key, value, p, r];
        const q = childPointer(p, m.sub);
        return [m.key, isObj(value) ? (value[m.sub] ?? null) : null, q, { range: this.range(q), nameRange: this.keyRange(q) }];
      });
    });
  }

  workflow(doc: JsonValue, ptr: string): WorkflowSpec {
    const w = emptyWorkflow(this.range(ptr));
    if (!isObj(doc)) return w;
    const at = (k: string) => childPointer(ptr, k);
    if (isObj(doc.workflow)) w.header = this.header(doc.workflow, at("workflow"));
    for (const [name, v, p, r] of this.named(doc.variables, at("variables"))) {
      const o = isObj(v) ? v : {};
      w.variables.push({
        name,
        ...r,
        type: typeText(o.type),
        ...(o.type !== undefined ? { typeRange: this.range(childPointer(p, "type")) } : {}),
        description: this.description(o.description, childPointer(p, "description")),
        ...("default" in o ? { default: this.typedLiteral(this.expr(o.default, childPointer(p, "default")), typeText(o.type), childPointer(p, "default")) } : {}),
        ...(o.secret === true || o.sensitive === true ? { secret: true } : {}),
      });
    }
    for (const [name, v, p, r] of this.named(doc.locals, at("locals"))) w.locals.push({ name, ...r, value: this.expr(v, p) });
    if (isObj(doc.policy)) {
      const p = doc.policy;
      // The Go tool's zeros: max_total_steps = 0 is the default; max_visits_warn_threshold = 0 turns the warning off.
      const total = int(p.max_total_steps);
      w.policy = { range: this.range(at("policy")), nameRange: this.keyRange(at("policy")), maxTotalSteps: total === 0 ? undefined : total, maxStepRetries: int(p.max_step_retries), maxVisitsWarnThreshold: int(p.max_visits_warn_threshold), maxDepth: int(p.max_depth) };
    }
    if (isObj(doc.permissions)) {
      w.permissions = { allowTools: this.stringList(doc.permissions.allow_tools, childPointer(at("permissions"), "allow_tools")).map((x) => x.ref), range: this.range(at("permissions")) };
    }
    for (const [key, v, p, r] of this.keyed("adapters", doc.adapters, at("adapters"))) {
      const o = isObj(v) ? v : {};
      const a: AdapterSpec = {
        name: key,
        ...r,
        type: key.split(".")[0],
        config: this.exprMap(o.config, childPointer(p, "config")),
        onCrash: str(o.on_crash),
        ...(isObj(o.secrets) ? { secrets: this.exprMap(o.secrets, childPointer(p, "secrets")) } : {}),
        ...(typeof o.source === "string" ? { source: { text: o.source, range: this.range(childPointer(p, "source")) } } : {}),
        ...(typeof o.version === "string" ? { version: o.version } : {}),
      };
      const env = this.envRef(o.environment, childPointer(p, "environment"));
      if (env) a.environment = env;
      w.adapters.push(a);
    }
    for (const [name, v, p, r] of this.named(doc.agents, at("agents"))) {
      const o = isObj(v) ? v : {};
      const a: AgentSpec = {
        name,
        ...r,
        adapter: str(o.adapter),
        cli: str(o.cli),
        model: str(o.model),
        onCrash: str(o.on_crash),
        adapters: this.stringList(o.adapters, childPointer(p, "adapters")),
        agents: this.stringList(o.agents, childPointer(p, "agents")),
        config: this.exprMap(o.config, childPointer(p, "config")),
      };
      if (a.adapter !== undefined || a.cli !== undefined) a.adapterRange = this.range(childPointer(p, a.adapter !== undefined ? "adapter" : "cli"));
      if (typeof o.use === "string") a.use = { path: o.use, range: this.range(childPointer(p, "use")) };
      if (!a.use && (a.adapters.length > 0 || a.agents.length > 0)) {
        this.diagnostics.push(diag("conflicting_fields", (a.adapters[0] ?? a.agents[0]).range, `agent "${name}": only an agent that is a flow (one with "use") takes adapters or agents to pass on`, { hint: `give the agent use = "./flow.hcl" to call a flow, or remove what it passes on` }));
      }
      if (a.use && (a.adapter || a.cli || a.model)) {
        this.diagnostics.push(diag("conflicting_fields", a.use.range, `agent "${name}": "use" makes the agent a workflow; it takes no adapter, cli or model`, { hint: `keep one: remove ${[a.adapter !== undefined ? '"adapter"' : "", a.cli !== undefined ? '"cli"' : "", a.model !== undefined ? '"model"' : ""].filter(Boolean).join(", ")}, or "use"` }));
      }
      if (!a.use && a.adapter && a.cli) {
        this.diagnostics.push(diag("conflicting_fields", this.range(childPointer(p, "cli")), `agent "${name}" sets both "adapter" and "cli"`, { hint: "keep one of them" }));
      }
      if (!a.use && !a.adapter && !a.cli) {
        this.diagnostics.push(diag("missing_field", r.nameRange, `agent "${name}" needs "adapter", "cli" or "use"`, { hint: `e.g. adapter = "copilot" or cli = "claude"` }));
      }
      w.agents.push(a);
    }
    if (isObj(doc.workflow) && isObj(doc.workflow.expects)) this.expects(doc.workflow.expects, childPointer(at("workflow"), "expects"), w);
    for (const [name, v, p, r] of this.named(doc.subworkflows, at("subworkflows"))) {
      const o = isObj(v) ? v : {};
      w.subworkflows.push({
        name,
        ...r,
        source: { path: str(o.source) ?? "", range: this.range(childPointer(p, "source")) },
        input: this.exprMap(o.input, childPointer(p, "input")),
        adapters: this.stringList(o.adapters, childPointer(p, "adapters")),
        agents: this.stringList(o.agents, childPointer(p, "agents")),
      });
    }
    for (const [name, v, p, r] of this.named(doc.channels, at("channels"))) {
      const o = isObj(v) ? v : {};
      w.channels.push({ name, ...r, participants: this.stringList(o.participants, childPointer(p, "participants")) });
    }
    for (const [key, v, p, r] of this.keyed("environments", doc.environments, at("environments"))) {
      const o = isObj(v) ? v : {};
      w.environments.push({ name: key, ...r, type: key.split(".")[0], variables: this.exprMap(o.variables, childPointer(p, "variables")), config: this.exprMap(o.config, childPointer(p, "config")) });
    }
    for (const [name, v, p, r] of this.named(doc.shared_variables, at("shared_variables"))) {
      const o = isObj(v) ? v : {};
      w.sharedVariables.push({ name, ...r, type: typeText(o.type), ...("value" in o ? { value: this.expr(o.value, childPointer(p, "value")) } : {}) });
    }
    for (const [key, v, p, r] of this.keyed("data", doc.data, at("data"))) {
      const o = isObj(v) ? v : {};
      const kind = key.split(".")[0];
      if (kind !== "internal") {
        this.diagnostics.push(diag("invalid_value", r.nameRange, `data "${kind}": only data "internal" values are supported`, { hint: `write data "internal" "${key.split(".")[1] ?? "name"}" { type = string, value = ... }` }));
      }
      w.data.push({
        name: key,
        ...r,
        kind,
        type: typeText(o.type),
        ...(o.type !== undefined ? { typeRange: this.range(childPointer(p, "type")) } : {}),
        ...("value" in o ? { value: this.typedLiteral(this.expr(o.value, childPointer(p, "value")), typeText(o.type), childPointer(p, "value")) } : {}),
      });
    }
    for (const [name, v, p, r] of this.named(doc.steps, at("steps"))) {
      if (!isObj(v)) {
        w.steps.push(this.step(name, {}, p, r));
        continue;
      }
      // A block the edit did not touch is decoded once (compiler/decode/step-memo.ts).
      const decoded = memoStep(v, p, r, () => {
        const before = this.diagnostics.length;
        const step = this.step(name, v, p, r);
        return { step, diagnostics: this.diagnostics.splice(before) };
      });
      this.diagnostics.push(...decoded.diagnostics);
      w.steps.push(decoded.step);
    }
    for (const [name, v, p, r] of this.named(doc.states, at("states"))) {
      const o = isObj(v) ? v : {};
      w.states.push({ name, ...r, terminal: o.terminal === true, ...(o.terminal !== undefined && typeof o.terminal !== "boolean" ? { terminalInvalid: true as const } : {}), success: o.success !== false, ...(o.requires !== undefined ? { requires: this.nodeRef(o.requires, childPointer(p, "requires")) } : {}) });
    }
    for (const [name, v, p, r] of this.named(doc.waits, at("waits"))) {
      const o = isObj(v) ? v : {};
      if (o.timeout !== undefined && o.duration !== undefined) {
        this.diagnostics.push(diag("conflicting_fields", this.keyRange(childPointer(p, "timeout")), `wait "${name}" sets both "duration" and "timeout"`, { hint: `beside a signal, "timeout" is how long to wait for it; keep one` }));
      }
      if (o.timeout !== undefined && o.signal === undefined) {
        this.diagnostics.push(diag("invalid_value", this.keyRange(childPointer(p, "timeout")), `wait "${name}": "timeout" bounds a wait for a signal; a wait without one lasts its "duration"`, { hint: `write duration = ${JSON.stringify(o.timeout)}` }));
      }
      const duration = this.duration(o.duration ?? o.timeout, childPointer(p, o.duration !== undefined ? "duration" : "timeout"), true);
      w.waits.push({ name, ...r, duration, signal: this.literal(o.signal, childPointer(p, "signal")), outcomes: this.outcomes(o.outcomes, childPointer(p, "outcomes")), next: this.nodeRef(o.next, childPointer(p, "next")) });
      // A trigger (the upstream spec, "Wait"); a signal wait is bounded by "timeout".
      if (o.duration === undefined && o.signal === undefined) {
        this.diagnostics.push(diag("wait_trigger", r.nameRange, `wait "${name}" needs "duration" or "signal"`, { hint: `e.g. duration = "30s", or signal = "deploy-ready"` }));
      } else if (o.duration !== undefined && o.signal !== undefined) {
        // Our older form: the duration bounds the signal wait. The Go tool refuses it; we warn.
        this.diagnostics.push(diag("wait_duration_and_signal", this.keyRange(childPointer(p, "signal")), `wait "${name}" sets both "duration" and "signal": it waits for the signal at most ${JSON.stringify(o.duration)}`, { hint: `write timeout = ${JSON.stringify(o.duration)} instead of duration (the Go tool refuses both)` }));
      }
    }
    for (const [name, v, p, r] of this.named(doc.approvals, at("approvals"))) {
      const o = isObj(v) ? v : {};
      w.approvals.push({
        name,
        ...r,
        approvers: Array.isArray(o.approvers) ? o.approvers.flatMap((x, i) => this.literal(x, childPointer(childPointer(p, "approvers"), i)) ?? []) : [],
        ...(o.reason !== undefined ? { reason: this.expr(o.reason, childPointer(p, "reason")) } : {}),
        timeout: this.duration(o.timeout, childPointer(p, "timeout")),
        outcomes: this.outcomes(o.outcomes, childPointer(p, "outcomes")),
      });
    }
    for (const [name, v, p, r] of this.named(doc.branches, at("branches"))) w.branches.push(this.branch(name, isObj(v) ? v : {}, p, r));
    for (const [name, v, p, r] of this.named(doc.outputs, at("outputs"))) {
      const o = isObj(v) ? v : {};
      w.outputs.push({
        name,
        ...r,
        type: typeText(o.type),
        ...(o.type !== undefined ? { typeRange: this.range(childPointer(p, "type")) } : {}),
        description: this.description(o.description, childPointer(p, "description")),
        ...("value" in o ? { value: this.typedLiteral(this.expr(o.value, childPointer(p, "value")), typeText(o.type), childPointer(p, "value")) } : {}),
        ...(o.secret === true || o.sensitive === true ? { secret: true } : {}),
      });
    }
    return w;
  }

  header(o: JsonObject, ptr: string): HeaderSpec {
    const h: HeaderSpec = {
      name: str(o.name) ?? "",
      nameRange: this.range(childPointer(ptr, "name")),
      range: this.range(ptr),
      keyRange: this.keyRange(ptr),
      version: o.version === undefined ? undefined : this.literal(o.version, childPointer(ptr, "version")),
      // An inline body's older `entry` is its initial_state.
      initialState: this.nodeRef(o.initial_state ?? o.entry, childPointer(ptr, o.initial_state === undefined && o.entry !== undefined ? "entry" : "initial_state")),
      ...(typeof o.verification === "string" ? { verification: o.verification } : {}),
      targetState: this.nodeRef(o.target_state, childPointer(ptr, "target_state")),
      identity: str(o.identity),
      environment: this.envRef(o.environment, childPointer(ptr, "environment")),
      use: this.stringList(o.use, childPointer(ptr, "use")).map((x) => ({ path: x.ref, range: x.range })),
    };
    if (!h.initialState && (o.initial_state ?? o.entry) !== undefined) h.initialStateInvalid = true;
    if (isObj(o.memory)) {
      const m = o.memory;
      h.memory = { script: m.script === true, agent: typeof m.agent === "string" ? m.agent : undefined, range: this.range(childPointer(ptr, "memory")) };
    }
    return h;
  }

  /**
   * `expects { adapters = [adapter.T.N], agents = [agent.a] }`: entries the caller passes
   * in (docs/language.md, Composition; Terraform's `configuration_aliases`), declared here as
   * `expected` adapters and agents so the module resolves on its own.
   */
  expects(o: JsonObject, ptr: string, w: WorkflowSpec) {
    if (w.header) w.header.expects = { range: this.range(ptr) };
    for (const a of this.stringList(o.adapters, childPointer(ptr, "adapters"))) {
      const parts = a.ref.split(".");
      if (parts.length !== 3 || parts[0] !== "adapter") {
        this.diagnostics.push(diag("invalid_value", a.range, `expects: "${a.ref}" is not an adapter reference`, { hint: "write adapter.<type>.<name>, e.g. adapter.copilot.reviewer" }));
        continue;
      }
      const name = `${parts[1]}.${parts[2]}`;
      if (w.adapters.some((x) => x.expected && x.name === name)) {
        this.diagnostics.push(diag("duplicate_name", a.range, `expects: adapter "${name}" is listed twice`));
        continue;
      }
      w.adapters.push({ name, range: a.range, nameRange: a.range, type: parts[1], config: {}, expected: true });
    }
    for (const a of this.stringList(o.agents, childPointer(ptr, "agents"))) {
      const parts = a.ref.split(".");
      if (parts.length !== 2 || parts[0] !== "agent") {
        this.diagnostics.push(diag("invalid_value", a.range, `expects: "${a.ref}" is not an agent reference`, { hint: "write agent.<name>, e.g. agent.reviewer" }));
        continue;
      }
      if (w.agents.some((x) => x.expected && x.name === parts[1])) {
        this.diagnostics.push(diag("duplicate_name", a.range, `expects: agent "${parts[1]}" is listed twice`));
        continue;
      }
      w.agents.push({ name: parts[1], range: a.range, nameRange: a.range, adapters: [], agents: [], config: {}, expected: true });
    }
  }

  outcomes(v: JsonValue | undefined, ptr: string): OutcomeSpec[] {
    const out: OutcomeSpec[] = [];
    for (const [name, o, p, r] of this.named(v, ptr)) {
      if (typeof o === "string") {
        out.push({ name, ...r, next: this.nodeRef(o, p), output: {}, sharedWrites: {}, writes: [] });
        continue;
      }
      // An empty outcome (`failure: ~`, `failure:`): one error, at it (found by a new-user trial:
      // "needs next" and "must be string or an object, not null" both, and an unreachable warning).
      if (o === null) {
        this.diagnostics.push(diag("missing_field", this.range(p), `outcome "${name}" is empty: it needs the node to go to`, { hint: `name it: outcome "${name}" { next = "done" }` }));
        out.push({ name, ...r, output: {}, sharedWrites: {}, writes: [] });
        continue;
      }
      const b = isObj(o) ? o : {};
      if (b.next !== undefined && b.transition_to !== undefined) {
        this.diagnostics.push(diag("conflicting_fields", this.keyRange(childPointer(p, "transition_to")), `outcome "${name}" sets both "next" and "transition_to"`, { hint: `"transition_to" is the older spelling of "next"; keep one` }));
      }
      const nextKey = b.next !== undefined ? "next" : "transition_to";
      const next = this.nodeRef(b[nextKey], childPointer(p, nextKey));
      if (!next && b[nextKey] === undefined) this.diagnostics.push(diag("missing_field", r.nameRange, `outcome "${name}" needs "next"`, { hint: `e.g. outcome "${name}" { next = "done" }` }));
      out.push({
        name,
        ...r,
        next,
        output: this.exprMap(b.output, childPointer(p, "output")),
        ...(typeof b.output === "string" ? { outputExpr: this.expr(b.output, childPointer(p, "output")) } : {}),
        sharedWrites: this.exprMap(b.shared_writes, childPointer(p, "shared_writes")),
        writes: this.writes(b.write, childPointer(p, "write")),
      });
    }
    return out;
  }

  /** `write { target = data.<kind>.<name>.value, value = ... }` blocks of an outcome. */
  writes(v: JsonValue | undefined, ptr: string): WriteSpec[] {
    if (!Array.isArray(v)) return [];
    const out: WriteSpec[] = [];
    v.forEach((w, i) => {
      const wp = childPointer(ptr, i);
      if (!isObj(w) || w.value === undefined) return;
      const text = this.refText(w.target) ?? "";
      const m = /^data\.([\p{ID_Start}_][\p{ID_Continue}-]*)\.([\p{ID_Start}_][\p{ID_Continue}-]*)\.value$/u.exec(text);
      const targetRange = this.range(childPointer(wp, "target"));
      if (!m) {
        this.diagnostics.push(diag("invalid_value", targetRange, `write: target "${text}" is not a data value`, { hint: "write target = data.internal.<name>.value" }));
        return;
      }
      out.push({ target: `${m[1]}.${m[2]}`, targetRange, value: this.expr(w.value, childPointer(wp, "value")), range: this.range(wp) });
    });
    return out;
  }

  branch(name: string, o: JsonObject, ptr: string, r: { range: Range; nameRange: Range }): BranchSpec {
    const b: BranchSpec = { name, ...r, arms: [], keyword: o.switch === true ? "switch" : "branch" };
    const armWord = b.keyword === "switch" ? "match" : "arm";
    const condWord = b.keyword === "switch" ? "condition" : "when";
    if (Array.isArray(o.arms)) {
      o.arms.forEach((a, i) => {
        const ap = childPointer(childPointer(ptr, "arms"), i);
        if (!isObj(a)) return;
        const when = this.expr(a.when ?? true, childPointer(ap, "when"));
        if (when.kind === "literal" && typeof when.value !== "boolean" && when.value !== "true" && when.value !== "false") {
          this.diagnostics.push(diag("invalid_type", when.range, `${b.keyword} "${name}" ${armWord} ${i + 1}: "${condWord}" must be true, false or an expression, not ${JSON.stringify(when.value)}`, {
            // The user's own condition as an expression, when it reads like one (found by a new-user trial:
            // `when: var.env == "prod"` in YAML was told to write var.env == "prod").
            hint: typeof when.value === "string" && /\b(var|local|steps|each|shared|input|data)\./.test(when.value) ? `write it as an expression: ${exprAs(when.range.file, when.value)}` : `write true, false, or an expression such as ${exprAs(when.range.file, 'var.env == "prod"')}`,
          }));
        }
        // A switch condition that is a template with text outside ${} is a string, always true elsewhere: refuse it.
        if (isStringTemplate(when)) {
          this.diagnostics.push(diag("condition_is_string", when.range, `${b.keyword} "${name}" ${armWord} ${i + 1}: the condition is a string template, not a bool`, { hint: "write the expression itself, without quotes: condition = var.env == \"prod\"" }));
        }
        b.arms.push({ range: this.range(ap), when, next: this.nodeRef(a.next, childPointer(ap, "next")), output: this.exprMap(a.output, childPointer(ap, "output")) });
      });
    }
    if (isObj(o.default)) {
      const k = o.default.next !== undefined ? "next" : "transition_to";
      b.default = this.nodeRef(o.default[k], childPointer(childPointer(ptr, "default"), k));
      b.defaultOutput = this.exprMap(o.default.output, childPointer(childPointer(ptr, "default"), "output"));
    } else if (o.default !== undefined) b.default = this.nodeRef(o.default, childPointer(ptr, "default"));
    if (b.arms.length === 0 && !b.default) {
      this.diagnostics.push(
        diag("missing_field", r.nameRange, `${b.keyword} "${name}" has no ${b.keyword === "switch" ? "match blocks" : "arms"} and no default`, {
          hint: b.keyword === "switch" ? 'add match { condition = ... next = "..." } blocks, tried in order, or a default { next = "..." }' : 'add arm { when = ... next = "..." } blocks, tried in order, or a default { next = "..." }',
        }),
      );
    }
    return b;
  }

  step(name: string, o: JsonObject, ptr: string, r: { range: Range; nameRange: Range }): StepSpec {
    const at = (k: string) => childPointer(ptr, k);
    // (A step's `subworkflow = subworkflow.kid` is refused as its target written in another
    // field: no "has no target" beside it, two errors for one mistake; a new-user trial.)
    const targetWritten = ["target", "adapter", "agent", "workflow_file", "type", "workflow"].some((k) => o[k] !== undefined) || (typeof o.subworkflow === "string" && o.subworkflow.includes("subworkflow."));
    const s: StepSpec = { name, ...r, targetWritten, outcomes: this.outcomes(o.outcomes, at("outcomes")) };
    s.target = this.target(name, o, ptr);
    if (o.workflow !== undefined) s.body = this.workflow(o.workflow, at("workflow"));
    if (s.target?.kind === "body" && o.workflow === undefined) {
      this.diagnostics.push(diag("missing_field", this.range(at("type")), `step "${name}": a step of type "workflow" needs an inline "workflow" body or a "workflow_file"`, { hint: `add workflow_file = "./body.hcl", or a workflow { step ... } block inside the step` }));
    }
    // An object with a computed key (`input = { (var.k) = 1 }`) is one expression: its keys are known at run time only.
    if (isObj(o.input) && hasTemplateKey(o.input) && this.map.get(at("input"))?.exprText !== undefined) s.inputExpr = this.expr(o.input, at("input"));
    else if (isObj(o.input)) s.input = this.exprMap(o.input, at("input"));
    else if (typeof o.input === "string") {
      s.inputExpr = this.expr(o.input, at("input"));
      if (s.inputExpr.kind === "literal") {
        this.diagnostics.push(
          diag("invalid_type", s.inputExpr.range, `step "${name}": input must be a block of named values, not the string ${JSON.stringify(o.input).slice(0, 40)}`, {
            hint: `write input { command = "..." } (or input = { ... })`,
          }),
        );
      }
    }
    else if (o.input !== undefined) s.inputInvalid = true;
    s.description = this.description(o.description, at("description"));
    s.timeout = this.duration(o.timeout, at("timeout"));
    // max_visits = 0 is the Go tool's "unlimited".
    s.maxVisits = int(o.max_visits) === 0 ? undefined : int(o.max_visits);
    // max_visits / parallel_max may be compile-time expressions (var.*, local.*).
    for (const k of ["max_visits", "parallel_max"] as const) {
      const v = o[k];
      if (typeof v !== "string") continue;
      // A string is an expression only when it interpolates ("3" is text, not a number).
      if (!v.includes("${")) {
        const where = this.range(at(k));
        this.diagnostics.push(diag("invalid_type", where, `step "${name}": ${k} must be a whole number or an expression of var.* / local.*, not the string ${JSON.stringify(v)}`, { hint: /^\d+$/.test(v) ? `write ${k} = ${v}, without quotes` : `e.g. ${fieldAs(where.file, k, REFERENCE.test(v.trim()) ? v.trim() : `var.${k}`)}` }));
      } else if (k === "max_visits") s.maxVisitsExpr = this.expr(v, at(k));
      else s.parallelMaxExpr = this.expr(v, at(k));
    }
    if (o.while !== undefined) {
      s.while = this.expr(o.while, at("while"));
      // A literal that is no bool is known to fail before the run (ADR-0002, Semantics 3; found
      // by a trial of the Go tool's language: while = "yes" validated, then failed at run time).
      const w = s.while;
      if (w.kind === "literal" && typeof w.value !== "boolean" && w.value !== "true" && w.value !== "false") {
        this.diagnostics.push(diag("invalid_type", w.range, `step "${name}": "while" must be true, false or an expression, not ${JSON.stringify(w.value)}`, { hint: "write an expression that is true or false, e.g. while = data.internal.left.value > 0" }));
      } else if (isStringTemplate(w)) this.diagnostics.push(diag("condition_is_string", w.range, `step "${name}": while is a string template, not a bool`, { hint: "write the expression itself, without quotes: while = data.internal.left.value > 0" }));
    }
    if (isObj(o.secret_input)) s.secretInput = this.exprMap(o.secret_input, at("secret_input"));
    if (o.count !== undefined) s.count = this.numberExpr(o.count, at("count"), "count");
    if (o.for_each !== undefined) s.forEach = this.expr(o.for_each, at("for_each"));
    if (o.parallel !== undefined) s.parallel = this.expr(o.parallel, at("parallel"));
    s.parallelMax = int(o.parallel_max);
    const iterators = (["count", "for_each", "parallel", "while"] as const).filter((k) => o[k] !== undefined);
    if (iterators.length > 1) {
      this.diagnostics.push(diag("conflicting_fields", this.keyRange(at(iterators[1])), `step "${name}" sets both "${iterators[0]}" and "${iterators[1]}"`, { hint: "a step iterates one way" }));
    }
    if ((s.parallelMax !== undefined || s.parallelMaxExpr !== undefined) && o.parallel === undefined) {
      this.diagnostics.push(diag("conflicting_fields", this.keyRange(at("parallel_max")), `step "${name}": "parallel_max" needs "parallel"`, { hint: o.for_each !== undefined || o.count !== undefined ? 'parallel_max bounds how many items of a parallel step run at once: write the items as parallel = [...] instead, or remove parallel_max' : "give the step its items as parallel = [...], or remove parallel_max" }));
    }
    const onFailure = str(o.on_failure);
    if (onFailure === "continue" || onFailure === "abort" || onFailure === "ignore") s.onFailure = onFailure;
    s.defaultOutcome = this.nodeRef(o.default_outcome, at("default_outcome"));
    const lc = str(o.lifecycle);
    if (lc === "open" || lc === "close") s.lifecycle = lc;
    s.onCrash = str(o.on_crash);
    if (Array.isArray(o.allow_tools)) s.allowTools = this.stringList(o.allow_tools, at("allow_tools")).map((x) => x.ref);
    s.environment = this.envRef(o.environment, at("environment"));
    for (const k of ["on_failure", "input", "allow_tools"] as const) if (o[k] !== undefined) (s.fieldRanges ??= {})[k] = this.keyRange(at(k));
    return s;
  }

  /**
   * `count = 3` or `count = var.n`: a literal must be a non-negative integer. Text that is no
   * expression is said here; any other literal that is no whole number is the schema's to say,
   * and a number too large to read (null here) the parser's: one error each (found by a trial
   * of the Go tool's docs: a fraction was said twice, a number too large also as "not null").
   */
  numberExpr(v: JsonValue, ptr: string, field: string): ExprSource {
    const e = this.expr(v, ptr);
    if (e.kind === "literal" && typeof v === "number" && Number.isInteger(v) && v < 0) {
      this.diagnostics.push(diag("invalid_value", e.range, `${describePointer(ptr)}: "${field}" must not be negative, not ${v}`, { hint: `${field} = 0 runs no item` }));
    } else if (e.kind === "literal" && typeof v === "string") {
      this.diagnostics.push(diag("invalid_type", e.range, `${describePointer(ptr)}: "${field}" must be a whole number or an expression, not ${JSON.stringify(v)}`, { hint: `${field} = 3, or an expression of var.* / local.* such as ${fieldAs(e.range.file, field, typeof v === "string" && REFERENCE.test(v.trim()) ? v.trim() : "var.n")}` }));
    }
    return e;
  }

  /** The step's target in any of the accepted forms; reports conflicts. */
  target(name: string, o: JsonObject, ptr: string): TargetSpec | undefined {
    const at = (k: string) => childPointer(ptr, k);
    const forms = (["target", "adapter", "agent", "workflow_file"] as const).filter((k) => o[k] !== undefined);
    // `type = "workflow"` with a `workflow_file` and no inline body is that file's body (the
    // form the missing-body error asks for; found by a new-user trial: it was refused twice).
    const fileBody = o.type === "workflow" && o.workflow === undefined && forms.length === 1 && forms[0] === "workflow_file";
    const isBody = !fileBody && (o.type === "workflow" || (o.workflow !== undefined && forms.length === 0));
    if (forms.length > 1 || (isBody && forms.length > 0)) {
      const second = forms.length > 1 ? forms[1] : forms[0];
      const body = o.workflow !== undefined ? "an inline workflow {} body" : 'type = "workflow"';
      this.diagnostics.push(
        diag("conflicting_fields", this.keyRange(at(second)), `step "${name}" names what it runs twice (${isBody ? [body, ...forms].join(", ") : forms.join(", ")})`, {
          hint: isBody && o.workflow !== undefined
            ? `keep one: remove ${forms.join(" and ")}, or the inline workflow {} body`
            : "a step has one target: target = adapter.<type>.<name> | agent.<name> | subworkflow.<name>, or an inline workflow {} body",
        }),
      );
    }
    if (isBody) return { kind: "body", range: this.keyRange(at(o.type !== undefined ? "type" : "workflow")) };
    if (forms.length === 0) return undefined;
    const form = forms[0];
    const range = this.range(at(form));
    // Not text (`adapter: 5`): its type error says so; nothing else is said of it (a new-user
    // trial: "an empty adapter names no adapter" beside it).
    const text = this.refText(o[form]);
    if (text === undefined) return undefined;
    // The older eras' `adapter = "noop"` names a type (its default adapter); written as a
    // reference (`adapter = adapter.shell.default`) or dotted, it names a declared adapter, and
    // `agent = agent.bot` the agent "bot" (found by a new-user trial: validate passed an
    // adapter of type "adapter.shell.default", which the run refused; the agent was unknown).
    // A reference of another kind in the older field (`adapter = agent.bot`, `agent =
    // adapter.shell.default`): the step's target, said (a new-user trial: "declare it:
    // adapter "agent" "bot" { }"). Taken as written, so nothing else is said of it.
    const other = form === "adapter" ? /^(agent|subworkflow|channel)\.([^.]+)$/.exec(text) : form === "agent" ? /^(adapter)\.([^.]+)(?:\.([^.]+))?$/.exec(text) : null;
    if (other) {
      this.diagnostics.push(
        diag("unknown_target", range, `step "${name}": ${form} = ${text} names ${other[1] === "adapter" || other[1] === "agent" ? `an ${other[1]}` : `a ${other[1]}`}, not ${form === "adapter" ? "an adapter" : "an agent"}`, { hint: `write target = ${text}` }),
      );
      if (other[1] === "adapter") return { kind: "adapter", type: other[2], name: other[3] ?? "default", range, implicit: false };
      return { kind: other[1] as "agent" | "subworkflow" | "channel", name: other[2], range };
    }
    if (form === "adapter") {
      const ref = text.startsWith("adapter.") ? /^adapter\.([^.]+)(?:\.([^.]+))?$/.exec(text) : /^([^.]+)\.([^.]+)$/.exec(text);
      if (ref) return { kind: "adapter", type: ref[1], name: ref[2] ?? "default", range, implicit: false };
      return { kind: "adapter", type: text, name: "default", range, implicit: true };
    }
    if (form === "agent") return { kind: "agent", name: text.startsWith("agent.") && text.length > 6 && !text.slice(6).includes(".") ? text.slice(6) : text, range };
    if (form === "workflow_file") return { kind: "file", path: text, range };
    const parts = text.split(".");
    if (parts[0] === "adapter" && parts.length === 3) return { kind: "adapter", type: parts[1], name: parts[2], range, implicit: false };
    if (parts[0] === "adapter" && parts.length === 2) return { kind: "adapter", type: parts[1], name: "default", range, implicit: false };
    if ((parts[0] === "agent" || parts[0] === "subworkflow" || parts[0] === "channel") && parts.length === 2) {
      return { kind: parts[0], name: parts[1], range };
    }
    this.diagnostics.push(
      diag("unknown_target", range, `step "${name}": "${text}" is not a target`, {
        hint: "write target = adapter.<type>.<name>, agent.<name>, subworkflow.<name> or channel.<name>",
      }),
    );
    return undefined;
  }
}
