// Build step: bundles dist/cli.js and everything it imports from this repository (plus
// commander and yaml) into one CommonJS file, dist/bundle/criteria.cjs, which
// bin/criteria runs (bin/load-bundle.cjs), then writes V8's code cache for it
// (scripts/code-cache.mjs). One file instead of ~80 saves module loading, the code
// cache saves compiling it: together most of a cold run (bench/cold-start.ts).
// CommonJS because Node 20 offers a code cache only for vm.Script; code reached through
// `await import()` (the engine) is bundled too, and runs only when imported.
// Native and lazily loaded packages stay external.
import { build } from "esbuild";
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
rmSync(join(root, "dist", "bundle"), { recursive: true, force: true });
// The entry: the CLI, with the schema validator build-assets.mjs precompiled bundled in
// (code-cached with the rest instead of required and compiled at the first check).
const entry = join(root, "dist", "bundle-entry.js");
writeFileSync(
  entry,
  [
    `import validator from "./schema/validate-workflow.cjs";`,
    `import { usePrecompiledValidator } from "./compiler/decode/check-schema.js";`,
    `usePrecompiledValidator(validator);`,
    `export * from "./cli.js";`,
    ``,
  ].join("\n"),
);
await build({
  entryPoints: [entry],
  outfile: join(root, "dist", "bundle", "criteria.cjs"),
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  external: ["better-sqlite3", "pg", "graphile-worker", "ajv", "ajv/*", "@hpcc-js/wasm-graphviz", "@nats-io/transport-node"],
  // jsonc-parser's main file is a UMD wrapper whose require() calls esbuild cannot follow: its ES module build instead.
  alias: { "jsonc-parser": join(root, "node_modules", "jsonc-parser", "lib", "esm", "main.js") },
  // The sources are ES modules: `import.meta.url` becomes the bundle's own URL.
  define: { "import.meta.url": "__criteria_bundle_url" },
  banner: { js: "const __criteria_bundle_url = require('node:url').pathToFileURL(__filename).href;" },
  logLevel: "warning",
});
// ASCII only: esbuild escapes non-ASCII in strings but not in the comments it keeps or in
// regular expressions, and one such character made the whole 2 MB text a two-byte string,
// which Node reads 5× slower (33 ms against 7 here, on every start). Escaped as \uXXXX
// (UTF-16 units, so also right for astral characters), which means the same in a comment,
// a string, a template or a regular expression; the bundle has no String.raw over them.
const out = join(root, "dist", "bundle", "criteria.cjs");
writeFileSync(out, readFileSync(out, "utf8").replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`));
execFileSync(process.execPath, [join(root, "scripts", "code-cache.mjs")], { stdio: "inherit" });
