/**
 * The reference and call checks of expressions (compiler/resolve/check-expression.ts), each
 * namespace's rule on its own, with the exact range, message and hint `validate` gives:
 * the cases the mutation run (make mutation) showed no in-process test pinned (`data`,
 * `while`, `path`, `memory`, `step`/`output`/`subworkflow`, a switch's stored outputs, an
 * iterating step's list, function arity and `range()`/`file()` literals). Two messages
 * were wrong and are fixed with them: "takes at least 1 arguments", "would make endless values".
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compileIn, project } from "../composition/helpers.js";
import { temp } from "../pipeline/helpers.js";

const HEAD = (header = "") => `workflow "w" {\n  version = "1"\n  initial_state = "first"\n  target_state = "done"\n${header}}\nadapter "shell" "default" {}\nstate "done" { terminal = true }\n`;

/** A workflow whose step "use" runs `command = <expr>` (on line 16 without `header` lines), with `decls` added. */
const workflow = (expr: string, decls = "", header = "") =>
  `${HEAD(header)}step "first" {\n  target = adapter.shell.default\n  input { command = "true" }\n  outcome "success" { next = "use" }\n}\nstep "use" {\n  target = adapter.shell.default\n  input {\n    command = ${expr}\n  }\n  outcome "success" { next = "done" }\n}\n${decls}`;

/** The diagnostics of main.hcl as `line:col-endLine:endCol code: message (hint: …)`, warnings of unused names left out. */
async function said(text: string, files: Record<string, string> = {}, dir = project({}), allowedRoots?: string[]): Promise<string[]> {
  for (const [name, body] of Object.entries({ "main.hcl": text, ...files })) writeFileSync(join(dir, name), body);
  const c = await compileIn(dir, "main.hcl", allowedRoots ? { allowedRoots } : {});
  return c.diagnostics
    .filter((d) => !d.code.startsWith("unused"))
    .map((d) => `${d.range.start.line}:${d.range.start.column}-${d.range.end.line}:${d.range.end.column} ${d.code}: ${d.message}${d.hint ? ` (hint: ${d.hint})` : ""}`);
}

const AT = `step "use" input "command"`;
const DATA_N = `data "internal" "n" {\n  type = number\n  value = 1\n}\n`;
const MEMORY = "  memory {\n    script = true\n  }\n";

describe("var, local, shared", () => {
  it("a bare namespace needs a name; an unknown name gets a did-you-mean, else the declaration to add", async () => {
    expect(await said(workflow("var"))).toEqual([`16:15-16:18 unknown_reference: ${AT}: "var" needs a name, e.g. var.name`]);
    expect(await said(workflow("var.nme", `variable "name" {\n  type = string\n  default = "x"\n}\n`))).toEqual([`16:15-16:22 unknown_reference: ${AT}: unknown variable "nme" (in var.nme) (hint: did you mean "name"?)`]);
    expect(await said(workflow("var.zzz"))).toEqual([`16:15-16:22 unknown_reference: ${AT}: unknown variable "zzz" (in var.zzz) (hint: declare it: variable "zzz" { type = string })`]);
    expect(await said(workflow("local.zzz"))).toEqual([`16:15-16:24 unknown_reference: ${AT}: unknown local value "zzz" (in local.zzz) (hint: declare it: locals { zzz = "..." })`]);
    expect(await said(workflow("shared.zzz"))).toEqual([`16:15-16:25 unknown_reference: ${AT}: unknown shared variable "zzz" (in shared.zzz) (hint: declare it: shared_variable "zzz" { type = string })`]);
  });

  it("a name that resolves is used: no unused warning for it", async () => {
    const dir = project({});
    writeFileSync(join(dir, "main.hcl"), workflow("var.name", `variable "name" {\n  type = string\n  default = "x"\n}\n`));
    const c = await compileIn(dir, "main.hcl");
    expect(c.diagnostics).toEqual([]);
  });
});

describe("each and while", () => {
  it("each.* outside an iteration; inside one, an unknown field", async () => {
    expect(await said(workflow("each.value"))).toEqual([
      `16:15-16:25 each_outside_iteration: ${AT}: "each.value" is only available inside an iterating step (count, for_each, parallel) (hint: move the expression into the iterating step or its workflow body)`,
    ]);
    const text = workflow("each.valu")
      .replace('step "use" {\n', 'step "use" {\n  for_each = ["a"]\n')
      .replace(/(step "use" \{[\s\S]*?)outcome "success" \{ next = "done" \}/, '$1outcome "all_succeeded" { next = "done" }\n  outcome "any_failed" { next = "done" }');
    expect(await said(text)).toEqual([`17:15-17:24 unknown_reference: ${AT}: each has no field "valu" (hint: did you mean "value"?)`]);
    expect(await said(text.replace("each.valu", "each._prev"))).toEqual([]);
  });

  it("while.* in the steps of a while step's body is refused as such, and each._idx there is the iteration's index (a new-user trial: 'only inside a step that iterates with while' read as wrong)", async () => {
    const body = (expr: string) =>
      `${HEAD()}step "first" {\n  while = while.index < 2\n  workflow {\n    step "s1" {\n      target = adapter.shell.default\n      input { command = ${expr} }\n      outcome "success" { next = state.ok }\n    }\n    state "ok" { terminal = true }\n  }\n  outcome "all_succeeded" { next = state.done }\n  outcome "any_failed" { next = state.done }\n}\n`;
    expect(await said(body('"echo ${while.index}"'))).toEqual([
      `13:33-13:44 each_outside_iteration: step "s1" input "command": "while.index" is only available in the expressions of a step that iterates with while, not in the steps of its body (hint: use it in the while step's own expressions; a body's steps read the iteration's index as each._idx)`,
    ]);
    expect(await said(body('"echo ${each._idx}"'))).toEqual([]);
  });

  it("while.* outside a while step; inside one, an unknown field", async () => {
    expect(await said(workflow("while.index"))).toEqual([
      `16:15-16:26 each_outside_iteration: ${AT}: "while.index" is only available in the expressions of a step that iterates with while, not in the steps of its body (hint: use it in the while step's own expressions; a body's steps read the iteration's index as each._idx)`,
    ]);
    const looped = (expr: string) =>
      workflow(expr, DATA_N)
        .replace('step "use" {\n', 'step "use" {\n  while = data.internal.n.value > 0\n  max_visits = 3\n')
        .replace(/(step "use" \{[\s\S]*?)outcome "success" \{ next = "done" \}/, '$1outcome "all_succeeded" { next = "done" }\n  outcome "any_failed" { next = "done" }');
    expect(await said(looped("while.idx"))).toEqual([`18:15-18:24 unknown_reference: ${AT}: while has no field "idx" (hint: did you mean "index"?)`]);
    expect(await said(looped('"${while.index} ${while.first} ${while._prev}"'))).toEqual([]);
  });
});

describe("steps", () => {
  it("a bare steps needs a name; a step that does not exist gets a did-you-mean", async () => {
    expect(await said(workflow("steps"))).toEqual([`16:15-16:20 unknown_reference: ${AT}: "steps" needs a step name, e.g. steps.build.stdout (hint: read steps.<name>.<key>; a step's name starts with a letter or _)`]);
    expect(await said(workflow("steps.frist.stdout"))).toEqual([`16:15-16:33 unknown_reference: ${AT}: unknown step "frist" (in steps.frist.stdout) (hint: did you mean "first"?)`]);
    expect(await said(workflow("steps.first.stdout"))).toEqual([]);
  });

  it("an iterating step's output is a list: a key read off it says so, naming how it iterates", async () => {
    for (const [how, field] of [
      ["count", "count = 2"],
      ["for_each", 'for_each = ["a"]'],
      ["parallel", 'parallel = ["a"]'],
    ]) {
      const text = workflow("steps.first.stdout").replace('step "first" {\n', `step "first" {\n  ${field}\n`).replace('outcome "success" { next = "use" }', 'outcome "all_succeeded" { next = "use" }\n  outcome "any_failed" { next = "use" }');
      expect(await said(text), how).toEqual([
        `18:15-18:33 unknown_reference: ${AT}: steps.first is a list (one output per ${how} item), not an object (in steps.first.stdout) (hint: write steps.first[0].stdout, or [for r in steps.first : r.stdout])`,
      ]);
      expect(await said(text.replace("steps.first.stdout", "steps.first[0].stdout")), how).toEqual([]);
    }
  });

  it("an iterating step's list indexed by a key says so, keeping the attribute read (found by a new-user trial: the hint lost .stdout)", async () => {
    const text = workflow('steps.first["a"].stdout').replace('step "first" {\n', 'step "first" {\n  for_each = ["a", "b"]\n').replace('outcome "success" { next = "use" }', 'outcome "all_succeeded" { next = "use" }\n  outcome "any_failed" { next = "use" }');
    expect(await said(text)).toEqual([
      `18:15-18:38 unknown_reference: ${AT}: steps.first is a list (one output per for_each item, in item order), indexed by number, not by key "a" (in steps.first["a"].stdout) (hint: write steps.first[<index>].stdout: the items of a map go in key order)`,
    ]);
  });

  it("over a map written out, the hint gives the key's item number (found by a new-user trial: it said [0] for the second key)", async () => {
    const text = workflow('steps.first["b"].stdout').replace('step "first" {\n', 'step "first" {\n  for_each = { c = "gamma", b = "beta", a = "alpha" }\n').replace('outcome "success" { next = "use" }', 'outcome "all_succeeded" { next = "use" }\n  outcome "any_failed" { next = "use" }');
    const [d] = await said(text);
    expect(d).toContain('(hint: write steps.first[1].stdout (the items of a map go in key order: "b" is item 1))');
  });

  it("a switch's stored outputs: an unknown key gets a did-you-mean, else the keys its arms store", async () => {
    const routed = (expr: string) =>
      workflow(expr).replace('outcome "success" { next = "use" }', 'outcome "success" { next = "route" }') +
      `switch "route" {\n  match {\n    condition = true\n    next = "use"\n    output = { replicas = 5 }\n  }\n  default {\n    next = "use"\n    output = { replicas = 1 }\n  }\n}\n`;
    expect(await said(routed("steps.route.replica"))).toEqual([`16:15-16:34 unknown_reference: ${AT}: switch "route" stores no output "replica" (in steps.route.replica) (hint: did you mean "replicas"?)`]);
    expect(await said(routed("steps.route.zzzzzzzz"))).toEqual([`16:15-16:35 unknown_reference: ${AT}: switch "route" stores no output "zzzzzzzz" (in steps.route.zzzzzzzz) (hint: expected one of "replicas")`]);
    expect(await said(routed("steps.route.replicas"))).toEqual([]);
  });

  it("steps.* where no step has run (a variable's default) is refused", async () => {
    expect(await said(workflow('"x"', `variable "v" {\n  type = string\n  default = steps.first.stdout\n}\n`))).toEqual([
      '22:13-22:31 unknown_reference: variable "v" default: step outputs are not available here (it is evaluated before any step runs) (hint: read steps.<name> in a step\'s input, an outcome\'s output or write, a switch or an output block)',
    ]);
  });
});

describe("data", () => {
  it("data.<kind>.<name>.value: a short path, an unknown value, a field other than value", async () => {
    expect(await said(workflow("data.internal"))).toEqual([`16:15-16:28 unknown_reference: ${AT}: write data values as data.<kind>.<name>.value (in data.internal)`]);
    expect(await said(workflow("data.internal.nn.value", DATA_N))).toEqual([`16:15-16:37 unknown_reference: ${AT}: unknown data value "internal.nn" (in data.internal.nn.value) (hint: did you mean "internal.n"?)`]);
    expect(await said(workflow("data.internal.zzz.value"))).toEqual([
      `16:15-16:38 unknown_reference: ${AT}: unknown data value "internal.zzz" (in data.internal.zzz.value) (hint: declare it: data "internal" "zzz" { type = string })`,
    ]);
    expect(await said(workflow("data.internal.n.valu", DATA_N))).toEqual([`16:15-16:35 unknown_reference: ${AT}: a data value has one field, "value" (in data.internal.n.valu) (hint: write data.internal.n.value)`]);
    expect(await said(workflow("data.internal.n.value", DATA_N))).toEqual([]);
    expect(await said(workflow("data.internal.n", DATA_N))).toEqual([]);
  });
});

describe("path, memory, unknown namespaces", () => {
  it("path has module, root and cwd", async () => {
    expect(await said(workflow("path.modul"))).toEqual([`16:15-16:25 unknown_reference: ${AT}: path has no field "modul" (hint: did you mean "module"?)`]);
    expect(await said(workflow("path.zzzzzz"))).toEqual([`16:15-16:26 unknown_reference: ${AT}: path has no field "zzzzzz" (hint: expected one of "cwd", "module", "root")`]);
    expect(await said(workflow('"${path.module} ${path.root} ${path.cwd}"'))).toEqual([]);
  });

  it("memory.* only with memory { script = true }; then text and items", async () => {
    expect(await said(workflow("memory.text"))).toEqual([
      `16:15-16:26 unknown_reference: ${AT}: "memory.text" is only available when the workflow's header sets memory { script = true } (hint: add memory { script = true } to the workflow header)`,
    ]);
    expect(await said(workflow("memory.txt", "", MEMORY))).toEqual([`19:15-19:25 unknown_reference: ${AT}: memory has no field "txt" (hint: did you mean "text"?)`]);
    expect(await said(workflow('"${memory.text} ${length(memory.items)}"', "", MEMORY))).toEqual([]);
  });

  it("a declared name written without its namespace, or a shell variable, gets a hint of its own (found by a new-user trial)", async () => {
    const decls = `variable "branch" {\n  type = string\n  default = "main"\n}\nlocals {\n  dir = "/tmp"\n}\n`;
    expect(await said(workflow('"echo ${branch}"', decls))).toEqual([`16:23-16:29 unknown_reference: ${AT}: unknown name "branch" (hint: did you mean var.branch?)`]);
    expect(await said(workflow('"cd ${dir}"', decls))).toEqual([`16:21-16:24 unknown_reference: ${AT}: unknown name "dir" (hint: did you mean local.dir?)`]);
    expect(await said(workflow('"echo ${first}"'))).toEqual([`16:23-16:28 unknown_reference: ${AT}: unknown name "first" (hint: did you mean steps.first?)`]);
    expect(await said(workflow('"echo ${HOME}"'))).toEqual([`16:23-16:27 unknown_reference: ${AT}: unknown name "HOME" (hint: to leave \${HOME} to the shell, write $\${HOME})`]);
    expect(await said(workflow('"echo $${HOME}"'))).toEqual([]);
  });

  it("a misspelt for-expression variable gets a did-you-mean of the variables in scope (found by a new-user trial: did you mean \"step\")", async () => {
    expect(await said(workflow('join(",", [for item in ["a"] : iten])'))).toEqual([`16:46-16:50 unknown_reference: ${AT}: unknown name "iten" (hint: did you mean "item"?)`]);
  });

  it("a name that is no namespace gets a did-you-mean, else the namespaces", async () => {
    expect(await said(workflow("vars.x"))).toEqual([`16:15-16:21 unknown_reference: ${AT}: unknown name "vars" (hint: did you mean "var"?)`]);
    expect(await said(workflow("zzzzzz.x"))).toEqual([
      `16:15-16:23 unknown_reference: ${AT}: unknown name "zzzzzz" (hint: expected one of "data", "each", "input", "local", "memory", "output", "path", "shared", ... (13 in all))`,
    ]);
  });
});

describe("step, output, subworkflow: a step's own result", () => {
  const ELSEWHERE = "is only available in an outcome's output or write (the step's own result) (hint: elsewhere, read a step's output as steps.<name>.<key>)";
  it("outside an outcome they are refused", async () => {
    expect(await said(workflow("output.x"))).toEqual([
      `16:15-16:23 unknown_reference: ${AT}: "output.x" is only available in an outcome's write value (the outcome's output over the step's own) (hint: elsewhere, read a step's output as steps.<name>.<key>)`,
    ]);
    expect(await said(workflow("subworkflow.x"))).toEqual([`16:15-16:28 unknown_reference: ${AT}: "subworkflow.x" ${ELSEWHERE}`]);
    expect(await said(workflow("step.output.x"))).toEqual([`16:15-16:28 unknown_reference: ${AT}: "step.output.x" ${ELSEWHERE}`]);
  });

  it("in an outcome's output, step has one field, output", async () => {
    const projected = (expr: string) => workflow('"true"').replace('outcome "success" { next = "done" }', `outcome "success" {\n    next = "done"\n    output = { k = ${expr} }\n  }`);
    expect(await said(projected("step.outpt.x"))).toEqual([`20:20-20:32 unknown_reference: step "use" outcome "success" output "k": step has one field, "output" (in step.outpt.x) (hint: write step.output.<key>)`]);
    expect(await said(projected("step.output.stdout"))).toEqual([]);
  });

  it("output.* is the projection a write reads, not an outcome's output (found by a new-user trial: validate passed it, the run failed)", async () => {
    const outcome = (body: string) => workflow('"true"', DATA_N.replace("number", "string").replace("value = 1", 'value = ""')).replace('outcome "success" { next = "done" }', `outcome "success" {\n    next = "done"\n${body}  }`);
    expect(await said(outcome("    output = { t = output.stdout }\n"))).toEqual([
      `20:20-20:33 unknown_reference: step "use" outcome "success" output "t": "output.stdout" is only available in an outcome's write value (the outcome's output over the step's own) (hint: here, read the step's own result as step.output.<key>)`,
    ]);
    expect(await said(outcome("    output = { t = step.output.stdout }\n    write {\n      target = data.internal.n.value\n      value = output.t\n    }\n"))).toEqual([]);
  });

  it("step.<a step's name> outside an outcome: did you mean steps.<name>", async () => {
    expect(await said(workflow("step.first.stdout"))).toEqual([
      `16:15-16:32 unknown_reference: ${AT}: "step.first.stdout" is only available in an outcome's output or write (the step's own result) (hint: did you mean steps.first.stdout?)`,
    ]);
  });

  it("a called module's outputs: subworkflow.<key> and step.output.<key> must be one of them (found by a new-user trial)", async () => {
    const module = `workflow "m" {\n  version = "1"\n  initial_state = "s"\n  target_state = "done"\n}\nadapter "noop" "default" {}\nstep "s" {\n  target = adapter.noop.default\n  outcome "success" { next = "done" }\n}\nstate "done" { terminal = true }\noutput "verdict" { value = "ok" }\n`;
    const caller = (expr: string) =>
      `${HEAD()}subworkflow "m" { source = "./m" }\nstep "first" {\n  target = subworkflow.m\n  outcome "success" {\n    next = "done"\n    output = { v = ${expr} }\n  }\n}\n`;
    const dir = project({ "m/main.hcl": module });
    expect(await said(caller("subworkflow.verdct"), {}, dir)).toEqual([
      `13:20-13:38 unknown_reference: step "first" outcome "success" output "v": the called module has no output "verdct" (in subworkflow.verdct) (hint: did you mean "verdict"?)`,
    ]);
    expect(await said(caller("step.output.verdit"), {}, dir)).toEqual([
      `13:20-13:38 unknown_reference: step "first" outcome "success" output "v": the called module has no output "verdit" (in step.output.verdit) (hint: did you mean "verdict"?)`,
    ]);
    expect(await said(caller("subworkflow.verdict"), {}, dir)).toEqual([]);
  });
});

describe("syntax errors in HCL templates", () => {
  it("a quote escaped inside %{ } is named once, with the way out (found by a new-user trial: \"\\\\\" and no hint)", async () => {
    // (What follows the backslash reads as a string running to the end of the file: the errors after it are its echo.)
    expect((await said(workflow('"%{ if path.root == \\"x\\" }yes%{ endif }"'))).filter((d) => d.includes("backslash"))).toEqual([
      '16:35-16:36 syntax_error: invalid character: a backslash "\\" is not used within an expression (hint: inside "${...}" and "%{...}" a string is quoted afresh: write "main", not \\"main\\")',
    ]);
  });
});

describe("syntax errors in YAML templates", () => {
  it("read like the HCL parser's, with the same hint for an unclosed ${ (found by a new-user trial)", async () => {
    const yaml = (command: string) =>
      `workflow:\n  name: w\n  version: "1"\n  initial_state: a\n  target_state: done\nadapters:\n  shell.default: {}\nsteps:\n  a:\n    target: adapter.shell.default\n    input:\n      command: ${JSON.stringify(command)}\n    outcomes:\n      success: { next: done }\nstates:\n  done: { terminal: true }\n`;
    const errors = async (command: string) => {
      const c = await compileIn(project({ "main.yaml": yaml(command) }), "main.yaml");
      return c.diagnostics.map((d) => `${d.range.start.line}:${d.range.start.column} ${d.code}: ${d.message}${d.hint ? ` (hint: ${d.hint})` : ""}`);
    };
    expect(await errors("echo ${upper(path.root}")).toEqual([
      '12:39 expression_syntax: step "a" input "command": missing argument separator: expected a comma or ")" after the argument, but found "}"',
    ]);
    expect(await errors("echo ${path.root")).toEqual([
      '12:22 expression_syntax: step "a" input "command": unclosed template interpolation sequence: there is no closing brace for this sequence before the end of the text (hint: to write a literal "${" (for a shell or another template language), escape it as "$${")',
    ]);
  });
});

describe("positions inside a YAML block scalar", () => {
  const yaml = (block: string) =>
    `workflow:\n  name: w\n  version: "1"\n  initial_state: a\n  target_state: done\nadapters:\n  shell.default: {}\nsteps:\n  a:\n    target: adapter.shell.default\n    input:\n      command: ${block}\n    outcomes:\n      success: { next: done }\nstates:\n  done: { terminal: true }\n`;
  const said = async (block: string, crlf = false) => {
    const text = yaml(block);
    const c = await compileIn(project({ "main.yaml": crlf ? text.replace(/\n/g, "\r\n") : text }), "main.yaml");
    return c.diagnostics.map((d) => `${d.range.start.line}:${d.range.start.column}-${d.range.end.line}:${d.range.end.column} ${d.code}: ${d.message}`);
  };
  const AT_A = 'step "a" input "command"';

  it("a literal block (|) points at the name inside it, line by line (a trial found the whole scalar underlined)", async () => {
    // Lines 13-16: "echo start", (blank), "  indented ${var.nme}", "done ${local.zz}".
    const block = "|\n        echo start\n\n          indented ${var.nme}\n        done ${local.zz}";
    expect(await said(block)).toEqual([
      `15:22-15:29 unknown_reference: ${AT_A}: unknown variable "nme" (in var.nme)`,
      `16:16-16:24 unknown_reference: ${AT_A}: unknown local value "zz" (in local.zz)`,
    ]);
    // The same with CRLF line ends, and with chomping indicators.
    expect(await said(block, true)).toEqual(await said(block));
    expect(await said(block.replace("|", "|-"))).toEqual(await said(block));
    expect(await said(block.replace("|", "|+") + "\n\n")).toEqual(await said(block));
    // A syntax error inside the block: at its own line and column.
    expect(await said("|\n        echo ${upper(path.root}\n")).toEqual([`13:31-13:32 expression_syntax: ${AT_A}: missing argument separator: expected a comma or ")" after the argument, but found "}"`]);
  });

  it("a folded block (>) points at the name inside it too (a new-user trial: said at the > header)", async () => {
    expect(await said(">\n        echo\n        ${var.nme}\n")).toEqual([`14:11-14:18 unknown_reference: ${AT_A}: unknown variable "nme" (in var.nme)`]);
  });
});

describe("positions inside YAML and JSON strings not written as they read (found by a new-user trial)", () => {
  // The trial's base.yaml, its command on line 16 (column 16 the value's start) replaced by each case.
  const BASE = `workflow:\n  name: t\n  version: "1"\n  initial_state: build\n  target_state: done\nvariables:\n  who:\n    type: string\n    default: world\nadapters:\n  shell.default: {}\nsteps:\n  build:\n    target: adapter.shell.default\n    input:\n      command: "echo hello \${var.who}"\n    outcomes:\n      success: done\n      failure: failed\nstates:\n  done:\n    terminal: true\n  failed:\n    terminal: true\n    success: false\noutputs:\n  greeting:\n    value: "\${steps.build.stdout}"\n`;
  const said = async (name: string, text: string) => {
    const c = await compileIn(project({ [name]: text }), name);
    return c.diagnostics.map((d) => `${d.range.start.line}:${d.range.start.column}-${d.range.end.line}:${d.range.end.column} ${d.code}: ${d.message}`);
  };
  const yaml = (command: string) => said("main.yaml", BASE.replace('      command: "echo hello ${var.who}"', command));
  const WOH = `unknown_reference: step "build" input "command": unknown variable "woh" (in var.woh)`;

  it("a JSON string with escapes (it was said at the string's start, 8:29)", async () => {
    const j1 = `{\n  "workflow": { "name": "t", "version": "1", "initial_state": "build", "target_state": "done" },\n  "variables": { "who": { "type": "string", "default": "world" } },\n  "adapters": { "shell.default": {} },\n  "steps": {\n    "build": {\n      "target": "adapter.shell.default",\n      "input": { "command": "echo \\"hi\\" \${var.woh}" },\n      "outcomes": { "success": "done", "failure": "failed" }\n    }\n  },\n  "states": { "done": { "terminal": true }, "failed": { "terminal": true, "success": false } }\n}\n`;
    expect(await said("j1.json", j1)).toEqual([`8:44-8:51 ${WOH}`]);
    expect(await said("j1.json", j1.replace(/\n/g, "\r\n"))).toEqual([`8:44-8:51 ${WOH}`]);
  });

  it("a YAML double-quoted string with escapes (it was said at 16:16)", async () => {
    expect(await yaml('      command: "echo \\t\\u00e9 \\"q\\" ${var.woh}"')).toEqual([`16:39-16:46 ${WOH}`]);
  });

  it("a YAML folded block (it was said at its >- header, 16:16)", async () => {
    expect(await yaml("      command: >-\n        echo one\n        hello ${var.woh}")).toEqual([`18:17-18:24 ${WOH}`]);
  });

  it("a YAML plain scalar over lines (it was said at 16:16)", async () => {
    expect(await yaml("      command: echo one\n        two ${var.woh}")).toEqual([`17:15-17:22 ${WOH}`]);
  });

  it("a YAML double-quoted string over lines (it was said at 16:16)", async () => {
    expect(await yaml('      command: "echo one\n        two ${var.woh}"')).toEqual([`17:15-17:22 ${WOH}`]);
  });

  it("a YAML single-quoted string holding '' (it was said at 16:16)", async () => {
    expect(await yaml("      command: 'echo it''s ${var.woh}'")).toEqual([`16:30-16:37 ${WOH}`]);
  });

  it("a YAML literal block with an indentation indicator, and a name split over a folded line", async () => {
    expect(await yaml("      command: |2\n          echo indented\n        echo hello ${var.woh}")).toEqual([`18:22-18:29 ${WOH}`]);
    // A syntax error's place, and a range running over a fold: from its first line to its last.
    expect(await yaml('      command: "echo ${upper(\n        var.woh)}"')).toEqual([`17:9-17:16 ${WOH}`]);
    expect(await yaml('      command: "echo ${upper(\n        var.who, 1)}"')).toEqual([`16:24-17:20 invalid_value: step "build" input "command": upper() takes 1 argument, not 2`]);
    expect(await yaml("      command: >\n        echo ${upper(path.root}\n")).toEqual([`17:31-17:32 expression_syntax: step "build" input "command": missing argument separator: expected a comma or ")" after the argument, but found "}"`]);
  });
});

describe("errors every run would meet (a part that references nothing)", () => {
  const HINT = "(hint: it references nothing, so every run fails here the same way)";
  it("are said by validate, at the failing part, with the run's own message (a trial found them passing validate and failing the run)", async () => {
    expect(await said(workflow('"echo ${"abc"[0]}"'))).toEqual([`16:28-16:31 invalid_value: ${AT}: invalid index: a string value does not have any indices ${HINT}`]);
    expect(await said(workflow('"a" + 1'))).toEqual([`16:15-16:18 invalid_value: ${AT}: invalid left operand: a number is required, but got string "a" ${HINT}`]);
    expect(await said(workflow("[1, 2][5]"))).toEqual([`16:21-16:24 invalid_value: ${AT}: invalid index: index 5 is out of range for a list of 2 elements ${HINT}`]);
    expect(await said(workflow('tonumber("x")'))).toEqual([`16:24-16:27 invalid_value: ${AT}: invalid function argument: tonumber (argument 1): cannot convert string "x" to number ${HINT}`]);
    // Inside a larger expression that does reference something: only the constant part.
    expect(await said(workflow('"${var.v} ${1 / 0}"', `variable "v" {\n  type = string\n  default = "x"\n}\n`))).toEqual([
      `16:27-16:32 invalid_value: ${AT}: division by zero: the right operand of / is zero ${HINT}`,
    ]);
  });

  it("are not said for what is known only at run time, or fine", async () => {
    const v = `variable "v" {\n  type = string\n  default = "x"\n}\n`;
    // (var.v[0] of a string was here, and the run fails at it: "a string value does not have any indices"; it is said now.)
    for (const ok of ['upper("x")', 'try(var.v[0], "")', '[for s in ["a"] : s[0]]', 'timestamp()', 'uuid()', 'true ? "a" : "b"', '"${1 + 2}"', 'lookup({ a = 1 }, "b", 0)']) {
      expect(await said(workflow(ok, v)), ok).toEqual([]);
    }
    // A problem already said about the expression is not said twice.
    expect(await said(workflow("range(0, 5, 0)"))).toHaveLength(1);
    expect(await said(workflow('uper("x")'))).toHaveLength(1);
  });
});

describe("function calls", () => {
  it("an unknown function gets a did-you-mean, at its name", async () => {
    expect(await said(workflow('uper("a")'))).toEqual([`16:15-16:19 unknown_function: ${AT}: unknown function "uper" (hint: did you mean "upper"?)`]);
    // A Terraform function criteria lacks says what to write, not a name that is near (a trial: toset was offered "lower").
    expect(await said(workflow('toset(["a"])'))).toEqual([`16:15-16:20 unknown_function: ${AT}: unknown function "toset" (hint: criteria has no sets: the set functions take lists (sethaselement(["a"], "a")), and distinct(list) drops repeats)`]);
  });

  it("arity: exactly, at least, singular and plural; an expanded last argument is not counted", async () => {
    expect(await said(workflow("upper()"))).toEqual([`16:15-16:22 invalid_value: ${AT}: upper() takes 1 argument, not 0 (hint: upper(string))`]);
    expect(await said(workflow('join("a")'))).toEqual([`16:15-16:24 invalid_value: ${AT}: join() takes at least 2 arguments, not 1 (hint: join(separator, lists...))`]);
    expect(await said(workflow("coalesce()"))).toEqual([`16:15-16:25 invalid_value: ${AT}: coalesce() takes at least 1 argument, not 0 (hint: coalesce(vals...))`]);
    expect(await said(workflow('join(["-", ["a", "b"]]...)'))).toEqual([]);
  });

  it("range() of literals: over the limit, or a step of 0, is refused now", async () => {
    expect(await said(workflow("range(1000000000)"))).toEqual([`16:15-16:32 invalid_value: ${AT}: range() would make 1000000000 values; it makes at most 1024 (hint: use a smaller range or a larger step)`]);
    expect(await said(workflow("range(0, 2000)"))).toEqual([`16:15-16:29 invalid_value: ${AT}: range() would make 2000 values; it makes at most 1024 (hint: use a smaller range or a larger step)`]);
    expect(await said(workflow("range(0, 5, 0)"))).toEqual([`16:15-16:29 invalid_value: ${AT}: range() with a step of 0 would never end (hint: give it a step other than 0)`]);
    // Found by a new-user trial: a step going away from the limit passed validate and failed the run.
    expect(await said(workflow("range(0, 10, -1)"))).toEqual([`16:15-16:31 invalid_value: ${AT}: range() with a step of -1 can never reach the limit 10 from 0 (hint: give it a step of 1, or swap the start and the limit)`]);
    // Two arguments counting down: a step of -1 (as at run time), so 5000 values.
    expect(await said(workflow("range(5000, 0)"))).toEqual([`16:15-16:29 invalid_value: ${AT}: range() would make 5000 values; it makes at most 1024 (hint: use a smaller range or a larger step)`]);
    expect(await said(workflow("range(1024)"))).toEqual([]);
    expect(await said(workflow("range(0, 2048, 2)"))).toEqual([]);
    expect(await said(workflow("range(10, 0, -1)"))).toEqual([]);
  });

  it("file() of a literal: missing, outside the directory, a symlink out of it; one inside is fine", async () => {
    const dir = temp("criteria-expr-file-");
    const root = join(dir, "wf");
    mkdirSync(root);
    writeFileSync(join(dir, "outside.txt"), "secret");
    writeFileSync(join(root, "inside.txt"), "fine");
    symlinkSync(join(dir, "outside.txt"), join(root, "link.txt"));
    const HINT = "(hint: paths are relative to the workflow's directory and may not leave it)";
    const OUT = "(hint: paths are relative to the workflow's directory and may not leave it, unless CRITERIA_WORKFLOW_ALLOWED_PATHS lists a directory that holds them)";
    expect(await said(workflow('file("nope.txt")'), {}, root)).toEqual([`16:20-16:30 file_not_found: ${AT}: file("nope.txt") does not exist ${HINT}`]);
    expect(await said(workflow('file("../outside.txt")'), {}, root)).toEqual([`16:20-16:36 path_outside_root: ${AT}: file("../outside.txt") points outside the workflow's directory ${OUT}`]);
    expect(await said(workflow('file("link.txt")'), {}, root)).toEqual([`16:20-16:30 path_outside_root: ${AT}: file("link.txt") is a symlink to a file outside the workflow's directory ${OUT}`]);
    expect(await said(workflow('file("inside.txt")'), {}, root)).toEqual([]);
    // A directory CRITERIA_WORKFLOW_ALLOWED_PATHS lists may be read, as the run reads it (found by a
    // new-user trial: validate refused what the run allowed); a symlink into it too, one out of both not.
    expect(await said(workflow('file("../outside.txt")'), {}, root, [dir])).toEqual([]);
    expect(await said(workflow('file("link.txt")'), {}, root, [dir])).toEqual([]);
    expect(await said(workflow('file("../outside.txt")'), {}, root, [join(dir, "elsewhere")])).toEqual([`16:20-16:36 path_outside_root: ${AT}: file("../outside.txt") points outside the workflow's directory ${OUT}`]);
    // Found by a new-user trial: templatefile() and fileset() were not checked.
    expect(await said(workflow('templatefile("nope.tmpl", {})'), {}, root)).toEqual([`16:28-16:39 file_not_found: ${AT}: templatefile("nope.tmpl", …) does not exist ${HINT}`]);
    expect(await said(workflow('templatefile("../outside.txt", { x = 1 })'), {}, root)).toEqual([`16:28-16:44 path_outside_root: ${AT}: templatefile("../outside.txt", …) points outside the workflow's directory ${OUT}`]);
    expect(await said(workflow('templatefile("inside.txt", {})'), {}, root)).toEqual([]);
    expect(await said(workflow('join(",", fileset("../..", "*"))'), {}, root)).toEqual([`16:33-16:40 path_outside_root: ${AT}: fileset("../..", …) points outside the workflow's directory ${OUT}`]);
    // A directory that is not there yet fails the run's fileset() unless a step makes it first:
    // warned (found by a trial of the Go tool's docs: validate said nothing), not refused.
    expect(await said(workflow('join(",", fileset("later", "*"))'), {}, root)).toEqual([
      `16:33-16:40 file_not_found: ${AT}: fileset("later", …): the directory does not exist now, and the run fails here unless an earlier step makes it (hint: create the directory (an empty one lists nothing), or guard it: try(fileset(...), []))`,
    ]);
    expect(await said(workflow('join(",", try(fileset("later", "*"), []))'), {}, root)).toEqual([]);
    // Nor a file read under try() or can(), which catch its absence (can(file(…)) is false,
    // as in Terraform; found by a trial of try/can: it was refused); outside the directory still is.
    expect(await said(workflow('tostring(can(file("nope.txt")))'), {}, root)).toEqual([]);
    expect(await said(workflow('try(upper(file("nope.txt")), "none")'), {}, root)).toEqual([]);
    expect(await said(workflow('try(file("../outside.txt"), "")'), {}, root)).toEqual([`16:24-16:40 path_outside_root: ${AT}: file("../outside.txt") points outside the workflow's directory ${OUT}`]);
    expect(await said(workflow('"${file("nope.txt")}${try(file("other.txt"), "")}"'), {}, root)).toEqual([`16:23-16:33 file_not_found: ${AT}: file("nope.txt") does not exist ${HINT}`]);
    // A path tested by can() or fileexists() may be read where the test holds (found by a trial of this check).
    expect(await said(workflow('can(file("nope.txt")) ? file("nope.txt") : "none"'), {}, root)).toEqual([]);
    expect(await said(workflow('fileexists("nope.txt") ? file("nope.txt") : ""'), {}, root)).toEqual([]);
    expect(await said(workflow('fileexists("nope.txt") ? file("other.txt") : ""'), {}, root)).toEqual([`16:45-16:56 file_not_found: ${AT}: file("other.txt") does not exist ${HINT}`]);
  });
});

describe("reads past a value of a known primitive type (a new-user trial: validate passed them, and the run failed at the read after every effect)", () => {
  const CHILD = (outputs: string) => `workflow "kid" {\n  version = "1"\n  initial_state = "done"\n  target_state = "done"\n}\n${outputs}state "done" { terminal = true }\n`;
  const CALL = (extra = "") =>
    `subworkflow "kid" {\n  source = "./kid"\n}\nstep "call" {\n  target = subworkflow.kid\n${extra}${extra ? '  outcome "all_succeeded" { next = "done" }\n  outcome "any_failed" { next = "done" }\n' : '  outcome "success" { next = "done" }\n'}}\n`;

  it("a field or an item of a variable declared a string, number or bool; of an object, none; inside try() or can(), none", async () => {
    const decls = `variable "s" {\n  type = string\n  default = "x"\n}\nvariable "n" {\n  type = number\n  default = 1\n}\nvariable "o" {\n  type = object({ x = string })\n  default = { x = "y" }\n}\n`;
    expect(await said(workflow("var.s.x", decls))).toEqual([`16:15-16:22 unknown_reference: ${AT}: var.s is a string (its declared type), which has no field "x" (in var.s.x) (hint: read var.s itself, or declare it an object (type = object({ x = string })) if it holds fields)`]);
    expect(await said(workflow("var.n[0]", decls))).toEqual([`16:15-16:23 unknown_reference: ${AT}: var.n is a number (its declared type), which has no item [0] (in var.n[0]) (hint: read var.n itself, or declare it a list (type = list(number)) if it holds items)`]);
    for (const ok of ["var.o.x", "var.s", 'try(var.s.x, "")', "can(var.s.x)"]) expect(await said(workflow(ok, decls)), ok).toEqual([]);
  });

  it("a field or an item of a local whose value is a string, number or bool, or a template joining text (the last session's leftover: locals carry no declared type); of another local, none", async () => {
    const locals = `locals {
  s = "ledger"
  n = 3
  b = (true)
  t = "run-\${var.v.x}"
  same = "\${var.v}"
  o = { x = 1 }
  c = upper("a")
}
variable "v" {
  type = object({ x = string })
  default = { x = "y" }
}
`;
    expect(await said(workflow("local.s.x", locals))).toEqual([`16:15-16:24 unknown_reference: ${AT}: local.s is a string (its value), which has no field "x" (in local.s.x) (hint: read local.s itself, or give it an object value ({ x = ... }) if it should hold fields)`]);
    expect(await said(workflow("local.n[0]", locals))).toEqual([`16:15-16:25 unknown_reference: ${AT}: local.n is a number (its value), which has no item [0] (in local.n[0]) (hint: read local.n itself, or give it a list value ([...]) if it should hold items)`]);
    expect(await said(workflow("local.b.y", locals))).toHaveLength(1);
    expect(await said(workflow("local.t.z", locals))).toHaveLength(1);
    for (const ok of ["local.same.x", "local.o.x", "local.c", "local.s", 'try(local.s.x, "")', "can(local.n[0])"]) expect(await said(workflow(ok, locals)), ok).toEqual([]);
  });

  it("a read past a primitive reached through a list's item, a map's value or an object's attribute (a trial: only the top-level type was followed); a list read by index, a map by key, an unknown attribute, any: none", async () => {
    const decls = `variable "l" {\n  type = list(string)\n  default = ["a"]\n}\nvariable "o" {\n  type = object({ a = string, b = optional(list(number)) })\n  default = { a = "x" }\n}\nvariable "m" {\n  type = map(string)\n  default = { k = "v" }\n}\nvariable "y" {\n  type = list(any)\n  default = []\n}\n`;
    expect(await said(workflow("var.l[0].x", decls))).toEqual([`16:15-16:25 unknown_reference: ${AT}: var.l[0] is a string (var.l is list(string)), which has no field "x" (in var.l[0].x) (hint: read var.l[0] itself, or declare var.l with objects where it holds fields)`]);
    expect(await said(workflow("var.o.b[0].z", decls))).toEqual([`16:15-16:27 unknown_reference: ${AT}: var.o.b[0] is a number (var.o is object({ a = string, b = optional(list(number)) })), which has no field "z" (in var.o.b[0].z) (hint: read var.o.b[0] itself, or declare var.o with objects where it holds fields)`]);
    expect(await said(workflow('var.m["k"].x', decls))).toHaveLength(1);
    for (const ok of ["var.l[0]", "var.o.a", "var.o.b[0]", 'var.m["k"]', "var.m.k", "var.y[0].x", "var.o.zz"]) expect((await said(workflow(ok, decls))).filter((d) => d.includes("which has no")), ok).toEqual([]);
  });

  it("a read inside try() or can() however written is caught; a bare read beside a caught one is not (a trial: the guard was found by its text)", async () => {
    const decls = `variable "s" {\n  type = string\n  default = "x"\n}\n`;
    // (And a read that a can() of it tests, as in can(x) ? x : y, the idiom the noop check allows too.)
    for (const ok of ['try( var.s.x, "d")', 'try(\n    var.s.x,\n    "d")', 'try(upper(var.s.x), "d")', 'try((var.s.x), "d")', 'can (var.s.x) ? "y" : "n"', '"${try(upper(var.s.x), "d")}"', 'can(var.s.x) ? var.s.x : ""']) {
      expect(await said(workflow(ok, decls)), ok).toEqual([]);
    }
    for (const bad of ['"${try(var.s.x, "d")} ${var.s.x}"', '"${try(var.s.xy, "d")} ${var.s.x}"']) {
      expect((await said(workflow(bad, decls))).map((d) => d.replace(/^\S+ /, "")), bad).toEqual([`unknown_reference: ${AT}: var.s is a string (its declared type), which has no field "x" (in var.s.x) (hint: read var.s itself, or declare it an object (type = object({ x = string })) if it holds fields)`]);
    }
  });

  it("a field of a shell step's text or number (the hint names jsondecode for JSON it prints); of a key an outcome projects, none", async () => {
    expect(await said(workflow("steps.first.stdout.x"))).toEqual([`16:15-16:35 unknown_reference: ${AT}: steps.first.stdout is a string (a shell step's), which has no field "x" (in steps.first.stdout.x) (hint: read steps.first.stdout itself; for JSON the step prints, jsondecode(steps.first.stdout).x)`]);
    expect(await said(workflow("steps.first.exit_code.x"))).toEqual([`16:15-16:38 unknown_reference: ${AT}: steps.first.exit_code is a number (a shell step's), which has no field "x" (in steps.first.exit_code.x) (hint: read steps.first.exit_code itself)`]);
    const projected = workflow("steps.first.stdout.x").replace('outcome "success" { next = "use" }', 'outcome "success" {\n    next = "use"\n    output = { stdout = jsondecode("{\\"x\\": 1}") }\n  }');
    expect(await said(projected)).toEqual([]);
  });

  it("a field of a called module's output declared a string, read from the step or from one item of it; an object's field, none", async () => {
    const kid = { "kid/main.hcl": CHILD(`output "result" {\n  type = string\n  value = "r"\n}\noutput "info" {\n  type = object({ x = string })\n  value = { x = "i" }\n}\n`) };
    const dir = project({});
    mkdirSync(join(dir, "kid"));
    const main = (expr: string, extra = "") => `${HEAD()}${CALL(extra)}output "o" {\n  value = ${expr}\n}\n`.replace('initial_state = "first"', 'initial_state = "call"');
    expect(await said(main("steps.call.result.x"), kid, dir)).toEqual([`16:11-16:30 unknown_reference: output "o": steps.call.result is a string (its declared type), which has no field "x" (in steps.call.result.x) (hint: read steps.call.result itself, or declare it an object (type = object({ x = string })) if it holds fields)`]);
    expect(await said(main("steps.call[0].result.x", '  for_each = ["a"]\n'), kid, dir)).toEqual([`18:11-18:33 unknown_reference: output "o": steps.call[0].result is a string (its declared type), which has no field "x" (in steps.call[0].result.x) (hint: read steps.call[0].result itself, or declare it an object (type = object({ x = string })) if it holds fields)`]);
    expect(await said(main("steps.call.info.x"), kid, dir)).toEqual([]);
  });

  it("a field of each.value's output of a known primitive type, in a step iterating over a module's items", async () => {
    const kid = { "kid/main.hcl": CHILD(`output "result" {\n  type = string\n  value = "r"\n}\n`) };
    const dir = project({});
    mkdirSync(join(dir, "kid"));
    const text = `${HEAD()}${CALL('  for_each = ["a"]\n')}step "each" {\n  target = adapter.shell.default\n  for_each = steps.call\n  input { command = "echo \${each.value.result.x}" }\n  outcome "all_succeeded" { next = "done" }\n  outcome "any_failed" { next = "done" }\n}\n`.replace('initial_state = "first"', 'initial_state = "call"').replace('outcome "all_succeeded" { next = "done" }\n  outcome "any_failed" { next = "done" }\n}\nstep "each"', 'outcome "all_succeeded" { next = "each" }\n  outcome "any_failed" { next = "done" }\n}\nstep "each"');
    expect(await said(text, kid, dir)).toEqual([`20:29-20:48 unknown_reference: step "each" input "command": each.value.result is a string (its declared type), which has no field "x" (in each.value.result.x) (hint: read each.value.result itself, or declare it an object (type = object({ x = string })) if it holds fields)`]);
  });
});
