/**
 * A real PostgreSQL cluster for tests and benchmarks: `initdb` into a temporary directory
 * and `pg_ctl start` listening only on a Unix socket there (no TCP port, nothing shared
 * with the machine's own server). Debian keeps the server programs in
 * /usr/lib/postgresql/<v>/bin; as root, they run as the `postgres` user (initdb refuses
 * root). `.ci/run` installs the `postgresql` package when they are missing; where they
 * still cannot be found, {@link findPostgres} says why.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

/** Where the server programs are, or why there are none. */
export function findPostgres(): { bin: string } | { missing: string } {
  const dirs = [...(process.env.PATH ?? "").split(":"), ...(existsSync("/usr/lib/postgresql") ? readdirSync("/usr/lib/postgresql").sort().reverse().map((v) => join("/usr/lib/postgresql", v, "bin")) : [])];
  for (const d of dirs) if (d && existsSync(join(d, "initdb")) && existsSync(join(d, "pg_ctl"))) return { bin: d };
  return { missing: "no PostgreSQL server programs (initdb, pg_ctl) on PATH or in /usr/lib/postgresql/*/bin; .ci/run installs the Debian package postgresql" };
}

/** A running test cluster. */
export interface Cluster {
  /** A connection URL to database `postgres` as the superuser `criteria`, over the socket. */
  url: string;
  /** The directory of its Unix socket (`-h` for PostgreSQL's own clients, such as pgbench). */
  socketDir: string;
  /** The directory of the server programs it was started with. */
  bin: string;
  /** A URL whose tables live in a new, empty schema (`search_path`): a fresh store per call. */
  freshSchema(): Promise<string>;
  /** A URL of a new, empty database: a fresh store with its own worker queue. */
  freshDatabase(): Promise<string>;
  /** Stops the server at once (as a crash would) and starts it again after `downMs`. */
  outage(downMs: number): Promise<void>;
  stop(): void;
}

/**
 * Starts a cluster (about 1 s here). `durable`: fsync on, as a real server (benchmarks,
 * compared with pgbench on the same cluster); off by default (tests: a test cluster's
 * durability is not what is tested, the store's own promises are).
 * @throws Error with initdb's or pg_ctl's output when it cannot start
 */
export async function startCluster(bin: string, opts: { durable?: boolean } = {}): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), "criteria-pg-"));
  const data = join(dir, "data");
  const asRoot = process.getuid?.() === 0;
  const run = (prog: string, args: string[]) => {
    const cmd = asRoot ? ["runuser", ["-u", "postgres", "--", join(bin, prog), ...args]] as const : [join(bin, prog), args] as const;
    const r = spawnSync(cmd[0], [...cmd[1]], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`${prog} failed (${r.status}): ${r.stderr || r.stdout}`);
  };
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(dir, uid, gid);
  }
  run("initdb", ["-D", data, "-U", "criteria", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"]);
  const settings = `-k ${dir} -c listen_addresses=''${opts.durable ? "" : " -c fsync=off -c full_page_writes=off"}`;
  run("pg_ctl", ["-D", data, "-w", "-s", "-l", join(dir, "log"), "-o", settings, "start"]);
  const url = `postgresql://criteria@localhost/postgres?host=${encodeURIComponent(dir)}`;
  const socketDir = dir;
  let n = 0;
  const { Client } = pg;
  return {
    url,
    socketDir,
    bin,
    async freshSchema() {
      const schema = `t${process.pid}_${++n}`;
      const c = new Client({ connectionString: url });
      await c.connect();
      await c.query(`CREATE SCHEMA ${schema}`);
      await c.end();
      return `${url}&options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    },
    async freshDatabase() {
      const db = `d${process.pid}_${++n}`;
      const c = new Client({ connectionString: url });
      await c.connect();
      await c.query(`CREATE DATABASE ${db}`);
      await c.end();
      return url.replace("/postgres?", `/${db}?`);
    },
    async outage(downMs: number) {
      run("pg_ctl", ["-D", data, "-w", "-s", "-m", "immediate", "stop"]);
      await new Promise((r) => setTimeout(r, downMs));
      run("pg_ctl", ["-D", data, "-w", "-s", "-l", join(dir, "log"), "-o", settings, "start"]);
    },
    stop() {
      try {
        run("pg_ctl", ["-D", data, "-w", "-s", "-m", "immediate", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
