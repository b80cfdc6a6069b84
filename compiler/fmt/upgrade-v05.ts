/**
 * `criteria fmt --to v0.5`: rewrites the older forms of HCL files into the Go tool's
 * current ones (docs/language.md, Upgrading to v0.5), keeping every comment and the
 * layout of what it does not rewrite. Edits are made on the concrete syntax tree's
 * token offsets (compiler/parse/hcl/cst.ts), never by printing the tree again.
 *
 * The files of one module (a directory's files are one workflow) are rewritten together,
 * so an agent declared in one file and used in another is rewritten in both, or in none.
 * The rewrites:
 * 1. `transition_to = "s"` → `next = "s"` (the name only) where it routes: in an
 *    `outcome` of a step, wait or approval, a switch's `condition`/`default`, a branch's
 *    `arm`/`default` (never inside data such as `input` or `config`).
 * 2. `agent "n" { adapter = "t" ... }` → `adapter "t" "n" { ... }` when the agent is only
 *    an adapter session (its other fields are `on_crash` and `config`), only steps target
 *    it (`agent = "n"` or `target = agent.n`, rewritten to `target = adapter.t.n`), and
 *    the rewrite cannot merge two sessions (no `adapter "t" "n"` already, and no agent
 *    `default` of a type that steps also name directly). Other agents stay agents.
 * 3. A step's `adapter = "t"` (an implicit session of a plugin type) → `target =
 *    adapter.t.default`, with `adapter "t" "default" {}` declared once, before the
 *    module's first step (its entry's, so that a body's session stays the run's), when the
 *    module has none.
 * 4. The older switch, branch and type forms (compiler/fmt/upgrade-forms.ts).
 * 5. The labelled header (compiler/fmt/header-rewrite.ts).
 * Steps 1–4 are one pass of edits; the header is rewritten on the re-parsed result.
 */
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { diag } from "../diagnostics/diagnostic.js";
import { SourceFile } from "../diagnostics/source-file.js";
import type { CstAttribute, CstBlock } from "../parse/hcl/cst.js";
import { parseHclNative, type HclParseResult } from "../parse/hcl/index.js";
import { labelEnd, T, type TokenList } from "../parse/hcl/tokens.js";
import { attr, blocksWithParent, firstToken, stringOf } from "./cst-spans.js";
import { alignMatchBlocks, formEdits } from "./upgrade-forms.js";
import { hclQuote, rewriteHeader } from "./header-rewrite.js";
import { applyEdits, indentAt, isBlank, lineEnd, lineStart, newlineOf, shiftedOffset, type TextEdit } from "./text-edits.js";

/** What an upgrade did to one file. */
export interface Upgrade {
  file: SourceFile;
  /** The rewritten text (the input when nothing changed or a file of the module does not parse). */
  text: string;
  /** One line per rewrite, e.g. `3: transition_to → next`, in line order. */
  changes: string[];
  /**
   * Syntax errors of the input (nothing of the module is rewritten then), or an
   * `internal_error` when our result would not parse (a bug; the file is left as it is).
   */
  problems: Diagnostic[];
}

/** Fields an agent may have and still be written as an adapter block. */
const AGENT_AS_ADAPTER_ATTRS = new Set(["adapter", "on_crash"]);
const AGENT_AS_ADAPTER_BLOCKS = new Set(["config"]);
/** Names that can appear in a traversal `adapter.<type>.<name>`. */
const IDENT = /^[A-Za-z_][A-Za-z0-9_-]*$/;
/** Where `transition_to` routes: block type → the block types it may sit in. */
const ROUTING: Record<string, readonly string[]> = {
  outcome: ["step", "wait", "approval"],
  condition: ["switch"],
  arm: ["branch"],
  default: ["switch", "branch"],
};

/** Rewrites one file (a module of one file). Never throws. */
export function upgradeToV05(file: SourceFile): Upgrade {
  return upgradeModuleToV05([file])[0];
}

/**
 * Rewrites the files of one module together. Never throws: when a file has syntax
 * errors, every file comes back unchanged (with the errors on the file that has them).
 */
export function upgradeModuleToV05(files: readonly SourceFile[]): Upgrade[] {
  const parsed = files.map((file) => ({ file, result: parseHclNative(file) }));
  const errors = parsed.map(({ result }) => result.diagnostics.filter((d) => d.severity === "error" && (d.code === "syntax_error" || d.code === "nesting_too_deep")));
  if (errors.some((e) => e.length > 0)) return parsed.map(({ file }, i) => ({ file, text: file.text, changes: [], problems: errors[i] }));
  const plan = planModule(parsed);
  return parsed.map(({ file, result }) => {
    const changes: string[] = [];
    const arms: number[] = [];
    const edits = [...fileEdits(file, result, plan, changes), ...formEdits(file.text, result.cst.tokens, result.cst.body, changes, arms)];
    const text1 = applyEdits(file.text, edits);
    const first = parseHclNative(new SourceFile(file.path, text1));
    const broken = first.diagnostics.find((d) => d.code === "syntax_error");
    if (broken) return { file, text: file.text, changes: [], problems: [internal(file, broken)] };
    const rewritten = new Set(arms.map((o) => shiftedOffset(edits, o)).filter((o) => o !== undefined));
    const aligned = applyEdits(text1, alignMatchBlocks(text1, first.cst.tokens, first.cst.body, rewritten));
    const second = aligned === text1 ? first : parseHclNative(new SourceFile(file.path, aligned));
    const text2 = rewriteHeader(aligned, second.cst.tokens, second.cst.body, changes);
    const third = parseHclNative(new SourceFile(file.path, text2)).diagnostics.find((d) => d.code === "syntax_error");
    if (third) return { file, text: file.text, changes: [], problems: [internal(file, third)] };
    const lineOf = (c: string) => Number(/^(\d+):/.exec(c)?.[1] ?? Infinity);
    return { file, text: text2, changes: changes.sort((a, b) => lineOf(a) - lineOf(b)), problems: [] };
  });
}

function internal(file: SourceFile, d: Diagnostic): Diagnostic {
  return diag("internal_error", file.range(0), `fmt --to v0.5 produced a file that does not parse (${d.message}); the file was left unchanged`, {
    hint: "please report this file",
  });
}


/** What the module-wide analysis decided. */
interface Plan {
  /** Agents rewritten as adapters: name → adapter type. */
  agents: Map<string, string>;
  /** Plugin types steps name directly that need `adapter "t" "default" {}` declared, and the file and step before which it goes. */
  declare: { types: string[]; file: SourceFile; before: CstBlock } | undefined;
}

/** Decides, over all files of a module, which agents become adapters and which adapters must be declared. */
function planModule(parsed: readonly { file: SourceFile; result: HclParseResult }[]): Plan {
  const candidates = new Map<string, string | null>();
  const declared = new Set<string>();
  const blocked = new Set<string>();
  const implicit: string[] = [];
  let firstImplicit: { file: SourceFile; before: CstBlock } | undefined;
  // Where a declaration goes: before the module's first step (its entry's: files come entry
  // first, then the bodies it reaches). A legacy step's implicit adapter is the whole run's, so
  // one declared in a body file would be the body's own (found by a new-user trial: a legacy
  // body's `adapter = "shell"` was declared in the body, and fmt refused its own rewrite).
  let moduleFirstStep: { file: SourceFile; before: CstBlock } | undefined;
  for (const { file, result } of parsed) {
    const text = file.text;
    const { tokens, body } = result.cst;
    const { starts, ends, kinds } = tokens;
    const stepTargets = new Set<number>();
    let firstStep: CstBlock | undefined;
    for (const { block: b } of blocksWithParent(body)) {
      if (b.type === "adapter" && b.labels.length === 2) declared.add(`${b.labels[0]}.${b.labels[1]}`);
      if (b.type === "agent" && b.labels.length === 1) {
        const a = attr(b.body, "adapter");
        const type = a ? stringOf(a.expr) : undefined;
        const plain = b.body.items.every((i) => (i.kind === "attribute" ? AGENT_AS_ADAPTER_ATTRS.has(i.name) : AGENT_AS_ADAPTER_BLOCKS.has(i.type)));
        const name = b.labels[0];
        const ok = type !== undefined && plain && IDENT.test(type) && IDENT.test(name) && (!candidates.has(name) || candidates.get(name) === type);
        candidates.set(name, ok ? type! : null);
      }
      if (b.type === "step") {
        firstStep ??= b;
        moduleFirstStep ??= { file, before: b };
        const t = attr(b.body, "target");
        if (t?.expr.kind === "traversal") stepTargets.add(t.expr.start);
        // `agent = agent.n`, the older field with a reference: the step's target too.
        const stepAgent = attr(b.body, "agent");
        if (!t && stepAgent?.expr.kind === "traversal") stepTargets.add(stepAgent.expr.start);
        const ad = attr(b.body, "adapter");
        const adType = ad && !t && !attr(b.body, "agent") ? stringOf(ad.expr) : undefined;
        if (adType !== undefined && IDENT.test(adType)) {
          if (!implicit.includes(adType)) implicit.push(adType);
          firstImplicit ??= { file, before: firstStep };
        }
      } else {
        // `memory { agent = "n" }` and the like: an agent named elsewhere stays an agent.
        const agentAttr = attr(b.body, "agent");
        const named = agentAttr ? stringOf(agentAttr.expr) : undefined;
        if (named !== undefined) blocked.add(named);
      }
    }
    // `agent.n` anywhere but a step's target (a channel, a subworkflow's agents) keeps n an agent.
    for (let i = 0; i + 2 < tokens.count; i++) {
      if (kinds[i] !== T.Ident || kinds[i + 1] !== T.Dot || kinds[i + 2] !== T.Ident || text.slice(starts[i], ends[i]) !== "agent") continue;
      if (i > 0 && kinds[i - 1] === T.Dot) continue;
      if (!stepTargets.has(starts[i])) blocked.add(text.slice(starts[i + 2], ends[i + 2]));
    }
  }
  const agents = new Map<string, string>();
  for (const [name, type] of candidates) {
    if (type === null || blocked.has(name) || declared.has(`${type}.${name}`)) continue;
    // `agent "default" { adapter = "t" }` and steps naming `t` directly are two sessions: keep them two.
    if (name === "default" && implicit.includes(type)) continue;
    agents.set(name, type);
  }
  const missing = implicit.filter((t) => !declared.has(`${t}.default`));
  return { agents, declare: missing.length > 0 && firstImplicit ? { types: missing, ...(moduleFirstStep ?? firstImplicit) } : undefined };
}

/** Rewrites 1–3 of one file as edits of its text. */
function fileEdits(file: SourceFile, result: HclParseResult, plan: Plan, changes: string[]): TextEdit[] {
  const text = file.text;
  const edits: TextEdit[] = [];
  const { tokens, body } = result.cst;
  const { starts, ends } = tokens;
  const line = (tok: number) => text.slice(0, starts[tok]).split("\n").length;
  // A renamed attribute keeps its `=` where it was when the padding allows (aligned blocks stay aligned).
  const rename = (a: CstAttribute, name: string) => {
    const gap = starts[a.equalsToken] - ends[a.nameToken];
    const sameLine = isBlank(text, ends[a.nameToken], starts[a.equalsToken]);
    const pad = !sameLine ? text.slice(ends[a.nameToken], starts[a.equalsToken]) : gap <= 1 ? " ".repeat(gap) : " ".repeat(Math.max(1, gap + a.name.length - name.length));
    edits.push({ start: starts[a.nameToken], end: starts[a.equalsToken], text: name + pad });
  };
  for (const { block: b, parent } of blocksWithParent(body)) {
    // 1. transition_to → next, where it routes.
    const t = ROUTING[b.type]?.includes(parent) ? attr(b.body, "transition_to") : undefined;
    if (t && !attr(b.body, "next")) {
      rename(t, "next");
      changes.push(`${line(t.nameToken)}: transition_to → next`);
    }
    // 2. The agent block.
    const type = b.type === "agent" && b.labels.length === 1 ? plan.agents.get(b.labels[0]) : undefined;
    if (type !== undefined) {
      const name = b.labels[0];
      // The type word and the label, each in its place: a comment between them stays (a new-user trial: `agent /* c */ "bot"` lost it).
      edits.push({ start: starts[b.typeToken], end: ends[b.typeToken], text: "adapter" });
      edits.push({ start: starts[b.labelTokens[0]], end: labelEnd(tokens, b.labelTokens[0]), text: `${hclQuote(type)} ${hclQuote(name)}` });
      edits.push(removeAttribute(text, tokens, attr(b.body, "adapter")!));
      changes.push(`${line(b.typeToken)}: agent "${name}" → adapter "${type}" "${name}"`);
    }
    if (b.type !== "step") continue;
    // 2 and 3: the step's target.
    const target = attr(b.body, "target");
    if (target) {
      const ref = target.expr.kind === "traversal" ? /^agent\.([A-Za-z_][A-Za-z0-9_-]*)$/.exec(text.slice(target.expr.start, target.expr.end)) : null;
      const agType = ref ? plan.agents.get(ref[1]) : undefined;
      if (ref && agType !== undefined) {
        edits.push({ start: target.expr.start, end: target.expr.end, text: `adapter.${agType}.${ref[1]}` });
        changes.push(`${line(target.nameToken)}: target = agent.${ref[1]} → adapter.${agType}.${ref[1]}`);
      }
      continue;
    }
    const ag = attr(b.body, "agent");
    // The older fields written as references (`agent = agent.bot`, `adapter =
    // adapter.shell.default`) or an adapter block's name (`adapter = "shell.default"`), as the
    // compiler reads them: the step's target (found by a new-user trial: left as they were).
    const refOf = (a: CstAttribute | undefined) => (a?.expr.kind === "traversal" ? text.slice(a.expr.start, a.expr.end) : undefined);
    const agRef = /^agent\.([A-Za-z_][A-Za-z0-9_-]*)$/.exec(refOf(ag) ?? "");
    const agName = ag ? (stringOf(ag.expr) ?? agRef?.[1]) : undefined;
    const agType = agName !== undefined ? plan.agents.get(agName) : undefined;
    if (ag && agType !== undefined) {
      rename(ag, "target");
      edits.push({ start: ag.expr.start, end: ag.expr.end, text: `adapter.${agType}.${agName}` });
      changes.push(`${line(ag.nameToken)}: agent = ${agRef ? agRef[0] : `"${agName}"`} → target = adapter.${agType}.${agName}`);
      continue;
    }
    if (ag && agRef) {
      rename(ag, "target");
      changes.push(`${line(ag.nameToken)}: agent = ${agRef[0]} → target = ${agRef[0]}`);
      continue;
    }
    const ad = ag ? undefined : attr(b.body, "adapter");
    const adType = ad ? stringOf(ad.expr) : undefined;
    // As the compiler reads them (decode-workflow.ts): `adapter.T[.N]`, else `T.N`.
    const adText = adType ?? refOf(ad) ?? "";
    const adBlock = adText.startsWith("adapter.") ? /^adapter\.([A-Za-z_][A-Za-z0-9_-]*)(?:\.([A-Za-z_][A-Za-z0-9_-]*))?$/.exec(adText) : /^([A-Za-z_][A-Za-z0-9_-]*)\.([A-Za-z_][A-Za-z0-9_-]*)$/.exec(adText);
    if (ad && adType !== undefined && IDENT.test(adType)) {
      rename(ad, "target");
      edits.push({ start: ad.expr.start, end: ad.expr.end, text: `adapter.${adType}.default` });
      changes.push(`${line(ad.nameToken)}: adapter = "${adType}" → target = adapter.${adType}.default`);
    } else if (ad && adBlock) {
      const to = `adapter.${adBlock[1]}.${adBlock[2] ?? "default"}`;
      rename(ad, "target");
      edits.push({ start: ad.expr.start, end: ad.expr.end, text: to });
      changes.push(`${line(ad.nameToken)}: adapter = ${adType !== undefined ? `"${adType}"` : adBlock[0]} → target = ${to}`);
    }
  }
  const declare = plan.declare;
  if (declare && declare.file === file) {
    const at = lineStart(text, starts[firstToken(declare.before)]);
    const indent = indentAt(text, starts[declare.before.typeToken]);
    const nl = newlineOf(text);
    edits.push({ start: at, end: at, text: declare.types.map((t) => `${indent}adapter ${hclQuote(t)} "default" {}${nl}${nl}`).join("") });
    for (const t of declare.types) changes.push(`adapter "${t}" "default" {} declared for the steps that name the type`);
  }
  return edits;
}

/**
 * Deletes an attribute: its whole line when nothing else is on it; with a comment after
 * it, the attribute and the space before the comment (the comment stays where it was).
 */
function removeAttribute(text: string, tokens: TokenList, a: CstAttribute): TextEdit {
  const start = tokens.starts[a.firstToken];
  const end = tokens.ends[a.lastToken];
  const ls = lineStart(text, start);
  const le = lineEnd(text, end);
  const rest = text.slice(end, le);
  if (isBlank(text, ls, start) && rest.trim() === "") return { start: ls, end: le, text: "" };
  let to = end;
  while (to < le && (text[to] === " " || text[to] === "\t")) to++;
  return { start, end: to, text: "" };
}
