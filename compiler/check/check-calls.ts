import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { exprAs, writtenExpr } from "../diagnostics/dialect-hint.js";
import { closestName, suggest } from "../diagnostics/did-you-mean.js";
import type { Range } from "../diagnostics/range.js";
import type { ExprSource, StepSpec } from "../decode/spec.js";
import { bareType, mismatch, parseType, typeMismatchHint } from "../decode/types.js";
import { flowFailed, type ModuleInterface } from "../resolve/module-interface.js";
import type { Scope } from "../resolve/scope.js";
import { firstCharOf, type Check } from "./context.js";
import { parsed, staticKind, type Kind } from "./check-iteration-types.js";

/**
 * Calls into other modules agree with what the callee declares (docs/language.md, Composition):
 * - a subworkflow's `input` (and a calling step's `input`) binds the callee's variables:
 *   an unknown key, a literal of the wrong type, or a required variable left unbound is
 *   an error naming both positions;
 * - `adapters = [...]` / `agents = [...]` pass exactly what the callee `expects`: one it
 *   does not expect, or one it expects and is not passed, is an error;
 * - a step calling a flow passes every `input.<key>` the flow reads and every variable
 *   it requires, literals of the variables' types; a key it neither reads nor declares is
 *   a warning (`unread_input`) unless it reads its input whole;
 * - a module called as a subworkflow does not read `input.*` (it is given variables).
 * A callee whose interface is unknown (a file of it did not parse: `ModuleInterface.unknown`) is
 * checked against nothing: its syntax errors are reported in its own files.
 */
export const checkCalls: Check = {
  name: "calls",
  run({ resolution, modules, textOf }) {
    const out: Diagnostic[] = [];
    const callers = new Map<object, StepSpec[]>();
    for (const s of resolution.scopes) {
      for (const st of s.workflow.steps) {
        const decl = declOf(st, s);
        if (decl) callers.set(decl, [...(callers.get(decl) ?? []), st]);
      }
    }
    for (const s of resolution.scopes) {
      for (const sw of s.workflow.subworkflows) {
        const callee = sw.source.module ? modules(sw.source.module) : undefined;
        if (!callee || callee.unknown) continue;
        const what = `subworkflow "${sw.name}"`;
        out.push(...bindings(what, sw.input, callee, textOf, s, resolution.calleeOf));
        out.push(...passed(what, sw.nameRange, sw.adapters, sw.agents, callee, "module", s));
        const steps = callers.get(sw) ?? [];
        // A subworkflow is given variables, not an input object: input.* reads nothing there.
        for (const [k, read] of callee.inputsRead) {
          out.push(
            diag("unknown_reference", sw.source.range, `${what}: ${callee.path} reads input.${k}, but a subworkflow receives variables, not an input object`, {
              related: [{ message: "read here", range: read }],
              hint: `declare variable "${k}" in it, read it as var.${k}, and bind it with input = { ${k} = ... }`,
            }),
          );
        }
        for (const v of callee.variables) {
          if (v.default !== undefined || v.name in sw.input) continue;
          const missing = steps.length === 0 ? [undefined] : steps.filter((st) => !(st.input && v.name in st.input));
          for (const st of missing) {
            out.push(
              diag("missing_field", st?.target?.range ?? sw.nameRange, `${st ? `step "${st.name}" calls ${what}` : what} without its required variable "${v.name}"`, {
                related: [{ message: `variable "${v.name}" of ${callee.path}`, range: v.nameRange }],
                hint: `bind it: input = { ${v.name} = ... } on the subworkflow${st ? `, or input { ${v.name} = ... } on the step` : ""}`,
              }),
            );
          }
        }
        for (const st of steps) if (st.input) out.push(...bindings(`step "${st.name}"`, st.input, callee, textOf, s, resolution.calleeOf));
      }
      // An agent block whose flow could not be loaded may be the one meant to bind a flow of the
      // use list: that flow is then not reported as passed nothing, with a hint to write the agent
      // block that is already there (found by a new-user trial: a typo in agent "checker"'s use).
      const unboundBlock = s.workflow.agents.some((a) => !a.fromHeader && a.use?.module === undefined && flowFailed(a, modules));
      for (const a of s.workflow.agents) {
        const callee = a.use?.module ? modules(a.use.module) : undefined;
        if (!callee || callee.unknown) continue;
        if (!(a.fromHeader && unboundBlock)) out.push(...passed(a.fromHeader ? `use "${a.use!.path}"` : `agent "${a.name}"`, a.nameRange, a.adapters, a.agents, callee, "flow", s, a.fromHeader ? a.use!.path : undefined));
        for (const st of callers.get(a) ?? []) out.push(...flowInputs(st, callee, textOf, s, resolution.calleeOf));
      }
    }
    return out;
  },
};

/** The subworkflow or flow agent declaration a step calls, if it calls one. */
function declOf(st: StepSpec, s: Scope): object | undefined {
  const t = st.target;
  if (t?.kind === "subworkflow") return s.lookup("subworkflows", t.name)?.decl;
  if (t?.kind === "agent") {
    const a = s.lookup("agents", t.name)?.decl;
    return a?.use ? a : undefined;
  }
  return undefined;
}

/**
 * `input` keys bind the callee's variables: each known, each literal of the declared type,
 * and each expression whose kind is known before the run ({@link staticKind}: a typed
 * variable, a template, a shell step's stdout...) not a list or a map where a single value
 * is declared, nor the other way round (found by a new-user trial: `name = var.names`, a
 * list bound to a string, passed validate and failed the run; a number to a string, or a
 * string to a number, may convert, and is left to the run).
 * @param s the scope the input is evaluated in; `calleeOf` the resolution's modules of steps
 */
function bindings(what: string, input: Record<string, ExprSource>, callee: ModuleInterface, textOf: (file: string) => string, s: Scope, calleeOf: ReadonlyMap<StepSpec, ModuleInterface>): Diagnostic[] {
  const out: Diagnostic[] = [];
  const names = callee.variables.map((v) => v.name);
  for (const [k, e] of Object.entries(input)) {
    const v = callee.variables.find((x) => x.name === k);
    if (!v) {
      out.push(
        diag("unknown_field", e.keyRange ?? e.range, `${what}: ${callee.path} has no variable "${k}"`, {
          hint: suggest(k, names) ?? (names.length ? `its variables: ${names.join(", ")}` : `it declares no variables; add variable "${k}" { type = string } to it`),
        }),
      );
      continue;
    }
    const t = v.type ? parseType(v.type).type : undefined;
    if (t && e.kind !== "literal") {
      const expr = parsed(e);
      const kind = expr && staticKind(expr, s, calleeOf);
      if (kind && !kindFits(t.kind, kind)) {
        const shown = writtenExpr(e.text);
        const file = e.range.file;
        out.push(
          diag("invalid_type", e.range, `${what}: variable "${k}" of ${callee.path}: ${shown} is a ${kind === "map" ? "map or object" : kind}, not a value of type ${bareType(v.type!)}`, {
            related: [{ message: `variable "${k}" is declared here`, range: v.typeRange ?? v.nameRange }],
            hint: kind === "list" && ["string", "number", "bool"].includes(t.kind) ? `pass one item (${exprAs(file, `${shown}[0]`)}), join them (${exprAs(file, `join(",", ${shown})`)}), or declare variable "${k}" with type = list(...)` : `pass a value of type ${bareType(v.type!)}, or change the variable's type`,
          }),
        );
      }
      continue;
    }
    if (!t || e.kind !== "literal" || e.value === null) continue;
    const why = mismatch(t, e.value);
    if (why) {
      out.push(
        diag("invalid_type", e.range, `${what}: variable "${k}" of ${callee.path}: ${why} (type ${bareType(v.type!)})`, {
          related: [{ message: `variable "${k}" is declared here`, range: v.typeRange ?? v.nameRange }],
          hint: typeMismatchHint(v.type!, e.value, firstCharOf(textOf, e.range)),
        }),
      );
    }
  }
  return out;
}

/** A file of the callee's (its dialect is the callee's): where it declares something, else its id. */
function fileOf(callee: ModuleInterface): string {
  const declared = [...callee.expectedAdapters, ...callee.expectedAgents, ...callee.variables, ...callee.outputs];
  return declared[0]?.range.file ?? callee.id;
}

/**
 * The adapters and agents passed are exactly those the callee expects.
 * @param calleeKind what the callee is called in hints: a subworkflow's "module", an agent's "flow"
 */
function passed(what: string, at: Range, adapters: { ref: string; range: Range }[], agents: { ref: string; range: Range }[], callee: ModuleInterface, calleeKind: "module" | "flow", s: Scope, headerUse?: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const groups = [
    { noun: "adapter", table: "adapters" as const, prefix: "adapter.", list: adapters, expected: callee.expectedAdapters },
    { noun: "agent", table: "agents" as const, prefix: "agent.", list: agents, expected: callee.expectedAgents },
  ];
  for (const g of groups) {
    const want = g.expected.map((e) => e.name);
    const given = g.list.map((x) => x.ref.replace(g.prefix, ""));
    g.list.forEach((x, i) => {
      // One the caller does not declare is reported as unknown where it is named.
      if (want.includes(given[i]) || !s.lookup(g.table, given[i])) return;
      // Names as written in this list (adapter.shell.default); not a list of what is already
      // passed, but how to make it fit (found by a new-user trial).
      const near = closestName(g.prefix + given[i], want.map((w) => g.prefix + w));
      out.push(
        diag("unknown_reference", x.range, `${what}: ${callee.path} does not expect ${g.noun} "${given[i]}" from its caller`, {
          hint: near !== undefined ? `did you mean "${near}"?` : `remove it, or add it to the ${calleeKind}'s expects { ${g.noun}s = [${[...want, given[i]].map((w) => g.prefix + w).join(", ")}] }`,
          // In the callee's own syntax: the edit is to its file (found by a new-user trial).
          ...(near === undefined ? { hintIn: fileOf(callee) } : {}),
        }),
      );
    });
    // One passed in the other list is said there, as in the wrong list (resolve-workflow.ts `ref`),
    // not again here as not passed (found by a trial: swapped lists gave four errors).
    const other = groups.find((x) => x !== g)!;
    for (const e of g.expected) {
      if (given.includes(e.name) || other.list.some((x) => x.ref === g.prefix + e.name)) continue;
      out.push(
        diag("missing_field", at, `${what}: ${callee.path} expects ${g.noun} "${e.name}" from its caller, and it is not passed`, {
          related: [{ message: "expected here", range: e.range }],
          hint:
            headerUse !== undefined
              ? `a flow named only in use = [...] is passed nothing: bind it with agent "${callee.name || "name"}" { use = "${headerUse}" ${g.noun}s = [${want.map((n) => g.prefix + n).join(", ")}] }`
              : `pass it: ${g.noun}s = [${want.map((n) => g.prefix + n).join(", ")}]`,
        }),
      );
    }
  }
  return out;
}

/** A step calling a flow passes every `input.<key>` the flow reads and every variable it requires. */
function flowInputs(st: StepSpec, callee: ModuleInterface, textOf: (file: string) => string, s: Scope, calleeOf: ReadonlyMap<StepSpec, ModuleInterface>): Diagnostic[] {
  if (!st.input) return []; // input = <expression>: known only at run time
  const out: Diagnostic[] = [];
  const at = st.target?.range ?? st.nameRange;
  for (const [k, read] of callee.inputsRead) {
    if (k in st.input) continue;
    out.push(diag("missing_field", at, `step "${st.name}" calls the flow ${callee.path} without input "${k}", which the flow reads`, { related: [{ message: `read here`, range: read }], hint: `pass it: input { ${k} = ... }` }));
  }
  for (const v of callee.variables) {
    if (v.default !== undefined || has(st.input, v.name) || callee.inputsRead.has(v.name)) continue;
    out.push(diag("missing_field", at, `step "${st.name}" calls the flow ${callee.path} without its required variable "${v.name}"`, { related: [{ message: `variable "${v.name}"`, range: v.nameRange }], hint: `pass it: input { ${v.name} = ... }` }));
  }
  // A key the flow neither reads (input.<key>) nor declares as a variable goes nowhere: a typo
  // or a leftover (found by a new-user trial: a subworkflow refused such a key, a flow took it
  // silently). Unless the flow reads its input whole or by a computed key, or does not compile.
  if (!callee.inputReadWhole && !callee.firstError) {
    const known = [...callee.inputsRead.keys(), ...callee.variables.map((v) => v.name)];
    for (const [k, e] of Object.entries(st.input)) {
      if (known.includes(k)) continue;
      out.push(
        diag("unread_input", e.keyRange ?? e.range, `step "${st.name}" passes input "${k}" to the flow ${callee.path}, which neither reads input.${k} nor declares variable "${k}"`, {
          hint: suggest(k, known) ?? (known.length ? `the flow reads: ${known.join(", ")}` : "the flow reads no input: remove it"),
        }),
      );
    }
  }
  // Input keys named like the flow's variables bind them: literals must fit their types.
  const bound = Object.fromEntries(Object.entries(st.input).filter(([k]) => callee.variables.some((v) => v.name === k)));
  out.push(...bindings(`step "${st.name}"`, bound, callee, textOf, s, calleeOf));
  return out;
}

function has(o: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, key);
}

/** Whether a value of `kind` may bind a variable of type kind `want`: a single value to a single, a list to a list or set or tuple, a map to a map or object (conversions between single values are the run's). */
function kindFits(want: string, kind: Kind): boolean {
  if (want === "any" || kind === "null") return true;
  const single = (k: string) => k === "string" || k === "number" || k === "bool";
  if (single(want)) return single(kind);
  if (want === "list" || want === "set" || want === "tuple") return kind === "list";
  if (want === "map" || want === "object") return kind === "map";
  return true;
}
