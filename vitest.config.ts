import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Builds the CLI first (make build): tests that run bin/criteria never run a stale bundle.
    // Then gives the run a temporary directory of its own, removed after it.
    globalSetup: ["test/global-setup.ts", "test/global-tmpdir.ts"],
    testTimeout: 60_000,
    // Most of the suite waits on child processes (the CLI, shell steps, PostgreSQL): more
    // files at once than cores keeps both cores busy (the crash matrix is split per workflow for it).
    maxWorkers: 3,
    // A worker's test files share its process and modules (each file is not loaded into a
    // fresh module graph): 558 → 477 CPU-s and 327 → 288 s for the suite here. A file that
    // changes what the process shares (process.env, the working directory, a spy) restores it.
    isolate: false,
    hookTimeout: 60_000,
    // In CI, also a JSON report, from which .ci/run prints a plain "N passed, N failed" line.
    reporters: process.env.CI ? ["default", ["json", { outputFile: "test-results.json" }]] : ["default"],
  },
});
