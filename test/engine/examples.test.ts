/**
 * Every example runs end to end (docs/architecture.md, Tests and measurements:
 * every example that needs no external service runs). Agent CLIs are fakes on PATH
 * (testdata/fake-agents), time is an injected clock that jumps over waits, approvals
 * are auto-approved and signals are delivered when a run waits for one.
 *
 * Each run is compared with its pinned record, testdata/examples/<name>.run.json: the
 * final state, the outputs, and every step and iteration that completed, per run of
 * the tree, with its outcome (a missing record fails; `UPDATE_GOLDEN=1` writes them).
 * An example the engine cannot run yet is an expected failure (`it.fails`), so the
 * day it starts to pass is noticed.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compile } from "../../compiler/index.js";
import { adapterFor } from "../../engine/adapters/registry.js";
import { SqliteJournal } from "../../engine/journal/sqlite-journal.js";
import { Runner } from "../../engine/run/runner.js";
import { deliverSignal } from "../../engine/run/signals.js";

const repo = join(import.meta.dirname, "..", "..");
const examples = readdirSync(join(repo, "examples"))
  .filter((n) => statSync(join(repo, "examples", n)).isDirectory())
  .sort();
/** Examples whose constructs the engine does not run yet, with the reason. */
const NOT_YET: Record<string, string> = {};

describe("examples run end to end", () => {
  // The fake agents on PATH for this file's tests only (the files of a worker share a process: vitest.config.ts).
  const path = process.env.PATH;
  beforeAll(() => void (process.env.PATH = `${join(repo, "testdata", "fake-agents")}:${path}`));
  afterAll(() => void (process.env.PATH = path));
  for (const name of examples) {
    const dir = join(repo, "examples", name);
    (NOT_YET[name] !== undefined ? it.fails : it)(name, async () => {
      const c = await compile(dir);
      expect(c.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      const journal = new SqliteJournal(mkdtempSync(join(tmpdir(), `criteria-ex-${name}-`)));
      let now = Date.UTC(2026, 0, 1);
      const runner: Runner = new Runner({
        journal,
        adapterFor,
        baseDir: dir,
        autoApprove: true,
        pollMs: 1,
        clock: () => now,
        sleep: async (ms) => {
          now += Math.max(0, ms);
          await new Promise((r) => setImmediate(r));
        },
        events: (e) => {
          if (e.event === "wait.started" && e.signal) void deliverSignal(journal, "run", e.signal, null, "test", now);
        },
      });
      const vars = Object.fromEntries(c.graph!.variables.filter((v) => v.required).map((v) => [v.name, v.type === "number" ? 1 : "x"]));
      const end = await runner.start(c.graph!, vars, "run", { task: "review the change" });
      expect(end.reason, end.detail).toBe("ok");
      expect(end.success, `${name} ended in "${end.state}": ${end.detail}`).toBe(true);
      const entries = (await journal.read("run")).entries;
      await journal.close();
      // Child runs are named after the run that started them: the root's id prefix is stable.
      const record = {
        state: end.state,
        outputs: end.outputs,
        completed: entries
          .filter((e) => e.entry_type === "step.completed" || e.entry_type === "iteration.completed")
          .map((e) => {
            const p = e.payload as { outcome?: string; index?: number };
            return { key: `${e.run_id} ${e.step_id}`, index: p.index, line: `${e.run_id} ${e.step_id}${p.index !== undefined ? `[${p.index}]` : ""} -> ${p.outcome}` };
          })
          // Parallel items complete in any order: a run of one step's items is listed by index.
          .reduce<{ key: string; index?: number; line: string }[][]>((groups, r) => {
            const last = groups.at(-1);
            if (last && r.index !== undefined && last[0].index !== undefined && last[0].key === r.key) last.push(r);
            else groups.push([r]);
            return groups;
          }, [])
          .flatMap((g) => g.sort((a, b) => (a.index ?? 0) - (b.index ?? 0)).map((r) => r.line)),
      };
      const file = join(repo, "testdata", "examples", `${name}.run.json`);
      const got = JSON.stringify(record, null, 2) + "\n";
      if (process.env.UPDATE_GOLDEN === "1") writeFileSync(file, got);
      expect(existsSync(file), `${file} is missing: run UPDATE_GOLDEN=1 npx vitest run test/engine/examples.test.ts and review it`).toBe(true);
      expect(got).toBe(readFileSync(file, "utf8"));
    });
  }
});
