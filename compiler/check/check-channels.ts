import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { suggest } from "../diagnostics/did-you-mean.js";
import type { Range } from "../diagnostics/range.js";
import { parseDuration } from "../decode/durations.js";
import { iterates, type ChannelSpec, type ExprSource, type StepSpec } from "../decode/spec.js";
import { parseExpression } from "../expr/parse.js";
import type { Check, CheckContext } from "./context.js";

/** The two operations of a channel step, their fields, and the fields each needs. */
export const CHANNEL_OPS = {
  post: { fields: ["from", "to", "body"], required: ["from", "to", "body"], shape: "post = { from, to, body }" },
  recv: { fields: ["as", "from", "timeout"], required: ["as", "timeout"], shape: "recv = { as, from, timeout }" },
} as const;

/** The fields of a channel operation that name a participant. */
const PARTICIPANT_FIELDS = new Set(["from", "to", "as"]);

/**
 * Channels (the channels issue, item 2; seed 002's "refuses unresolved participants"):
 * - a step that targets a channel has input `post = { from, to, body }` or
 *   `recv = { as, from, timeout }`, exactly one, with those fields (`channel_input`);
 * - its `from`, `to` and `as`, when written as text, are participants of the channel
 *   (`channel_not_participant`);
 * - a `recv` has a `timeout`, a duration (`channel_recv_unbounded`, `invalid_value`);
 * - every participant is an agent some step of the module runs, or that it passes to a
 *   subworkflow or a flow ("referenced but never spawned": `channel_participant_not_spawned`);
 * - a channel has participants, each named once (`channel_participants`, a warning).
 * Values computed by expressions (`each.value`) are checked when the step runs.
 */
export const checkChannels: Check = {
  name: "channels",
  onlyWhenValid: true,
  run(ctx) {
    const out: Diagnostic[] = [];
    // Run by a step, or passed to a subworkflow or a flow that may run it (found by a trial:
    // an agent run only inside the subworkflow it is passed to was refused).
    const spawned = new Set<string>();
    for (const s of ctx.resolution.scopes) {
      for (const st of s.workflow.steps) if (st.target?.kind === "agent") spawned.add(st.target.name);
      for (const passed of [...s.workflow.subworkflows, ...s.workflow.agents]) for (const a of passed.agents) spawned.add(a.ref.replace(/^agent\./, ""));
    }
    for (const s of ctx.resolution.scopes) {
      for (const c of s.workflow.channels) {
        if (c.participants.length === 0) {
          out.push(diag("channel_participants", c.nameRange, `channel "${c.name}" has no participants: nobody can post or receive on it`, { hint: `name the agents that talk on it: participants = [agent.<name>, ...]` }));
        }
        const named = new Set<string>();
        for (const p of c.participants) {
          if (named.has(p.ref)) out.push(diag("channel_participants", p.range, `channel "${c.name}": ${p.ref} is named twice in participants`, { hint: "name each agent once" }));
          named.add(p.ref);
        }
        for (const p of c.participants) {
          const name = p.ref.replace(/^agent\./, "");
          if (!spawned.has(name)) {
            out.push(
              diag("channel_participant_not_spawned", p.range, `channel "${c.name}": participant agent "${name}" is never run by a step of this workflow`, {
                hint: `run it from a step (target = agent.${name}), or take it out of participants`,
              }),
            );
          }
        }
      }
      for (const st of s.workflow.steps) {
        if (st.target?.kind !== "channel") continue;
        const found = s.lookup("channels", st.target.name);
        if (found) out.push(...checkChannelStep(ctx, st, found.decl as ChannelSpec, (name) => s.lookup("agents", name) !== undefined));
      }
    }
    return out;
  },
};

/** One channel step's input: the operation, its fields, its participants, its bound. */
function checkChannelStep(ctx: CheckContext, st: StepSpec, c: ChannelSpec, isAgent: (name: string) => boolean): Diagnostic[] {
  const out: Diagnostic[] = [];
  const what = `step "${st.name}" (channel "${c.name}")`;
  const shapes = `${CHANNEL_OPS.post.shape} or ${CHANNEL_OPS.recv.shape}`;
  if (st.inputExpr) return out; // one expression for the whole input: checked when the step runs
  const input = st.input ?? {};
  const ops = Object.keys(input).filter((k): k is keyof typeof CHANNEL_OPS => k in CHANNEL_OPS);
  const at = st.fieldRanges?.input ?? st.target!.range;
  if (ops.length !== 1) {
    out.push(
      diag("channel_input", ops.length > 1 ? input[ops[1]].keyRange ?? at : at, `${what}: its input needs ${ops.length > 1 ? "one" : "an"} operation: ${shapes}${ops.length > 1 ? ", not both" : ""}`, {
        hint: ops.length > 1 ? "one channel step does one thing: split it into two steps" : "post sends a message, receive takes one: write one of them in the step's input",
      }),
    );
    return out;
  }
  const op = ops[0];
  for (const k of Object.keys(input)) {
    if (k !== op) out.push(diag("channel_input", input[k].keyRange ?? input[k].range, `${what}: input "${k}" has no meaning for a channel step`, { hint: `a ${op} takes ${CHANNEL_OPS[op].shape}` }));
  }
  const src = input[op];
  // The outcomes the operation ends in: a post `success`; a receive `received` or `timeout`.
  const declared = new Set(st.outcomes.map((o) => o.name));
  // An iterating post's items end in `success`, which its aggregate outcomes take, as an
  // iterating shell step's do (found by a new-user trial: `parallel` posts were refused).
  // An iterating receive still routes `timeout`: an item that timed out is not counted a failure.
  if (!declared.has("default") && !(op === "post" && iterates(st))) {
    for (const name of op === "post" ? ["success"] : ["received", "timeout"]) {
      if (!declared.has(name)) {
        out.push(diag("missing_outcome", st.nameRange, `${what}: a ${op} ends in outcome "${name}", which the step does not declare`, { hint: `add outcome "${name}" { next = "..." }` }));
      }
    }
  }
  if (src.kind === "literal" && (src.value === null || typeof src.value !== "object" || Array.isArray(src.value))) {
    out.push(diag("channel_input", src.range, `${what}: ${op} must be an object, ${CHANNEL_OPS[op].shape.replace(/^\w+ = /, "")}, not ${JSON.stringify(src.value)?.slice(0, 40)}`));
    return out;
  }
  const fields = fieldsOf(ctx, src);
  if (!fields) return out; // an expression: checked when the step runs
  const spec = CHANNEL_OPS[op];
  for (const [k, f] of fields) {
    if (!(spec.fields as readonly string[]).includes(k)) {
      out.push(diag("channel_input", f.keyRange, `${what}: a ${op} has no field "${k}"`, { hint: suggest(k, spec.fields) ?? `it takes ${spec.shape}` }));
    }
  }
  for (const k of spec.required) {
    if (fields.has(k)) continue;
    if (k === "timeout") out.push(diag("channel_recv_unbounded", src.keyRange ?? src.range, `${what}: this recv has no timeout: a message that never comes would hold the run for ever`, { hint: `bound it: recv = { ..., timeout = "5m" } (the step then takes its "timeout" outcome)` }));
    else out.push(diag("channel_input", src.keyRange ?? src.range, `${what}: a ${op} needs "${k}"`, { hint: `write ${spec.shape}` }));
  }
  const participants = c.participants.map((p) => p.ref.replace(/^agent\./, ""));
  for (const [k, f] of fields) {
    if ((PARTICIPANT_FIELDS.has(k) || k === "timeout") && f.literal !== undefined && typeof f.literal !== "string") {
      out.push(diag("invalid_type", f.range, `${what}: ${k} must be ${k === "timeout" ? 'a duration such as "30s"' : "a participant's name"}, not ${JSON.stringify(f.literal)?.slice(0, 40)}`));
      continue;
    }
    if (PARTICIPANT_FIELDS.has(k) && typeof f.text === "string" && !participants.includes(f.text)) {
      out.push(
        diag("channel_not_participant", f.range, `${what}: ${k} = "${f.text}" is not a participant of channel "${c.name}"`, {
          // A declared agent that is not listed is added, not guessed at (a new-user trial was
          // offered the sender itself for the recipient "b").
          hint: isAgent(f.text)
            ? `add agent.${f.text} to channel "${c.name}"'s participants, or ${k === "from" ? "send" : "address"} it as one of: ${participants.join(", ")}`
            : (suggest(f.text, participants) ?? `its participants: ${participants.join(", ")}`),
          related: [{ range: c.nameRange, message: `channel "${c.name}" declared here` }],
        }),
      );
    }
    if (k === "timeout" && typeof f.text === "string" && parseDuration(f.text) === undefined) {
      out.push(diag("invalid_value", f.range, `${what}: timeout "${f.text}" is not a duration`, { hint: `write a duration such as "30s", "5m" or "1h"` }));
    }
  }
  return out;
}

/**
 * The fields of an operation written as an object (`post = { from = "a", ... }` in HCL, a
 * map in YAML/JSON): each with its key's and value's ranges and its text when it is a
 * plain string; undefined when the operation is an expression.
 */
function fieldsOf(ctx: CheckContext, src: ExprSource): Map<string, { keyRange: Range; range: Range; text?: string; literal?: unknown }> | undefined {
  const out = new Map<string, { keyRange: Range; range: Range; text?: string; literal?: unknown }>();
  // HCL text parsed for positions: the expression's own, or, for a plain literal object, the
  // file's text under its range (a YAML block map does not parse, and keeps the whole range).
  const text = src.kind === "hcl" ? src.text : src.kind === "literal" ? ctx.textOf(src.range.file).slice(src.range.start.offset, src.range.end.offset) : undefined;
  const parsed = text !== undefined ? parseExpression(text, src.base) : undefined;
  if (parsed && parsed.errors.length === 0 && parsed.expr?.kind === "object") {
    const rangeAt = (start: number, end: number) => (src.exact ? ctx.rangeAt(src.range.file, start, end) : src.range);
    for (const item of parsed.expr.items) {
      const key = item.key.kind === "literal" && typeof item.key.value === "string" ? item.key.value : undefined;
      if (key === undefined) return undefined;
      const v = item.value;
      const text = v.kind === "literal" && typeof v.value === "string" ? v.value : undefined;
      const literal = v.kind === "literal" ? v.value : v.kind === "tuple" ? [] : undefined;
      out.set(key, { keyRange: rangeAt(item.key.start, item.key.end), range: rangeAt(v.start, v.end), text, literal });
    }
    return out;
  }
  if (src.kind === "hcl") return undefined; // an expression: checked when the step runs
  const value = src.value;
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  for (const [k, v] of Object.entries(value)) {
    // A YAML/JSON map: each field where it is written (found by a trial: every problem pointed at the whole map).
    const member = src.members?.[k];
    const nested = src.nested?.find((n) => n.text === v);
    const range = member?.range ?? nested?.range ?? src.range;
    out.set(k, { keyRange: member?.keyRange ?? member?.range ?? src.range, range, text: typeof v === "string" && !v.includes("${") ? v : undefined, literal: typeof v === "string" && v.includes("${") ? undefined : v });
  }
  return out;
}
