/**
 * How a store's URL is named in messages (`--store`, `CRITERIA_STORE`): never with a
 * password, wherever it is (`user:password@`, or the `password`/`sslpassword` query
 * parameters libpq and `pg` read), and a value that is not a URL at all is not echoed.
 */

/** Query parameters that carry a secret. */
const SECRET_PARAMS = new Set(["password", "sslpassword", "sslkey"]);

/**
 * A store URL fit to print: every password replaced by `***`. A value that cannot be parsed as a URL
 * is reduced to its scheme (`mysql:…`): it may hold a password in a place no rule knows.
 */
export function withoutPassword(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(url)?.[0];
    return scheme ? `${scheme}…` : "(not a URL)";
  }
  // No host (`postgres:user:pw@h/db`): what looks like credentials sits in the path, where no rule finds it.
  if (!u.host && url.includes("@")) return `${u.protocol}…`;
  if (u.password) u.password = "***";
  for (const k of [...u.searchParams.keys()]) if (SECRET_PARAMS.has(k.toLowerCase())) u.searchParams.set(k, "***");
  // URL's serialiser encodes what the user wrote plainly (`/` in `host=/tmp/x`): keep their spelling where nothing was masked.
  const out = u.toString();
  return out === url || decodeURIComponent(out) === url ? url : decodeURIComponent(out).replace(/\*\*\*/g, "***");
}

/** The scheme of a store value, for a refusal that must not echo the value itself. */
export function schemeOf(store: string): string {
  return /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(store)?.[0] ?? "";
}
