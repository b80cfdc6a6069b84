/**
 * The shipped CLI (bin/criteria): the bundle loads through bin/load-bundle.mjs with the
 * V8 code cache the build wrote for it, and V8 accepts that cache (a rejected or missing
 * cache still works, only slower: this test is what notices). Run after `make build`.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "..");

describe("the CLI bundle", () => {
  it("loads from its code cache, which V8 accepts, and validates an example", () => {
    expect(existsSync(join(repo, "dist", "bundle", "criteria.cjs.cache")), "no code cache: run make build").toBe(true);
    const script = `
      import { loadBundle } from "./bin/load-bundle.mjs";
      const { exports, script } = loadBundle();
      let out = "";
      const io = { out: (s) => { out += s; }, err: (s) => { out += s; }, color: false, isTTY: false, env: {} };
      const code = await exports.main(["validate", "examples/review_loop"], io);
      process.stdout.write(JSON.stringify({ rejected: script.cachedDataRejected, code, out }));`;
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: repo, encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout)).toEqual({ rejected: false, code: 0, out: "examples/review_loop: ok\n" });
  });
});
