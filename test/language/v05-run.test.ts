/**
 * The Go tool's current language (v0.5) runs: every module of its examples that needs
 * no external service, and one workflow per construct (testdata/v05/), applied as a
 * real process on a real journal. The upstream reference for each behaviour is named
 * in the test (docs/language.md holds ours).
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { apply, cli, repo, shared, stateDir } from "./helpers.js";

const v05 = join(shared, "v0.5.7", "examples");
const cases = join(repo, "testdata", "v05");

describe("v0.5.7 examples run with criteria apply", () => {
  for (const m of ["hello", "subworkflow/parent.hcl", "llm-pack/01-linear", "llm-pack/03-iteration-for-each", "llm-pack/04-iteration-parallel", "llm-pack/05-subworkflow", "llm-pack/07-shared-variable", "llm-pack/08-fileset-template"]) {
    it(m, async () => {
      const r = await apply(join(v05, m));
      expect(r.status, r.stderr).toBe(0);
      expect(r.completed).toMatchObject({ success: true, state: "done" });
    });
  }

  it("llm-pack/02-branching-switch: the placeholder output key fails the switch at its position (noop has no output \"label\")", async () => {
    const r = await apply(join(v05, "llm-pack", "02-branching-switch"));
    expect(r.status).toBe(1);
    expect(r.completed).toMatchObject({ success: false, reason: "eval_error" });
    // At the failing ".label" of steps.classify.label (19:17 is where the condition starts).
    expect(String(r.completed?.detail)).toMatch(/02-branching-switch\/main\.hcl:19:31: .*"label"/);
  });

  it("llm-pack/06-approval-and-wait: parks at the signal, then resumes through the approval", () => {
    const state = stateDir();
    const first = cli(["apply", join(v05, "llm-pack", "06-approval-and-wait"), "--state-dir", state, "--run-id", "w", "--no-wait", "-o", "json"]);
    expect(first.status, first.stderr).toBe(5);
    expect(cli(["signal", "w", "deploy-ready", "--state-dir", state]).status).toBe(0);
    const second = cli(["resume", "w", "--state-dir", state, "--auto-approve", "-o", "json"]);
    expect(second.status, second.stderr).toBe(0);
    expect(second.events.find((e) => e.event === "run.completed")).toMatchObject({ success: true, state: "done" });
  });

  it("llm-pack/07-shared-variable: each step's write is journaled with its completion", async () => {
    const r = await apply(join(v05, "llm-pack", "07-shared-variable"));
    const writes = r.entries.filter((e) => e.entry_type === "step.completed").map((e) => (e.payload as { data?: unknown }).data);
    expect(writes).toEqual([{ "internal.counter": "1" }, { "internal.counter": "2" }]);
  });
});

describe("v0.5 constructs run (testdata/v05)", () => {
  it("data values: writes read the step-entry snapshot and are converted to the declared type", async () => {
    const r = await apply(join(cases, "data_write.hcl"));
    expect(r.status, r.stderr).toBe(0);
    // counter: 1 + "41" (a number); seen: read the counter before the step's own write.
    expect(r.completed?.outputs).toEqual({ counter: 42 });
    const show = r.entries.find((e) => e.entry_type === "step.completed" && e.step_id === "show");
    expect((show?.payload as unknown as { output: { stdout: string } }).output.stdout.trim()).toBe("42 / counter was 1");
  });

  it("while: re-evaluated before each iteration, with while.index, while.first and while._prev", async () => {
    const r = await apply(join(cases, "while_counter.hcl"));
    expect(r.status, r.stderr).toBe(0);
    expect(r.completed?.outputs).toMatchObject({ left: 0 });
    const items = (r.completed?.outputs as { items: string[] }).items;
    expect(items).toHaveLength(3);
    expect(items[0]).toBe("item 0 first=true prev=none");
    expect(items[1]).toMatch(/^item 1 first=false prev=item 0 /);
    const its = r.entries.filter((e) => e.entry_type === "iteration.completed").map((e) => (e.payload as { data?: unknown }).data);
    expect(its).toEqual([{ "internal.left": 2 }, { "internal.left": 1 }, { "internal.left": 0 }]);
  });

  it("while: a condition that never turns false stops at max_visits (an expression of var.*)", async () => {
    const r = await apply(join(cases, "while_bounded.hcl"), ["--var", "limit=3"]);
    expect(r.status).toBe(1);
    expect(r.completed).toMatchObject({ success: false, reason: "policy_exceeded" });
    expect(String(r.completed?.detail)).toContain("max_visits = 3");
    expect(r.entries.filter((e) => e.entry_type === "iteration.completed")).toHaveLength(3);
  });

  it("switch: the arm taken stores its output as steps.<switch>", async () => {
    const r = await apply(join(cases, "switch_output.hcl"));
    expect(r.status, r.stderr).toBe(0);
    const deploy = r.entries.find((e) => e.entry_type === "step.completed" && e.step_id === "deploy");
    expect((deploy?.payload as unknown as { output: { stdout: string } }).output.stdout.trim()).toBe("deploying 2 to staging");
    const prod = await apply(join(cases, "switch_output.hcl"), ["--var", "env=prod"]);
    const taken = prod.entries.find((e) => e.entry_type === "branch.taken");
    expect(taken?.payload).toMatchObject({ arm: 0, output: { replicas: 5, label: "production" } });
    const none = await apply(join(cases, "switch_output.hcl"), ["--var", "env=dev"]);
    expect(none.entries.find((e) => e.entry_type === "branch.taken")?.payload).toMatchObject({ arm: -1, next: "done", output: { label: "none" } });
  });

  it('outcome "default" takes an undeclared outcome (said in a warning); a lone outcome is the implicit default', async () => {
    const r = await apply(join(cases, "outcome_default.hcl"));
    expect(r.status, r.stderr).toBe(0);
    expect(r.completed?.outputs).toEqual({ note: "probe exited 3" });
    expect(r.events.some((e) => e.event === "warning" && String(e.message).includes('outcome "default" taken'))).toBe(true);
    const settle = r.entries.find((e) => e.entry_type === "step.completed" && e.step_id === "settle");
    expect(settle?.payload).toMatchObject({ outcome: "done", next: "done" });
  });

  it("return at the top level ends the run successfully; the outcome's projection is its outputs", async () => {
    const r = await apply(join(cases, "return_top.hcl"));
    expect(r.status, r.stderr).toBe(0);
    expect(r.completed).toMatchObject({ success: true, outputs: { status: "ready", checked: true } });
  });

  it("parallel_max as an expression, and path.*", async () => {
    const r = await apply(join(cases, "parallel_max_var.hcl"));
    expect(r.status, r.stderr).toBe(0);
    const where = r.entries.find((e) => e.entry_type === "step.completed" && e.step_id === "where");
    expect((where?.payload as unknown as { output: { stdout: string } }).output.stdout.trim()).toBe("true");
  });

  for (const [file, pattern] of [
    ["refused_oci_adapter", /refused_oci_adapter\.hcl:9:21: adapter "anthropic\.default" comes from source = "ghcr\.io\/your-org\/criteria-adapter-anthropic"/],
    ["refused_unknown_adapter", /refused_unknown_adapter\.hcl:9:23: adapter type "nosuchthing" is neither built in nor installed/],
    ["refused_sandbox_environment", /refused_sandbox_environment\.hcl:9:23: environment "sandbox" "strict" \(step "build"\)/],
  ] as const) {
    it(`${file}: validates, and apply refuses it before the first step, with its position`, async () => {
      expect(cli(["validate", join(cases, `${file}.hcl`)]).status).toBe(0);
      const r = await apply(join(cases, `${file}.hcl`));
      expect(r.status).toBe(1);
      expect(r.stdout + r.stderr).toMatch(pattern);
      expect(r.entries).toEqual([]);
    });
  }

  it("values are converted to their declared types at every depth (variables, data values, outputs)", async () => {
    const r = await apply(join(cases, "type_conversion.hcl"));
    expect(r.status, r.stderr).toBe(0);
    expect(r.completed?.outputs).toEqual({ w: { a: "x", b: 5 }, nums: [1, 2], eq: true, deq: true, typed: 42 });
    // --var in HCL syntax (as Terraform takes it), converted the same way.
    const v = await apply(join(cases, "type_conversion.hcl"), ["--var", 'nums=["7", 8]', "--var", 'w={ a = "y", extra = true }']);
    expect(v.completed?.outputs).toMatchObject({ w: { a: "y", b: 5 }, nums: [7, 8], eq: false });
  });

  it("a while step's aggregate outcome reads what its items wrote", async () => {
    const r = await apply(join(cases, "while_aggregate.hcl"));
    expect(r.status, r.stderr).toBe(0);
    expect(r.completed?.outputs).toEqual({ left: 0, seen: 0 });
  });

  it("every case validates without errors", () => {
    for (const f of ["data_write", "while_counter", "while_bounded", "switch_output", "outcome_default", "return_top", "parallel_max_var", "type_conversion", "while_aggregate"]) {
      const r = cli(["validate", join(cases, `${f}.hcl`)]);
      expect(r.status, `${f}: ${r.stdout}${r.stderr}`).toBe(0);
    }
  });
});
