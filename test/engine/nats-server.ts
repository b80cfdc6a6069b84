/**
 * A real NATS server for tests: Debian's `nats-server` on a free loopback port, started
 * by the test file and stopped after it. `.ci/run` installs the package when it is missing;
 * where it still cannot be found, {@link useNats} says why and the NATS tests skip saying so.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createServer, connect } from "node:net";
import { afterAll, beforeAll } from "vitest";

/** A running NATS server. */
export interface NatsServer {
  /** `nats://127.0.0.1:<port>` */
  url: string;
  /** Stops the server at once and starts it again on the same port after `downMs`. */
  restart(downMs: number): Promise<void>;
  stop(): void;
}

/** Why there is no `nats-server` to run, or undefined when there is one. */
export function natsMissing(): string | undefined {
  const r = spawnSync("nats-server", ["--version"], { encoding: "utf8" });
  return r.error ? "no nats-server on PATH; .ci/run installs the Debian package nats-server" : undefined;
}

/** A free TCP port on 127.0.0.1. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Resolves once something accepts connections on the port (10 s at most). */
async function listening(port: number): Promise<void> {
  const until = Date.now() + 10_000;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const c = connect(port, "127.0.0.1", () => {
        c.end();
        resolve(true);
      });
      c.once("error", () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`nats-server did not listen on port ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts `nats-server` on a free port. */
export async function startNats(): Promise<NatsServer> {
  const port = await freePort();
  let proc: ChildProcess;
  const launch = async () => {
    proc = spawn("nats-server", ["-a", "127.0.0.1", "-p", String(port)], { stdio: "ignore" });
    await listening(port);
  };
  await launch();
  const kill = () => new Promise<void>((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
    proc.once("exit", () => resolve());
    proc.kill("SIGKILL");
  });
  return {
    url: `nats://127.0.0.1:${port}`,
    async restart(downMs) {
      await kill();
      await new Promise((r) => setTimeout(r, downMs));
      await launch();
    },
    stop: () => void kill(),
  };
}

/** A NATS server for a test file: `skip` says why there is none. */
export function useNats(): { skip: string | undefined; nats: () => NatsServer } {
  const skip = natsMissing();
  if (skip) console.log(`skipped: ${skip}`);
  let running: NatsServer | undefined;
  beforeAll(async () => {
    if (!skip) running = await startNats();
  }, 30_000);
  afterAll(() => running?.stop());
  return { skip, nats: () => running! };
}
