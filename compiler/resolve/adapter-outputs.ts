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
