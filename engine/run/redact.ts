import type { Value } from "../../compiler/expr/value.js";

/** What a secret is replaced by wherever a run records or shows it. */
export const MASK = "***";

/** Secrets shorter than this cannot be masked without masking ordinary text too. */
export const MIN_SECRET_LENGTH = 3;

/** The fields of a step's result, a journal entry's payload, an event or a run's end that a run decides by ({@link Redactor.redactKeeping}). */
export const CONTROL_FIELDS = ["outcome", "next", "state", "success", "reason", "arm", "event", "node", "step", "status"];

/** The shortest piece of a secret masked where a text was cut through it. */
const EDGE_MIN = 4;

/**
 * The run's redaction registry (docs/language.md, Secrets; the upstream adapters guide,
 * "Redaction registry"; GitHub Actions' masking): every secret value the run holds
 * (`secret` / `sensitive` variables, `secret_input` values, adapter `secrets`) is
 * registered, and every journal entry, event and output is passed through `redact`
 * before it is written or shown, so a secret a step prints is masked too.
 *
 * Shapes: strings are masked wherever they contain a registered secret; structured
 * values are walked (object keys are kept). Numbers and booleans are registered by their
 * text. Secrets shorter than {@link MIN_SECRET_LENGTH} characters are not registered
 * (`add` returns false: the caller warns).
 */
export class Redactor {
  private readonly secrets = new Set<string>();
  private pattern: RegExp | undefined;
  /** Positions (`file:line:col`) of expressions that read a secret: their error messages are withheld. */
  private readonly withheld = new Set<string>();
  /** Their extents, by file: an error inside one names the failing part's place (engine/run/evaluate.ts, placeIn). */
  private readonly extents = new Map<string, { from: [number, number]; to: [number, number] }[]>();

  /** True when no secret is registered (redaction is then the identity, and free). */
  get empty(): boolean {
    return this.secrets.size === 0 && this.withheld.size === 0;
  }

  /**
   * Withholds the error messages of the expression at `at` (`file:line:col`): it reads a
   * secret, and a message about its value (a conversion error quoting it, a parser's
   * excerpt of it) would show the secret or something derived from it. A message
   * starting with `at: ` keeps its position and says why the rest is withheld; so does one
   * starting with a place between `at` and `end` (the expression's end, in the same file),
   * where an error inside the expression is reported.
   */
  withhold(at: string, end?: string): void {
    this.withheld.add(at);
    const a = position(at);
    const b = end === undefined ? undefined : position(end);
    if (a && b && a.file === b.file) {
      const list = this.extents.get(a.file) ?? [];
      list.push({ from: [a.line, a.column], to: [b.line, b.column] });
      this.extents.set(a.file, list);
    }
  }

  /** True when `at` is the place of a withheld expression or lies inside one. */
  private isWithheld(at: string): boolean {
    if (this.withheld.has(at)) return true;
    const p = position(at);
    const before = (x: [number, number], y: [number, number]) => x[0] < y[0] || (x[0] === y[0] && x[1] <= y[1]);
    return p !== undefined && (this.extents.get(p.file) ?? []).some((r) => before(r.from, [p.line, p.column]) && before([p.line, p.column], r.to));
  }

  /**
   * Registers a secret value (each string leaf of a structured one, and with `keysToo` each key
   * of its maps: a `map(...)` or `any` secret's keys are data). A multi-line text is
   * also registered line by line, and a JSON-shaped one by each leaf of its JSON, so a step
   * that prints one line of it, or its values reformatted, shows none of it; a line with no
   * letter or digit (`{`, `},`) is not registered, so ordinary text is not masked for it
   * (the channels issue: JSON-shaped credentials masked line by line leaked elsewhere, and
   * masking their braces over-masks every log).
   * @returns false when some part was too short to mask
   */
  add(v: Value, keysToo = false): boolean {
    // true and false are everywhere (every flag, every output): masking them changed how runs
    // ended and routed (found by a new-user trial: a secret false made a failed run succeed).
    if (v === null || typeof v === "boolean") return typeof v !== "boolean";
    if (Array.isArray(v)) return v.map((x) => this.add(x, keysToo)).every(Boolean);
    // A map's keys are part of the secret (an object type's are the workflow's own names).
    if (typeof v === "object") return [...Object.values(v).map((x) => this.add(x, keysToo)), ...(keysToo ? Object.keys(v).map((k) => this.add(k)) : [])].every(Boolean);
    const text = String(v);
    if (text.length < MIN_SECRET_LENGTH) return false;
    const parts = new Set([text]);
    if (text.includes("\n")) {
      for (const line of text.split(/\r?\n/)) {
        const trimmed = line.trim();
        if (trimmed.length >= MIN_SECRET_LENGTH && /[\p{L}\p{N}]/u.test(trimmed)) parts.add(trimmed);
      }
    }
    for (const leaf of jsonLeaves(text)) if (leaf.length >= MIN_SECRET_LENGTH && /[\p{L}\p{N}]/u.test(leaf)) parts.add(leaf);
    const before = this.secrets.size;
    for (const p of parts) this.secrets.add(p);
    if (this.secrets.size !== before) {
      // Longest first, so a secret containing another is masked whole.
      const alternatives = [...this.secrets].sort((a, b) => b.length - a.length).map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
      this.pattern = new RegExp(alternatives.join("|"), "g");
    }
    return true;
  }

  /** `v` with every registered secret masked (a new value; `v` is not changed). */
  redact<T>(v: T): T {
    if (this.empty) return v;
    return this.walk(v) as T;
  }

  /**
   * {@link redact} of a record whose top-level `control` fields are left as they are: what a
   * run decides by (an outcome, the next node, a state, success, a reason) is a name or a flag
   * from the workflow's source, never a secret, and masking it changed the run (found by a
   * new-user trial: a secret "success" turned every step's outcome into "***", unknown).
   */
  redactKeeping<T extends object>(v: T, control: readonly string[] = CONTROL_FIELDS): T {
    if (this.empty) return v;
    const out = this.walk(v) as Record<string, unknown>;
    for (const k of control) if (Object.prototype.hasOwnProperty.call(v, k)) out[k] = (v as Record<string, unknown>)[k];
    return out as T;
  }

  private text(s: string): string {
    let out = s;
    if (this.withheld.size > 0) {
      const at = /^([^\s]+:\d+:\d+): /.exec(out)?.[1];
      if (at !== undefined && this.isWithheld(at)) out = `${at}: the expression failed; its message is withheld because the expression reads a secret`;
    }
    if (!this.pattern) return out;
    out = out.replace(this.pattern, MASK);
    return this.edges(out);
  }

  /**
   * Masks a secret cut in two at the edge of a text (an output tail that starts inside
   * one, or a head that ends inside one): a prefix of at least EDGE_MIN characters at
   * the end, or a suffix at the start. (A shorter piece of a secret is not the secret.)
   */
  private edges(s: string): string {
    let out = s;
    if (out.length < EDGE_MIN) return out;
    for (const secret of this.secrets) {
      // A piece of the secret at an edge holds the text's first (or last) EDGE_MIN characters:
      // where the secret does not, there is nothing to look for (most texts, at once).
      if (secret.includes(out.slice(0, EDGE_MIN))) {
        for (let n = secret.length - 1; n >= EDGE_MIN; n--) {
          if (out.startsWith(secret.slice(secret.length - n))) {
            out = MASK + out.slice(n);
            break;
          }
        }
      }
      if (out.length >= EDGE_MIN && secret.includes(out.slice(-EDGE_MIN))) {
        for (let n = secret.length - 1; n >= EDGE_MIN; n--) {
          if (out.endsWith(secret.slice(0, n))) {
            out = out.slice(0, out.length - n) + MASK;
            break;
          }
        }
      }
    }
    return out;
  }

  private walk(v: unknown): unknown {
    if (typeof v === "string") return this.text(v);
    if (typeof v === "number") return this.secrets.has(String(v)) ? MASK : v;
    if (Array.isArray(v)) return v.map((x) => this.walk(x));
    if (v !== null && typeof v === "object") {
      const out: Record<string, unknown> = {};
      // A key that is (or holds) a secret is masked (a secret map's keys); not a piece of one at
      // its edge, as a cut output's is: `secret_variables` is no piece of "…-secret".
      for (const [k, x] of Object.entries(v)) out[this.pattern ? k.replace(this.pattern, MASK) : k] = this.walk(x);
      return out;
    }
    return v;
  }
}

/** The string and number leaves of `text` when it is a JSON object or array (none otherwise). */
function jsonLeaves(text: string): string[] {
  const t = text.trim();
  if (!(t.startsWith("{") || t.startsWith("["))) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(t);
  } catch {
    return [];
  }
  const out: string[] = [];
  const walk = (x: unknown): void => {
    if (typeof x === "string") out.push(x);
    else if (typeof x === "number") out.push(String(x));
    else if (Array.isArray(x)) x.forEach(walk);
    else if (x !== null && typeof x === "object") Object.values(x).forEach(walk);
  };
  walk(parsed);
  return out;
}

/** `file:line:col` taken apart, or undefined. */
function position(at: string): { file: string; line: number; column: number } | undefined {
  const m = /^(.*):(\d+):(\d+)$/.exec(at);
  return m ? { file: m[1], line: Number(m[2]), column: Number(m[3]) } : undefined;
}
