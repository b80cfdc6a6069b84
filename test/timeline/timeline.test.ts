/**
 * `criteria journal RUN --format html` (the "See and edit" issue, item 2), without a
 * browser: the timeline model of real runs (lanes, attempts and retries, approvals and who
 * decided, channel messages, the failing step and the source position it points at) and
 * the page the command writes (self-contained, escaped, one lane per run). The page in a
 * real browser: browser.test.ts.
 */
import Database from "better-sqlite3";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildTimeline, formatDuration, sourcePosition, type Timeline } from "../../cli/timeline/model.js";
import { escapeHtml } from "../../cli/timeline/html.js";
import { cli, entries, temp } from "../pipeline/helpers.js";
import { APPROVER, gateRun, panelRun, positionOf, runIds, type MadeRun } from "./runs.js";

let gate: MadeRun;
let panel: MadeRun;
let g: Timeline;
let p: Timeline;

beforeAll(async () => {
  gate = await gateRun();
  panel = panelRun();
  g = buildTimeline(await entries(gate.state, gate.run), gate.run)!;
  p = buildTimeline(await entries(panel.state, panel.run), panel.run)!;
}, 60_000);

describe("the timeline of a run", () => {
  it("has one lane per run, nested lanes after their parent and under the step that started them", async () => {
    expect(g.lanes.map((l) => [l.run_id, l.depth, l.parent_step, l.iteration, l.call])).toEqual([
      ["t", 0, undefined, undefined, undefined],
      ["t/items#1[0]", 1, "items", 0, "body"],
      ["t/items#1[1]", 1, "items", 1, "body"],
    ]);
    expect(g.lanes.map((l) => l.run_id).sort()).toEqual((await runIds(gate)).sort());
    expect(p.lanes.map((l) => l.run_id).sort()).toEqual((await runIds(panel)).sort());
  });

  it("shows a retried attempt: the one that timed out failed, the retry succeeded", () => {
    const attempts = g.lanes[0].spans.filter((s) => s.kind === "attempt" && s.label.startsWith("flaky"));
    expect(attempts.map((a) => [a.label, a.tone])).toEqual([
      ["flaky", "failed"],
      ["flaky retry 1", "ok"],
    ]);
    expect(attempts[0].title).toContain("timeout");
    expect(attempts[0].end_ms! - attempts[0].start_ms).toBeGreaterThanOrEqual(1000);
    const step = g.lanes[0].spans.find((s) => s.kind === "step" && s.label === "flaky")!;
    expect(step.tone).toBe("ok");
    expect(step.start_ms).toBeLessThanOrEqual(attempts[0].start_ms);
    expect(step.end_ms).toBeGreaterThanOrEqual(attempts[1].end_ms!);
  });

  it("shows the approval as a span from request to decision, with who decided", () => {
    const approval = g.lanes[0].spans.find((s) => s.kind === "approval")!;
    expect(approval).toMatchObject({ label: "gate", tone: "ok" });
    expect(approval.title).toContain(`approved by ${APPROVER}`);
    expect(approval.title).toContain("approvers: release-managers");
    expect(g.lanes[0].marks.filter((m) => m.kind === "decision").map((m) => m.label)).toEqual([`approved by ${APPROVER}`]);
  });

  it("names the failing step, its reason and the source position its error points at", () => {
    expect(g.status).toBe("failed");
    expect(g.failure).toMatchObject({ run_id: "t", step: "bad", reason: "eval_error", at: `${gate.file}:${positionOf(gate.file, "var.broken_json)")}` });
    expect(g.failure!.detail).toContain("jsondecode");
    expect(g.lanes[0].spans.find((s) => s.label === "bad")!.tone).toBe("failed");
    expect(g.lanes[0]).toMatchObject({ success: false, reason: "eval_error" });
  });

  it("marks each item of an iterating step and each body's own steps", () => {
    expect(g.lanes[0].marks.filter((m) => m.kind === "iteration").map((m) => [m.label, m.tone])).toEqual([
      ["[0] success", "ok"],
      ["[1] success", "ok"],
    ]);
    for (const l of g.lanes.slice(1)) expect(l.spans.map((s) => [s.kind, s.label, s.tone])).toEqual([["step", "say", "ok"], ["attempt", "say", "ok"]]);
  });

  it("shows channel messages: each post and the receive that took it, in the lanes of the runs that made them", () => {
    const posts = p.lanes.flatMap((l) => l.marks.filter((m) => m.kind === "post").map((m) => [l.run_id, m.label]));
    const recvs = p.lanes.flatMap((l) => l.marks.filter((m) => m.kind === "recv").map((m) => [l.run_id, m.label]));
    expect(posts.length).toBeGreaterThanOrEqual(2);
    expect(recvs.length).toBe(posts.length);
    // What one lens posted, the other received.
    for (const [run, label] of posts) {
      const [from, to] = label.split("→");
      expect(recvs.some(([r, l]) => r !== run && l === `${from}→${to}`), `${from} → ${to}`).toBe(true);
    }
    const receive = p.lanes.flatMap((l) => l.spans).find((s) => s.kind === "recv")!;
    expect(receive.tone).toBe("ok");
    expect(receive.title).toMatch(/received message \S+ from/);
  });

  it("a failure state reached by a routed outcome names the step that led there, and its reason when it failed (found by a new-user trial: the headline said only \"reached state failed\")", async () => {
    const dir = temp("criteria-timeline-fs-");
    const wf = (command: string, outcome: string) =>
      `workflow {\n  name = "fs"\n  version = "1"\n  initial_state = "check"\n  target_state = "done"\n}\nadapter "shell" "default" {}\nstep "check" {\n  target = adapter.shell.default\n  input { command = "${command}" }\n  outcome "success" { next = state.done }\n  outcome "${outcome}" { next = state.failed }\n}\nstate "done" { terminal = true }\nstate "failed" {\n  terminal = true\n  success  = false\n}\n`;
    writeFileSync(join(dir, "a.hcl"), wf("echo broke >&2; exit 2", "failure"));
    writeFileSync(join(dir, "b.hcl"), wf("echo CRITERIA_OUTCOME=reject", "reject"));
    for (const [file, run] of [["a.hcl", "fa"], ["b.hcl", "fb"]]) expect(cli(["apply", join(dir, file), "--state-dir", join(dir, "st"), "--run-id", run]).status).toBe(1);
    const a = buildTimeline(await entries(join(dir, "st"), "fa"), "fa")!;
    expect(a.failure).toMatchObject({ run_id: "fa", step: "check", reason: "adapter_failed", detail: "exit code 2: broke" });
    const b = buildTimeline(await entries(join(dir, "st"), "fb"), "fb")!;
    expect(b.failure).toMatchObject({ run_id: "fb", step: "check", reason: 'outcome "reject" led to failure state "failed"' });
  });

  it("an iterating step some of whose items failed is not drawn as one that succeeded (found by a new-user trial: green)", async () => {
    const dir = temp("criteria-timeline-items-");
    writeFileSync(join(dir, "w.hcl"), `workflow {\n  name = "it"\n  version = "1"\n  initial_state = "each"\n  target_state = "done"\n}\nadapter "shell" "default" {}\nstep "each" {\n  target = adapter.shell.default\n  for_each = ["a", "b"]\n  input { command = "test \${each.value} = a" }\n  outcome "success" { next = "_continue" }\n  outcome "failure" { next = "_continue" }\n  outcome "all_succeeded" { next = state.done }\n  outcome "any_failed" { next = state.done }\n}\nstate "done" { terminal = true }\n`);
    expect(cli(["apply", join(dir, "w.hcl"), "--state-dir", join(dir, "st"), "--run-id", "it"]).status).toBe(0);
    const t = buildTimeline(await entries(join(dir, "st"), "it"), "it")!;
    expect(t.lanes[0].spans.find((s) => s.kind === "step" && s.label === "each")!.tone).toBe("warn");
  });

  it("draws a still-active run open, and only the runs under a nested run asked for", async () => {
    const all = await entries(gate.state, gate.run);
    const cut = all.filter((e) => e.entry_type !== "run.completed" || e.run_id !== "t").filter((e) => !(e.run_id === "t" && e.step_id === "bad"));
    const open = buildTimeline(cut, "t")!;
    expect(open.status).toBe("stopped");
    expect(buildTimeline(cut, "t", { running: true })!.status).toBe("running");
    expect(open.failure).toBeUndefined();
    const nested = buildTimeline(all, "t/items#1[1]")!;
    expect(nested.lanes.map((l) => [l.run_id, l.depth])).toEqual([["t/items#1[1]", 0]]);
    expect(buildTimeline(all, "nope")).toBeUndefined();
  });
});

describe("helpers of the page", () => {
  it("finds the position a failure detail names, only for workflow files", () => {
    // The engine's errors start with the position; its path may hold spaces.
    expect(sourcePosition("/a b/my flows/main.hcl:39:21: Invalid function argument")).toBe("/a b/my flows/main.hcl:39:21");
    expect(sourcePosition("w.chcl:2:3: no value")).toBe("w.chcl:2:3");
    expect(sourcePosition("step x: see found/a.chcl:4:5")).toBe("found/a.chcl:4:5");
    expect(sourcePosition(42)).toBeUndefined();
    expect(sourcePosition("flows/x.yaml:3:9: no value")).toBe("flows/x.yaml:3:9");
    expect(sourcePosition(`expected "w.json:1:2" here`)).toBe("w.json:1:2");
    expect(sourcePosition("exit code 3")).toBeUndefined();
    expect(sourcePosition("listening on 127.0.0.1:4222")).toBeUndefined();
    expect(sourcePosition(undefined)).toBeUndefined();
  });

  it("escapes terminal control characters as the text journal does (a step's ESC codes went raw into tooltips: a new-user trial)", () => {
    expect(escapeHtml('\u001b[31mERR\u001b[0m <b> "x"\u0007\tend\n\u202e')).toBe('\u241b[31mERR\u241b[0m &lt;b&gt; &quot;x&quot;\u2407\tend\n\ufffd');
  });

  it("formats durations for people", () => {
    expect([0, 820, 4200, 12_345, 185_000, 7_440_000].map(formatDuration)).toEqual(["0 ms", "820 ms", "4.20 s", "12.3 s", "3 min 05 s", "2 h 04 min"]);
  });
});

describe("criteria journal RUN --format html", () => {
  it("writes one self-contained page: no script, no address to fetch, every journal text escaped", () => {
    const r = cli(["journal", "t", "--state-dir", gate.state, "--format", "html"]);
    expect(r.status, r.stderr).toBe(0);
    const page = r.stdout;
    expect(page.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(page).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`);
    expect(page).not.toMatch(/<script|<link|<img|https?:\/\//i);
    expect(page).toContain("approved by &lt;img src=x onerror=&quot;document.title=&#39;pwned&#39;&quot;&gt;");
    expect(page.match(/<section class="lane"/g)).toHaveLength(3);
    expect(page).toContain(`<code class="position">${gate.file}:${positionOf(gate.file, "var.broken_json)")}</code>`);
    // -o html is the same page.
    expect(cli(["journal", "t", "--state-dir", gate.state, "-o", "html"]).stdout).toBe(page);
  });

  it("refuses --follow with html, and an unknown run, each in one line", () => {
    const follow = cli(["journal", "t", "--state-dir", gate.state, "--format", "html", "--follow"]);
    expect(follow.status).toBe(2);
    expect(follow.stderr).toContain("--follow prints entries as they come");
    const none = cli(["journal", "nope", "--state-dir", gate.state, "--format", "html"]);
    expect(none.status).toBe(1);
    expect(none.stdout).toBe("");
    expect(none.stderr).toContain("no run nope");
  });

  it("draws what a damaged journal holds up to the damage, and fails saying where it is", async () => {
    const state = join(gate.state, "..", "damaged");
    mkdirSync(state, { recursive: true });
    const src = new Database(join(gate.state, "journal.db"), { readonly: true });
    await src.backup(join(state, "journal.db"));
    src.close();
    const db = new Database(join(state, "journal.db"));
    const row = db.prepare("SELECT seq, payload FROM journal WHERE entry_type = 'approval.decided'").get() as { seq: number; payload: string };
    db.prepare("UPDATE journal SET payload = ? WHERE seq = ?").run(row.payload.replace('"approved"', '"approvex"'), row.seq);
    db.close();
    const r = cli(["journal", "t", "--state-dir", state, "--format", "html"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`journal entry ${row.seq} of run t fails its checksum`);
    expect(r.stdout.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(r.stdout).toContain("approval.requested");
    expect(r.stdout).not.toContain("approval.decided");
  });
});
