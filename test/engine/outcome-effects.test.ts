/**
 * What taking an outcome does besides routing (engine/run/outcome-effects.ts) and the
 * data values it writes (engine/run/data-store.ts), in process, on graphs compiled from
 * real workflow text: the projection merged over the adapter's output, `output = <expr>`,
 * writes from the step-entry snapshot converted to their types (all or nothing),
 * `shared_writes`, and the stores' scoping (an inline body's store falls back to its
 * caller's; inner declarations shadow outer ones). docs/language.md, Outcomes and Data
 * values. The same behaviours run end to end in runner.test.ts; these tests reach the
 * two modules where a mutant in them is seen.
 */
import { describe, expect, it } from "vitest";
import type { Graph, GraphOutcome } from "../../compiler/build/graph.js";
import type { Value } from "../../compiler/expr/value.js";
import { makeFunctions } from "../../compiler/expr/functions.js";
import { DataStore } from "../../engine/run/data-store.js";
import { outcomeEffects } from "../../engine/run/outcome-effects.js";
import { failure } from "./eval-failure.js";
import { graphOf } from "./graph-of.js";

const fns = makeFunctions();

const HEAD = `workflow "t" {\n  version = "1"\n  initial_state = "s"\n  target_state = "done"\n}\nadapter "noop" "default" {}\nstate "done" { terminal = true }\n`;

/** The outcome `name` of step `s`. */
const outcomeOf = (g: Graph, name: string): GraphOutcome => g.steps.find((s) => s.name === "s")!.outcomes.find((o) => o.name === name)!;

describe("data values", () => {
  const decls = (g: Graph) => g.data ?? [];

  it("start at their declared values (null without one), converted to their types, read as data.<kind>.<name>.value", async () => {
    const g = await graphOf(`${HEAD}data "internal" "count" {\n  type  = number\n  value = 2\n}\ndata "internal" "names" {\n  type  = list(string)\n  value = ["a"]\n}\ndata "internal" "free" {\n  type = string\n}\nstep "s" {\n  target = adapter.noop.default\n  outcome "success" { next = "done" }\n}\n`);
    const store = new DataStore(decls(g), undefined, fns);
    expect(store.namespace()).toEqual({ internal: { count: { value: 2 }, names: { value: ["a"] }, free: { value: null } } });
    expect(store.empty).toBe(false);
  });

  it("a declared value that does not convert to its type fails naming the data value", () => {
    const f = failure(() => new DataStore([{ name: "internal.n", type: "number", value: { kind: "literal", text: '"x"', value: "x", at: "w.hcl:3:3" } }], undefined, fns));
    expect(f.message).toContain('data "internal" "n"');
    expect(f.message).toContain("(type number)");
  });

  it("a snapshot does not change with later writes; apply changes the values; unknown keys and no writes are ignored", () => {
    const store = new DataStore([{ name: "internal.n", type: "number" }], undefined, fns);
    const before = store.namespace();
    store.apply(store.prepare([{ target: "internal.n", value: 5, at: "w.hcl:9:9" }]));
    expect(before).toEqual({ internal: { n: { value: null } } });
    expect(store.namespace()).toEqual({ internal: { n: { value: 5 } } });
    store.apply({ "internal.gone": 1 });
    store.apply(undefined);
    expect(store.namespace()).toEqual({ internal: { n: { value: 5 } } });
  });

  it("prepare converts every write to its type, or fails naming the write's place and value (nothing prepared)", () => {
    const store = new DataStore([{ name: "internal.n", type: "number" }, { name: "internal.s", type: "string" }], undefined, fns);
    expect(store.prepare([{ target: "internal.s", value: 7, at: "a" }, { target: "internal.n", value: "8", at: "b" }])).toEqual({ "internal.s": "7", "internal.n": 8 });
    const f = failure(() => store.prepare([{ target: "internal.s", value: "ok", at: "w.hcl:1:1" }, { target: "internal.n", value: "many", at: "w.hcl:4:7" }]));
    expect(f.message).toMatch(/^w\.hcl:4:7: write to data "internal" "n": /);
    expect(store.namespace()).toEqual({ internal: { n: { value: null }, s: { value: null } } });
    // An untyped value takes any value as it is.
    const free = new DataStore([{ name: "internal.any" }], undefined, fns);
    expect(free.prepare([{ target: "internal.any", value: { a: [1] }, at: "x" }])).toEqual({ "internal.any": { a: [1] } });
  });

  it("an inline body's store: its caller's own when it declares nothing; else its declarations over the caller's, writes going to their owner", () => {
    const outer = new DataStore([{ name: "internal.n", type: "number" }, { name: "internal.shadowed", type: "string" }], undefined, fns);
    expect(DataStore.forBody(undefined, outer, fns)).toBe(outer);
    expect(DataStore.forBody([], outer, fns)).toBe(outer);
    const inner = DataStore.forBody([{ name: "internal.mine", type: "bool" }, { name: "internal.shadowed", type: "number" }], outer, fns);
    expect(inner).not.toBe(outer);
    // A write to the caller's value, made in the body, converts to the caller's type and lands in the caller's store.
    inner.apply(inner.prepare([{ target: "internal.n", value: "3", at: "x" }, { target: "internal.mine", value: "true", at: "y" }, { target: "internal.shadowed", value: "4", at: "z" }]));
    expect(outer.namespace()).toEqual({ internal: { n: { value: 3 }, shadowed: { value: null } } });
    expect(inner.namespace()).toEqual({ internal: { n: { value: 3 }, shadowed: { value: 4 }, mine: { value: true } } });
  });

  it("is empty only when neither the run nor, for a body, its caller declares any", () => {
    const none = new DataStore([], undefined, fns);
    expect(none.empty).toBe(true);
    expect(new DataStore([], none, fns).empty).toBe(true);
    const outer = new DataStore([{ name: "internal.n" }], undefined, fns);
    expect(new DataStore([], outer, fns).empty).toBe(false);
    expect(new DataStore([{ name: "internal.m" }], none, fns).empty).toBe(false);
  });
});

describe("outcome effects", () => {
  const WRITES = `${HEAD}data "internal" "count" {\n  type  = number\n  value = 1\n}\ndata "internal" "names" {\n  type = list(string)\n}\nstep "s" {\n  target = adapter.noop.default\n  outcome "success" {\n    next   = "done"\n    output = { b = step.output.a + 10, c = "x" }\n    write {\n      target = data.internal.count.value\n      value  = data.internal.count.value + output.b\n    }\n    write {\n      target = data.internal.names.value\n      value  = [output.c, tostring(data.internal.count.value)]\n    }\n  }\n  outcome "failure" { next = "done" }\n}\n`;

  it("with nothing but a route: the adapter's output as it is, no projection, no writes", async () => {
    const g = await graphOf(WRITES);
    const raw = { a: 1 };
    const fx = outcomeEffects(outcomeOf(g, "failure"), raw, {}, fns, new DataStore(g.data ?? [], undefined, fns));
    expect(fx).toEqual({ output: { a: 1 } });
    expect(fx.output).toBe(raw);
  });

  it("merges the projection over the adapter's output; writes read output.<key> and the step-entry snapshot, never each other", async () => {
    const g = await graphOf(WRITES);
    const data = new DataStore(g.data ?? [], undefined, fns);
    const fx = outcomeEffects(outcomeOf(g, "success"), { a: 1, b: 2, keep: true }, { data: data.namespace() }, fns, data);
    expect(fx.output).toEqual({ a: 1, b: 11, c: "x", keep: true });
    expect(fx.projection).toEqual({ b: 11, c: "x" });
    // count = 1 (the snapshot) + 11; names reads the snapshot's count (1), not the written 12.
    expect(fx.data).toEqual({ "internal.count": 12, "internal.names": ["x", "1"] });
    expect(fx.shared).toBeUndefined();
  });

  it("an iterating step's output (a list, one entry per item) stays as it is; the projection is still evaluated and writes read it", async () => {
    const g = await graphOf(WRITES.replace("step.output.a + 10", "length(step.output) + 10"));
    const data = new DataStore(g.data ?? [], undefined, fns);
    const raw = [{ a: 1 }, { a: 2 }];
    const fx = outcomeEffects(outcomeOf(g, "success"), raw, { data: data.namespace() }, fns, data);
    expect(fx.output).toBe(raw);
    expect(fx.projection).toEqual({ b: 12, c: "x" });
    expect(fx.data).toEqual({ "internal.count": 13, "internal.names": ["x", "1"] });
  });

  it("output = <expression> must be an object: its failure names the place and the outcome", async () => {
    const g = await graphOf(`${HEAD}step "s" {\n  target = adapter.noop.default\n  outcome "success" {\n    next   = "done"\n    output = step.output.inner\n  }\n}\n`);
    const o = outcomeOf(g, "success");
    expect(outcomeEffects(o, { inner: { z: 1 }, y: 2 }, {}, fns, new DataStore([], undefined, fns))).toEqual({ output: { inner: { z: 1 }, y: 2, z: 1 }, projection: { z: 1 } });
    const f = failure(() => outcomeEffects(o, { inner: 5 }, {}, fns, new DataStore([], undefined, fns)));
    expect(f.message).toBe(`${o.output_expr!.at}: outcome "success": output must be an object, not 5`);
  });

  it("a write that does not convert fails the outcome and prepares nothing (an expression: a literal is refused by validate)", async () => {
    const g = await graphOf(WRITES.replace('value  = [output.c, tostring(data.internal.count.value)]', 'value  = [output.c, tostring(data.internal.count.value)]\n    }\n    write {\n      target = data.internal.count.value\n      value  = lower("NOT A NUMBER")'));
    const data = new DataStore(g.data ?? [], undefined, fns);
    const f = failure(() => outcomeEffects(outcomeOf(g, "success"), { a: 1 }, { data: data.namespace() }, fns, data));
    expect(f.message).toMatch(/write to data "internal" "count"/);
    expect(data.namespace()).toEqual({ internal: { count: { value: 1 }, names: { value: null } } });
  });

  it("shared_writes are evaluated from the adapter's output (step.output and subworkflow alike)", async () => {
    const g = await graphOf(`${HEAD}shared_variable "seen" {\n  type  = string\n  value = ""\n}\nstep "s" {\n  target = adapter.noop.default\n  outcome "success" {\n    next          = "done"\n    shared_writes = { seen = "\${step.output.word}-\${subworkflow.word}" }\n  }\n}\n`);
    const fx = outcomeEffects(outcomeOf(g, "success"), { word: "w" }, { shared: { seen: "" } as Value }, fns, new DataStore([], undefined, fns));
    expect(fx).toEqual({ output: { word: "w" }, shared: { seen: "w-w" } });
  });
});
