// Loads the built CLI bundle (dist/bundle/criteria.cjs) with V8's code cache for it
// (dist/bundle/criteria.cjs.cache, written by scripts/code-cache.mjs at build time):
// the bundle's ~1 MB of JavaScript is then deserialized instead of parsed and compiled,
// which is most of a cold `criteria validate` (bench/cold-start.ts). This is what
// Node 22's module.enableCompileCache() does; Node 20 has only vm.Script's cachedData.
// A cache made by another node or with other V8 flags is rejected by V8 itself and the
// bundle compiles as usual: slower, never wrong.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";

const bundleDir = join(dirname(fileURLToPath(import.meta.url)), "..", "dist", "bundle");

/** The bundle's file name and its code-cache file's. */
export const BUNDLE = join(bundleDir, "criteria.cjs");
export const CODE_CACHE = `${BUNDLE}.cache`;

/**
 * Evaluates the bundle as CommonJS (the same wrapper `require` uses) and returns its
 * exports with the `vm.Script` (for `createCachedData()`). Throws the file system's
 * ENOENT (with `path === BUNDLE`) when the bundle was not built.
 *
 * @param options.codeCache false to compile without the cache (the benchmark's probe)
 */
export function loadBundle(options = {}) {
  const source = readFileSync(BUNDLE, "utf8");
  let cachedData;
  if (options.codeCache !== false) {
    try {
      cachedData = readFileSync(CODE_CACHE);
    } catch {
      // No cache (a build without it): compile.
    }
  }
  // CommonJS's own wrapper: the bundle sees `require`, `module` and `__filename`.
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  const script = new Script(wrapped, { filename: BUNDLE, cachedData });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(BUNDLE), module, BUNDLE, bundleDir);
  return { exports: module.exports, script };
}
