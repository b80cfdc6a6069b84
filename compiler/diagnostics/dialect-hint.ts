/** A block's body in a hint: no braces but an elided or empty value (`variables = { ... }`, `{}`). */
const BODY = String.raw`(?:[^{}]|\{ \.\.\. \}|\{\})*`;

/**
 * A hint as the file it is about is written: the checks word their hints in HCL (`add
 * outcome "success" { next = "..." }`), and a diagnostic in a YAML or JSON file gets the
 * same advice in its own syntax (`add outcomes: { success: { next: "..." } }`; in JSON
 * with quoted keys). Found by a new-user trial: YAML files were told to declare
 * `agent "nope" { adapter = "..." }`. Labelled blocks become an entry of their section
 * (two labels a `type.name` key: `adapters: { shell.ci: {} }`), unlabelled ones a mapping,
 * `name = value` a `name: value`; in JSON a list of references is a list of strings and a bare word in a block (`type = string`) is
 * quoted, as JSON has no bare words (found by a new-user trial: `"type": string`, and
 * `local "x" { value: ... }` for a YAML file); anything else is kept.
 * @param file the diagnostic's file (its extension says the dialect)
 */
export function hintFor(file: string, hint: string): string {
  const dialect = dialectOf(file);
  if (!dialect || !/[={]/.test(hint)) return hint;
  const key = (k: string) => (dialect === "json" ? `"${k}"` : k);
  /** A value in a block: in JSON a bare word (`string`) or an elision (`...`) is quoted. */
  const value = (v: string) => (dialect === "json" && (/^[A-Za-z_]\w*$/.test(v) && !/^(true|false|null)$/.test(v) || v === "...") ? `"${v}"` : v);
  /** `a = 1 b = "x"` (or `a = 1, b = "x"`) → `a: 1, b: "x"` (keys quoted in JSON). */
  const attrs = (body: string) =>
    body
      .trim()
      .split(/,?\s+(?=[A-Za-z_][\w]*\s*=(?!=))/)
      .map((a) => a.replace(/^([A-Za-z_][\w]*)\s*=(?!=)\s*(.*)$/, (_, k: string, v: string) => `${key(k)}: ${value(v)}`))
      .join(", ");
  /** `{ a: 1 }`, or `{}` for an empty body. */
  const braces = (inner: string) => (inner === "" ? "{}" : `{ ${inner} }`);
  const out =
    hint
      // adapter "type" "name" { ... } → adapters: { type.name: { ... } } (data and environments alike)
      .replace(new RegExp(`\\b(adapter|data|environment)\\s+"([^"]+)"\\s+"([^"]+)"\\s*\\{(${BODY})\\}`, "g"), (_, kw: string, t: string, n: string, body: string) => `${key(kw === "data" ? kw : `${kw}s`)}: { ${key(`${t}.${n}`)}: ${braces(attrs(body))} }`)
      // outcome "x" { next = "..." } → outcomes: { x: { next: "..." } }
      .replace(new RegExp(`\\b(outcome|state|agent|step|variable|shared_variable|output|channel|wait|approval|branch|subworkflow|environment)\\s+"([^"]+)"\\s*\\{(${BODY})\\}`, "g"), (_, kw: string, name: string, body: string) => `${key(`${kw}s`)}: { ${key(name)}: ${braces(attrs(body))} }`)
      // input { k = "..." } → input: { k: "..." }
      .replace(new RegExp(`\\b(input|default|workflow|policy|memory|secret_input|secrets|expects|config|recv|post|locals)\\s*\\{(${BODY})\\}`, "g"), (_, kw: string, body: string) => `${key(kw)}: ${braces(attrs(body))}`)
      // name { ... } (an elided block: for_each { ... }) → name: { ... }
      .replace(/\b([a-z_][\w]*)\s+\{ \.\.\. \}/g, (_, kw: string) => `${key(kw)}: { ... }`)
      // name = value (not ==, <=, >=, !=)
      .replace(/(^|[\s(,])([A-Za-z_][\w]*)\s=(?!=)\s*/g, (_, pre: string, k: string) => `${pre}${key(k)}: `);
  // A list of references (adapters = [adapter.shell.default]) is a list of strings in JSON
  // (found by a new-user trial: a JSON module was told to write bare adapter.noop.default).
  return dialect === "json" ? out.replace(/\[([^[\]"]+)\]/g, (all, items: string) => (items.split(",").every((i) => /^\s*(adapter|agent)\.[\w.-]+\s*$/.test(i)) ? `[${items.split(",").map((i) => `"${i.trim()}"`).join(", ")}]` : all)) : out;
}

/** A workflow file's dialect. */
export type Dialect = "hcl" | "yaml" | "json";

/**
 * The dialect a file's extension says (`.json`, `.yaml`/`.yml`, else HCL: the loader
 * refuses any other extension, so only `.hcl`/`.chcl` fall there).
 */
export function fileDialect(file: string): Dialect {
  return /\.json$/i.test(file) ? "json" : /\.ya?ml$/i.test(file) ? "yaml" : "hcl";
}

/** {@link fileDialect}, undefined for HCL: the dialect hints are worded in. */
function dialectOf(file: string): "json" | "yaml" | undefined {
  const d = fileDialect(file);
  return d === "hcl" ? undefined : d;
}

/** The expression a template of one `${...}` holds (`${var.env}` → `var.env`), or undefined for any other text. */
export function singleInterpolation(text: string): string | undefined {
  return /^\$\{([^{}]*)\}$/.exec(text.trim())?.[1].trim();
}

/**
 * An expression as a hint writes it for `file`: as is in HCL (`var.n`); in YAML and JSON,
 * where a value is an expression only inside `${...}`, as a quoted template (YAML
 * `"${var.n}"`, or `'${var.env == "prod"}'` around double quotes; JSON `"${var.n}"`).
 * Hints are then left alone by {@link hintFor} (found by a new-user trial: YAML files were
 * told `count: var.n`, the very value refused).
 */
export function exprAs(file: string, expr: string): string {
  const dialect = dialectOf(file);
  if (!dialect) return expr;
  const template = `\${${expr}}`;
  return dialect === "yaml" && expr.includes('"') && !expr.includes("'") ? `'${template}'` : JSON.stringify(template);
}

/** `field = expr` as `file` writes it: `count = var.n`, `count: "${var.n}"`, `"count": "${var.n}"` ({@link exprAs}). */
export function fieldAs(file: string, field: string, expr: string): string {
  const dialect = dialectOf(file);
  return dialect === undefined ? `${field} = ${expr}` : `${dialect === "json" ? `"${field}"` : field}: ${exprAs(file, expr)}`;
}

/** `field = value` with `value` written out (a literal, not an expression) as a file of `dialect` writes it: `count = 3`, `count: 3`, `"count": 3`. */
export function literalFieldAs(dialect: Dialect, field: string, value: string): string {
  return dialect === "hcl" ? `${field} = ${value}` : dialect === "json" ? `"${field}": ${value}` : `${field}: ${value}`;
}

/**
 * The expression a value's source text stands for, as hints name it: one `${...}` alone
 * unwrapped, quoted (HCL `"${var.names}"`) or not (YAML, JSON), so a hint reads
 * `var.names[0]`, not `"${var.names}"[0]` (found by a trial); other text as {@link exprOfValue}.
 */
export function writtenExpr(text: string): string {
  return exprOfValue(text.trim().replace(/^"(\$\{[\s\S]*\})"$/, "$1"));
}

/** The expression a YAML or JSON value holds when it is one template (`${var.env}` → `var.env`); HCL text as is. */
export function exprOfValue(text: string): string {
  return singleInterpolation(text) ?? text.trim();
}
