import type { SourceFile } from "../diagnostics/source-file.js";
import type { SourceMap } from "./source-map.js";

/** A plain JSON value: what both dialects parse to. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/**
 * One parsed file: its plain value, where each value came from, and its dialect.
 * For HCL the value is hcl2json's JSON (blocks as label-keyed arrays); for YAML/JSON
 * it is the document as written.
 */
export interface ParsedFile {
  file: SourceFile;
  dialect: "hcl" | "yaml";
  value: JsonValue;
  map: SourceMap;
}

/**
 * A new JSON object with no prototype: keys such as `__proto__` or `constructor` in a
 * user's file are plain data, never inherited properties.
 */
export function jsonObject(): JsonObject {
  return Object.create(null) as JsonObject;
}

/**
 * A constant lookup table safe to index with user-written names: no prototype, so
 * `table["constructor"]` is undefined rather than Object's constructor.
 */
export function lookupTable<T>(entries: Record<string, T>): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, entries);
}

/** The deepest nesting of values accepted in any dialect. */
export const MAX_DEPTH = 64;
