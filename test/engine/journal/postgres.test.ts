/**
 * The PostgreSQL journal against the Journal contract, on a real cluster started by the
 * test (test/engine/journal/postgres-cluster.ts), and what only it does: open errors with
 * the URL's password hidden, a database without a journal.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { JournalOpenError } from "../../../engine/journal/errors.js";
import { PostgresJournal } from "../../../engine/journal/postgres-journal.js";
import { withoutPassword } from "../../../engine/journal/store-url.js";
import { journalContract } from "./contract.js";
import { useCluster } from "./postgres-cluster.js";

const { skip, cluster } = useCluster();

describe.skipIf(skip !== undefined)("PostgreSQL journal", () => {
  journalContract("PostgreSQL", {
    async fresh() {
      const url = await cluster().freshSchema();
      const schema = decodeURIComponent(url).match(/search_path=(\w+)/)![1];
      return {
        open: (opts) => PostgresJournal.open(url, { stateDir: "/nonexistent", ...opts }),
        corrupt: async (seq) => {
          const c = new pg.Client({ connectionString: cluster().url });
          await c.connect();
          await c.query(`UPDATE ${schema}.journal SET payload = replace(payload, 'success', 'failure') WHERE seq = $1`, [seq]);
          await c.end();
        },
      };
    },
  });

  describe("PostgreSQL journal: opening", () => {
    it("an unreachable server is a JournalOpenError that names the URL without its password", async () => {
      const err = await PostgresJournal.open("postgresql://me:s3cret@127.0.0.1:1/db?connect_timeout=2", { stateDir: "/x" }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(JournalOpenError);
      expect((err as Error).message).toMatch(/^cannot open the journal postgresql:\/\/me:\*\*\*@127\.0\.0\.1:1\/db\?connect_timeout=2: /);
      expect((err as Error).message).not.toContain("s3cret");
    });

    it("a database without a journal is refused when one must exist, and created otherwise", async () => {
      const url = await cluster().freshSchema();
      await expect(PostgresJournal.open(url, { stateDir: "/x", mustExist: true })).rejects.toThrow(/^no journal in postgresql:/);
      const j = await PostgresJournal.open(url, { stateDir: "/x" });
      expect(j.location).toBe(url);
      await j.close();
      await j.close(); // twice: harmless
      const again = await PostgresJournal.open(url, { stateDir: "/x", mustExist: true });
      await again.close();
    });

    it("a database whose journal or runs table is someone else's is refused, naming it (found by a new-user trial)", async () => {
      const url = await cluster().freshSchema();
      const schema = decodeURIComponent(url).match(/search_path=(\w+)/)![1];
      const c = new pg.Client({ connectionString: cluster().url });
      await c.connect();
      await c.query(`CREATE TABLE ${schema}.runs (id int, name text)`);
      await c.end();
      await expect(PostgresJournal.open(url, { stateDir: "/x" })).rejects.toThrow(/: its table "runs" is not criteria's \(no column "run_id", .*\); use another database, or another schema/);
    });

    it("hides a password in any URL it names", () => {
      expect(withoutPassword("postgres://u:p@h/d")).toBe("postgres://u:***@h/d");
      expect(withoutPassword("postgres://u@h/d")).toBe("postgres://u@h/d");
      // Found by a new-user trial: query parameters, and values that are not URLs, were printed whole.
      expect(withoutPassword("postgres://c@127.0.0.1:1/p?sslpassword=TopSecret1&password=TopSecret2")).toBe("postgres://c@127.0.0.1:1/p?sslpassword=***&password=***");
      expect(withoutPassword("postgresql://c@localhost/postgres?host=/tmp/pgt&password=Q9")).toBe("postgresql://c@localhost/postgres?host=/tmp/pgt&password=***");
      expect(withoutPassword("postgresql://c@localhost/postgres?host=/tmp/pgt")).toBe("postgresql://c@localhost/postgres?host=/tmp/pgt");
      expect(withoutPassword("postgres:criteria:TopSecret4@127.0.0.1/x")).not.toContain("TopSecret4");
      expect(withoutPassword("not a url")).toBe("(not a URL)");
    });
  });
});
