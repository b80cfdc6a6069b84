import { readFieldValue, type FieldKinds, type FieldSpec } from "../../compiler/resolve/adapter-fields.js";
import type { Value } from "../../compiler/expr/value.js";

/**
 * Reading adapter session `config` values (and step `input` fields) by their description in
 * compiler/resolve/adapter-fields.ts, the one `criteria validate` checks literals against.
 * A reader returns the value, `undefined` when the key is absent or null, or throws
 * `ConfigError` with a sentence naming the key when the value is not of the field's kind.
 * Adapters catch `ConfigError` and report it as an `adapter_error`, so a value known only at
 * run time fails the step (its `failure` outcome takes it), never the engine.
 */
export class ConfigError extends Error {}

/**
 * The value of field `name` of `fields` in `obj`, read by the field's kind (`timeout` in
 * milliseconds, `env` as strings, ...).
 * @param where `config` or `input`: how the key is named in an error (`config.timeout: ...`)
 * @throws ConfigError when the value is not of the field's kind
 */
export function readField<F extends Readonly<Record<string, FieldSpec>>, N extends keyof F & string>(
  obj: Record<string, Value>,
  fields: F,
  name: N,
  where: "config" | "input",
): FieldKinds[F[N]["kind"]] | undefined {
  const v = obj[name];
  if (v === undefined || v === null) return undefined;
  const r = readFieldValue(fields[name] as FieldSpec<F[N]["kind"]>, v);
  if (!r.ok) throw new ConfigError(`${where}.${name}: ${r.problem}`);
  return r.value;
}

/**
 * Like {@link readField}, for a field a step cannot do without.
 * @throws ConfigError `input.command is required: <the field's doc>` when absent, or as readField
 */
export function requireField<F extends Readonly<Record<string, FieldSpec>>, N extends keyof F & string>(
  obj: Record<string, Value>,
  fields: F,
  name: N,
  where: "config" | "input",
): FieldKinds[F[N]["kind"]] {
  const v = readField(obj, fields, name, where);
  if (v === undefined) throw new ConfigError(`${where}.${name} is required: ${fields[name].doc.replace(/\.$/, "").replace(/^./, (c) => c.toLowerCase())}`);
  return v;
}
