/**
 * A step's target in the older eras' fields (docs/language.md, Eras): `adapter = "noop"` names
 * a type (its default adapter), `agent = "bot"` an agent; written as references
 * (`adapter = adapter.shell.default`, `agent = agent.bot`) they name those declarations. An
 * agent's `adapter` is a type: an adapter block's name there is refused. Found by a new-user
 * trial: validate passed `adapter = adapter.shell.default` as a type of that name, which the
 * run refused; `agent = agent.bot` was an unknown agent "agent.bot"; `adapter = "shell.default"`
 * in an agent validated and failed at run time.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compile } from "../../compiler/index.js";

const HEAD = `workflow "w" {\n  version = "1"\n  initial_state = "call"\n  target_state = "done"\n}\nadapter "shell" "default" {}\nagent "bot" {\n  adapter = "shell"\n}\nstate "done" { terminal = true }\n`;
const step = (field: string) => `step "call" {\n  ${field}\n  input { command = "true" }\n  outcome "success" { next = "done" }\n}\n`;

async function compiled(text: string) {
  const dir = mkdtempSync(join(tmpdir(), "criteria-targets-"));
  writeFileSync(join(dir, "w.hcl"), text);
  return compile(join(dir, "w.hcl"));
}

describe("a step's target in the older fields", () => {
  it.each([
    ["adapter = adapter.shell.default", { kind: "adapter", id: "shell.default" }],
    ['adapter = "shell.default"', { kind: "adapter", id: "shell.default" }],
    ["adapter = adapter.shell", { kind: "adapter", id: "shell.default" }],
    ['adapter = "shell"', { kind: "adapter", id: "shell.default" }],
    ["agent = agent.bot", { kind: "agent", name: "bot" }],
    ['agent = "bot"', { kind: "agent", name: "bot" }],
  ])("%s", async (field, target) => {
    const c = await compiled(HEAD + step(field));
    expect(c.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    // The declared adapter is the one used: no "declared but never used" for it.
    if (target.kind === "adapter") expect(c.diagnostics.map((d) => d.message)).not.toContain('adapter "shell.default" is declared but never used');
    expect(c.graph?.steps.find((s) => s.name === "call")?.target).toEqual(target);
  });

  it.each([
    // A second new-user trial: each validated, and the run refused it (or the hint was nonsense).
    ["adapter = adapter.shell.default.x", 'step "call": "adapter.shell.default.x" names no adapter', "write target = adapter.<type>.<name>, e.g. target = adapter.shell.default (or the older adapter = \"shell\")"],
    ['adapter = ""', 'step "call": an empty adapter names no adapter', "write target = adapter.<type>.<name>, e.g. target = adapter.shell.default (or the older adapter = \"shell\")"],
    ["adapter = agent.bot", 'step "call": adapter = agent.bot names an agent, not an adapter', "write target = agent.bot"],
    ["agent = adapter.shell.default", 'step "call": agent = adapter.shell.default names an adapter, not an agent', "write target = adapter.shell.default"],
  ])("%s is refused at the value, with what to write", async (field, message, hint) => {
    const c = await compiled(HEAD + step(field));
    const errors = c.diagnostics.filter((d) => d.severity === "error");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: "unknown_target", message, hint });
    expect(errors[0].range.start).toMatchObject({ line: 12 });
  });

  it("an agent's adapter written as a reference (unquoted, in HCL) is refused as its quoted form is", async () => {
    const c = await compiled(HEAD.replace('adapter = "shell"', "adapter = adapter.shell.default") + step("target = agent.bot"));
    expect(c.diagnostics.find((x) => x.severity === "error")).toMatchObject({ code: "unknown_target", message: 'agent "bot": "adapter.shell.default" is not an adapter type: an agent names the type of adapter it runs on, not an adapter block' });
  });

  it("an agent's adapter written as an adapter block's name is refused where it is written, with the type to write", async () => {
    const c = await compiled(HEAD.replace('adapter = "shell"', 'adapter = "shell.default"') + step("target = agent.bot"));
    const d = c.diagnostics.find((x) => x.severity === "error");
    expect(d).toMatchObject({ code: "unknown_target", message: 'agent "bot": "shell.default" is not an adapter type: an agent names the type of adapter it runs on, not an adapter block', hint: 'write adapter = "shell" (the agent\'s own settings go in its config { } block)' });
    expect(d?.range.start).toMatchObject({ line: 8, column: 13 });
  });
});
