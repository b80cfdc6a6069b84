import type { CstAttribute, CstBlock, CstBody } from "../parse/hcl/cst.js";
import type { TokenList } from "../parse/hcl/tokens.js";
import { T } from "../parse/hcl/tokens.js";
import { SourceFile } from "../diagnostics/source-file.js";
import { attr, blocksWithParent, stringOf } from "./cst-spans.js";
import type { TextEdit } from "./text-edits.js";

/**
 * The rewrites of `criteria fmt --to v0.5` that turn the older branching and type forms into
 * the Go tool's v0.5 ones (its LANGUAGE-SPEC: `switch_block := "switch" STRING "{"
 * match_block* default_block? "}"`, bare types), found missing by a trial of its language:
 * - a v0.3 switch arm `condition { match = X … }` → `match { condition = X … }`;
 * - a v0.2 `branch "b" { arm { when = X … } default = "s" }` → `switch "b" { match {
 *   condition = X … } default { next = "s" } }` (v0.5 refuses `branch`), and references
 *   `branch.b` → `switch.b`;
 * - a quoted type (`type = "string"`, `"list(string)"`) → the bare type.
 * `transition_to` → `next` inside arms is the main rewrite's (upgrade-v05.ts). Edits are on
 * token offsets; `changes` gets one line per rewrite (`12: branch "b" → switch "b"`), `arms`
 * the offset of each arm rewritten into a `match` block (for {@link alignMatchBlocks}).
 */
export function formEdits(text: string, tokens: TokenList, body: CstBody, changes: string[], arms: number[] = []): TextEdit[] {
  const edits: TextEdit[] = [];
  const { starts, ends } = tokens;
  const lines = new SourceFile("", text);
  const line = (tok: number) => lines.position(starts[tok]).line;
  // The name only: alignMatchBlocks then aligns the renamed arm's attributes.
  const rename = (a: CstAttribute, name: string) => edits.push({ start: starts[a.nameToken], end: ends[a.nameToken], text: name });
  const retype = (b: CstBlock, type: string) => edits.push({ start: starts[b.typeToken], end: ends[b.typeToken], text: type });
  const branches = new Set<string>();
  for (const { block: b } of blocksWithParent(body)) {
    if (b.type === "switch") {
      for (const arm of childBlocks(b.body, "condition")) {
        const m = attr(arm.body, "match");
        if (!m || attr(arm.body, "condition")) continue;
        retype(arm, "match");
        arms.push(starts[arm.typeToken]);
        rename(m, "condition");
        changes.push(`${line(arm.typeToken)}: condition { match = … } → match { condition = … }`);
      }
    }
    if (b.type === "branch" && b.labels.length === 1) {
      branches.add(b.labels[0]);
      retype(b, "switch");
      changes.push(`${line(b.typeToken)}: branch "${b.labels[0]}" → switch "${b.labels[0]}"`);
      for (const arm of childBlocks(b.body, "arm")) {
        retype(arm, "match");
        arms.push(starts[arm.typeToken]);
        const w = attr(arm.body, "when");
        if (w && !attr(arm.body, "condition")) rename(w, "condition");
        changes.push(`${line(arm.typeToken)}: arm { when = … } → match { condition = … }`);
      }
      const d = attr(b.body, "default");
      if (d && stringOf(d.expr) !== undefined) {
        edits.push({ start: starts[d.nameToken], end: d.expr.end, text: `default { next = ${text.slice(d.expr.start, d.expr.end)} }` });
        changes.push(`${line(d.nameToken)}: default = … → default { next = … }`);
      }
    }
    if (["variable", "output", "shared_variable"].includes(b.type) || (b.type === "data" && b.labels.length === 2)) {
      const t = attr(b.body, "type");
      const s = t ? stringOf(t.expr) : undefined;
      if (t && s !== undefined && TYPE.test(s)) {
        edits.push({ start: t.expr.start, end: t.expr.end, text: s });
        changes.push(`${line(t.nameToken)}: type = "${s}" → type = ${s}`);
      }
    }
  }
  // `branch.b` (a next, a default's target) → `switch.b`, for the branches rewritten.
  const { kinds } = tokens;
  for (let i = 0; i + 2 < tokens.count; i++) {
    if (kinds[i] !== T.Ident || kinds[i + 1] !== T.Dot || kinds[i + 2] !== T.Ident || text.slice(starts[i], ends[i]) !== "branch") continue;
    if (i > 0 && kinds[i - 1] === T.Dot) continue;
    if (branches.has(text.slice(starts[i + 2], ends[i + 2]))) edits.push({ start: starts[i], end: ends[i], text: "switch" });
  }
  return edits;
}

/** Type expressions written quoted by older files: a primitive, or a collection of primitives. */
const TYPE = /^(string|number|bool|any|(list|set|map)\((string|number|bool|any)\))$/;

function childBlocks(b: CstBody, type: string): CstBlock[] {
  return b.items.filter((i): i is CstBlock => i.kind === "block" && i.type === type);
}

/**
 * Aligns the `=` of each rewritten `match` block's consecutive one-line attributes (as
 * `terraform fmt` aligns a group): the renames above leave `condition     = …` over `next =
 * …` where `when`/`transition_to` were aligned. Run on the text after {@link formEdits};
 * `rewritten` holds the offsets in that text of the blocks it rewrote. A `match` block
 * written so is left as it is (found by a new-user trial: an already-v0.5 file was
 * realigned, and `fmt --check` failed on it for ever).
 */
export function alignMatchBlocks(text: string, tokens: TokenList, body: CstBody, rewritten: ReadonlySet<number>): TextEdit[] {
  const edits: TextEdit[] = [];
  const { starts, ends } = tokens;
  const lines = new SourceFile("", text);
  const lineOf = (offset: number) => lines.position(offset).line;
  for (const { block: b, parent } of blocksWithParent(body)) {
    if (b.type !== "match" || parent !== "switch" || !rewritten.has(starts[b.typeToken])) continue;
    let group: CstAttribute[] = [];
    const flush = () => {
      if (group.length > 1) {
        const width = Math.max(...group.map((a) => a.name.length));
        for (const a of group) edits.push({ start: ends[a.nameToken], end: starts[a.equalsToken], text: " ".repeat(width - a.name.length + 1) });
      }
      group = [];
    };
    let last = -1;
    for (const item of b.body.items) {
      const oneLine = item.kind === "attribute" && lineOf(starts[item.nameToken]) === lineOf(starts[item.equalsToken]);
      if (!oneLine) {
        flush();
        last = -1;
        continue;
      }
      const a = item as CstAttribute;
      const at = lineOf(starts[a.nameToken]);
      if (last >= 0 && at !== last + 1) flush();
      group.push(a);
      last = lineOf(a.expr.end);
    }
    flush();
  }
  return edits;
}
