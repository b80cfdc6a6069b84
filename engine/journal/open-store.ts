import { JournalOpenError } from "./errors.js";
import type { Journal } from "./journal.js";
import { SqliteJournal } from "./sqlite-journal.js";
import { schemeOf } from "./store-url.js";

/** The URL schemes `--store` takes: PostgreSQL's two. */
const POSTGRES = /^postgres(ql)?:\/\//i;

/**
 * Opens the journal a command uses (docs/architecture.md, The engine): the PostgreSQL database
 * `store` names (`--store`, `CRITERIA_STORE`: `postgres://…` or `postgresql://…`), else the SQLite
 * journal in `stateDir`. The PostgreSQL driver is loaded only then.
 * @param opts.mustExist refuse a store without a journal (commands that use an existing one)
 * @param opts.readOnly only read it (`runs`, `journal`): a SQLite journal the user may not
 *   write is read all the same (a PostgreSQL store's rights are its database's: unchanged)
 * @throws JournalOpenError for a store that is not a PostgreSQL URL, or that cannot be opened
 */
export async function openStore(opts: { stateDir: string; store?: string; mustExist?: boolean; readOnly?: boolean }): Promise<Journal> {
  if (opts.store === undefined || opts.store === "") return new SqliteJournal(opts.stateDir, { mustExist: opts.mustExist, readOnly: opts.readOnly });
  if (!POSTGRES.test(opts.store)) {
    throw new JournalOpenError(`--store: expected a postgres:// or postgresql:// URL, not a ${schemeOf(opts.store) || "scheme-less"} one (leave it out for the SQLite journal in the state directory)`);
  }
  const { PostgresJournal } = await import("./postgres-journal.js");
  return PostgresJournal.open(opts.store, { stateDir: opts.stateDir, mustExist: opts.mustExist });
}
