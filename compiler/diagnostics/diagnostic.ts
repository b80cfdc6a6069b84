import { CODES, type Code, type Severity } from "./codes.js";
import type { Range } from "./range.js";
import { hintFor } from "./dialect-hint.js";

/**
 * One problem found in the user's files. Every diagnostic has a range: there is no
 * position-less diagnostic (docs/architecture.md, The compiler: Parse).
 *
 * Shape follows HCL's `Diagnostic {severity, summary, detail, subject}` and actionlint's
 * flat error: `message` is one sentence naming the thing at fault; `hint` says what to do.
 */
export interface Diagnostic {
  severity: Severity;
  code: Code;
  /** One sentence, e.g. `step "execute": unknown agent "executr"`. */
  message: string;
  /** The subject: the exact token or expression at fault. */
  range: Range;
  /** What to do about it, e.g. `did you mean "executor"?`. */
  hint?: string;
  /** Other places that explain it (the first declaration of a duplicate, ...). */
  related?: { message: string; range: Range }[];
}

/**
 * Makes a diagnostic with the code's default severity; its hint in the dialect of its file
 * (dialect-hint.ts), or of `extra.hintIn` when the hint says to edit another file (a
 * caller told to add to its module's `expects`).
 * @param extra optional hint, the file it is about, related ranges, or a severity override
 */
export function diag(
  code: Code,
  range: Range,
  message: string,
  extra: { hint?: string; hintIn?: string; related?: Diagnostic["related"]; severity?: Severity } = {},
): Diagnostic {
  const d: Diagnostic = { severity: extra.severity ?? CODES[code].severity, code, message, range };
  // Worded in HCL by the checks; said in YAML or JSON for a file written in one.
  if (extra.hint) d.hint = hintFor(extra.hintIn ?? range.file, extra.hint);
  if (extra.related && extra.related.length > 0) d.related = extra.related;
  return d;
}

/** The result of every compiler stage: a (possibly partial) value and its diagnostics. */
export interface Result<T> {
  value: T;
  diagnostics: Diagnostic[];
}

/** True when any diagnostic is an error. */
export function hasErrors(ds: readonly Diagnostic[]): boolean {
  return ds.some((d) => d.severity === "error");
}
