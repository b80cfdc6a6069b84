import { parseDuration } from "../decode/durations.js";
import { describeValue, formatNumber, isObject, type Value } from "../expr/value.js";

/**
 * The built-in adapters' `config` and step `input` fields: one description (name, kind, doc)
 * that both sides read, so they cannot drift (found by a new-user trial: `timout` and
 * `max_output_bytes = "lots"` in a shell config passed validate, then failed the step):
 * - the adapters read their values with it (engine/adapters/config.ts `readField`), and
 * - `criteria validate` refuses unknown keys and literal values of the wrong kind
 *   (compiler/check/check-adapter-fields.ts) with the very sentence the run would give;
 * - docs/language.md's table of adapter fields is generated from it (test/docs.test.ts).
 * A type that is not built in is a plugin: its fields are its own, never checked.
 */

/** The adapter types criteria runs in-process (engine/adapters/registry.ts serves these). */
export const BUILT_IN_ADAPTER_TYPES = ["noop", "shell", "local", "claude", "copilot", "codex"] as const;

/** One of {@link BUILT_IN_ADAPTER_TYPES}. */
export type BuiltInAdapterType = (typeof BUILT_IN_ADAPTER_TYPES)[number];

/** What each kind of field reads as. */
export interface FieldKinds {
  /** Any string. */
  string: string;
  /** A string that is not empty (or only blanks). */
  text: string;
  /** A whole non-negative number; a numeric string is accepted. */
  count: number;
  /** Milliseconds, from a duration string: `"30s"`, `"1m30s"`, `"250ms"` (as a step's `timeout`). */
  duration: number;
  /** A map of environment variables: strings, numbers and bools (converted as HCL converts them). */
  env: Record<string, string>;
  /** A list of strings; one string is a one-element list. */
  strings: string[];
  /** true or false. */
  bool: boolean;
  /** One of the field's `choices`. */
  choice: string;
}

/** The name of a kind of field. */
export type FieldKind = keyof FieldKinds;

/** One field of an adapter's config or of a step's input. */
export interface FieldSpec<K extends FieldKind = FieldKind> {
  kind: K;
  /** What it does, one sentence (shown in docs/language.md). */
  doc: string;
  /** A value as HCL writes it, for hints (`"30s"`, `65536`). */
  example: string;
  /** For kind `choice`: the strings allowed. */
  choices?: readonly string[];
  /** A step without it cannot run (`error`), or older files leave it out (`warning`). Input fields only. */
  required?: "error" | "warning";
}

/** A built-in adapter's fields. */
export interface AdapterFields {
  config: Readonly<Record<string, FieldSpec>>;
  /**
   * Other config keys are accepted and ignored: the noop adapter ignores its config, and the
   * agent CLIs' Go-era files set keys of the Go tool's adapters (`max_turns`,
   * `reasoning_effort`; its adapters guide). Validate still says when one is a typo of a field.
   */
  openConfig: boolean;
  input: Readonly<Record<string, FieldSpec>>;
  /**
   * Other input keys are accepted and not read (noop echoes its input as its output; files
   * label a step's items with them; the step's input is journaled whole). Validate still says
   * when one is a typo of a field.
   */
  openInput: boolean;
}

const TIMEOUT = {
  kind: "duration",
  doc: 'Time limit of each step, a duration such as "30s", "5m" or "250ms" (a step\'s own `timeout` wins; default: none).',
  example: '"30s"',
} as const satisfies FieldSpec;
const ENV = { kind: "env", doc: "Extra environment variables of the processes it starts (strings; numbers and bools are converted).", example: '{ CI = "true" }' } as const satisfies FieldSpec;
const MAX_OUTPUT_BYTES = { kind: "count", doc: "Bytes kept of stdout and of stderr, each: the last ones (default 1048576, 1 MiB).", example: "65536" } as const satisfies FieldSpec;
const CWD_CONFIG = { kind: "string", doc: "Working directory, relative to the workflow's directory (default: that directory).", example: '"./src"' } as const satisfies FieldSpec;
const CWD_INPUT = { kind: "string", doc: "This step's working directory, relative to the workflow's directory (default: config `cwd`).", example: '"./src"' } as const satisfies FieldSpec;

/** The `shell` adapter (engine/adapters/shell.ts). */
export const SHELL_FIELDS = {
  config: {
    shell: { kind: "string", doc: "The shell each command runs with, as `<shell> -c <command>` (default /bin/sh).", example: '"/bin/bash"' },
    env: ENV,
    cwd: CWD_CONFIG,
    timeout: TIMEOUT,
    max_output_bytes: MAX_OUTPUT_BYTES,
  },
  openConfig: false,
  input: {
    command: { kind: "text", doc: "The command line to run with `<shell> -c`.", example: '"make test"', required: "error" },
    cwd: CWD_INPUT,
  },
  // Files label their items with keys the shell does not read (`label = each.key`).
  openInput: true,
} as const satisfies AdapterFields;

/** The agent CLIs `claude`, `copilot`, `codex` (engine/adapters/agent-cli.ts). */
export const AGENT_CLI_FIELDS = {
  config: {
    command: { kind: "strings", doc: "The CLI's executable, or `[executable, leading args...]` (default: the agent's `cli`, else the adapter type, found on PATH).", example: '["npx", "claude"]' },
    cli: { kind: "string", doc: "The CLI's executable name (an agent's `cli` sets it).", example: '"claude"' },
    args: { kind: "strings", doc: "Extra arguments, after the CLI's own flags.", example: '["--verbose"]' },
    model: { kind: "string", doc: "The model, when the agent declares none.", example: '"gpt-5"' },
    env: ENV,
    cwd: CWD_CONFIG,
    timeout: TIMEOUT,
    max_output_bytes: MAX_OUTPUT_BYTES,
    prompt_via: {
      kind: "choice",
      choices: ["arg", "stdin"],
      doc: 'How the prompt is passed: "arg" or "stdin" (default: an argument; stdin for a prompt over 100 000 bytes or one starting with -).',
      example: '"stdin"',
    },
  },
  openConfig: true,
  input: {
    prompt: { kind: "text", doc: "The text the agent is asked.", example: '"Review the diff"', required: "warning" },
    cwd: CWD_INPUT,
  },
  openInput: true,
} as const satisfies AdapterFields;

/** The `local` scripted agent (engine/adapters/local.ts). */
export const LOCAL_FIELDS = {
  config: {
    script: { kind: "string", doc: "The answers file (JSON or YAML), relative to the workflow's directory; without it, every step fails.", example: '"./answers.json"' },
  },
  openConfig: false,
  input: {},
  openInput: true,
} as const satisfies AdapterFields;

/** The `noop` adapter (engine/adapters/noop.ts). */
export const NOOP_FIELDS = {
  config: {},
  openConfig: true,
  input: {
    result: { kind: "string", doc: "The outcome the step ends in (default success).", example: '"approved"' },
    fail: { kind: "bool", doc: "true: the step ends in failure.", example: "true" },
  },
  openInput: true,
} as const satisfies AdapterFields;

/** Every built-in adapter's fields, by type. */
export const ADAPTER_FIELDS: Readonly<Record<BuiltInAdapterType, AdapterFields>> = {
  noop: NOOP_FIELDS,
  shell: SHELL_FIELDS,
  local: LOCAL_FIELDS,
  claude: AGENT_CLI_FIELDS,
  copilot: AGENT_CLI_FIELDS,
  codex: AGENT_CLI_FIELDS,
};

/** The fields of `type`, or undefined when it is not built in (a plugin's fields are its own). */
export function adapterFields(type: string): AdapterFields | undefined {
  return (BUILT_IN_ADAPTER_TYPES as readonly string[]).includes(type) ? ADAPTER_FIELDS[type as BuiltInAdapterType] : undefined;
}

/**
 * A field's value read by its kind: `{ ok: true, value }`, or `{ ok: false, problem }` with a
 * sentence (`expected a whole non-negative number, got string "lots"`) and whether the value is of
 * the wrong type (`invalid_type`) or of the right type but not allowed (`invalid_value`: an
 * empty command, a duration without a unit, a choice not offered). `null` is never given here
 * (readers treat it as absent).
 */
export function readFieldValue<K extends FieldKind>(spec: FieldSpec<K>, v: Value): { ok: true; value: FieldKinds[K] } | { ok: false; problem: string; wrongType: boolean } {
  const r = read(spec, v);
  return r.ok ? { ok: true, value: r.value as FieldKinds[K] } : r;
}

function read(spec: FieldSpec, v: Value): { ok: true; value: FieldKinds[FieldKind] } | { ok: false; problem: string; wrongType: boolean } {
  const bad = (problem: string, wrongType = true) => ({ ok: false as const, problem, wrongType });
  switch (spec.kind) {
    case "string":
      return typeof v === "string" ? { ok: true, value: v } : bad(`expected a string, got ${describeValue(v)}`);
    case "text":
      if (typeof v !== "string") return bad(`expected a non-empty string, got ${describeValue(v)}`);
      return v.trim() !== "" ? { ok: true, value: v } : bad("expected a non-empty string, got an empty one", false);
    case "count": {
      const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : NaN;
      // Whole: a byte count of 1.5 reached Buffer.concat and crashed the run (a new-user trial).
      if (Number.isInteger(n) && n >= 0) return { ok: true, value: n };
      return bad(`expected a whole non-negative number, got ${describeValue(v)}`, typeof v !== "number");
    }
    case "duration": {
      if (typeof v === "string") {
        const ms = parseDuration(v);
        if (ms === undefined) return bad(`expected a duration such as "30s", "5m" or "250ms", got ${describeValue(v)}`, false);
        // Under a millisecond ("0s", "300us"): every step would time out at once, as a step's own
        // timeout of "0s" is refused for (found by a new-user trial).
        return ms >= 1 ? { ok: true, value: ms } : bad(`a duration of ${JSON.stringify(v)} would end the work before it starts: give at least 1ms`, false);
      }
      // A bare number has no unit: refused, as a step's `timeout = 30` is.
      return bad(`expected a duration such as "30s" (a quoted string with a unit), got ${describeValue(v)}`);
    }
    case "env": {
      if (!isObject(v)) return bad(`expected a map of strings, got ${describeValue(v)}`);
      const out: Record<string, string> = {};
      for (const [k, x] of Object.entries(v)) {
        if (typeof x === "string") out[k] = x;
        else if (typeof x === "number") out[k] = formatNumber(x);
        else if (typeof x === "boolean") out[k] = String(x);
        else return bad(`expected a map of strings, but ${JSON.stringify(k)} is ${describeValue(x)}`);
      }
      return { ok: true, value: out };
    }
    case "strings":
      if (typeof v === "string") return { ok: true, value: [v] };
      if (Array.isArray(v) && v.every((x) => typeof x === "string")) return { ok: true, value: v as string[] };
      return bad(`expected a list of strings, got ${describeValue(v)}`);
    case "bool":
      return typeof v === "boolean" ? { ok: true, value: v } : bad(`expected true or false, got ${describeValue(v)}`);
    case "choice": {
      const choices = spec.choices ?? [];
      const list = choices.map((c) => JSON.stringify(c)).join(" or ");
      if (typeof v !== "string") return bad(`expected ${list}, got ${describeValue(v)}`);
      return choices.includes(v) ? { ok: true, value: v } : bad(`expected ${list}, got ${describeValue(v)}`, false);
    }
  }
}

/** An outcome a built-in adapter ends a step in by itself, and when. */
export interface BuiltInOutcome {
  name: string;
  /** `when the command exits 0` */
  when: string;
}

/**
 * The outcomes a step on a built-in adapter ends in by itself (docs/language.md, Adapters),
 * given its input's literal values (`input(key)`: `{ known: false }` for a value known only at
 * run time); undefined when they are not known before the run: an agent or a script names its
 * outcome, and a noop step's `input.result` may be an expression.
 * - `shell`: `success` when the command exits 0, `failure` otherwise. (A script may also
 *   choose another declared outcome with a `CRITERIA_OUTCOME=<name>` line: those are its own.)
 * - `noop`: `failure` when `input.fail` is true, else `input.result`, else `success`.
 */
export function builtInOutcomes(type: string, input: (key: string) => { known: boolean; value?: Value }): BuiltInOutcome[] | undefined {
  if (type === "shell") return [{ name: "success", when: "when the command exits 0" }, { name: "failure", when: "when it exits non-zero" }];
  if (type !== "noop") return undefined;
  const fail = input("fail");
  const result = input("result");
  if (!fail.known) return undefined;
  if (fail.value === true) return [{ name: "failure", when: "as its input.fail is true" }];
  if (!result.known) return undefined;
  if (typeof result.value === "string") return [{ name: result.value, when: "as its input.result says" }];
  return [{ name: "success", when: "as its input sets no result" }];
}
