import { randomUUID } from "node:crypto";
import { request } from "node:http";
import { nats } from "./nats.js";

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
 * (`{ channel, as, from?, timeout_ms }`; it answers when a message came or the time ran out),
 * over HTTP, or over NATS when the access URL is `nats://…` (then a request that the broker
 * lost, restarting, is sent again under the same `request_id`, at once after each reconnect
 * and after each failure, until the call's deadline: 30 s for a post, the receive's
 * timeout and 30 s more for a receive).
 * @throws Error when the endpoint cannot be reached (the step's criteria process is gone)
 */
export async function callChannel(access: ChannelAccess, op: "post" | "recv", args: Record<string, unknown>): Promise<ChannelAnswer> {
  const payload = { ...args, run_id: access.runId, idempotency_key: access.key, attempt: access.attempt, request_id: randomUUID() };
  if (access.url.startsWith("nats://")) return callOverNats(access, op, payload);
  const text = JSON.stringify(payload);
  return new Promise((resolve, reject) => {
    const req = request(`${access.url}/${op}`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${access.token}`, "content-length": Buffer.byteLength(text) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: parseAnswer(Buffer.concat(chunks).toString("utf8"), res.statusCode) }));
      res.on("error", reject);
    });
    req.on("error", (e) => reject(new Error(`cannot reach the channel endpoint ${access.url}: ${e.message}`)));
    req.end(text);
  });
}

/**
 * The call over NATS request/reply, retried (same `request_id`) until its deadline: a
 * broker that is down (restarting) is waited for, and a request it lost is sent again.
 */
async function callOverNats(access: ChannelAccess, op: "post" | "recv", payload: Record<string, unknown>): Promise<ChannelAnswer> {
  const { connect } = nats();
  const u = new URL(access.url);
  const subject = `${u.pathname.replace(/^\//, "")}.${op}`;
  const deadline = Date.now() + 30_000 + (op === "recv" ? Number(payload.timeout_ms) || 0 : 0);
  // A broker that is down is waited for (it may be restarting), until the call's deadline.
  let timer: NodeJS.Timeout | undefined;
  const connecting = connect({ servers: `${u.hostname}:${u.port || 4222}`, reconnect: true, maxReconnectAttempts: -1, reconnectTimeWait: 200, waitOnFirstConnect: true, timeout: 30_000 });
  const nc = await Promise.race([
    connecting,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("no broker answered in time")), Math.max(0, deadline - Date.now())))),
  ])
    .catch((e: unknown) => {
      void connecting.then((c) => c.close()).catch(() => undefined);
      throw new Error(`cannot reach the channel endpoint ${access.url}: ${(e as Error).message}`);
    })
    .finally(() => clearTimeout(timer));
  // A request in flight when the broker went down may have been lost, or its answer may
  // have been: after every reconnect it is sent again (the endpoint answers a repeated
  // request_id with the answer it gave or will give), instead of waiting out its timeout.
  let reconnected = (): void => undefined;
  let reconnect = new Promise<"reconnected">((r) => (reconnected = () => r("reconnected")));
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type !== "reconnect") continue;
      const fire = reconnected;
      reconnect = new Promise<"reconnected">((r) => (reconnected = () => r("reconnected")));
      fire();
    }
  })().catch(() => undefined);
  try {
    let last = "";
    while (Date.now() < deadline) {
      const asked = nc.request(subject, JSON.stringify({ ...payload, token: access.token }), { timeout: Math.max(1000, deadline - Date.now()) });
      asked.catch(() => undefined);
      try {
        const m = await Promise.race([asked, reconnect]);
        if (m === "reconnected") continue;
        const a = JSON.parse(m.string()) as ChannelAnswer;
        return { status: a.status, body: a.body };
      } catch (e) {
        last = (e as Error).message;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    throw new Error(`cannot reach the channel endpoint ${access.url}: ${last || "no answer in time"}`);
  } finally {
    await nc.close().catch(() => undefined);
  }
}

/** The endpoint's JSON answer, or an error body saying it had none. */
function parseAnswer(text: string, status: number | undefined): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { error: `the channel endpoint answered ${status} with no JSON` };
  }
}
