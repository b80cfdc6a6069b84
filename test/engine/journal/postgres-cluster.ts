/**
 * A real PostgreSQL cluster for tests (bench/pg-cluster.ts), started and stopped around a
 * test file; without the server programs the tests skip saying why.
 */
import { mkdtempSync } from "node:fs";
import { connect, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

/**
 * `url` reached through a proxy on a Unix socket of its own that passes the cluster's bytes
 * until `freeze()`, and then nothing more either way, never closing a connection: a server
 * that stops answering without going away (frozen, or cut off by a network dropping packets).
 * `close()` ends the proxy and its connections.
 */
export async function freezableProxy(cluster: Cluster, url: string): Promise<{ url: string; freeze: () => void; close: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), "criteria-pg-frozen-"));
  let frozen = false;
  const sockets: Socket[] = [];
  const proxy = createServer((client) => {
    const server = connect(join(cluster.socketDir, ".s.PGSQL.5432"));
    sockets.push(client, server);
    client.on("data", (d: Buffer) => void (frozen || server.write(d)));
    server.on("data", (d: Buffer) => void (frozen || client.write(d)));
    // Frozen, a connection is never closed either (a frozen peer sends no FIN).
    client.on("close", () => frozen || server.destroy());
    server.on("close", () => frozen || client.destroy());
    client.on("error", () => undefined);
    server.on("error", () => undefined);
  });
  await new Promise<void>((r) => proxy.listen(join(dir, ".s.PGSQL.5432"), r));
  return {
    url: url.replace(/host=[^&]*/, `host=${encodeURIComponent(dir)}`),
    freeze: () => void (frozen = true),
    close: () => {
      for (const s of sockets) s.destroy();
      proxy.close();
    },
  };
}
