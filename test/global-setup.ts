/**
 * Runs once before the test files: `make build`, so every test that runs `bin/criteria`
 * (the crash matrix, the CLI as a process, the examples) runs the current code. The
 * Makefile's build target is the bundle's code cache, which `tsc` alone does not
 * refresh, so a build is never taken for up to date after a bare `tsc`.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";

export default function setup(): void {
  execFileSync("make", ["--no-print-directory", "build"], { cwd: join(import.meta.dirname, ".."), stdio: ["ignore", "ignore", "inherit"] });
}
