import { SECTION_KEYWORDS } from "../../compiler/decode/lower-hcl.js";
import { workflowSchema } from "../../compiler/decode/check-schema.js";

/**
 * Block and field names of HCL workflow files, with their documentation, for the
 * language server's completion and hover (the "See and edit" issue, item 3). One source
 * of truth: the JSON Schema of the YAML/JSON dialect (`schema/workflow.schema.json`),
 * whose every property carries a description; HCL writes its name-keyed sections as
 * blocks (`steps` → `step "x" { }`, a step's `outcomes` → `outcome "x" { }`), which
 * `SECTION_KEYWORDS` (the HCL lowering's own table) translates.
 */

/** A field or block that may be written where the cursor is. */
export interface FieldDoc {
  /** As written in HCL: `timeout`, `outcome`, `step`. */
  name: string;
  /** `block` when HCL writes it as a block (`outcome "x" { }`, `config { }`), else `attribute`. */
  kind: "block" | "attribute";
  /** The schema's description (Markdown-safe text); "" when it has none. */
  doc: string;
}

type Schema = { $ref?: string; description?: string; type?: string | string[]; properties?: Record<string, Schema>; additionalProperties?: Schema | boolean; oneOf?: Schema[]; anyOf?: Schema[]; allOf?: Schema[] };

let root: Schema | undefined;
const schema = (): Schema => (root ??= workflowSchema() as Schema);

/** Follows a local `$ref` (`#/definitions/step`). */
function deref(s: Schema | undefined): Schema | undefined {
  let cur = s;
  for (let i = 0; cur?.$ref && i < 10; i++) {
    const path = cur.$ref.replace(/^#\//, "").split("/");
    let next: unknown = schema();
    for (const p of path) next = (next as Record<string, unknown> | undefined)?.[p];
    cur = next as Schema | undefined;
  }
  return cur;
}

/** An object-shaped alternative of a schema (the object form of "a name or an object"). */
function objectOf(s: Schema | undefined): Schema | undefined {
  const d = deref(s);
  if (!d) return undefined;
  // A free-form map that documents some keys (a step's input: a channel step's post and recv) takes any name: nothing to offer.
  if (d.allOf?.some((m) => typeof deref(m)?.additionalProperties === "object")) return undefined;
  if (d.properties) return d;
  for (const alt of [...(d.oneOf ?? []), ...(d.anyOf ?? [])]) {
    const o = objectOf(alt);
    if (o) return o;
  }
  return undefined;
}

/** Repeated blocks a block takes that the schema keeps as a map or a list under a plural name. */
const NESTED_KEYWORDS: Readonly<Record<string, string>> = { outcomes: "outcome", arms: "arm" };

/**
 * The HCL keyword of a property: at the top of a file (or body) a name-keyed section's
 * block (`steps` → `step`, the lowering's own table), inside a block `outcomes` →
 * `outcome` and `arms` → `arm`; any other property is written as named.
 */
const keyword = (section: string, top: boolean) => (top ? (SECTION_KEYWORDS[section] ?? section) : (NESTED_KEYWORDS[section] ?? section));

/** The schema of what property `name` (as HCL writes it) of `ctx` holds, and its documentation. */
function propertyOf(ctx: Schema, name: string): { section: string; schema: Schema | undefined; named: boolean; description: string } | undefined {
  const top = ctx === schema();
  const props = ctx.properties ?? {};
  const section = Object.keys(props).find((p) => p !== "$schema" && keyword(p, top) === name) ?? (top && name === "switch" ? "branches" : top && name === "locals" ? "locals" : undefined);
  if (!section) return undefined;
  const p = props[section];
  const d = deref(p);
  const named = keyword(section, top) !== section;
  // The schema of one block: a map's entry, a list's item, or the value itself.
  const item = named && d && typeof d.additionalProperties === "object" ? deref(d.additionalProperties) : d?.type === "array" ? deref((d as { items?: Schema }).items) : undefined;
  const description = (named ? item?.description : undefined) ?? p.description ?? d?.description ?? item?.description ?? "";
  return { section, schema: item ?? d, named, description };
}

/** Whether HCL writes property `section` of `ctx` as a block: a named section, an object, a list of objects. */
function isBlock(ctx: Schema, section: string): boolean {
  const p = propertyOf(ctx, keyword(section, ctx === schema()));
  if (!p) return false;
  if (p.named || ctx === schema()) return true;
  const d = deref(ctx.properties![section]);
  const types = d?.type === undefined ? [] : Array.isArray(d.type) ? d.type : [d.type];
  if (types.includes("array")) return objectOf(p.schema) !== undefined && types.length === 1;
  return types.includes("object") || (types.length === 0 && !!d?.properties);
}

/**
 * The context the cursor is in, as the HCL block types around it from the outside in
 * (`["step", "outcome"]`), or undefined inside an expression (a string, an object
 * value, a comment), where no field name can be written.
 * @param text the document up to the cursor
 */
export function blocksAt(text: string): string[] | undefined {
  const stack: (string | null)[] = [];
  let i = 0;
  // Where the current statement began (after a newline, `{` or `}`): its words name a block.
  let stmt = 0;
  const n = text.length;
  const skipString = (): boolean => {
    // i is after the opening quote; returns false when the text ends inside the string
    let depth = 0;
    while (i < n) {
      const c = text[i];
      if (c === "\\") i += 2;
      else if (depth === 0 && c === '"') return (i++, true);
      else if (c === "$" && text[i + 1] === "{") (depth++, (i += 2));
      else if (depth > 0 && c === "}") (depth--, i++);
      else if (depth > 0 && c === '"') {
        i++;
        if (!skipString()) return false;
      } else i++;
    }
    return false;
  };
  while (i < n) {
    const c = text[i];
    if (c === "#" || (c === "/" && text[i + 1] === "/")) {
      const eol = text.indexOf("\n", i);
      if (eol < 0) return undefined;
      i = eol;
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      if (end < 0) return undefined;
      i = end + 2;
    } else if (c === "<" && text[i + 1] === "<") {
      const m = /^<<-?([A-Za-z_]\w*)[ \t]*\n/.exec(text.slice(i));
      if (!m) {
        i += 2;
        continue;
      }
      const close = new RegExp(`\\n[ \\t]*${m[1]}[ \\t]*(?=\\n|$)`).exec(text.slice(i + m[0].length - 1));
      if (!close) return undefined;
      i += m[0].length - 1 + close.index + close[0].length;
    } else if (c === '"') {
      i++;
      if (!skipString()) return undefined;
    } else if (c === "{") {
      const head = text.slice(stmt, i).trim();
      // `name = {` (or inside an object) is a value; `step "x" {` or `config {` is a block.
      const block = stack[stack.length - 1] !== null && /^[A-Za-z_][\w-]*(\s+("[^"]*"|[A-Za-z_][\w-]*))*$/.test(head) ? head.split(/\s+/)[0] : null;
      stack.push(block);
      i++;
      stmt = i;
    } else if (c === "}") {
      stack.pop();
      i++;
      stmt = i;
    } else if (c === "[" || c === "(") {
      // A list or call: a value, until its close (nesting counted; strings skipped).
      const open = c;
      const shut = c === "[" ? "]" : ")";
      let depth = 0;
      for (; i < n; i++) {
        if (text[i] === '"') {
          i++;
          if (!skipString()) return undefined;
          i--;
        } else if (text[i] === open) depth++;
        else if (text[i] === shut && --depth === 0) break;
      }
      if (i >= n) return undefined;
      i++;
    } else {
      if (c === "\n") stmt = i + 1;
      i++;
    }
  }
  if (stack.includes(null)) return undefined;
  return stack as string[];
}

/** The schema object of the innermost block of `blocks`, or undefined when it has no fixed fields (`input`, `config`). */
function contextOf(blocks: string[]): Schema | undefined {
  let ctx: Schema | undefined = schema();
  for (const b of blocks) {
    if (!ctx) return undefined;
    // A step's (or module's) inline `workflow { }` body holds what a file holds.
    if (b === "workflow" && ctx !== schema() && ctx.properties?.workflow && deref(ctx.properties.workflow)?.properties?.steps) {
      ctx = schema();
      continue;
    }
    const p = propertyOf(ctx, b);
    ctx = p ? objectOf(p.schema) : undefined;
  }
  return ctx;
}

/**
 * What may be written at the start of a statement inside `blocks` (from {@link blocksAt}):
 * each field and block with its documentation, in the schema's order. Empty where the
 * block has no fixed fields.
 */
export function fieldsIn(blocks: string[]): FieldDoc[] {
  const ctx = contextOf(blocks);
  if (!ctx?.properties) return [];
  const top = ctx === schema();
  const out: FieldDoc[] = [];
  for (const section of Object.keys(ctx.properties)) {
    if (section === "$schema") continue;
    const name = keyword(section, top);
    const p = propertyOf(ctx, name)!;
    out.push({ name, kind: isBlock(ctx, section) ? "block" : "attribute", doc: p.description });
    if (top && section === "branches") out.push({ name: "switch", kind: "block", doc: p.description });
    if (top && section === "locals") out.push({ name: "locals", kind: "block", doc: p.description });
  }
  return out;
}

/** The documentation of field or block `name` written inside `blocks`, if the schema knows it. */
export function fieldDoc(blocks: string[], name: string): FieldDoc | undefined {
  return fieldsIn(blocks).find((f) => f.name === name);
}
