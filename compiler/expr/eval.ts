/**
 * Evaluator for expression ASTs.
 *
 * Source: HCL native syntax specification, "Expressions" (operator semantics, conditional,
 * for expressions, index/attribute/splat) and "Templates" (interpolation conversion,
 * directives); hclsyntax's expression.go for the error wording.
 *
 * Shapes: `evaluate(expr, ctx)` returns `{ value, errors }`, `value` set exactly when
 * `errors` is empty. `ctx.variables` maps root names (`var`, `local`, `each`, `steps`...)
 * to values; `ctx.functions` is a `FunctionTable` (see functions.ts).
 *
 * Semantics (HCL unless noted):
 * - Templates convert numbers and bools to strings; null and collections are errors. A
 *   template that is exactly one interpolation (`"${x}"`) yields x's value unconverted.
 * - `==`/`!=` compare type and content deeply, without conversion.
 * - Arithmetic and `< <= > >=` need numbers; strings holding decimal numbers convert.
 *   `!`, `&&`, `||` and conditions need bools ("true"/"false" strings convert).
 * - `&&`/`||` short-circuit, so `x != null && x.a` is safe.
 * - Objects iterate in lexical key order in `for` expressions; splat over null is `[]`,
 *   over a non-list value `v` it works on `[v]`.
 * - Differences: duplicate keys in an object constructor are an error; numbers are
 *   doubles; a conditional's two results are not unified to a common type; unknown
 *   values do not exist.
 *
 * Errors: every failure (unknown variable/function/attribute, wrong type, null where a
 * value is needed, division by zero, index out of range, bad function arguments, too
 * much work) is an `EvalError` carrying the offending sub-expression's offsets. Nothing
 * is thrown, whatever the functions do.
 */
import type { CallExpr, Expr, ForExpr, TemplatePart, TraversalStep } from "./ast.js";
import { closestName } from "../diagnostics/did-you-mean.js";
import { traversalText } from "./references.js";
import {
  deepEqual, describeValue, FunctionError, getOwn, hasOwn, isObject, newObject, sortedKeys, toBool, toNumber, toStr, typeName,
  type Attempt, type FunctionTable, type Value,
} from "./value.js";

export interface EvalError {
  start: number;
  end: number;
  message: string;
  code: "eval_error";
}

export interface EvalContext {
  variables: Record<string, Value>;
  functions: FunctionTable;
}

export interface EvalResult {
  value?: Value;
  errors: EvalError[];
}

/** Upper bound on evaluation steps (node visits + loop iterations) per `evaluate` call. */
export const MAX_EVAL_STEPS = 5_000_000;
/** Upper bound on the length of a string built by a template. */
export const MAX_STRING_LENGTH = 16 * 1024 * 1024;

export function evaluate(expr: Expr, ctx: EvalContext): EvalResult {
  const ev = new Evaluator(ctx);
  let value: Value | typeof FAIL;
  try {
    value = ev.ev(expr, undefined);
  } catch (err) {
    const msg = err instanceof RangeError ? "Evaluation is too deeply nested." : `Internal evaluation error: ${err instanceof Error ? err.message : String(err)}`;
    value = ev.err(expr, msg);
  }
  if (value === FAIL || ev.errors.length > 0) {
    if (ev.errors.length === 0) ev.err(expr, "Evaluation failed.");
    return { errors: ev.errors };
  }
  return { value, errors: [] };
}

const FAIL: unique symbol = Symbol("fail");
type R = Value | typeof FAIL;
type Span = { start: number; end: number };
interface Scope {
  vars: Map<string, Value>;
  parent: Scope | undefined;
}

class Evaluator {
  readonly errors: EvalError[] = [];
  private readonly seen = new Set<string>();
  private steps = 0;
  /** How many lazy arguments (`try`, `can`) are being evaluated: their errors may be caught. */
  private attempting = 0;
  private readonly variables: Record<string, Value>;
  private readonly functions: FunctionTable;

  constructor(ctx: EvalContext) {
    this.variables = isObject(ctx?.variables) ? ctx.variables : {};
    this.functions = (isObject(ctx?.functions) ? ctx.functions : {}) as FunctionTable;
  }

  err(at: Span, message: string): typeof FAIL {
    const key = `${at.start}:${at.end}:${message}`;
    if (!this.seen.has(key)) {
      this.seen.add(key);
      this.errors.push({ start: at.start, end: at.end, message, code: "eval_error" });
    }
    return FAIL;
  }

  private tick(at: Span): boolean {
    if (++this.steps <= MAX_EVAL_STEPS) return true;
    if (this.steps === MAX_EVAL_STEPS + 1) this.err(at, `Evaluation limit exceeded: the expression needs more than ${MAX_EVAL_STEPS} steps.`);
    return false;
  }

  ev(e: Expr, scope: Scope | undefined): R {
    if (!this.tick(e)) return FAIL;
    switch (e.kind) {
      case "literal":
        return e.value;
      case "paren":
        return this.ev(e.expr, scope);
      case "template":
        if (e.parts.length === 1 && e.parts[0].kind === "template_interp") return this.ev(e.parts[0].expr, scope);
        return this.template(e.parts, scope, e);
      case "scope_traversal": {
        const root = this.lookup(e.root, scope, { start: e.start, end: e.rootEnd });
        if (root === FAIL) return FAIL;
        // `steps.<name>` of a declared step (the compiler checked the name) that has no value:
        // the step has not run in this run (found by a new-user trial: "this object does not
        // have an attribute" of a module output reading a step on a path not taken).
        const first = e.steps[0];
        if (e.root === "steps" && first?.kind === "attr" && isObject(root) && getOwn(root, first.name) === undefined) {
          // Outside try()/can(), how to read it anyway (found by a new-user trial: no guard worked).
          const read = this.attempting > 0 ? "" : ` To read it only when it has run, write try(${traversalText(e)}, ${e.steps.length === 1 ? "{}" : '""'}) (or test can(steps.${first.name}) in a condition).`;
          return this.err({ start: e.start, end: first.end }, `step "${first.name}" has not run in this run, so steps.${first.name} has no value: it is on a path this run did not take, or not reached yet.${read}`);
        }
        return this.steps_(root, e.steps, 0, e.steps.length, scope);
      }
      case "relative_traversal": {
        const src = this.ev(e.source, scope);
        return src === FAIL ? FAIL : this.steps_(src, e.steps, 0, e.steps.length, scope);
      }
      case "call":
        return this.call(e, scope);
      case "unary": {
        const v = this.ev(e.operand, scope);
        if (v === FAIL) return FAIL;
        if (e.op === "!") {
          const b = this.need(v, toBool, "bool", e.operand, "operand");
          return b === FAIL ? FAIL : !b;
        }
        const n = this.need(v, toNumber, "number", e.operand, "operand");
        return n === FAIL ? FAIL : 0 - n;
      }
      case "binary":
        return this.binary(e, scope);
      case "conditional": {
        const c = this.ev(e.condition, scope);
        if (c === FAIL) return FAIL;
        const b = this.condition(c, e.condition);
        return b === FAIL ? FAIL : this.ev(b ? e.trueExpr : e.falseExpr, scope);
      }
      case "tuple": {
        const out = e.items.map((i) => this.ev(i, scope));
        return out.includes(FAIL) ? FAIL : (out as Value[]);
      }
      case "object": {
        const obj = newObject();
        let ok = true;
        for (const item of e.items) {
          const k = this.ev(item.key, scope);
          const key = k === FAIL ? FAIL : this.key(k, item.key);
          const v = this.ev(item.value, scope);
          if (key === FAIL || v === FAIL) ok = false;
          else if (hasOwn(obj, key)) ok = this.err(item.key, `Duplicate object attribute: an attribute named "${key}" was already defined in this object.`) !== FAIL;
          else obj[key] = v;
        }
        return ok ? obj : FAIL;
      }
      case "for":
        return this.forExpr(e, scope);
    }
  }

  private lookup(name: string, scope: Scope | undefined, at: Span): R {
    for (let s = scope; s; s = s.parent) if (s.vars.has(name)) return s.vars.get(name) ?? null;
    const v = getOwn(this.variables, name);
    if (v !== undefined) return v;
    const names = new Set(Object.keys(this.variables));
    for (let s = scope; s; s = s.parent) for (const k of s.vars.keys()) names.add(k);
    const hint = closestName(name, names);
    return this.err(at, `Unknown variable: there is no variable named "${name}".${hint ? ` Did you mean "${hint}"?` : ""}`);
  }

  private need<T>(v: Value, conv: (v: Value) => T | undefined, want: string, at: Span, what: string): T | typeof FAIL {
    const out = conv(v);
    if (out !== undefined) return out;
    return this.err(at, `Invalid ${what}: a ${want} is required, but got ${describeValue(v)}.`);
  }

  private condition(v: Value, at: Span): boolean | typeof FAIL {
    if (v === null) return this.err(at, "Null condition: the condition value is null; a condition must be either true or false.");
    const b = toBool(v);
    return b === undefined ? this.err(at, `Incorrect condition type: a bool is required, but got ${describeValue(v)}.`) : b;
  }

  private key(v: Value, at: Span): string | typeof FAIL {
    if (v === null) return this.err(at, "Null value as key: can't use a null value as an object key.");
    const s = toStr(v);
    return s === undefined ? this.err(at, `Incorrect key type: an object key must be a string, but got ${typeName(v)}.`) : s;
  }

  private template(parts: TemplatePart[], scope: Scope | undefined, at: Span): R {
    let out = "";
    for (const p of parts) {
      let piece: string | typeof FAIL;
      if (p.kind === "template_literal") piece = p.value;
      else if (p.kind === "template_interp") {
        const v = this.ev(p.expr, scope);
        if (v === FAIL) return FAIL;
        const s = toStr(v);
        if (s !== undefined) piece = s;
        else if (v === null) piece = this.err(p.expr, "Invalid template interpolation value: the expression result is null; a null value cannot be included in a string template.");
        else piece = this.err(p.expr, `Invalid template interpolation value: cannot include a ${typeName(v)} value in a string template; a string is required.`);
      } else if (p.kind === "template_if") {
        const c = this.ev(p.condition, scope);
        const b = c === FAIL ? FAIL : this.condition(c, p.condition);
        piece = b === FAIL ? FAIL : (this.template(b ? p.thenParts : p.elseParts, scope, p) as string | typeof FAIL);
      } else {
        piece = "";
        const items = this.iterate(p.collection, scope);
        if (items === FAIL) return FAIL;
        for (const [k, v] of items) {
          if (!this.tick(p)) return FAIL;
          const s = this.template(p.body, bind(scope, p.keyVar?.name, k, p.valueVar.name, v), p);
          if (s === FAIL) return FAIL;
          piece += s as string;
          if (piece.length > MAX_STRING_LENGTH) break;
        }
      }
      if (piece === FAIL) return FAIL;
      out += piece;
      if (out.length > MAX_STRING_LENGTH) return this.err(at, `String too long: the template result exceeds ${MAX_STRING_LENGTH} characters.`);
    }
    return out;
  }

  /** Applies `steps[from..to)` to `v`. */
  private steps_(v: Value, steps: TraversalStep[], from: number, to: number, scope: Scope | undefined): R {
    for (let i = from; i < to; i++) {
      const s = steps[i];
      if (s.kind === "attr") {
        const r = this.attr(v, s.name, s);
        if (r === FAIL) return FAIL;
        v = r;
      } else if (s.kind === "legacy_index" || s.kind === "index") {
        const k = s.kind === "index" ? this.ev(s.key, scope) : s.index;
        if (k === FAIL) return FAIL;
        const r = this.index(v, k, s, s.kind === "index" ? s.key : s);
        if (r === FAIL) return FAIL;
        v = r;
      } else {
        const items: Value[] = v === null ? [] : Array.isArray(v) ? v : [v];
        let j = to;
        if (!s.full) for (j = i + 1; j < to && (steps[j].kind === "attr" || steps[j].kind === "legacy_index"); j++);
        const out: Value[] = [];
        for (const item of items) {
          if (!this.tick(s)) return FAIL;
          const r = this.steps_(item, steps, i + 1, j, scope);
          if (r === FAIL) return FAIL;
          out.push(r);
        }
        v = out;
        i = j - 1;
      }
    }
    return v;
  }

  private attr(v: Value, name: string, at: Span): R {
    if (isObject(v)) {
      const r = getOwn(v, name);
      if (r !== undefined) return r;
      const hint = closestName(name, Object.keys(v));
      return this.err(at, `Unsupported attribute: this object does not have an attribute named "${name}".${hint ? ` Did you mean "${hint}"?` : ""}`);
    }
    if (v === null) return this.err(at, `Attempt to get attribute from null value: this value is null, so it does not have an attribute named "${name}".`);
    if (Array.isArray(v)) {
      return this.err(at, `Unsupported attribute: can't access attribute "${name}" on a list. Did you mean to access it on a specific element (like [0].${name}) or on all elements (like [*].${name})?`);
    }
    return this.err(at, `Unsupported attribute: can't access attribute "${name}" on a ${typeName(v)} value.`);
  }

  private index(v: Value, key: Value, at: Span, keyAt: Span): R {
    if (v === null) return this.err(at, "Attempt to index null value: this value is null, so it does not have any indices.");
    if (key === null) return this.err(keyAt, "Invalid index: can't use a null value as an indexing key.");
    if (Array.isArray(v)) {
      const n = toNumber(key);
      if (n === undefined) return this.err(keyAt, `Invalid index: a list index must be a number, but got ${describeValue(key)}.`);
      if (!Number.isInteger(n)) return this.err(keyAt, `Invalid index: a list index must be a whole number, but got ${n}.`);
      if (n < 0 || n >= v.length) return this.err(at, `Invalid index: index ${n} is out of range for a list of ${v.length} element${v.length === 1 ? "" : "s"}.`);
      return v[n] ?? null;
    }
    if (isObject(v)) {
      const k = toStr(key);
      if (k === undefined) return this.err(keyAt, `Invalid index: an object key must be a string, but got ${typeName(key)}.`);
      const r = getOwn(v, k);
      if (r !== undefined) return r;
      const hint = closestName(k, Object.keys(v));
      return this.err(at, `Invalid index: the given key "${k}" does not identify an element in this object.${hint ? ` Did you mean "${hint}"?` : ""}`);
    }
    return this.err(at, `Invalid index: a ${typeName(v)} value does not have any indices.`);
  }

  private binary(e: Extract<Expr, { kind: "binary" }>, scope: Scope | undefined): R {
    const l = this.ev(e.left, scope);
    if (l === FAIL) return FAIL;
    if (e.op === "&&" || e.op === "||") {
      const lb = this.need(l, toBool, "bool", e.left, "left operand");
      if (lb === FAIL) return FAIL;
      if (e.op === "&&" ? !lb : lb) return lb;
      const r = this.ev(e.right, scope);
      return r === FAIL ? FAIL : this.need(r, toBool, "bool", e.right, "right operand");
    }
    const r = this.ev(e.right, scope);
    if (r === FAIL) return FAIL;
    if (e.op === "==") return deepEqual(l, r);
    if (e.op === "!=") return !deepEqual(l, r);
    const a = this.need(l, toNumber, "number", e.left, "left operand");
    const b = this.need(r, toNumber, "number", e.right, "right operand");
    if (a === FAIL || b === FAIL) return FAIL;
    let out: number | boolean;
    switch (e.op) {
      case "<": return a < b;
      case "<=": return a <= b;
      case ">": return a > b;
      case ">=": return a >= b;
      case "+": out = a + b; break;
      case "-": out = a - b; break;
      case "*": out = a * b; break;
      default:
        if (b === 0) return this.err(e, `Division by zero: the right operand of ${e.op} is zero.`);
        out = e.op === "/" ? a / b : a % b;
    }
    if (!Number.isFinite(out)) return this.err(e, "Arithmetic overflow: the result is not a finite number.");
    return Object.is(out, -0) ? 0 : out;
  }

  private call(e: CallExpr, scope: Scope | undefined): R {
    const nameAt = { start: e.start, end: e.nameEnd };
    const fn = isObject(this.functions) && Object.prototype.hasOwnProperty.call(this.functions, e.name) ? this.functions[e.name] : undefined;
    if (!fn || typeof fn.impl !== "function") {
      const hint = closestName(e.name, Object.keys(this.functions));
      return this.err(nameAt, `Call to unknown function: there is no function named "${e.name}".${hint ? ` Did you mean "${hint}"?` : ""}`);
    }
    if (typeof fn.lazy === "function" && !e.expandFinal) return this.lazyCall(e, fn.lazy, scope);
    const vals = e.args.map((a) => this.ev(a, scope));
    if (vals.includes(FAIL)) return FAIL;
    const args = vals as Value[];
    const argAt = (i: number): Span => e.args[Math.min(i, e.args.length - 1)] ?? e;
    if (e.expandFinal && args.length > 0) {
      const last = args.pop() as Value;
      if (!Array.isArray(last)) {
        return this.err(argAt(e.args.length - 1), `Invalid expanding argument value: the argument expanded with ... must be a list, but got ${typeName(last)}.`);
      }
      args.push(...last);
    }
    const sig = `${e.name}(${fn.params})`;
    if (args.length < fn.minArgs) {
      return this.err(e, `Not enough function arguments: ${sig} needs at least ${fn.minArgs} argument${fn.minArgs === 1 ? "" : "s"}, but got ${args.length}.`);
    }
    if (args.length > fn.maxArgs) {
      return this.err(e.expandFinal ? e : argAt(fn.maxArgs), `Too many function arguments: ${sig} accepts at most ${fn.maxArgs} argument${fn.maxArgs === 1 ? "" : "s"}, but got ${args.length}.`);
    }
    try {
      const out = fn.impl(args);
      return out === undefined ? null : out;
    } catch (err) {
      if (err instanceof FunctionError) {
        const at = err.argIndex !== undefined && !e.expandFinal ? argAt(err.argIndex) : e;
        const which = err.argIndex !== undefined ? ` (argument ${err.argIndex + 1})` : "";
        return this.err(at, `Invalid function argument: ${e.name}${which}: ${err.message}`);
      }
      const msg = err instanceof RangeError ? "the value is too deeply nested or too large" : err instanceof Error ? err.message : String(err);
      return this.err(e, `Error in function call: ${e.name}: ${msg}`);
    }
  }

  /**
   * A call of a function that evaluates its arguments itself (`try`, `can`): each argument
   * is evaluated when the function asks, and the errors it raised are taken back out of
   * this evaluation's errors (the function decides what they mean). Running out of
   * evaluation steps is not caught: it ends the whole evaluation.
   */
  private lazyCall(e: CallExpr, lazy: (args: Attempt[]) => Value, scope: Scope | undefined): R {
    const sig = `${e.name}(${this.functions[e.name].params})`;
    const { minArgs, maxArgs } = this.functions[e.name];
    if (e.args.length < minArgs) {
      return this.err(e, `Not enough function arguments: ${sig} needs at least ${minArgs} argument${minArgs === 1 ? "" : "s"}, but got ${e.args.length}.`);
    }
    if (e.args.length > maxArgs) {
      return this.err(e.args[maxArgs], `Too many function arguments: ${sig} accepts at most ${maxArgs} argument${maxArgs === 1 ? "" : "s"}, but got ${e.args.length}.`);
    }
    const attempts: Attempt[] = e.args.map((a) => () => {
      const mark = this.errors.length;
      this.attempting++;
      const v = this.ev(a, scope);
      this.attempting--;
      if (v !== FAIL && this.errors.length === mark) return { ok: true, value: v };
      if (this.steps > MAX_EVAL_STEPS) return { ok: false, errors: [] };
      const caught = this.errors.splice(mark);
      for (const x of caught) this.seen.delete(`${x.start}:${x.end}:${x.message}`);
      return { ok: false, errors: caught.map((x) => x.message) };
    });
    let out: Value;
    try {
      out = lazy(attempts);
    } catch (err) {
      // Too deep a nesting (RangeError) ends the whole evaluation (evaluate()).
      if (!(err instanceof FunctionError)) throw err;
      return this.steps > MAX_EVAL_STEPS ? FAIL : this.err(e, `Error in function call: ${e.name}: ${err.message}`);
    }
    return this.steps > MAX_EVAL_STEPS ? FAIL : out;
  }

  private iterate(coll: Expr, scope: Scope | undefined): [Value, Value][] | typeof FAIL {
    const c = this.ev(coll, scope);
    if (c === FAIL) return FAIL;
    if (Array.isArray(c)) return c.map((v, i) => [i, v ?? null]);
    if (isObject(c)) return sortedKeys(c).map((k) => [k, c[k] ?? null]);
    if (c === null) return this.err(coll, "Iteration over null value: a null value cannot be used as the collection in a 'for' expression.");
    return this.err(coll, `Iteration over non-iterable value: a ${typeName(c)} value cannot be used as the collection in a 'for' expression; a list or object is required.`);
  }

  private forExpr(e: ForExpr, scope: Scope | undefined): R {
    const items = this.iterate(e.collection, scope);
    if (items === FAIL) return FAIL;
    const list: Value[] = [];
    const obj = newObject();
    const seen = new Set<string>();
    for (const [k, v] of items) {
      if (!this.tick(e)) return FAIL;
      const inner = bind(scope, e.keyVar?.name, k, e.valueVar.name, v);
      if (e.condition) {
        const c = this.ev(e.condition, inner);
        const b = c === FAIL ? FAIL : this.condition(c, e.condition);
        if (b === FAIL) return FAIL;
        if (!b) continue;
      }
      let key: string | typeof FAIL = "";
      if (e.keyExpr) {
        const kv = this.ev(e.keyExpr, inner);
        key = kv === FAIL ? FAIL : this.key(kv, e.keyExpr);
      }
      const val = this.ev(e.valueExpr, inner);
      if (key === FAIL || val === FAIL) return FAIL;
      if (!e.keyExpr) list.push(val);
      else if (e.grouping) {
        if (!seen.has(key)) obj[key] = [];
        seen.add(key);
        (obj[key] as Value[]).push(val);
      } else if (seen.has(key)) {
        return this.err(e.keyExpr, `Duplicate object key: two different items produced the key "${key}" in this 'for' expression. If duplicates are expected, use the ellipsis (...) after the value expression to group them by key.`);
      } else {
        seen.add(key);
        obj[key] = val;
      }
    }
    return e.keyExpr ? obj : list;
  }
}

function bind(scope: Scope | undefined, keyName: string | undefined, k: Value, valueName: string, v: Value): Scope {
  const vars = new Map<string, Value>();
  if (keyName !== undefined) vars.set(keyName, k);
  vars.set(valueName, v);
  return { vars, parent: scope };
}
