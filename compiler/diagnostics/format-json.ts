import type { UseGraph } from "../load/use-graph.js";
import type { Diagnostic } from "./diagnostic.js";
import type { Range } from "./range.js";

/**
 * The `--format json` report (docs/architecture.md, The command line): one object
 * `{valid, error_count, warning_count, diagnostics[{severity, code, message, range, hint?}]}`,
 * with `range = {file, start{line, column}, end{line, column}}` (1-based).
 */
export interface JsonReport {
  valid: boolean;
  error_count: number;
  warning_count: number;
  files: string[];
  diagnostics: {
    severity: Diagnostic["severity"];
    code: Diagnostic["code"];
    message: string;
    hint?: string;
    range: JsonRange;
    /** Other places that explain it: the first declaration of a duplicate, a used flow's own first problem, ... */
    related?: { message: string; range: JsonRange }[];
  }[];
  /** The module graph of each PATH (`use`, `subworkflow`, `workflow_file` edges; `validate --verbose`). */
  use_graph?: UseGraph[];
  /**
   * Each PATH given, in order (as `use_graph`'s entries are), with its own result: what the
   * text output's `PATH: ok` / `PATH: N errors` lines say (a missing PATH has no file,
   * so `files` alone could not say which PATH failed: found by a new-user trial of CI use).
   */
  paths?: { path: string; valid: boolean; error_count: number; warning_count: number }[];
}

/** A range in the report: 1-based line and column. */
export interface JsonRange {
  file: string;
  start: { line: number; column: number };
  end: { line: number; column: number };
}

/** Builds the JSON report for already sorted diagnostics (and the use graph and result of each PATH). */
export function toJsonReport(files: string[], ds: readonly Diagnostic[], useGraphs?: UseGraph[], paths?: { path: string; diagnostics: readonly Diagnostic[] }[]): JsonReport {
  const errors = ds.filter((d) => d.severity === "error").length;
  return {
    valid: errors === 0,
    error_count: errors,
    warning_count: ds.length - errors,
    files,
    diagnostics: ds.map((d) => ({
      severity: d.severity,
      code: d.code,
      message: d.message,
      ...(d.hint ? { hint: d.hint } : {}),
      range: jsonRange(d.range),
      ...(d.related ? { related: d.related.map((r) => ({ message: r.message, range: jsonRange(r.range) })) } : {}),
    })),
    ...(useGraphs ? { use_graph: useGraphs } : {}),
    ...(paths
      ? {
          paths: paths.map((p) => {
            const e = p.diagnostics.filter((d) => d.severity === "error").length;
            return { path: p.path, valid: e === 0, error_count: e, warning_count: p.diagnostics.length - e };
          }),
        }
      : {}),
  };
}

function jsonRange(r: Range): JsonRange {
  return { file: r.file, start: { line: r.start.line, column: r.start.column }, end: { line: r.end.line, column: r.end.column } };
}
