/**
 * What the in-process runner tests share (runner-walk.test.ts, runner-attempts.test.ts,
 * runner-journal.test.ts, runner-park.test.ts): a workflow header with `done` and `failed`
 * states, an adapter of type "script" answering from a function, a runner over a fresh
 * SQLite journal, the warnings it said, and a journal that records what is asked of it.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Graph } from "../../compiler/build/graph.js";
import { compile } from "../../compiler/index.js";
import type { Value } from "../../compiler/expr/value.js";
import type { Adapter, StepRequest, StepResult } from "../../engine/adapters/adapter.js";
import { adapterFor as builtIn } from "../../engine/adapters/registry.js";
import type { JournalEntry, NewEntry } from "../../engine/journal/entry.js";
import { JournalWriteError } from "../../engine/journal/errors.js";
import type { AppendOptions, Journal } from "../../engine/journal/journal.js";
import { SqliteJournal } from "../../engine/journal/sqlite-journal.js";
import type { RunEvent } from "../../engine/run/events.js";
import { Runner, type RunnerOptions } from "../../engine/run/runner.js";

/** A workflow header starting at `initial`, with a terminal `done` and a failing `failed` state. */
export const HEAD = (initial: string, policy = "") => `workflow "t" {\n  version = "1"\n  initial_state = "${initial}"\n  target_state = "done"\n${policy}}\nstate "done" { terminal = true }\nstate "failed" {\n  terminal = true\n  success = false\n}\n`;

/** An adapter of type "script" answering each request with `answer`; every request kept, session opens counted. */
export function scripted(answer: (req: StepRequest) => StepResult | Promise<StepResult>, effectful = true) {
  const seen: StepRequest[] = [];
  let opened = 0;
  const adapter: Adapter = {
    type: "script",
    effectful,
    async open() {
      opened++;
      return { execute: async (req) => (seen.push(req), answer(req)), close: async () => undefined };
    },
  };
  return { seen, opened: () => opened, adapterFor: (t: string) => (t === "script" ? adapter : builtIn(t)) };
}

/**
 * A journal holding a run of `g` as a process killed at the first entry `cut` picks would
 * have left it: the entries of a whole run (on `adapterFor`, else a script adapter answering
 * `{ n: 1 }`) up to, and with, that one, in a fresh journal; the run's id is "r".
 */
export async function cutAt(g: Graph, cut: (e: JournalEntry) => boolean, adapterFor = scripted(() => ok({ n: 1 })).adapterFor) {
  const whole = setup();
  await whole.runner({ adapterFor }).start(g, {}, "r");
  const all = await whole.entries("r");
  return journalOf(all.slice(0, all.findIndex(cut) + 1));
}

/** A fresh journal holding `entries` of run "r" (their seqs are the new journal's). */
export async function journalOf(entries: JournalEntry[]) {
  const s = setup();
  await s.journal.append("r", entries.map(({ seq: _seq, ...e }) => e as NewEntry));
  return s;
}

/** A step's successful result with `output`. */
export const ok = (output: Record<string, Value> = {}): StepResult => ({ outcome: "success", output, reason: "ok" });

/** A fresh SQLite journal in a temporary directory, runners over it (built-in adapters unless given), their events, and a run's entries. */
export function setup(extra: Partial<RunnerOptions> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "criteria-runner-"));
  const journal = new SqliteJournal(dir);
  const events: RunEvent[] = [];
  const runner = (more: Partial<RunnerOptions> = {}) => new Runner({ journal, adapterFor: builtIn, baseDir: dir, events: (e) => events.push(e), pollMs: 5, ...extra, ...more });
  const entries = async (id: string): Promise<JournalEntry[]> => (await journal.read(id)).entries;
  return { dir, journal, runner, events, entries };
}

/** What `p` rejects with; throws when it resolves. */
export async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error("it resolved");
}

/** The messages of the warning events. */
export const warnings = (events: RunEvent[]) => events.flatMap((e) => (e.event === "warning" ? [e.message] : []));

/**
 * Compiles `main.hcl` of a project written to `dir` (a fresh directory unless given; files
 * by relative path); throws the errors, each `file:line message`, when it does not compile.
 */
export async function projectGraph(files: Record<string, string>, dir = mkdtempSync(join(tmpdir(), "criteria-project-"))): Promise<Graph> {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  const c = await compile(join(dir, "main.hcl"));
  const errors = c.diagnostics.filter((d) => d.severity === "error");
  if (errors.length > 0 || !c.graph) throw new Error(errors.map((d) => `${d.range.file}:${d.range.start.line} ${d.message}`).join("\n"));
  return c.graph;
}

/** A SQLite journal seen through a wrapper that records every append's options and may fail or hide group commit. */
export function recorded(opts: { group?: boolean; failAt?: number } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "criteria-runner-journal-"));
  const inner = new SqliteJournal(dir);
  const appends: { types: string[]; opts: AppendOptions }[] = [];
  let groups = 0;
  /** Sizes of the group commits asked, in order (an empty one is a wasted transaction). */
  const groupSizes: number[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const fail = () => {
    if (opts.failAt !== undefined && appends.length >= opts.failAt) throw new JournalWriteError(`cannot write the journal ${inner.location}: the disk is full`);
  };
  const journal = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === "appendGroup") {
        if (opts.group === false) return undefined;
        return async (root: string, list: { entries: NewEntry[]; opts?: AppendOptions }[]) => {
          groups++;
          groupSizes.push(list.length);
          fail();
          for (const a of list) appends.push({ types: a.entries.map((e) => e.entry_type), opts: a.opts ?? {} });
          return target.appendGroup!(root, list);
        };
      }
      if (prop === "append") {
        return async (root: string, entries: NewEntry[], o: AppendOptions = {}) => {
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          try {
            fail();
            appends.push({ types: entries.map((e) => e.entry_type), opts: o });
            // A store's round trip: the next append must wait for this one.
            await new Promise((r) => setTimeout(r, 1));
            return await target.append(root, entries, o);
          } finally {
            inFlight--;
          }
        };
      }
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  }) as Journal;
  return { dir, inner, journal, appends, groups: () => groups, groupSizes, maxInFlight: () => maxInFlight };
}
