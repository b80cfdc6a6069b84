import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import type { JsonValue } from "../../../compiler/parse/document.js";
import { packageRoot } from "../../../compiler/package-root.js";
import { loadQuietGo } from "./go-output.js";

/*
 * The differential oracle of the HCL parser's tests (test/parse/hcl-differential.test.ts):
 * criteria parses HCL with its own parser (compiler/parse/hcl/); `@cdktn/hcl2json`, Go's
 * HCL in WebAssembly, is a devDependency kept to compare against.
 */

/** hcl2json's `parse`: HCL text to its JSON rendering; rejects with HCL's diagnostics text. */
export type HclParse = (filename: string, contents: string) => Promise<Record<string, JsonValue>>;

const require = createRequire(import.meta.url);

/** Files smaller than this start hcl2json with V8's baseline compiler only (bytes). */
export const LIFTOFF_ONLY_BELOW = 256 * 1024;
let parse: HclParse | undefined;

/**
 * `@cdktn/hcl2json`'s parser, started on first use (a YAML-only run never starts it).
 *
 * Fast path: the package's Go runtime shim (`wasm/bridge_wasm_exec.js`) with the module
 * `make build` decompressed into `dist/hcl2json.wasm`, skipping the package's loader
 * (fs-extra and a 7 MB gunzip on every run: ~45 ms of a cold start). The Go program
 * registers `parse(filename, contents, callback)` on `__parse_terraform_config_wasm__`,
 * the object the package's own loader reads. Any surprise (not built, another package
 * version) falls back to the package's exported `parse`, which gives the same results.
 */
export function hcl2json(firstFileBytes = 0): HclParse {
  if (parse) return parse;
  // Small inputs (editors, pre-commit hooks, `make validate`): keep V8 to its baseline
  // WebAssembly compiler. A run is over long before optimised code pays off, and the
  // optimising tier's background jobs delay exit by ~170 ms (bench/cold-start.ts). A big
  // file (thousands of steps) is parsed faster with the optimising tier, so keep it then.
  if (firstFileBytes < LIFTOFF_ONLY_BELOW) setFlagsFromString("--liftoff-only");
  parse = fastPath() ?? (require("@cdktn/hcl2json") as { parse: HclParse }).parse;
  return parse;
}

/**
 * Drops the running parser, so the next `hcl2json()` starts a fresh Go runtime. Needed
 * after a stack overflow inside it: the Go runtime does not survive one, and every later
 * parse in the process would fail.
 */
export function resetHcl2json(): void {
  parse = undefined;
}

function fastPath(): HclParse | undefined {
  try {
    const wasm = join(packageRoot(), "dist", "hcl2json.wasm");
    if (!existsSync(wasm)) return undefined;
    loadQuietGo();
    const Go = (globalThis as { Go?: new () => { importObject: WebAssembly.Imports; run(i: WebAssembly.Instance): Promise<void> } }).Go;
    if (!Go) return undefined;
    const go = new Go();
    const module = new WebAssembly.Module(readFileSync(wasm));
    const instance = new WebAssembly.Instance(module, go.importObject);
    const root: Record<string, unknown> = {};
    (globalThis as Record<string, unknown>).__parse_terraform_config_wasm__ = root;
    void go.run(instance);
    const fn = root.parse;
    if (typeof fn !== "function") return undefined;
    return (filename, contents) =>
      new Promise((resolve, reject) => {
        (fn as (f: string, c: string, cb: (err: string | null, out: string) => void) => void)(filename, contents, (err, out) => {
          if (err) reject(new Error(err));
          else resolve(JSON.parse(out) as Record<string, JsonValue>);
        });
      });
  } catch {
    return undefined;
  }
}
