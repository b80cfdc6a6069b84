/**
 * `criteria fmt --to v0.5`: the inputs a new user's trial broke it with, each kept as
 * it was found. Every case must come out parsing, validating as before, compiling to
 * the same graph (agents that are adapter sessions counted as adapters), with every
 * comment kept.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../cli.js";
import { compile } from "../../compiler/index.js";
import { COMMENT, comments, io, OLDER_FORM } from "./helpers.js";
import { cli } from "../pipeline/helpers.js";

const work = mkdtempSync(join(tmpdir(), "criteria-fmt-reg-"));
let n = 0;

/** Step targets and sessions of a compiled graph, position-free: what a rewrite must not change. */
async function sessions(path: string): Promise<unknown> {
  const c = await compile(path);
  expect(c.diagnostics.filter((d) => d.severity === "error").map((d) => `${d.range.start.line} ${d.code} ${d.message}`)).toEqual([]);
  const g = c.graph!;
  const id = (t: { kind: string; name?: string; id?: string }) => {
    if (t.kind !== "agent") return t.id;
    const a = g.agents.find((x) => x.name === t.name)!;
    return `${a.adapter}.${a.name}`;
  };
  const byId = new Map<string, unknown>();
  for (const a of g.adapters) byId.set(a.id, { on_crash: a.on_crash, config: a.config });
  for (const a of g.agents) if (a.adapter) byId.set(`${a.adapter}.${a.name}`, { on_crash: a.on_crash, config: a.config });
  return JSON.parse(JSON.stringify({
    steps: g.steps.map((s) => ({ name: s.name, target: s.target ? id(s.target as { kind: string; name?: string; id?: string }) : undefined, input: s.input, outcomes: s.outcomes })),
    sessions: [...byId.entries()].sort(([a], [b]) => a.localeCompare(b)),
    states: g.states,
    branches: g.branches,
  }, (k, v) => (k === "at" ? undefined : v)));
}

/** Writes `files` into a fresh directory, runs fmt on `target` (a file or the directory), returns paths. */
async function fmt(files: Record<string, string>, target?: string): Promise<{ dir: string; path: string; before: unknown; code: number; out: string }> {
  const dir = join(work, `case${n++}`);
  mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  const path = target === undefined ? dir : join(dir, target);
  const before = await sessions(path);
  const o = io();
  const code = await main(["fmt", "--to", "v0.5", path], o);
  return { dir, path, before, code, out: o.stdout + o.stderr };
}

async function expectSame(r: Awaited<ReturnType<typeof fmt>>, files: Record<string, string>) {
  expect(r.code, r.out).toBe(0);
  expect(await sessions(r.path)).toEqual(r.before);
  for (const name of Object.keys(files)) {
    const after = readFileSync(join(r.dir, name), "utf8");
    expect(comments(after), `${name}: comments kept`).toEqual(comments(files[name]));
    expect(after.replace(COMMENT, "")).not.toMatch(OLDER_FORM);
  }
}

describe("fmt --to v0.5: a new user's inputs", () => {
  it("section comments with blank lines inside the header are not copied, and stay before their blocks", async () => {
    const files = {
      "sections.hcl": `workflow "x" {
  initial_state = "a"
  target_state  = "done"

  # ---- steps ----

  step "a" {
    adapter = "noop"
    outcome "success" { transition_to = "done" }
  }

  # ---- states ----

  state "done" { terminal = true }
}
`,
    };
    const r = await fmt(files, "sections.hcl");
    await expectSame(r, files);
    const out = readFileSync(r.path, "utf8");
    expect(out.match(/step "a"/g)).toHaveLength(1);
    expect(out.indexOf("# ---- steps ----")).toBeLessThan(out.indexOf('step "a"'));
    expect(out.indexOf("# ---- states ----")).toBeLessThan(out.indexOf('state "done"'));
    expect(out.indexOf("# ---- states ----")).toBeGreaterThan(out.indexOf('step "a"'));
  });

  it("a directory module is rewritten as one: an agent used in another file, one implicit adapter declaration", async () => {
    const files = {
      "a_agents.hcl": `agent "rev" { adapter = "copilot" }\n`,
      "b_steps.hcl": `step "one" {\n  adapter = "shell"\n  input { command = "true" }\n  outcome "success" { transition_to = "two" }\n}\nstep "two" {\n  agent = "rev"\n  input { prompt = "hi" }\n  outcome "success" { transition_to = "three" }\n}\n`,
      "c_workflow.hcl": `workflow "mf" {\n  version       = "1"\n  initial_state = "one"\n  target_state  = "done"\n}\nstep "three" {\n  adapter = "shell"\n  input { command = "true" }\n  outcome "success" { transition_to = "done" }\n}\nstate "done" { terminal = true }\n`,
    };
    const r = await fmt(files);
    await expectSame(r, files);
    const all = readdirSync(r.dir).map((f) => readFileSync(join(r.dir, f), "utf8")).join("\n");
    expect(all.match(/adapter "shell" "default"/g)).toHaveLength(1);
    expect(all).toContain('adapter "copilot" "rev"');
    expect(all).toContain("target = adapter.copilot.rev");
  });

  it("an agent with the name and type of a declared adapter stays an agent", async () => {
    const files = {
      "w.hcl": `workflow "x" {\n  version = "1"\n  initial_state = "s"\n  target_state = "done"\n}\nadapter "copilot" "n" {\n  config { model = "a" }\n}\nagent "n" {\n  adapter = "copilot"\n  config { model = "b" }\n}\nstep "s" {\n  agent = "n"\n  input { prompt = "x" }\n  outcome "success" { next = "t" }\n}\nstep "t" {\n  target = adapter.copilot.n\n  input { prompt = "x" }\n  outcome "success" { next = "done" }\n}\nstate "done" { terminal = true }\n`,
    };
    const r = await fmt(files, "w.hcl");
    await expectSame(r, files);
    expect(readFileSync(r.path, "utf8")).toContain('agent "n"');
  });

  it("agent \"default\" and steps naming its type directly stay two sessions", async () => {
    const files = {
      "w.hcl": `workflow "x" {\n  version = "1"\n  initial_state = "s"\n  target_state = "done"\n}\nagent "default" {\n  adapter  = "shell"\n  on_crash = "respawn"\n}\nstep "s" {\n  agent = "default"\n  input { command = "true" }\n  outcome "success" { next = "t" }\n}\nstep "t" {\n  adapter = "shell"\n  input { command = "true" }\n  outcome "success" { next = "done" }\n}\nstate "done" { terminal = true }\n`,
    };
    const r = await fmt(files, "w.hcl");
    await expectSame(r, files);
    expect(readFileSync(r.path, "utf8")).toContain('agent "default"');
  });

  it("transition_to inside data (input, config, variable defaults, outputs) is data: kept", async () => {
    const files = {
      "w.hcl": `workflow "x" {\n  version = "1"\n  initial_state = "s"\n  target_state = "done"\n}\nadapter "shell" "default" {\n  config {\n    env = { transition_to = "x" }\n  }\n}\nstep "s" {\n  target = adapter.shell.default\n  input {\n    command = "true"\n    meta = { transition_to = "x" }\n  }\n  outcome "success" { transition_to = "done" }\n}\nstate "done" { terminal = true }\n`,
    };
    const r = await fmt(files, "w.hcl");
    expect(r.code, r.out).toBe(0);
    expect(await sessions(r.path)).toEqual(r.before);
    const out = readFileSync(r.path, "utf8");
    expect(out.match(/transition_to = "x"/g)).toHaveLength(2);
    expect(out).toContain('outcome "success" { next = "done" }');
  });

  it("comments on the header's own lines are kept: after `{`, before and after `}`", async () => {
    for (const [name, text] of Object.entries({
      "after_close.hcl": `workflow "x" {\n  version = "1"\n  initial_state = "s"\n  target_state = "s"\n  state "s" { terminal = true }\n} # keep me\n`,
      "after_open.hcl": `workflow "x" { # c\n  version = "1"\n  initial_state = "s"\n  target_state = "s"\n  state "s" { terminal = true }\n}\n`,
      "block_before_close.hcl": `workflow "x" {\n  version = "1"\n  initial_state = "s"\n  target_state = "s"\n  state "s" { terminal = true }\n  /* x */ }\n`,
      "fields_only.hcl": `workflow "x" { // c\n  version = "1"\n  initial_state = "s"\n  target_state = "s"\n  # last\n}\nstate "s" { terminal = true }\n`,
    })) {
      const files = { [name]: text };
      const r = await fmt(files, name);
      await expectSame(r, files);
    }
  });

  it("a one-line header gets its fields on lines of their own", async () => {
    // (A one-line block holds one field: such a header never validates, but it is rewritten well.)
    const dir = join(work, `case${n++}`);
    mkdirSync(dir);
    const f = join(dir, "w.hcl");
    writeFileSync(f, `workflow "x" { version = "1" }\nstep "a" {\n  adapter = "noop"\n  outcome "success" { next = "done" }\n}\nstate "done" { terminal = true }\n`);
    expect(await main(["fmt", "--to", "v0.5", f], io())).toBe(0);
    expect(readFileSync(f, "utf8")).toMatch(/^workflow \{\n  name = "x"\n  version = "1"\n\}\n/);
  });

  it("an agent's adapter line with a comment after it leaves the comment where it was", async () => {
    const files = { "w.hcl": `workflow "x" {\n  version = "1"\n  initial_state = "s"\n  target_state = "done"\n  agent "a" {\n    adapter = "copilot" # copilot for now\n  }\n  step "s" {\n    agent = "a"\n    input { prompt = "p" }\n    outcome "success" { transition_to = "done" }\n  }\n  state "done" { terminal = true }\n}\n` };
    const r = await fmt(files, "w.hcl");
    await expectSame(r, files);
    expect(readFileSync(r.path, "utf8")).toContain('adapter "copilot" "a" {\n  # copilot for now\n}');
  });

  it("a symlink is followed: the file it points at is rewritten, the link stays", async () => {
    const dir = join(work, `case${n++}`);
    mkdirSync(join(dir, "real"), { recursive: true });
    writeFileSync(join(dir, "real", "t.hcl"), `workflow "x" {\n  version = "1"\n  initial_state = "s"\n  target_state = "s"\n}\nstate "s" { terminal = true }\n`);
    symlinkSync(join(dir, "real", "t.hcl"), join(dir, "link.hcl"));
    expect(await main(["fmt", "--to", "v0.5", join(dir, "link.hcl")], io())).toBe(0);
    expect(readFileSync(join(dir, "real", "t.hcl"), "utf8")).toMatch(/name +=  ?"x"/);
    expect(readdirSync(dir).sort()).toEqual(["link.hcl", "real"]);
    expect(readFileSync(join(dir, "link.hcl"), "utf8")).toMatch(/name +=  ?"x"/);
  });

  it("--check --stdout exits 1 when the file would change; --stdout takes one file", async () => {
    const dir = join(work, `case${n++}`);
    mkdirSync(dir);
    const f = join(dir, "w.hcl");
    writeFileSync(f, `workflow "x" {\n  version = "1"\n}\n`);
    const o = io();
    expect(await main(["fmt", "--to", "v0.5", "--check", "--stdout", f], o)).toBe(1);
    expect(o.stdout).toMatch(/name +=  ?"x"/);
    const g = join(dir, "v.hcl");
    writeFileSync(g, `workflow "y" {\n  version = "1"\n}\n`);
    expect(await main(["fmt", "--to", "v0.5", "--stdout", f, g], io())).toBe(2);
    // The same file named twice is one file.
    expect(await main(["fmt", "--to", "v0.5", "--stdout", f, f], io())).toBe(0);
  });
});

describe("fmt --to v0.5: a pre-commit user's inputs (a new-user trial of CI use)", () => {
  const HEADER = `workflow "m" {\n  version       = "1"\n  initial_state = "a"\n  target_state  = "done"\n`;

  it("a workflow_file body is rewritten with the file that reaches it: the agent its step names becomes the adapter in both (it broke the body)", async () => {
    const files = {
      "main.hcl": `${HEADER}\n  agent "bot" {\n    adapter = "shell"\n  }\n\n  step "a" {\n    workflow_file = "./b.hcl"\n    outcome "success" { transition_to = "done" }\n  }\n\n  state "done" {\n    terminal = true\n  }\n}\n`,
      "b.hcl": `# the body\nstep "inner" {\n  agent = "bot"\n  input { command = "echo from-body" }\n  outcome "success" { transition_to = "return" }\n}\n`,
    };
    const r = await fmt(files, "main.hcl");
    expect(r.out).toContain("b.hcl: rewritten");
    await expectSame(r, files);
    expect(readFileSync(join(r.dir, "b.hcl"), "utf8")).toContain("target = adapter.shell.bot");
  });

  it("a legacy body's `adapter = \"shell\"` is declared with the module's first step, as the whole run's, not in the body (found by a new-user trial: declared in the body, fmt refused its own rewrite, exit 3)", async () => {
    const files = {
      "main.hcl": `workflow "old" {\n  version       = "1"\n  initial_state = "a"\n  target_state  = "done"\n  step "a" {\n    workflow_file = "./body.hcl"\n    outcome "success" { transition_to = "done" }\n  }\n  state "done" { terminal = true }\n}\n`,
      "body.hcl": `workflow "b" {\n  version = "1"\n  initial_state = "x"\n  target_state = "return"\n  step "x" {\n    adapter = "shell"\n    input { command = "echo x" }\n    outcome "success" { transition_to = "return" }\n  }\n}\n`,
    };
    const r = await fmt(files, "main.hcl");
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain("body.hcl: rewritten");
    await expectSame(r, files);
    expect(readFileSync(join(r.dir, "main.hcl"), "utf8")).toContain('adapter "shell" "default" {}');
    expect(readFileSync(join(r.dir, "body.hcl"), "utf8")).not.toContain('adapter "shell" "default" {}');
  });

  it("one file of a split module stands for its directory: its sibling files are rewritten with it (pre-commit passes only the changed file)", async () => {
    const files = {
      "main.hcl": `${HEADER}}\nagent "bot" {\n  adapter = "shell"\n}\nstate "done" {\n  terminal = true\n}\n`,
      "steps.hcl": `step "a" {\n  agent = "bot"\n  input { command = "echo hi" }\n  outcome "success" { transition_to = "done" }\n}\n`,
    };
    const o = io();
    const dir = join(work, `case${n++}`);
    mkdirSync(dir);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    expect(await main(["fmt", "--to", "v0.5", "--check", join(dir, "main.hcl")], o)).toBe(1);
    expect(o.stdout).toContain("steps.hcl: would be rewritten");
    const r = await fmt(files, "main.hcl");
    await expectSame(r, files);
  });

  it("a rewrite that would not compile as before is refused, nothing written (a YAML body naming the agent: fmt rewrites no YAML)", async () => {
    const main_ = `${HEADER}\n  agent "bot" {\n    adapter = "shell"\n  }\n\n  step "a" {\n    workflow_file = "./b.yaml"\n    outcome "success" { transition_to = "done" }\n  }\n\n  state "done" {\n    terminal = true\n  }\n}\n`;
    const r = await fmt({ "main.hcl": main_, "b.yaml": "steps:\n  inner:\n    agent: bot\n    input:\n      command: echo from-body\n    outcomes:\n      success:\n        next: return\n" }, "main.hcl");
    expect(r.code).toBe(3);
    expect(r.out).toMatch(/main\.hcl: not rewritten: it would not compile: .*b\.yaml:3:12: error\[unknown_target\]: step "inner": unknown agent "bot"/);
    expect(readFileSync(join(r.dir, "main.hcl"), "utf8")).toBe(main_);
  });

  it("a read-only file is refused even for root (CI containers run as root; access() says root may write anything)", async () => {
    const dir = join(work, `case${n++}`);
    mkdirSync(dir);
    const f = join(dir, "ro.hcl");
    const text = `workflow "x" {\n  version = "1"\n  initial_state = "s"\n  target_state = "s"\n}\nstate "s" { terminal = true }\n`;
    writeFileSync(f, text);
    chmodSync(f, 0o444);
    const o = io();
    expect(await main(["fmt", "--to", "v0.5", f], o)).toBe(1);
    expect(o.stderr).toContain("it is read-only; left unchanged");
    expect(readFileSync(f, "utf8")).toBe(text);
  });

  it("a directory with no workflow files is exit 1, said; an empty file has nothing to rewrite, said (both were silent)", async () => {
    const dir = join(work, `case${n++}`);
    mkdirSync(join(dir, "none"), { recursive: true });
    writeFileSync(join(dir, "empty.hcl"), "");
    const o = io();
    expect(await main(["fmt", "--to", "v0.5", join(dir, "none")], o)).toBe(1);
    expect(o.stderr).toContain("none holds no workflow files; nothing to rewrite");
    const e = io();
    expect(await main(["fmt", "--to", "v0.5", "--check", join(dir, "empty.hcl")], e)).toBe(0);
    expect(e.stderr).toContain("empty.hcl: empty; nothing to rewrite");
  });
});

describe("fmt --to v0.5: where its output goes", () => {
  // Found by a user trial: `criteria fmt --to v0.5 --stdout old.hcl > new.hcl` wrote the
  // syntax error and "left unchanged" into new.hcl, and the terminal showed nothing.
  const old = 'workflow "demo" {\n  version       = "1"\n  initial_state = "build"\n  target_state  = "done"\n}\n\nstep "build" {\n  adapter = "shell"\n  input { command = "make" \n  outcome "success" { transition_to = "done" }\n}\n\nstate "done" { terminal = true }\n';

  it("diagnostics go to standard error; standard output holds only the rewritten text, none when there is none", async () => {
    const dir = join(work, `case${n++}`);
    mkdirSync(dir);
    const f = join(dir, "old.hcl");
    writeFileSync(f, old);
    for (const args of [["--stdout", f], [f]]) {
      const o = io();
      expect(await main(["fmt", "--to", "v0.5", ...args], o)).toBe(1);
      expect(o.stdout, args.join(" ")).toBe("");
      expect(o.stderr).toMatch(/old\.hcl:\d+:\d+: error\[syntax_error\]/);
      expect(o.stderr).toContain("old.hcl: left unchanged");
    }
    expect(readFileSync(f, "utf8")).toBe(old);
  });

  it("--stdout of a YAML file prints its text as it is, as standard input's is (found by a new-user trial: `fmt --stdout f.yaml > g.yaml` wrote an empty file)", async () => {
    const dir = join(work, `case${n++}`);
    mkdirSync(dir);
    const f = join(dir, "w.yaml");
    const text = 'workflow:\n  name: demo\n  version: "1"\n';
    writeFileSync(f, text);
    const o = io();
    expect(await main(["fmt", "--to", "v0.5", "--stdout", f], o)).toBe(0);
    expect(o.stdout).toBe(text);
    expect(o.stderr).toContain("w.yaml: skipped (YAML and JSON have one form; nothing to rewrite)");
  });
});

describe("fmt --to v0.5: a second new user's inputs", () => {
  // The Go tool's own v0.5 example (v0.5.7/examples/llm-pack/02-branching-switch), in short: `match` blocks whose `=` are not aligned.
  const V05_SWITCH = `workflow {
  name          = "m"
  version       = "1"
  initial_state = "s"
  target_state  = "done"
}
adapter "noop" "default" {}
step "s" {
  target = adapter.noop.default
  outcome "success" { next = switch.r }
}
switch "r" {
  # a comment
  match {
    condition = var.level == "urgent"
    next = state.done
  }
  default { next = state.done }
}
variable "level" {
  type    = string
  default = "low"
}
state "done" { terminal = true }
`;

  it("a file already in v0.5 is left as it is: its match blocks are not realigned, and --check passes (it said \"would be rewritten (0 changes)\" for ever)", async () => {
    const dir = join(work, `case${n++}`);
    mkdirSync(dir);
    const path = join(dir, "main.hcl");
    writeFileSync(path, V05_SWITCH);
    const check = io();
    expect(await main(["fmt", "--to", "v0.5", "--check", path], check), check.stdout + check.stderr).toBe(0);
    expect(check.stdout).toBe("");
    const o = io();
    expect(await main(["fmt", "--to", "v0.5", path], o), o.stderr).toBe(0);
    expect(o.stdout).toBe("");
    expect(readFileSync(path, "utf8")).toBe(V05_SWITCH);
  });

  it("beside a v0.3 arm rewritten into a match block (aligned), a match block written so is left as it is", async () => {
    const older = V05_SWITCH.replace("  # a comment\n", '  condition {\n    match = var.level == "low"\n    next  = state.done\n  }\n');
    const r = await fmt({ "main.hcl": older }, "main.hcl");
    expect(r.code, r.out).toBe(0);
    const out = readFileSync(r.path, "utf8");
    expect(out).toContain('  match {\n    condition = var.level == "low"\n    next      = state.done\n  }\n');
    expect(out).toContain('  match {\n    condition = var.level == "urgent"\n    next = state.done\n  }\n');
  });

  const WHOLE = (name: string) => `# top comment
workflow "${name}" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"

  # the build step
  step "build" {
    adapter = "shell"
    input {
      command = "echo hi" # trailing
    }
    outcome "success" { transition_to = "done" }
    outcome "failure" { transition_to = "failed" }
  }

  state "done" {
    terminal = true
  }
  state "failed" {
    terminal = true
    success  = false
  }
}
`;

  it("a step's older fields written as references or as an adapter block's name become its target (left as they were)", async () => {
    const files = {
      "main.hcl": `workflow {
  name          = "w"
  version       = "1"
  initial_state = "a"
  target_state  = "done"
  use           = ["./flow"]
}
adapter "shell" "default" {}
agent "bot" {
  adapter = "shell"
  config { cwd = "." }
}
agent "flow" {
  use = "./flow"
}
step "a" {
  adapter = adapter.shell.default
  input { command = "true" }
  outcome "success" { next = "b" }
}
step "b" {
  agent = agent.bot
  input { command = "true" }
  outcome "success" { next = "c" }
}
step "c" {
  adapter = "shell.default"
  input { command = "true" }
  outcome "success" { next = "d" }
}
step "d" {
  adapter = adapter.shell # the default one
  input { command = "true" }
  outcome "success" { next = "e" }
}
step "e" {
  agent = agent.flow
  input { task = "x" }
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
`,
      "flow/main.hcl": `workflow {
  name          = "flow"
  version       = "1"
  initial_state = "done"
  target_state  = "done"
}
variable "task" {
  type = string
}
state "done" { terminal = true }
`,
    };
    const r = await fmt(files, "main.hcl");
    await expectSame(r, files);
    const out = readFileSync(r.path, "utf8");
    expect(out).not.toMatch(/^\s*(adapter|agent) = /m);
    for (const t of ["adapter.shell.default\n", "adapter.shell.bot\n", "adapter.shell.default # the default one\n", "agent.flow\n"]) expect(out).toContain(`  target = ${t}`);
    expect(r.out).toContain("agent = agent.flow → target = agent.flow");
  });

  it("a directory of whole workflows side by side: each file is rewritten alone, and each still validates (the adapter they share was declared in one file only)", async () => {
    const dir = join(work, `case${n++}`);
    mkdirSync(dir);
    writeFileSync(join(dir, "a.hcl"), WHOLE("demo"));
    writeFileSync(join(dir, "b.hcl"), WHOLE("demo2"));
    const before = [await sessions(join(dir, "a.hcl")), await sessions(join(dir, "b.hcl"))];
    const o = io();
    expect(await main(["fmt", "--to", "v0.5", dir], o), o.stderr).toBe(0);
    expect(o.stdout).toContain("a.hcl: rewritten");
    expect(o.stdout).toContain("b.hcl: rewritten");
    expect([await sessions(join(dir, "a.hcl")), await sessions(join(dir, "b.hcl"))]).toEqual(before);
    for (const f of ["a.hcl", "b.hcl"]) expect(readFileSync(join(dir, f), "utf8")).toContain('adapter "shell" "default" {}');
  });

  it("comments around the header's label and an agent's label are kept", async () => {
    const files = {
      "main.hcl": `workflow /* A */ "lost2" /* B */ {
  version       = "1"
  initial_state = "s"
  target_state  = "done"
  agent /* C */ "bot" {
    adapter = "shell"
  }
  step "s" {
    agent = "bot"
    input { command = "true" }
    outcome "success" { transition_to = "done" }
  }
  state "done" { terminal = true }
}
`,
    };
    const r = await fmt(files, "main.hcl");
    await expectSame(r, files);
    const out = readFileSync(r.path, "utf8");
    expect(out).toContain("workflow /* A */ /* B */ {\n");
    expect(out).toContain('adapter /* C */ "shell" "bot" {');
  });

  it("a header named twice (a label and name =) is left as it is, for validate's conflicting_fields to say: not \"a bug of fmt\" (exit 3)", async () => {
    const dir = join(work, `case${n++}`);
    mkdirSync(dir);
    const text = `workflow "x" {\n  name          = "y"\n  initial_state = "done"\n  target_state  = "done"\n}\nstate "done" { terminal = true }\n`;
    writeFileSync(join(dir, "main.hcl"), text);
    const o = io();
    expect(await main(["fmt", "--to", "v0.5", join(dir, "main.hcl")], o), o.stderr).toBe(0);
    expect(o.stderr).not.toContain("internal_error");
    expect(readFileSync(join(dir, "main.hcl"), "utf8")).toBe(text);
  });

  it("a directory whose only file is a symlink out of it says why, as validate does, and exits 1 (it was silent, exit 0)", async () => {
    const dir = join(work, `case${n++}`);
    mkdirSync(join(dir, "d"), { recursive: true });
    writeFileSync(join(dir, "outside.hcl"), 'workflow "a" {}\n');
    symlinkSync(join(dir, "outside.hcl"), join(dir, "d", "main.hcl"));
    const o = io();
    expect(await main(["fmt", "--to", "v0.5", join(dir, "d")], o)).toBe(1);
    expect(o.stderr).toContain("error[path_outside_root]");
    expect(o.stderr).toContain(`${join(dir, "d")} holds no workflow files; nothing to rewrite`);
    expect(readFileSync(join(dir, "outside.hcl"), "utf8")).toBe('workflow "a" {}\n');
  });

  it("a file whose name is no workflow file's is refused as validate refuses it, and not touched", async () => {
    const dir = join(work, `case${n++}`);
    mkdirSync(dir);
    writeFileSync(join(dir, "notes.txt"), 'workflow "a" {}\n');
    const o = io();
    expect(await main(["fmt", "--to", "v0.5", join(dir, "notes.txt")], o)).toBe(1);
    expect(o.stderr).toContain(`notes.txt:1:1: error[unsupported_file_type]: ${join(dir, "notes.txt")}: unsupported file type ".txt"`);
    expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe('workflow "a" {}\n');
  });

  it("standard input standing for one file of a split module: rewritten when it holds alone, else refused with the command that rewrites them together (it was \"a bug of fmt\", exit 3)", () => {
    const dir = join(work, `case${n++}`);
    mkdirSync(dir);
    const files: Record<string, string> = {
      "main.hcl": `workflow "split" {\n  version       = "1"\n  initial_state = "build"\n  target_state  = "done"\n}\nstate "done" { terminal = true }\n`,
      "agents.hcl": `# the bot\nagent "bot" {\n  adapter = "shell"\n}\n`,
      "steps.hcl": `step "build" {\n  agent = "bot"\n  input { command = "true" }\n  outcome "success" { transition_to = "done" }\n}\n`,
    };
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    const agents = cli(["fmt", "--to", "v0.5", "-", "--stdin-name", "agents.hcl"], { cwd: dir, input: files["agents.hcl"] });
    expect(agents.status, agents.stderr).toBe(1);
    expect(agents.stdout).toBe("");
    expect(agents.stderr).toContain("agents.hcl: not rewritten from standard input: rewritten alone, it would not compile: steps.hcl:2:11: error[unknown_target]");
    expect(agents.stderr).toContain("run criteria fmt --to v0.5 . to rewrite the files together\n");
    const header = cli(["fmt", "--to", "v0.5", "-", "--stdin-name", "main.hcl"], { cwd: dir, input: files["main.hcl"] });
    expect(header.status, header.stderr).toBe(0);
    expect(header.stdout).toBe(`workflow {\n  name          = "split"\n  version       = "1"\n  initial_state = "build"\n  target_state  = "done"\n}\nstate "done" { terminal = true }\n`);
    for (const [name, text] of Object.entries(files)) expect(readFileSync(join(dir, name), "utf8")).toBe(text);
  });

  it("standard input for each file of a split module whose steps name an adapter type: the declaration fmt adds goes in one file whichever comes, so what is given back compiles together (a second trial: each file declared it)", () => {
    const dir = join(work, `case${n++}`);
    mkdirSync(dir);
    const step = (name: string, next: string) => `step "${name}" {\n  adapter = "shell"\n  input {\n    command = "echo ${name}"\n  }\n  outcome "success" { transition_to = "${next}" }\n}\n`;
    const files: Record<string, string> = {
      "main.hcl": `workflow "split" {\n  version       = "1"\n  initial_state = "one"\n  target_state  = "done"\n}\n`,
      "more.hcl": step("three", "done"),
      "states.hcl": `state "done" {\n  terminal = true\n}\n`,
      "steps.hcl": step("one", "two") + step("two", "three"),
    };
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    const out = join(work, `case${n++}`);
    mkdirSync(out);
    for (const name of Object.keys(files)) {
      const r = cli(["fmt", "--to", "v0.5", "-", "--stdin-name", name], { cwd: dir, input: files[name] });
      if (r.status === 0) writeFileSync(join(out, name), r.stdout);
      else {
        expect(r.status, r.stderr).toBe(1);
        expect(r.stderr).toContain("run criteria fmt --to v0.5 . to rewrite the files together");
        writeFileSync(join(out, name), files[name]);
      }
    }
    const declared = Object.keys(files).filter((name) => readFileSync(join(out, name), "utf8").includes('adapter "shell" "default" {}'));
    expect(declared).toHaveLength(1);
    const checked = cli(["validate", out]);
    expect(checked.stdout + checked.stderr).not.toMatch(/declared in more than one file/);
    // The whole directory, rewritten together, compiles.
    expect(cli(["fmt", "--to", "v0.5", dir]).status).toBe(0);
    expect(cli(["validate", dir]).status).toBe(0);
  });

  it("a file whose header's label has a comment, beside another whole workflow, is rewritten alone (it was taken for a file of a split module: exit 3)", async () => {
    const dir = join(work, `case${n++}`);
    mkdirSync(dir);
    writeFileSync(join(dir, "x.hcl"), WHOLE("x").replace('workflow "x" {', 'workflow /* a */ "x" {'));
    writeFileSync(join(dir, "y.hcl"), WHOLE("y"));
    const o = io();
    expect(await main(["fmt", "--to", "v0.5", dir], o), o.stderr).toBe(0);
    expect(readFileSync(join(dir, "x.hcl"), "utf8")).toContain("workflow /* a */ {\n");
    expect(cli(["validate", join(dir, "x.hcl"), join(dir, "y.hcl")]).status).toBe(0);
    const check = io();
    expect(await main(["fmt", "--to", "v0.5", "--check", dir], check), check.stdout).toBe(0);
  });
});
