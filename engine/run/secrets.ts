import type { Graph, GraphExpr } from "../../compiler/build/graph.js";
import type { Value } from "../../compiler/expr/value.js";
import { EvalFailure, placeIn } from "./evaluate.js";

/**
 * An adapter's `secrets` with provider references resolved: `"env:NAME"` is the
 * environment variable NAME of the criteria process (the upstream adapters guide,
 * "Secrets"). Other providers (vault, file, sops, keychain) are not supported.
 * @throws EvalFailure naming the adapter's position for an unset variable or another provider
 */
export function resolveSecrets(values: Record<string, Value>, at: string): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (const [k, v] of Object.entries(values)) {
    const m = typeof v === "string" ? /^(env|vault|file|sops|keychain):(.*)$/.exec(v) : null;
    if (!m) out[k] = v;
    else if (m[1] !== "env") throw new EvalFailure(`${at}: secret "${k}": the "${m[1]}:" provider is not supported; bind a secret variable instead (CRITERIA_VAR_<name> or --var)`);
    else if (process.env[m[2]] === undefined) throw new EvalFailure(`${at}: secret "${k}": the environment variable ${m[2]} is not set`);
    else out[k] = process.env[m[2]]!;
  }
  return out;
}

/**
 * Every expression that reads a secret variable, in the graph, its bodies (which see their
 * workflow's variables) and its modules (their own variables only), as where it starts
 * (`file:line:col`, the expression's `at`) and where it ends: the runner withholds the
 * error messages of these expressions (docs/language.md, Secrets: "the error message of an
 * expression that reads a secret is withheld, keeping its position"), over their whole
 * extent, since an error inside one is reported at the failing part (`placeIn`). An
 * expression is a leaf: what it holds is data, even under a key named `body`.
 */
export function secretReaders(root: Graph): { at: string; end: string }[] {
  const out: { at: string; end: string }[] = [];
  const visit = (g: Graph, inherited: string[]) => {
    const names = [...inherited, ...g.variables.filter((v) => v.secret).map((v) => v.name)];
    const reads = names.length > 0 ? new RegExp(`\\bvar\\.(${names.map((n) => n.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&")).join("|")})\\b`) : undefined;
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v !== null && typeof v === "object") {
        const e = v as Partial<GraphExpr>;
        // An expression is a leaf: what it holds is the user's data (a channel post's
        // `body = { … }` is no workflow body: found by a new-user trial, it crashed apply).
        if (typeof e.text === "string" && typeof e.at === "string" && typeof e.kind === "string") {
          if (reads?.test(e.text)) out.push({ at: e.at, end: placeIn(e as GraphExpr, e.text.length) });
          return;
        }
        for (const [k, x] of Object.entries(v)) {
          if (k === "modules") continue;
          if (k === "body" && isGraph(x)) visit(x, names);
          else walk(x);
        }
      }
    };
    walk({ ...g, body: undefined });
  };
  visit(root, []);
  for (const m of Object.values(root.modules ?? {})) visit(m, []);
  return out;
}

/** A step's body as the graph holds it (not a value that happens to sit under a key `body`). */
function isGraph(x: unknown): x is Graph {
  return x !== null && typeof x === "object" && Array.isArray((x as Partial<Graph>).steps) && Array.isArray((x as Partial<Graph>).variables);
}
