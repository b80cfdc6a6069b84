// Loads the built CLI bundle (dist/bundle/criteria.cjs) with V8's code cache for it
// (dist/bundle/criteria.cjs.cache, written by scripts/code-cache.mjs at build time):
// the bundle's ~1.3 MB of JavaScript is then deserialized instead of parsed and
// compiled, which is most of a cold `criteria validate` (bench/cold-start.ts). This is
// what Node 22's module.enableCompileCache() does; Node 20 has only vm.Script's
// cachedData. V8 itself checks only that the cache was made by the same V8 with the
// same flags for a source of the same length: it does not checksum the cache, and a
// damaged one can crash the process. So the build also writes the CRC-32 of the bundle
// and of its cache (criteria.cjs.cache.crc), and a cache whose bytes or whose bundle do
// not match is not used: the bundle compiles as usual, slower, never wrong.
// CommonJS, as bin/criteria is (bin/package.json): an ES module entry loads Node's ES module
// loader too, ~7 ms of every start.
"use strict";
const { isAscii } = require("node:buffer");
const { readFileSync } = require("node:fs");
const { createRequire } = require("node:module");
const { join } = require("node:path");
const { Script } = require("node:vm");
const zlib = require("node:zlib");

const bundleDir = join(__dirname, "..", "dist", "bundle");

/** The bundle's file name, its code cache's and the checksums of both. */
const BUNDLE = join(bundleDir, "criteria.cjs");
const CODE_CACHE = `${BUNDLE}.cache`;
const CODE_CACHE_CRC = `${CODE_CACHE}.crc`;

/** `{ source, cache }`: the CRC-32 of the bundle's bytes and of its cache, as the build records them. */
function checksums(source, cache) {
  return { source: zlib.crc32(source), cache: zlib.crc32(cache) };
}

/** The cache when it is whole and made for `source` (the bundle's bytes), else undefined. */
function trustedCache(source) {
  // zlib.crc32 came with Node 20.15: without it, no check, so no cache.
  if (typeof zlib.crc32 !== "function") return undefined;
  try {
    const cache = readFileSync(CODE_CACHE);
    const want = JSON.parse(readFileSync(CODE_CACHE_CRC, "utf8"));
    const got = checksums(source, cache);
    return got.source === want.source && got.cache === want.cache ? cache : undefined;
  } catch {
    return undefined; // no cache, or no checksums: compile
  }
}

/**
 * Evaluates the bundle as CommonJS (the same wrapper `require` uses) and returns its
 * exports with the `vm.Script` (for `createCachedData()`). Throws the file system's
 * ENOENT (with `path === BUNDLE`) when the bundle was not built.
 *
 * @param options.codeCache false to compile without the cache (the benchmark's probe)
 */
function loadBundle(options = {}) {
  const bytes = readFileSync(BUNDLE);
  // The build makes it ASCII (scripts/bundle.mjs): read so, it is a one-byte string at once
  // (Node 20's UTF-8 read of it took 25 ms, this 13 ms); anything else is read as UTF-8.
  const source = isAscii(bytes) ? bytes.latin1Slice(0, bytes.length) : bytes.toString("utf8");
  const cachedData = options.codeCache === false ? undefined : trustedCache(bytes);
  // CommonJS's own wrapper: the bundle sees `require`, `module` and `__filename`.
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  const script = new Script(wrapped, { filename: BUNDLE, cachedData });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(BUNDLE), module, BUNDLE, bundleDir);
  return { exports: module.exports, script };
}

module.exports = { BUNDLE, CODE_CACHE, CODE_CACHE_CRC, checksums, loadBundle };
