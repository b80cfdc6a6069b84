import type { JsonValue } from "../parse/document.js";

/**
 * Variable and output types, as Terraform and the Go tool write them: `string`,
 * `number`, `bool`, `any`, `list(T)`, `set(T)`, `map(T)`, `tuple([T, ...])`,
 * `object({name = T, ...})`, whose attributes may be `optional(T)` or `optional(T,
 * default)` (Terraform 1.3; the upstream spec's variable types): absent, they take the
 * default (else null). Written quoted (`type = "list(string)"`) or bare (`type =
 * list(string)`, which hcl2json renders as `${list(string)}`).
 */
export type TypeExpr =
  | { kind: "string" | "number" | "bool" | "any" }
  | { kind: "list" | "set" | "map"; of: TypeExpr }
  | { kind: "tuple"; items: TypeExpr[] }
  | { kind: "object"; fields: Record<string, TypeExpr>; optional?: Record<string, { default: JsonValue }> };

/** The primitive type names, for did-you-mean. */
export const TYPE_NAMES = ["string", "number", "bool", "any", "list", "set", "map", "tuple", "object"];

/**
 * A type as written, bare: v0.5 writes `type = list(string)` unquoted, which hcl2json (and
 * the lowering, after it) renders `${list(string)}`; a quoted `"list(string)"` is as it is.
 * The one place that strips it: decode keeps types bare, and messages show them so.
 */
export function bareType(text: string): string {
  return text.replace(/^\$\{([\s\S]*)\}$/, "$1");
}

/**
 * Parses a type expression.
 * @returns the type, or an error naming what is wrong (`unknown type "strng"`)
 */
export function parseType(text: string): { type?: TypeExpr; error?: string; word?: string } {
  const src = bareType(text.trim());
  let i = 0;
  const fail = (error: string, word?: string) => ({ error, word });
  const skip = () => {
    while (i < src.length && /\s/.test(src[i])) i++;
  };
  const ident = () => {
    skip();
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i));
    if (!m) return undefined;
    i += m[0].length;
    return m[0];
  };
  const eat = (c: string) => (skip(), src[i] === c ? (i++, true) : false);
  /** A default value: a number, a "string", true, false, null, or a list/object of those. */
  const literal = (depth: number): { value?: JsonValue; error?: string } => {
    skip();
    if (depth > 20) return { error: "default nests too deeply" };
    const rest = src.slice(i);
    const num = /^-?\d+(\.\d+)?([eE][-+]?\d+)?/.exec(rest);
    if (num) {
      i += num[0].length;
      return { value: Number(num[0]) };
    }
    const str = /^"(?:[^"\\]|\\.)*"/.exec(rest);
    if (str) {
      i += str[0].length;
      return { value: JSON.parse(str[0]) as string };
    }
    for (const [w, v] of [["true", true], ["false", false], ["null", null]] as const) {
      if (rest.startsWith(w) && !/[A-Za-z0-9_]/.test(rest[w.length] ?? "")) {
        i += w.length;
        return { value: v };
      }
    }
    if (eat("[")) {
      const out: JsonValue[] = [];
      while (!eat("]")) {
        const v = literal(depth + 1);
        if (v.error !== undefined) return v;
        out.push(v.value!);
        if (!eat(",") && (skip(), src[i] !== "]")) return { error: `expected "," or "]" in a default list` };
      }
      return { value: out };
    }
    if (eat("{")) {
      const out: Record<string, JsonValue> = {};
      while (!eat("}")) {
        const k = ident() ?? (() => {
          const q = /^"(?:[^"\\]|\\.)*"/.exec(src.slice(i));
          if (!q) return undefined;
          i += q[0].length;
          return JSON.parse(q[0]) as string;
        })();
        if (k === undefined || !(eat("=") || eat(":"))) return { error: `expected "name = value" in a default object` };
        const v = literal(depth + 1);
        if (v.error !== undefined) return v;
        out[k] = v.value!;
        eat(",");
      }
      return { value: out };
    }
    return { error: `a default must be a literal value, not "${rest.slice(0, 20)}"` };
  };
  const parse = (depth: number): { type?: TypeExpr; error?: string; word?: string } => {
    if (depth > 20) return fail("type nests too deeply");
    const name = ident();
    if (!name) return fail(`expected a type at "${src.slice(i) || "(end)"}"`);
    if (name === "string" || name === "number" || name === "bool" || name === "any") return { type: { kind: name } };
    if (name === "list" || name === "set" || name === "map") {
      if (!eat("(")) return { type: { kind: name, of: { kind: "any" } } };
      const inner = parse(depth + 1);
      if (!inner.type) return inner;
      if (!eat(")")) return fail(`expected ")" after ${name}(...`);
      return { type: { kind: name, of: inner.type } };
    }
    if (name === "tuple") {
      if (!eat("(") || !eat("[")) return fail(`write tuple([T, ...])`);
      const items: TypeExpr[] = [];
      while (!eat("]")) {
        const t = parse(depth + 1);
        if (!t.type) return t;
        items.push(t.type);
        if (!eat(",") && src[i] !== "]") return fail(`expected "," or "]" in tuple(...)`);
      }
      if (!eat(")")) return fail(`expected ")" after tuple([...])`);
      return { type: { kind: "tuple", items } };
    }
    if (name === "object") {
      if (!eat("(")) return { type: { kind: "object", fields: {} } };
      if (!eat("{")) return fail(`write object({name = T, ...})`);
      const fields: Record<string, TypeExpr> = Object.create(null) as Record<string, TypeExpr>;
      const optional: Record<string, { default: JsonValue }> = Object.create(null) as Record<string, { default: JsonValue }>;
      while (!eat("}")) {
        const k = ident();
        if (!k || !(eat("=") || eat(":"))) return fail(`expected "name = type" in object({...})`);
        const at = i;
        if (ident() === "optional" && eat("(")) {
          const t = parse(depth + 1);
          if (!t.type) return t;
          let def: JsonValue = null;
          if (eat(",")) {
            const v = literal(depth + 1);
            if (v.error !== undefined) return fail(`optional(...) of "${k}": ${v.error}`);
            const why = mismatch(t.type, v.value!);
            if (why) return fail(`optional(...) of "${k}": the default ${why}`);
            def = v.value!;
          }
          if (!eat(")")) return fail(`expected ")" after optional(...)`);
          fields[k] = t.type;
          optional[k] = { default: def };
        } else {
          i = at;
          const t = parse(depth + 1);
          if (!t.type) return t;
          fields[k] = t.type;
        }
        eat(",");
      }
      if (!eat(")")) return fail(`expected ")" after object({...})`);
      return { type: { kind: "object", fields, ...(Object.keys(optional).length > 0 ? { optional } : {}) } };
    }
    return fail(`unknown type "${name}"`, name);
  };
  const r = parse(0);
  skip();
  if (r.type && i < src.length) return fail(`unexpected "${src.slice(i)}" after the type`);
  return r;
}

/**
 * Why `value` does not conform to `type` (HCL's automatic conversions allowed:
 * numbers and bools as strings and back), or undefined when it does.
 */
export function mismatch(type: TypeExpr, value: JsonValue, path = ""): string | undefined {
  const at = path ? ` at ${path}` : "";
  const show = JSON.stringify(value)?.slice(0, 40);
  switch (type.kind) {
    case "any":
      return undefined;
    case "string":
      return typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? undefined : `${show} is not a string${at}`;
    case "number":
      return typeof value === "number" || (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) ? undefined : `${show} is not a number${at}`;
    case "bool":
      return typeof value === "boolean" || value === "true" || value === "false" ? undefined : `${show} is not a bool${at}`;
    case "list":
    case "set":
      if (!Array.isArray(value)) return `${show} is not a ${type.kind}${at}`;
      for (let i = 0; i < value.length; i++) {
        const m = mismatch(type.of, value[i], `${path}[${i}]`);
        if (m) return m;
      }
      return undefined;
    case "tuple":
      if (!Array.isArray(value) || value.length !== type.items.length) return `${show} is not a tuple of ${type.items.length}${at}`;
      for (let i = 0; i < value.length; i++) {
        const m = mismatch(type.items[i], value[i], `${path}[${i}]`);
        if (m) return m;
      }
      return undefined;
    case "map":
      if (value === null || typeof value !== "object" || Array.isArray(value)) return `${show} is not a map${at}`;
      for (const [k, v] of Object.entries(value)) {
        const m = mismatch(type.of, v, `${path}.${k}`);
        if (m) return m;
      }
      return undefined;
    case "object": {
      if (value === null || typeof value !== "object" || Array.isArray(value)) return `${show} is not an object${at}`;
      for (const [k, t] of Object.entries(type.fields)) {
        if (!Object.prototype.hasOwnProperty.call(value, k) || (value[k] === null && type.optional?.[k])) {
          if (type.optional?.[k]) continue;
          return `missing attribute "${k}"${at}`;
        }
        const m = mismatch(t, value[k], `${path}.${k}`);
        if (m) return m;
      }
      return undefined;
    }
  }
}

/**
 * `value` converted to `type`, at every depth, as HCL converts (Terraform's variable
 * type conversion): `"3"` → 3 and `"true"` → true where a number or bool is declared,
 * numbers and bools → strings where a string is; an object keeps only its declared
 * attributes (others are dropped), and an absent or null `optional(T, default)`
 * attribute takes its default (converted too), `optional(T)` null. Call after
 * {@link mismatch} found no problem; what does not convert is returned as it is.
 */
export function convert(type: TypeExpr, value: JsonValue): JsonValue {
  if (value === null) return value;
  switch (type.kind) {
    case "any":
      return value;
    case "string":
      return typeof value === "number" || typeof value === "boolean" ? String(value) : value;
    case "number":
      return typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value)) ? Number(value) : value;
    case "bool":
      return value === "true" ? true : value === "false" ? false : value;
    case "list":
    case "set":
      return Array.isArray(value) ? value.map((v) => convert(type.of, v)) : value;
    case "tuple":
      return Array.isArray(value) ? value.map((v, i) => (type.items[i] ? convert(type.items[i], v) : v)) : value;
    case "map":
      return typeof value === "object" && !Array.isArray(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, convert(type.of, v)])) : value;
    case "object": {
      if (typeof value !== "object" || Array.isArray(value)) return value;
      const out: Record<string, JsonValue> = {};
      for (const [k, t] of Object.entries(type.fields)) {
        const opt = type.optional?.[k];
        const has = Object.prototype.hasOwnProperty.call(value, k) && value[k] !== null;
        if (has) out[k] = convert(t, value[k]);
        else if (opt) out[k] = opt.default === null ? null : convert(t, opt.default);
        else if (Object.prototype.hasOwnProperty.call(value, k)) out[k] = null;
      }
      return out;
    }
  }
}

/**
 * What to write for a literal of the wrong type, from the declared type as written
 * (`number`, `list(string)`, `${bool}`): the value in that type's form, e.g. `a number
 * without quotes: 3`. For the hint of `invalid_type` on a default, an output or a call's
 * binding (found by a new-user trial: those errors came without one). "Without quotes" only
 * when the value given is a string written in quotes (a list given for a number was told to
 * drop quotes; so was a YAML plain `two`, written without any: a new-user trial).
 * @param given the literal value written, when known
 * @param source the file's text from where the value is written on, when known (undefined:
 *   a string is taken for quoted, as HCL and JSON write every one)
 */
export function typeMismatchHint(written: string, given?: JsonValue, source?: string): string {
  const t = bareType(written).trim();
  const quoted = typeof given === "string" && (source === undefined || source === "" || source.startsWith('"') || source.startsWith("'"));
  if (t === "number") return quoted ? "write a number without quotes, e.g. 3" : "write a number, e.g. 3";
  if (t === "bool") return quoted ? "write true or false without quotes" : "write true or false";
  if (t === "string") return 'write a quoted string, e.g. "text"';
  if (/^(list|set|tuple)\b/.test(t)) return `write a list whose items are of its type (${t}), e.g. ["a", "b"] for list(string)`;
  if (/^(map|object)\b/.test(t)) return `write an object whose values are of its type (${t}), e.g. { a = "x" } for map(string)`;
  return `write a value of type ${t}`;
}
