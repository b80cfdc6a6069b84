/**
 * The hcl2json oracles keep what the Go program prints in memory (oracle/go-output.ts).
 * Found in CI on Node 24: a Go runtime's write to a full stderr pipe threw EAGAIN as an
 * uncaught error in hcl-differential.test.ts and failed the suite (the retry added for the
 * same failure on Node 22 was in one oracle only).
 */
import { createRequire } from "node:module";
import { closeSync, mkdtempSync, openSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { hcl2jsonOracle } from "./hcl2json-oracle.js";
import { loadQuietGo, takeGoOutput } from "./oracle/go-output.js";

const nodeFs = createRequire(import.meta.url)("node:fs") as typeof import("node:fs");

type GoShim = { importObject: { gojs: Record<string, (sp: number) => void> }; _inst?: unknown; mem?: DataView };

/** Calls the shim's own `runtime.wasmWrite(fd, p, n)` (how the Go runtime prints) on a memory of our own. */
function goPrint(fd: number, text: string): void {
  loadQuietGo();
  const Go = (globalThis as unknown as { Go: new () => GoShim }).Go;
  const go = new Go();
  const mem = new WebAssembly.Memory({ initial: 1 });
  const bytes = new TextEncoder().encode(text);
  new Uint8Array(mem.buffer).set(bytes, 1024);
  go._inst = { exports: { mem } };
  go.mem = new DataView(mem.buffer);
  const sp = 64;
  go.mem.setUint32(sp + 8, fd, true);
  go.mem.setUint32(sp + 16, 1024, true);
  go.mem.setInt32(sp + 24, bytes.length, true);
  go.importObject.gojs["runtime.wasmWrite"](sp);
}

/** The fds node's fs.writeSync was called with for stdout or stderr while `f` ran. */
async function consoleWrites(f: () => unknown): Promise<number[]> {
  const fds: number[] = [];
  const real = nodeFs.writeSync;
  vi.spyOn(nodeFs, "writeSync").mockImplementation(((fd: number, ...rest: unknown[]) => {
    if (fd === 1 || fd === 2) fds.push(fd);
    else return (real as (...x: unknown[]) => number)(fd, ...rest);
    return 0;
  }) as typeof nodeFs.writeSync);
  await f();
  return fds;
}

describe("the Go program's output in the hcl2json oracles", () => {
  afterEach(() => vi.restoreAllMocks());

  it("is kept in memory, not written to stdout or stderr", async () => {
    takeGoOutput();
    const fds = await consoleWrites(() => {
      goPrint(2, "fatal error: stack overflow\n");
      goPrint(1, "goroutine 1 [running]:\n");
    });
    expect(fds).toEqual([]);
    expect(takeGoOutput()).toBe("fatal error: stack overflow\ngoroutine 1 [running]:\n");
    expect(takeGoOutput()).toBe("");
  });

  it("goes to a file the Go program writes as it would", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "go-output-")), "out.txt");
    const fd = openSync(path, "w");
    try {
      goPrint(fd, "to a file\n");
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(path, "utf8")).toBe("to a file\n");
    expect(takeGoOutput()).toBe("");
  });

  it("keeps the last 16 KiB of a long trace", () => {
    takeGoOutput();
    goPrint(2, "x".repeat(20_000) + "end\n");
    const out = takeGoOutput();
    expect(out.length).toBe(16 * 1024);
    expect(out.endsWith("end\n")).toBe(true);
  });

  it("writes nothing to stdout or stderr when the Go program crashes, and is usable after", async () => {
    const deep = `x = ${"(".repeat(20_000)}1${")".repeat(20_000)}\n`;
    const fds = await consoleWrites(async () => {
      expect(await hcl2jsonOracle(deep)).toMatchObject({ error: expect.stringMatching(/^crashed: /) });
      expect(await hcl2jsonOracle("a = 1\n")).toEqual({ value: { a: 1 } });
    });
    expect(fds).toEqual([]);
  });
});
