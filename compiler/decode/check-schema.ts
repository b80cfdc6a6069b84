import { createRequire } from "node:module";
import { join } from "node:path";
import { packageRoot } from "../package-root.js";
import type { ErrorObject, ValidateFunction } from "ajv";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { fileDialect, literalFieldAs, type Dialect } from "../diagnostics/dialect-hint.js";
import { closestName, distance, suggest } from "../diagnostics/did-you-mean.js";
import type { Range } from "../diagnostics/range.js";
import { lookupTable, type JsonObject, type JsonValue } from "../parse/document.js";
import { childPointer, type SourceMap } from "../parse/source-map.js";
import { describePointer, pointerSegments } from "./describe.js";
import { HCL_BLOCK_KEYWORDS, KEYWORD_SECTIONS, SECTION_KEYWORDS } from "./lower-hcl.js";
import type { NearMiss } from "./spec.js";
import { isKeyedSection, meantKeys, type KeyedSection } from "./section-keys.js";

const require = createRequire(import.meta.url);
let validator: ValidateFunction | undefined;

/** The errors made for a YAML or JSON file none of whose fields a workflow has (a vars file): told apart by identity, not by their text. */
const noWorkflowErrors = new WeakSet<Diagnostic>();

/** The top-level fields a workflow file may have (the schema's root properties). */
export function workflowFields(): ReadonlySet<string> {
  return (fields ??= new Set(Object.keys((workflowSchema() as { properties: object }).properties)));
}
let fields: Set<string> | undefined;

/**
 * The one `unknown_field` error for a YAML or JSON file none of whose fields a workflow
 * has (most often a file of variable values), instead of one per field (found by a
 * new-user trial: a vars.json beside a directory's workflow files).
 *
 * @param keys the file's own top-level keys (at least one)
 * @param range where to point: its first key
 * @param inDirectory whether the file is one of a workflow directory's files
 */
export function noWorkflowError(file: string, keys: readonly string[], range: Range, inDirectory: boolean): Diagnostic {
  const shown = keys.slice(0, 3).join(", ") + (keys.length > 3 ? ", ..." : "");
  return diag("unknown_field", range, `${file} holds no workflow: none of its fields (${shown}) is one a workflow file has`, {
    hint: inDirectory
      ? "every .hcl, .chcl, .yaml, .yml and .json file of a workflow directory is part of its workflow; keep a file of variable values outside it and pass it with --var-file FILE"
      : "a file of variable values is given to apply with --var-file FILE; a workflow file has a workflow header, steps and states",
  });
}

/** What {@link checkSchema} found: its diagnostics, and whether the file holds no workflow field at all (a vars file given as a workflow). */
export interface SchemaCheck {
  diagnostics: Diagnostic[];
  noWorkflowFields: boolean;
  /**
   * The names declared under an unknown top-level field (`switches: { decide: ... }`, HCL's
   * `stpe "ci" { ... }`): that field's error stands, and a reference to one of them is no
   * second error (found by a new-user trial: `unknown node "decide"` followed `switches`).
   */
  misplaced: ReadonlySet<string>;
  /** Unknown fields with a did-you-mean to a field of their block (spec.ts, NearMiss). */
  nearMisses: NearMiss[];
}

/** The JSON Schema of the YAML/JSON dialect (`schema/workflow.schema.json`, draft-07). */
export function workflowSchema(): object {
  return require(join(packageRoot(), "schema", "workflow.schema.json")) as object;
}

/**
 * Installs the validator precompiled by `make build` (dist/schema/validate-workflow.cjs)
 * when the CLI bundle carries it (scripts/bundle.mjs), so it is compiled from V8's code
 * cache with the rest of the bundle instead of being required at the first check.
 */
export function usePrecompiledValidator(v: ValidateFunction): void {
  validator = v;
}

/**
 * The validator: the one `make build` precompiled (scripts/build-assets.mjs, ajv
 * standalone code: no schema compilation at start-up), else compiled once per process
 * (tests run from the sources) with the same options: `allErrors`, `verbose` (the
 * did-you-mean reads the allowed names from `parentSchema`).
 */
function validate(): ValidateFunction {
  if (!validator) {
    try {
      validator = require(join(packageRoot(), "dist", "schema", "validate-workflow.cjs")) as ValidateFunction;
      return validator;
    } catch {
      // not built: compile below
    }
    const AjvCtor = require("ajv").default as typeof import("ajv").default;
    const ajv = new AjvCtor({ allErrors: true, verbose: true, strict: false });
    validator = ajv.compile(workflowSchema());
  }
  return validator;
}

/**
 * Checks a canonical document's shape against `schema/workflow.schema.json` and turns
 * ajv's errors into diagnostics placed by the source map: unknown fields fail closed
 * (`unknown_field` with a did-you-mean over the allowed names), wrong literal types are
 * `invalid_type`, enum/range violations `invalid_value`, missing required fields
 * `missing_field`, bad names `invalid_name`. One diagnostic per instance location.
 *
 * @param fallback where to point when the source map has no entry (never happens for parsed files)
 * @param role `body` for a workflow_file body, whose header (if any) needs no name
 */
export function checkSchema(doc: JsonObject, map: SourceMap, fallback: Range, role: "workflow" | "body" = "workflow"): SchemaCheck {
  const v = validate();
  if (v(doc)) return { diagnostics: [], noWorkflowFields: false, misplaced: new Set(), nearMisses: [] };
  const out: Diagnostic[] = [];
  const seen = new Set<string>();
  const misplaced = new Set<string>();
  const nearMisses: NearMiss[] = [];
  // A keyed entry written nested (`shell: { default: {} }`): its key's error says to write one key; what is inside it is no error of its own.
  const nested = (v.errors ?? []).flatMap((e) => {
    const name = e.keyword === "pattern" ? e.propertyName : undefined;
    const section = pointerSegments(e.instancePath).at(-1) ?? "";
    if (name === undefined || !isKeyedSection(section)) return [];
    return meantKeys(section, name, valueAt(doc, childPointer(e.instancePath, name))).form === "nested" ? [childPointer(e.instancePath, name)] : [];
  });
  for (const e of v.errors ?? []) {
    if (nested.some((p) => e.instancePath === p || e.instancePath.startsWith(`${p}/`))) continue;
    // A workflow_file body needs no name: it is the body of the step that names it.
    if (role === "body" && e.keyword === "required" && e.instancePath === "/workflow") continue;
    // The schema's if/then rules (a step's target, an outcome's next) are there for editors;
    // the checks say the same with a hint (check-step-fields.ts, check-outcomes.ts).
    if (e.keyword === "if" || e.schemaPath.includes("/then/")) continue;
    const d = toDiagnostic(e, map, fallback, doc);
    if (!d) continue;
    if (d.code === "unknown_field" && e.keyword === "additionalProperties" && e.instancePath === "") {
      const held = doc[String((e.params as { additionalProperty: string }).additionalProperty)];
      if (held !== null && typeof held === "object" && !Array.isArray(held)) for (const k of Object.keys(held)) misplaced.add(k);
    }
    const key = `${d.code}\0${d.range.start.offset}\0${d.range.file}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(d);
    const meant = d.code === "unknown_field" && e.keyword === "additionalProperties" ? /^did you mean "([^"]+)"\?/.exec(d.hint ?? "")?.[1] : undefined;
    if (meant !== undefined) nearMisses.push({ field: meant, typo: d.range, blockKey: rangeAt(map, e.instancePath, fallback, true), block: rangeAt(map, e.instancePath, fallback) });
  }
  return { diagnostics: out, noWorkflowFields: out.some((d) => noWorkflowErrors.has(d)), misplaced, nearMisses };
}

/**
 * The did-you-mean for a field of a YAML or JSON file named as HCL names it, when plain edit
 * distance finds none (found by a new-user trial: `switches:` was offered 18 section names,
 * none of them `branches`): a top-level `switch`/`switches` (or any HCL block keyword) is
 * its section, a branch's `match`/`condition` blocks are its `arms`, and an arm's `condition`
 * or `match` is its `when` (lower-hcl.ts lowers HCL's switch so). Undefined when the field
 * is none of these, or the allowed names hold no such field at this place.
 *
 * @param ptr the JSON pointer of the object holding the field
 * @param json whether the file is JSON (keys quoted)
 */
function yamlWordFor(prop: string, ptr: string, doc: JsonObject, json: boolean, allowed: readonly string[]): string | undefined {
  const q = (k: string) => (json ? `"${k}"` : k);
  const section = ptr === "" || /\/workflow$/.test(ptr);
  // `switches` → `switch`, `conditions` → `condition`, `matches` → `match`.
  const forms = [prop, prop.replace(/s$/, ""), prop.replace(/es$/, "")];
  const singular = forms.find((f) => KEYWORD_SECTIONS[f] !== undefined || ["match", "condition", "arm", "case"].includes(f)) ?? prop;
  if (section) {
    const to = KEYWORD_SECTIONS[singular];
    if (to === undefined || to === prop || !allowed.includes(to) || closestName(prop, allowed) === to) return undefined;
    if (to !== "branches") return `did you mean "${to}"? (HCL's ${singular} blocks are ${json ? "JSON" : "YAML"}'s ${q(to)})`;
    const held = (doc as Record<string, unknown>)[prop];
    const name = held !== null && typeof held === "object" && !Array.isArray(held) ? Object.keys(held)[0] : undefined;
    return `did you mean "branches"? In ${json ? "JSON" : "YAML"}, a switch is written ${q("branches")}: { ${q(name ?? "decide")}: { ${q("arms")}: [{ ${q("when")}: "\${...}", ${q("next")}: "..." }], ${q("default")}: { ${q("next")}: "..." } } }`;
  }
  if (/\/branches\/[^/]+$/.test(ptr) && allowed.includes("arms") && ["match", "condition", "arm", "case"].includes(singular)) {
    return `did you mean "arms"? HCL's match blocks are a branch's ${q("arms")}, tried in order: ${q("arms")}: [{ ${q("when")}: "\${...}", ${q("next")}: "..." }]`;
  }
  if (/\/arms\/\d+$/.test(ptr) && allowed.includes("when") && ["condition", "match", "if"].includes(prop)) {
    return `did you mean "when"? An arm's condition is ${q("when")}: "\${...}"`;
  }
  return undefined;
}

/** Canonical section names and their HCL block keywords (lower-hcl.ts), for suggestions in HCL files. */
const HCL_NAMES: Record<string, string> = lookupTable({ ...SECTION_KEYWORDS, arms: "arm" });

function rangeAt(map: SourceMap, ptr: string, fallback: Range, key = false): Range {
  let p = ptr;
  for (;;) {
    const e = map.get(p);
    if (e) return key ? e.keyRange ?? e.range : e.range;
    if (p === "") return fallback;
    p = p.slice(0, p.lastIndexOf("/"));
  }
}


/** The value at a JSON pointer of the document (undefined when there is none). */
function valueAt(doc: JsonObject, ptr: string): JsonValue | undefined {
  let node: JsonValue | undefined = doc;
  for (const seg of pointerSegments(ptr)) node = node !== null && typeof node === "object" && !Array.isArray(node) ? node[seg] : undefined;
  return node;
}

/**
 * The error of a key of `adapters`, `environments` or `data` that is not `<type>.<name>`
 * (`<kind>.<name>` for data), saying what it was meant as (section-keys.ts): one key for a
 * nested entry (`shell: { default: {} }` → `shell.default`), the split of a joined one
 * (`shelldefault` → did you mean "shell.default"?), a data value's kind (`counter` →
 * `internal.counter`). Found by a new-user trial: each was "not a valid name", a data name
 * with a hint about letters, the nested ones with follow-on errors of the entry's fields.
 */
function keyedNameError(section: KeyedSection, noun: string, name: string, value: JsonValue | undefined, at: Range, where: string): Diagnostic {
  const shape = section === "data" ? "<kind>.<name>" : "<type>.<name>";
  const block = (key: string) => `${noun} "${key.split(".")[0]}" "${key.split(".").slice(1).join(".")}" { ... }`;
  const meant = meantKeys(section, name, value);
  const first = meant.keys[0]?.key;
  if (meant.form === "nested" && first !== undefined) {
    return diag("invalid_name", at, `${where}${noun} "${name}" is not a valid key: keys are "${shape}", written as one key`, { hint: `write "${first}" as one key: ${block(first)}` });
  }
  if (meant.form === "kindless" && first !== undefined) {
    return diag("invalid_name", at, `${where}${noun} "${name}" has no kind: keys are "${shape}"`, { hint: `the one kind is internal: ${block(first)}` });
  }
  if (meant.form === "joined" && first !== undefined) {
    return diag("invalid_name", at, `${where}${noun} "${name}" is not a valid key: keys are "${shape}"`, { hint: `did you mean "${first}"?` });
  }
  const example = section === "adapters" ? "shell.default" : section === "environments" ? "shell.ci" : "internal.counter";
  return diag("invalid_name", at, `${where}${noun} "${name}" is not a valid key`, { hint: `keys are "${shape}", e.g. "${example}"` });
}

/** The word of a block in a dialect, with its article (found by a new-user trial: YAML files were told "an object (block)"). */
const OBJECT_WORD: Record<Dialect, string> = { hcl: "an object (block)", yaml: "a mapping", json: "an object" };

function typeName(x: unknown, dialect: Dialect = "hcl"): string {
  if (x === null) return "null";
  if (Array.isArray(x)) return "a list";
  if (typeof x === "object") return dialect === "hcl" ? "object (block)" : OBJECT_WORD[dialect];
  if (typeof x === "number") return `the number ${String(x)}`;
  return typeof x;
}

/**
 * A schema's type list in words: `object` in the file's own word, `array` a list, and an
 * `integer` a whole number; `integer or string` is a whole number (the string is for an
 * expression of var.* / local.*, which the decoder checks: found by a new-user trial, whose
 * max_visits: "3" was refused after "must be integer or string").
 */
function typeWords(want: string, dialect: Dialect): string {
  if (want === "integer or string" || want === "string or integer") return "a whole number";
  return want.replace("object", OBJECT_WORD[dialect]).replace(/\barray\b/, "a list").replace(/\binteger\b/, "a whole number");
}

/**
 * What to write instead of a value of the wrong type: a duration is a quoted string, a
 * number or a bool is written bare, a block is written as one (found by a new-user trial:
 * `timeout = 5` said only that it must be a string).
 */
function typeHint(want: string, data: unknown, field: string, dialect: Dialect = "hcl", ptr = ""): string {
  if (want === "string" && /timeout|duration|interval|delay|wait/.test(field)) return `a duration is a quoted string: ${field} = "30s" (or "5m", "1h")`;
  // A node's name is no number even quoted (found by a new-user trial: initial_state: 123 beside a step "123" was told to quote it).
  if (want === "string" && typeof data === "number" && ["initial_state", "target_state", "next", "entry", "requires"].includes(field)) return `it names a node, and a name starts with a letter or _ (e.g. "build_${String(data)}"): rename the node and name it here`;
  // A step's target is a reference no quoting makes (found by a new-user trial: `adapter: 5` was told to quote it).
  if (want === "string" && (typeof data === "number" || typeof data === "boolean") && /(^|\/)steps\/[^/]+\/(target|adapter|agent)$/.test(ptr)) {
    return "it names what the step runs: write target = adapter.<type>.<name> (e.g. target = adapter.shell.default), agent.<name> or subworkflow.<name>";
  }
  if (want === "string" && (typeof data === "number" || typeof data === "boolean")) return `quote it: ${field} = "${String(data)}"`;
  if ((want === "integer" || want === "number") && typeof data === "string") return /^-?\d+(\.\d+)?$/.test(data) ? `write the number without quotes: ${field} = ${data}` : `write a number: ${field} = 3`;
  if (want === "boolean" && typeof data === "string") {
    if (/^\$\{[\s\S]*\}$/.test(data)) return `write true or false: ${field} = true (it is read before the run, so an expression is not evaluated here)`;
    // The value meant, when the text says it (found by a new-user trial: "no" was offered true).
    const meant = /^(no|n|false|f|off|0)$/i.test(data.trim()) ? "false" : "true";
    // YAML 1.1's yes/no/on/off are text in YAML 1.2 (which criteria reads), quoted or not.
    if (/^(yes|no|y|n|on|off)$/i.test(data.trim())) return `write true or false: ${field} = ${meant} (${data.trim()} is text, not a bool, in YAML 1.2 and HCL)`;
    return `write true or false without quotes: ${field} = ${meant}`;
  }
  if (want.includes("array")) return `write a list: ${field} = ["a", "b"]${want.includes("object") ? `, or a block: ${field} { ... }` : ""}`;
  if (want.includes("object")) return dialect === "hcl" ? `write it as a block: ${field} { ... }` : `write it as ${OBJECT_WORD[dialect]}: ${field} { ... }`;
  return `"${field}" takes ${typeWords(want, dialect)}`;
}

function toDiagnostic(e: ErrorObject, map: SourceMap, fallback: Range, doc: JsonObject): Diagnostic | undefined {
  const ptr = e.instancePath;
  /** The declaration `p` is in, as messages start: `step "a" > outcome "ok": `. */
  const where = (p: string) => {
    const d = describePointer(p, doc);
    return d ? `${d}: ` : "";
  };
  const field = pointerSegments(ptr).at(-1) ?? "";
  switch (e.keyword) {
    case "additionalProperties": {
      const prop = String((e.params as { additionalProperty: string }).additionalProperty);
      let allowed = Object.keys((e.parentSchema as { properties?: object } | undefined)?.properties ?? {}).filter((a) => a !== "$schema");
      const p = childPointer(ptr, prop);
      const at = rangeAt(map, p, fallback, true);
      // In HCL the canonical document's sections are blocks: suggest `step`, not `steps`
      // (at a workflow's or a body's top level only: elsewhere `adapters` is an attribute).
      // Decided by where the field is, not by the schema's path: an environment's or a subworkflow's
      // `variables`/`adapters` were offered as `variable`/`adapter` (found by a new-user trial).
      const sectionLevel = ptr === "" || /\/workflow$/.test(ptr);
      const hcl = /\.c?hcl$/i.test(at.file);
      // Every block keyword: `switch` and `locals` too, which no section is first named by (found by a new-user trial: `swich` got no did-you-mean).
      if (sectionLevel && hcl) allowed = [...new Set([...allowed.map((a) => HCL_NAMES[a] ?? a), ...HCL_BLOCK_KEYWORDS.filter((k) => allowed.includes(KEYWORD_SECTIONS[k]))])];
      // A switch's arms are its match blocks, and its mark is no field of the file's.
      const inSwitch = (e.data as { switch?: unknown } | undefined)?.switch === true;
      if (inSwitch) allowed = allowed.filter((a) => a !== "switch").map((a) => (a === "arms" ? "match" : a));
      // The Go tool's environment on a subworkflow block: known, not built (docs/language.md, Not there yet).
      if (prop === "environment" && /(^|\/)subworkflows\/[^/]+$/.test(ptr)) {
        return diag("unknown_field", at, `${where(ptr)}"environment" on a subworkflow block is not supported yet`, {
          hint: "declare the environment in the module's own files, or pass the values it needs as its input",
        });
      }
      // A step's `config` (the Go tool's docs promise "use input { } block" for it; found by a
      // trial of them: the generic list of the step's fields was all it got).
      if (prop === "config" && /(^|\/)steps\/[^/]+$/.test(ptr)) {
        return diag("unknown_field", at, `${where(ptr)}a step has no "config": the values a step gives its adapter are its input`, {
          hint: hcl ? "write them in an input { ... } block (config belongs to the adapter or agent block the step runs on)" : "write them under input: (config belongs to the adapter or agent the step runs on)",
        });
      }
      // A step naming its subworkflow in a field of that name (`subworkflow = subworkflow.kid`):
      // the call is its target (found by a new-user trial: told to move a block to the top level).
      if (prop === "subworkflow" && /(^|\/)steps\/[^/]+$/.test(ptr)) {
        const v = (e.data as Record<string, unknown> | null)?.[prop];
        const ref = typeof v === "string" ? /^(?:\$\{)?\s*(subworkflow\.[\p{L}\p{N}_-]+)\s*\}?$/u.exec(v)?.[1] : undefined;
        if (ref) {
          return diag("unknown_field", at, `${where(ptr)}${hcl ? "unsupported argument" : "unknown field"} "subworkflow": a step calls a subworkflow through its target`, {
            hint: hcl ? `write target = ${ref}` : `write target: ${ref}`,
          });
        }
      }
      // A YAML or JSON file with no workflow field at all: one error for the file, saying what it
      // looks like (found by a new-user trial: a vars.json beside a directory's workflow files
      // drew an unknown field for each variable).
      if (ptr === "" && !/\.c?hcl$/i.test(at.file)) {
        const own = Object.keys(doc).filter((k) => map.get(childPointer("", k))?.range.file === at.file);
        // One file's document only: of a directory's files, merging set aside those with no
        // workflow field (merge-documents.ts), and one that has some has plain unknown fields
        // (found by a new-user trial: "none of its fields (env)" of a file that held variables).
        if (own.length > 0 && own.length === Object.keys(doc).length && own.every((k) => !allowed.includes(k))) {
          const d = noWorkflowError(at.file, own, rangeAt(map, childPointer("", own[0]), fallback, true), false);
          noWorkflowErrors.add(d);
          return d;
        }
      }
      // HCL's words in a YAML or JSON file (`switches:`, a branch's `match`, an arm's `condition`): the dialect's own.
      const dialectWord = hcl ? undefined : yamlWordFor(prop, ptr, doc, /\.json$/i.test(at.file), allowed);
      if (dialectWord) return diag("unknown_field", at, `${where(ptr)}unknown field "${prop}"`, { hint: dialectWord });
      // A workflow's own block (a state, a wait, a variable) written inside a step or another
      // block: said where it goes, not matched against the block's fields (found by a trial of
      // the Go tool's docs: a state inside a step was asked whether it meant "type").
      // HCL's own words ("argument or block") for HCL; a YAML or JSON file has fields.
      const unknown = `${where(ptr)}${hcl ? "unsupported argument or block" : "unknown field"} "${prop}"`;
      const workflowBlock = hcl ? HCL_BLOCK_KEYWORDS.includes(prop) : SECTION_KEYWORDS[prop] !== undefined;
      const typoOf = closestName(prop, allowed);
      if (!sectionLevel && workflowBlock && !allowed.includes(prop) && (typoOf === undefined || distance(prop, typoOf) > 1)) {
        const written = hcl ? `a "${prop}" block` : `"${prop}"`;
        return diag("unknown_field", at, `${unknown}: ${written} belongs at the top level of a workflow (or of a step's workflow body), not here`, {
          hint: `move it out to the top level of the file`,
        });
      }
      return diag("unknown_field", at, unknown, {
        hint: inSwitch && !/did you mean/.test(suggest(prop, allowed) ?? "") ? 'a switch tries its match { condition = ... next = "..." } blocks in order, then its default { next = "..." }' : suggest(prop, allowed),
      });
    }
    case "required": {
      const prop = String((e.params as { missingProperty: string }).missingProperty);
      if (ptr === "" && prop === "workflow") return undefined; // check/check-header.ts says it with a hint
      const at = rangeAt(map, ptr, fallback, true);
      return diag("missing_field", at, `${where(ptr)}missing required ${/\.c?hcl$/i.test(at.file) ? "argument" : "field"} "${prop}"`, { hint: `add ${prop} = ... to it (docs/language.md says what it takes)` });
    }
    case "type": {
      // An empty outcome: decode-workflow.ts says it is empty, with its own hint.
      if (e.data === null && /\/outcomes\/[^/]+$/.test(ptr)) return undefined;
      const want = [(e.params as { type: string | string[] }).type].flat().join(" or ");
      const expression = typeof e.data === "string" && /^\$\{[\s\S]*\}$/.test(e.data);
      // A bare word in HCL (`terminal = tru`) is a reference, rendered "${tru}": said as
      // the expression it is, not as a string (found by a new-user trial: "not string"
      // and "without quotes" for a value written without quotes).
      const written = expression ? (e.data as string).slice(2, -1).trim() : undefined;
      const dialect = fileDialect(rangeAt(map, ptr, fallback).file);
      const not = expression && want === "array" ? " written out, not an expression" : expression ? `, not the expression ${written}` : `, not ${typeName(e.data, dialect)}`;
      const near = want === "boolean" && written !== undefined ? closestName(written, ["true", "false"]) : undefined;
      if (near) return diag("invalid_type", rangeAt(map, ptr, fallback), `${where(ptr)}"${field}" must be boolean${not}`, { hint: `did you mean ${near}? (${field} = ${near})` });
      // A list of blocks (a branch's arms) written as one: each item is a mapping (found by a new-user trial: `arms: ["a", "b"]`).
      const items = (e.parentSchema as { items?: { $ref?: string; type?: unknown } } | undefined)?.items;
      const ofBlocks = want === "array" && items !== undefined && (items.$ref !== undefined || items.type === "object");
      if (ofBlocks && e.data !== null && typeof e.data === "object" && !Array.isArray(e.data)) {
        const example = field === "arms" ? `{ when: "\${...}", next: "..." }` : "{ ... }";
        return diag("invalid_type", rangeAt(map, ptr, fallback), `${where(ptr)}"${field}" must be a list, not ${typeName(e.data, dialect)}`, {
          hint: dialect === "yaml" ? `start each item with "- ": ${field}: [${example}, ...]` : dialect === "json" ? `write a list of objects: "${field}": [${example.replace(/(when|next):/g, '"$1":')}]` : `write a list: ${field} = [${example}]`,
        });
      }
      // An iterating field's string is an expression's (a literal string is refused by
      // check-literal-types.ts), and a number means count (found by a new-user trial:
      // "must be a list or an object (block) or string, not the number 3").
      if ((field === "for_each" || field === "parallel") && /\bstring\b/.test(want) && (typeof e.data === "number" || typeof e.data === "boolean")) {
        const times = typeof e.data === "number" && Number.isInteger(e.data) && e.data >= 0 ? e.data : undefined;
        return diag("invalid_type", rangeAt(map, ptr, fallback), `${where(ptr)}"${field}" must be ${typeWords(want.replace(/ or string\b|\bstring or /, ""), dialect)}, or an expression giving one, not ${typeName(e.data, dialect)}`, {
          hint: times !== undefined && field === "for_each" ? `to run the step ${times} times, write ${literalFieldAs(dialect, "count", String(times))} (each._idx counts them from 0)` : typeHint(want, e.data, field, dialect, ptr),
        });
      }
      const fractional = typeof e.data === "number" && !Number.isInteger(e.data) && /\binteger\b/.test(want);
      return diag("invalid_type", rangeAt(map, ptr, fallback), `${where(ptr)}"${field}" must be ${typeWords(want, dialect)}${not}`, {
        // An expression where a list must be written out (HCL renders it as "${...}"): it is
        // not evaluated here, so the hint is to spell the list out (found by a trial: the
        // hint wrapped the expression in a list of one string).
        hint:
          want === "array" && typeof e.data === "string"
            ? expression
              ? `write the list out, item by item (${field} = [a, b]): it is read before the run, so an expression is not evaluated here`
              : `write a list: ${field} = [${JSON.stringify(e.data)}]`
            : fractional
              ? `write a whole number: ${field} = ${Math.trunc(e.data as number)}`
              : typeHint(want, e.data, field, dialect, ptr),
      });
    }
    case "enum": {
      const allowed = (e.params as { allowedValues: unknown[] }).allowedValues.map((x) => JSON.stringify(x));
      return diag("invalid_value", rangeAt(map, ptr, fallback), `${where(ptr)}"${field}" must be one of ${allowed.join(", ")}, not ${JSON.stringify(e.data)}`, {
        hint: typeof e.data === "string" ? suggest(e.data, allowed.map((a) => JSON.parse(a) as string)) : undefined,
      });
    }
    case "propertyNames":
      return undefined; // reported through the nested "pattern" error
    case "pattern": {
      if (e.propertyName !== undefined || /\/propertyNames\//.test(e.schemaPath)) {
        const name = String(e.propertyName ?? e.data);
        // Said as what it names: `step "三🎉" is not a valid name` (found by a new-user trial: the kind was missing).
        const section = pointerSegments(ptr).at(-1) ?? "";
        const noun = SECTION_KEYWORDS[section];
        if (isKeyedSection(section)) return keyedNameError(section, noun ?? section, name, valueAt(doc, childPointer(ptr, name)), rangeAt(map, childPointer(ptr, name), fallback, true), where(ptr));
        return diag("invalid_name", rangeAt(map, childPointer(ptr, name), fallback, true), `${where(ptr)}${noun ? `${noun} ` : ""}"${name}" is not a valid name`, {
          hint: ptr.endsWith("adapters") || ptr.endsWith("environments") ? `keys are "<type>.<name>", e.g. "shell.default"` : "names start with a letter or _ and hold letters, digits, _ and - (any script)",
        });
      }
      return diag("invalid_name", rangeAt(map, ptr, fallback), `${where(ptr)}"${String(e.data)}" is not a valid name`, { hint: "names start with a letter or _ and hold letters, digits, _ and - (any script)" });
    }
    case "minLength": {
      // Ajv's "must NOT have fewer than 1 characters" read as the schema's wording (found by a new-user trial).
      const limit = (e.params as { limit: number }).limit;
      // An item of a list is said as which item of which field, never by its index (`"0" must not be empty`: a new-user trial).
      const list = /^\d+$/.test(field) ? pointerSegments(ptr).at(-2) : undefined;
      if (list !== undefined && limit === 1) {
        return diag("invalid_value", rangeAt(map, ptr, fallback), `${where(ptr.slice(0, ptr.lastIndexOf("/")))}item ${Number(field) + 1} of "${list}" is empty`, { hint: `write what it names, or remove the empty item from "${list}"` });
      }
      return diag("invalid_value", rangeAt(map, ptr, fallback), `${where(ptr)}"${field}" ${limit === 1 ? "must not be empty" : `must be at least ${limit} characters long`}`, {
        // Not "or leave it out": a required field left out is an error too (found by a new-user trial: subworkflow source = "").
        hint: limit === 1 ? "give it a value" : `write at least ${limit} characters`,
      });
    }
    case "minItems": {
      const limit = (e.params as { limit: number }).limit;
      return diag("invalid_value", rangeAt(map, ptr, fallback), `${where(ptr)}"${field}" ${limit === 1 ? "must not be an empty list" : `must hold at least ${limit} items`}`, {
        hint: limit === 1 ? `list at least one item, or leave "${field}" out` : `list at least ${limit} items`,
      });
    }
    case "uniqueItems": {
      // Ajv's "must NOT have duplicate items (items ## 1 and 0 are identical)", said at the repeat.
      const { i, j } = e.params as { i: number; j: number };
      return diag("invalid_value", rangeAt(map, childPointer(ptr, String(Math.max(i, j))), rangeAt(map, ptr, fallback)), `${where(ptr)}"${field}" lists ${JSON.stringify((e.data as unknown[])[i])} twice (items ${Math.min(i, j) + 1} and ${Math.max(i, j) + 1})`, {
        hint: "list each item once: remove the repeat",
      });
    }
    case "minimum":
    case "maximum": {
      const limit = (e.params as { limit?: number }).limit;
      const hint = limit !== undefined ? `use ${e.keyword === "minimum" ? "at least" : "at most"} ${limit}` : undefined;
      return diag("invalid_value", rangeAt(map, ptr, fallback), `${where(ptr)}"${field}" ${e.message ?? "is out of range"}`, { hint });
    }
    default:
      return diag("invalid_value", rangeAt(map, ptr, fallback), `${where(ptr)}${e.message ?? "invalid value"}`, { hint: "docs/language.md says what this field takes" });
  }
}
