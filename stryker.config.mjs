// Mutation testing (`make mutation`; not in CI: slow on two cores). StrykerJS mutates the
// core modules and runs the vitest suite (vitest.mutation.config.ts) against each
// mutant; a mutant no test kills is a test that would not fail when the code is wrong.
// Incremental: results are kept in reports/stryker-incremental.json, so a re-run after
// a change tests only the mutants of what changed. MUTATE=path,... narrows the run
// (e.g. MUTATE=compiler/check make mutation); a file may carry a line range, Stryker's
// own syntax, to measure a large file in parts (MUTATE=engine/run/runner.ts:1-400).
// The TypeScript checker is not used: it needs TypeScript's JavaScript API, which
// TypeScript 7 (the compiler this project builds with) no longer has; a mutant that
// does not type-check is run like any other (and usually killed by a failing test).
const modules = (process.env.MUTATE ?? "compiler/check,compiler/resolve,compiler/expr,engine/run,engine/journal").split(",");

/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutation.config.ts" },
  mutate: modules.map((m) => (/\.ts(:\d+-\d+)?$/.test(m) ? m : `${m}/**/*.ts`)),
  coverageAnalysis: "perTest",
  incremental: true,
  incrementalFile: "reports/stryker-incremental.json",
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: "reports/mutation/mutation.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  concurrency: 2,
  timeoutMS: 30000,
  ignoreStatic: true,
  thresholds: { high: 80, low: 75, break: null },
  // In place, not in a sandbox copy: the copy loses testdata's symlinks (which golden
  // cases test). Stryker restores every file when it ends; do not edit while it runs.
  inPlace: true,
  // No `// @ts-nocheck` insertion: nothing type-checks the mutants (see above).
  disableTypeChecks: false,
  tempDirName: ".stryker-tmp",
  // Stryker rewrites tsconfig.json's references with TypeScript's JavaScript API, which
  // TypeScript 7 no longer has; vitest compiles the sources itself, so point it at none.
  tsconfigFile: "no-tsconfig-for-stryker.json",
};
