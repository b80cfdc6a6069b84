import { defineConfig } from "vitest/config";

/**
 * The test run StrykerJS mutates against (`make mutation`, stryker.config.mjs): the
 * suite without the tests that only drive `bin/criteria` as a child process (the crash
 * matrix, the bundle): a mutant lives in the test process's modules, which a child
 * process running the built bundle never loads, so those tests can neither kill nor
 * cover one and would only slow every run down. No build first (only the temporary directory's global setup).
 */
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/engine/crash-matrix/**", "test/engine/worker/**", "test/pipeline/postgres-store.test.ts", "test/bundle.test.ts", "**/node_modules/**"],
    // Child processes, not worker threads: some tests change directory (process.chdir).
    pool: "forks",
    // A temporary directory of the run's own, removed after it (every mutant runs the tests again).
    globalSetup: ["test/global-tmpdir.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
