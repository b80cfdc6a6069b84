/**
 * A `return` with an `output` projection replaces a workflow's `output` blocks when it ends
 * there (the Go tool's v0.5.7 docs, Return semantics): validate warns at a projection that
 * leaves declared outputs out, since a caller reading them then finds nothing. Left over from
 * a new-user trial (2026-12-04): validate let a caller read an output such a return lacked.
 */
import { describe, expect, it } from "vitest";
import { codes, compileIn, project, runIn } from "../composition/helpers.js";

const kid = (projection: string, extra = "") => `workflow {
  name          = "kid"
  version       = "1"
  initial_state = "look"
  target_state  = "done"
}

adapter "noop" "default" {}

step "look" {
  target = adapter.noop.default
  input { said = "hi" }
  outcome "success" {
    next   = "return"
    output = ${projection}
  }
  outcome "failure" { next = "done" }
}
${extra}
state "done" {
  terminal = true
}

output "said" {
  value = "from the blocks"
}

output "count" {
  value = 2
}
`;

/** A caller of the module as a subworkflow (an isolated module: its `return` projection is its outputs), or as a `workflow_file` body (whose outputs are its `output` blocks). */
const parent = (how: "subworkflow" | "workflow_file") => `workflow {
  name          = "parent"
  version       = "1"
  initial_state = "call"
  target_state  = "done"
}
${how === "subworkflow" ? `\nsubworkflow "kid" {\n  source = "./kid.hcl"\n}\n` : ""}
step "call" {
  ${how === "subworkflow" ? "target = subworkflow.kid" : `workflow_file = "./kid.hcl"`}
  outcome "success" { next = "done" }
}

state "done" {
  terminal = true
}

output "count" {
  value = try(steps.call.count, "missing")
}
`;

describe("a return projection that leaves declared outputs out", () => {
  it("is warned of at its outcome, naming what it leaves out; the run then ends without it, as warned", async () => {
    const dir = project({ "kid.hcl": kid(`{ said = step.output.said }`), "main.hcl": parent("subworkflow"), "body.hcl": parent("workflow_file") });
    const c = await compileIn(dir, "kid.hcl");
    const d = c.diagnostics.filter((x) => x.code === "return_replaces_outputs");
    expect(d).toHaveLength(1);
    expect(d[0].severity).toBe("warning");
    expect(d[0].message).toBe(`step "look" outcome "success" returns with an output projection, which replaces the workflow's output blocks when it ends there: "count" is not in it, so it is missing from the workflow's outputs then (a caller reading it finds nothing)`);
    expect(d[0].hint).toBe("add count = …, to the projection, or route to a terminal state, which ends with the output blocks".replace("…,", "…"));
    expect(d[0].range.start.line).toBe(13);
    // Said of the module's file when the caller is checked, once.
    expect((await compileIn(dir, "main.hcl")).diagnostics.map((x) => [x.code, x.range.file])).toEqual([["return_replaces_outputs", "kid.hcl"]]);
    expect((await runIn(dir, "main.hcl")).end.outputs).toEqual({ count: "missing" });
    // Run alone, it ends with the projection too.
    expect((await runIn(dir, "kid.hcl")).end.outputs).toEqual({ said: "hi" });
    // As a workflow_file body, its outputs are its output blocks (docs/language.md, Composition): the body's scope is not warned of.
    expect((await runIn(dir, "body.hcl")).end.outputs).toEqual({ count: 2 });
  });

  it("a projection with every declared output, one written as an expression, or an inline body's return: no warning", async () => {
    const all = project({ "kid.hcl": kid(`{ said = step.output.said, count = 3 }`), "main.hcl": parent("subworkflow") });
    expect(codes(await compileIn(all, "kid.hcl"))).toEqual([]);
    expect((await runIn(all, "main.hcl")).end.outputs).toEqual({ count: 3 });
    expect(codes(await compileIn(project({ "kid.hcl": kid(`step.output`) }), "kid.hcl"))).toEqual([]);
    const body = `workflow {\n  name = "b"\n  version = "1"\n  initial_state = "loop"\n  target_state = "done"\n}\nadapter "noop" "default" {}\nstep "loop" {\n  for_each = ["x"]\n  workflow {\n    initial_state = "one"\n    step "one" {\n      target = adapter.noop.default\n      outcome "success" {\n        next = "return"\n        output = { a = 1 }\n      }\n    }\n    output "b" { value = 2 }\n  }\n  outcome "all_succeeded" { next = "done" }\n  outcome "any_failed" { next = "done" }\n}\nstate "done" { terminal = true }\n`;
    const b = await compileIn(project({ "b.hcl": body }), "b.hcl");
    expect(b.graph).toBeDefined();
    expect(b.diagnostics.map((d) => d.code)).not.toContain("return_replaces_outputs");
  });

  it("a switch arm's and default's return projections are checked alike", async () => {
    const sw = `switch "pick" {\n  condition {\n    match  = true\n    next   = "return"\n    output = { said = "arm" }\n  }\n  default {\n    next   = "return"\n    output = { count = 1 }\n  }\n}\n`;
    const c = await compileIn(project({ "kid.hcl": kid(`{ said = "x", count = 1 }`, sw).replace('outcome "failure" { next = "done" }', 'outcome "failure" { next = "pick" }') }), "kid.hcl");
    expect(c.diagnostics.filter((x) => x.code === "return_replaces_outputs").map((x) => x.message.split(" returns")[0] + ": " + x.message.match(/: (".*?") (is|are) not/)![1])).toEqual(['switch "pick" match 1: "count"', 'switch "pick" default: "said"']);
  });
});
