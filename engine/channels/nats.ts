import { createRequire } from "node:module";

/**
 * The NATS client (`@nats-io/transport-node`, v3), loaded on first use: only a run with
 * `--broker` and the `criteria channel` calls of its agents need it. Required, not
 * imported: the CLI bundle runs from a code cache where `import()` is unavailable.
 */
export function nats(): typeof import("@nats-io/transport-node") {
  return createRequire(import.meta.url)("@nats-io/transport-node") as typeof import("@nats-io/transport-node");
}
