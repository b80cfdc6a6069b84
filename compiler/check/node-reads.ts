import type { ExprSource, OutcomeSpec } from "../decode/spec.js";
import type { Scope } from "../resolve/scope.js";

/** An expression a node evaluates, and how messages name it. */
export interface Read {
  node: string;
  what: string;
  src: ExprSource;
}

/** The HCL and template sources in `src` (a YAML/JSON list or map holds its templates as `nested`). */
export function sources(src: ExprSource | undefined): ExprSource[] {
  if (!src) return [];
  if (src.kind === "composite") return (src.nested ?? []).flatMap(sources);
  return src.kind === "hcl" || src.kind === "template" ? [src] : [];
}

function each(m: Record<string, ExprSource> | undefined, node: string, what: string, out: Read[]): void {
  for (const [k, v] of Object.entries(m ?? {})) out.push({ node, what: `${what} "${k}"`, src: v });
}

function outcomeReads(node: string, head: string, outcomes: OutcomeSpec[], out: Read[]): void {
  for (const o of outcomes) {
    const what = `${head} outcome "${o.name}"`;
    each(o.output, node, `${what} output`, out);
    if (o.outputExpr) out.push({ node, what: `${what} output`, src: o.outputExpr });
    for (const w of o.writes) out.push({ node, what: `${what} write to "${w.target}"`, src: w.value });
    each(o.sharedWrites, node, `${what} shared_writes`, out);
  }
}

/** What each node of the scope's workflow evaluates when it runs (its own expressions). */
export function nodeReads(s: Scope): Read[] {
  const w = s.workflow;
  const out: Read[] = [];
  for (const st of w.steps) {
    const head = `step "${st.name}"`;
    each(st.input, st.name, `${head} input`, out);
    if (st.inputExpr) out.push({ node: st.name, what: `${head} input`, src: st.inputExpr });
    each(st.secretInput, st.name, `${head} secret_input`, out);
    for (const [k, src] of [["count", st.count], ["for_each", st.forEach], ["parallel", st.parallel], ["while", st.while]] as const) {
      if (src) out.push({ node: st.name, what: `${head} ${k}`, src });
    }
    outcomeReads(st.name, head, st.outcomes, out);
  }
  for (const a of w.approvals) {
    if (a.reason) out.push({ node: a.name, what: `approval "${a.name}" reason`, src: a.reason });
    outcomeReads(a.name, `approval "${a.name}"`, a.outcomes, out);
  }
  for (const wt of w.waits) outcomeReads(wt.name, `wait "${wt.name}"`, wt.outcomes, out);
  for (const b of w.branches) {
    const head = `${b.keyword} "${b.name}"`;
    b.arms.forEach((arm, i) => {
      out.push({ node: b.name, what: `${head} arm ${i + 1}`, src: arm.when });
      each(arm.output, b.name, `${head} arm ${i + 1} output`, out);
    });
    each(b.defaultOutput, b.name, `${head} default output`, out);
  }
  return out;
}
