/**
 * The blocks around a position of an HCL file and the fields each takes (cli/lsp/hcl-fields.ts),
 * which the language server completes and documents: strings with braces and nested
 * quotes, comments, heredocs, lists and object values do not open or close blocks.
 */
import { describe, expect, it } from "vitest";
import { blocksAt, fieldDoc, fieldsIn } from "../cli/lsp/hcl-fields.js";

describe("blocksAt", () => {
  it("names the blocks around the end of the text, outermost first", () => {
    expect(blocksAt("")).toEqual([]);
    expect(blocksAt('step "s" {\n  outcome "ok" {\n')).toEqual(["step", "outcome"]);
    expect(blocksAt('step "s" {\n  outcome "ok" { next = "x" }\n')).toEqual(["step"]);
    expect(blocksAt('adapter "shell" "default" {\n  config {\n')).toEqual(["adapter", "config"]);
    expect(blocksAt('step "s" {\n  workflow {\n    step "t" {\n')).toEqual(["step", "workflow", "step"]);
  });

  it("skips braces in strings (with interpolations and quotes inside them), comments, heredocs and lists", () => {
    expect(blocksAt('step "s" {\n  input { command = "a { ${jsondecode("{\\"x\\": 1}")} }" }\n')).toEqual(["step"]);
    expect(blocksAt('step "s" {\n  # a { comment\n  // another {\n  /* and { one */\n')).toEqual(["step"]);
    expect(blocksAt('step "s" {\n  input {\n    text = <<EOT\n  { not a block\nEOT\n  }\n')).toEqual(["step"]);
    expect(blocksAt('step "s" {\n  allow_tools = ["{", "}"]\n  for_each = [{ a = 1 }, { b = "}" }]\n')).toEqual(["step"]);
  });

  it("is undefined inside a value: an object, a string, a comment, a heredoc not closed yet", () => {
    expect(blocksAt('step "s" {\n  input = {\n')).toBeUndefined();
    expect(blocksAt('step "s" {\n  description = "unclosed\n')).toBeUndefined();
    expect(blocksAt('step "s" {\n  /* open comment\n')).toBeUndefined();
    expect(blocksAt('step "s" {\n  text = <<EOT\n  a\n')).toBeUndefined();
    expect(blocksAt('step "s" {\n  for_each = [\n')).toBeUndefined();
  });
});

describe("fieldsIn", () => {
  const names = (blocks: string[]) => fieldsIn(blocks).map((f) => `${f.name}:${f.kind}`);

  it("gives a file's blocks at the top, in HCL's names (step, not steps)", () => {
    expect(names([])).toEqual(expect.arrayContaining(["workflow:block", "variable:block", "locals:block", "local:block", "step:block", "switch:block", "branch:block", "output:block"]));
    expect(names([]).some((n) => n.startsWith("steps:"))).toBe(false);
  });

  it("gives a block's attributes and nested blocks: a step's outcomes, a branch's arms, a header's memory", () => {
    expect(names(["step"])).toEqual(expect.arrayContaining(["target:attribute", "timeout:attribute", "input:block", "outcome:block", "workflow:block"]));
    expect(names(["step", "outcome"])).toEqual(expect.arrayContaining(["next:attribute", "output:block", "write:block"]));
    expect(names(["branch"])).toEqual(expect.arrayContaining(["arm:block", "default:block"]));
    expect(names(["branch", "arm"])).toEqual(expect.arrayContaining(["when:attribute", "next:attribute"]));
    expect(names(["workflow"])).toEqual(expect.arrayContaining(["initial_state:attribute", "memory:block", "expects:block"]));
    // An agent's adapters = [...] are an attribute (passed to a flow), not adapter blocks.
    expect(names(["agent"])).toEqual(expect.arrayContaining(["adapters:attribute", "config:block"]));
    // A step's body holds what a file holds.
    expect(names(["step", "workflow"])).toEqual(names([]));
  });

  it("gives nothing inside free-form blocks or unknown ones", () => {
    expect(fieldsIn(["step", "input"])).toEqual([]);
    expect(fieldsIn(["adapter", "config"])).toEqual([]);
    expect(fieldsIn(["nonsense"])).toEqual([]);
  });

  it("documents every field it offers", () => {
    for (const blocks of [[], ["step"], ["step", "outcome"], ["workflow"], ["wait"], ["approval"], ["branch"], ["agent"], ["adapter"], ["variable"], ["state"], ["policy"]]) {
      for (const f of fieldsIn(blocks)) expect(f.doc, `${blocks.join(".")}.${f.name}`).not.toBe("");
    }
    expect(fieldDoc(["step"], "timeout")?.doc).toContain("How long one attempt may take");
    expect(fieldDoc(["step"], "nonsense")).toBeUndefined();
  });
});
