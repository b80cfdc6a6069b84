/**
 * Reading the output of a step that may not have run (found by a new-user trial, e5.hcl):
 * the run fails at the read, pointing at the reference itself (not at the string's opening
 * quote) and telling how to guard it; try() and can() guard it (compiler/expr/functions/attempts.ts).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import YAML from "yaml";
import { compile } from "../../compiler/index.js";
import { graphOf } from "./graph-of.js";
import { setup } from "./runner-fixtures.js";

/** The trial's e5.hcl: "review" runs only when "build" succeeds, and "build" fails. */
const E5 = (command: string, verdict: string) => `workflow {
  name          = "e5"
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

adapter "shell" "default" {}

step "build" {
  target = adapter.shell.default
  input { command = "exit 3" }
  outcome "success" { next = step.review }
  outcome "failure" { next = step.report }
}

step "review" {
  target = adapter.shell.default
  input { command = "echo LGTM" }
  outcome "success" { next = step.report }
  outcome "failure" { next = step.report }
}

step "report" {
  target = adapter.shell.default
  input { command = ${command} }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
}

output "verdict" {
  value = ${verdict}
}

state "done" {
  terminal = true
}
`;

/** E5 in YAML: step "report" reads steps.review (which has not run) in `command`, written as given. */
const E5_YAML = (command: string) => `workflow:
  name: e5
  version: "1"
  initial_state: build
  target_state: done
adapters:
  shell.default: {}
steps:
  build:
    target: adapter.shell.default
    input: { command: "exit 3" }
    outcomes: { success: review, failure: report }
  review:
    target: adapter.shell.default
    input: { command: "echo LGTM" }
    outcomes: { success: report, failure: report }
  report:
    target: adapter.shell.default
    input:
      command: ${command}
    outcomes: { success: done, failure: done }
states:
  done: { terminal: true }
`;

describe("a step that has not run", () => {
  it("fails the read at the reference inside the template, with a hint to guard it with try()", async () => {
    const g = await graphOf(E5('"echo review said: ${steps.review.stdout}"', "steps.review.stdout"));
    const end = await setup().runner().start(g, {}, "r");
    expect(end).toMatchObject({ success: false, reason: "eval_error" });
    // Line 26: `  input { command = "echo review said: ${steps.review.stdout}" }`; steps.review is at column 42 (the quote at 21).
    expect(end.detail).toMatch(/w\.hcl:26:42: step "review" has not run in this run, so steps\.review has no value: .* write try\(steps\.review\.stdout, ""\) \(or test can\(steps\.review\) in a condition\)\.$/);
  });

  it("in a quoted YAML or JSON string too (found by a trial: it fell back to the string's opening quote)", async () => {
    const yaml = E5_YAML('"echo said: ${steps.review.stdout}"');
    const json = JSON.stringify(YAML.parse(yaml), null, 2);
    // Where steps.review stands in the file: the failing part, as in HCL.
    const place = (name: string, text: string, marker: string) => {
      const lines = text.split("\n");
      const i = lines.findIndex((l) => l.includes(marker));
      return `${name}:${i + 1}:${lines[i].indexOf("steps.review") + 1}`;
    };
    for (const [name, text, marker] of [
      ["w.yaml", yaml, 'command: "echo said'],
      ["w.yaml", yaml.replace('"echo said: ${steps.review.stdout}"', "'echo said: ${steps.review.stdout}'"), "command: 'echo said"],
      ["w.json", json, "echo said"],
    ]) {
      const file = join(mkdtempSync(join(tmpdir(), "criteria-e5-")), name);
      writeFileSync(file, text);
      const c = await compile(file);
      expect(c.graph, c.diagnostics.map((d) => d.message).join("\n")).toBeDefined();
      const end = await setup().runner().start(c.graph!, {}, "r");
      expect(end.detail, marker).toContain(`/${place(name, text, marker)}: step "review" has not run`);
    }
  });

  it("in a YAML or JSON string not written as it reads: escapes, '', folding (found by a new-user trial: said at the string's start)", async () => {
    const yaml = E5_YAML;
    const escaped = yaml('"echo \\t\\u00e9 \\"q\\" ${steps.review.stdout}"');
    for (const [name, text, at] of [
      ["w.yaml", escaped, "20:39"],
      ["w.json", JSON.stringify(YAML.parse(escaped), null, 2), "35:38"],
      ["w.yaml", yaml(">-\n        echo one\n        hello ${steps.review.stdout}"), "22:17"],
      ["w.yaml", yaml("'echo it''s ${steps.review.stdout}'"), "20:30"],
      ["w.yaml", yaml("echo one\n        two ${steps.review.stdout}"), "21:15"],
      ["w.yaml", yaml("|2\n          echo indented\n        echo hello ${steps.review.stdout}"), "22:22"],
    ]) {
      const file = join(mkdtempSync(join(tmpdir(), "criteria-e5-")), name);
      writeFileSync(file, text);
      const c = await compile(file);
      expect(c.graph, c.diagnostics.map((d) => d.message).join("\n")).toBeDefined();
      const end = await setup().runner().start(c.graph!, {}, "r");
      // The line and column of steps.review in the file.
      const [line, column] = at.split(":").map(Number);
      expect(text.split("\n")[line - 1].slice(column - 1), text).toMatch(/^steps\.review/);
      expect(end.detail, text).toContain(`/${name}:${at}: step "review" has not run`);
    }
  });

  it("outside a string the place is the reference's too", async () => {
    const g = await graphOf(E5('"echo report"', "steps.review.stdout"));
    const end = await setup().runner().start(g, {}, "r");
    expect(end.detail).toMatch(/w\.hcl:32:11: step "review" has not run/);
  });

  it("try() gives the fallback, and can() tells whether it ran", async () => {
    const g = await graphOf(E5('"echo review said: ${try(steps.review.stdout, "nothing")}"', 'can(steps.review) ? steps.review.stdout : "no review"'));
    const { runner, events } = setup();
    const end = await runner().start(g, {}, "r");
    expect(end).toMatchObject({ success: true, outputs: { verdict: "no review" } });
    const report = events.find((e) => e.event === "step.completed" && e.step === "report");
    expect(report).toMatchObject({ output: { stdout: "review said: nothing\n" } });
  });

  it("validate's warning offers the fallback the read needs: {} for the whole step's outputs, \"\" for a field (found by a trial: lookup(try(steps.review, \"\"), ...) failed on the string)", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "criteria-e5-")), "w.hcl");
    writeFileSync(file, E5('"echo ${lookup(steps.review, \"stdout\", \"none\")}"', "steps.review.stdout"));
    const hints = (await compile(file)).diagnostics.filter((d) => d.code === "reads_step_not_run").map((d) => d.hint);
    expect(hints).toEqual([
      'guard the read: try(steps.review, {}) is {} when the step has not run (or test can(steps.review) in a condition)',
      'guard the read: try(steps.review.stdout, "") is "" when the step has not run (or test can(steps.review) in a condition)',
    ]);
  });
});
