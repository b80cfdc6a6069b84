import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { jsonObject, type JsonObject, type JsonValue } from "../parse/document.js";
import { childPointer, type SourceMap } from "../parse/source-map.js";
import { pointerSegments } from "./describe.js";
import { NAMED_SECTIONS } from "./lower-hcl.js";



/**
 * Merges the canonical documents of several files of one directory into one workflow
 * (docs/architecture.md, The compiler: Load; the Go tool's "directory of several files"): named
 * sections are unioned, a name declared in two files is `duplicate_name` (pointing at
 * both), a second header or singleton block is `duplicate_block`. Source entries go
 * along with the values that win. Linear in the total size.
 */
export function mergeDocuments(parts: { doc: JsonObject; map: SourceMap }[]): { doc: JsonObject; map: SourceMap; diagnostics: Diagnostic[] } {
  if (parts.length === 1) return { ...parts[0], diagnostics: [] };
  const doc: JsonObject = jsonObject();
  const map: SourceMap = new Map();
  const diagnostics: Diagnostic[] = [];
  for (const part of parts) {
    const taken = new Set<string>(); // "/section/name" or "/key" prefixes this part contributes
    for (const [key, value] of Object.entries(part.doc)) {
      const kp = childPointer("", key);
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
  return { doc, map, diagnostics };
}

function isObj(v: JsonValue): v is JsonObject {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
