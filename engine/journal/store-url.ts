/**
 * How a store's URL is named in messages (`--store`, `CRITERIA_STORE`): never with a
 * password, wherever it is (`user:password@`, or the `password`/`sslpassword` query
 * parameters libpq and `pg` read), and a value that is not a URL at all is not echoed.
 */

/** The placeholder host a host-less URL is read with (as pg-connection-string does). */
const NO_HOST = "no-host.invalid";

/** Query parameters that carry a secret. */
const SECRET_PARAMS = new Set(["password", "sslpassword", "sslkey"]);

/**
 * A store URL fit to print: every password replaced by `***`. A value that cannot be parsed as a URL
 * is reduced to its scheme (`mysql:…`): it may hold a password in a place no rule knows.
 */
export function withoutPassword(url: string): string {
  // A password written with a raw `@`, `#`, `/` or `?` (not percent-encoded) misleads any URL
  // parser: what follows it is read as the host, the path or a fragment, where the rules below
  // would show it (found by a new-user trial: `p@ss#w0rd` printed as `***@ss#w0rd`). Everything
  // between the user and the last `@` is masked.
  const raw = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^:@/?#]*):(.*)@([^@]*)$/s.exec(url);
  if (raw && /[@#/?]/.test(raw[3])) return `${raw[1]}${raw[2]}:***@${raw[4]}`;
  // `user:password@/database?host=/socket/dir`: no host, which WHATWG URL refuses with credentials; pg reads it with a placeholder (found by a new-user trial: the whole URL was hidden).
  if (/^postgres(ql)?:\/\/[^/?#]*@\//i.test(url)) {
    const masked = withoutPassword(url.replace("@/", `@${NO_HOST}/`));
    return masked.includes(`@${NO_HOST}/`) ? masked.replace(`@${NO_HOST}/`, "@/") : masked;
  }
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

/**
 * Whether PostgreSQL's driver can read `url` as a connection string: `pg` parses it (its
 * pg-connection-string 2.x) as a WHATWG URL, after encoding spaces and stray `%` signs, and
 * again with a placeholder host for the `user@/database` form. False for what it would
 * refuse with a bare "Invalid URL" (`postgres://[bad`, `postgres://h:99999/d`).
 */
export function readableStoreUrl(url: string): boolean {
  const s = / |%[^a-f0-9]|%[a-f0-9][^a-f0-9]/i.test(url) ? encodeURI(url).replace(/%25(\d\d)/g, "%$1") : url;
  for (const candidate of [s, s.replace("@/", "@___DUMMY___/")]) {
    try {
      new URL(candidate, "postgres://base");
      return true;
    } catch {
      // not this way
    }
  }
  return false;
}
