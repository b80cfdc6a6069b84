/**
 * Where a command's journal is (`--state-dir`, `--store`, `CRITERIA_STORE`), how suggested
 * commands name it again, and opening it; the words for a run that is not there, has ended or
 * is damaged. Shared by the run commands and the journal commands.
 */
import { resolve } from "node:path";
import type { Journal, RunRow } from "../engine/journal/journal.js";
import { JournalOpenError, type JournalDamagedError } from "../engine/journal/errors.js";
import { leaseTtlFromEnv } from "../engine/journal/lease.js";
import { defaultStateDir, placeFlag, storeOption } from "../engine/journal/state-dir.js";
import { readableStoreUrl, schemeOf, withoutPassword } from "../engine/journal/store-url.js";
import { CliError, echoed, EXIT, type Io } from "./io.js";
import { engine } from "./run-session.js";

/**
 * Where a command's journal is: the PostgreSQL database of `--store` (else `CRITERIA_STORE`),
 * else the SQLite journal in the state directory. `stateDir` is kept either way (local state).
 */
export interface JournalPlace {
  stateDir: string;
  store?: string;
}

/** The place from a command's `--state-dir` and `--store` options and the environment. */
export function placeOf(opts: { stateDir?: string; store?: string }, io: Io): JournalPlace {
  const store = opts.store ?? io.env.CRITERIA_STORE;
  if (opts.store === "") throw new CliError(`--store "": give a postgres:// URL, or leave --store out for the SQLite journal in the state directory`, EXIT.usage);
  // The value is not echoed: it may hold a password.
  if (store && !/^postgres(ql)?:\/\//i.test(store)) throw new CliError(`${opts.store !== undefined ? "--store" : "CRITERIA_STORE"}: expected a postgres:// or postgresql:// URL, not a ${schemeOf(store) || "scheme-less"} one (leave it out for the SQLite journal in the state directory)`, EXIT.usage);
  if (store && !readableStoreUrl(store)) throw new CliError(`${opts.store !== undefined ? "--store" : "CRITERIA_STORE"}: not a URL PostgreSQL's driver can read: write postgres://user:password@host:5432/database, or postgres:///database?host=/run/postgresql for a Unix socket (percent-encode @ : / ? # % and spaces inside a password, e.g. p%40ss%23w0rd)`, EXIT.usage);
  // A bad lease period is a setting's mistake, said before any journal is opened (found by a
  // new-user trial: "cannot open the journal …: CRITERIA_LEASE_TTL_MS=… is not a lease period", exit 1).
  try {
    leaseTtlFromEnv(io.env.CRITERIA_LEASE_TTL_MS);
  } catch (e) {
    throw e instanceof JournalOpenError ? new CliError(e.message, EXIT.usage) : e;
  }
  return { stateDir: stateDir(opts.stateDir, io), ...(store ? { store } : {}) };
}

/** What a suggested command needs to find the journal again: ` --store <URL without its password>` for a database given as `--store`. */
export function storeFlag(p: JournalPlace): string {
  return p.store ? storeOption(withoutPassword(p.store)) : placeFlag(p.stateDir);
}

/** The place as messages name it: the store's URL (without its password) or the state directory. */
export function placeName(p: JournalPlace): string {
  return p.store ? withoutPassword(p.store) : p.stateDir;
}

/**
 * A command's `<run>` argument, as commander hands it over: an empty one is a usage error
 * (exit 2), as `apply --run-id ""` is (found by a new-user trial: `journal ""` said
 * "no run  in …", exit 1).
 * @throws CliError (usage) for an empty or blank id
 */
export function runArgument(value: string): string {
  if (value.trim() === "") throw new CliError(`the run id is empty (${JSON.stringify(value)}): criteria runs lists the runs`, EXIT.usage);
  return value;
}

/** The refusal of a run id no run of the journal has. */
export function noRun(run: string, place: JournalPlace): string {
  return `no run ${echoed(run)} in ${placeName(place)} (criteria runs${storeFlag(place)} lists them)`;
}

/**
 * The message of damage report `report`, the commands it suggests naming the journal of `place`
 * (found by a new-user trial: `criteria resume RUN --discard-damaged` without the --state-dir
 * given found no run). Of a run tree whose root `root` has ended, it suggests no resume (found
 * by a user trial: resume then said the run had ended, and journal sent it back to resume).
 */
export function damageMessage(report: JournalDamagedError, place: JournalPlace, root?: RunRow): string {
  return report.naming(storeFlag(place), root ? endedAs(root) : undefined).message;
}

/** How run `row` ended (`succeeded in state "done"`), or undefined while it is active. */
export function endedAs(row: RunRow): string | undefined {
  return row.status === "active" ? undefined : `${row.status}${row.final_state ? ` in state "${row.final_state}"` : ""}`;
}

/**
 * Opens an existing journal for commands that use one; a missing or broken one is a
 * one-line error. `readOnly` for commands that only read (`runs`, `journal`): a journal
 * the user may not write is read all the same (found by a new-user trial: refused).
 */
export async function openJournal(place: JournalPlace, opts: { readOnly?: boolean } = {}): Promise<Journal> {
  const { openStore, JournalOpenError } = await engine();
  try {
    return await openStore({ ...place, mustExist: true, ...(opts.readOnly ? { readOnly: true } : {}) });
  } catch (e) {
    throw e instanceof JournalOpenError ? new CliError(e.message) : e;
  }
}

/** `--state-dir`, else `CRITERIA_STATE_DIR`, else `.criteria/` in the working directory. */
export function stateDir(opt: string | undefined, io: Io): string {
  if (opt === "") throw new CliError(`--state-dir "": name a directory (default: $CRITERIA_STATE_DIR or .criteria)`, EXIT.usage);
  return opt !== undefined ? resolve(opt) : defaultStateDir(io.env);
}

/** The `--store` option's help, the same on every command that reads or writes a journal. */
export const STORE_HELP = "the PostgreSQL journal to use, postgres://… (default: $CRITERIA_STORE, else the SQLite journal in the state directory)";
