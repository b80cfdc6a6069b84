/**
 * The shipped CLI (bin/criteria): the bundle loads through bin/load-bundle.cjs with the
 * V8 code cache the build wrote for it, and V8 accepts that cache (a rejected or missing
 * cache still works, only slower: this test is what notices). Run after `make build`.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "..");

describe("the CLI bundle", () => {
  it("loads from its code cache, which V8 accepts, and validates an example", () => {
    expect(existsSync(join(repo, "dist", "bundle", "criteria.cjs.cache")), "no code cache: run make build").toBe(true);
    const script = `
      import { loadBundle } from "./bin/load-bundle.cjs";
      const { exports, script } = loadBundle();
      let out = "";
      const io = { out: (s) => { out += s; }, err: (s) => { out += s; }, color: false, isTTY: false, env: {} };
      const code = await exports.main(["validate", "examples/review_loop"], io);
      process.stdout.write(JSON.stringify({ rejected: script.cachedDataRejected, code, out }));`;
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: repo, encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout)).toEqual({ rejected: false, code: 0, out: "examples/review_loop: ok\n" });
  });

  /** A copy of the built CLI (bin, dist/bundle, package.json, schema; node_modules linked) to damage. */
  function copyOfTheCli(): string {
    const dir = mkdtempSync(join(tmpdir(), "criteria-bundle-"));
    cpSync(join(repo, "bin"), join(dir, "bin"), { recursive: true });
    cpSync(join(repo, "dist", "bundle"), join(dir, "dist", "bundle"), { recursive: true });
    cpSync(join(repo, "package.json"), join(dir, "package.json"));
    cpSync(join(repo, "schema"), join(dir, "schema"), { recursive: true });
    symlinkSync(join(repo, "node_modules"), join(dir, "node_modules"));
    return dir;
  }

  it("a damaged cache is not used (V8 would crash on it): the CLI still works", () => {
    const dir = copyOfTheCli();
    const cache = join(dir, "dist", "bundle", "criteria.cjs.cache");
    const bytes = readFileSync(cache);
    bytes.fill(0xff, 5000, 5064); // the corruption that made V8 segfault
    writeFileSync(cache, bytes);
    const r = spawnSync(process.execPath, [join(dir, "bin", "criteria"), "--version"], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("a cache made for another bundle of the same length is not used: the new code runs", () => {
    const dir = copyOfTheCli();
    const bundle = join(dir, "dist", "bundle", "criteria.cjs");
    const text = readFileSync(bundle, "utf8");
    const from = "name the state a successful run ends in";
    expect(text).toContain(from);
    writeFileSync(bundle, text.replace(from, from.toUpperCase()));
    const f = join(dir, "no-target.hcl");
    writeFileSync(f, 'workflow "w" {\n  version = "1"\n  initial_state = "a"\n}\nstep "a" {\n  adapter = "noop"\n  outcome "success" { next = "done" }\n}\nstate "done" { terminal = true }\n');
    const r = spawnSync(process.execPath, [join(dir, "bin", "criteria"), "validate", f], { encoding: "utf8" });
    expect(r.stdout + r.stderr).toContain(from.toUpperCase());
  });
});

describe("a checkout the CLI cannot load", () => {
  /**
   * A copy of the checkout's bin/ and package.json, with `dist` (its paths under the
   * repository's dist/) and a node_modules holding every package of the repository's but
   * `without`.
   */
  function checkout(dist: string[], without?: string): string {
    const dir = mkdtempSync(join(tmpdir(), "criteria-unbuilt-"));
    cpSync(join(repo, "bin"), join(dir, "bin"), { recursive: true });
    cpSync(join(repo, "package.json"), join(dir, "package.json"));
    for (const p of dist) cpSync(join(repo, "dist", p), join(dir, "dist", p), { recursive: true });
    if (without !== undefined) {
      mkdirSync(join(dir, "node_modules"));
      for (const name of readdirSync(join(repo, "node_modules"))) if (name !== without) symlinkSync(join(repo, "node_modules", name), join(dir, "node_modules", name));
    }
    return dir;
  }

  const run = (dir: string) => spawnSync(process.execPath, [join(dir, "bin", "criteria"), "--version"], { encoding: "utf8" });

  // Found by a user trial: every missing module was "not built yet", a package missing
  // from node_modules too, and make build did not help.
  it("a package missing from node_modules is named, with npm ci: not 'not built yet' (ES modules, no bundle)", () => {
    const dir = checkout(readdirSync(join(repo, "dist")).filter((n) => n !== "bundle"), "commander");
    const r = run(dir);
    expect(r.status).toBe(3);
    expect(r.stderr).not.toContain("not built yet");
    expect(r.stderr).toContain(`criteria: cannot find the module 'commander' (imported from ${join(dir, "dist", "cli.js")}): a dependency is missing from node_modules`);
    expect(r.stderr).toContain("hint: run npm ci in the criteria checkout");
  });

  it("a package the bundle leaves external, missing, is named so too", () => {
    const r = run(checkout(["bundle"], "ajv"));
    expect(r.status).toBe(3);
    expect(r.stderr).not.toContain("not built yet");
    expect(r.stderr).toMatch(/^criteria: cannot find the module 'ajv\/[^']+' \(imported from .*criteria\.cjs\): a dependency is missing from node_modules\n {2}hint: run npm ci/);
  });

  it("a package loaded when a command needs it (the SQLite driver), missing, is one line with npm ci, not a journal's problem or a stack trace (found by a new-user trial)", () => {
    const dir = checkout(["bundle"], "better-sqlite3");
    cpSync(join(repo, "schema"), join(dir, "schema"), { recursive: true });
    writeFileSync(join(dir, "w.hcl"), 'workflow "w" {\n  version = "1"\n  initial_state = "done"\n  target_state = "done"\n}\nstate "done" { terminal = true }\n');
    const r = spawnSync(process.execPath, [join(dir, "bin", "criteria"), "apply", join(dir, "w.hcl"), "--state-dir", join(dir, "state"), "-o", "text"], { encoding: "utf8" });
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(/^criteria: cannot load the SQLite journal: the package 'better-sqlite3' is missing from node_modules; run npm ci in the criteria checkout[^\n]*\n$/);
  });

  it("no dist/ is 'not built yet'; a file of the build missing is too, named", () => {
    const none = run(checkout([], ""));
    expect(none.status).toBe(3);
    expect(none.stderr).toBe("criteria: not built yet: run make build (or npm run build) in the criteria checkout\n");
    const partial = checkout(readdirSync(join(repo, "dist")).filter((n) => n !== "bundle" && n !== "compiler"), "");
    expect(run(partial).stderr).toMatch(/^criteria: not built yet \(dist\/compiler\/[^ ]+\.js is missing\): run make build/);
  });
});
