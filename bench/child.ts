/**
 * The child-process side of the benchmarks: `node dist/bench/child.js <mode> ...`.
 * Each mode runs in a fresh process (so it sees a cold start or a clean heap), loads
 * what it needs with dynamic imports only (so a mode pays for nothing else), and prints
 * one JSON object on stdout. Modes:
 *
 * - `phases <hcl> <yaml>`: where a cold run's time goes (node boot, loading the bundle
 *   with its code cache, first HCL and YAML validate, a second one).
 * - `parse <file> <rounds>`: the HCL parser alone (compiler/parse/hcl) over one file,
 *   `rounds` times after one warm-up: ms per parse, MB/s, and the scanner alone.
 * - `compile <file> [warm-file]`: one compile (after warming the parser on `warm-file`),
 *   its time and the peak RSS; then a second compile of the same file.
 * - `batch <file>...`: compile() over the files twice in one process (cold, then warm).
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const now = () => performance.now();
const rssMB = () => process.resourceUsage().maxRSS / 1024;

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

type Main = (argv: string[], io: object) => Promise<number>;

async function phases(hcl: string, yaml: string): Promise<Record<string, number>> {
  const out: Record<string, number> = { boot: now() };
  let t = now();
  readFileSync(join(root, "dist", "bundle", "criteria.cjs"));
  readFileSync(join(root, "dist", "bundle", "criteria.cjs.cache"));
  out.readFiles = now() - t;
  t = now();
  const loader = (await import(pathToFileURL(join(root, "bin", "load-bundle.cjs")).href)) as { loadBundle(): { exports: { main: Main } } };
  const { main } = loader.loadBundle().exports;
  out.loadBundle = now() - t;
  const io = { out() {}, err() {}, color: false, isTTY: false, env: {} };
  const validate = async (path: string) => {
    const s = now();
    const code = await main(["validate", path], io);
    if (code !== 0) throw new Error(`validate ${path} exited ${code}`);
    return now() - s;
  };
  out.firstHcl = await validate(hcl);
  out.firstYaml = await validate(yaml);
  out.secondHcl = await validate(hcl);
  out.total = now();
  return out;
}

async function parse(file: string, rounds: number): Promise<Record<string, number>> {
  const { parseHclNative } = await import("../compiler/parse/hcl/index.js");
  const { scanTokens } = await import("../compiler/parse/hcl/scanner.js");
  const { SourceFile } = await import("../compiler/diagnostics/source-file.js");
  const text = readFileSync(file, "utf8");
  const mb = Buffer.byteLength(text) / 1e6;
  const once = () => parseHclNative(new SourceFile(file, text));
  const first = now();
  const r = once();
  const firstMs = now() - first;
  if (r.diagnostics.some((d) => d.severity === "error")) throw new Error(`parse ${file}: ${r.diagnostics[0].message}`);
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = now();
    once();
    times.push(now() - t);
  }
  times.sort((a, b) => a - b);
  const ms = times[times.length >> 1];
  const scanTimes: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = now();
    scanTokens(text);
    scanTimes.push(now() - t);
  }
  scanTimes.sort((a, b) => a - b);
  const scanMs = scanTimes[scanTimes.length >> 1];
  return { mb, firstMs, ms, mbPerS: mb / (ms / 1000), scanMs, scanMbPerS: mb / (scanMs / 1000), peakRssMB: rssMB() };
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
    case "parse":
      return parse(args[0], Number(args[1]));
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
