import { request } from "node:http";

/**
 * The client side of the channel endpoint (engine/channels/endpoint.ts), for a process
 * that runs in a step with channel access: `criteria channel post|recv` and the `local`
 * adapter. It reads who it is from the step's environment.
 */

/** A step's channel access, from its environment. */
export interface ChannelAccess {
  url: string;
  token: string;
  runId: string;
  key: string;
  attempt: number;
  channels: string[];
}

/**
 * Reads a step's channel access from `env`.
 * @returns undefined when the step has none (no `CRITERIA_CHANNEL_URL`), with why
 */
export function channelAccess(env: Record<string, string | undefined>): ChannelAccess | { missing: string } {
  const url = env.CRITERIA_CHANNEL_URL;
  const token = env.CRITERIA_CHANNEL_TOKEN;
  if (!url || !token) return { missing: "CRITERIA_CHANNEL_URL is not set: channels are reached from inside a criteria step whose agent takes part in a channel" };
  const runId = env.CRITERIA_RUN_ID;
  const key = env.CRITERIA_IDEMPOTENCY_KEY;
  const attempt = Number(env.CRITERIA_ATTEMPT);
  if (!runId || !key || !Number.isInteger(attempt)) return { missing: "CRITERIA_RUN_ID, CRITERIA_IDEMPOTENCY_KEY or CRITERIA_ATTEMPT is not set" };
  return { url, token, runId, key, attempt, channels: (env.CRITERIA_CHANNELS ?? "").split(",").filter(Boolean) };
}

/** The endpoint's answer: its status and JSON body. */
export interface ChannelAnswer {
  status: number;
  body: Record<string, unknown>;
}

/**
 * Calls the endpoint: `post` (`{ channel, from, to, body }`) or `recv`
 * (`{ channel, as, from?, timeout_ms }`; it answers when a message came or the time ran out).
 * @throws Error when the endpoint cannot be reached (the step's criteria process is gone)
 */
export function callChannel(access: ChannelAccess, op: "post" | "recv", args: Record<string, unknown>): Promise<ChannelAnswer> {
  const payload = JSON.stringify({ ...args, run_id: access.runId, idempotency_key: access.key, attempt: access.attempt });
  return new Promise((resolve, reject) => {
    const req = request(`${access.url}/${op}`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${access.token}`, "content-length": Buffer.byteLength(payload) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        let body: Record<string, unknown>;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
        } catch {
          body = { error: `the channel endpoint answered ${res.statusCode} with no JSON` };
        }
        resolve({ status: res.statusCode ?? 0, body });
      });
      res.on("error", reject);
    });
    req.on("error", (e) => reject(new Error(`cannot reach the channel endpoint ${access.url}: ${e.message}`)));
    req.end(payload);
  });
}
