import type { GraphExpr } from "../../compiler/build/graph.js";
import type { Expr } from "../../compiler/expr/ast.js";
import { evaluate } from "../../compiler/expr/eval.js";
import { graphemes } from "../../compiler/graphemes.js";
import { makeFunctions } from "../../compiler/expr/functions.js";
import { fileOptionsFromEnv, workflowFileHooks } from "./workflow-files.js";
import { parseExpression, parseTemplate } from "../../compiler/expr/parse.js";
import type { FunctionTable, Value } from "../../compiler/expr/value.js";
import { convert, mismatch, parseType } from "../../compiler/decode/types.js";
import type { JsonValue } from "../../compiler/parse/document.js";

const parsed = new WeakMap<GraphExpr, { expr?: Expr; error?: string }>();

/** An expression failed at run time: the step fails with reason `eval_error` (or the given one). */
export class EvalFailure extends Error {
  constructor(
    message: string,
    readonly reason: "eval_error" | "policy_exceeded" = "eval_error",
  ) {
    super(message);
  }
}

/**
 * The standard functions with the file functions (`file`, `fileexists`, `fileset`,
 * `templatefile`) confined to `root` (docs/language.md, Functions) and the
 * directories of `CRITERIA_WORKFLOW_ALLOWED_PATHS` (`:`-separated): a path that
 * resolves, symlinks included, outside all of them is refused. `file()` and
 * `templatefile()` read at most `CRITERIA_FILE_FUNC_MAX_BYTES` bytes (default 1 MiB,
 * clamped to [1 KiB, 64 MiB]) of UTF-8 text. `env` is read on each call.
 */
export function engineFunctions(root: string, env: Record<string, string | undefined> = process.env): FunctionTable {
  return makeFunctions(workflowFileHooks(root, fileOptionsFromEnv(env)));
}

/**
 * Evaluates a compiled expression (`GraphExpr`) against run-time namespaces
 * (`var`, `local`, `each`, `steps`, `shared`, `input`). Parsing is cached per
 * expression object. Throws {@link EvalFailure} with the source position on error.
 */
export function evalExpr(e: GraphExpr, variables: Record<string, Value>, functions: FunctionTable): Value {
  if (e.kind === "literal") return e.value as Value;
  if (e.kind === "composite") return evalComposite(e.value as Value, e.at, variables, functions);
  let p = parsed.get(e);
  if (!p) {
    const r = e.kind === "hcl" ? parseExpression(e.text) : parseTemplate(e.text);
    p = r.expr ? { expr: r.expr } : { error: r.errors[0]?.message ?? "syntax error" };
    parsed.set(e, p);
  }
  if (!p.expr) throw new EvalFailure(`${e.at}: ${p.error}`);
  const r = evaluate(p.expr, { variables, functions });
  if (r.errors.length > 0 || r.value === undefined) {
    throw new EvalFailure(`${placeIn(e, r.errors[0]?.start)}: ${r.errors.map((x) => x.message).join("; ") || "no value"}`);
  }
  return r.value;
}

/**
 * `file:line:col` of offset `offset` of `e.text`: counted from where the text starts
 * (`e.textAt`, else `e.at`) when it stands in the file as written (`e.exact`), lines by
 * "\n" and columns in grapheme clusters (as compiler ranges count them), or from the
 * run of `e.places` it falls in; `e.at` itself otherwise, and for offset 0.
 */
export function placeIn(e: GraphExpr, offset: number | undefined): string {
  const m = /^(.*):(\d+):(\d+)$/.exec(e.textAt ?? e.at);
  if (!e.exact || !m || offset === undefined || offset <= 0 || offset > e.text.length) return e.at;
  if (e.places && e.places.length > 0) {
    // Written in runs (escapes, folding, a block): counted from the run the offset is in.
    let run = e.places[0];
    for (const p of e.places) {
      if (p[0] > offset) break;
      run = p;
    }
    return `${m[1]}:${run[1]}:${run[2] + graphemes(e.text.slice(run[0], offset)).length}`;
  }
  const before = e.text.slice(0, offset);
  const nl = before.lastIndexOf("\n");
  const lines = before.split("\n").length - 1;
  const line = Number(m[2]) + lines;
  const column = (nl < 0 ? Number(m[3]) : 1) + graphemes(before.slice(nl + 1)).length;
  return `${m[1]}:${line}:${column}`;
}

/** A YAML/JSON list or map whose strings may be templates: evaluated leaf by leaf. */
function evalComposite(v: Value, at: string, variables: Record<string, Value>, functions: FunctionTable): Value {
  if (typeof v === "string") {
    if (!v.includes("${") && !v.includes("%{")) return v;
    return evalExpr({ kind: "template", text: v, value: v, at }, variables, functions);
  }
  if (Array.isArray(v)) return v.map((x) => evalComposite(x, at, variables, functions));
  if (v !== null && typeof v === "object") {
    const out = Object.create(null) as Record<string, Value>;
    for (const [k, x] of Object.entries(v)) out[k] = evalComposite(x, at, variables, functions);
    return out;
  }
  return v;
}

/**
 * A value converted to its declared type at every depth (HCL's conversions: `"3"` → 3,
 * `"true"` → true, 3 → `"3"`, undeclared object attributes dropped, optional
 * attributes' defaults filled; compiler/decode/types.ts `convert`), or
 * {@link EvalFailure} naming what does not fit. A `secret` value is not shown in that
 * message, not even cut short (as `--var` says of a secret variable, cli/run-inputs.ts;
 * Terraform's "(sensitive value)"): the message's excerpt of it, cut at 40 characters, is
 * no longer the secret the redaction masks (found by an audit: a 60-character secret
 * bound to a module's number variable left its first 39 characters in a worker's log).
 */
export function conform(typeText: string, v: Value, what: string, secret = false): Value {
  const t = parseType(typeText).type;
  if (!t) return v;
  const why = mismatch(t, v as JsonValue);
  if (why) throw new EvalFailure(`${what}: ${secret ? "the value does not fit the type" : why} (type ${typeText})`);
  return convert(t, v as JsonValue) as Value;
}

/** Evaluates a map of expressions. */
export function evalMap(m: Record<string, GraphExpr>, variables: Record<string, Value>, functions: FunctionTable): Record<string, Value> {
  const out = Object.create(null) as Record<string, Value>;
  for (const [k, v] of Object.entries(m)) out[k] = evalExpr(v, variables, functions);
  return out;
}
