import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { ExprSource } from "../decode/spec.js";
import { bareType, mismatch, parseType, TYPE_NAMES, typeMismatchHint } from "../decode/types.js";
import { fileDialect, literalFieldAs } from "../diagnostics/dialect-hint.js";
import { suggest } from "../diagnostics/did-you-mean.js";
import type { Range } from "../diagnostics/range.js";
import { firstCharOf, type Check } from "./context.js";


/**
 * Literal values agree with their declared or implied types: a variable's default,
 * an output's value and a data value's initial value with their `type`
 * (compiler/decode/types.ts), and a literal an outcome writes to a data value with that
 * value's `type` (found by a new-user trial: it failed at run time); a literal
 * `for_each` is a list or map; a literal `parallel` a list, map or count.
 * Expressions are checked at run time.
 */
export const checkLiteralTypes: Check = {
  name: "literal-types",
  run({ resolution, textOf }) {
    const out: Diagnostic[] = [];
    const at = (r: Range) => firstCharOf(textOf, r);
    for (const s of resolution.scopes) {
      const w = s.workflow;
      const typed: { what: string; type?: string; typeRange?: Range; nameRange: Range; value?: ExprSource }[] = [
        ...w.variables.map((v) => ({ what: `variable "${v.name}"`, type: v.type, typeRange: v.typeRange, nameRange: v.nameRange, value: v.default })),
        ...w.outputs.map((o) => ({ what: `output "${o.name}"`, type: o.type, typeRange: o.typeRange, nameRange: o.nameRange, value: o.value })),
        ...w.data.map((d) => ({ what: `data "${d.kind}" "${d.name.slice(d.kind.length + 1)}"`, type: d.type, typeRange: d.typeRange, nameRange: d.nameRange, value: d.value })),
      ];
      for (const v of typed) {
        if (v.type === undefined) continue;
        const t = parseType(v.type);
        if (!t.type) {
          out.push(
            diag("invalid_value", v.typeRange ?? v.nameRange, `${v.what}: ${t.error}`, {
              hint: (t.word && suggest(t.word, TYPE_NAMES)) ?? "use string, number, bool, list(T), map(T), set(T), object({...}), tuple([...]) or any",
            }),
          );
          continue;
        }
        if (v.value && v.value.kind === "literal" && v.value.value !== null) {
          const why = mismatch(t.type, v.value.value);
          if (why) out.push(diag("invalid_type", v.value.range, `${v.what}: ${why} (type ${bareType(v.type)})`, { hint: typeMismatchHint(v.type, v.value.value, at(v.value.range)) }));
        }
      }
      // A literal written to a data value: the engine would refuse it when the outcome is taken (engine/run/evaluate.ts).
      const nodes = [...w.steps.map((n) => ({ n, word: "step" })), ...w.waits.map((n) => ({ n, word: "wait" })), ...w.approvals.map((n) => ({ n, word: "approval" }))];
      for (const { n: node, word } of nodes) {
        for (const o of node.outcomes) {
          for (const wr of o.writes) {
            const decl = s.lookup("data", wr.target)?.decl;
            if (!decl?.type || wr.value.kind !== "literal" || wr.value.value === null) continue;
            const t = parseType(decl.type);
            const why = t.type && mismatch(t.type, wr.value.value);
            if (why) {
              const [kind, name] = wr.target.split(".");
              out.push(diag("invalid_type", wr.value.range, `${word} "${node.name}" outcome "${o.name}": write to data "${kind}" "${name}": ${why} (type ${bareType(decl.type)})`, { hint: typeMismatchHint(decl.type, wr.value.value, at(wr.value.range)) }));
            }
          }
        }
      }
      for (const st of w.steps) {
        const fe = st.forEach;
        // Non-string literals of the wrong type are the schema's to report; a plain string is ours.
        if (fe && fe.kind === "literal" && typeof fe.value === "string") {
          // With its items spelled out (found by a new-user trial: no hint, where a string variable had one).
          const items = fe.value.trim().split(/\s+/).filter(Boolean);
          const list = `[${items.map((x) => JSON.stringify(x)).join(", ")}]`; // "" is no items: [] (a trial: it was told ["a", "b"])
          out.push(diag("invalid_type", fe.range, `step "${st.name}": for_each must be a list or a map, not ${JSON.stringify(fe.value)}`, { hint: `write a list of its items: ${literalFieldAs(fileDialect(fe.range.file), "for_each", list)}` }));
        }
        const p = st.parallel;
        if (p && p.kind === "literal" && (typeof p.value === "string" || (typeof p.value === "number" && !(Number.isInteger(p.value) && p.value >= 0)))) {
          out.push(diag("invalid_type", p.range, `step "${st.name}": parallel must be a list, a map or a whole number, not ${JSON.stringify(p.value)}`));
        }
      }
    }
    return out;
  },
};
