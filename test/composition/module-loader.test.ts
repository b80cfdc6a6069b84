/**
 * The module loader (docs/language.md, Composition): a PATH is a file or a directory module; edges
 * (workflow_file, subworkflow source, use) are followed, each file read once by real
 * path; cycles are refused with the chain; no path leaves the root (`--root`,
 * `CRITERIA_WORKFLOW_ALLOWED_PATHS`), symlinks included, before anything is opened.
 */
import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main, type Io } from "../../cli.js";
import { compile } from "../../compiler/index.js";
import { codes, compileIn, graphIn, project } from "./helpers.js";

const leaf = (name: string) => `workflow {\n  name = "${name}"\n  version = "1"\n  initial_state = "a"\n  target_state = "done"\n}\nadapter "noop" "default" {}\nstep "a" {\n  target = adapter.noop.default\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n`;

/** A module calling the subworkflows `names` (directories beside it, relative to `up`). */
const caller = (name: string, calls: [string, string][]) => `workflow {
  name = "${name}"
  version = "1"
  initial_state = "${calls[0][0]}"
  target_state = "done"
}
${calls.map(([n, src]) => `subworkflow "${n}" { source = "${src}" }`).join("\n")}
${calls
  .map(
    ([n], i) => `step "${n}" {
  target = subworkflow.${n}
  outcome "success" { next = ${i + 1 < calls.length ? `step.${calls[i + 1][0]}` : "state.done"} }
  outcome "failure" { next = state.done }
}`,
  )
  .join("\n")}
state "done" { terminal = true }
`;

async function cli(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string }> {
  let out = "";
  const io: Io = { out: (s) => void (out += s), err: (s) => void (out += s), color: false, isTTY: false, env };
  return { code: await main(argv, io), out };
}

describe("module loader", () => {
  it("a diamond of subworkflow directories (A calls B and D, B calls C, D calls B and C) reads each file once", async () => {
    const dir = project({
      "main.hcl": caller("a", [["b", "./b"], ["d", "./d"]]),
      "b/main.hcl": caller("b", [["c", "../c"]]),
      "c/main.hcl": leaf("c"),
      "d/main.hcl": caller("d", [["b", "../b"], ["c", "../c"]]),
    });
    const c = await compileIn(dir, "main.hcl");
    expect(c.diagnostics).toEqual([]);
    expect([...c.reads!.values()]).toEqual([1, 1, 1, 1]);
    expect(Object.keys(c.graph!.modules!).sort()).toEqual(["b", "c", "d"]);
    expect(c.useGraph!.edges.map((e) => `${e.from}->${e.to}`)).toEqual(["main.hcl->b", "main.hcl->d", "b->c", "d->b", "d->c"]);
  });

  it("a cycle through subworkflow sources is refused where it closes, with the whole chain", async () => {
    const dir = project({
      "main.hcl": caller("main", [["lint", "./lint"]]),
      "lint/main.hcl": caller("lint", [["fmt", "../fmt"]]),
      "fmt/main.hcl": caller("fmt", [["lint", "../lint"]]),
    });
    const c = await compileIn(dir, "main.hcl");
    expect(codes(c)).toEqual(["module_cycle@fmt/main.hcl:7:31"]);
    expect(c.diagnostics[0].message).toBe(`subworkflow source "../lint" closes a cycle: lint -> fmt -> lint`);
  });

  it("a child calling its parent back is the cycle's error alone: the call is not also checked against the parent (a new-user trial: three errors about the parent's inputs came first)", async () => {
    const dir = project({
      "main.hcl": `workflow {\n  name = "parent"\n  version = "1"\n  initial_state = "call"\n  target_state = "done"\n}\nadapter "shell" "default" {}\nsubworkflow "child" {\n  source = "./child"\n  adapters = [adapter.shell.default]\n}\nstep "call" {\n  target = subworkflow.child\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n`,
      "child/main.hcl": `workflow {\n  name = "child"\n  version = "1"\n  initial_state = "deeper"\n  target_state = "ok"\n  expects {\n    adapters = [adapter.shell.default]\n  }\n}\nsubworkflow "grand" {\n  source = "../"\n  adapters = [adapter.shell.default]\n}\nstep "deeper" {\n  target = subworkflow.grand\n  input {\n    tag = "x"\n  }\n  outcome "success" { next = state.ok }\n}\nstate "ok" { terminal = true }\noutput "result" {\n  type = string\n  value = steps.deeper.tagged\n}\n`,
    });
    const c = await compileIn(dir, "main.hcl");
    expect(c.diagnostics.filter((d) => d.severity === "error").map((d) => d.code)).toEqual(["module_cycle"]);
  });

  it("a workflow_file body that names itself is a cycle, not a hang", async () => {
    const dir = project({
      "main.hcl": `workflow {\n  name = "m"\n  initial_state = "s"\n  target_state = "done"\n}\nstep "s" {\n  workflow_file = "./body.hcl"\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n`,
      "body.hcl": `step "again" {\n  workflow_file = "./body.hcl"\n  outcome "success" { next = "return" }\n}\n`,
    });
    const c = await compileIn(dir, "main.hcl");
    expect(codes(c)).toEqual(["module_cycle@body.hcl:2:19"]);
  });

  it("paths may not leave the root: refused before opening, symlinks included; --root and CRITERIA_WORKFLOW_ALLOWED_PATHS widen it", async () => {
    const dir = project({
      "app/main.hcl": caller("app", [["shared", "../shared"]]),
      "shared/main.hcl": leaf("shared"),
      "app/link/main.hcl": caller("linked", [["x", "./x"]]),
    });
    const refused = await compileIn(dir, "app/main.hcl");
    expect(codes(refused)).toEqual(["path_outside_root@app/main.hcl:7:33"]);
    expect(refused.reads!.size).toBe(1); // shared/main.hcl was never read
    const widened = await compile(join(dir, "app/main.hcl"), { cwd: dir, root: dir });
    expect(widened.diagnostics).toEqual([]);
    const allowed = await compile(join(dir, "app/main.hcl"), { cwd: dir, allowedRoots: [join(dir, "shared")] });
    expect(allowed.diagnostics).toEqual([]);
    // A symlink inside the root that leads out of it.
    symlinkSync(join(dir, "shared"), join(dir, "app", "link", "x"));
    const viaLink = await compileIn(dir, "app/link/main.hcl");
    expect(codes(viaLink)).toEqual(["path_outside_root@app/link/main.hcl:7:28"]);
    expect(viaLink.diagnostics[0].message).toMatch(/is a symlink to .*shared, outside the workflow's root/);
    // The CLI: --root, and the Go tool's variable (':'-separated).
    expect((await cli(["validate", join(dir, "app/main.hcl")])).code).toBe(1);
    expect((await cli(["validate", "--root", dir, join(dir, "app/main.hcl")])).code).toBe(0);
    expect((await cli(["validate", join(dir, "app/main.hcl")], { CRITERIA_WORKFLOW_ALLOWED_PATHS: `/nonexistent:${join(dir, "shared")}` })).code).toBe(0);
  });

  it("--root that names no directory is a usage error, not a root nothing lies in (found by a new-user trial of CI use: it was accepted and named in hints)", async () => {
    const dir = project({ "main.hcl": `workflow {\n  name = "w"\n  version = "1"\n  initial_state = "done"\n  target_state = "done"\n}\nstate "done" { terminal = true }\n` });
    const missing = await cli(["validate", "--root", join(dir, "nope"), join(dir, "main.hcl")]);
    expect(missing.code).toBe(2);
    expect(missing.out).toContain(`--root ${join(dir, "nope")}: no such directory`);
    const file = await cli(["validate", "--root", join(dir, "main.hcl"), join(dir, "main.hcl")]);
    expect(file.code).toBe(2);
    expect(file.out).toContain("is not a directory");
    expect((await cli(["validate", "--root", dir, join(dir, "main.hcl")])).code).toBe(0);
  });

  it("a module file that is no workflow (empty, not a workflow format) is also said where it was named (a new-user trial: only the file itself, 1:1)", async () => {
    const main = (source: string) => `workflow {\n  name = "w"\n  version = "1"\n  initial_state = "a"\n  target_state = "done"\n}\nsubworkflow "m" { source = "${source}" }\nstep "a" {\n  target = subworkflow.m\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n`;
    for (const [source, file, code] of [
      ["./empty.hcl", "empty.hcl", "file_empty"],
      ["./m/readme.txt", "m/readme.txt", "unsupported_file_type"],
    ]) {
      const dir = project({ "main.hcl": main(source), "empty.hcl": "", "m/readme.txt": "notes\n" });
      const d = (await compileIn(dir, "main.hcl")).diagnostics.find((x) => x.code === code);
      expect(d?.range.file, code).toBe(file);
      expect(d?.related?.map((r) => `${r.message} ${r.range.file}:${r.range.start.line}:${r.range.start.column}`)).toEqual(["named here main.hcl:7:28"]);
    }
  });

  it("a module path written as an expression is quoted as written: source = var.d, not source \"${var.d}\" (a new-user trial)", async () => {
    const head = `workflow {\n  name = "w"\n  version = "1"\n  initial_state = "a"\n  target_state = "done"\n}\nvariable "d" {\n  type    = string\n  default = "./m"\n}\n`;
    const rest = `step "a" {\n  target = subworkflow.m\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n`;
    for (const [written, said] of [
      ["var.d", "source = var.d: "],
      ['"${var.d}"', 'source "${var.d}": '],
    ]) {
      const dir = project({ "main.hcl": `${head}subworkflow "m" { source = ${written} }\n${rest}` });
      const c = await compileIn(dir, "main.hcl");
      const d = c.diagnostics.find((x) => x.code === "invalid_value");
      expect(d?.message.startsWith(`${said}a module path must be written out`), d?.message).toBe(true);
    }
  });

  it("--root that does not hold the workflow is a usage error (a new-user trial: its workflow_file beside it was refused and then read as part of a split module, a false unreachable_step)", async () => {
    const dir = project({
      "main.hcl": `workflow {\n  name = "w"\n  version = "1"\n  initial_state = "call"\n  target_state = "done"\n}\nstep "call" {\n  count = 1\n  workflow_file = "./body.hcl"\n  outcome "all_succeeded" { next = state.done }\n  outcome "any_failed" { next = state.done }\n}\nstate "done" { terminal = true }\n`,
      "body.hcl": `adapter "noop" "default" {}\nstep "inbody" {\n  target = adapter.noop.default\n  outcome "success" { next = "return" }\n}\n`,
      "mods/readme.md": "modules\n",
    });
    for (const command of ["validate", "plan", "graph", "compile", "apply"]) {
      const r = await cli([command, "--root", join(dir, "mods"), join(dir, "main.hcl")]);
      expect(r.code, `${command}: ${r.out}`).toBe(2);
      expect(r.out).toContain(`--root ${join(dir, "mods")} does not hold ${join(dir, "main.hcl")}`);
      expect(r.out).not.toContain("unreachable_step");
    }
    expect((await cli(["validate", "--root", dir, join(dir, "main.hcl")])).code).toBe(0);
  });

  it("reads .chcl files and the Go tool's v0.5 header in a directory module", async () => {
    const dir = project({
      "mod/header.chcl": `workflow {\n  name = "split"\n  version = "1"\n  initial_state = "a"\n  target_state = "done"\n  policy {\n    max_total_steps = 7\n  }\n}\n`,
      "mod/steps.hcl": `adapter "noop" "default" {}\nstep "a" {\n  target = adapter.noop.default\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n`,
    });
    const c = await compileIn(dir, "mod");
    expect(c.diagnostics).toEqual([]);
    expect(c.files).toEqual(["mod/header.chcl", "mod/steps.hcl"]);
    expect(c.graph!.name).toBe("split");
    expect(c.graph!.policy.max_total_steps).toBe(7);
  });

  it("a header that is both labelled and named is refused", async () => {
    const dir = project({ "w.hcl": `workflow "a" {\n  name = "b"\n  initial_state = "x"\n}\nstate "x" { terminal = true }\n` });
    const c = await compileIn(dir, "w.hcl");
    expect(codes(c).filter((x) => !x.startsWith("missing_target_state"))).toEqual(["conflicting_fields@w.hcl:2:3"]);
  });

  it("YAML modules compose the same way: subworkflows, expects, use", async () => {
    const dir = project({
      "main.yaml": `workflow: { name: main, version: "1", initial_state: call, target_state: done, use: [./flows/helper.yaml] }
adapters:
  noop.default: {}
subworkflows:
  child: { source: ./child, adapters: [adapter.noop.default], input: { n: 2 } }
steps:
  call:
    target: subworkflow.child
    outcomes: { success: ask, failure: done }
  ask:
    target: agent.helper
    input: { task: "\${steps.call.doubled}" }
    outcomes: { success: done }
states:
  done: { terminal: true }
`,
      "child/main.yaml": `workflow: { name: child, initial_state: a, target_state: done, expects: { adapters: [adapter.noop.default] } }
variables:
  n: { type: number }
steps:
  a:
    target: adapter.noop.default
    outcomes: { success: done }
states:
  done: { terminal: true }
outputs:
  doubled: { value: "\${var.n * 2}" }
`,
      "flows/helper.yaml": `workflow: { name: helper, initial_state: a, target_state: done }
adapters:
  noop.default: {}
steps:
  a:
    target: adapter.noop.default
    input: { task: "\${input.task}" }
    outcomes: { success: done }
states:
  done: { terminal: true }
`,
    });
    const c = await compileIn(dir, "main.yaml");
    expect(c.diagnostics).toEqual([]);
    expect(Object.keys(c.graph!.modules!).sort()).toEqual(["child", "flows/helper.yaml"]);
    expect(c.graph!.agents).toEqual([{ name: "helper", config: {}, inherited: false, flow: { module: "flows/helper.yaml", adapters: [], agents: [] } }]);
    writeFileSync(join(dir, "child", "main.yaml"), `workflow: { name: child, initial_state: a, target_state: done }\nvariables:\n  n: { type: number }\nsteps:\n  a:\n    target: adapter.noop.default\n    outcomes: { success: done }\nstates:\n  done: { terminal: true }\n`);
    const broken = await compileIn(dir, "main.yaml");
    // The child no longer expects the adapter: using it is unknown there, passing it is refused here.
    expect(codes(broken).sort()).toEqual(["unknown_reference@main.yaml:5:40", "unknown_target@child/main.yaml:6:13"]);
  });
  it("a workflow_file body whose own header has no name (workflow { initial_state = ... }) is named after its step, not \"\" (a new-user trial)", async () => {
    const dir = project({
      "main.hcl": `workflow "outer" {\n  version = "1"\n  initial_state = "loop"\n  target_state = "done"\n}\nadapter "shell" "default" {}\nstep "loop" {\n  workflow_file = "body.hcl"\n  outcome "success" { next = "done" }\n}\nstate "done" { terminal = true }\n`,
      "body.hcl": `workflow {\n  initial_state = "inner"\n}\nstep "inner" {\n  target = adapter.shell.default\n  input { command = "echo hi" }\n  outcome "success" { next = "return" }\n}\n`,
    });
    const g = await graphIn(dir, "main.hcl");
    expect(g.steps[0].body?.name).toBe("loop.body");
    expect(g.steps[0].body?.initial_state).toBe("inner");
  });
});

describe("a missing path's did-you-mean", () => {
  it("never names the file that names it (a new-user trial: ./f.hcl missing in b.hcl was 'did you mean \"./b.hcl\"?', a cycle); a near sibling still is", async () => {
    const header = (use: string) => `workflow {\n  name = "b"\n  version = "1"\n  initial_state = "s"\n  target_state = "done"\n  use = ["${use}"]\n}\nadapter "shell" "default" {}\nstep "s" {\n  target = adapter.shell.default\n  input { command = "true" }\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n`;
    const hintOf = async (use: string) => (await compileIn(project({ "b.hcl": header(use), "flow.hcl": header("./b.hcl").replace('  use = ["./b.hcl"]\n', "") }), "b.hcl")).diagnostics.find((d) => d.code === "use_not_found")?.hint;
    expect(await hintOf("./f.hcl")).toBe("paths are relative to the directory of b.hcl");
    expect(await hintOf("./flwo.hcl")).toBe('did you mean "./flow.hcl"? (paths are relative to the directory of b.hcl)');
  });
});

describe("expects in a workflow_file body", () => {
  it("is refused where it is written, once: an adapter it lists that the caller declares is not also a duplicate (a new-user trial)", async () => {
    const dir = project({
      "main.hcl": `workflow {\n  name = "m"\n  version = "1"\n  initial_state = "s"\n  target_state = "done"\n}\nadapter "shell" "default" {}\nstep "s" {\n  workflow_file = "./b.hcl"\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n`,
      "b.hcl": `workflow {\n  name = "b"\n  expects { adapters = [adapter.shell.default] }\n}\nstep "x" {\n  target = adapter.shell.default\n  input { command = "true" }\n  outcome "success" { next = state.ok }\n}\nstate "ok" { terminal = true }\n`,
    });
    const c = await compileIn(dir, "main.hcl");
    expect(c.diagnostics.filter((d) => d.severity === "error").map((d) => `${d.range.file}:${d.range.start.line}:${d.range.start.column} ${d.code}`)).toEqual(["b.hcl:3:3 invalid_value"]);
  });
});

describe("a module that calls its own directory", () => {
  it("is a cycle named by relative paths, the working directory as . (a new-user trial: /tmp/x -> /tmp/x)", async () => {
    const dir = project({
      "main.hcl": `workflow {\n  name = "c"\n  version = "1"\n  initial_state = "s"\n  target_state = "done"\n}\nsubworkflow "me" { source = "." }\nstep "s" {\n  target = subworkflow.me\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n`,
    });
    const c = await compile(join(dir, "main.hcl"), { cwd: dir });
    expect(c.diagnostics.filter((d) => d.code === "module_cycle").map((d) => d.message)).toEqual(['subworkflow source "." closes a cycle: . -> .']);
  });
});

describe("a named file that cannot be read", () => {
  it("says where it was named, as the other file problems do (a new-user trial: a FIFO had no note)", async () => {
    const dir = project({
      "m1.hcl": `workflow {\n  name = "m"\n  version = "1"\n  initial_state = "s"\n  target_state = "done"\n}\nstep "s" {\n  workflow_file = "./f.hcl"\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n`,
    });
    const { spawnSync } = await import("node:child_process");
    expect(spawnSync("mkfifo", [join(dir, "f.hcl")]).status).toBe(0);
    const c = await compile(join(dir, "m1.hcl"), { cwd: dir });
    const d = c.diagnostics.find((x) => x.code === "file_unreadable");
    expect(d?.message).toBe("f.hcl is not a regular file");
    expect(d?.related?.map((r) => `${r.message} (${r.range.file}:${r.range.start.line}:${r.range.start.column})`)).toEqual(["named here (m1.hcl:8:19)"]);
  });
});
