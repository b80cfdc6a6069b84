/**
 * Real runs for the timeline page's tests, made by the built CLI: `gate` retries a step
 * that timed out, runs a `for_each` body per item, waits for an approval that a person
 * (whose name is markup) gives with `criteria approve --by`, then fails on an expression
 * error; `review_panel` (the example) has two lenses in parallel that message each other.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { cli, entries, repo, start, temp, until } from "../pipeline/helpers.js";

/** Who approves the gate: markup, which the page must show as text. */
export const APPROVER = `<img src=x onerror="document.title='pwned'">`;

const GATE = (side: string) => `workflow "gate" {
  version       = "1"
  initial_state = "flaky"
  target_state  = "shipped"
}
policy { max_step_retries = 1 }
# Known only at run time (a constant "{nope" would be refused by validate): the run fails on it.
variable "broken_json" {
  type    = string
  default = "{nope"
}
adapter "shell" "default" {
  config { shell = "/bin/sh" }
}
step "flaky" {
  target  = adapter.shell.default
  timeout = "1s"
  input {
    command = "if [ -f ${side}/tried ]; then echo ok; else touch ${side}/tried; sleep 5; fi"
  }
  outcome "success" { next = "items" }
  outcome "failure" { next = "broken" }
}
step "items" {
  for_each = ["a", "b"]
  workflow {
    step "say" {
      target = adapter.shell.default
      input { command = "echo \${each.value}" }
      outcome "success" { next = "_continue" }
    }
  }
  outcome "all_succeeded" { next = "gate" }
  outcome "any_failed" { next = "broken" }
}
approval "gate" {
  approvers = ["release-managers"]
  outcome "approved" { next = "bad" }
  outcome "rejected" { next = "broken" }
}
step "bad" {
  target = adapter.shell.default
  input { command = "echo \${jsondecode(var.broken_json)}" }
  outcome "success" { next = "shipped" }
}
state "shipped" { terminal = true }
state "broken" {
  terminal = true
  success  = false
}
`;

/** A finished run: its journal directory, run id and source file. */
export interface MadeRun {
  state: string;
  run: string;
  file: string;
}

/** Runs `gate` to its failure (about 2 s: a 1 s timeout, then the approval). */
export async function gateRun(): Promise<MadeRun> {
  const dir = temp("criteria-timeline-");
  const side = join(dir, "side");
  mkdirSync(side);
  const file = join(dir, "main.hcl");
  writeFileSync(file, GATE(side));
  const state = join(dir, "state");
  const child = start(["apply", file, "--state-dir", state, "--run-id", "t"]);
  const exit = new Promise<number | null>((r) => child.once("exit", r));
  let asked = false;
  await until(() => {
    if (!asked && existsSync(join(state, "journal.db"))) {
      const q = cli(["journal", "t", "--state-dir", state]);
      asked = q.stdout.includes("approval.requested");
    }
    return asked;
  }, 30_000);
  const approve = cli(["approve", "t", "gate", "--by", APPROVER, "--state-dir", state]);
  expect(approve.status, approve.stderr).toBe(0);
  expect(await exit).toBe(1);
  return { state, run: "t", file };
}

/** Runs the review_panel example (two lenses in parallel messaging each other). */
export function panelRun(): MadeRun {
  const state = join(temp("criteria-timeline-panel-"), "state");
  const r = cli(["apply", join(repo, "examples", "review_panel"), "--state-dir", state, "--run-id", "p"]);
  expect(r.status, r.stderr).toBe(0);
  return { state, run: "p", file: join(repo, "examples", "review_panel", "workflow.hcl") };
}

/** The `line:col` of the first `needle` in a file (1-based). */
export function positionOf(file: string, needle: string): string {
  const lines = readFileSync(file, "utf8").split("\n");
  const line = lines.findIndex((l) => l.includes(needle));
  return `${line + 1}:${lines[line].indexOf(needle) + 1}`;
}

/** The run ids a journal holds under `run`, as the page should draw them. */
export async function runIds(made: MadeRun): Promise<string[]> {
  return [...new Set((await entries(made.state, made.run)).map((e) => e.run_id))];
}

/** A run that fails with a long unbroken word in its reason (a step's 3,000 characters of stderr). */
export function noisyRun(): MadeRun {
  const dir = temp("criteria-timeline-noisy-");
  const file = join(dir, "noisy.hcl");
  writeFileSync(
    file,
    `workflow "noisy" {\n  version = "1"\n  initial_state = "noisy"\n  target_state = "done"\n}\nadapter "shell" "default" {}\nstep "noisy" {\n  target = adapter.shell.default\n  input { command = "printf %3000s | tr \\" \\" \\"&\\" >&2; exit 1" }\n  outcome "success" { next = "done" }\n}\nstate "done" { terminal = true }\n`,
  );
  const state = join(dir, "state");
  expect(cli(["apply", file, "--state-dir", state, "--run-id", "n"]).status).toBe(1);
  return { state, run: "n", file };
}

