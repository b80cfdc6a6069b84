/**
 * Canonical JSON (object keys sorted, no whitespace; RFC 8785's ordering for the
 * values criteria stores): the same value always gives the same bytes, so hashes of
 * graphs and entries are stable across runs and machines.
 */
export function canonicalJson(v: unknown): string {
  if (v === null) return "null";
  switch (typeof v) {
    case "string":
      return JSON.stringify(v);
    case "number":
      return Number.isFinite(v) ? String(v) : "null";
    case "boolean":
      return v ? "true" : "false";
    case "object":
      break;
    default:
      return v === undefined ? "null" : JSON.stringify(v) ?? "null";
  }
  if (Array.isArray(v)) {
    let out = "[";
    for (let i = 0; i < v.length; i++) out += (i ? "," : "") + canonicalJson(v[i]);
    return out + "]";
  }
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).sort();
  let out = "{";
  let first = true;
  for (const k of keys) {
    const x = o[k];
    if (x === undefined) continue;
    out += (first ? "" : ",") + JSON.stringify(k) + ":" + canonicalJson(x);
    first = false;
  }
  return out + "}";
}
