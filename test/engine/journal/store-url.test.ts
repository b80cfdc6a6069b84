/**
 * engine/journal/store-url.ts: a store's URL as messages name it (never with a password) and
 * whether PostgreSQL's driver can read it (an unreadable one is a usage error, exit 2).
 */
import { describe, expect, it } from "vitest";
import { readableStoreUrl, withoutPassword } from "../../../engine/journal/store-url.js";

describe("withoutPassword", () => {
  it("a host-less URL with a Unix socket directory keeps all but its password (found by a new-user trial: the whole URL was hidden)", () => {
    expect(withoutPassword("postgres://ci:s3cret%40x@/jobs?host=/run/postgresql")).toBe("postgres://ci:***@/jobs?host=/run/postgresql");
    expect(withoutPassword("postgresql://ci@/jobs?host=/tmp/pg&password=Q9")).toBe("postgresql://ci@/jobs?host=/tmp/pg&password=***");
    expect(withoutPassword("postgres://ci@/jobs?host=/tmp/pg")).toBe("postgres://ci@/jobs?host=/tmp/pg");
  });

  it("a password written with a raw @, # or / is masked whole, not read as a host or a fragment (a new-user trial: ***@ss#w0rd)", () => {
    expect(withoutPassword("postgres://criteria:p@ss#w0rd@127.0.0.1:54329/crit")).toBe("postgres://criteria:***@127.0.0.1:54329/crit");
    expect(withoutPassword("postgres://criteria:Tr0ub4dor#3@db/crit")).toBe("postgres://criteria:***@db/crit");
    expect(withoutPassword("postgresql://u:a/b?c@/jobs?host=/tmp/pg")).toBe("postgresql://u:***@/jobs?host=/tmp/pg");
    // A user without a password, an @ in a query parameter: as before.
    expect(withoutPassword("postgres://ci@/jobs?host=/tmp/pg")).toBe("postgres://ci@/jobs?host=/tmp/pg");
  });

  it("a password with percent-escapes is masked whole", () => {
    const shown = withoutPassword("postgres://u:p%40ss%2Fw@db.example:5432/d");
    expect(shown).toBe("postgres://u:***@db.example:5432/d");
  });
});

describe("readableStoreUrl", () => {
  it.each([
    ["postgres://u:pw@db:5432/jobs", true],
    ["postgres:///jobs?host=/run/postgresql", true],
    ["postgres://u:pw@/jobs?host=/run/postgresql", true],
    ["postgres://u:p w@db/jobs", true], // pg encodes the space
    ["postgres://u:p%zz@db/jobs", true], // and a stray %
    ["postgres://[bad", false],
    ["postgres://db:99999/jobs", false],
  ])("%s: %s", (url, want) => {
    expect(readableStoreUrl(url)).toBe(want);
  });
});
