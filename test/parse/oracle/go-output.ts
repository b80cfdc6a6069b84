import { createRequire } from "node:module";

/*
 * The Go runtime shim of `@cdktn/hcl2json` (`wasm/wasm_exec.js`) writes what the Go
 * program prints (a runtime crash's trace: thousands of lines after a stack overflow)
 * with `fs.writeSync`/`fs.write` on the process's stdout and stderr, through
 * `globalThis.fs`, which its bridge sets to node's `fs`. Under a test runner those are
 * pipes that may be full: EAGAIN then escaped as an uncaught error and failed the suite
 * (CI, Node 22 and Node 24, in hcl-differential.test.ts). Retrying a busy write is not
 * enough (the trace is still dumped into the test log); the oracles keep it in memory.
 */

type Fs = typeof import("node:fs");

/** At most this many characters of the Go program's output are kept (the tail). */
const KEEP = 16 * 1024;

let output = "";
const decoder = new TextDecoder();

function keep(buf: Uint8Array): void {
  output += decoder.decode(buf);
  if (output.length > KEEP) output = output.slice(-KEEP);
}

/**
 * Loads the shim (`globalThis.Go`) with `globalThis.fs` replaced by a view of node's `fs`
 * whose writes to fd 1 and 2 are kept in memory (`goOutput()`); other fds go to node's
 * `fs`. Idempotent. Node's own `fs` module is left as it is.
 */
export function loadQuietGo(): void {
  const require = createRequire(import.meta.url);
  require("@cdktn/hcl2json/wasm/bridge_wasm_exec.js");
  const g = globalThis as { fs?: Fs & { quiet?: boolean } };
  const real = g.fs;
  if (!real || real.quiet) return;
  const console = (fd: number) => fd === 1 || fd === 2;
  g.fs = Object.assign(Object.create(real) as Fs, {
    quiet: true,
    writeSync: (fd: number, buf: Uint8Array, ...rest: unknown[]): number => {
      if (!console(fd)) return (real.writeSync as (...x: unknown[]) => number)(fd, buf, ...rest);
      keep(buf);
      return buf.length;
    },
    // Go's os.Stdout/os.Stderr: fs.write(fd, buf, offset, length, position, callback).
    write: (fd: number, buf: Uint8Array, offset: number, length: number, position: number | null, callback: (err: Error | null, n?: number) => void): void => {
      if (!console(fd)) {
        (real.write as (...x: unknown[]) => void)(fd, buf, offset, length, position, callback);
        return;
      }
      keep(buf.subarray(offset, offset + length));
      callback(null, length);
    },
  });
}

/** The tail of what the Go program printed since the last call (at most 16 KiB), then cleared. */
export function takeGoOutput(): string {
  const out = output;
  output = "";
  return out;
}
