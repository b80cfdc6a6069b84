import type { StepSpec } from "../decode/spec.js";

/**
 * What a `shell` step's output holds (engine/adapters/shell.ts; docs/language.md, Adapters):
 * the keys `steps.<step>.*` may read of it (found by a trial of the Go tool's language:
 * `steps.a.stdot` validated, then failed at run time). A step on a plugin or an agent may
 * give anything, so only this built-in's keys are known.
 */
export const SHELL_OUTPUT_KEYS: readonly string[] = ["exit_code", "stdout", "stderr", "stdout_truncated", "stderr_truncated", "stdout_binary", "stderr_binary"];

/** The type of each key of a `shell` step's output ({@link SHELL_OUTPUT_KEYS}), as engine/adapters/shell.ts gives it. */
export const SHELL_OUTPUT_TYPES: Readonly<Record<string, string>> = {
  exit_code: "number",
  stdout: "string",
  stderr: "string",
  stdout_truncated: "bool",
  stderr_truncated: "bool",
  stdout_binary: "bool",
  stderr_binary: "bool",
};

/** Whether a step's target is the built-in `shell` adapter, whose output is known ({@link SHELL_OUTPUT_KEYS}). */
export function runsOnShell(target: StepSpec["target"]): boolean {
  return target?.kind === "adapter" && target.type === "shell";
}

/**
 * The declared type of output `key` of `step` (a type's text, `string`, `list(string)`), when
 * one alone gives it: a shell step's ({@link SHELL_OUTPUT_TYPES}), else the one `declared`
 * gives it (a called module's outputs, or a body's), unless a `return` of that module may give
 * the key (`returnKeys`). Undefined when an outcome's projection may give it, or nothing says.
 * Whether the step iterates is the caller's to weigh (its items each give this type).
 */
export function outputTypeOf(step: StepSpec, key: string, declared: readonly { name: string; type?: string }[] | undefined, returnKeys: readonly string[] = []): string | undefined {
  if (step.outcomes.some((o) => o.outputExpr || Object.prototype.hasOwnProperty.call(o.output, key))) return undefined;
  if (runsOnShell(step.target)) return SHELL_OUTPUT_TYPES[key];
  if (returnKeys.includes(key)) return undefined;
  return declared?.find((o) => o.name === key)?.type;
}
