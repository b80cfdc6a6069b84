import type { JsonValue } from "../parse/document.js";

/**
 * Variable and output types, as Terraform and the Go tool write them: `string`,
 * `number`, `bool`, `any`, `list(T)`, `set(T)`, `map(T)`, `tuple([T, ...])`,
 * `object({name = T, ...})`. Written quoted (`type = "list(string)"`) or bare
 * (`type = list(string)`, which hcl2json renders as `${list(string)}`).
 */
export type TypeExpr =
  | { kind: "string" | "number" | "bool" | "any" }
  | { kind: "list" | "set" | "map"; of: TypeExpr }
  | { kind: "tuple"; items: TypeExpr[] }
  | { kind: "object"; fields: Record<string, TypeExpr> };

/** The primitive type names, for did-you-mean. */
export const TYPE_NAMES = ["string", "number", "bool", "any", "list", "set", "map", "tuple", "object"];

/**
 * Parses a type expression.
 * @returns the type, or an error naming what is wrong (`unknown type "strng"`)
 */
export function parseType(text: string): { type?: TypeExpr; error?: string; word?: string } {
  const src = text.trim().replace(/^\$\{([\s\S]*)\}$/, "$1").replace(/\s+/g, "");
  let i = 0;
  const fail = (error: string, word?: string) => ({ error, word });
  const ident = () => {
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i));
    if (!m) return undefined;
    i += m[0].length;
    return m[0];
  };
  const eat = (c: string) => (src[i] === c ? (i++, true) : false);
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
      while (!eat("}")) {
        const k = ident();
        if (!k || !(eat("=") || eat(":"))) return fail(`expected "name = type" in object({...})`);
        const t = parse(depth + 1);
        if (!t.type) return t;
        fields[k] = t.type;
        eat(",");
      }
      if (!eat(")")) return fail(`expected ")" after object({...})`);
      return { type: { kind: "object", fields } };
    }
    return fail(`unknown type "${name}"`, name);
  };
  const r = parse(0);
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
        if (!Object.prototype.hasOwnProperty.call(value, k)) return `missing attribute "${k}"${at}`;
        const m = mismatch(t, value[k], `${path}.${k}`);
        if (m) return m;
      }
      return undefined;
    }
  }
}
