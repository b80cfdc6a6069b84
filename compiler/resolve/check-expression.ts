import { dirname, resolve as resolvePath } from "node:path";
import { confine } from "../load/inside.js";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { suggest } from "../diagnostics/did-you-mean.js";
import type { Range } from "../diagnostics/range.js";
import { iterates, type ExprSource, type LocalSpec, type StepSpec } from "../decode/spec.js";
import type { JsonValue } from "../parse/document.js";
import { bareType, parseType } from "../decode/types.js";
import { childExprs, type Expr } from "../expr/ast.js";
import { traversalText, type Reference } from "../expr/references.js";
import { functionDocs, functionNames, RANGE_LIMIT } from "../expr/functions.js";
import { parseMemo, referencesMemo } from "../expr/parse-memo.js";
import type { Scope } from "./scope.js";
import { runsOnShell } from "./adapter-outputs.js";
import { CATCHING, constantErrors } from "./constant-errors.js";

/** Functions whose first argument is a path in the workflow's directory, by their argument count (docs/language.md, Functions). */
const PATH_FUNCTIONS = new Map([
  ["file", 1],
  ["templatefile", 2],
  ["fileset", 2],
]);

/**
 * Terraform functions criteria does not have, with what to write instead: a did-you-mean of
 * another name misled (found by a trial of the Go tool's docs: toset was offered "lower").
 */
const TERRAFORM_ONLY: Record<string, string> = {
  toset: "criteria has no sets: the set functions take lists (sethaselement([\"a\"], \"a\")), and distinct(list) drops repeats",
  tolist: "criteria converts no collection types: a list or a tuple is used as it is",
  tomap: "criteria converts no collection types: an object is used as a map as it is",
  sum: "criteria has no sum(): add the items with a for expression and a variable, or pass the total in",
  one: "criteria has no one(): write length(l) == 0 ? null : l[0]",
  alltrue: "criteria has no alltrue(): write length([for x in l : x if !x]) == 0",
  anytrue: "criteria has no anytrue(): write length([for x in l : x if x]) > 0",
  basename: "criteria has no basename(): write element(split(\"/\", p), length(split(\"/\", p)) - 1)",
  dirname: "criteria has no dirname(): path.module is the workflow's directory",
  abspath: "criteria has no abspath(): path.module, path.root and path.cwd are absolute",
};

/** Fields of `each` (docs/language.md, Expressions and namespaces). */
export const EACH_FIELDS = ["value", "key", "_idx", "_total", "_first", "_last", "_prev"];

/** Namespaces an expression may start with. */
export const NAMESPACES = ["var", "local", "each", "steps", "shared", "input", "memory", "data", "while", "path", "step", "output", "subworkflow"];

/** Fields of `while` (a while-iterating step's own expressions). */
export const WHILE_FIELDS = ["index", "first", "_prev"];

/** Fields of `path`: the workflow's directory, the project root, the working directory. */
export const PATH_FIELDS = ["module", "root", "cwd"];

/** Fields of `memory` (a run whose header sets `memory { script = true }`). */
export const MEMORY_FIELDS = ["text", "items"];

/** Where an expression stands, which decides what it may refer to. */
export interface ExprContext {
  scope: Scope;
  /** `each.*` is valid (an iterating step's own fields, or inside an iterating body). */
  each: boolean;
  /** When the innermost iterating step iterates over `steps.<step>` whose items' output keys are known: `each.value.<key>` must be one. */
  eachValueOf?: { step: string; keys: string[]; typeOf?: (key: string) => string | undefined; shell?: boolean };
  /** `steps.*` is valid (not in variable defaults or adapter config). */
  steps: boolean;
  /** What the expression belongs to, for messages: `step "a" input "x"`. */
  what: string;
  /** The output names `steps.<step>.*` may read, when they are known (a called module's outputs). */
  outputKeys?: (step: StepSpec, scope: Scope) => string[] | undefined;
  /** The declared type of output `key` of a step (`string`, `object({...})`), when one alone gives it. */
  outputType?: (step: StepSpec, scope: Scope, key: string) => string | undefined;
  /** Whether output `key` of a step is one its called module (or body) declares `secret = true`. */
  outputSecret?: (step: StepSpec, scope: Scope, key: string) => boolean;
  /** The output keys of each item of an iterating step `name` (as `outputKeys` gives them), when known. */
  itemKeys?: (name: string, scope: Scope) => string[] | undefined;
  /** The output keys of a `noop` step (its input echoed), if known: a read of another is warned of (`noop_output_missing`). */
  noopOutputKeys?: (step: StepSpec) => string[] | undefined;
  /** Told of every `input.<key>` read (a flow's caller must pass them); `name` undefined: the input read whole (`lookup(input, k)`). */
  readsInput?: (name: string | undefined, at: Range) => void;
  /** `memory.*` is valid: the workflow's header sets `memory { script = true }`. */
  memory?: boolean;
  /** What shown file paths are relative to (for `file("literal")` checks; default: the process's). */
  cwd?: string;
  /** Absolute directories outside the workflow's own that `file("literal")` may read ({@link ResolveOptions.fileRoots}). */
  fileRoots?: readonly string[];
  /** `while.*` is valid: an expression of a while-iterating step. */
  while?: boolean;
  /** `step.output.*` is valid: an outcome's `output` or `write` (the step's own result). */
  step?: boolean;
  /** `output.*` is valid: a `write` value (the outcome's projection over the step's output; engine/run/outcome-effects.ts). */
  projected?: boolean;
  /** The keys `output.*` has there, when known (the outcome's projection and the step's own result): `output.<key>` must be one. */
  projectedKeys?: string[];
  /** The keys the step's own result has, when known (a called module's declared outputs): `subworkflow.<key>` and `step.output.<key>` must be one. */
  ownOutputKeys?: string[];
  /**
   * A secret variable may be read here: a `secret_input` or adapter `secrets` value, a
   * `secret` output, a condition (it yields a bool, not the value), or a binding of a
   * module's secret variable. Anywhere else a secret would reach a recorded value.
   */
  secretOk?: boolean;
}

/** Offset → Range in the expression's file. */
export type RangeAt = (file: string, start: number, end: number) => Range;

/**
 * Offset → Range for positions inside `src` (offsets from `src.base`, as its parser gives
 * them): `exactRangeAt` itself when the text lies in the file as written; mapped character
 * by character for a YAML/JSON string written otherwise (`src.chars`: escapes, `''`,
 * folding, blocks); the whole expression's range when offsets inside it cannot be placed.
 */
export function exprRangeAt(src: ExprSource, exactRangeAt: RangeAt): RangeAt {
  if (!src.exact) return () => src.range;
  const chars = src.chars;
  if (!chars) return exactRangeAt;
  // The characters' places are worked out on the first call: when a diagnostic needs one.
  return (file, start, end) => {
    const offsets = chars.offsets();
    if (!offsets) return src.range;
    const at = (offset: number) => offsets[Math.max(0, Math.min(offset - src.base, offsets.length - 1))];
    return exactRangeAt(file, at(start), at(end));
  };
}

/**
 * Parses an expression or template (HCL text, or a YAML/JSON string template) and
 * checks its references against the scope: unknown `var`/`local`/`shared`/`steps`
 * names and unknown functions get a did-you-mean; `each.*` outside an iteration is
 * `each_outside_iteration`. Positions are exact (the text's offset in its file plus the
 * parser's index in the text). Returns the parsed expression (undefined for literals or on
 * a syntax error), shared and read-only, its offsets indexes in `src.text`: add `src.base`
 * for file offsets (compiler/expr/parse-memo.ts).
 */
export function checkExpression(src: ExprSource, ctx: ExprContext, exactRangeAt: RangeAt): { expr?: Expr; diagnostics: Diagnostic[] } {
  if (src.kind === "literal") return { diagnostics: [] };
  if (src.kind === "composite") return { diagnostics: (src.nested ?? []).flatMap((n) => checkExpression(n, ctx, exactRangeAt).diagnostics) };
  // The tree's offsets are indexes in the text (one parse serves the text wherever it stands):
  // positions in the file are the text's own offset plus those.
  const inFile = exprRangeAt(src, exactRangeAt);
  const base = src.base;
  const rangeAt: RangeAt = (f, start, end) => inFile(f, base + start, base + end);
  const file = src.range.file;
  const parsed = parseMemo(src.kind === "hcl" ? "expression" : "template", src.text);
  const diagnostics: Diagnostic[] = [];
  for (const e of parsed.errors) {
    // Written as the HCL parser writes its own (found by a new-user trial: "Missing argument
    // separator: … found "}"." here, "missing argument separator: …" there): lower case, no
    // full stop, and the same hint for an unclosed "${".
    const message = e.message.replace(/\.$/, "");
    const unclosed = /^unclosed template interpolation/i.test(message);
    diagnostics.push(
      diag("expression_syntax", rangeAt(file, e.start, e.end), `${ctx.what}: ${message.charAt(0).toLowerCase()}${message.slice(1)}`, {
        ...(unclosed
          ? { hint: 'to write a literal "${" (for a shell or another template language), escape it as "$${"' }
          : /expected the start of an expression/i.test(message)
            ? { hint: "a value goes here: a quoted string, a number, true/false, a reference such as var.x, a list [...] or an object {...}" }
            : {}),
      }),
    );
  }
  if (!parsed.expr || parsed.errors.length > 0) return { diagnostics };
  // Where the reference being checked stands: made only when a diagnostic or a reader needs it.
  let current: Reference | undefined;
  const at = (): Range => (current ? rangeAt(file, current.start, current.end) : src.range);
  /** A key of the step's own result that its called module does not declare. */
  const ownKeyProblem = (key: string, raw: string) => {
    if (ctx.ownOutputKeys && !ctx.ownOutputKeys.includes(key)) {
      diagnostics.push(diag("unknown_reference", at(), `${ctx.what}: the called module has no output "${key}" (in ${raw})`, { hint: suggest(key, ctx.ownOutputKeys) ?? `its outputs: ${ctx.ownOutputKeys.join(", ")}` }));
    }
  };
  // The spans of try() and can() calls: a read inside one is caught, not a failure of the run,
  // and so is one a can() of the same read tests (`can(x) ? x : y`). By the tree, not the text
  // (found by a trial of the primitive-read check: `try( var.s.x, "")` and `try(upper(var.s.x),
  // "")` were not taken for caught, and a bare read beside a try() of it was).
  const catching: { name: string; start: number; end: number }[] = [];
  if (src.text.includes("try") || src.text.includes("can")) walk(parsed.expr, (e) => void (e.kind === "call" && CATCHING.has(e.name) && catching.push({ name: e.name, start: e.start, end: e.end })));
  const within = (r: Reference, names: string[]) => catching.some((c) => names.includes(c.name) && r.start >= c.start && r.end <= c.end);
  const canTested = new Set(catching.some((c) => c.name === "can") ? referencesMemo(parsed.expr).filter((r) => within(r, ["can"])).map((r) => r.raw) : []);
  const inCatch = (r: Reference) => canTested.has(r.raw) || within(r, [...CATCHING]);
  for (const ref of referencesMemo(parsed.expr)) {
    current = ref;
    const first = ref.path[0];
    const name = typeof first === "string" ? first : undefined;
    const s = ctx.scope;
    switch (ref.root) {
      case "var":
      case "local":
      case "shared": {
        const table = ref.root === "var" ? "variables" : ref.root === "local" ? "locals" : "shared";
        if (name === undefined) {
          diagnostics.push(diag("unknown_reference", at(), `${ctx.what}: "${ref.root}" needs a name, e.g. ${ref.root}.name`));
        } else if (s.lookup(table, name)) {
          const found = s.lookup(table, name)!;
          found.scope.used.add(`${table}:${name}`);
          // A field of a variable declared a string, number or bool (found by a new-user trial: var.ledger.x validated, and failed the run).
          // And of a local whose value is one (a new-user trial's leftover: local.l.x of l = "text").
          const past = inCatch(ref)
            ? undefined
            : table === "variables"
              ? readPastPrimitive(`var.${name}`, (found.decl as { type?: string }).type, ref.path.slice(1), ref.raw)
              : table === "locals"
                ? readPastPrimitive(`local.${name}`, localValueType((found.decl as LocalSpec).value), ref.path.slice(1), ref.raw, "value")
                : undefined;
          if (past) diagnostics.push(diag("unknown_reference", at(), `${ctx.what}: ${past.message}`, { hint: past.hint }));
          if (table === "variables" && (found.decl as { secret?: boolean }).secret && !ctx.secretOk) {
            diagnostics.push(
              diag("secret_exposed", at(), `${ctx.what}: var.${name} is secret, and this value is not (it would be recorded, shown or passed in plain)`, {
                hint: "pass a secret to a step with secret_input { NAME = var.x } or an adapter's secrets { NAME = var.x } (the process sees it as an environment variable), or mark an output secret = true",
              }),
            );
          }
        } else {
          const noun = ref.root === "var" ? "variable" : ref.root === "local" ? "local value" : "shared variable";
          diagnostics.push(diag("unknown_reference", at(), `${ctx.what}: unknown ${noun} "${name}" (in ${ref.raw})`, { hint: suggest(name, s.visible(table)) ?? `declare it: ${declHint(ref.root, name)}` }));
        }
        break;
      }
      case "each":
        if (!ctx.each) {
          diagnostics.push(
            diag("each_outside_iteration", at(), `${ctx.what}: "${ref.raw}" is only available inside an iterating step (count, for_each, parallel)`, {
              hint: "move the expression into the iterating step or its workflow body",
            }),
          );
        } else if (name !== undefined && !EACH_FIELDS.includes(name)) {
          diagnostics.push(diag("unknown_reference", at(), `${ctx.what}: each has no field "${name}"`, { hint: suggest(name, EACH_FIELDS) }));
        } else if (name === "value" && ctx.eachValueOf && typeof ref.path[1] === "string" && !ctx.eachValueOf.keys.includes(ref.path[1])) {
          // An item of a module's (or body's, or shell step's) outputs (found by a new-user trial:
          // each.value.artifct validated, and failed every item of the run).
          const { step, keys } = ctx.eachValueOf;
          diagnostics.push(diag("unknown_reference", at(), `${ctx.what}: each.value is an item of steps.${step}, which has no output "${ref.path[1]}" (in ${ref.raw})`, { hint: suggest(ref.path[1], keys) ?? `its items' outputs: ${keys.join(", ")}` }));
        } else if (name === "value" && ctx.eachValueOf && typeof ref.path[1] === "string") {
          // A field of an item's output of a known primitive type (a new-user trial: each.value.result.x in a body).
          const key = ref.path[1];
          const past = inCatch(ref) ? undefined : readPastPrimitive(`each.value.${key}`, ctx.eachValueOf.typeOf?.(key), ref.path.slice(2), ref.raw, ctx.eachValueOf.shell ? "shell" : "declared");
          if (past) diagnostics.push(diag("unknown_reference", at(), `${ctx.what}: ${past.message}`, { hint: past.hint }));
        }
        break;
      case "steps":
        if (!ctx.steps) {
          diagnostics.push(
            diag("unknown_reference", at(), `${ctx.what}: step outputs are not available here (it is evaluated before any step runs)`, {
              hint: "read steps.<name> in a step's input, an outcome's output or write, a switch or an output block",
            }),
          );
        } else if (name === undefined) {
          // Bare, or steps.123 (an index, not a name): found by a new-user trial, with no hint.
          diagnostics.push(diag("unknown_reference", at(), `${ctx.what}: "steps" needs a step name, e.g. steps.build.stdout`, { hint: "read steps.<name>.<key>; a step's name starts with a letter or _" }));
        } else if (!s.lookup("steps", name) && s.switchOutput(name)) {
          // A switch whose arms store an output (steps.<switch>.<key>).
          const keys = s.switchOutput(name)!;
          const key = ref.path[1];
          if (typeof key === "string" && !keys.includes(key)) {
            diagnostics.push(diag("unknown_reference", at(), `${ctx.what}: switch "${name}" stores no output "${key}" (in ${ref.raw})`, { hint: suggest(key, keys) ?? `its arms store: ${keys.join(", ")}` }));
          }
        } else if (!s.lookup("steps", name)) {
          diagnostics.push(diag("unknown_reference", at(), `${ctx.what}: unknown step "${name}" (in ${ref.raw})`, { hint: suggest(name, s.visible("steps")) ?? `no step "${name}" is declared here: declare it (step "${name}" { ... }), or remove the read` }));
        } else {
          const found = s.lookup("steps", name)!;
          const d = outputProblem(ref.path, ref.raw, found, ctx);
          // An output the called module marks secret is as secret as a secret variable (found by a
          // new-user trial: it reached a shell step's command line, which every user can read).
          const outputKey = ref.path[iterates(found.decl) ? 2 : 1];
          if (!d && !ctx.secretOk && typeof outputKey === "string" && ctx.outputSecret?.(found.decl, found.scope, outputKey)) {
            diagnostics.push(
              diag("secret_exposed", at(), `${ctx.what}: steps.${name}'s output "${outputKey}" is secret (the module marks it secret = true), and this value is not (it would be recorded, shown or passed in plain)`, {
                hint: `pass it to a step with secret_input { NAME = ${ref.raw} } (the process sees it as an environment variable), or mark an output secret = true`,
              }),
            );
          }
          if (d) diagnostics.push(diag("unknown_reference", at(), `${ctx.what}: ${d.message} (in ${ref.raw})`, { hint: d.hint }));
          else {
            const past = inCatch(ref) ? undefined : pastOutput(ref, found, ctx);
            if (past) diagnostics.push(diag("unknown_reference", at(), `${ctx.what}: ${past.message}`, { hint: past.hint }));
            else {
              // A noop step stands in for a step still to be written (the Go tool's own examples read a
              // placeholder's keys): a warning, not an error (found by a new-user trial: steps.verify.result
              // validated, and the run failed at the read).
              const keys = iterates(found.decl) ? undefined : ctx.noopOutputKeys?.(found.decl);
              const key = ref.path[1];
              // Not where a try() or can() of it catches the read (found by a trial of this check).
              const tested = inCatch(ref);
              if (keys && typeof key === "string" && !keys.includes(key) && !tested) {
                diagnostics.push(
                  diag("noop_output_missing", at(), `${ctx.what}: step "${name}" is a noop step, whose output is its input, and it has no "${key}" (in ${ref.raw}): the run fails at this read`, {
                    hint: suggest(key, keys) ?? `target the adapter that gives "${key}"${keys.length > 0 ? ` (the noop step gives ${keys.join(", ")})` : ""}`,
                  }),
                );
              }
            }
          }
        }
        break;
      case "input":
        ctx.readsInput?.(name, at());
        break;
      case "data": {
        // data.<kind>.<name>.value
        const [kind, dname, field] = ref.path;
        const key = typeof kind === "string" && typeof dname === "string" ? `${kind}.${dname}` : undefined;
        if (key === undefined) {
          diagnostics.push(diag("unknown_reference", at(), `${ctx.what}: write data values as data.<kind>.<name>.value (in ${ref.raw})`));
        } else if (!s.lookup("data", key)) {
          const known = s.visible("data");
          diagnostics.push(diag("unknown_reference", at(), `${ctx.what}: unknown data value "${key}" (in ${ref.raw})`, { hint: suggest(key, known) ?? `declare it: data "${kind}" "${dname}" { type = string }` }));
        } else {
          s.lookup("data", key)!.scope.used.add(`data:${key}`);
          if (field !== undefined && field !== "value") diagnostics.push(diag("unknown_reference", at(), `${ctx.what}: a data value has one field, "value" (in ${ref.raw})`, { hint: `write data.${key}.value` }));
        }
        break;
      }
      case "while":
        if (!ctx.while) {
          // Also said in a while step's body, whose steps read each.* (a new-user trial: "only inside a step that iterates with while" read as wrong there).
          diagnostics.push(diag("each_outside_iteration", at(), `${ctx.what}: "${ref.raw}" is only available in the expressions of a step that iterates with while, not in the steps of its body`, { hint: "use it in the while step's own expressions; a body's steps read the iteration's index as each._idx" }));
        } else if (name !== undefined && !WHILE_FIELDS.includes(name)) {
          diagnostics.push(diag("unknown_reference", at(), `${ctx.what}: while has no field "${name}"`, { hint: suggest(name, WHILE_FIELDS) ?? `its fields: ${WHILE_FIELDS.join(", ")}` }));
        }
        break;
      case "path":
        if (name !== undefined && !PATH_FIELDS.includes(name)) {
          diagnostics.push(diag("unknown_reference", at(), `${ctx.what}: path has no field "${name}"`, { hint: suggest(name, PATH_FIELDS) ?? `its fields: ${PATH_FIELDS.join(", ")}` }));
        }
        break;
      case "output":
        // The projection: a write reads it (engine/run/outcome-effects.ts); an outcome's output is what makes it.
        if (!ctx.projected) {
          diagnostics.push(
            diag("unknown_reference", at(), `${ctx.what}: "${ref.raw}" is only available in an outcome's write value (the outcome's output over the step's own)`, {
              hint: ctx.step ? "here, read the step's own result as step.output.<key>" : "elsewhere, read a step's output as steps.<name>.<key>",
            }),
          );
        } else if (ctx.projectedKeys && name !== undefined && !ctx.projectedKeys.includes(name)) {
          // Known before the run (found by a new-user trial: a write reading a key the projection lacks failed at run time).
          const keys = ctx.projectedKeys;
          diagnostics.push(
            diag("unknown_reference", at(), `${ctx.what}: the output it reads has no "${name}" (in ${ref.raw})`, {
              hint: suggest(name, keys) ?? (keys.length > 0 ? `it has: ${keys.join(", ")}` : `set it in the outcome's output (output = { ${name} = ... }): an iterating step's own result is a list`),
            }),
          );
        }
        break;
      case "subworkflow":
        if (!ctx.step) {
          diagnostics.push(diag("unknown_reference", at(), `${ctx.what}: "${ref.raw}" is only available in an outcome's output or write (the step's own result)`, { hint: "elsewhere, read a step's output as steps.<name>.<key>" }));
        } else if (name !== undefined) ownKeyProblem(name, ref.raw);
        break;
      case "step":
        if (!ctx.step) {
          const asStep = name !== undefined && s.lookup("steps", name) ? `did you mean steps.${ref.raw.slice("step.".length)}?` : undefined;
          diagnostics.push(diag("unknown_reference", at(), `${ctx.what}: "${ref.raw}" is only available in an outcome's output or write (the step's own result)`, { hint: asStep ?? "elsewhere, read a step's output as steps.<name>.<key>" }));
        } else if (name !== undefined && name !== "output") {
          const asStep = s.lookup("steps", name) ? `did you mean steps.${ref.raw.slice("step.".length)}?` : "write step.output.<key>";
          diagnostics.push(diag("unknown_reference", at(), `${ctx.what}: step has one field, "output" (in ${ref.raw})`, { hint: asStep }));
        } else if (typeof ref.path[1] === "string") ownKeyProblem(ref.path[1], ref.raw);
        break;
      case "memory":
        if (!ctx.memory) {
          diagnostics.push(diag("unknown_reference", at(), `${ctx.what}: "${ref.raw}" is only available when the workflow's header sets memory { script = true }`, { hint: "add memory { script = true } to the workflow header" }));
        } else if (name !== undefined && !MEMORY_FIELDS.includes(name)) {
          diagnostics.push(diag("unknown_reference", at(), `${ctx.what}: memory has no field "${name}"`, { hint: suggest(name, MEMORY_FIELDS) ?? `its fields: ${MEMORY_FIELDS.join(", ")}` }));
        }
        break;
      default:
        diagnostics.push(
          diag("unknown_reference", at(), `${ctx.what}: unknown name "${ref.root}"`, {
            hint: bareNameHint(ref.root, s) ?? suggest(ref.root, [...(ref.bound ?? []), ...NAMESPACES]) ?? `references start with one of ${NAMESPACES.join(", ")}`,
          }),
        );
    }
  }
  // (Each walk only where its text can hold what it looks for: every keystroke checks every expression.)
  if (src.text.includes("for")) diagnostics.push(...forItemKeys(parsed.expr, ctx, (st, e) => rangeAt(file, st, e)));
  // What lies inside an argument of try() or can(): a file it reads may be missing there
  // (can(file("local.env")) is false then, as in Terraform).
  // A path tested there, or by fileexists(), may be read elsewhere in the expression too:
  // can(file("local.env")) ? file("local.env") : "" (found by a trial of this check).
  const caught = new Set<Expr>();
  const tested = new Set<string>();
  if (src.text.includes("try") || src.text.includes("can") || src.text.includes("fileexists")) {
    walk(parsed.expr, (e) => {
      if (e.kind !== "call") return;
      if (CATCHING.has(e.name)) for (const a of e.args) walk(a, (x) => void caught.add(x));
      const arg = e.args[0];
      if ((e.name === "fileexists" || (PATH_FUNCTIONS.has(e.name) && caught.has(e))) && arg?.kind === "literal" && typeof arg.value === "string") tested.add(arg.value);
    });
  }
  walk(parsed.expr, (e) => {
    if (e.kind !== "call") return;
    const f = functionDocs().find((d) => d.name === e.name);
    if (!f) {
      diagnostics.push(diag("unknown_function", rangeAt(file, e.start, e.nameEnd), `${ctx.what}: unknown function "${e.name}"`, { hint: TERRAFORM_ONLY[e.name] ?? suggest(e.name, functionNames()) }));
      return;
    }
    const n = e.args.length;
    if (!e.expandFinal && (n < f.minArgs || n > f.maxArgs)) {
      const want = f.minArgs === f.maxArgs ? `${f.minArgs}` : f.maxArgs === Infinity ? `at least ${f.minArgs}` : `${f.minArgs} to ${f.maxArgs}`;
      // "1 argument", "at least 1 argument"; "0 to 1 arguments", "2 arguments".
      const one = f.minArgs === 1 && (f.maxArgs === 1 || f.maxArgs === Infinity);
      diagnostics.push(diag("invalid_value", rangeAt(file, e.start, e.end), `${ctx.what}: ${e.name}() takes ${want} argument${one ? "" : "s"}, not ${n}`, { hint: `${e.name}(${f.params})` }));
    }
    // range() of literals: what it makes is known now, and what fails at run time (a step of 0,
    // a step going away from the limit, over the limit) can be said now (compiler/expr/functions.ts's range).
    const numbers = e.args.map(literalNumber);
    if (e.name === "range" && n >= 1 && n <= 3 && numbers.every((x) => x !== undefined)) {
      const [a, b, c] = numbers as number[];
      const [start, limit] = n === 1 ? [0, a] : [a, b];
      const step = n === 3 ? c : start <= limit ? 1 : -1;
      const count = Math.ceil((limit - start) / step);
      const problem =
        step === 0
          ? { message: "range() with a step of 0 would never end", hint: "give it a step other than 0" }
          : (step > 0 && start > limit) || (step < 0 && start < limit)
            ? { message: `range() with a step of ${step} can never reach the limit ${limit} from ${start}`, hint: `give it a step of ${-step}, or swap the start and the limit` }
            : count > RANGE_LIMIT
              ? { message: `range() would make ${count} values; it makes at most ${RANGE_LIMIT}`, hint: "use a smaller range or a larger step" }
              : undefined;
      if (problem) diagnostics.push(diag("invalid_value", rangeAt(file, e.start, e.end), `${ctx.what}: ${problem.message}`, { hint: problem.hint }));
    }
    // file("literal"), templatefile("literal", …), fileset("literal", …): the path must exist
    // (unless a try() or can() catches its absence) and stay inside the workflow's directory
    // (the engine refuses it at run time otherwise; say so now).
    const arg = e.args[0];
    if (PATH_FUNCTIONS.has(e.name) && n === PATH_FUNCTIONS.get(e.name) && arg?.kind === "literal" && typeof arg.value === "string") {
      const found = filePathProblem(resolvePath(ctx.cwd ?? process.cwd(), file), arg.value, ctx.fileRoots ?? []);
      const problem = found?.code === "file_not_found" && (caught.has(e) || tested.has(arg.value)) ? undefined : found;
      const shown = `${e.name}("${arg.value}"${n > 1 ? ", …" : ""})`;
      if (problem?.code === "file_not_found" && e.name === "fileset") {
        // A missing directory fails the run's fileset() (the Go tool's workflow.md: "errors on
        // a missing directory so failures are loud"), unless an earlier step makes it: a
        // warning (found by a trial of its docs: validate said nothing, the run failed).
        diagnostics.push(diag("file_not_found", rangeAt(file, arg.start, arg.end), `${ctx.what}: ${shown}: the directory does not exist now, and the run fails here unless an earlier step makes it`, { severity: "warning", hint: "create the directory (an empty one lists nothing), or guard it: try(fileset(...), [])" }));
      } else if (problem) {
        const hint = `paths are relative to the workflow's directory and may not leave it${problem.code === "path_outside_root" ? ", unless CRITERIA_WORKFLOW_ALLOWED_PATHS lists a directory that holds them" : ""}`;
        diagnostics.push(diag(problem.code, rangeAt(file, arg.start, arg.end), `${ctx.what}: ${shown} ${problem.message}`, { hint }));
      }
    }
  });
  // What fails every evaluation (a constant part's error) is said now, unless something
  // above already said what is wrong with the expression.
  if (diagnostics.length === 0) {
    for (const e of constantErrors(parsed.expr)) {
      const message = e.message.replace(/\.$/, "");
      diagnostics.push(diag("invalid_value", rangeAt(file, e.start, e.end), `${ctx.what}: ${message.charAt(0).toLowerCase()}${message.slice(1)}`, { hint: "it references nothing, so every run fails here the same way" }));
    }
  }
  diagnostics.push(...exitCodeAsText(parsed.expr, ctx, (s, e) => rangeAt(file, s, e)));
  return { expr: parsed.expr, diagnostics };
}

/**
 * `steps.<step>.<key>` (or `steps.<step>[i].<key>` for an iterating step) where the
 * step calls a module with declared outputs: the key must be one of them (docs/language.md, Composition:
 * "an unknown output name is an error with a did-you-mean").
 */
function outputProblem(path: (string | number)[], raw: string, found: { decl: StepSpec; scope: Scope }, ctx: ExprContext): { message: string; hint?: string } | undefined {
  const st = found.decl;
  const iterating = iterates(st);
  // An iterating step's output is a list, one item per iteration.
  if (iterating && typeof path[1] === "string") {
    const how = st.count !== undefined ? "count" : st.forEach !== undefined ? "for_each" : st.while !== undefined ? "while" : "parallel";
    // steps.s["k"]: a key where an item's number goes (a for_each over a map is listed in key order too).
    if (raw.startsWith(`steps.${st.name}[`)) {
      const after = typeof path[2] === "string" ? `.${path[2]}` : "";
      // A for_each over a map written out: its items go in key order, so the key's number is known
      // (found by a new-user trial: the hint said [0] for the second key).
      const literal = st.forEach?.kind === "literal" || st.forEach?.kind === "composite" ? st.forEach.value : undefined;
      const keys = literal !== null && typeof literal === "object" && !Array.isArray(literal) ? Object.keys(literal).sort() : undefined;
      const index = keys?.indexOf(path[1]) ?? -1;
      return {
        message: `steps.${st.name} is a list (one output per ${how} item, in item order), indexed by number, not by key "${path[1]}"`,
        hint: index >= 0 ? `write steps.${st.name}[${index}]${after} (the items of a map go in key order: "${path[1]}" is item ${index})` : `write steps.${st.name}[<index>]${after}: the items of a map go in key order`,
      };
    }
    // The Go tool's docs read an iterating step's items as steps.<step>.outputs (found by a trial of them).
    if (path[1] === "outputs" && path.length === 2) {
      return { message: `steps.${st.name} is a list (one output per ${how} item), not an object`, hint: `steps.${st.name} itself is the list of its items' outputs: write steps.${st.name} (length(steps.${st.name}) counts them)` };
    }
    return { message: `steps.${st.name} is a list (one output per ${how} item), not an object`, hint: `write steps.${st.name}[0].${path[1]}, or [for r in steps.${st.name} : r.${path[1]}]` };
  }
  const keys = ctx.outputKeys?.(found.decl, found.scope);
  if (!keys) return undefined;
  const key = iterating ? (typeof path[1] === "number" ? path[2] : undefined) : path[1];
  if (typeof key !== "string" || keys.includes(key)) return undefined;
  return { message: `step "${st.name}" has no output "${key}"`, hint: suggest(key, keys) ?? `its outputs: ${keys.join(", ")}` };
}

/**
 * A read past a value of a declared primitive type (`var.ledger.x` of a string, `steps.s.stdout.x`,
 * a module's output declared `number` read `[0]`): the run fails at it ("Unsupported attribute"),
 * so it is said before (found by a new-user trial: validate passed it, and the run failed after
 * every effect); the caller leaves out a read inside a `try()` or `can()`. `rest` is what the
 * read takes of it, followed through the type's items and attributes (`var.l[0].x` of a
 * `list(string)`: a trial of this check); a key the type does not hold, or `any`, ends the search.
 */
function readPastPrimitive(shown: string, type: string | undefined, rest: (string | number)[], raw: string, from: "declared" | "shell" | "value" = "declared"): { message: string; hint: string } | undefined {
  const shell = from === "shell";
  if (type === undefined || rest.length === 0) return undefined;
  let t = parseType(type).type;
  let at = shown;
  let i = 0;
  for (; i < rest.length && t; i++) {
    const step = rest[i];
    if (t.kind === "string" || t.kind === "number" || t.kind === "bool") break;
    if (t.kind === "list" && typeof step === "number") t = t.of;
    else if (t.kind === "map") t = t.of;
    else if (t.kind === "tuple" && typeof step === "number") t = t.items[step];
    else if (t.kind === "object" && typeof step === "string" && step in t.fields) t = t.fields[step];
    else return undefined;
    at += typeof step === "number" ? `[${step}]` : `.${step}`;
  }
  const next = rest[i];
  if (!t || next === undefined || (t.kind !== "string" && t.kind !== "number" && t.kind !== "bool")) return undefined;
  if (at !== shown) {
    const what = typeof next === "string" ? `field "${next}"` : `item [${next}]`;
    return { message: `${at} is a ${t.kind} (${shown} is ${bareType(type)}), which has no ${what} (in ${raw})`, hint: `read ${at} itself, or declare ${shown} with objects where it holds fields` };
  }
  const what = typeof next === "string" ? `field "${next}"` : `item [${next}]`;
  const access = typeof next === "string" ? `.${next}` : `[${next}]`;
  // A shell step's text is what it printed: JSON it prints is read through jsondecode().
  const hint = shell
    ? t.kind === "string" ? `read ${shown} itself; for JSON the step prints, jsondecode(${shown})${access}` : `read ${shown} itself`
    : from === "value"
      ? typeof next === "string" ? `read ${shown} itself, or give it an object value ({ ${next} = ... }) if it should hold fields` : `read ${shown} itself, or give it a list value ([...]) if it should hold items`
      : typeof next === "string"
        ? `read ${shown} itself, or declare it an object (type = object({ ${next} = string })) if it holds fields`
        : `read ${shown} itself, or declare it a list (type = list(${t.kind})) if it holds items`;
  const why = shell ? "a shell step's" : from === "value" ? "its value" : "its declared type";
  return { message: `${shown} is a ${t.kind} (${why}), which has no ${what} (in ${raw})`, hint };
}

/**
 * The type of a local's value when its expression alone gives it: a literal string, number
 * or bool, or a template that joins text (`"run-${var.n}"`, a string). Undefined for any
 * other (a reference, a call, a collection, `"${var.x}"` which is var.x itself): locals
 * carry no declared type.
 */
export function localValueType(value: ExprSource): string | undefined {
  const primitive = (v: JsonValue | undefined) => (typeof v === "string" ? "string" : typeof v === "number" ? "number" : typeof v === "boolean" ? "bool" : undefined);
  if (value.kind === "literal") return primitive(value.value);
  if (value.kind === "composite") return undefined;
  let e = parseMemo(value.kind === "hcl" ? "expression" : "template", value.text).expr;
  while (e?.kind === "paren") e = e.expr;
  if (e?.kind === "literal") return primitive(e.value === null ? undefined : e.value);
  if (e?.kind === "template") return e.parts.length === 1 && e.parts[0].kind === "template_interp" ? undefined : "string";
  return undefined;
}

/** {@link readPastPrimitive} for `steps.<s>.<key>.…` (`steps.<s>[i].<key>.…` for an iterating step) of a step whose output `key` has a declared type. */
function pastOutput(ref: Reference, found: { decl: StepSpec; scope: Scope }, ctx: ExprContext): { message: string; hint: string } | undefined {
  const indexed = iterates(found.decl);
  if (indexed && typeof ref.path[1] !== "number") return undefined;
  const key = ref.path[indexed ? 2 : 1];
  // Most reads end at the key (steps.s.stdout): nothing to look up.
  if (typeof key !== "string" || ref.path.length <= (indexed ? 3 : 2)) return undefined;
  const shown = indexed ? `steps.${found.decl.name}[${ref.path[1]}].${key}` : `steps.${found.decl.name}.${key}`;
  const shell = runsOnShell(found.decl.target);
  return readPastPrimitive(shown, ctx.outputType?.(found.decl, found.scope, key), ref.path.slice(indexed ? 3 : 2), ref.raw, shell ? "shell" : "declared");
}

/**
 * `[for o in steps.<s> : o.<key>]` where `<s>` iterates and its items' output keys are known
 * (a called module's or a body's declared outputs, a shell step's): each `o.<key>` the
 * expression reads (outside a `try`/`can`, and not where an inner `for` binds the name again)
 * must be one of them, as `steps.<s>[0].<key>` must (found by a new-user trial: a typo in a
 * `for` over a module's outputs validated, and failed the run after every effect).
 */
function forItemKeys(expr: Expr, ctx: ExprContext, rangeAt: (start: number, end: number) => Range): Diagnostic[] {
  const out: Diagnostic[] = [];
  const reads = (e: Expr, name: string, keys: string[], step: string): void => {
    if (e.kind === "call" && CATCHING.has(e.name)) return;
    if (e.kind === "for" && (e.valueVar.name === name || e.keyVar?.name === name)) return reads(e.collection, name, keys, step);
    if (e.kind === "scope_traversal" && e.root === name) {
      const first = e.steps[0];
      const key = first?.kind === "attr" ? first.name : first?.kind === "index" && first.key.kind === "literal" && typeof first.key.value === "string" ? first.key.value : undefined;
      if (key !== undefined && !keys.includes(key)) {
        out.push(
          diag("unknown_reference", rangeAt(e.start, e.end), `${ctx.what}: ${name} is an item of steps.${step}, which has no output "${key}" (in ${traversalText(e)})`, {
            hint: suggest(key, keys) ?? `its items' outputs: ${keys.join(", ")}`,
          }),
        );
      }
      return;
    }
    for (const c of childExprs(e)) reads(c, name, keys, step);
  };
  walk(expr, (e) => {
    if (e.kind !== "for") return;
    const c = e.collection;
    const first = c.kind === "scope_traversal" && c.root === "steps" && c.steps.length === 1 ? c.steps[0] : undefined;
    if (first?.kind !== "attr") return;
    const keys = ctx.itemKeys?.(first.name, ctx.scope);
    if (!keys) return;
    for (const part of [e.valueExpr, e.condition]) if (part) reads(part, e.valueVar.name, keys, first.name);
  });
  return out;
}

/**
 * Why a literal `file()` path cannot be read at run time, if it cannot: as the engine
 * confines it (engine/run/workflow-files.ts), to the workflow's directory and `extraRoots`,
 * the path as written and its real path both (found by a new-user trial: validate refused a
 * path CRITERIA_WORKFLOW_ALLOWED_PATHS allowed, which the run would have read).
 */
function filePathProblem(sourceFile: string, path: string, extraRoots: readonly string[]): { code: "file_not_found" | "path_outside_root"; message: string } | undefined {
  let where: ReturnType<typeof confine>;
  try {
    where = confine([dirname(sourceFile), ...extraRoots], path);
  } catch {
    return undefined; // unreadable now: the run says what it finds
  }
  if ("missing" in where) return { code: "file_not_found", message: "does not exist" };
  if ("outside" in where) return { code: "path_outside_root", message: where.outside === "written" ? "points outside the workflow's directory" : "is a symlink to a file outside the workflow's directory" };
  return undefined;
}

/**
 * A hint for a name written without its namespace: a declared variable, local, shared
 * variable or step of that name (`branch` for `var.branch`), or a shell variable
 * (`${HOME}` in a command, which the workflow would evaluate: `$${HOME}` leaves it to the shell).
 */
function bareNameHint(name: string, s: Scope): string | undefined {
  for (const [table, prefix] of [["variables", "var"], ["locals", "local"], ["shared", "shared"], ["steps", "steps"]] as const) {
    if (s.lookup(table, name)) return `did you mean ${prefix}.${name}?`;
  }
  if (/^[A-Z_][A-Z0-9_]*$/.test(name)) return `to leave \${${name}} to the shell, write $\${${name}}`;
  return undefined;
}

/**
 * The places `expr` reads `steps.<name>` (of `step`, or of any name when it is not given)
 * where nothing can skip the read: not in a conditional's branch (`c ? steps.s.x : ""`),
 * the right operand of `&&` or `||`, a template's `%{if}`, a `for`'s body, or an argument
 * of `try` or `can` (`try(steps.s.x, "")`) — except the branch or operand taken exactly
 * when a `can()` of that read (or of a part of its path) is false, where the read is sure
 * to fail if the step has not run (`can(steps.s) ? "" : steps.s.x`, `!can(steps.s) &&
 * steps.s.ok`; `wrongArm` is set; found by a trial of try/can). The ranges are offsets as
 * `expr` has them (indexes in its text, from checkExpression); `raw` is the reference as
 * written canonically (`steps.s.x`).
 */
export function unguardedReads(expr: Expr, step?: string): readonly UnguardedRead[] {
  if (step !== undefined) return allUnguardedReads(expr).filter((r) => r.step === step);
  return allUnguardedReads(expr);
}

/** A read {@link unguardedReads} finds. */
export interface UnguardedRead {
  step: string;
  start: number;
  end: number;
  raw: string;
  /** Set when the read is in the branch taken when `can(<this>)` is false: what `can()` tested. */
  wrongArm?: string;
}

/**
 * Every unguarded read of `expr`, found once per parsed expression: parse-memo.ts gives a
 * keystroke's unchanged expressions their parsed trees again, so an editor's checks walk
 * only what changed (check-step-reads.ts asks of every expression of the workflow).
 */
const readsOf = new WeakMap<Expr, readonly UnguardedRead[]>();

function allUnguardedReads(expr: Expr): readonly UnguardedRead[] {
  const known = readsOf.get(expr);
  if (known) return known;
  const out: UnguardedRead[] = [];
  const visit = (e: Expr): void => {
    if (e.kind === "scope_traversal") {
      const first = e.steps[0];
      const name = first?.kind === "attr" ? first.name : first?.kind === "index" && first.key.kind === "literal" ? first.key.value : undefined;
      if (e.root === "steps" && typeof name === "string") out.push({ step: name, start: e.start, end: e.end, raw: traversalText(e) });
      return;
    }
    if (e.kind === "conditional") {
      visit(e.condition);
      const probe = canProbe(e.condition);
      if (probe) failing(probe.ran ? e.falseExpr : e.trueExpr, probe.raw);
      return;
    }
    if (e.kind === "binary" && (e.op === "&&" || e.op === "||")) {
      visit(e.left);
      // The right of `&&` is evaluated when the left is true, of `||` when it is false.
      const probe = canProbe(e.left);
      if (probe && probe.ran === (e.op === "||")) failing(e.right, probe.raw);
      return;
    }
    if (e.kind === "call" && CATCHING.has(e.name)) return;
    if (e.kind === "for") return visit(e.collection);
    if (e.kind === "template") {
      for (const p of e.parts) {
        if (p.kind === "template_interp") visit(p.expr);
        else if (p.kind === "template_if") visit(p.condition);
        else if (p.kind === "template_for") visit(p.collection);
      }
      return;
    }
    for (const c of childExprs(e)) visit(c);
  };
  // In `arm`, taken when can(`tested`) is false: the reads of `tested` or below it fail there.
  const failing = (arm: Expr, tested: string) => {
    const mark = out.length;
    visit(arm);
    const found = out.splice(mark);
    for (const r of found) if (r.raw === tested || r.raw.startsWith(`${tested}.`) || r.raw.startsWith(`${tested}[`)) out.push({ ...r, wrongArm: tested });
  };
  visit(expr);
  readsOf.set(expr, out);
  return out;
}

/** `can(steps.<s>…)`, under any number of `!`: the reference it tests and whether it is true when the step ran. */
function canProbe(e: Expr): { raw: string; ran: boolean } | undefined {
  let ran = true;
  while (e.kind === "unary" && e.op === "!") {
    ran = !ran;
    e = e.operand;
  }
  if (e.kind !== "call" || e.name !== "can" || e.args.length !== 1) return undefined;
  const arg = e.args[0];
  return arg.kind === "scope_traversal" && arg.root === "steps" && arg.steps.length > 0 ? { raw: traversalText(arg), ran } : undefined;
}

/** The number a literal is (`-1` too: a minus before a number literal), or undefined. */
function literalNumber(e: Expr): number | undefined {
  if (e.kind === "literal") return typeof e.value === "number" ? e.value : undefined;
  if (e.kind === "unary" && e.op === "-" && e.operand.kind === "literal" && typeof e.operand.value === "number") return -e.operand.value;
  return undefined;
}

/**
 * The declaration an unknown `var.`, `local.` or `shared.` name asks for, in HCL (the
 * diagnostic puts it in the file's dialect: diagnostics/dialect-hint.ts). Locals in their
 * canonical form, `locals { x = "..." }` (docs/language.md; found by a new-user trial: the
 * hint gave the older `local "x" { value = ... }`, which YAML and JSON cannot say).
 */
function declHint(root: string, name: string): string {
  if (root === "var") return `variable "${name}" { type = string }`;
  if (root === "local") return `locals { ${name} = "..." }`;
  return `shared_variable "${name}" { type = string }`;
}

function walk(e: Expr, f: (e: Expr) => void): void {
  const stack: Expr[] = [e];
  while (stack.length > 0) {
    const x = stack.pop()!;
    f(x);
    stack.push(...childExprs(x));
  }
}

/**
 * `steps.<shell step>.exit_code == "0"`: the Go tool's outputs are strings and its docs
 * compare so, but criteria's `exit_code` is a number, and a number never equals a string:
 * the comparison is always false (`!=` always true), silently (found by a trial of its
 * language: the v0.5.7 workflow.md's switch example took its default). A warning at the
 * comparison, for `==` and `!=` with a quoted literal on either side.
 */
function exitCodeAsText(root: Expr, ctx: ExprContext, rangeAt: (start: number, end: number) => Range): Diagnostic[] {
  const out: Diagnostic[] = [];
  const exitCodeOf = (e: Expr): string | undefined => {
    if (e.kind !== "scope_traversal" || e.root !== "steps") return undefined;
    const [first, ...rest] = e.steps;
    const last = rest[rest.length - 1];
    if (first?.kind !== "attr" || last?.kind !== "attr" || last.name !== "exit_code" || rest.length > 2) return undefined;
    if (rest.length === 2 && rest[0].kind !== "index" && rest[0].kind !== "legacy_index") return undefined;
    const target = ctx.scope.lookup("steps", first.name)?.decl.target;
    return runsOnShell(target) ? first.name : undefined;
  };
  const stack: Expr[] = [root];
  while (stack.length > 0) {
    const e = stack.pop()!;
    stack.push(...childExprs(e));
    if (e.kind !== "binary" || (e.op !== "==" && e.op !== "!=")) continue;
    for (const [ref, lit] of [[e.left, e.right], [e.right, e.left]] as const) {
      const step = exitCodeOf(ref);
      if (step === undefined || lit.kind !== "literal" || typeof lit.value !== "string") continue;
      const n = Number(lit.value);
      out.push(
        diag("exit_code_as_text", rangeAt(e.start, e.end), `${ctx.what}: steps.${step}.exit_code is a number, so it never equals the text ${JSON.stringify(lit.value)}: this ${e.op} is always ${e.op === "!=" ? "true" : "false"}`, {
          hint: Number.isInteger(n) && lit.value.trim() !== "" ? `compare with the number: exit_code ${e.op} ${n} (the Go tool's outputs were text)` : "compare exit_code with a number",
        }),
      );
    }
  }
  return out;
}
