/**
 * A test oracle now (test/parse/hcl-differential.test.ts compares the source map of
 * compiler/parse/hcl/ with it): the scanner that rebuilt source positions while criteria
 * parsed HCL with hcl2json.
 *
 * Rebuilds source positions for the JSON that `@cdktn/hcl2json` makes of an HCL file.
 *
 * hcl2json drops positions and sorts keys; this scanner walks the same text and records,
 * for every JSON pointer hcl2json's output will contain, where its value (and key) came
 * from. It mirrors hcl2json's shapes (verified against @cdktn/hcl2json 0.24):
 *
 * - attribute `x = e` in a body → `…/x`: range = the expression `e` (trimmed: no
 *   surrounding whitespace or comments), keyRange = `x`, exprText = the raw text of `e`;
 * - block `type "l1" "l2" { … }` → `…/type` (keyRange = `type`), `…/type/l1`,
 *   `…/type/l1/l2` (keyRange = that label token, quotes included), and
 *   `…/type/l1/l2/<i>` (keyRange = the last label, or `type` when unlabelled), where `<i>`
 *   counts blocks with the same type and labels in source order. The range of every one
 *   of them is a whole block (`type` keyword to closing brace): the instance's own, and
 *   for the shared levels, the first block that created them;
 * - an expression that is exactly an object constructor `{ k = v, "k2": v2 }` also maps
 *   each literal key (`…/x/k`: range/exprText = `v`, keyRange = the key), and one that
 *   is exactly a tuple constructor `[a, b]` maps each element (`…/x/0`: range/exprText =
 *   the element, no keyRange), recursively. So does a string that is exactly one
 *   interpolation of one, `"${ {k = v} }"`, which hcl2json unwraps (not inside another
 *   such string). Keys are named as hcl2json names them: identifiers and traversals
 *   (`a.b`, `a[0]`) by their source text, quoted strings decoded with `${`/`%{`
 *   re-escaped as `$${`/`%%{`, numbers in plain decimal. Computed keys (`(k)`, `"${k}"`,
 *   `-1`) are not mapped; hcl2json names them `${…}`. For-expressions, function calls,
 *   conditionals and every other expression map only as a whole;
 * - an attribute and a block of the same name in one body: hcl2json keeps only the
 *   attribute, and so does the map; a later duplicate object key replaces an earlier one.
 *
 * The root pointer `""` maps to the whole file. Map insertion order is source order (the
 * order in which each pointer's value first appears), which recovers the declaration
 * order hcl2json's sorted JSON loses.
 *
 * Not a validator: on malformed input the scanner records `ScanError`s, recovers at the
 * next line or brace, and returns what it has. It never throws, runs in linear time, and
 * limits nesting to `MAX_DEPTH` (deeper constructs are kept as opaque expressions).
 */
import type { Position } from "../../../compiler/diagnostics/range.js";
import type { SourceFile } from "../../../compiler/diagnostics/source-file.js";
import { childPointer, type SourceEntry, type SourceMap } from "../../../compiler/parse/source-map.js";
import { HclLexer, canonicalNumber, decodeQuoted, type ScanError, type Token } from "./hcl-lex.js";

export type { ScanError } from "./hcl-lex.js";

/** Blocks, objects and tuples nested deeper than this are not mapped inside. */
export const MAX_DEPTH = 200;

/**
 * Scans `file` (HCL native syntax) into a `SourceMap` keyed by the JSON pointers of
 * hcl2json's output for the same text, plus the problems met (`ScanError`: `[start, end)`
 * offsets and a message). Never throws.
 *
 * Shapes: see the module comment. Sources: the hclsyntax spec for the lexical rules, and
 * hcl2json's observed output for the JSON shapes (`test/parse/hcl-scan.test.ts` checks
 * the two agree, pointer for pointer, on every fixture and on generated files).
 */
export function scanHcl(file: SourceFile): { map: SourceMap; errors: ScanError[] } {
  const errors: ScanError[] = [];
  // Defensive: a scanner bug must not take the compiler down; keep what was mapped so far.
  const internal = (e: unknown) =>
    errors.push({ start: 0, end: 0, message: `internal scanner error: ${e instanceof Error ? e.message : String(e)}` });
  const scanner = new Scanner(file.text, errors);
  try {
    scanner.scanFile();
  } catch (e) {
    internal(e);
  }
  let map: SourceMap = new Map();
  try {
    map = flatten(file, scanner.root, scanner.nodeCount);
  } catch (e) {
    internal(e);
  }
  return { map, errors };
}

/**
 * What a node is: `root` (the file body), `attr` (an attribute of a body), `value` (an
 * object constructor's entry or a tuple's element), `blocks` (a block type or label
 * level: the object/array hcl2json groups blocks into), `block` (one block's body).
 */
type NodeKind = "root" | "attr" | "value" | "blocks" | "block";

/** The scanner's mirror of one value of hcl2json's JSON. */
interface Node {
  kind: NodeKind;
  /** Creation order = source order. */
  seq: number;
  /** The value's range (offsets); a block's range is set when its closing brace is read. */
  start: number;
  end: number;
  /** The key's range, or -1. */
  keyStart: number;
  keyEnd: number;
  /** Members by (unescaped) key; null for a leaf. */
  children: Map<string, Node> | null;
  /** For `blocks` nodes: the next block instance index. */
  count: number;
}

/** Tokens that end an expression when met outside brackets, by context. */
type Stop = (t: Token) => boolean;
const isPunct = (t: Token, p: string): boolean => t.kind === "punct" && t.text === p;
const STOP_ATTR: Stop = (t) => t.kind === "newline" || isPunct(t, "}");
const STOP_OBJECT_VALUE: Stop = (t) => t.kind === "newline" || isPunct(t, ",") || isPunct(t, "}");
const STOP_OBJECT_KEY: Stop = (t) => STOP_OBJECT_VALUE(t) || isPunct(t, "=") || isPunct(t, ":");
const STOP_WRAPPED: Stop = (t) => isPunct(t, "}");
const STOP_TUPLE_ELEMENT: Stop = (t) => isPunct(t, ",") || isPunct(t, "]") || isPunct(t, "}");

const isOpener = (t: Token): boolean => t.kind === "punct" && (t.text === "(" || t.text === "[" || t.text === "{");
const OPENER_OF = new Map([[")", "("], ["]", "["], ["}", "{"]]);

/** Open brackets of an expression, with per-kind counts so mismatches recover in O(1) amortized. */
class Brackets {
  private readonly open: Token[] = [];
  private readonly counts: Record<string, number> = { "(": 0, "[": 0, "{": 0 };

  constructor(private readonly errors: ScanError[], first?: Token) {
    if (first) this.push(first);
  }

  get depth(): number {
    return this.open.length;
  }

  /** The innermost open bracket. */
  get innermost(): Token | undefined {
    return this.open[this.open.length - 1];
  }

  private push(t: Token): void {
    this.open.push(t);
    this.counts[t.text]++;
  }

  /** Tracks a punct token: pushes an opener, pops (to) the matching opener on a closer. */
  track(t: Token): void {
    if (isOpener(t)) {
      this.push(t);
      return;
    }
    const opener = OPENER_OF.get(t.text);
    if (opener === undefined) return;
    if (this.counts[opener] === 0) {
      this.errors.push({ start: t.start, end: t.end, message: `unmatched "${t.text}"` });
      return;
    }
    for (;;) {
      const top = this.open.pop()!;
      this.counts[top.text]--;
      if (top.text === opener) return;
      this.errors.push({ start: top.start, end: top.end, message: `"${top.text}" is not closed before "${t.text}"` });
    }
  }
}

/**
 * Recursive descent over the token stream, building the `Node` tree. A nested scanner
 * (sharing `counter`) reads the inside of a `"${ expr }"` string from `start`; it does
 * not unwrap further (`unwrapping`), so no text is scanned more than twice.
 */
class Scanner {
  readonly root: Node;
  private readonly lexer: HclLexer;
  private ahead: Token | null = null;

  constructor(
    private readonly text: string,
    private readonly errors: ScanError[],
    private readonly counter = { seq: 0 },
    start = 0,
    private readonly unwrapping = false,
  ) {
    this.lexer = new HclLexer(text, errors, start);
    this.root = this.node("root", -1, -1);
    this.root.start = 0;
    this.root.end = text.length;
    this.root.children = new Map();
  }

  /** How many nodes were created (every `seq` is below it). */
  get nodeCount(): number {
    return this.counter.seq;
  }

  scanFile(): void {
    this.body(this.root, null, 0);
  }

  // --- tokens -------------------------------------------------------------------------

  private peek(): Token {
    return (this.ahead ??= this.lexer.next());
  }

  private next(): Token {
    const t = this.peek();
    this.ahead = null;
    return t;
  }

  private skipNewlines(): void {
    while (this.peek().kind === "newline") this.next();
  }

  private error(t: { start: number; end: number }, message: string): void {
    this.errors.push({ start: t.start, end: t.end, message });
  }

  private node(kind: NodeKind, keyStart: number, keyEnd: number): Node {
    return { kind, seq: this.counter.seq++, start: -1, end: -1, keyStart, keyEnd, children: null, count: 0 };
  }

  // --- bodies and blocks ----------------------------------------------------------------

  /**
   * Scans a body's attributes and blocks into `into` (null: scan without mapping) until
   * the `}` matching `open` (or the end of the file when `open` is null). Returns the end
   * offset of that brace (or of the last token read).
   */
  private body(into: Node | null, open: Token | null, depth: number): number {
    let lastEnd = open ? open.end : 0;
    for (;;) {
      const t = this.next();
      if (t.kind === "newline") continue;
      if (t.kind === "eof") {
        if (open) this.error(open, "block is not closed");
        return lastEnd;
      }
      if (isPunct(t, "}")) {
        if (open) return t.end;
        this.error(t, 'unexpected "}"');
        lastEnd = t.end;
        continue;
      }
      if (t.kind === "ident") {
        const after = this.peek();
        if (isPunct(after, "=")) {
          this.next();
          lastEnd = this.attribute(into, t, after, depth);
          continue;
        }
        if (after.kind === "string" || after.kind === "ident" || isPunct(after, "{")) {
          lastEnd = this.block(into, t, depth);
          continue;
        }
      }
      this.error(t, "expected an attribute or a block");
      lastEnd = this.consume(STOP_ATTR, new Brackets(this.errors, isOpener(t) ? t : undefined), t.end);
    }
  }

  /** `name = expr` (the `=` already read). Returns the end offset of the expression. */
  private attribute(into: Node | null, name: Token, eq: Token, depth: number): number {
    const attr = into ? this.node("attr", name.start, name.end) : null;
    const value = this.expression(STOP_ATTR, attr, depth);
    if (!value) {
      this.error(eq, `expected an expression after "${name.text} ="`);
      return eq.end;
    }
    if (attr && into) {
      attr.start = value.start;
      attr.end = value.end;
      into.children!.set(name.text, attr);
    }
    return value.end;
  }

  /** `type label… { body }` (the type already read). Returns the end offset of the block. */
  private block(into: Node | null, type: Token, depth: number): number {
    const labels: Token[] = [];
    while (this.peek().kind === "string" || this.peek().kind === "ident") labels.push(this.next());
    const open = this.peek();
    const lastLabel = labels[labels.length - 1];
    if (!isPunct(open, "{")) {
      this.error(open.kind === "eof" || open.kind === "newline" ? (lastLabel ?? type) : open, 'expected "{" to open the block');
      return this.consume(STOP_ATTR, new Brackets(this.errors), (lastLabel ?? type).end);
    }
    this.next();

    // The levels hcl2json groups this block under, created on first use.
    const created: Node[] = [];
    let level = into ? this.blockLevel(into, type.text, type, created) : null;
    for (const label of labels) {
      if (!level) break;
      if (label.kind === "string" && label.templated) this.error(label, "block labels cannot contain template sequences");
      level = this.blockLevel(level, label.kind === "string" ? decodeQuoted(label.text) : label.text, label, created);
    }
    let instance: Node | null = null;
    if (level) {
      const key = lastLabel ?? type;
      instance = this.node("block", key.start, key.end);
      instance.children = new Map();
      level.children!.set(String(level.count++), instance);
    }

    let end: number;
    if (depth >= MAX_DEPTH) {
      if (instance) this.error(type, `blocks nested deeper than ${MAX_DEPTH} levels are not mapped`);
      end = this.skipBalanced(open);
    } else {
      end = this.body(instance, open, depth + 1);
    }
    for (const n of instance ? [...created, instance] : created) {
      n.start = type.start;
      n.end = end;
    }
    return end;
  }

  /**
   * The `blocks` child `key` of `parent`, created (and added to `created`) when missing.
   * Null when `key` is taken by an attribute or object value: hcl2json then drops the block.
   */
  private blockLevel(parent: Node, key: string, keyToken: Token, created: Node[]): Node | null {
    const existing = parent.children!.get(key);
    if (existing) return existing.kind === "blocks" ? existing : null;
    const level = this.node("blocks", keyToken.start, keyToken.end);
    level.children = new Map();
    parent.children!.set(key, level);
    created.push(level);
    return level;
  }

  /** Skips to the `}` matching `open` (already read) without mapping; returns its end. */
  private skipBalanced(open: Token): number {
    const brackets = new Brackets(this.errors, open);
    let lastEnd = open.end;
    while (brackets.depth > 0) {
      const t = this.next();
      if (t.kind === "eof") {
        this.error(open, "block is not closed");
        return lastEnd;
      }
      if (t.kind === "punct") brackets.track(t);
      if (t.kind !== "newline") lastEnd = t.end;
    }
    return lastEnd;
  }

  // --- expressions ----------------------------------------------------------------------

  /**
   * Reads one expression up to a `stop` token outside brackets (not consumed). When `into`
   * is given and the expression is exactly an object or tuple constructor, its members
   * become `into`'s children. Returns the expression's trimmed offsets, or null when
   * there is no expression before the stop token.
   */
  private expression(stop: Stop, into: Node | null, depth: number): { start: number; end: number } | null {
    const first = this.peek();
    if (first.kind === "eof" || stop(first)) return null;
    const start = first.start;
    if (into && (isPunct(first, "{") || isPunct(first, "["))) {
      this.next();
      this.skipNewlines();
      const t = this.peek();
      const isFor = t.kind === "ident" && t.text === "for";
      if (!isFor && depth >= MAX_DEPTH) {
        this.error(first, `expressions nested deeper than ${MAX_DEPTH} levels are not mapped`);
      } else if (!isFor) {
        const cons = first.text === "{" ? this.objectCons(into, first, depth) : this.tupleCons(into, first, depth);
        if (!cons.closed) return { start, end: cons.end };
        const end = this.consume(stop, new Brackets(this.errors), cons.end);
        // `{…}.a`, `[…][0]`, `{…} == x`: the constructor was only part of the expression.
        if (end !== cons.end) into.children = null;
        return { start, end };
      }
      return { start, end: this.consume(stop, new Brackets(this.errors, first), first.end) };
    }
    const end = this.consume(stop, new Brackets(this.errors), -1);
    if (into && first.wrapped && end === first.end) this.unwrap(into, first.wrapped, depth);
    return { start, end };
  }

  /**
   * `"${ expr }"` is the whole expression: hcl2json gives it `expr`'s value, so when
   * `expr` is an object or tuple constructor its members are mapped (inside the string).
   * Not inside another such string (`"${ {a = "${ {b = 1} }"} }"` maps `a`, not `a/b`).
   */
  private unwrap(into: Node, inner: { start: number; end: number }, depth: number): void {
    if (depth >= MAX_DEPTH || this.unwrapping) return;
    // The lexer already checked the inside; don't report its problems twice.
    const nested = new Scanner(this.text, [], this.counter, inner.start, true);
    nested.skipNewlines();
    const value = nested.expression(STOP_WRAPPED, into, depth + 1);
    nested.skipNewlines();
    const close = nested.peek();
    if (!value || !isPunct(close, "}") || close.start !== inner.end) into.children = null;
  }

  /**
   * Consumes tokens, tracking brackets, until a `stop` token outside brackets or the end
   * of the file. Appends non-newline tokens to `collect` when given. Returns the end
   * offset of the last non-newline token consumed (`lastEnd` when none).
   */
  private consume(stop: Stop, brackets: Brackets, lastEnd: number, collect?: Token[]): number {
    for (;;) {
      const t = this.peek();
      if (t.kind === "eof") {
        const open = brackets.innermost;
        if (open) this.error(open, `"${open.text}" is not closed`);
        return lastEnd;
      }
      if (brackets.depth === 0 && stop(t)) return lastEnd;
      this.next();
      if (t.kind === "punct") brackets.track(t);
      if (t.kind !== "newline") {
        lastEnd = t.end;
        collect?.push(t);
      }
    }
  }

  /** The items of an object constructor after its `{`; returns its end and whether `}` was found. */
  private objectCons(into: Node, open: Token, depth: number): { end: number; closed: boolean } {
    const members = (into.children = new Map<string, Node>());
    let lastEnd = open.end;
    for (;;) {
      this.skipNewlines();
      const t = this.peek();
      if (isPunct(t, "}")) {
        this.next();
        return { end: t.end, closed: true };
      }
      if (t.kind === "eof") {
        this.error(open, '"{" is not closed');
        return { end: lastEnd, closed: false };
      }
      const keyTokens: Token[] = [];
      const keyEnd = this.consume(STOP_OBJECT_KEY, new Brackets(this.errors), -1, keyTokens);
      const sep = this.peek();
      if (!isPunct(sep, "=") && !isPunct(sep, ":")) {
        this.error(keyTokens[0] ?? sep, 'expected "=" or ":" after an object key');
        if (isPunct(sep, ",") || sep.kind === "newline") this.next();
        lastEnd = Math.max(lastEnd, keyEnd);
        continue;
      }
      this.next();
      const key = objectKey(this.text, keyTokens);
      const member = key === undefined ? null : this.node("value", keyTokens[0].start, keyEnd);
      const value = this.expression(STOP_OBJECT_VALUE, member, depth + 1);
      if (!value) {
        this.error(sep, `expected a value after "${sep.text}"`);
        lastEnd = sep.end;
      } else {
        lastEnd = value.end;
        if (member && key !== undefined) {
          member.start = value.start;
          member.end = value.end;
          members.delete(key);
          members.set(key, member);
        }
      }
      const after = this.peek();
      if (isPunct(after, ",") || after.kind === "newline") this.next();
    }
  }

  /** The elements of a tuple constructor after its `[`; returns its end and whether `]` was found. */
  private tupleCons(into: Node, open: Token, depth: number): { end: number; closed: boolean } {
    const elements = (into.children = new Map<string, Node>());
    let lastEnd = open.end;
    for (;;) {
      this.skipNewlines();
      const t = this.peek();
      if (isPunct(t, "]")) {
        this.next();
        return { end: t.end, closed: true };
      }
      if (t.kind === "eof" || isPunct(t, "}")) {
        this.error(open, '"[" is not closed');
        return { end: lastEnd, closed: false };
      }
      if (isPunct(t, ",")) {
        this.error(t, 'unexpected ","');
        this.next();
        continue;
      }
      const element = this.node("value", -1, -1);
      const value = this.expression(STOP_TUPLE_ELEMENT, element, depth + 1)!;
      element.start = value.start;
      element.end = value.end;
      elements.set(String(elements.size), element);
      lastEnd = value.end;
      if (isPunct(this.peek(), ",")) this.next();
    }
  }
}

/**
 * The JSON key hcl2json gives an object constructor key made of `tokens`, or undefined
 * for a computed key (parenthesized, templated, unary, splat…), which it renders as a
 * `${…}` string. See the module comment.
 */
function objectKey(text: string, tokens: Token[]): string | undefined {
  const first = tokens[0];
  if (!first) return undefined;
  if (tokens.length === 1) {
    if (first.kind === "ident") return first.text;
    if (first.kind === "number") return canonicalNumber(first.text);
    if (first.kind === "string" && !first.templated) {
      return decodeQuoted(first.text).replace(/([$%])\{/g, (_, sigil: string) => `${sigil}${sigil}{`);
    }
    return undefined;
  }
  // A traversal `a.b`, `a.0`, `a[0]`, `a["x"]` is named by its source text.
  if (first.kind !== "ident") return undefined;
  for (let i = 1; i < tokens.length; ) {
    const t = tokens[i];
    if (isPunct(t, ".") && (tokens[i + 1]?.kind === "ident" || tokens[i + 1]?.kind === "number")) {
      i += 2;
    } else if (
      isPunct(t, "[") &&
      (tokens[i + 1]?.kind === "number" || (tokens[i + 1]?.kind === "string" && !tokens[i + 1].templated)) &&
      tokens[i + 2] !== undefined &&
      isPunct(tokens[i + 2], "]")
    ) {
      i += 3;
    } else {
      return undefined;
    }
  }
  return text.slice(first.start, tokens[tokens.length - 1].end);
}

/**
 * `SourceFile.position` with a line hint: the map's offsets come in nearly increasing
 * order, so most lookups hit the hinted line or the next one instead of a binary search.
 */
class Positions {
  private line = 0;

  constructor(private readonly file: SourceFile) {}

  at(offset: number): Position {
    const starts = this.file.lineStarts;
    const off = Math.max(0, Math.min(offset, this.file.text.length));
    for (let line = this.line; line <= this.line + 1 && line < starts.length; line++) {
      if (starts[line] <= off && (line + 1 === starts.length || off < starts[line + 1])) {
        this.line = line;
        return this.file.positionOnLine(line, off);
      }
    }
    const position = this.file.position(off);
    this.line = position.line - 1;
    return position;
  }
}

/**
 * Lays the node tree out as a `SourceMap` in source (creation) order. Nodes replaced or
 * dropped during the scan are unreachable from the root, so they are left out.
 */
function flatten(file: SourceFile, root: Node, nodeCount: number): SourceMap {
  // Indexed by `seq` (unique, below `nodeCount`): a linear-time sort into source order.
  const pointers: Array<string | undefined> = new Array(nodeCount);
  const nodes: Array<Node | undefined> = new Array(nodeCount);
  const stack: Node[] = [root];
  pointers[root.seq] = "";
  while (stack.length > 0) {
    const node = stack.pop()!;
    nodes[node.seq] = node;
    const pointer = pointers[node.seq]!;
    node.children?.forEach((child, key) => {
      pointers[child.seq] = childPointer(pointer, key);
      stack.push(child);
    });
  }
  const map: SourceMap = new Map();
  const starts = new Positions(file);
  const ends = new Positions(file);
  for (let seq = 0; seq < nodeCount; seq++) {
    const node = nodes[seq];
    if (!node) continue;
    const pointer = pointers[seq]!;
    const start = Math.max(0, node.start);
    const end = Math.max(start, node.end);
    const entry: SourceEntry = { range: { file: file.path, start: starts.at(start), end: ends.at(end) } };
    if (node.keyStart >= 0) {
      entry.keyRange = { file: file.path, start: starts.at(node.keyStart), end: starts.at(Math.max(node.keyStart, node.keyEnd)) };
    }
    if (node.kind === "attr" || node.kind === "value") entry.exprText = file.text.slice(start, end);
    map.set(pointer, entry);
  }
  return map;
}
