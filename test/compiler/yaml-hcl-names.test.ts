/**
 * HCL's names in a YAML or JSON file get the dialect's own name as their did-you-mean
 * (compiler/decode/check-schema.ts, yamlWordFor), and a node declared under an unknown
 * top-level field draws no second error where it is named. Found by a new-user trial:
 * `switches:` was offered 18 section names (none of them `branches`), and an
 * `unknown node "decide"` error followed for the switch declared under it.
 */
import { describe, expect, it } from "vitest";
import { compileIn, project } from "../composition/helpers.js";

/** The trial's review.yaml, its switch section written `section`, its arms `arms`, their condition `when`. */
const review = (section = "switches", arms = "match", when = "condition") => `workflow:
  name: review
  version: "1"
  initial_state: execute
  target_state: done
adapters:
  shell.default: {}
data:
  internal.score: { type: number, value: 0 }
steps:
  execute:
    target: adapter.shell.default
    input:
      command: echo hi
    outcomes:
      success: decide
${section}:
  decide:
    ${arms}:
      - ${when}: "\${data.internal.score.value >= 2}"
        next: done
    default:
      next: execute
states:
  done:
    terminal: true
`;

async function said(file: string, text: string): Promise<string[]> {
  const c = await compileIn(project({ [file]: text }), file);
  return c.diagnostics.map((d) => `${d.range.start.line}:${d.range.start.column} ${d.code}: ${d.message} (hint: ${d.hint})`);
}

describe("HCL names in YAML and JSON", () => {
  it("switches: one error, pointing to branches with its shape; no unknown node for the switch under it", async () => {
    expect(await said("review.yaml", review())).toEqual([
      '17:1 unknown_field: unknown field "switches" (hint: did you mean "branches"? In YAML, a switch is written branches: { decide: { arms: [{ when: "${...}", next: "..." }], default: { next: "..." } } })',
    ]);
    expect(await said("review.yaml", review("switch"))).toEqual([expect.stringContaining('unknown field "switch" (hint: did you mean "branches"?')]);
  });

  it("in JSON, the same hint with quoted keys", async () => {
    const json = JSON.stringify({
      workflow: { name: "review", version: "1", initial_state: "execute", target_state: "done" },
      adapters: { "shell.default": {} },
      steps: { execute: { target: "adapter.shell.default", input: { command: "echo hi" }, outcomes: { success: "decide" } } },
      switches: { decide: { match: [{ condition: "${true}", next: "done" }], default: { next: "execute" } } },
      states: { done: { terminal: true } },
    });
    expect(await said("review.json", json)).toEqual([
      `1:${json.indexOf('"switches"') + 1} unknown_field: unknown field "switches" (hint: did you mean "branches"? In JSON, a switch is written "branches": { "decide": { "arms": [{ "when": "\${...}", "next": "..." }], "default": { "next": "..." } } })`,
    ]);
  });

  it("a branch's match is its arms, an arm's condition its when", async () => {
    expect((await said("review.yaml", review("branches"))).filter((d) => d.includes("error") || d.includes("unknown_field"))).toEqual([
      '19:5 unknown_field: branch "decide": unknown field "match" (hint: did you mean "arms"? HCL\'s match blocks are a branch\'s arms, tried in order: arms: [{ when: "${...}", next: "..." }])',
    ]);
    expect((await said("review.yaml", review("branches", "arms")))[0]).toBe('20:9 unknown_field: branch "decide" > arm 1: unknown field "condition" (hint: did you mean "when"? An arm\'s condition is when: "${...}")');
    expect(await said("review.yaml", review("branches", "arms", "when"))).toEqual([]);
  });

  it("in HCL, a misspelt switch block is offered switch (it was offered only branch), and its name draws no unknown node", async () => {
    const hcl = `workflow {
  name = "sw"
  version = "1"
  initial_state = "execute"
  target_state = "done"
}
adapter "shell" "default" {}
step "execute" {
  target = adapter.shell.default
  input { command = "echo hi" }
  outcome "success" { next = "decide" }
}
swich "decide" {
  match {
    condition = true
    next = "done"
  }
  default { next = "execute" }
}
state "done" { terminal = true }
`;
    expect(await said("sw.hcl", hcl)).toEqual(['13:1 unknown_field: unsupported argument or block "swich" (hint: did you mean "switch"?)']);
  });

  it("a name that is under no unknown field is still an unknown node (and reachability is judged)", async () => {
    const text = review().replace("success: decide", "success: decid");
    expect(await said("review.yaml", text)).toEqual([expect.stringContaining('unknown node "decid"'), expect.stringContaining('unknown field "switches"'), expect.stringContaining('unreachable_node: state "done"')]);
  });
});
