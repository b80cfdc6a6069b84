import type { Value } from "../../compiler/expr/value.js";

/** What a secret is replaced by wherever a run records or shows it. */
export const MASK = "***";

/** Secrets shorter than this cannot be masked without masking ordinary text too. */
export const MIN_SECRET_LENGTH = 3;

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

  /** True when no secret is registered (redaction is then the identity, and free). */
  get empty(): boolean {
    return this.secrets.size === 0;
  }

  /**
   * Registers a secret value (each string leaf of a structured one).
   * @returns false when some part was too short to mask
   */
  add(v: Value): boolean {
    if (v === null) return true;
    if (Array.isArray(v)) return v.map((x) => this.add(x)).every(Boolean);
    if (typeof v === "object") return Object.values(v).map((x) => this.add(x)).every(Boolean);
    const text = String(v);
    if (text.length < MIN_SECRET_LENGTH) return false;
    if (!this.secrets.has(text)) {
      this.secrets.add(text);
      // Longest first, so a secret containing another is masked whole.
      const alternatives = [...this.secrets].sort((a, b) => b.length - a.length).map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
      this.pattern = new RegExp(alternatives.join("|"), "g");
    }
    return true;
  }

  /** `v` with every registered secret masked (a new value; `v` is not changed). */
  redact<T>(v: T): T {
    if (!this.pattern) return v;
    return this.walk(v) as T;
  }

  private walk(v: unknown): unknown {
    if (typeof v === "string") return v.replace(this.pattern!, MASK);
    if (typeof v === "number" || typeof v === "boolean") return this.secrets.has(String(v)) ? MASK : v;
    if (Array.isArray(v)) return v.map((x) => this.walk(x));
    if (v !== null && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = this.walk(x);
      return out;
    }
    return v;
  }
}
