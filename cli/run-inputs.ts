import { readFileSync } from "node:fs";
import { extname } from "node:path";
import { parse as parseYaml } from "yaml";
import type { Graph } from "../compiler/build/graph.js";
import { mismatch, parseType } from "../compiler/decode/types.js";
import { closestName, suggest } from "../compiler/diagnostics/did-you-mean.js";
import { SourceFile } from "../compiler/diagnostics/source-file.js";
import { decodeSource } from "../compiler/load/read-source.js";
import type { Value } from "../compiler/expr/value.js";
import { evaluate } from "../compiler/expr/eval.js";
import { parseExpression } from "../compiler/expr/parse.js";
import { MAX_DEPTH } from "../compiler/parse/document.js";
import { nestingDepth } from "../compiler/parse/nesting-depth.js";
import { parseJson, parseYaml as parseYamlFile } from "../compiler/parse/parse-yaml.js";
import { CliError, EXIT } from "./io.js";

const usage = (m: string) => new CliError(m, EXIT.usage);

/**
 * `raw` as an HCL literal value (`{ name = "z" }`, `[1, 2]`, `true`): an expression of
 * literals only, evaluated with no variables; undefined when it is not one.
 */
function hclLiteral(raw: string): Value | undefined {
  // Long digit runs go to the JSON/YAML path, which refuses integers beyond 2^53 rather than round them.
  if (/\d{16,}/.test(raw)) return undefined;
  const parsed = parseExpression(raw);
  if (!parsed.expr) return undefined;
  const r = evaluate(parsed.expr, { variables: {}, functions: {} });
  return r.errors.length === 0 ? r.value : undefined;
}

/**
 * The workflow's variables from `CRITERIA_VAR_<name>` environment variables, then
 * `--var-file` (JSON/YAML mappings), then `--var k=v`, each over the one before
 * (Terraform's TF_VAR_name, -var-file and -var), converted to and checked against the
 * declared types. Every problem is a usage error (exit 2) naming the variable (never
 * showing a secret variable's value), and so is a required variable that neither they
 * nor `given` (the `--input` object) bind.
 *
 * A run submitted to the workers (`detach`) takes no secret variable: a secret is never
 * journaled, so its value cannot travel; the workers give it (their `CRITERIA_VAR_<name>`).
 * One given with `--var` or `--var-file` is then a usage error (found by a new-user trial:
 * the submitted value was silently replaced by the worker's), one in this environment is
 * left here, and a required one is not asked for.
 * @param env the environment to read `CRITERIA_VAR_<name>` from (default: the process's)
 * @param detach the run is only submitted (`apply --detach`)
 */
export function parseVars(graph: Graph, pairs: string[], files: string[], given: Record<string, Value> = {}, env: NodeJS.ProcessEnv = process.env, detach = false): Record<string, Value> {
  const out: Record<string, Value> = Object.create(null) as Record<string, Value>;
  const names = graph.variables.map((v) => v.name);
  const set = (k: string, v: Value, from: string) => {
    const decl = graph.variables.find((x) => x.name === k);
    if (!decl) throw usage(`${from}: unknown variable "${k}"${names.length ? `; ${suggest(k, names) ?? ""}` : " (the workflow declares none)"}`);
    if (detach && decl.secret) throw usage(`${from}: "${k}" is a secret variable, and a secret is never journaled, so its value cannot travel to the workers with --detach: give it to the workers instead (CRITERIA_VAR_${k} in their environment) and leave it out here`);
    const t = decl.type ? parseType(decl.type).type : undefined;
    const why = t ? mismatch(t, v) : undefined;
    if (why) {
      // A bare word for a list (found by a new-user trial: --var services=api): show the list form.
      const listed = from.startsWith("--var ") && (t?.kind === "list" || t?.kind === "set") && typeof v === "string" && !decl.secret ? `; write a list: --var '${k}=${JSON.stringify([v])}'` : "";
      throw usage(`${from}: variable "${k}": ${decl.secret ? "the value does not fit the type" : why} (type ${decl.type})${listed}`);
    }
    out[k] = v;
  };
  for (const v of graph.variables) {
    if (detach && v.secret) continue; // the workers' own is used
    const raw = env[`CRITERIA_VAR_${v.name}`];
    if (raw !== undefined) setPair(`${v.name}=${raw}`, `CRITERIA_VAR_${v.name}`);
  }
  for (const f of files) {
    let data: unknown;
    try {
      // Read as workflow files are: a BOM dropped; UTF-16, NUL bytes or bad UTF-8 refused by name.
      const read = decodeSource(readFileSync(f), f);
      if (!read.file) {
        const d = read.diagnostics[0];
        throw usage(`--var-file ${d.message}${d.hint ? ` (hint: ${d.hint})` : ""}`);
      }
      const text = read.file.text;
      const problem = syntaxProblem(f, text);
      if (problem) throw usage(problem);
      data = exact(parseYaml(text, { intAsBigInt: true }), `--var-file ${f}`);
    } catch (e) {
      if (e instanceof CliError) throw e;
      const err = e as NodeJS.ErrnoException;
      throw usage(`--var-file ${f}: ${err.code === "ENOENT" ? "no such file" : err.code === "EISDIR" ? "is a directory" : (err.message ?? String(e)).split("\n")[0]}`);
    }
    if (data === null || typeof data !== "object" || Array.isArray(data)) {
      // The Go tool reads HCL var files; criteria not yet (found by a trial of its language: the
      // file "is" a mapping of names to values, in HCL, and was read as YAML).
      if (/\.(c?hcl|tfvars)$/i.test(f)) throw usage(`--var-file ${f}: HCL var files are not read yet; write it as JSON (${f.replace(/\.[^./]+$/, "")}.json) or YAML, name: value per line`);
      throw usage(`--var-file ${f}: expected a mapping of variable names to values`);
    }
    for (const [k, v] of Object.entries(data as Record<string, Value>)) set(k, v, `--var-file ${f}`);
  }
  for (const p of pairs) setPair(p);
  /** One `name=value` (`--var`, or an environment variable named by `from`), parsed by the variable's type. */
  function setPair(p: string, from?: string): void {
    const i = p.indexOf("=");
    if (i <= 0) throw usage(`--var ${p}: expected name=value`);
    const k = p.slice(0, i);
    const raw = p.slice(i + 1);
    const where = from ?? `--var ${k}`;
    const decl = graph.variables.find((v) => v.name === k);
    const t = decl?.type;
    // A secret's text is never repeated in a message.
    const shown = decl?.secret ? "the value" : `"${raw}"`;
    const kind = t ? parseType(t).type?.kind : "string";
    let v: Value = raw;
    if (kind === "number") {
      if (!/^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(raw.trim())) throw usage(`${where}: ${shown} is not a number`);
      v = Number(raw);
      if (!Number.isFinite(v)) throw usage(`${where}: ${shown} is beyond the largest number (it would be Infinity); declare the variable as a string`);
      if (/^-?\d+$/.test(raw.trim()) && !Number.isSafeInteger(v)) throw usage(`${where}: ${decl?.secret ? "the value" : raw.trim()} is too large to keep exactly as a number (beyond 2^53); declare the variable as a string`);
    } else if (kind === "bool") {
      // The Go tool's workflow.md: "bool variables accept only true, false, 1, or 0" (found by a new-user trial).
      if (!["true", "false", "1", "0"].includes(raw)) throw usage(`${where}: ${shown} is not true or false (or 1 or 0)`);
      v = raw === "true" || raw === "1";
    } else if (kind && kind !== "string") {
      // HCL syntax first, as Terraform's -var takes it ({ name = "z" }, ["a", "b"]), then JSON/YAML.
      const hcl = hclLiteral(raw);
      if (hcl !== undefined) v = hcl;
      else {
        try {
          v = exact(parseYaml(raw, { intAsBigInt: true }), where) as Value;
        } catch {
          if (kind !== "any") throw usage(`${where}: ${shown} is neither HCL nor JSON for a ${t}`);
        }
      }
    }
    set(k, v, where);
  }

  // A required variable left out is the command line's mistake: exit 2 before anything runs.
  const missing = graph.variables.filter((v) => v.required && !(detach && v.secret) && !(v.name in out) && !Object.prototype.hasOwnProperty.call(given, v.name));
  if (missing.length > 0) throw usage(`variable${missing.length > 1 ? "s" : ""} ${missing.map((v) => `"${v.name}"`).join(", ")} ${missing.length > 1 ? "are" : "is"} required: pass ${missing.map((v) => `--var ${v.name}=...`).join(" ")}`);
  return out;
}

/**
 * The `--input` object against the workflow (usage errors, exit 2): every `input.<key>`
 * the workflow reads is there, every key given is one it reads or a variable it declares
 * (unless it reads its input whole: Terraform refuses a value for an undeclared variable;
 * found by a new-user trial: `--input '{"zzz":1}'` was taken silently), and a key that binds
 * a variable (when `--var` does not) fits the variable's type.
 */
export function checkInput(graph: Graph, input: Record<string, Value>, vars: string[]): void {
  const missing = (graph.input_keys ?? []).filter((k) => !Object.prototype.hasOwnProperty.call(input, k));
  if (missing.length > 0) {
    const example = JSON.stringify(Object.fromEntries((graph.input_keys ?? []).map((k) => [k, "..."])));
    // A key given in its place is named with what it may have meant (found by a new-user
    // trial: --input '{"tsk": "x"}' was told only that input.task was missing).
    const known = [...(graph.input_keys ?? []), ...graph.variables.map((v) => v.name)];
    const typo = Object.keys(input).filter((k) => !known.includes(k)).map((k) => [k, closestName(k, missing)] as const).find(([, s]) => s !== undefined);
    throw usage(`workflow "${graph.name}" reads ${missing.map((k) => `input.${k}`).join(", ")}: pass --input '${example}'${typo ? ` (--input "${typo[0]}" is not one of its keys; did you mean "${typo[1]}"?)` : ""}`);
  }
  if (!graph.input_any) {
    const known = [...(graph.input_keys ?? []), ...graph.variables.map((v) => v.name)];
    const unknown = Object.keys(input).filter((k) => !known.includes(k));
    if (unknown.length > 0) {
      const k = unknown[0];
      throw usage(`--input "${k}": workflow "${graph.name}" neither reads input.${k} nor declares variable "${k}"${suggest(k, known) ? `; ${suggest(k, known)}` : known.length ? `; it reads ${known.join(", ")}` : "; it reads no input"}`);
    }
  }
  for (const [k, v] of Object.entries(input)) {
    const decl = graph.variables.find((x) => x.name === k);
    if (!decl?.type || vars.some((p) => p.startsWith(`${k}=`))) continue;
    const t = parseType(decl.type).type;
    const why = t ? mismatch(t, v) : undefined;
    if (why) throw usage(`--input ${k}: variable "${k}": ${why} (type ${decl.type})`);
  }
}

/**
 * `--input '{"task": "..."}'` or `--input @file.json` (JSON or YAML): the run's `input`
 * namespace, an object (docs/language.md, Composition: a flow runs alone, its body reading `input.task`).
 */
export function parseInput(text: string): Record<string, Value> {
  let data: unknown;
  if (text.startsWith("@")) {
    const file = text.slice(1);
    try {
      const read = readFileSync(file, "utf8");
      // As --var-file's: the workflow parser's limits, block-style YAML's depth included (found
      // by a trial: 800 levels of block YAML passed the bracket count, 1,200 overflowed the stack).
      const problem = syntaxProblem(file, read, `--input @${file}`);
      if (problem) throw usage(problem);
      data = exact(parseYaml(read, { intAsBigInt: true }), `--input @${file}`);
    } catch (e) {
      if (e instanceof CliError) throw e;
      const err = e as NodeJS.ErrnoException;
      throw usage(`--input @${file}: ${err.code === "ENOENT" ? "no such file" : err.code === "EISDIR" ? "is a directory" : (err.message ?? String(e)).split("\n")[0]}`);
    }
  } else {
    jsonArgument("--input", text, `write --input '{"task": "..."}' or --input @file.json`);
    // Parsed again keeping integers exact: JSON.parse rounds those beyond 2^53 silently.
    data = exact(parseYaml(text, { intAsBigInt: true }), "--input");
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) throw usage(`--input: expected a JSON object, e.g. {"task": "..."}`);
  return data as Record<string, Value>;
}

/**
 * Refuses (a usage error naming `flag`) a value given on the command line that nests
 * deeper than the compiler's limit (MAX_DEPTH, as `--var-file` and workflow files):
 * deeper, the YAML parser and the journal's checksum overflow the stack (found by a
 * new-user trial: 10,000 levels in --payload were a journal write error, in --input "not JSON").
 * @param flag the flag it was given to, as the message names it
 * @param text the value's JSON or YAML text
 */
function refuseDeepNesting(flag: string, text: string): void {
  if (nestingDepth(text, "yaml", MAX_DEPTH).depth > MAX_DEPTH) throw usage(`${flag}: values nest deeper than ${MAX_DEPTH} levels, the limit; flatten the value`);
}

/**
 * `text`, given to `flag` (`--input`, `--payload`), parsed as JSON: nesting past the
 * limit ({@link refuseDeepNesting}) and text that is not JSON are usage errors naming the
 * flag, the latter with the parser's reason and position, then `hint`.
 */
export function jsonArgument(flag: string, text: string, hint: string): unknown {
  refuseDeepNesting(flag, text);
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw usage(`${flag}: not JSON (${(e as Error).message}); ${hint}`);
  }
}

/**
 * A parsed value with its integers exact (parsed as bigint): those within 2^53 become
 * numbers; a larger one is a usage error rather than a silently rounded number.
 */
/**
 * The first syntax error of a var file (or `--input @FILE`'s, named by `label`) as one line, `--var-file FILE:line:col: message`,
 * read as the compiler reads workflow files (a `.json` file is strict JSON, like
 * Terraform's `.tfvars.json`; anything else YAML); undefined when it parses. Found by a
 * new-user trial: a JSON file was read as YAML (a trailing comma passed) and its errors
 * worded as YAML's, cut off before their position.
 */
function syntaxProblem(f: string, text: string, label = `--var-file ${f}`): string | undefined {
  const file = new SourceFile(f, text);
  const json = extname(f).toLowerCase() === ".json";
  const d = (json ? parseJson(file) : parseYamlFile(file)).diagnostics.find((x) => x.severity === "error");
  if (!d) return undefined;
  const hint = json && d.code === "syntax_error" ? ` (hint: a .json ${label.startsWith("--var-file") ? "var file" : "file"} is strict JSON: no comments, no trailing commas, quoted keys)` : d.hint ? ` (hint: ${d.hint})` : "";
  // Node's JSON messages quote the text around the error, line breaks and all: one line here.
  return `${label}:${d.range.start.line}:${d.range.start.column}: ${d.message.replace(/\s*\n\s*/g, " ")}${hint}`;
}

function exact(v: unknown, from: string): unknown {
  // 1e400, .inf and .nan parse, but no variable can hold them (the journal would keep null).
  if (typeof v === "number" && !Number.isFinite(v)) throw usage(`${from}: ${v} is not a finite number; write it as a string`);
  if (typeof v === "bigint") {
    if (v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER)) return Number(v);
    throw usage(`${from}: ${v} is too large to keep exactly as a number (beyond 2^53); write it as a string`);
  }
  if (Array.isArray(v)) return v.map((x) => exact(x, from));
  if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, exact(x, from)]));
  return v;
}
