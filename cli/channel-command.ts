import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { parseDuration } from "../compiler/decode/durations.js";
import { CliError, EXIT, type Io } from "./io.js";

/**
 * Registers `criteria channel post|recv` (the channels issue, item 1): what an agent running
 * in a step uses to reach the run's channels itself. It talks to the channel endpoint of
 * the criteria process running the step (engine/channels/endpoint.ts), named with the
 * credentials in its environment; every post and receive is journaled there as an effect
 * of the step. Prints the answer as one JSON object on stdout; a post an earlier attempt
 * of the step already made is not made again (`"replayed": true`), and when its body
 * differs (`"body_dropped": true`) stderr says the first one stands.
 *
 * Exit codes: 0 posted / received; 1 a receive timed out (`{"timeout":true}`) or the
 * endpoint refused the call (its reason on stderr); 2 usage (outside a step with channel
 * access, a bad flag).
 */
export function registerChannelCommand(program: Command, io: Io, setCode: (c: number) => void): void {
  const channel = program.command("channel").description("post or receive a message on a channel of the run, from inside a step whose agent takes part in it");

  const call = async (op: "post" | "recv", args: Record<string, unknown>) => {
    // Loaded when called: its node:http and node:crypto cost every other command's start ~10 ms.
    const { callChannel, channelAccess } = await import("../engine/channels/client.js");
    const access = channelAccess(io.env);
    if ("missing" in access) throw new CliError(`criteria channel ${op}: ${access.missing}`, EXIT.usage);
    const answer = await callChannel(access, op, args).catch((e: unknown) => {
      throw new CliError(`criteria channel ${op}: ${(e as Error).message}`);
    });
    if (answer.status !== 200) throw new CliError(`criteria channel ${op}: ${String(answer.body.error ?? `the endpoint answered ${answer.status}`)}`);
    io.out(JSON.stringify(answer.body) + "\n");
    if (answer.body.body_dropped === true) {
      io.err(`criteria channel post: message ${String(answer.body.id)} was posted by an earlier attempt of this step (it was stopped or crashed); that post stands, delivered once, and this different body was not sent\n`);
    }
    setCode(answer.body.timeout === true ? EXIT.problems : EXIT.ok);
  };

  channel
    .command("post")
    .description("post a message (journaled as an effect of this step; posted again when the step runs again, it is the same message)")
    .argument("<channel>", "the channel's name")
    .option("--from <participant>", "who posts: this step's agent (the default; a step posts as its own agent only)")
    .requiredOption("--to <participant>", "who it is for (a participant: an agent's name)")
    .option("--body <text>", "the message, as text")
    .option("--body-json <json>", "the message, as a JSON value")
    .option("--body-file <path>", "the message, the text of a file (- for stdin; for messages too long for a command line)")
    .action(async (name: string, opts: { from?: string; to: string; body?: string; bodyJson?: string; bodyFile?: string }) => {
      const given = [opts.body, opts.bodyJson, opts.bodyFile].filter((x) => x !== undefined).length;
      if (given !== 1) throw new CliError("criteria channel post: give the message with one of --body TEXT, --body-json JSON, --body-file PATH", EXIT.usage);
      let body: unknown = opts.body;
      if (opts.bodyJson !== undefined) {
        try {
          body = JSON.parse(opts.bodyJson);
        } catch {
          throw new CliError("criteria channel post: --body-json is not JSON", EXIT.usage);
        }
      }
      if (opts.bodyFile !== undefined) {
        try {
          body = readFileSync(opts.bodyFile === "-" ? 0 : opts.bodyFile, "utf8");
        } catch (e) {
          throw new CliError(`criteria channel post: cannot read --body-file ${opts.bodyFile}: ${(e as Error).message}`, EXIT.usage);
        }
      }
      await call("post", { channel: name, ...(opts.from ? { from: opts.from } : {}), to: opts.to, body });
    });

  channel
    .command("recv")
    .description("wait for the next message to a participant (journaled; when the step runs again, the same message again)")
    .argument("<channel>", "the channel's name")
    .option("--as <participant>", "who receives: this step's agent (the default; a step receives as its own agent only)")
    .option("--from <participant>", "only a message from this participant")
    .requiredOption("--timeout <duration>", 'how long to wait, e.g. "30s" or "5m" (then exit 1 with {"timeout":true})')
    .action(async (name: string, opts: { as?: string; from?: string; timeout: string }) => {
      const ms = parseDuration(opts.timeout);
      if (ms === undefined || ms <= 0) throw new CliError(`criteria channel recv: --timeout ${opts.timeout} is not a duration such as "30s" or "5m"`, EXIT.usage);
      await call("recv", { channel: name, ...(opts.as ? { as: opts.as } : {}), ...(opts.from ? { from: opts.from } : {}), timeout_ms: ms });
    });
}
