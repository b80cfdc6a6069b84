/**
 * `criteria fmt --to v0.5`: rewrites the older forms of an HCL file into the Go tool's
 * current ones (docs/language.md, Eras), keeping every comment and the layout of what
 * it does not rewrite. Edits are made on the concrete syntax tree's token offsets
 * (compiler/parse/hcl/cst.ts), never by printing the tree again.
 *
 * The rewrites:
 * 1. `transition_to = "s"` (outcomes, switch conditions and defaults, branch arms) →
 *    `next = "s"` (the attribute's name only).
 * 2. `agent "n" { adapter = "t" ... }` → `adapter "t" "n" { ... }` when the agent is a
 *    plain adapter session (its other fields are `on_crash`, `environment`, `config {}`,
 *    `secrets {}`; an agent that is a flow, `use = "..."`, has no v0.5 form and stays),
 *    and a step's `agent = "n"` → `target = adapter.t.n`.
 * 3. A step's `adapter = "t"` (an implicit session of a plugin type) → `target =
 *    adapter.t.default`, with `adapter "t" "default" {}` declared once before the first
 *    step when the file has none.
 * 4. The labelled header `workflow "n" { ... }` → `workflow { name = "n" ... }`; blocks
 *    written inside it (the first era wrote the whole workflow there) move after it, to
 *    the top level, each with its comments, one indentation level less (never inside a
 *    heredoc, whose text is its value).
 * Steps 1–3 are one pass of edits; the header is rewritten on the re-parsed result.
 */
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { diag } from "../diagnostics/diagnostic.js";
import { SourceFile } from "../diagnostics/source-file.js";
import type { CstAttribute, CstBlock, CstBody, CstItem, Expr } from "../parse/hcl/cst.js";
import { parseHclNative } from "../parse/hcl/index.js";
import { T, type TokenList } from "../parse/hcl/tokens.js";
import { applyEdits, indentAt, isBlank, lineEnd, lineStart, newlineOf, type TextEdit } from "./text-edits.js";

/** What an upgrade did to one file. */
export interface Upgrade {
  /** The rewritten text (the input when nothing changed or the file does not parse). */
  text: string;
  /** One line per rewrite, e.g. `3 transition_to → next`. */
  changes: string[];
  /** Syntax errors of the input (nothing is rewritten then), or of our result (a bug: an internal_error). */
  problems: Diagnostic[];
}

/** Blocks of the labelled header that stay in the v0.5 header. */
const HEADER_BLOCKS = new Set(["policy", "memory", "expects"]);
/** Fields an agent may have and still be written as an adapter block. */
const AGENT_AS_ADAPTER_ATTRS = new Set(["adapter", "on_crash", "environment"]);
const AGENT_AS_ADAPTER_BLOCKS = new Set(["config", "secrets"]);
/** Names that can appear in a traversal `adapter.<type>.<name>`. */
const IDENT = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/**
 * Rewrites `file` (HCL native syntax) into the v0.5 forms. Never throws: a file with
 * syntax errors comes back unchanged with its errors.
 */
export function upgradeToV05(file: SourceFile): Upgrade {
  const first = parseHclNative(file);
  const errors = first.diagnostics.filter((d) => d.severity === "error" && d.code !== "missing_field" && d.code !== "invalid_value");
  if (errors.length > 0) return { text: file.text, changes: [], problems: errors };
  const changes: string[] = [];
  const text1 = applyEdits(file.text, bodyEdits(file.text, first.cst.tokens, first.cst.body, changes));
  const second = parseHclNative(new SourceFile(file.path, text1));
  const broken = second.diagnostics.filter((d) => d.severity === "error" && d.code === "syntax_error");
  if (broken.length > 0) return { text: file.text, changes: [], problems: [internal(file, broken[0])] };
  const text2 = headerRewrite(text1, second.cst.tokens, second.cst.body, changes);
  const third = parseHclNative(new SourceFile(file.path, text2));
  const broken2 = third.diagnostics.filter((d) => d.severity === "error" && d.code === "syntax_error");
  if (broken2.length > 0) return { text: file.text, changes: [], problems: [internal(file, broken2[0])] };
  const lineOf = (c: string) => Number(/^(\d+):/.exec(c)?.[1] ?? Infinity);
  return { text: text2, changes: changes.sort((a, b) => lineOf(a) - lineOf(b)), problems: [] };
}

function internal(file: SourceFile, d: Diagnostic): Diagnostic {
  return diag("internal_error", file.range(0), `fmt --to v0.5 produced a file that does not parse (${d.message}); the file was left unchanged`, {
    hint: "please report this file",
  });
}

/** The string an attribute holds when its expression is one plain quoted string. */
function stringOf(e: Expr): string | undefined {
  if (e.kind !== "template" || e.heredoc) return undefined;
  if (e.parts.length === 0) return "";
  return e.parts.length === 1 && e.parts[0].kind === "lit" ? e.parts[0].value : undefined;
}

/** A quoted HCL string holding `s` (template sequences escaped). */
export function hclQuote(s: string): string {
  const body = s
    .replace(/\\/g, "\\\\")
    .replace(/"/g, '\\"')
    .replace(/\n/g, "\\n")
    .replace(/\r/g, "\\r")
    .replace(/\t/g, "\\t")
    .replace(/\$\{/g, "$${")
    .replace(/%\{/g, "%%{");
  return `"${body}"`;
}

function attr(b: CstBody, name: string): CstAttribute | undefined {
  return b.items.find((i): i is CstAttribute => i.kind === "attribute" && i.name === name);
}

function* blocks(b: CstBody): Generator<CstBlock> {
  for (const item of b.items) {
    if (item.kind !== "block") continue;
    yield item;
    yield* blocks(item.body);
  }
}

/** Rewrites 1–3 (see the module comment) as edits of `text`. */
function bodyEdits(text: string, tokens: TokenList, root: CstBody, changes: string[]): TextEdit[] {
  const edits: TextEdit[] = [];
  const { starts, ends } = tokens;
  const all = [...blocks(root)];
  // A renamed attribute keeps its `=` where it was when the padding allows (aligned blocks stay aligned).
  const rename = (a: CstAttribute, name: string) => {
    const gap = starts[a.equalsToken] - ends[a.nameToken];
    const sameLine = isBlank(text, ends[a.nameToken], starts[a.equalsToken]);
    const pad = !sameLine ? text.slice(ends[a.nameToken], starts[a.equalsToken]) : gap <= 1 ? " ".repeat(gap) : " ".repeat(Math.max(1, gap + a.name.length - name.length));
    edits.push({ start: starts[a.nameToken], end: starts[a.equalsToken], text: name + pad });
  };
  const line = (tok: number) => text.slice(0, starts[tok]).split("\n").length;

  // 1. transition_to → next.
  for (const b of all) {
    const t = attr(b.body, "transition_to");
    if (t && !attr(b.body, "next")) {
      rename(t, "next");
      changes.push(`${line(t.nameToken)}: transition_to → next`);
    }
  }

  // 2. Agents that are adapter sessions. A name declared twice with different types is left alone.
  const agentType = new Map<string, string | null>();
  const agentBlocks: { block: CstBlock; type: string; adapterAttr: CstAttribute }[] = [];
  for (const b of all) {
    if (b.type !== "agent" || b.labels.length !== 1) continue;
    const a = attr(b.body, "adapter");
    const type = a ? stringOf(a.expr) : undefined;
    const plain = b.body.items.every((i) => (i.kind === "attribute" ? AGENT_AS_ADAPTER_ATTRS.has(i.name) : AGENT_AS_ADAPTER_BLOCKS.has(i.type)));
    const name = b.labels[0];
    if (!a || type === undefined || !plain || !IDENT.test(type) || !IDENT.test(name)) {
      agentType.set(name, null);
      continue;
    }
    agentType.set(name, agentType.has(name) && agentType.get(name) !== type ? null : type);
    agentBlocks.push({ block: b, type, adapterAttr: a });
  }
  // An agent is rewritten only when every reference to it is a step's target, which the
  // next loop rewrites too; any other (`agent.n` in a list, `memory { agent = "n" }`) keeps it an agent.
  const stepTargets = new Set<number>();
  for (const b of all) {
    if (b.type !== "step") continue;
    const t = attr(b.body, "target");
    if (t?.expr.kind === "traversal") stepTargets.add(t.expr.start);
  }
  const { kinds } = tokens;
  for (let i = 0; i + 2 < tokens.count; i++) {
    if (kinds[i] !== T.Ident || kinds[i + 1] !== T.Dot || kinds[i + 2] !== T.Ident || text.slice(starts[i], ends[i]) !== "agent") continue;
    if (i > 0 && kinds[i - 1] === T.Dot) continue;
    if (!stepTargets.has(starts[i])) agentType.set(text.slice(starts[i + 2], ends[i + 2]), null);
  }
  for (const b of all) {
    const a = b.type !== "step" ? attr(b.body, "agent") : undefined;
    const named = a ? stringOf(a.expr) : undefined;
    if (named !== undefined) agentType.set(named, null);
  }
  for (const { block, type, adapterAttr } of agentBlocks) {
    const name = block.labels[0];
    if (agentType.get(name) !== type) continue;
    const labelEnd = ends[block.labelTokens[0]] + (tokens.kinds[block.labelTokens[0]] === T.OQuote ? closeQuoteEnd(tokens, block.labelTokens[0]) - ends[block.labelTokens[0]] : 0);
    edits.push({ start: starts[block.typeToken], end: labelEnd, text: `adapter ${hclQuote(type)} ${hclQuote(name)}` });
    edits.push(removeItem(text, tokens, adapterAttr));
    changes.push(`${line(block.typeToken)}: agent "${name}" → adapter "${type}" "${name}"`);
  }

  // 2 and 3: steps' agent = / adapter =.
  const implicitTypes: string[] = [];
  let firstStep: CstBlock | undefined;
  for (const b of all) {
    if (b.type !== "step") continue;
    firstStep ??= b;
    const target = attr(b.body, "target");
    if (target) {
      // `target = agent.n` of a rewritten agent.
      const ref = target.expr.kind === "traversal" ? /^agent\.([A-Za-z_][A-Za-z0-9_-]*)$/.exec(text.slice(target.expr.start, target.expr.end)) : null;
      const t = ref ? agentType.get(ref[1]) : undefined;
      if (ref && typeof t === "string") {
        edits.push({ start: target.expr.start, end: target.expr.end, text: `adapter.${t}.${ref[1]}` });
        changes.push(`${line(target.nameToken)}: target = agent.${ref[1]} → adapter.${t}.${ref[1]}`);
      }
      continue;
    }
    const ag = attr(b.body, "agent");
    const agName = ag ? stringOf(ag.expr) : undefined;
    const agType = agName !== undefined ? agentType.get(agName) : undefined;
    if (ag && agName !== undefined && typeof agType === "string") {
      rename(ag, "target");
      edits.push({ start: ag.expr.start, end: ag.expr.end, text: `adapter.${agType}.${agName}` });
      changes.push(`${line(ag.nameToken)}: agent = "${agName}" → target = adapter.${agType}.${agName}`);
      continue;
    }
    const ad = attr(b.body, "adapter");
    const adType = ad ? stringOf(ad.expr) : undefined;
    if (ad && adType !== undefined && IDENT.test(adType)) {
      rename(ad, "target");
      edits.push({ start: ad.expr.start, end: ad.expr.end, text: `adapter.${adType}.default` });
      changes.push(`${line(ad.nameToken)}: adapter = "${adType}" → target = adapter.${adType}.default`);
      if (!implicitTypes.includes(adType)) implicitTypes.push(adType);
    }
  }
  const declared = new Set(all.filter((b) => b.type === "adapter" && b.labels.length === 2).map((b) => `${b.labels[0]}.${b.labels[1]}`));
  for (const { block, type } of agentBlocks) if (agentType.get(block.labels[0]) === type) declared.add(`${type}.${block.labels[0]}`);
  const missing = implicitTypes.filter((t) => !declared.has(`${t}.default`));
  if (missing.length > 0 && firstStep) {
    const at = lineStart(text, starts[firstToken(firstStep)]);
    const indent = indentAt(text, starts[firstStep.typeToken]);
    const nl = newlineOf(text);
    edits.push({ start: at, end: at, text: missing.map((t) => `${indent}adapter ${hclQuote(t)} "default" {}${nl}${nl}`).join("") });
    for (const t of missing) changes.push(`adapter "${t}" "default" {} declared for the steps that named the type`);
  }
  return edits;
}

/** The end of a quoted label that opens at token `open`. */
function closeQuoteEnd(tokens: TokenList, open: number): number {
  let i = open + 1;
  while (i < tokens.count && tokens.kinds[i] !== T.CQuote && tokens.kinds[i] !== T.EOF) i++;
  return tokens.ends[i];
}

/** The first token of an item, its leading comments included. */
function firstToken(item: CstItem): number {
  return item.comments.leading.length > 0 ? Math.min(item.firstToken, ...item.comments.leading) : item.firstToken;
}

/**
 * Deletes an attribute: its whole line when nothing else is on it (a trailing comment
 * stays, on its own line), else the attribute's text only.
 */
function removeItem(text: string, tokens: TokenList, a: CstAttribute): TextEdit {
  const start = tokens.starts[a.firstToken];
  const end = tokens.ends[a.lastToken];
  const ls = lineStart(text, start);
  const le = lineEnd(text, end);
  const rest = text.slice(end, le).replace(/\r?\n$/, "");
  if (isBlank(text, ls, start) && rest.trim() === "") return { start: ls, end: le, text: "" };
  return { start, end, text: "" };
}

/** The span of an item: its leading comments to its trailing comment, whole lines when alone on them. */
function itemSpan(text: string, tokens: TokenList, item: CstItem): { start: number; end: number } {
  let start = tokens.starts[firstToken(item)];
  let end = tokens.ends[item.comments.trailing.length > 0 ? Math.max(item.lastToken, ...item.comments.trailing) : item.lastToken];
  const ls = lineStart(text, start);
  if (isBlank(text, ls, start)) start = ls;
  const le = lineEnd(text, end);
  if (text.slice(end, le).trim() === "") end = le;
  return { start, end };
}

/** Offsets of the lines inside heredocs (their text is their value: never re-indented). */
function heredocLines(text: string, tokens: TokenList, from: number, to: number): Set<number> {
  const out = new Set<number>();
  for (let i = 0; i < tokens.count; i++) {
    if (tokens.kinds[i] !== T.OHeredoc || tokens.starts[i] < from || tokens.starts[i] >= to) continue;
    let j = i + 1;
    while (j < tokens.count && tokens.kinds[j] !== T.CHeredoc && tokens.kinds[j] !== T.EOF) j++;
    for (let at = lineEnd(text, tokens.starts[i]); at < tokens.ends[j] && at < text.length; at = lineEnd(text, at)) out.add(at);
  }
  return out;
}

/** `s` (text starting at offset `base` of the file) with up to `width` columns of indentation removed per line. */
function dedent(s: string, base: number, width: number, keep: Set<number>): string {
  if (width <= 0) return s;
  let out = "";
  let at = 0;
  while (at < s.length) {
    const le = s.indexOf("\n", at);
    const lineEndAt = le < 0 ? s.length : le + 1;
    let cut = 0;
    if (!keep.has(base + at)) while (cut < width && (s[at + cut] === " " || s[at + cut] === "\t")) cut++;
    out += s.slice(at + cut, lineEndAt);
    at = lineEndAt;
  }
  return out;
}

/** Rewrite 4: the labelled header (see the module comment). */
function headerRewrite(text: string, tokens: TokenList, root: CstBody, changes: string[]): string {
  const header = root.items.find((i): i is CstBlock => i.kind === "block" && i.type === "workflow" && i.labels.length === 1);
  if (!header || header.openToken < 0 || header.closeToken < 0) return text;
  const { starts, ends } = tokens;
  const nl = newlineOf(text);
  const name = header.labels[0];
  const blockIndent = indentAt(text, starts[header.typeToken]);
  const kept = header.body.items.filter((i) => i.kind === "attribute" || HEADER_BLOCKS.has(i.type));
  const hoisted = header.body.items.filter((i) => !kept.includes(i));
  const firstAttr = kept.find((i): i is CstAttribute => i.kind === "attribute");
  const innerIndent = header.body.items.length > 0 ? indentAt(text, starts[header.body.items[0].firstToken]) : `${blockIndent}  `;
  // `name` aligned with the first attribute's `=` when the header aligns them.
  let pad = " ";
  if (firstAttr && lineStart(text, starts[firstAttr.nameToken]) === lineStart(text, starts[firstAttr.equalsToken])) {
    const eqCol = starts[firstAttr.equalsToken] - lineStart(text, starts[firstAttr.equalsToken]);
    const width = eqCol - innerIndent.length - "name".length;
    if (width > 1) pad = " ".repeat(width);
  }
  const nameLine = `${innerIndent}name${pad}= ${hclQuote(name)}${nl}`;
  const labelStart = starts[header.labelTokens[0]];
  const labelEnd = tokens.kinds[header.labelTokens[0]] === T.OQuote ? closeQuoteEnd(tokens, header.labelTokens[0]) : ends[header.labelTokens[0]];
  changes.push(`${text.slice(0, labelStart).split("\n").length}: workflow "${name}" → workflow { name = "${name}" }`);

  if (hoisted.length === 0 && header.body.dangling.length === 0 && text.slice(ends[header.openToken], lineEnd(text, ends[header.openToken])).trim() === "") {
    // Only header fields: drop the label, add `name` as the first line of the body.
    const bodyAt = lineEnd(text, ends[header.openToken]);
    return applyEdits(text, [
      { start: labelStart - (text[labelStart - 1] === " " ? 1 : 0), end: labelEnd, text: "" },
      { start: bodyAt, end: bodyAt, text: nameLine },
    ]);
  }

  // Blocks inside the header: rebuild the header from its fields, then the blocks after it.
  const span = itemSpan(text, tokens, header);
  const headerLine = text.slice(lineStart(text, starts[header.typeToken]), starts[header.typeToken]);
  const leading = text.slice(span.start, lineStart(text, starts[header.typeToken]));
  const keep = heredocLines(text, tokens, span.start, span.end);
  // A kept item that had a blank line above it keeps one (spans are whole lines).
  const blankAbove = (at: number) => at > 0 && text.slice(lineStart(text, at - 1), at).trim() === "";
  let out = `${leading}${headerLine}workflow {${nl}${nameLine}`;
  let prevEnd = -1;
  for (const item of kept) {
    const s = itemSpan(text, tokens, item);
    if (prevEnd >= 0 && blankAbove(s.start)) out += nl;
    out += text.slice(s.start, s.end);
    if (!out.endsWith("\n")) out += nl;
    prevEnd = s.end;
  }
  out += `${blockIndent}}${nl}`;
  const width = innerIndent.length - blockIndent.length;
  for (const item of hoisted) {
    const s = itemSpan(text, tokens, item);
    out += nl + dedent(text.slice(s.start, s.end), s.start, width, keep);
    if (!out.endsWith("\n")) out += nl;
  }
  if (header.body.dangling.length > 0) {
    const from = lineStart(text, starts[Math.min(...header.body.dangling)]);
    const to = lineEnd(text, ends[Math.max(...header.body.dangling)]);
    out += nl + dedent(text.slice(from, to), from, width, keep);
    if (!out.endsWith("\n")) out += nl;
  }
  changes.push(`${hoisted.length} block${hoisted.length === 1 ? "" : "s"} moved out of the header to the top level`);
  return text.slice(0, span.start) + out + text.slice(span.end);
}
