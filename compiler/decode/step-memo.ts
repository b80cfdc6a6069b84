/**
 * Decoding a step again when its block did not change (the issue "See and edit": a language
 * server compiles a 500-step file on every keystroke, and decoding every step was ~18% of an
 * edit). An edited HCL file is re-parsed block by block (compiler/load/reparse-hcl.ts): every
 * block but the edited one keeps its parsed object, and its source-map entries keep their
 * places when the edit did not move them (it came after the block, or replaced text with as
 * much). A step decoded from such an object, standing where it stood, is the one decoded
 * before. (A block the edit moved is decoded again: a copy of the earlier decoding with its
 * positions moved was measured as dear as decoding, which shares the map's ranges.)
 *
 * Shapes: the memo maps a step's file and pointer to the parsed object it was last decoded
 * from (`o` of `Decoder.step`, never changed once parsed), what decoding it gave (the step,
 * the diagnostics it said) and where its block and its label started. Only steps whose
 * decoding depends on nothing but their object and its source map are kept: not one with a
 * body (inline, or a `workflow_file` the module decoder fills in afterwards).
 */
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import type { Position, Range } from "../diagnostics/range.js";
import type { JsonObject } from "../parse/document.js";
import type { StepSpec } from "./spec.js";

/** What decoding one step gave, from which parsed object, and where its block stood then. */
interface Decoded {
  o: JsonObject;
  range: Range;
  nameRange: Range;
  step: StepSpec;
  diagnostics: Diagnostic[];
}

/**
 * By file and pointer, the last decoding there (a WeakMap keyed by the object cost every
 * typed character more in the collector's ephemeron work than the hits saved). Started
 * again empty past {@link MEMO_LIMIT} entries: a batch validate of many files keeps no more.
 */
const memo = new Map<string, Decoded>();

/** Steps kept at most; past it the memo starts again empty. */
export const MEMO_LIMIT = 20_000;

/**
 * The step decoded from `o` at `ptr`, its block now at `at`: the earlier decoding of the same
 * object when its block and its label start where they did (same file, offset, line and
 * columns); else `decode()`'s, kept for the next time when the step has no body.
 * @param decode decodes the step, returning it and the diagnostics it said
 * @returns the step and its diagnostics (shared with the memo and earlier compilations:
 *   read-only, as every decoded spec is)
 */
export function memoStep(o: JsonObject, ptr: string, at: { range: Range; nameRange: Range }, decode: () => { step: StepSpec; diagnostics: Diagnostic[] }): { step: StepSpec; diagnostics: Diagnostic[] } {
  const key = `${at.range.file}\u0000${ptr}`;
  const hit = memo.get(key);
  if (hit && hit.o === o && samePlace(hit.range.start, at.range.start) && samePlace(hit.nameRange.start, at.nameRange.start)) return hit;
  const fresh = decode();
  if (!fresh.step.body && fresh.step.target?.kind !== "file" && o.workflow === undefined) {
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(key, { o, range: at.range, nameRange: at.nameRange, ...fresh });
  }
  return fresh;
}

function samePlace(a: Position, b: Position): boolean {
  return a.offset === b.offset && a.line === b.line && a.column === b.column && a.utf16Column === b.utf16Column;
}
