/**
 * A real PostgreSQL cluster for tests (bench/pg-cluster.ts), started and stopped around a
 * test file; without the server programs the tests skip saying why.
 */
import { afterAll, beforeAll } from "vitest";
import { findPostgres, startCluster, type Cluster } from "../../../bench/pg-cluster.js";

export { findPostgres, startCluster, type Cluster };

/**
 * A cluster for the test file that calls this (at its top level): started before its
 * tests, stopped after them. `skip` says why there is none (the tests then skip with it,
 * printed once); `cluster()` is the running one.
 */
export function useCluster(): { skip: string | undefined; cluster: () => Cluster } {
  const found = findPostgres();
  const skip = "missing" in found ? found.missing : undefined;
  if (skip) console.log(`skipped: ${skip}`);
  let running: Cluster | undefined;
  beforeAll(async () => {
    if ("bin" in found) running = await startCluster(found.bin);
  }, 60_000);
  afterAll(() => running?.stop());
  return { skip, cluster: () => running! };
}
