/**
 * compiler/parse/hcl2json.ts starts hcl2json's Go module itself (from the module `make
 * build` decompressed) instead of through the package's loader: it must give exactly
 * the package's results, values and errors alike.
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hcl2json } from "./oracle/hcl2json.js";

const repo = join(import.meta.dirname, "..", "..");
const lib = (createRequire(import.meta.url)("@cdktn/hcl2json") as { parse: (f: string, c: string) => Promise<unknown> }).parse;

function hclFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? hclFiles(p) : n.endsWith(".hcl") ? [p] : [];
  });
}

describe("hcl2json fast path", () => {
  it("is the one in use once the project is built", () => {
    expect(existsSync(join(repo, "dist", "hcl2json.wasm"))).toBe(true);
    expect(hcl2json()).not.toBe(lib);
  });
  // Files made to exhaust a parser's stack (deep_*) last: after a crash a Go runtime may be
  // dead (on Node 24, even when both crashed alike), so nothing after one is compared.
  const deepLast = (fs: string[]) => [...fs.filter((f) => !/\/deep_[^/]*$/.test(f)), ...fs.filter((f) => /\/deep_[^/]*$/.test(f))];
  const files = deepLast([...hclFiles(join(repo, "examples")), ...hclFiles(join(repo, "testdata", "invalid")).slice(0, 40)]);
  it(`gives the package's values and errors for ${files.length} files`, async () => {
    const parse = hcl2json();
    for (const f of files) {
      const text = readFileSync(f, "utf8");
      const [a, b] = await Promise.allSettled([parse("x.hcl", text), lib("x.hcl", text)]);
      expect(a.status, f).toBe(b.status);
      if (a.status === "fulfilled" && b.status === "fulfilled") expect(a.value, f).toEqual(b.value);
      // Parse errors alike; a crash of the Go module's runtime (it differs by Node version:
      // "unreachable" on 20, a call stack overflow on 24) only as a crash.
      const crash = (r: unknown) => /^(RangeError|RuntimeError)\b/.test(String(r));
      if (a.status === "rejected" && b.status === "rejected") {
        if (crash(a.reason) || crash(b.reason)) {
          expect([crash(a.reason), crash(b.reason)], `${f}: ${String(a.reason)} / ${String(b.reason)}`).toEqual([true, true]);
          console.log(`hcl2json: both crashed on ${f} (${String(a.reason)} / ${String(b.reason)}); the files after it are not compared`);
          break;
        }
        expect(String(a.reason), f).toBe(String(b.reason));
      }
    }
  });
});
