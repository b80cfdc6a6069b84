/**
 * Lays a parsed file out as the canonical document: hcl2json's JSON value and the
 * source map from each of its JSON pointers to where the value (and key) came from.
 *
 * Sources: hcl2json's block grouping (tmccombs/hcl2json `convert.go` convertBody /
 * convertBlock, as built into @cdktn/hcl2json 0.24) and the source-map shapes of
 * `compiler/parse/hcl-scan.ts` (see its module comment), which this reproduces from the
 * syntax tree instead of re-scanning the text:
 * - attribute `x = e` → `…/x` (range: `e`, trailing blanks trimmed; keyRange: `x`;
 *   exprText: the text of `e`); an attribute wins over blocks of the same name;
 * - block `type "l1" l2 { … }` → `…/type/l1/l2/<i>` (one array per label path, blocks in
 *   source order), each level mapped to the block that created it; a label path used
 *   both as a leaf and as a prefix (`b {}` and `b "x" {}`) is refused, as hcl2json does;
 * - an object constructor maps each literal key (names and static traversals by their
 *   text, strings decoded and re-escaped, numbers in decimal) and a tuple each element,
 *   recursively; so does a template that is exactly one interpolation of one;
 *   computed keys and other expressions are mapped only as a whole.
 * Map insertion order is source order (creation order, as in hcl-scan.ts).
 */
import type { Range } from "../../diagnostics/range.js";
import type { SourceFile } from "../../diagnostics/source-file.js";
import type { JsonObject, JsonValue } from "../document.js";
import { jsonObject } from "../document.js";
import { pointerSegment, type SourceEntry, type SourceMap } from "../source-map.js";
import type { CstBlock, CstBody, Expr } from "./cst.js";
import type { Problem } from "./diagnostics.js";
import { labelEnd, type TokenList } from "./tokens.js";
import { Converter, isSpaceCode } from "./values.js";

type NodeKind = "root" | "attr" | "value" | "blocks" | "block";

/** One value of the document while it is being laid out (hcl-scan.ts's node). */
interface Node {
  kind: NodeKind;
  seq: number;
  /** Where the node was attached (null for the root and for nodes not attached yet). */
  parent: Node | null;
  key: string;
  /** The JSON pointer, filled by `flatten` for attached nodes. */
  pointer: string;
  start: number;
  end: number;
  keyStart: number;
  keyEnd: number;
  children: Map<string, Node> | null;
  count: number;
}

/**
 * Builds the value and the source map of `body` (the file's body). Conversion problems
 * (a unary operator on a literal of the wrong type, a number JSON cannot hold, blocks
 * with and without labels under one name) go to `report`.
 */
export function buildDocument(
  file: SourceFile,
  tokens: TokenList,
  body: CstBody,
  report: (p: Problem) => void,
): { value: JsonObject; map: SourceMap } {
  const builder = new Builder(file, tokens, report);
  const root = builder.node("root", -1, -1);
  root.start = 0;
  root.end = file.text.length;
  root.children = new Map();
  const value = builder.body(body, root);
  return { value, map: flatten(file, builder.nodes) };
}

class Builder {
  /** Every node, in creation (source) order. */
  readonly nodes: Node[] = [];
  private readonly conv: Converter;
  /** The first block of each label path array, for messages about mixed label counts. */
  private readonly firstBlock = new WeakMap<JsonValue[], CstBlock>();

  constructor(private readonly file: SourceFile, private readonly tokens: TokenList, private readonly report: (p: Problem) => void) {
    this.conv = new Converter(file.text, report);
  }

  node(kind: NodeKind, keyStart: number, keyEnd: number): Node {
    const node: Node = { kind, seq: this.nodes.length, parent: null, key: "", pointer: "", start: -1, end: -1, keyStart, keyEnd, children: null, count: 0 };
    this.nodes.push(node);
    return node;
  }

  /** Makes `child` the member `key` of `parent` (replacing any earlier one). */
  private attach(parent: Node, key: string, child: Node): void {
    child.parent = parent;
    child.key = key;
    parent.children!.delete(key);
    parent.children!.set(key, child);
  }

  /** The end of `e` without trailing white space (a heredoc's closing line may have some). */
  private trimmedEnd(e: Expr): number {
    let end = e.end;
    const text = this.file.text;
    while (end > e.start && isSpaceCode(text.charCodeAt(end - 1))) end--;
    return end;
  }

  /**
   * The JSON object of a body; maps it into `into` (null: not mapped). As hcl2json does,
   * blocks are grouped first and attributes then replace blocks of the same name (so the
   * blocks are still checked), while the map is built in source order.
   */
  body(b: CstBody, into: Node | null): JsonObject {
    const out = jsonObject();
    const attrs: { name: string; value: JsonValue }[] = [];
    const seen = new Set<string>();
    const { starts, ends } = this.tokens;
    for (const item of b.items) {
      if (item.kind === "attribute") {
        if (seen.has(item.name)) continue; // a redefinition (already reported)
        seen.add(item.name);
        let attr: Node | null = null;
        if (into) {
          attr = this.node("attr", starts[item.nameToken], ends[item.nameToken]);
          attr.start = item.expr.start;
          attr.end = this.trimmedEnd(item.expr);
          this.attach(into, item.name, attr);
        }
        attrs.push({ name: item.name, value: this.conv.expression(item.expr) });
        if (attr) this.expression(item.expr, attr);
        continue;
      }
      this.block(item, out, into);
    }
    for (const { name, value } of attrs) out[name] = value;
    return out;
  }

  private block(block: CstBlock, out: JsonObject, into: Node | null): void {
    const { starts, ends } = this.tokens;
    const blockStart = starts[block.typeToken];
    const blockEnd = ends[block.lastToken];
    // The map: the levels hcl2json groups this block under, created on first use.
    const created: Node[] = [];
    let level = into ? this.level(into, block.type, block.typeToken, created) : null;
    block.labels.forEach((label, i) => {
      if (level) level = this.level(level, label, block.labelTokens[i], created);
    });
    let instance: Node | null = null;
    if (level) {
      const keyTok = block.labelTokens.length > 0 ? block.labelTokens[block.labelTokens.length - 1] : block.typeToken;
      instance = this.node("block", starts[keyTok], labelEnd(this.tokens, keyTok));
      instance.children = new Map();
      this.attach(level, String(level.count++), instance);
      instance.start = blockStart;
      instance.end = blockEnd;
    }
    for (const n of created) {
      n.start = blockStart;
      n.end = blockEnd;
    }
    const value = this.body(block.body, instance);

    // The value: nested objects per label, an array of bodies at the end.
    let cur = out;
    let key = block.type;
    for (const label of block.labels) {
      const existing = cur[key];
      if (existing === undefined) {
        const next = jsonObject();
        cur[key] = next;
        cur = next;
      } else if (Array.isArray(existing) || existing === null || typeof existing !== "object") {
        this.mixedLabels(block, Array.isArray(existing) ? this.firstBlock.get(existing) : undefined, true);
        return;
      } else {
        cur = existing;
      }
      key = label;
    }
    const existing = cur[key];
    if (existing === undefined) {
      const list: JsonValue[] = [value];
      this.firstBlock.set(list, block);
      cur[key] = list;
    } else if (Array.isArray(existing)) {
      existing.push(value);
    } else {
      this.mixedLabels(block, undefined, false);
    }
  }

  /**
   * Blocks of one type written with different numbers of labels. The one with fewer is
   * the one reported (found by a trial of the Go tool's language: `state { … }` before a
   * `state "done" { … }` was reported at the good one), the other named beside it; the hint
   * writes the labels the type takes (two for adapters and environments).
   */
  private mixedLabels(block: CstBlock, earlier: CstBlock | undefined, more: boolean): void {
    const { starts, ends } = this.tokens;
    const [fewer, other] = more && earlier ? [earlier, block] : [block, earlier];
    const n = fewer.labels.length;
    const message = other
      ? `this ${block.type} block has ${n === 0 ? "no labels" : `${n} label${n === 1 ? "" : "s"}`}, and another has ${other.labels.length}: every ${block.type} block needs the same labels`
      : more
        ? `${block.type} blocks are written both with ${n} label${n === 1 ? "" : "s"} and with fewer: every ${block.type} block needs the same labels`
        : n === 0
        ? `a ${block.type} block needs a name label`
        : `this ${block.type} block has fewer labels than an earlier ${block.type} block`;
    const labels = block.type === "adapter" || block.type === "environment" ? '"<type>" "<name>"' : '"<name>"';
    this.report({
      code: "missing_field",
      start: starts[fewer.typeToken],
      end: ends[fewer.typeToken],
      message,
      hint: `write ${block.type} ${labels} { ... }; every ${block.type} block is named`,
      ...(other ? { related: [{ message: `the ${block.type} block with ${other.labels.length} label${other.labels.length === 1 ? "" : "s"}`, start: starts[other.typeToken], end: ends[other.typeToken] }] } : {}),
    });
  }

  /** The `blocks` child `key` of `parent`, created when missing; null when an attribute holds the name. */
  private level(parent: Node, key: string, keyTok: number, created: Node[]): Node | null {
    const existing = parent.children!.get(key);
    if (existing) return existing.kind === "blocks" ? existing : null;
    const level = this.node("blocks", this.tokens.starts[keyTok], labelEnd(this.tokens, keyTok));
    level.children = new Map();
    this.attach(parent, key, level);
    created.push(level);
    return level;
  }

  /** Maps the members of an object or tuple constructor `e` (through `"${ … }"`) into `into`. */
  private expression(e: Expr, into: Node): void {
    let x = e;
    while (x.kind === "wrap") x = x.inner;
    if (x.kind === "object") {
      into.children = new Map<string, Node>();
      for (const item of x.items) {
        const k = item.key;
        const literal =
          k.kind === "traversal" || k.kind === "literal" || (k.kind === "template" && k.parts.length === 1 && k.parts[0].kind === "lit");
        if (!literal) continue;
        const key = this.conv.key(k);
        const member = this.node("value", k.start, k.end);
        member.start = item.value.start;
        member.end = this.trimmedEnd(item.value);
        this.expression(item.value, member);
        this.attach(into, key, member);
      }
    } else if (x.kind === "tuple") {
      into.children = new Map<string, Node>();
      x.items.forEach((item, i) => {
        const element = this.node("value", -1, -1);
        element.start = item.start;
        element.end = this.trimmedEnd(item);
        this.expression(item, element);
        this.attach(into, String(i), element);
      });
    }
  }
}

/**
 * One source map entry whose ranges become `Position`s only when read: a big file maps
 * hundreds of thousands of values, and building every position up front was most of
 * the parser's time and garbage (bench/scaling.ts, the parser alone). Reads give the
 * same `SourceEntry` as a plain object would, once computed.
 */
export class LazyEntry implements SourceEntry {
  private rangeCache: Range | undefined;
  private keyRangeCache: Range | undefined;

  /**
   * @param file the file the offsets are in
   * @param startOffset the value's start, 0-based UTF-16 offset
   * @param endOffset the value's end (exclusive)
   * @param keyStart the key's start, or -1 when the entry has no key range
   * @param keyEnd the key's end (exclusive)
   * @param hasExprText whether `exprText` is the text of the range (attributes and values)
   */
  constructor(
    private readonly file: SourceFile,
    readonly startOffset: number,
    readonly endOffset: number,
    readonly keyStart: number,
    readonly keyEnd: number,
    readonly hasExprText: boolean,
  ) {}

  get range(): Range {
    return (this.rangeCache ??= this.file.range(this.startOffset, this.endOffset));
  }

  /** The range if it was built already (read), else undefined. */
  get builtRange(): Range | undefined {
    return this.rangeCache;
  }

  /** The key range if it was built already (read), else undefined. */
  get builtKeyRange(): Range | undefined {
    return this.keyRangeCache;
  }

  /** This entry with another key range (offsets in the same file): a `local "n"` block's value named at its label. */
  withKey(keyStart: number, keyEnd: number): LazyEntry {
    return new LazyEntry(this.file, this.startOffset, this.endOffset, keyStart, keyEnd, this.hasExprText);
  }

  /** Gives ranges already known for these offsets (an earlier entry's, moved with the text). */
  preset(range: Range | undefined, keyRange: Range | undefined): this {
    this.rangeCache = range;
    this.keyRangeCache = keyRange;
    return this;
  }

  get keyRange(): Range | undefined {
    if (this.keyStart < 0) return undefined;
    return (this.keyRangeCache ??= this.file.range(this.keyStart, Math.max(this.keyStart, this.keyEnd)));
  }

  get exprText(): string | undefined {
    return this.hasExprText ? this.file.text.slice(this.startOffset, this.endOffset) : undefined;
  }

  /** The plain entry's JSON (`range`, then `keyRange` and `exprText` when present). */
  toJSON(): SourceEntry {
    const keyRange = this.keyRange;
    const exprText = this.exprText;
    return { range: this.range, ...(keyRange ? { keyRange } : {}), ...(exprText !== undefined ? { exprText } : {}) };
  }
}

/**
 * The nodes as a `SourceMap`, in creation (source) order. A node is in the map when it
 * is still its parent's member (a later duplicate replaces it) and its parent is in the
 * map; parents are created before their members, so one pass decides.
 */
function flatten(file: SourceFile, nodes: readonly Node[]): SourceMap {
  const map: SourceMap = new Map();
  const alive = new Uint8Array(nodes.length);
  for (const node of nodes) {
    const parent = node.parent;
    if (parent === null) {
      if (node.kind !== "root") continue;
      node.pointer = "";
    } else {
      if (!alive[parent.seq] || parent.children!.get(node.key) !== node) continue;
      const key = node.key;
      node.pointer = parent.pointer + "/" + (key.includes("~") || key.includes("/") ? pointerSegment(key) : key);
    }
    alive[node.seq] = 1;
    const start = Math.max(0, node.start);
    const end = Math.max(start, node.end);
    map.set(node.pointer, new LazyEntry(file, start, end, node.keyStart, node.keyEnd, node.kind === "attr" || node.kind === "value"));
  }
  return map;
}
