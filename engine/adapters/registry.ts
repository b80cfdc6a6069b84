import { BUILT_IN_ADAPTER_TYPES } from "../../compiler/resolve/adapter-fields.js";
import type { Adapter } from "./adapter.js";
import { createAgentCliAdapter, isAgentCliType, type AgentCliAdapterOptions } from "./agent-cli.js";
import { localAdapter } from "./local.js";
import { noopAdapter } from "./noop.js";
import { ProcessAdapter, type ProcessAdapterOptions } from "./process-adapter.js";
import { createShellAdapter, type ShellAdapterOptions } from "./shell.js";

/**
 * Adapter types by name: the built-ins (`noop`, `shell`, `local`, `claude`, `copilot`,
 * `codex`) and, for any other name, an out-of-process adapter `criteria-adapter-<type>`
 * (process-adapter.ts). Looking a type up never fails: a missing executable is reported
 * when a session of it executes a step (`adapter_error`).
 */

/** The built-in adapter types (one list, the compiler's: it knows their outputs). */
export const BUILT_IN_TYPES = BUILT_IN_ADAPTER_TYPES;

/** True when `type` is served in-process (no `criteria-adapter-<type>` needed). */
export function isBuiltIn(type: string): boolean {
  return (BUILT_IN_TYPES as readonly string[]).includes(type);
}

/**
 * Options passed to the adapters `adapterFor` makes; all optional. `baseEnv` (default
 * `process.env`) is the environment child processes start from and where PATH,
 * CRITERIA_PLUGINS are read; `killGraceMs` (default 2000) is the SIGTERM→SIGKILL grace;
 * `onStderr` receives out-of-process adapters' stderr lines.
 */
export interface AdapterOptions extends Omit<ProcessAdapterOptions, "executable">, ShellAdapterOptions, AgentCliAdapterOptions {}

const defaults = new Map<string, Adapter>();

/**
 * The adapter for `type`. Without `opts`, the same instance is returned for the same type
 * (adapters hold no state; sessions do), so calling this per step is cheap.
 */
export function adapterFor(type: string, opts?: AdapterOptions): Adapter {
  if (opts === undefined) {
    let a = defaults.get(type);
    if (!a) defaults.set(type, (a = make(type, {})));
    return a;
  }
  return make(type, opts);
}

function make(type: string, opts: AdapterOptions): Adapter {
  if (type === "noop") return noopAdapter;
  if (type === "local") return localAdapter;
  if (type === "shell") return createShellAdapter(opts);
  if (isAgentCliType(type)) return createAgentCliAdapter(type, opts);
  return new ProcessAdapter(type, opts);
}
