import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { Range } from "../diagnostics/range.js";
import { jsonObject, type JsonObject, type JsonValue } from "../parse/document.js";
import { childPointer, type SourceMap } from "../parse/source-map.js";
import { pointerSegments } from "./describe.js";
import { NAMED_SECTIONS } from "./lower-hcl.js";
import { noWorkflowError, workflowFields } from "./check-schema.js";

/**
 * Merges the canonical documents of several files of one directory into one workflow
 * (docs/architecture.md, The compiler: Load; the Go tool's "directory of several files"): named
 * sections are unioned, a name declared in two files is `duplicate_name` (pointing at
 * both), a second header or singleton block is `duplicate_block`. Source entries go
 * along with the values that win. A YAML or JSON file none of whose fields a workflow has
 * (a file of variable values) is left out with one error of its own, so that two of
 * them do not collide as duplicates; `noWorkflow` says that every file was one (the
 * workflow's header and states are then not asked for). Linear in the total size.
 */
export function mergeDocuments(parts: { doc: JsonObject; map: SourceMap }[]): { doc: JsonObject; map: SourceMap; diagnostics: Diagnostic[]; noWorkflow: boolean } {
  if (parts.length === 1) return { ...parts[0], diagnostics: [], noWorkflow: false };
  let skipped = 0;
  const doc: JsonObject = jsonObject();
  const map: SourceMap = new Map();
  const diagnostics: Diagnostic[] = [];
  for (const part of parts) {
    const notWorkflow = holdsNoWorkflow(part);
    if (notWorkflow) {
      diagnostics.push(noWorkflowError(notWorkflow.file, notWorkflow.keys, notWorkflow.range, true));
      skipped++;
      continue;
    }
    const taken = new Set<string>(); // "/section/name" or "/key" prefixes this part contributes
    for (const [key, value] of Object.entries(part.doc)) {
      // An extension field (`x-defaults: &defaults`, schema/workflow.schema.json) belongs to its
      // file's anchors: ignored, so two files may each have one of a name.
      if (key.startsWith("x-")) continue;
      const kp = childPointer("", key);
      if (NAMED_SECTIONS.has(key) && !isObj(value) && key in doc) {
        // A section written as something else than its entries: said as the schema says it of
        // one file, not as a duplicate (splitting a section over files is allowed; found by a
        // new-user trial: "keep it in one file" for `steps: 1` beside a file of steps).
        const here = part.map.get(kp);
        if (here) {
          diagnostics.push(
            diag("invalid_type", here.range, `"${key}" must be an object (block), not ${value === null ? "null" : Array.isArray(value) ? "list" : typeof value}`, {
              hint: `write it as a block: ${key} { ... } (in YAML, a mapping); its entries join those the other files of the directory declare`,
            }),
          );
        }
        continue;
      }
      if (NAMED_SECTIONS.has(key) && isObj(value)) {
        const sec = (doc[key] ??= jsonObject()) as JsonObject;
        if (!map.has(kp) && part.map.has(kp)) map.set(kp, part.map.get(kp)!);
        for (const [name, v] of Object.entries(value)) {
          const np = childPointer(kp, name);
          if (name in sec) {
            const first = map.get(np);
            const here = part.map.get(np);
            if (here) {
              diagnostics.push(
                diag("duplicate_name", here.keyRange ?? here.range, `${key.replace(/s$/, "")} "${name}" is declared in more than one file`, {
                  related: first ? [{ message: "first declared here", range: first.keyRange ?? first.range }] : [],
                  hint: "the files of a directory are one workflow: rename one of them, or remove one",
                }),
              );
            }
            continue;
          }
          sec[name] = v;
          taken.add(np);
        }
      } else if (key in doc) {
        const here = part.map.get(kp);
        const first = map.get(kp);
        if (here) {
          diagnostics.push(
            diag("duplicate_block", here.keyRange ?? here.range, `"${key}" is set in more than one file`, {
              related: first ? [{ message: "first set here", range: first.keyRange ?? first.range }] : [],
              hint: "the files of a directory are one workflow: keep it in one file",
            }),
          );
        }
      } else {
        doc[key] = value;
        taken.add(kp);
      }
    }
    for (const [ptr, entry] of part.map) {
      const segs = pointerSegments(ptr);
      if (segs.length === 0) continue;
      const prefix = NAMED_SECTIONS.has(segs[0]) && segs.length >= 2 ? childPointer(childPointer("", segs[0]), segs[1]) : childPointer("", segs[0]);
      if (taken.has(prefix)) map.set(ptr, entry);
    }
    if (!map.has("") && part.map.has("")) map.set("", part.map.get("")!);
  }
  return { doc, map, diagnostics, noWorkflow: skipped === parts.length };
}

/** The file, keys and first key's range of a YAML or JSON part none of whose keys is a workflow field; undefined for any other part. */
function holdsNoWorkflow(part: { doc: JsonObject; map: SourceMap }): { file: string; keys: string[]; range: Range } | undefined {
  const keys = Object.keys(part.doc);
  const first = keys.length > 0 ? part.map.get(childPointer("", keys[0])) : undefined;
  if (!first || /\.c?hcl$/i.test(first.range.file)) return undefined;
  const known = workflowFields();
  if (keys.some((k) => known.has(k))) return undefined;
  return { file: first.range.file, keys, range: first.keyRange ?? first.range };
}

function isObj(v: JsonValue): v is JsonObject {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
