/**
 * A temporary directory of the test run's own as `TMPDIR`, set once before the test files
 * (vitest global setup): the test processes, and the processes they start, inherit it, so
 * `os.tmpdir()` is inside it; after the last file it is removed with everything in it.
 * The tests make state directories, projects, clusters and sockets there by the thousand
 * (`mkdtemp`, seldom removed one by one): two test files left 187 directories (16 MB) in
 * /tmp, a run of the suite thousands, `make mutation` tens of thousands.
 * `CRITERIA_KEEP_TEST_TMP=1` keeps it, and says where, to look at what a test left.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  const outer = process.env.TMPDIR;
  // A short name: Unix socket paths (the PostgreSQL and NATS tests make theirs inside it) hold at most 107 bytes.
  const dir = mkdtempSync(join(tmpdir(), "crt-"));
  // Open to every user, as /tmp is (sticky: each removes only its own): the PostgreSQL tests
  // run initdb as the postgres user, which must reach its cluster's directory in here.
  chmodSync(dir, 0o1777);
  process.env.TMPDIR = dir;
  return () => {
    if (outer === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = outer;
    if (process.env.CRITERIA_KEEP_TEST_TMP === "1") {
      console.log(`the tests' temporary files are kept in ${dir}`);
      return;
    }
    // A process a test left running may still write there: tried again a few times.
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  };
}
