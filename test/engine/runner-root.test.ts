/**
 * A root run's start, in process (engine/run/runner.ts: root, runGraph's first entries,
 * namespaces): the variables it is given or refused, shared variables' first values, what
 * its `run.spawned` journals (identity, input, secret variables, where it ran), the events
 * that open a run, and the `each`/`while` namespaces of a nested step. The CLI tests reach
 * these paths through the built bundle, which mutants of the source never reach (what
 * StrykerJS's pass over runner.ts lines 520–760 left: 62.5%, then 66.7% killed).
 */
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import type { Payloads } from "../../engine/journal/entry.js";
import { RunRefused, RunSubmitted } from "../../engine/run/runner.js";
import { graphOf } from "./graph-of.js";
import { HEAD, ok, projectGraph, rejection, scripted, setup, warnings } from "./runner-fixtures.js";

/** One step on the script adapter passing `input`, then `done`. */
const ONE = (decls: string, input: string) => `${HEAD("one")}
adapter "script" "default" {}
${decls}
step "one" {
  target = adapter.script.default
  input { ${input} }
  outcome "success" { next = "done" }
}`;

/** The payload of run `id`'s run.spawned entry. */
async function spawned(s: ReturnType<typeof setup>, id: string): Promise<Payloads["run.spawned"]> {
  const e = (await s.entries(id)).find((x) => x.entry_type === "run.spawned" && x.run_id === id);
  return e!.payload as Payloads["run.spawned"];
}

describe("the variables a run starts with", () => {
  const VARS = ONE(`variable "who" { type = string }\nvariable "token" {\n  type = string\n  secret = true\n}`, `who = var.who`);

  it("a required variable not given is refused as a usage error (exit 2), before anything is journaled", async () => {
    const s = setup();
    const e = await rejection(s.runner().start(await graphOf(VARS), { token: "a-long-secret" }, "r"));
    expect(e).toBeInstanceOf(RunRefused);
    expect((e as RunRefused).usage).toBe(true);
    expect((e as Error).message).toBe('variable "who" is required: pass --var who=...');
    expect(await s.journal.run("r")).toBeUndefined();
  });

  it("a submitted run leaves only a secret variable to its workers; a plain one missing is still refused", async () => {
    const s = setup({ submit: true });
    const e = await rejection(s.runner().start(await graphOf(VARS), { token: "a-long-secret" }, "r1"));
    expect(e).toBeInstanceOf(RunRefused);
    const submitted = await rejection(s.runner().start(await graphOf(VARS), { who: "ann" }, "r2"));
    expect(submitted).toBeInstanceOf(RunSubmitted);
    // The workers are asked for the secret again; the value given is journaled, the secret is not.
    const p = await spawned(s, "r2");
    expect(p.inputs).toEqual({ who: "ann" });
    expect(p.secret_variables).toEqual(["token"]);
  });

  it("a secret too short to mask is warned of once; a long one is not", async () => {
    const g = await graphOf(VARS);
    const short = setup();
    const a = scripted(() => ok());
    await short.runner({ adapterFor: a.adapterFor }).start(g, { who: "ann", token: "ab" }, "r");
    expect(warnings(short.events).filter((w) => w.includes("shorter than"))).toEqual(['secret variable "token" has a value shorter than 3 characters: criteria cannot mask it in what it records and shows']);
    const long = setup();
    await long.runner({ adapterFor: a.adapterFor }).start(g, { who: "ann", token: "a-long-secret" }, "r");
    expect(warnings(long.events)).toEqual([]);
  });

  it("two secrets too short to mask are warned of each once, by name", async () => {
    const g = await graphOf(ONE(`variable "a" {\n  type = string\n  secret = true\n}\nvariable "b" {\n  type = string\n  secret = true\n}`, `x = 1`));
    const s = setup();
    await s.runner({ adapterFor: scripted(() => ok()).adapterFor }).start(g, { a: "ab", b: "cd" }, "r");
    expect(warnings(s.events).map((w) => w.replace(/ has a value.*/, ""))).toEqual(['secret variable "a"', 'secret variable "b"']);
  });

  it("shared variables start from their value, which may read the run's variables", async () => {
    const g = await graphOf(ONE(`variable "who" { type = string }\nshared_variable "greeting" {\n  type = string\n  value = "hi ${"${var.who}"}"\n}`, `said = shared.greeting`));
    const s = setup();
    const a = scripted(() => ok());
    await s.runner({ adapterFor: a.adapterFor }).start(g, { who: "ann" }, "r");
    expect(a.seen.map((r) => r.input.said)).toEqual(["hi ann"]);
  });
});

describe("a secret variable's value is never shown", () => {
  // Longer than the 40 characters a type error's excerpt keeps: the excerpt would not be masked.
  const SECRET = `hunter2-${"s".repeat(60)}`;
  const PIN = ONE(`variable "pin" {\n  type = number\n  secret = true\n}`, `x = 1`);

  it("a secret given that does not fit its type is refused without its value, at start and when a resume is given it again", async () => {
    const g = await graphOf(PIN);
    const e = await rejection(setup().runner().start(g, { pin: SECRET }, "r"));
    expect(e).toBeInstanceOf(RunRefused);
    expect((e as Error).message).toBe('input "pin": the value does not fit the type (type number)');
    // Submitted without it (workers give it); a worker's CRITERIA_VAR_pin that does not fit.
    const s = setup({ submit: true });
    expect(await rejection(s.runner().start(g, {}, "r"))).toBeInstanceOf(RunSubmitted);
    const again = await rejection(s.runner({ submit: false, secretVars: { pin: SECRET } }).resume("r"));
    expect(again).toBeInstanceOf(RunRefused);
    expect((again as Error).message).toBe('--var pin: variable "pin": the value does not fit the type (type number)');
    // From the environment (a worker's CRITERIA_VAR_pin): named as such.
    process.env.CRITERIA_VAR_pin = SECRET;
    try {
      const fromEnv = await rejection(s.runner({ submit: false }).resume("r"));
      expect((fromEnv as Error).message).toBe('CRITERIA_VAR_pin: variable "pin": the value does not fit the type (type number)');
    } finally {
      delete process.env.CRITERIA_VAR_pin;
    }
  });

  it("a secret output whose value does not fit its type fails the run without the value, in the journal, the events and the end", async () => {
    const g = await graphOf(`${HEAD("one")}variable "token" {\n  type = string\n  secret = true\n}\nadapter "script" "default" {}\nstep "one" {\n  target = adapter.script.default\n  outcome "success" { next = "done" }\n}\noutput "t" {\n  type = number\n  secret = true\n  value = var.token\n}\n`);
    const s = setup();
    const end = await s.runner({ adapterFor: scripted(() => ok()).adapterFor }).start(g, { token: SECRET }, "r");
    expect(end).toMatchObject({ success: false, reason: "eval_error", detail: expect.stringMatching(/^output "t" \(\S+w\.hcl:\d+:\d+\): the value does not fit the type \(type number\)$/) });
    expect(JSON.stringify(await s.entries("r"))).not.toContain("hunter2");
    expect(JSON.stringify(s.events)).not.toContain("hunter2");
  });

  it("a module's secret variable bound to a value that does not fit fails its step without the value; the end returned is masked as the one journaled", async () => {
    const files = (secret: boolean) => ({
      "main.hcl": `${HEAD("call")}variable "token" {\n  type = string\n  secret = ${secret}\n}\nsubworkflow "m" {\n  source = "./m"\n  input  = { pin = var.token }\n}\nstep "call" {\n  target = subworkflow.m\n  outcome "success" { next = "done" }\n  outcome "failure" { next = "failed" }\n}\n`,
      "m/main.hcl": `workflow {\n  name = "m"\n  version = "1"\n  initial_state = "s"\n  target_state = "done"\n}\nvariable "pin" {\n  type = number\n  secret = true\n}\nadapter "noop" "default" {}\nstep "s" {\n  target = adapter.noop.default\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n`,
    });
    // A plain value of the caller's: the module's variable is secret, so the message does not show it.
    const plain = await setup().runner().start(await projectGraph(files(false)), { token: SECRET }, "r");
    expect(plain).toMatchObject({ success: false, reason: "eval_error" });
    expect(plain.detail).toMatch(/: subworkflow "m" variable "pin": the value does not fit the type \(type number\)$/);
    // The caller's secret: withheld in the journal, and in the end the runner returns (which a worker logs).
    const s = setup();
    const end = await s.runner().start(await projectGraph(files(true)), { token: SECRET }, "r");
    expect(end.detail).toMatch(/: the expression failed; its message is withheld because the expression reads a secret$/);
    expect(JSON.stringify(end)).not.toContain("hunter2");
    expect(JSON.stringify(await s.entries("r"))).not.toContain("hunter2");
  });
});

describe("what a root run's run.spawned journals", () => {
  it("the header's identity; no input, no secret variables when there are none; where it ran, relative to the journal and to this process", async () => {
    const g = await graphOf(ONE("", `x = 1`).replace('version = "1"', 'version = "1"\n  identity = "reviewer-memory"'));
    const s = setup();
    await s.runner({ adapterFor: scripted(() => ok()).adapterFor }).start(g, {}, "r");
    const p = await spawned(s, "r");
    expect(p.identity).toBe("reviewer-memory");
    expect(p).not.toHaveProperty("input");
    expect(p).not.toHaveProperty("secret_variables");
    // The state directory is the workflow's directory here.
    expect(p.base_dir).toBe(s.dir);
    expect(p.base_dir_rel).toBe(".");
    expect(p.positions_rel).toBe(relative(s.dir, process.cwd()) || ".");
  });

  it("the source it was compiled from (the entry file and its hash), when the caller gives it", async () => {
    const g = await graphOf(ONE("", `x = 1`));
    const s = setup();
    await s.runner({ adapterFor: scripted(() => ok()).adapterFor }).start(g, {}, "r", {}, { entry: "main.hcl", hash: "0123abcd" });
    expect((await spawned(s, "r")).source).toEqual({ entry: "main.hcl", hash: "0123abcd" });
    const none = setup();
    await none.runner({ adapterFor: scripted(() => ok()).adapterFor }).start(g, {}, "r");
    expect(await spawned(none, "r")).not.toHaveProperty("source");
  });

  it("the input given (a flow's input.*), and no identity when the header has none", async () => {
    const g = await graphOf(ONE("", `x = 1`));
    const s = setup();
    await s.runner({ adapterFor: scripted(() => ok()).adapterFor }).start(g, {}, "r", { task: "fix" });
    const p = await spawned(s, "r");
    expect(p.input).toEqual({ task: "fix" });
    expect(p).not.toHaveProperty("identity");
  });
});

describe("the events that open a run", () => {
  it("run.started once, for the root (not its nested runs); run.resumed for the root alone when it is resumed, its nested run included", async () => {
    const g = await graphOf(`${HEAD("twice")}
adapter "script" "default" {}
step "twice" {
  count = 2
  workflow {
    initial_state = "inner"
    target_state  = "ok"
    step "inner" {
      target = adapter.script.default
      outcome "success" { next = "ok" }
    }
    state "ok" { terminal = true }
  }
  outcome "all_succeeded" { next = "held" }
}
step "held" {
  workflow {
    initial_state = "gate"
    target_state  = "ok"
    wait "gate" {
      signal = "go"
      next = "ok"
    }
    state "ok" { terminal = true }
  }
  outcome "success" { next = "done" }
}`);
    const s = setup({ park: true });
    await rejection(s.runner({ adapterFor: scripted(() => ok()).adapterFor }).start(g, {}, "r"));
    expect(s.events.filter((e) => e.event === "run.started").map((e) => (e as { run_id: string }).run_id)).toEqual(["r"]);
    expect(s.events.some((e) => e.event === "run.resumed")).toBe(false);
    s.events.length = 0;
    // Parked again inside the nested run of "held", which the resume walks into.
    await rejection(s.runner({ adapterFor: scripted(() => ok()).adapterFor }).resume("r"));
    expect(s.events.filter((e) => e.event === "run.resumed" || e.event === "run.started").map((e) => `${e.event} ${(e as { run_id: string }).run_id}`)).toEqual(["run.resumed r"]);
  });
});

describe("a root run that cannot start", () => {
  it("a module that expects adapters from its caller is refused when run on its own, naming them", async () => {
    const g = await graphOf(`${HEAD("one").replace('target_state = "done"', 'target_state = "done"\n  expects { adapters = [adapter.script.default] }')}
step "one" {
  target = adapter.script.default
  outcome "success" { next = "done" }
}`);
    const e = await rejection(setup().runner().start(g, {}, "r"));
    expect(e).toBeInstanceOf(RunRefused);
    expect((e as Error).message).toBe('workflow "t" expects adapter.script.default from its caller; run it from a workflow that passes them (subworkflow { adapters = [...] agents = [...] }, or for a flow used as an agent, agent { use = "..." adapters = [...] })');
    const two = await graphOf(`${HEAD("one").replace('target_state = "done"', 'target_state = "done"\n  expects { adapters = [adapter.script.default, adapter.script.other] }')}
step "one" {
  target = adapter.script.default
  outcome "success" { next = "two" }
}
step "two" {
  target = adapter.script.other
  outcome "success" { next = "done" }
}`);
    expect(((await rejection(setup().runner().start(two, {}, "r"))) as Error).message).toMatch(/^workflow "t" expects adapter\.script\.default, adapter\.script\.other from its caller;/);
  });

  it("an adapter that is not installed is refused before anything runs, each reason on its line", async () => {
    const g = await graphOf(ONE("", `x = 1`));
    const s = setup({ adapterExists: () => false });
    const e = await rejection(s.runner({ adapterFor: scripted(() => ok()).adapterFor }).start(g, {}, "r"));
    expect(e).toBeInstanceOf(RunRefused);
    expect((e as Error).message).toMatch(/^the run cannot start:\n {2}\S/);
    expect(await s.journal.run("r")).toBeUndefined();
    // Two reasons: one line each, both indented under the first.
    const two = await graphOf(ONE(`adapter "other" "default" {}`, `x = 1`));
    const lines = ((await rejection(setup({ adapterExists: (t) => t === "script" ? false : t !== "other" }).runner().start(two, {}, "r"))) as Error).message.split("\n");
    expect(lines[0]).toBe("the run cannot start:");
    expect(lines.slice(1).map((l) => /^ {2}\S.*: adapter type "\w+" is neither built in nor installed/.test(l))).toEqual([true, true]);
    expect(lines.slice(1).map((l) => /adapter type "(\w+)"/.exec(l)?.[1]).sort()).toEqual(["other", "script"]);
  });
});

describe("the namespaces a nested step reads", () => {
  it("each.* of the enclosing item, inside a body; while.index and while.first of a while step's iteration", async () => {
    const g = await graphOf(`${HEAD("items")}
adapter "script" "default" {}
data "internal" "left" {
  type  = number
  value = 2
}
step "items" {
  for_each = ["a", "b"]
  workflow {
    initial_state = "inner"
    target_state  = "ok"
    step "inner" {
      target = adapter.script.default
      input { item = each.value }
      outcome "success" { next = "ok" }
    }
    state "ok" { terminal = true }
  }
  outcome "all_succeeded" { next = "drain" }
}
step "drain" {
  target     = adapter.script.default
  while      = data.internal.left.value > 0
  max_visits = 5
  input {
    index = while.index
    first = while.first
  }
  outcome "success" {
    next = continue
    write {
      target = data.internal.left.value
      value  = data.internal.left.value - 1
    }
  }
  outcome "all_succeeded" { next = "done" }
}`);
    const s = setup();
    const a = scripted(() => ok());
    expect(await s.runner({ adapterFor: a.adapterFor }).start(g, {}, "r")).toMatchObject({ state: "done", success: true });
    expect(a.seen.filter((r) => r.step === "inner").map((r) => r.input.item)).toEqual(["a", "b"]);
    expect(a.seen.filter((r) => r.step === "drain").map((r) => [r.input.index, r.input.first])).toEqual([
      [0, true],
      [1, false],
    ]);
  });

  it("each.* of the closest item: an inner for_each's inside an outer one's; an outer item's inside a body that does not iterate", async () => {
    const g = await graphOf(`${HEAD("outer")}
adapter "script" "default" {}
step "outer" {
  for_each = ["a", "b"]
  workflow {
    initial_state = "inner"
    step "inner" {
      for_each = ["x", "y"]
      workflow {
        initial_state = "leaf"
        step "leaf" {
          target = adapter.script.default
          input { item = each.value }
          outcome "success" { next = "_continue" }
        }
      }
      outcome "all_succeeded" { next = "plain" }
    }
    step "plain" {
      workflow {
        initial_state = "deep"
        target_state  = "ok"
        step "deep" {
          target = adapter.script.default
          input { item = each.value }
          outcome "success" { next = "ok" }
        }
        state "ok" { terminal = true }
      }
      outcome "success" { next = "_continue" }
    }
  }
  outcome "all_succeeded" { next = "done" }
}`);
    const s = setup();
    const a = scripted(() => ok());
    expect(await s.runner({ adapterFor: a.adapterFor }).start(g, {}, "r")).toMatchObject({ state: "done", success: true });
    expect(a.seen.map((r) => `${r.step}:${String(r.input.item)}`)).toEqual(["leaf:x", "leaf:y", "deep:a", "leaf:x", "leaf:y", "deep:b"]);
  });

  it("a body's file() and path.module are its module's directory, not the root's; a local reads path.* too", async () => {
    const s = setup();
    const g = await projectGraph({
      "main.hcl": `${HEAD("call")}subworkflow "m" { source = "./m" }\nstep "call" {\n  target = subworkflow.m\n  outcome "success" { next = "done" }\n  outcome "failure" { next = "failed" }\n}\n`,
      "m/note.txt": "the module's note",
      "m/main.hcl": `workflow {\n  name = "m"\n  version = "1"\n  initial_state = "wrap"\n  target_state = "done"\n}\nlocals {\n  here = path.module\n}\nadapter "script" "default" {}\nstep "wrap" {\n  workflow {\n    initial_state = "s"\n    target_state = "ok"\n    step "s" {\n      target = adapter.script.default\n      input {\n        note = file("note.txt")\n        dir  = path.module\n        here = local.here\n      }\n      outcome "success" { next = "ok" }\n    }\n    state "ok" { terminal = true }\n  }\n  outcome "success" { next = state.done }\n  outcome "failure" { next = state.failed }\n}\nstate "done" { terminal = true }\nstate "failed" {\n  terminal = true\n  success = false\n}\n`,
    }, s.dir);
    const a = scripted(() => ok());
    expect(await s.runner({ adapterFor: a.adapterFor }).start(g, {}, "r")).toMatchObject({ state: "done", success: true });
    expect(a.seen.map((r) => r.input)).toEqual([{ note: "the module's note", dir: join(s.dir, "m"), here: join(s.dir, "m") }]);
  });
});
