import type { Diagnostic } from "./diagnostic.js";

/**
 * The `--format json` report (DESIGN.md, CLI conventions): one object
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
    range: { file: string; start: { line: number; column: number }; end: { line: number; column: number } };
  }[];
}

/** Builds the JSON report for already sorted diagnostics. */
export function toJsonReport(files: string[], ds: readonly Diagnostic[]): JsonReport {
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
      range: {
        file: d.range.file,
        start: { line: d.range.start.line, column: d.range.start.column },
        end: { line: d.range.end.line, column: d.range.end.column },
      },
    })),
  };
}
