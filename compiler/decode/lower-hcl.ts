import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { Range } from "../diagnostics/range.js";
import { jsonObject, lookupTable, type JsonObject, type JsonValue, type ParsedFile } from "../parse/document.js";
import { childPointer, type SourceEntry, type SourceMap } from "../parse/source-map.js";
import { LazyEntry } from "../parse/hcl/mapping.js";

/**
 * Lowers hcl2json's block-shaped JSON into the canonical document: the YAML/JSON
 * dialect that `schema/workflow.schema.json` describes, so one schema and one decoder
 * serve every dialect (docs/architecture.md, The compiler: Decode).
 *
 * `step "a" { outcome "ok" { transition_to = "b" } }` becomes
 * `{steps: {a: {outcomes: {ok: {transition_to: "b"}}}}}`; blocks nested in an older
 * `workflow "x" { ... }` are hoisted beside its header. Source-map entries follow
 * each value to its new pointer. Repeated names become `duplicate_name`, repeated
 * singleton blocks `duplicate_block`, wrong label counts `invalid_value`.
 */
export function lowerHcl(parsed: ParsedFile): { doc: JsonObject; map: SourceMap; diagnostics: Diagnostic[] } {
  const l = new Lowering(parsed);
  const doc = l.body(parsed.value, "", "", true);
  return { doc, map: l.out, diagnostics: l.diagnostics };
}

type BlockRule =
  | { kind: "named"; section: string; labels: 1 | 2 }
  | { kind: "singleton"; section: string; body?: "object" }
  | { kind: "locals" }
  | { kind: "header" };

/** Top-level (and inline-body) block types → canonical sections. */
/** Header attributes an older inline body writes in the body itself (`workflow { entry = "x" step ... }`). */
const BODY_HEADER_ATTRIBUTES = new Set(["entry", "initial_state", "target_state"]);

const BODY_BLOCKS: Record<string, BlockRule> = lookupTable({
  workflow: { kind: "header" },
  variable: { kind: "named", section: "variables", labels: 1 },
  local: { kind: "named", section: "locals", labels: 1 },
  locals: { kind: "locals" },
  policy: { kind: "singleton", section: "policy" },
  permissions: { kind: "singleton", section: "permissions" },
  adapter: { kind: "named", section: "adapters", labels: 2 },
  agent: { kind: "named", section: "agents", labels: 1 },
  subworkflow: { kind: "named", section: "subworkflows", labels: 1 },
  channel: { kind: "named", section: "channels", labels: 1 },
  environment: { kind: "named", section: "environments", labels: 2 },
  shared_variable: { kind: "named", section: "shared_variables", labels: 1 },
  data: { kind: "named", section: "data", labels: 2 },
  step: { kind: "named", section: "steps", labels: 1 },
  state: { kind: "named", section: "states", labels: 1 },
  wait: { kind: "named", section: "waits", labels: 1 },
  approval: { kind: "named", section: "approvals", labels: 1 },
  branch: { kind: "named", section: "branches", labels: 1 },
  switch: { kind: "named", section: "branches", labels: 1 },
  output: { kind: "named", section: "outputs", labels: 1 },
});

const sectionKeywordPairs = Object.entries(BODY_BLOCKS).flatMap(([keyword, r]) => (r.kind === "named" ? [[r.section, keyword] as const] : []));

/**
 * The name-keyed section a top-level block of `keyword` lowers into, and the name it has
 * there (`step "a"` → `steps`, `a`; `adapter "shell" "x"` → `adapters`, `shell.x`), or
 * undefined when the keyword is not a named block's or the labels do not fit it.
 */
export function namedBlockPlace(keyword: string, labels: readonly string[]): { section: string; name: string } | undefined {
  const rule = BODY_BLOCKS[keyword];
  if (rule?.kind !== "named" || labels.length !== rule.labels) return undefined;
  return { section: rule.section, name: labels.join(".") };
}

/**
 * Each top-level HCL block keyword with the YAML/JSON section its blocks are written in:
 * `step` → `steps`, `switch` → `branches`, `locals` → `locals` (the header and the
 * singletons keep their names). For the YAML and JSON did-you-means (check-schema.ts).
 */
export const KEYWORD_SECTIONS: Readonly<Record<string, string>> = lookupTable(
  Object.fromEntries(Object.entries(BODY_BLOCKS).map(([keyword, r]) => [keyword, r.kind === "named" || r.kind === "singleton" ? r.section : keyword])),
);

/** Every top-level HCL block keyword (`step`, `switch`, `locals`, ...). */
export const HCL_BLOCK_KEYWORDS: readonly string[] = Object.keys(BODY_BLOCKS);

/** One YAML/JSON top-level key and the HCL it is written as (docs/language.md, The YAML and JSON dialect). */
export interface DialectSection {
  /** The key (`steps`). */
  key: string;
  /** Its shape in YAML (`steps: { <name>: { ... } }`). */
  yaml: string;
  /** The HCL blocks that lower into it, the canonical one first (`switch "<name>" { ... }`, then `branch ...`). */
  hcl: string[];
}

/** The HCL forms of a block keyword whose inner names differ from YAML's, and the older spellings (listed after the canonical one). */
const HCL_FORMS: Record<string, string> = lookupTable({
  switch: 'switch "<name>" { match { condition = ..., next = ... } default { next = ... } }',
  branch: 'branch "<name>" { arm { when = ..., next = ... } default = "..." } (older)',
  locals: "locals { <name> = ... }",
  local: 'local "<name>" { value = ... } (older)',
});

/** YAML shapes that are more than "a mapping of names": a branch's arms, locals' plain values. */
const YAML_FORMS: Record<string, string> = lookupTable({
  branches: "branches: { <name>: { arms: [{ when: ..., next: ..., output: {...} }], default: { next: ... } } }",
  locals: "locals: { <name>: ... }",
  workflow: "workflow: { name: ..., initial_state: ..., ... }",
});

/**
 * The YAML/JSON top-level keys `keys` (the schema's, in its order) with their HCL blocks,
 * from the lowering's own table (BODY_BLOCKS), for the table in docs/language.md that
 * test/docs.test.ts generates and checks. A key no HCL block lowers into (`$schema`) has none.
 */
export function dialectSections(keys: readonly string[]): DialectSection[] {
  return keys.map((key) => {
    const blocks = Object.entries(BODY_BLOCKS).filter(([k]) => KEYWORD_SECTIONS[k] === key);
    // The canonical spelling first: `switch` before `branch`, `locals` before `local`.
    blocks.sort(([a], [b]) => Number(HCL_FORMS[a]?.endsWith("(older)") ?? false) - Number(HCL_FORMS[b]?.endsWith("(older)") ?? false));
    const hcl = blocks.map(([k, r]) => HCL_FORMS[k] ?? (r.kind === "named" ? `${k} ${r.labels === 2 ? `"<${k === "data" ? "kind" : "type"}>" "<name>"` : '"<name>"'} { ... }` : `${k} { ... }`));
    const two = blocks.find(([, r]) => r.kind === "named" && r.labels === 2);
    const yaml =
      YAML_FORMS[key] ??
      (blocks.some(([, r]) => r.kind === "named") ? `${key}: { <${two ? (two[0] === "data" ? "kind" : "type") + ">.<name" : "name"}>: { ... } }` : blocks.length > 0 ? `${key}: { ... }` : `${key}: ...`);
    return { key, yaml, hcl };
  });
}

/** The canonical document's name-keyed sections (`steps`, `variables`, ...). */
export const NAMED_SECTIONS: ReadonlySet<string> = new Set(sectionKeywordPairs.map(([section]) => section));

/**
 * Each name-keyed section (and a step's `outcomes`) with the HCL keyword of its blocks:
 * `steps` → `step`. The first keyword of a section wins (`branches` → `branch`, not `switch`).
 */
export const SECTION_KEYWORDS: Readonly<Record<string, string>> = lookupTable({
  ...Object.fromEntries([...sectionKeywordPairs].reverse()),
  outcomes: "outcome",
});

/** Header blocks that are header fields (`memory {}`, `expects {}`) rather than workflow blocks. */
const HEADER_BLOCKS = new Set(["memory", "expects"]);

class Lowering {
  readonly out: SourceMap = new Map();
  readonly diagnostics: Diagnostic[] = [];
  private readonly fileRange: Range;

  constructor(private readonly parsed: ParsedFile) {
    this.fileRange = parsed.file.range(0, 0);
  }

  private entry(ptr: string): SourceEntry | undefined {
    return this.parsed.map.get(ptr);
  }

  private rangeOf(ptr: string): Range {
    return this.entry(ptr)?.keyRange ?? this.entry(ptr)?.range ?? this.fileRange;
  }

  /** Copies a value and the source entries of it and all its descendants. */
  private copy(value: JsonValue, from: string, to: string): JsonValue {
    const e = this.entry(from);
    if (e) this.out.set(to, e);
    if (Array.isArray(value)) return value.map((v, i) => this.copy(v, childPointer(from, i), childPointer(to, i)));
    if (value !== null && typeof value === "object") {
      const o: JsonObject = jsonObject();
      for (const k of this.ordered(value, from)) o[k] = this.copy(value[k], childPointer(from, k), childPointer(to, k));
      return o;
    }
    return value;
  }

  /** Keys of an hcl2json object in source order (hcl2json sorts them; the scan map knows the order). */
  private ordered(o: JsonObject, ptr: string): string[] {
    // Each key's start looked up once (not per comparison), without building its range.
    const at = new Map<string, number>();
    for (const k of Object.keys(o)) {
      const e = this.entry(childPointer(ptr, k));
      at.set(k, e ? (e.startOffset ?? e.range.start.offset) : Number.MAX_SAFE_INTEGER);
    }
    return [...at.keys()].sort((a, b) => at.get(a)! - at.get(b)!);
  }

  /** Points `to` at the source entry of `from`. */
  private alias(to: string, from: string) {
    const e = this.entry(from);
    if (e) this.out.set(to, e);
  }

  /** A label-keyed group of blocks as `[label, value]` pairs in source order, or undefined when unlabelled. */
  private labelled(v: JsonValue, ptr: string): [string, JsonValue][] | undefined {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return undefined;
    return this.ordered(v, ptr).map((k) => [k, v[k]]);
  }

  /**
   * Lowers a body (the file's top level, an older `workflow "x" {}` block's content,
   * or a step's inline `workflow {}`) into `doc`.
   */
  body(value: JsonValue, from: string, to: string, topLevel: boolean, doc: JsonObject = jsonObject()): JsonObject {
    if (!this.out.has(to)) this.alias(to, from);
    if (value === null || typeof value !== "object" || Array.isArray(value)) return doc;
    for (const key of this.ordered(value, from)) {
      const v = value[key];
      const kp = childPointer(from, key);
      const rule = BODY_BLOCKS[key];
      if (!topLevel && BODY_HEADER_ATTRIBUTES.has(key) && !isBlockValue(v)) {
        // An older inline body names its first step in the body itself (`entry = "x"`):
        // it belongs to the body's header.
        const header = (doc.workflow ??= jsonObject()) as JsonObject;
        if (!this.out.has(childPointer(to, "workflow"))) this.alias(childPointer(to, "workflow"), kp);
        header[key] = this.copy(v, kp, childPointer(childPointer(to, "workflow"), key));
        continue;
      }
      if (!rule || !isBlockValue(v)) {
        // An attribute at body level (or an unknown block): keep it where it stands so the
        // schema reports it (fail closed, with a did-you-mean).
        doc[key] = this.copy(v, kp, childPointer(to, key));
        continue;
      }
      switch (rule.kind) {
        case "header":
          this.header(v, kp, to, doc, topLevel);
          break;
        case "locals":
          this.locals(v, kp, to, doc);
          break;
        case "singleton":
          this.singleton(key, v, kp, childPointer(to, rule.section), doc, rule.section, (b, f, t) => this.copy(b, f, t));
          break;
        case "named":
          this.named(key, rule, v, kp, to, doc);
          break;
      }
    }
    return doc;
  }

  private header(v: JsonValue, from: string, to: string, doc: JsonObject, topLevel: boolean) {
    const hp = childPointer(to, "workflow");
    if (!topLevel) {
      // An inline body's own `workflow { initial_state = ... }` header: one unlabelled block.
      this.singleton("workflow", v, from, hp, doc, "workflow", (b, f, t) => this.copy(b, f, t));
      return;
    }
    const groups = this.labelled(v, from);
    if (!groups) {
      // The Go tool's v0.5 header: `workflow { name = "x" ... }`, unlabelled, once.
      if (!Array.isArray(v)) return;
      v.forEach((body, i) => {
        const bp = childPointer(from, i);
        if (doc.workflow !== undefined) {
          this.secondHeader(bp, hp, "");
          return;
        }
        const header: JsonObject = jsonObject();
        const entry = this.entry(bp);
        if (entry) this.out.set(hp, { range: entry.range, keyRange: this.entry(from)?.keyRange ?? entry.range });
        doc.workflow = header;
        this.headerBody(body, bp, hp, header, to, doc);
      });
      return;
    }
    for (const [name, group] of groups) {
      const np = childPointer(from, name);
      const bodies = Array.isArray(group) ? group : [];
      for (let i = 0; i < bodies.length; i++) {
        const bp = childPointer(np, i);
        if (doc.workflow !== undefined) {
          this.secondHeader(bp, hp, ` "${name}"`);
          continue;
        }
        const header: JsonObject = jsonObject();
        header.name = name;
        const entry = this.entry(bp);
        if (entry) this.out.set(hp, entry);
        const nameEntry = this.entry(np);
        if (nameEntry) this.out.set(childPointer(hp, "name"), { range: nameEntry.keyRange ?? nameEntry.range, keyRange: nameEntry.keyRange ?? nameEntry.range });
        doc.workflow = header;
        this.headerBody(bodies[i], bp, hp, header, to, doc);
      }
    }
  }

  private secondHeader(at: string, first: string, label: string) {
    this.diagnostics.push(
      diag("duplicate_block", this.rangeOf(at), `a second workflow header${label}`, {
        related: [{ message: "the first header", range: this.out.get(first)?.keyRange ?? this.fileRange }],
        hint: "a file (or directory) holds one workflow",
      }),
    );
  }

  /**
   * The content of a header block: attributes and `memory {}` / `expects {}` are header
   * fields; other blocks (older files nest everything in `workflow "x" {}`, v0.5 files
   * put `policy {}` there) are lowered beside the header.
   */
  private headerBody(body: JsonValue, bp: string, hp: string, header: JsonObject, to: string, doc: JsonObject) {
    if (body === null || typeof body !== "object" || Array.isArray(body)) return;
    const nested: JsonObject = jsonObject();
    for (const k of Object.keys(body)) {
      const bv = body[k];
      if (k === "name" && header.name !== undefined) {
        this.diagnostics.push(diag("conflicting_fields", this.rangeOf(childPointer(bp, k)), `the workflow is named twice: by its label "${String(header.name)}" and by name =`, { hint: `keep one: workflow "x" { ... } or workflow { name = "x" ... }` }));
      } else if (BODY_BLOCKS[k] && isBlockValue(bv)) nested[k] = bv;
      else if (HEADER_BLOCKS.has(k) && Array.isArray(bv)) {
        this.singleton(k, bv, childPointer(bp, k), childPointer(hp, k), header, k, (b, f, t) => this.copy(b, f, t));
      } else header[k] = this.copy(bv, childPointer(bp, k), childPointer(hp, k));
    }
    this.body(nested, bp, to, false, doc);
  }

  private locals(v: JsonValue, from: string, to: string, doc: JsonObject) {
    if (!Array.isArray(v)) return;
    const sec = (doc.locals ??= jsonObject()) as JsonObject;
    const sp = childPointer(to, "locals");
    if (!this.out.has(sp)) this.alias(sp, from);
    v.forEach((b, i) => {
      if (b === null || typeof b !== "object" || Array.isArray(b)) return;
      const bp = childPointer(from, i);
      for (const k of this.ordered(b, bp)) {
        if (k in sec) {
          this.duplicate("local", k, childPointer(bp, k), childPointer(sp, k));
          continue;
        }
        sec[k] = this.copy(b[k], childPointer(bp, k), childPointer(sp, k));
      }
    });
  }

  /** A block that may appear once: `policy {}`, `input {}`, `config {}`, ... */
  private singleton(
    keyword: string,
    v: JsonValue,
    from: string,
    to: string,
    parent: JsonObject,
    key: string,
    lower: (b: JsonValue, from: string, to: string) => JsonValue,
  ) {
    if (!Array.isArray(v)) {
      this.diagnostics.push(diag("invalid_value", this.rangeOf(from), `the ${keyword} block takes no labels`));
      return;
    }
    v.forEach((b, i) => {
      const bp = childPointer(from, i);
      if (i > 0 || key in parent) {
        this.diagnostics.push(
          diag("duplicate_block", this.rangeOf(bp), `${keyword} is set more than once`, {
            related: [{ message: "first set here", range: this.out.get(to)?.keyRange ?? this.out.get(to)?.range ?? this.fileRange }],
            hint: `keep one ${keyword} block: merge the two`,
          }),
        );
        return;
      }
      const e = this.entry(bp);
      if (e) this.out.set(to, { range: e.range, keyRange: this.entry(from)?.keyRange ?? e.keyRange ?? e.range });
      const lowered = lower(b, bp, to);
      parent[key] = lowered;
    });
  }

  private duplicate(kind: string, name: string, at: string, first: string) {
    this.diagnostics.push(
      diag("duplicate_name", this.rangeOf(at), `${kind} "${name}" is declared more than once`, {
        related: [{ message: "first declared here", range: this.out.get(first)?.keyRange ?? this.out.get(first)?.range ?? this.fileRange }],
        hint: `rename one of them; ${kind} names are unique within a ${kind === "outcome" ? "step" : "workflow"}`,
      }),
    );
  }

  private named(keyword: string, rule: Extract<BlockRule, { kind: "named" }>, v: JsonValue, from: string, to: string, doc: JsonObject) {
    const sp = childPointer(to, rule.section);
    const sec = (doc[rule.section] ??= jsonObject()) as JsonObject;
    if (!this.out.has(sp)) {
      const e = this.entry(from);
      if (e) this.out.set(sp, e);
    }
    const groups = this.labelled(v, from);
    if (!groups) {
      this.diagnostics.push(
        diag("missing_field", this.rangeOf(from), `a ${keyword} block needs ${rule.labels === 2 ? "two labels" : "a name label"}`, {
          hint: rule.labels === 2 ? `write ${keyword} "<type>" "<name>" { ... }` : `write ${keyword} "<name>" { ... }`,
        }),
      );
      return;
    }
    for (const [label, inner] of groups) {
      const lp = childPointer(from, label);
      let items: [string, JsonValue[], string][];
      if (rule.labels === 2) {
        const second = this.labelled(inner, lp);
        if (!second) {
          this.diagnostics.push(diag("missing_field", this.rangeOf(lp), `${keyword} "${label}" needs a second label: ${keyword} "<type>" "<name>"`, { hint: `name the session: ${keyword} "${label}" "default" { ... }` }));
          continue;
        }
        items = [];
        for (const [n, bodies] of second) {
          if (!Array.isArray(bodies)) {
            this.diagnostics.push(diag("invalid_value", this.rangeOf(childPointer(lp, n)), `${keyword} "${label}" "${n}" has too many labels`, { hint: `write ${keyword} "<type>" "<name>" { ... }` }));
            continue;
          }
          items.push([`${label}.${n}`, bodies, childPointer(lp, n)]);
        }
      } else {
        if (!Array.isArray(inner)) {
          this.diagnostics.push(diag("invalid_value", this.rangeOf(lp), `${keyword} "${label}" has too many labels`, { hint: `write ${keyword} "<name>" { ... }` }));
          continue;
        }
        items = [[label, inner, lp]];
      }
      for (const [name, bodies, np] of items) {
        bodies.forEach((b, i) => {
          const bp = childPointer(np, i);
          const tp = childPointer(sp, name);
          if (name in sec) {
            this.duplicate(keyword, name, i > 0 ? bp : np, tp);
            return;
          }
          const e = this.entry(bp);
          if (e) this.out.set(tp, { range: e.range, keyRange: this.entry(np)?.keyRange ?? e.keyRange ?? e.range });
          sec[name] = this.block(keyword, b, bp, tp);
        });
      }
    }
  }

  /** Lowers the content of one named block by its keyword. */
  private block(keyword: string, b: JsonValue, from: string, to: string): JsonValue {
    if (b === null || typeof b !== "object" || Array.isArray(b)) return jsonObject();
    if (keyword === "local") {
      // local "n" { value = ... } → locals.n = value, its name still at the block's label
      // (found by a new-user trial: an unused local was shown at the word `value`).
      if (!("value" in b)) return null;
      const label = this.out.get(to)?.keyRange;
      const v = this.copy(b.value, childPointer(from, "value"), to);
      const e = this.out.get(to);
      // Its range stays the value's (HCL entries are built on first read; a re-parse moves them by their offsets).
      if (e && label) this.out.set(to, e instanceof LazyEntry ? e.withKey(label.start.offset, label.end.offset) : { range: e.range, keyRange: label, ...(e.exprText !== undefined ? { exprText: e.exprText } : {}) });
      return v;
    }
    const out: JsonObject = jsonObject();
    // A switch lowers to the branches section like a branch; the mark keeps its name in messages.
    if (keyword === "switch") out.switch = true;
    for (const k of this.ordered(b, from)) {
      const v = b[k];
      const kf = childPointer(from, k);
      const kt = childPointer(to, k);
      if (keyword === "step" && k === "outcome" && isBlockValue(v)) this.outcomes(v, kf, childPointer(to, "outcomes"), out);
      else if ((keyword === "wait" || keyword === "approval") && k === "outcome" && isBlockValue(v)) this.outcomes(v, kf, childPointer(to, "outcomes"), out);
      else if (keyword === "step" && k === "workflow" && Array.isArray(v)) {
        this.singleton("workflow", v, kf, kt, out, "workflow", (body, f, t) => this.body(body, f, t, false));
      } else if ((keyword === "branch" && k === "arm") || (keyword === "switch" && (k === "condition" || k === "match") && Array.isArray(v))) {
        this.arms(v, kf, childPointer(to, "arms"), out);
      } else if ((keyword === "branch" || keyword === "switch") && k === "default" && Array.isArray(v)) {
        // default { next = ... } (or the older transition_to); with an output it stays a block.
        this.singleton("default", v, kf, kt, out, "default", (d, f, t) => {
          if (d === null || typeof d !== "object" || Array.isArray(d)) return this.copy(d, f, t);
          const nextKey = d.next !== undefined ? "next" : d.transition_to !== undefined ? "transition_to" : undefined;
          if (nextKey === undefined || Object.keys(d).length > 1) return this.copy(d, f, t);
          return this.copy(d[nextKey], childPointer(f, nextKey), t);
        });
      } else if (Array.isArray(v) && v.every((x) => x !== null && typeof x === "object" && !Array.isArray(x)) && isObjectBlockKey(k)) {
        // input {}, config {}, output {}, variables {}, memory {} blocks → objects
        this.singleton(k, v, kf, kt, out, k, (x, f, t) => this.copy(x, f, t));
      } else out[k] = this.copy(v, kf, kt);
    }
    return out;
  }

  private outcomes(v: JsonValue, from: string, to: string, parent: JsonObject) {
    const groups = this.labelled(v, from);
    if (!groups) {
      this.diagnostics.push(diag("missing_field", this.rangeOf(from), `an outcome block needs a name label: outcome "success" { next = "..." }`));
      return;
    }
    const sec = (parent.outcomes ??= jsonObject()) as JsonObject;
    if (!this.out.has(to)) {
      const e = this.entry(from);
      if (e) this.out.set(to, e);
    }
    for (const [name, bodies] of groups) {
      const np = childPointer(from, name);
      if (!Array.isArray(bodies)) {
        this.diagnostics.push(diag("invalid_value", this.rangeOf(np), `outcome "${name}" has too many labels`, { hint: 'write outcome "<name>" { next = "..." }' }));
        continue;
      }
      bodies.forEach((b, i) => {
        const bp = childPointer(np, i);
        const tp = childPointer(to, name);
        if (name in sec) {
          this.duplicate("outcome", name, i > 0 ? bp : np, tp);
          return;
        }
        const e = this.entry(bp);
        if (e) this.out.set(tp, { range: e.range, keyRange: this.entry(np)?.keyRange ?? e.keyRange ?? e.range });
        sec[name] = this.block("outcome", b, bp, tp);
      });
    }
  }

  private arms(v: JsonValue, from: string, to: string, parent: JsonObject) {
    if (!Array.isArray(v)) {
      this.diagnostics.push(diag("invalid_value", this.rangeOf(from), `arm and condition blocks take no labels`));
      return;
    }
    const list = (parent.arms ??= []) as JsonValue[];
    if (!this.out.has(to)) {
      const e = this.entry(from);
      if (e) this.out.set(to, e);
    }
    v.forEach((a, i) => {
      const ap = childPointer(from, i);
      const tp = childPointer(to, list.length);
      const e = this.entry(ap);
      if (e) this.out.set(tp, e);
      const arm: JsonObject = jsonObject();
      if (a !== null && typeof a === "object" && !Array.isArray(a)) {
        for (const k of this.ordered(a, ap)) {
          // v0.3: condition { match = ... }; v0.5: match { condition = ... }; older: transition_to.
          const key = k === "match" || k === "condition" ? "when" : k === "transition_to" ? "next" : k;
          arm[key] = this.copy(a[k], childPointer(ap, k), childPointer(tp, key));
        }
      }
      list.push(arm);
    });
  }
}

/** Nested blocks that lower to plain objects. */
function isObjectBlockKey(k: string): boolean {
  return k === "input" || k === "config" || k === "output" || k === "variables" || k === "memory" || k === "shared_writes" || k === "validation" || k === "secret_input" || k === "secrets";
}

/** hcl2json renders blocks as arrays of objects (unlabelled) or label-keyed objects of those. */
function isBlockValue(v: JsonValue): boolean {
  if (Array.isArray(v)) return v.length > 0 && v.every((x) => x !== null && typeof x === "object" && !Array.isArray(x));
  if (v === null || typeof v !== "object") return false;
  return Object.values(v).every((x) => isBlockValue(x));
}

