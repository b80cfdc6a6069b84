/**
 * The agents' side of channels (the channels issue, items 1, 3 and 4), run against one
 * broker per test file (channels-agents-embedded.test.ts, channels-agents-nats.test.ts, so the
 * two SIGKILL matrices run on two of vitest's workers): agents reach the channel themselves
 * with `criteria channel post|recv`; each post and receive is an effect of the agent's step,
 * the credentials in no journaled byte; posts at once received in journal order; a NATS
 * broker down mid-run; a SIGKILL at every journal entry, then resume, delivering and
 * receiving each message once.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { assert, describe, expect, it } from "vitest";
import { compile } from "../../compiler/index.js";
import { adapterFor } from "../../engine/adapters/registry.js";
import type { JournalEntry, NewEntry } from "../../engine/journal/entry.js";
import { SqliteJournal } from "../../engine/journal/sqlite-journal.js";
import { Runner } from "../../engine/run/runner.js";
import { cli, entries, repo, start, temp } from "../pipeline/helpers.js";
import { useNats, type NatsServer } from "./nats-server.js";

/** The posts (by message id, each record) and the receives a tree's journal holds. */
export function messagesOf(en: JournalEntry[]) {
  const posts = en.filter((e): e is JournalEntry<"effect.recorded"> => e.entry_type === "effect.recorded" && (e as JournalEntry<"effect.recorded">).payload.kind === "post");
  const received = en.filter((e): e is JournalEntry<"effect.confirmed"> => e.entry_type === "effect.confirmed" && (e as JournalEntry<"effect.confirmed">).payload.received !== undefined);
  return { ids: [...new Set(posts.map((e) => e.payload.message!.id))], posts, received };
}

/**
 * Watches which appends of `journal` ask to be flushed, what each append holds (each entry
 * as `<step> <type>`, with the effect's kind (`post`, `recv`) and `received` for a
 * receive's confirmation), and the sizes of the group commits of more than one append.
 */
export function watchFlushes(journal: SqliteJournal): { flushed: string[]; unflushed: string[]; appends: string[][]; groups: number[] } {
  const seen = { flushed: [] as string[], unflushed: [] as string[], appends: [] as string[][], groups: [] as number[] };
  const label = (e: NewEntry) => {
    const p = e.payload as { kind?: string; received?: unknown };
    return `${e.step_id} ${e.entry_type}${p.kind && p.kind !== "adapter" ? ` ${p.kind}` : ""}${p.received ? " received" : ""}`;
  };
  const append = journal.append.bind(journal);
  journal.append = async (root, en, opts) => {
    (opts?.sync === false ? seen.unflushed : seen.flushed).push(...en.map(label));
    seen.appends.push(en.map(label));
    return append(root, en, opts);
  };
  // A group commit's appends are seen one by one, as the runner asked for them (one alone goes through append).
  const group = journal.appendGroup.bind(journal);
  journal.appendGroup = async (root, appends) => {
    if (appends.length > 1) {
      seen.groups.push(appends.length);
      for (const a of appends) {
        (a.opts?.sync === false ? seen.unflushed : seen.flushed).push(...a.entries.map(label));
        seen.appends.push(a.entries.map(label));
      }
    }
    return group(root, appends);
  };
  return seen;
}

/**
 * Every surface a run of `run` could show a secret on, as `[where, text]`: the apply's
 * output, `criteria journal` as text and JSON, and every file of the state directory
 * (database and write-ahead log bytes, read as latin1).
 */
function surfaces(applyOutput: string, state: string, run: string): [string, string][] {
  const places: [string, string][] = [
    ["apply -o json", applyOutput],
    ["journal", cli(["journal", run, "--state-dir", state]).stdout],
    ["journal -o json", cli(["journal", run, "--state-dir", state, "-o", "json"]).stdout],
  ];
  const walk = (d: string): void => {
    for (const f of readdirSync(d, { withFileTypes: true })) {
      if (f.isDirectory()) walk(join(d, f.name));
      else places.push([join(d, f.name), readFileSync(join(d, f.name), "latin1")]);
    }
  };
  walk(state);
  return places;
}

/**
 * Registers the agents' channel tests for `broker`: the embedded broker (the run tree's
 * journal) or a real NATS server started for the calling file (skipped, saying why, when
 * there is no `nats-server`).
 */
export function agentsSuite(broker: "embedded" | "nats"): void {
  const { skip, nats } = broker === "nats" ? useNats() : { skip: undefined, nats: (): NatsServer => assert.fail("the embedded broker's tests have no NATS server") };
  describe.skipIf(skip !== undefined)(`agents reach the channel themselves (criteria channel post|recv), ${broker} broker${skip ? ` (skipped: ${skip})` : ""}`, () => {
    /** `--broker` for this suite's runs. */
    const extra = () => (broker === "nats" ? ["--broker", nats().url] : []);
    /** Two lenses in parallel, shell agents: security posts, then waits for the answer; maintainability waits, then answers. */
    const TALK = `workflow "agents_talk" {
  version       = "1"
  initial_state = "lenses"
  target_state  = "done"
}
variable "side" { type = string }
variable "pause" {
  type    = number
  default = 0
}
agent "security" { adapter = "shell" }
agent "maintainability" { adapter = "shell" }
channel "panel" {
  participants = [agent.security, agent.maintainability]
}
step "lenses" {
  parallel = ["security", "maintainability"]
  workflow {
    initial_state = "pick"
    branch "pick" {
      arm {
        when = each.value == "security"
        next = "sec"
      }
      default { next = "mnt" }
    }
    step "sec" {
      target = agent.security
      input {
        command = "echo \\"$CRITERIA_CHANNEL_TOKEN\\" >> '\${var.side}/tokens' && echo \\"$CRITERIA_CHANNEL_URL\\" >> '\${var.side}/urls' && sleep \${var.pause} && echo \\"token=$CRITERIA_CHANNEL_TOKEN\\" && criteria channel post panel --from security --to maintainability --body 'line 42 logs a token' && criteria channel recv panel --as security --from maintainability --timeout 30s"
      }
      outcome "success" { next = "return" }
    }
    step "mnt" {
      target = agent.maintainability
      input {
        command = "criteria channel recv panel --as maintainability --timeout 30s && criteria channel post panel --from maintainability --to security --body-json '{\\"agree\\":true}'"
      }
      outcome "success" { next = "return" }
    }
  }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed"    { next = "failed" }
}
state "done" { terminal = true }
state "failed" {
  terminal = true
  success  = false
}
output "heard" { value = [for o in steps.lenses : o.stdout] }
`;
    const env = { PATH: `${join(repo, "bin")}:${process.env.PATH}` };
    const talkDir = () => {
      const dir = temp("criteria-chan-agents-");
      writeFileSync(join(dir, "main.hcl"), TALK);
      mkdirSync(join(dir, "side"));
      return dir;
    };

    it("each agent's post and receive is an effect of its step; the credentials are in no journaled byte, event or output", async () => {
      const dir = talkDir();
      const state = join(dir, "state");
      const r = cli(["apply", join(dir, "main.hcl"), "--var", `side=${join(dir, "side")}`, "--state-dir", state, "--run-id", "t", "-o", "json", ...extra()], { env });
      expect(r.status, r.stderr + r.stdout).toBe(0);
      const en = await entries(state, "t");
      const { ids, posts, received } = messagesOf(en);
      expect(posts.map((e) => [e.step_id, e.payload.message!.from, e.payload.message!.to, e.payload.message!.body])).toEqual(
        expect.arrayContaining([
          ["sec", "security", "maintainability", "line 42 logs a token"],
          ["mnt", "maintainability", "security", { agree: true }],
        ]),
      );
      expect(ids).toHaveLength(2);
      expect(received.map((e) => [e.step_id, e.payload.received!.as]).sort()).toEqual([
        ["mnt", "maintainability"],
        ["sec", "security"],
      ]);
      expect(r.stdout).toContain('\\"body\\":\\"line 42 logs a token\\"');
      expect(r.stdout).toContain('\\"body\\":{\\"agree\\":true}');
      // The token the agent saw: nowhere criteria wrote or printed (masked where the agent printed it).
      expect(readFileSync(join(dir, "side", "urls"), "utf8")).toMatch(broker === "nats" ? /^nats:\/\/127\.0\.0\.1:\d+\/criteria\.ws\.[0-9a-f]{16}\.[0-9a-f]{12}\n$/ : /^http:\/\/127\.0\.0\.1:\d+\n$/);
      const token = readFileSync(join(dir, "side", "tokens"), "utf8").trim();
      expect(token).toMatch(/^[0-9a-f]{64}$/);
      expect(r.stdout).toContain("token=***");
      const places = surfaces(r.stdout + r.stderr, state, "t");
      expect(places.some(([where]) => where.endsWith(".db"))).toBe(true);
      for (const [where, text] of places) expect(text.includes(token), `the token is in ${where}`).toBe(false);
    }, 30_000);

    it("a JSON-shaped multi-line credential and a short one, printed whole and line by line and posted: on no surface, nor any of their lines; braces and PATH not over-masked (item 6)", async () => {
      const dir = talkDir();
      const state = join(dir, "state");
      const CREDS = '{\n  "client_id": "svc-reviewer-7",\n  "client_secret": "Zq8-long-secret-value",\n  "port": 8443\n}';
      const PIN = "Q7z";
      // The security lens gets both as secret_input, prints them (whole, line by line, reformatted)
      // with ordinary braces and its PATH, and posts a line of the credential to the other lens.
      const text = readFileSync(join(dir, "main.hcl"), "utf8")
        .replace('variable "pause" {', 'variable "creds" {\n  type = string\n  secret = true\n}\nvariable "pin" {\n  type = string\n  secret = true\n}\nvariable "pause" {')
        .replace(
          "      target = agent.security\n      input {\n        command = \"",
          "      target = agent.security\n      secret_input {\n        CREDS = var.creds\n        PIN = var.pin\n      }\n      input {\n        command = \"echo \\\"$CREDS\\\" && echo \\\"$CREDS\\\" | while read -r l; do echo \\\"line: $l\\\"; done && echo \\\"pin=$PIN\\\" && echo '{' && echo '}' && echo \\\"path=$PATH\\\" && criteria channel post panel --from security --to maintainability --body \\\"$(echo \\\"$CREDS\\\" | sed -n 3p)\\\" && ",
        );
      writeFileSync(join(dir, "main.hcl"), text);
      const r = cli(["apply", join(dir, "main.hcl"), "--var", `side=${join(dir, "side")}`, "--state-dir", state, "--run-id", "t", "-o", "json", ...extra()], {
        env: { ...env, CRITERIA_VAR_creds: CREDS, CRITERIA_VAR_pin: PIN },
      });
      expect(r.status, r.stderr + r.stdout).toBe(0);
      const token = readFileSync(join(dir, "side", "tokens"), "utf8").trim();
      const places = surfaces(r.stdout + r.stderr, state, "t");
      const lines = CREDS.split("\n").map((l) => l.trim()).filter((l) => /[A-Za-z0-9]/.test(l));
      // The test's own directory is left out: its random name may hold the short PIN by chance (it did once).
      for (const [where, text] of places) {
        for (const secret of [token, CREDS, PIN, ...lines, "svc-reviewer-7", "Zq8-long-secret-value"]) expect(text.replaceAll(dir, "<dir>").includes(secret), `${JSON.stringify(secret)} is in ${where}`).toBe(false);
      }
      // What the step printed is there, masked where it held a secret and only there.
      const events = r.stdout.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as { event: string; step?: string; output?: { stdout?: string } });
      const printed = events.find((e) => e.event === "step.completed" && e.step === "sec")?.output?.stdout ?? "";
      expect(printed).toContain("pin=***");
      expect(printed).toContain("line: ***");
      expect(printed).toMatch(/^\{$/m);
      expect(printed).toMatch(/^\}$/m);
      expect(printed).toContain(`path=${env.PATH}`);
      // The posted line reached the other lens masked, as journaled.
      expect(messagesOf(await entries(state, "t")).posts.map((e) => e.payload.message!.body)).toContain("  ***");
    }, 30_000);

    it("agents posting at once to one receiver: it receives in journal order, each message once", async () => {
      const dir = temp("criteria-chan-order-agents-");
      const say = (me: string) => JSON.stringify({ steps: { [`${me}_say`]: [{ outcome: "done", channel: [{ post: { channel: "c", from: me, to: "z", body: `from ${me}` } }] }] } });
      writeFileSync(join(dir, "x.json"), say("x"));
      writeFileSync(join(dir, "y.json"), say("y"));
      const recv = { recv: { channel: "c", as: "z", timeout: "30s" } };
      writeFileSync(join(dir, "z.json"), JSON.stringify({ steps: { z_hear: [{ outcome: "done", channel: [recv, recv] }] } }));
      const agent = (n: string) => `agent "${n}" {\n  adapter = "local"\n  config { script = "./${n}.json" }\n}\n`;
      writeFileSync(
        join(dir, "main.hcl"),
        `workflow "order_agents" {\n  version = "1"\n  initial_state = "fan"\n  target_state = "done"\n}\n${agent("x")}${agent("y")}${agent("z")}channel "c" {\n  participants = [agent.x, agent.y, agent.z]\n}
step "fan" {
  parallel = ["x", "y"]
  workflow {
    initial_state = "pick"
    branch "pick" {
      arm {
        when = each.value == "x"
        next = "x_say"
      }
      default { next = "y_say" }
    }
    step "x_say" {
      target = agent.x
      outcome "done" { next = "return" }
    }
    step "y_say" {
      target = agent.y
      outcome "done" { next = "return" }
    }
  }
  outcome "all_succeeded" { next = "z_hear" }
  outcome "any_failed" { next = "done" }
}
step "z_hear" {
  target = agent.z
  outcome "done" { next = "done" }
}
state "done" { terminal = true }
output "heard" { value = [for m in steps.z_hear.received : m.body] }
`,
      );
      const c = await compile(join(dir, "main.hcl"));
      expect(c.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      const journal = new SqliteJournal(join(dir, "state"));
      const flushes = watchFlushes(journal);
      const end = await new Runner({ journal, adapterFor, baseDir: dir, pollMs: 20, broker: broker === "nats" ? nats().url : undefined }).start(c.graph!, {}, "o");
      const en = (await journal.read("o")).entries;
      await journal.close();
      const order = messagesOf(en).posts.map((e) => e.payload.message!.body as string);
      expect(order.slice().sort()).toEqual(["from x", "from y"]);
      expect(end).toMatchObject({ state: "done", outputs: { heard: order } });
      expect(messagesOf(en).received).toHaveLength(2);
      // An agent acts on the endpoint's answer at once: its post's record and its receive's confirmation are flushed.
      expect(flushes.flushed).toEqual(expect.arrayContaining(["x_say effect.recorded post", "y_say effect.recorded post", "z_hear effect.confirmed received", "z_hear effect.confirmed received"]));
      expect(flushes.unflushed.filter((l) => / post$| received$/.test(l))).toEqual([]);
    });

    if (broker === "nats") {
      it("the broker down for 3 s mid-run: the waiting receive and a post made while it was down go through, each message journaled and received once", async () => {
        const dir = talkDir();
        const state = join(dir, "state");
        // Security sleeps 2 s before posting: maintainability waits in its receive meanwhile.
        const child = start(["apply", join(dir, "main.hcl"), "--var", `side=${join(dir, "side")}`, "--var", "pause=2", "--state-dir", state, "--run-id", "t", ...extra()], { env });
        let out = "";
        child.stdout.on("data", (d: Buffer) => (out += d.toString()));
        child.stderr.on("data", (d: Buffer) => (out += d.toString()));
        const exit = new Promise<number | null>((r) => child.once("exit", r));
        for (let i = 0; i < 100 && !existsSync(join(dir, "side", "urls")); i++) await new Promise((r) => setTimeout(r, 50));
        // Down from before security's post until after it: its criteria channel post waits for the broker.
        await new Promise((r) => setTimeout(r, 300));
        await nats().restart(3000);
        expect(await exit, out).toBe(0);
        const { ids, received } = messagesOf(await entries(state, "t"));
        expect(ids).toHaveLength(2);
        expect(received.map((e) => e.payload.received!.id).sort()).toEqual([...ids].sort());
      }, 60_000);
    }

    it("a SIGKILL at every journal entry, then resume: each agent's message is delivered once and received once", async () => {
      const dir = talkDir();
      const side = `side=${join(dir, "side")}`;
      const ref = join(dir, "ref");
      expect(cli(["apply", join(dir, "main.hcl"), "--var", side, "--state-dir", ref, "--run-id", "t", ...extra()], { env }).status).toBe(0);
      const total = (await entries(ref, "t")).length;
      // Every other entry (the items interleave differently in each run anyway), and the last ones.
      for (let n = 2; n < total; n += n < total - 6 ? 2 : 1) {
        const state = join(dir, `k${n}`);
        const killed = cli(["apply", join(dir, "main.hcl"), "--var", side, "--state-dir", state, "--run-id", "t", ...extra()], { env: { ...env, CRITERIA_FAULT_KILL_AFTER_SEQ: String(n) } });
        expect(killed.signal, `kill point ${n}: ${killed.stderr}`).toBe("SIGKILL");
        const resumed = cli(["resume", "t", "--state-dir", state, "-o", "json", ...extra()], { env });
        expect(resumed.status, `kill point ${n}: ${resumed.stderr}`).toBe(0);
        const en = await entries(state, "t");
        const { ids, received } = messagesOf(en);
        expect(ids, `kill point ${n}: one message each way`).toHaveLength(2);
        const took = received.map((e) => e.payload.received!.id);
        expect([...took].sort(), `kill point ${n}: each received once`).toEqual([...ids].sort());
        // What each agent printed, in the run's outputs, is what it received.
        const end = en.find((e): e is JournalEntry<"run.completed"> => e.entry_type === "run.completed" && e.run_id === "t");
        const heard = (end?.payload.outputs.heard as string[] | undefined)?.join("\n") ?? "";
        expect(heard, `kill point ${n}`).toContain('"body":"line 42 logs a token"');
        expect(heard, `kill point ${n}`).toContain('"body":{"agree":true}');
      }
    }, 180_000);
  });
}
