import { createRequire } from "node:module";

let loaded: typeof import("node:crypto") | undefined;

/**
 * node:crypto, loaded on first use: loading it costs ~5 ms, which a cold `validate`
 * that hashes nothing should not pay (bench/cold-start.ts). Used by the hash and uuid
 * functions and by the source hash of `apply`.
 */
export function nodeCrypto(): typeof import("node:crypto") {
  return (loaded ??= createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto"));
}
