import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename } from "node:path";
import { expect, test } from "vitest";

// test/global-tmpdir.ts: the run's temporary files go to a directory of its own, removed after it.
test("the tests, and the processes they start, make their temporary files in the run's own directory", () => {
  expect(basename(tmpdir())).toMatch(/^crt-/);
  expect(statSync(tmpdir()).isDirectory()).toBe(true);
  // Reachable by other users, as /tmp is (initdb runs as the postgres user: it was refused).
  expect(statSync(tmpdir()).mode & 0o7777).toBe(0o1777);
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(require('node:os').tmpdir())"], { encoding: "utf8" });
  expect(child.stdout).toBe(tmpdir());
});
