/**
 * The child-process side of the benchmarks: `node dist/bench/child.js <mode> ...`.
 * Each mode runs in a fresh process (so it sees a cold start or a clean heap), loads
 * what it needs with dynamic imports only (so a mode pays for nothing else), and prints
 * one JSON object on stdout. Modes:
 *
 * - `phases <hcl> <yaml>`: where a cold run's time goes (node boot, imports, schema
 *   compile, hcl2json module load, first HCL parse, warm parses).
 * - `wasm-parts`: the pieces of hcl2json's start-up done by hand (fs-extra load, read +
 *   gunzip of main.wasm.gz, WebAssembly.compile, instantiate + Go runtime start).
 * - `first-parse <hcl> [raw.wasm]`: time to the first parsed HCL file, through hcl2json
 *   or (with a pre-gunzipped wasm) through a direct loader that skips fs-extra and gunzip.
 * - `compile <file> [warm-file]`: one compile (after warming the parser on `warm-file`),
 *   its time and the peak RSS; then a second compile of the same file.
 * - `batch <file>...`: compile() over the files twice in one process (cold, then warm).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const require = createRequire(join(root, "package.json"));
const now = () => performance.now();
const rssMB = () => process.resourceUsage().maxRSS / 1024;

type Parser = { parse(name: string, text: string): Promise<unknown> };

/** Outcome of one compile as the parent needs it. */
interface CompileInfo {
  ms: number;
  ok: boolean;
  errors: number;
  firstError?: string;
}

async function timedCompile(path: string): Promise<CompileInfo> {
  const { compile } = await import("../compiler/index.js");
  const t = now();
  const c = await compile(path);
  const ms = now() - t;
  const errs = c.diagnostics.filter((d) => d.severity === "error");
  return { ms, ok: errs.length === 0 && c.graph !== undefined, errors: errs.length, firstError: errs[0] ? `${errs[0].code}: ${errs[0].message}` : undefined };
}

async function phases(hcl: string, yaml: string): Promise<Record<string, number>> {
  const out: Record<string, number> = { boot: now() };
  let t = now();
  await import("../cli.js");
  out.importCli = now() - t;
  const { compile } = await import("../compiler/index.js");
  t = now();
  await compile(yaml);
  out.firstYamlCompile = now() - t;
  t = now();
  await compile(yaml);
  out.warmYamlCompile = now() - t;
  const text = readFileSync(join(hcl, "workflow.hcl"), "utf8");
  t = now();
  const h = require("@cdktn/hcl2json") as Parser;
  out.requireHcl2json = now() - t;
  t = now();
  await h.parse("a.hcl", text);
  out.firstHclParse = now() - t;
  t = now();
  await h.parse("a.hcl", text);
  out.secondHclParse = now() - t;
  t = now();
  await compile(hcl);
  out.warmHclCompile = now() - t;
  const cpu = process.cpuUsage();
  out.cpuUser = cpu.user / 1000;
  out.cpuSystem = cpu.system / 1000;
  out.total = now();
  return out;
}

function wasmPath(): string {
  return join(dirname(require.resolve("@cdktn/hcl2json/package.json")), "main.wasm.gz");
}

async function wasmParts(): Promise<Record<string, number>> {
  const { gunzipSync } = await import("node:zlib");
  const out: Record<string, number> = {};
  let t = now();
  try {
    require("fs-extra");
    out.requireFsExtra = now() - t;
  } catch {
    out.requireFsExtra = NaN;
  }
  t = now();
  const raw = gunzipSync(readFileSync(wasmPath()));
  out.readGunzip = now() - t;
  out.wasmMB = raw.length / 1e6;
  t = now();
  const mod = await WebAssembly.compile(raw);
  out.wasmCompile = now() - t;
  t = now();
  const parse = await startGo(mod);
  out.instantiateAndGoStart = now() - t;
  t = now();
  await parse("a.hcl", 'a = "b"\n');
  out.firstTinyParse = now() - t;
  out.total = now();
  return out;
}

/** Starts hcl2json's Go program from a compiled module and returns its `parse`, as hcl2json's bridge does. */
async function startGo(mod: WebAssembly.Module): Promise<(name: string, text: string) => Promise<unknown>> {
  const pkg = dirname(require.resolve("@cdktn/hcl2json/package.json"));
  require(join(pkg, "wasm", "bridge_wasm_exec.js"));
  const g = globalThis as unknown as { Go: new () => { importObject: WebAssembly.Imports; run(i: WebAssembly.Instance): Promise<void> }; __parse_terraform_config_wasm__: Record<string, (...a: unknown[]) => void> };
  const go = new g.Go();
  const inst = await WebAssembly.instantiate(mod, go.importObject);
  const jsRoot: Record<string, (...a: unknown[]) => void> = {};
  g.__parse_terraform_config_wasm__ = jsRoot;
  void go.run(inst);
  while (typeof jsRoot.parse !== "function") await new Promise((r) => setImmediate(r));
  return (name, text) => new Promise((res, rej) => jsRoot.parse(name, text, (err: unknown, json: string) => (err ? rej(new Error(String(err))) : res(JSON.parse(json)))));
}

async function firstParse(hcl: string, rawWasm?: string): Promise<Record<string, number>> {
  const text = readFileSync(join(hcl, "workflow.hcl"), "utf8");
  const t = now();
  if (rawWasm) {
    const mod = await WebAssembly.compile(readFileSync(rawWasm));
    const parse = await startGo(mod);
    await parse("a.hcl", text);
  } else {
    await (require("@cdktn/hcl2json") as Parser).parse("a.hcl", text);
  }
  return { boot: t, firstParse: now() - t, total: now() };
}

async function compileMode(path: string, warm?: string): Promise<Record<string, unknown>> {
  let warmMs = 0;
  if (warm) warmMs = (await timedCompile(warm)).ms;
  const first = await timedCompile(path);
  const peakRssMB = rssMB();
  const second = await timedCompile(path);
  return { warmMs, first, second, peakRssMB, total: now() };
}

async function batch(files: string[]): Promise<Record<string, unknown>> {
  const pass = async () => {
    const t = now();
    let failed = 0;
    let firstError: string | undefined;
    for (const f of files) {
      const c = await timedCompile(f);
      if (!c.ok) {
        failed++;
        firstError ??= `${f}: ${c.firstError}`;
      }
    }
    return { ms: now() - t, failed, firstError };
  };
  const boot = now();
  await import("../compiler/index.js");
  const importMs = now() - boot;
  const cold = await pass();
  const coldEnd = now();
  const warm = await pass();
  return { boot, importMs, cold, coldEnd, warm, peakRssMB: rssMB(), total: now() };
}

async function run(): Promise<unknown> {
  const [mode, ...args] = process.argv.slice(2);
  switch (mode) {
    case "phases":
      return phases(args[0], args[1]);
    case "wasm-parts":
      return wasmParts();
    case "first-parse":
      return firstParse(args[0], args[1]);
    case "compile":
      return compileMode(args[0], args[1]);
    case "batch":
      return batch(args);
    default:
      throw new Error(`unknown mode ${mode}`);
  }
}

run().then(
  (r) => process.stdout.write(JSON.stringify(r) + "\n"),
  (e) => {
    process.stderr.write(`bench child: ${(e as Error)?.stack ?? e}\n`);
    process.exitCode = 1;
  },
);
