/**
 * hcl2json as a test oracle: the Go module `make build` decompressed into
 * dist/hcl2json.wasm (the one compiler/parse/hcl2json.ts runs), in an instance of its
 * own that is started again if the Go program exits (a Go runtime fatal error ends the
 * instance, and every later call would fail). Calls are serialised and time-limited.
 * What the Go program prints (a crash's trace) is kept in memory, never written to the
 * test's stdout or stderr (oracle/go-output.ts).
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { loadQuietGo, takeGoOutput } from "./oracle/go-output.js";

const require = createRequire(import.meta.url);
const REPO = join(import.meta.dirname, "..", "..");

type GoInstance = { importObject: WebAssembly.Imports; run(i: WebAssembly.Instance): Promise<void> };
type ParseFn = (filename: string, contents: string, cb: (err: string | null, out: string) => void) => void;

let module: WebAssembly.Module | undefined;
let current: { parse: ParseFn; exited: Promise<"exited">; dead: boolean } | undefined;
let queue: Promise<unknown> = Promise.resolve();

function wasmModule(): WebAssembly.Module {
  if (module) return module;
  const built = join(REPO, "dist", "hcl2json.wasm");
  const bytes = existsSync(built) ? readFileSync(built) : gunzipSync(readFileSync(require.resolve("@cdktn/hcl2json/main.wasm.gz")));
  module = new WebAssembly.Module(bytes);
  return module;
}

function start(): NonNullable<typeof current> {
  loadQuietGo();
  const Go = (globalThis as unknown as { Go: new () => GoInstance }).Go;
  const go = new Go();
  const instance = new WebAssembly.Instance(wasmModule(), go.importObject);
  const root: Record<string, unknown> = {};
  (globalThis as Record<string, unknown>).__parse_terraform_config_wasm__ = root;
  const state = { parse: undefined as unknown as ParseFn, exited: Promise.resolve("exited" as const), dead: false };
  state.exited = go.run(instance).then(() => {
    state.dead = true;
    return "exited" as const;
  });
  state.parse = root.parse as ParseFn;
  return state;
}

/** hcl2json's JSON for `text`, or its error message (`{ error }`). Never rejects. */
export function hcl2jsonOracle(text: string): Promise<{ value: unknown } | { error: string }> {
  const run = async (): Promise<{ value: unknown } | { error: string }> => {
    if (!current || current.dead) current = start();
    const instance = current;
    const result = await Promise.race([
      new Promise<{ value: unknown } | { error: string }>((resolve) => {
        try {
          instance.parse("x.hcl", text, (err, out) => resolve(err ? { error: err } : { value: JSON.parse(out) }));
        } catch (e) {
          instance.dead = true;
          resolve({ error: `crashed: ${String(e)}` });
        }
      }),
      instance.exited.then(() => ({ error: `crashed: the Go program exited${firstLine(takeGoOutput())}` })),
      new Promise<{ error: string }>((resolve) => setTimeout(() => resolve({ error: "crashed: timeout" }), 10_000)),
    ]);
    if ("error" in result && result.error.startsWith("crashed")) instance.dead = true;
    return result;
  };
  const next = queue.then(run, run);
  queue = next.catch(() => undefined);
  return next;
}

/** `: <the first line of a Go crash's output>`, or nothing. */
function firstLine(output: string): string {
  const line = output.split("\n").find((l) => l.trim() !== "");
  return line ? `: ${line.trim()}` : "";
}
