/**
 * A root run's start, in process (engine/run/runner.ts: root, runGraph's first entries,
 * namespaces): the variables it is given or refused, shared variables' first values, what
 * its `run.spawned` journals (identity, input, secret variables, where it ran), the events
 * that open a run, and the `each`/`while` namespaces of a nested step. The CLI tests reach
 * these paths through the built bundle, which mutants of the source never reach (what
 * StrykerJS's pass over runner.ts lines 520–760 left: 62.5%, then 66.7% killed).
 */
import { relative } from "node:path";
import { describe, expect, it } from "vitest";
import type { Payloads } from "../../engine/journal/entry.js";
import { RunRefused, RunSubmitted } from "../../engine/run/runner.js";
import { graphOf } from "./graph-of.js";
import { HEAD, ok, rejection, scripted, setup, warnings } from "./runner-fixtures.js";

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

  it("shared variables start from their value, which may read the run's variables", async () => {
    const g = await graphOf(ONE(`variable "who" { type = string }\nshared_variable "greeting" {\n  type = string\n  value = "hi ${"${var.who}"}"\n}`, `said = shared.greeting`));
    const s = setup();
    const a = scripted(() => ok());
    await s.runner({ adapterFor: a.adapterFor }).start(g, { who: "ann" }, "r");
    expect(a.seen.map((r) => r.input.said)).toEqual(["hi ann"]);
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
    expect((e as Error).message).toBe('workflow "t" expects adapter.script.default from its caller; run it from a workflow that passes them (subworkflow { adapters = [...] agents = [...] })');
  });

  it("an adapter that is not installed is refused before anything runs, each reason on its line", async () => {
    const g = await graphOf(ONE("", `x = 1`));
    const s = setup({ adapterExists: () => false });
    const e = await rejection(s.runner({ adapterFor: scripted(() => ok()).adapterFor }).start(g, {}, "r"));
    expect(e).toBeInstanceOf(RunRefused);
    expect((e as Error).message).toMatch(/^the run cannot start:\n {2}\S/);
    expect(await s.journal.run("r")).toBeUndefined();
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
});
