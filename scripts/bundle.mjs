// Build step: bundles dist/cli.js and everything it imports from this repository (plus
// commander and yaml) into dist/bundle/criteria.mjs, which bin/criteria runs, and a
// chunk for the engine. A few files instead of ~80 saves ~50 ms of module loading on
// every cold run (bench/cold-start.ts). Native and lazily loaded packages stay external.
import { build } from "esbuild";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
// Chunk names carry content hashes: clear the last build's so they do not pile up.
rmSync(join(root, "dist", "bundle"), { recursive: true, force: true });
await build({
  entryPoints: { criteria: join(root, "dist", "cli.js") },
  outdir: join(root, "dist", "bundle"),
  outExtension: { ".js": ".mjs" },
  bundle: true,
  // Dynamically imported code (the engine: runner, journal, adapters) goes to its own
  // chunk, which `validate` never loads.
  splitting: true,
  platform: "node",
  format: "esm",
  target: "node20",
  external: ["better-sqlite3", "ajv", "ajv/*"],
  // CommonJS dependencies bundled into an ES module still call require().
  banner: { js: "import { createRequire as __criteriaRequire } from 'node:module'; const require = __criteriaRequire(import.meta.url);" },
  logLevel: "warning",
});
