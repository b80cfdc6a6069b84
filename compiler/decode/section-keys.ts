import type { JsonValue } from "../parse/document.js";
import { BUILT_IN_ADAPTER_TYPES } from "../resolve/adapter-fields.js";
import { ENVIRONMENT_TYPES } from "../check/check-environments.js";

/** The YAML/JSON sections keyed `<type>.<name>` (data: `<kind>.<name>`), as HCL's two labels. */
export type KeyedSection = "adapters" | "environments" | "data";

/** The fields of one entry of each section (schema/workflow.schema.json's definitions). */
const FIELDS: Record<KeyedSection, readonly string[]> = {
  adapters: ["on_crash", "config", "environment", "source", "version", "secrets"],
  environments: ["variables", "config"],
  data: ["type", "value", "description"],
};

/** The first part each section's keys may have: built-in adapter types, environment types, data kinds. */
const TYPES: Record<KeyedSection, readonly string[]> = {
  adapters: BUILT_IN_ADAPTER_TYPES,
  environments: ENVIRONMENT_TYPES,
  data: ["internal"],
};

const NAME = /^[\p{ID_Start}_][\p{ID_Continue}-]*$/u;

/** Whether `section` (a pointer's last segment) is one of the sections keyed `<type>.<name>`. */
export function isKeyedSection(section: string): section is KeyedSection {
  return section === "adapters" || section === "environments" || section === "data";
}

/** One key a dotless key was meant as: `key` (`shell.default`), its value at `sub` below the written key's (`default`), or the written key's own value. */
export interface MeantKey {
  key: string;
  sub?: string;
}

/** How a dotless key of a keyed section was written: nested (`shell: { default: {} }`), joined (`shelldefault`), kindless data (`counter`), or none of these. */
export type DotlessForm = "nested" | "joined" | "kindless" | undefined;

/**
 * What a key without a dot in `adapters`, `environments` or `data` was meant as (found
 * by a new-user trial: each was only "not a valid name", with follow-on errors):
 * - nested, as YAML nests (`shell: { default: {} }`, `internal: { counter: {...} }`):
 *   a mapping none of whose keys is a field of the entry, each holding a mapping →
 *   one key per inner entry (`shell.default`);
 * - joined (`shelldefault`, `shell_ci`): a known type and a name → that type and name;
 * - a data value with no kind (`counter`) → `internal.counter`, the one kind there is.
 * Empty when none of these fits (the key then names nothing).
 */
export function meantKeys(section: KeyedSection, key: string, value: JsonValue | undefined): { form: DotlessForm; keys: MeantKey[] } {
  if (key.includes(".")) return { form: undefined, keys: [] };
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const inner = Object.entries(value);
    if (inner.length > 0 && inner.every(([k, v]) => !FIELDS[section].includes(k) && NAME.test(k) && (v === null || (typeof v === "object" && !Array.isArray(v))))) {
      return { form: "nested", keys: inner.map(([k]) => ({ key: `${key}.${k}`, sub: k })) };
    }
  }
  if (section === "data") return NAME.test(key) ? { form: "kindless", keys: [{ key: `internal.${key}` }] } : { form: undefined, keys: [] };
  const type = [...TYPES[section]].sort((a, b) => b.length - a.length).find((t) => key.startsWith(t) && key.length > t.length);
  const rest = type === undefined ? "" : key.slice(type.length).replace(/^[-_]/, "");
  return type !== undefined && NAME.test(rest) ? { form: "joined", keys: [{ key: `${type}.${rest}` }] } : { form: undefined, keys: [] };
}
