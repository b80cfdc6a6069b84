/**
 * A file of a split module stands for its directory (compiler/load/split-module.ts; the Go
 * tool's reference, v0.5.7 docs/workflow.md, Directory mode): `criteria apply
 * wf/workflow.hcl` runs the module whose one header is in that file and whose steps are in
 * its siblings. What is not a split module is still compiled alone: whole workflows side by
 * side, a workflow with its body files beside it, bodies among bodies, YAML files.
 */
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compile } from "../../compiler/index.js";
import { MAX_FILE_BYTES } from "../../compiler/load/read-source.js";
import { splitModuleOf } from "../../compiler/load/split-module.js";
import { repo } from "../pipeline/helpers.js";

const HEADER = 'workflow {\n  name          = "w"\n  version       = "1"\n  initial_state = "go"\n  target_state  = "done"\n}\n';
const STEPS = 'adapter "noop" "x" {}\nstep "go" {\n  target = adapter.noop.x\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n';

/** A fresh directory with `files` (name → text). */
function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "criteria-split-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const nodes = (c: Awaited<ReturnType<typeof compile>>) => [...(c.graph?.steps ?? []), ...(c.graph?.states ?? [])].map((n) => n.name).sort();

describe("a file of a split module", () => {
  it("compiles as its directory, whichever of its files is named: the same graph, no error for what a sibling declares", async () => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-split-"));
    cpSync(join(repo, "examples", "multi_file"), dir, { recursive: true });
    const whole = await compile(dir);
    expect(whole.diagnostics).toEqual([]);
    for (const f of ["workflow.hcl", "steps.hcl", "agents.hcl"]) {
      const c = await compile(join(dir, f));
      expect(c.diagnostics, f).toEqual([]);
      expect(c.path).toBe(join(dir, f));
      expect(c.files).toEqual(whole.files);
      expect(nodes(c)).toEqual(nodes(whole));
      expect(nodes(c).length).toBeGreaterThan(3);
    }
  });

  it("reports a sibling's error at the sibling's position", async () => {
    const dir = folder({ "main.hcl": HEADER, "steps.hcl": STEPS.replace("state.done", "state.dnoe") });
    const c = await compile(join(dir, "main.hcl"), { cwd: dir });
    expect(c.diagnostics.map((d) => [d.code, d.range.file, d.range.start.line])).toEqual([
      ["unknown_node", "steps.hcl", 4],
      ["unreachable_node", "steps.hcl", 6],
    ]);
  });

  it("is decided on an editor's unsaved text: a header typed into the second file makes two whole workflows", () => {
    const dir = folder({ "main.hcl": HEADER, "steps.hcl": STEPS });
    expect(splitModuleOf(join(dir, "main.hcl"))).toBe(dir);
    expect(splitModuleOf(join(dir, "steps.hcl"))).toBe(dir);
    const overlay = new Map([[join(dir, "steps.hcl"), HEADER + STEPS]]);
    expect(splitModuleOf(join(dir, "main.hcl"), (p) => overlay.get(p))).toBeUndefined();
  });
});

describe("not a split module: compiled alone, as before", () => {
  it("whole workflows side by side", async () => {
    const dir = folder({ "a.hcl": HEADER + STEPS, "b.hcl": HEADER + STEPS });
    expect(splitModuleOf(join(dir, "a.hcl"))).toBeUndefined();
    expect((await compile(join(dir, "a.hcl"))).diagnostics).toEqual([]);
    expect((await compile(dir)).diagnostics.map((d) => d.code)).toContain("duplicate_block");
  });

  it("a workflow with its body file beside it (the directory would be refused: module_overlap)", async () => {
    const main = HEADER + 'step "go" {\n  workflow_file = "./body.hcl"\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n';
    const body = 'adapter "noop" "x" {}\nstep "leaf" {\n  target = adapter.noop.x\n  outcome "success" { next = state.fin }\n}\nstate "fin" { terminal = true }\n';
    const dir = folder({ "main.hcl": main, "body.hcl": body });
    expect(splitModuleOf(join(dir, "main.hcl"))).toBe(dir);
    expect((await compile(dir)).diagnostics.map((d) => d.code)).toContain("module_overlap");
    const c = await compile(join(dir, "main.hcl"));
    expect(c.diagnostics).toEqual([]);
    expect(c.files).toEqual([join(dir, "main.hcl")]);
  });

  it("a workflow beside a file of comments or one over the size limit (found by the limits test: its 3 MiB workflow was merged with a 4 MiB comment)", async () => {
    const dir = folder({ "main.hcl": HEADER + STEPS, "notes.hcl": "# step \"go\" {\n" });
    expect(splitModuleOf(join(dir, "main.hcl"))).toBeUndefined();
    writeFileSync(join(dir, "big.hcl"), `step "x" {}\n# ${"x".repeat(MAX_FILE_BYTES)}\n`);
    expect(splitModuleOf(join(dir, "main.hcl"))).toBeUndefined();
    expect((await compile(join(dir, "main.hcl"))).diagnostics).toEqual([]);
  });

  it("bodies among bodies, a lone file, a YAML file, a directory", async () => {
    const dir = folder({ "b1.hcl": STEPS, "b2.hcl": STEPS, "w.yaml": "workflow: {}\n" });
    expect(splitModuleOf(join(dir, "b1.hcl"))).toBeUndefined();
    expect((await compile(join(dir, "b1.hcl"))).diagnostics[0].message).toBe("no workflow header");
    expect(splitModuleOf(join(dir, "w.yaml"))).toBeUndefined();
    expect(splitModuleOf(dir)).toBeUndefined();
    const lone = folder({ "only.hcl": STEPS });
    expect(splitModuleOf(join(lone, "only.hcl"))).toBeUndefined();
  });
});

describe("a file of a split module named as a module (subworkflow source, use)", () => {
  const caller = (source: string) =>
    `workflow {\n  name          = "c"\n  version       = "1"\n  initial_state = "call"\n  target_state  = "done"\n}\nsubworkflow "m" {\n  source = "${source}"\n}\nstep "call" {\n  target = subworkflow.m\n  outcome "success" { next = state.done }\n  outcome "failure" { next = state.done }\n}\nstate "done" { terminal = true }\n`;
  /** A caller in a fresh directory, with `module` (name → text) in modules/m. */
  function project(source: string, module: Record<string, string>): string {
    const dir = folder({ "main.hcl": caller(source) });
    const m = join(dir, "modules", "m");
    mkdirSync(m, { recursive: true });
    for (const [name, text] of Object.entries(module)) writeFileSync(join(m, name), text);
    return dir;
  }
  const errors = (c: Awaited<ReturnType<typeof compile>>) => c.diagnostics.filter((d) => d.severity === "error").map((d) => `${d.code}: ${d.message}`);

  it("is refused at the source, once, naming the directory to write (found by a new-user trial: the file was read alone)", async () => {
    for (const [file, other] of [["main.hcl", "steps.hcl"], ["steps.hcl", "main.hcl"]]) {
      const dir = project(`./modules/m/${file}`, { "main.hcl": HEADER, "steps.hcl": STEPS });
      const c = await compile(join(dir, "main.hcl"), { cwd: dir });
      expect(errors(c), file).toEqual([`invalid_value: source "./modules/m/${file}": ${file} is one file of the module in modules/m (with ${other}); write source = "./modules/m"`]);
      expect(c.diagnostics[0].range.file).toBe("main.hcl");
      expect(c.diagnostics[0].hint).toMatch(/named by its directory/);
    }
    const whole = project("./modules/m", { "main.hcl": HEADER, "steps.hcl": STEPS });
    expect(errors(await compile(join(whole, "main.hcl"), { cwd: whole }))).toEqual([]);
  });

  it("a flow named by use is refused the same way", async () => {
    const dir = folder({
      "main.hcl": 'workflow {\n  name          = "c"\n  version       = "1"\n  initial_state = "done"\n  target_state  = "done"\n  use           = ["./flows/r/main.hcl"]\n}\nstate "done" { terminal = true }\n',
    });
    mkdirSync(join(dir, "flows", "r"), { recursive: true });
    writeFileSync(join(dir, "flows", "r", "main.hcl"), HEADER);
    writeFileSync(join(dir, "flows", "r", "steps.hcl"), STEPS);
    const c = await compile(join(dir, "main.hcl"), { cwd: dir });
    expect(errors(c)).toEqual([`invalid_value: use "./flows/r/main.hcl": main.hcl is one file of the module in flows/r (with steps.hcl); write use "./flows/r"`]);
  });

  it("a workflow with its body file beside it is still read alone", async () => {
    const body = 'adapter "noop" "x" {}\nstep "inner" {\n  target = adapter.noop.x\n  outcome "success" { next = state.ok }\n}\nstate "ok" { terminal = true }\n';
    const wf = 'workflow {\n  name          = "w"\n  version       = "1"\n  initial_state = "go"\n  target_state  = "done"\n}\nstep "go" {\n  workflow_file = "./body.hcl"\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n';
    expect(splitModuleOf(join(project("./modules/m/main.hcl", { "main.hcl": wf, "body.hcl": body }), "modules", "m", "main.hcl"))).toBeDefined();
    const dir = project("./modules/m/main.hcl", { "main.hcl": wf, "body.hcl": body });
    expect(errors(await compile(join(dir, "main.hcl"), { cwd: dir }))).toEqual([]);
    // Its body named by a path that is not written plainly, and the body itself named as the
    // source: not a split module either (found by a trial of this check: both were refused,
    // with a fix that failed as module_overlap).
    const roundabout = project("./modules/m/main.hcl", { "main.hcl": wf.replace("./body.hcl", "./sub/../body.hcl"), "body.hcl": body });
    expect(errors(await compile(join(roundabout, "main.hcl"), { cwd: roundabout }))).toEqual([]);
    const bodyAsSource = project("./modules/m/body.hcl", { "main.hcl": wf, "body.hcl": body });
    expect(errors(await compile(join(bodyAsSource, "main.hcl"), { cwd: bodyAsSource })).filter((e) => e.includes("one file of the module"))).toEqual([]);
  });

  it("a file name quoted in a comment does not make a split module a workflow with bodies (found by a trial of this check)", async () => {
    const dir = project("./modules/m/main.hcl", { "main.hcl": `# "./steps.hcl"\n${HEADER}`, "steps.hcl": STEPS });
    expect(errors(await compile(join(dir, "main.hcl"), { cwd: dir }))).toEqual([`invalid_value: source "./modules/m/main.hcl": main.hcl is one file of the module in modules/m (with steps.hcl); write source = "./modules/m"`]);
  });
});
