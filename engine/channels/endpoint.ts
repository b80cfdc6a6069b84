import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { NatsConnection } from "@nats-io/transport-node";
import type { Value } from "../../compiler/expr/value.js";
import { nats } from "./nats.js";

/**
 * The per-run channel endpoint (the channels issue, item 1): how agents running in a
 * run's steps reach its channels themselves (`criteria channel post|recv`, the `local`
 * adapter's script). An HTTP server on 127.0.0.1 (an ephemeral port) in the criteria
 * process that runs the steps; it exists while that process runs the run and is closed
 * when it stops (a parked or interrupted run has no live agent to serve).
 *
 * Credentials: each step attempt given channel access gets a token, an HMAC-SHA256 of
 * (run id, step idempotency key, attempt) under a key this process drew at random and
 * never writes anywhere; it is derived again for every attempt (a resumed run's steps get
 * fresh ones), passed in the step's environment only, and registered as a secret (masked
 * wherever criteria records or shows anything). A request names its step and carries its
 * token; the endpoint serves only steps that are running now, on the channels their agent
 * takes part in.
 *
 * With a NATS broker (`--broker nats://host:port`, for agents on other machines), the
 * endpoint also answers NATS requests on `criteria.ws.<workspace>.<endpoint>.post|recv`,
 * where the workspace comes from the run id (sha256, deterministic) and the endpoint part
 * is this process's; the broker is transport only (every message is journaled here, so a
 * broker restarted mid-run loses nothing: the clients retry, and a retried request, named
 * by its `request_id`, gets the answer the first one got).
 *
 * Environment of a step with channel access (read by engine/channels/client.ts):
 * `CRITERIA_CHANNEL_URL` (`http://127.0.0.1:<port>`, or `nats://host:port/<subject>`),
 * `CRITERIA_CHANNEL_TOKEN`, `CRITERIA_CHANNELS` (the channel names, comma-separated),
 * beside `CRITERIA_RUN_ID`, `CRITERIA_IDEMPOTENCY_KEY`, `CRITERIA_ATTEMPT`.
 */

/** What the endpoint asks of the runner for one admitted step attempt. */
export interface ChannelCaller {
  /** The step's agent: it posts and receives as itself only. */
  agent: string;
  /** The channels this step may use, with their participants. */
  channels: Map<string, string[]>;
  post(channel: string, op: { from: string; to: string; body: Value }, n: number): Promise<Record<string, Value>>;
  recv(channel: string, op: { as: string; from?: string; timeoutMs: number }, n: number): Promise<{ outcome: "received" | "timeout"; output: Record<string, Value> }>;
}

/** A request's body: the step that calls, and the operation. */
interface CallBody {
  run_id?: unknown;
  idempotency_key?: unknown;
  attempt?: unknown;
  channel?: unknown;
  from?: unknown;
  to?: unknown;
  as?: unknown;
  body?: unknown;
  timeout_ms?: unknown;
  /** Names a request, so a retried one (after a broker restart) gets the same answer. */
  request_id?: unknown;
  /** The step's token, when the transport has no header for it (NATS). */
  token?: unknown;
}

/** An answer: an HTTP-like status and a JSON body. */
interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** The largest request body accepted (a message body included), in bytes. */
const MAX_BODY = 1 << 20;

/**
 * The largest message body, as JSON, in bytes: the same for every way of posting, and well
 * under a NATS server's default 1 MiB payload (a received message travels back in one reply).
 */
export const MAX_MESSAGE_BYTES = 256 * 1024;

/** The channel endpoint of one criteria process. Start with {@link ChannelEndpoint.start}. */
export class ChannelEndpoint {
  private readonly key = randomBytes(32);
  private readonly callers = new Map<string, { caller: ChannelCaller; posts: number; recvs: number; answers: Map<string, Promise<Answer>> }>();
  private nats?: NatsConnection;

  private constructor(
    private readonly server: Server,
    /** What agents are given: `http://127.0.0.1:<port>`, or `nats://host:port/<subject>`. */
    public url: string,
  ) {}

  /**
   * Listens on 127.0.0.1, an ephemeral port; with `broker`, also on the NATS broker (it
   * reconnects by itself after a broker restart).
   * @param workspace the run's workspace key (a subject part; from the run id)
   * @throws Error when no port can be bound or the broker cannot be reached
   */
  static async start(opts: { broker?: string; workspace?: string } = {}): Promise<ChannelEndpoint> {
    let endpoint: ChannelEndpoint | undefined;
    const server = createServer((req, res) => void endpoint!.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    server.unref();
    endpoint = new ChannelEndpoint(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    if (opts.broker) {
      try {
        await endpoint.listenOnNats(opts.broker, `criteria.ws.${opts.workspace ?? "run"}.${randomBytes(6).toString("hex")}`);
      } catch (e) {
        await endpoint.close();
        throw e;
      }
    }
    return endpoint;
  }

  /** Answers NATS requests on `<subject>.post` and `<subject>.recv`. */
  private async listenOnNats(broker: string, subject: string): Promise<void> {
    const { connect } = nats();
    const u = new URL(broker);
    const nc = await connect({ servers: `${u.hostname}:${u.port || 4222}`, reconnect: true, maxReconnectAttempts: -1, reconnectTimeWait: 200, name: "criteria" });
    this.nats = nc;
    for (const op of ["post", "recv"] as const) {
      nc.subscribe(`${subject}.${op}`, {
        callback: (err, msg) => {
          if (err) return;
          let body: CallBody | undefined;
          try {
            const v = JSON.parse(msg.string()) as unknown;
            body = v !== null && typeof v === "object" && !Array.isArray(v) ? (v as CallBody) : undefined;
          } catch {
            body = undefined;
          }
          void this.serve(op, body, String(body?.token ?? "")).then((a) => {
            try {
              msg.respond(JSON.stringify(a));
            } catch {
              // the connection dropped: the client retries with the same request_id
            }
          });
        },
      });
    }
    await nc.flush();
    this.url = `nats://${u.hostname}:${u.port || 4222}/${subject}`;
  }

  /** The token of a step attempt: an HMAC of who it is, under this process's key. */
  private token(runId: string, key: string, attempt: number): string {
    return createHmac("sha256", this.key).update(`${runId}\u0000${key}\u0000${attempt}`).digest("hex");
  }

  /**
   * Admits a step attempt: the environment to give its processes (the token among it), and
   * `release` to call when the attempt has returned (its token is refused from then on).
   */
  admit(runId: string, key: string, attempt: number, caller: ChannelCaller): { env: Record<string, string>; token: string; release(): void } {
    const id = `${runId}\u0000${key}\u0000${attempt}`;
    this.callers.set(id, { caller, posts: 0, recvs: 0, answers: new Map() });
    const token = this.token(runId, key, attempt);
    return {
      token,
      env: { CRITERIA_CHANNEL_URL: this.url, CRITERIA_CHANNEL_TOKEN: token, CRITERIA_CHANNELS: [...caller.channels.keys()].join(",") },
      release: () => void this.callers.delete(id),
    };
  }

  /** Stops listening; requests in flight are answered, new ones refused. */
  async close(): Promise<void> {
    this.callers.clear();
    await this.nats?.close().catch(() => undefined);
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const op = req.url === "/post" ? "post" : req.url === "/recv" ? "recv" : undefined;
    const a: Answer = req.method !== "POST" || !op ? { status: 404, body: { error: "use POST /post or POST /recv" } } : await this.serve(op, await readBody(req), String(req.headers.authorization ?? "").replace(/^Bearer /, ""));
    res.writeHead(a.status, { "content-type": "application/json" });
    res.end(JSON.stringify(a.body));
  }

  /** Serves one call, whatever transport brought it: checks the step and its token, then posts or receives. */
  private async serve(op: "post" | "recv", b: CallBody | "too large" | undefined, token: string): Promise<Answer> {
    const reply = (status: number, body: Record<string, unknown>): Answer => ({ status, body });
    if (b === "too large") return reply(413, { error: `the request is larger than ${MAX_BODY / 1024 / 1024} MiB (a message is at most ${MAX_MESSAGE_BYTES / 1024} KiB)` });
    if (!b) return reply(400, { error: "the request is not a JSON object" });
    const runId = b.run_id;
    const key = b.idempotency_key;
    const attempt = typeof b.attempt === "number" ? b.attempt : NaN;
    if (typeof runId !== "string" || typeof key !== "string" || !Number.isInteger(attempt)) return reply(400, { error: "the request does not name its step (run_id, idempotency_key, attempt)" });
    const given = Buffer.from(token, "utf8");
    const want = Buffer.from(this.token(runId, key, attempt), "utf8");
    if (given.length !== want.length || !timingSafeEqual(given, want)) return reply(401, { error: "the credentials are not this step's" });
    const entry = this.callers.get(`${runId}\u0000${key}\u0000${attempt}`);
    if (!entry) return reply(409, { error: "this step attempt is not running (it ended, or criteria stopped it)" });
    // A retried request (the broker restarted before its answer came) gets the same answer.
    const rid = typeof b.request_id === "string" ? `${op}:${b.request_id}` : undefined;
    const earlier = rid ? entry.answers.get(rid) : undefined;
    if (earlier) return earlier;
    const answer = this.perform(op, b, entry);
    if (rid) entry.answers.set(rid, answer);
    return answer;
  }

  /** The post or receive itself, for an admitted step. */
  private async perform(op: "post" | "recv", b: CallBody, entry: { caller: ChannelCaller; posts: number; recvs: number }): Promise<Answer> {
    try {
      const channel = b.channel;
      const participants = typeof channel === "string" ? entry.caller.channels.get(channel) : undefined;
      if (!participants) return { status: 403, body: { error: `this step may use channel${entry.caller.channels.size > 1 ? "s" : ""} ${[...entry.caller.channels.keys()].join(", ")}, not ${JSON.stringify(channel)}` } };
      const who = (field: string, v: unknown, optional = false): string | undefined => {
        if (v === undefined && optional) return undefined;
        if (typeof v !== "string" || !participants.includes(v)) throw new BadCall(`${field} ${JSON.stringify(v)} is not a participant of channel "${channel as string}" (${participants.join(", ")})`);
        return v;
      };
      // A step speaks for its own agent: its credentials are its agent's (found by a trial: an
      // agent posted as another participant and took another's messages).
      const self = (field: string, v: unknown): string => {
        const name = v === undefined ? entry.caller.agent : v;
        if (name !== entry.caller.agent) throw new BadCall(`${field} ${JSON.stringify(v)}: this step's agent is "${entry.caller.agent}", and it ${field === "from" ? "posts" : "receives"} as itself only`);
        return entry.caller.agent;
      };
      if (op === "post") {
        const body = (b.body ?? null) as Value;
        const size = Buffer.byteLength(JSON.stringify(body));
        if (size > MAX_MESSAGE_BYTES) return { status: 400, body: { error: `the message is ${size} bytes of JSON; a message is at most ${MAX_MESSAGE_BYTES} (${MAX_MESSAGE_BYTES / 1024} KiB)` } };
        const args = { from: self("from", b.from), to: who("to", b.to)!, body };
        return { status: 200, body: await entry.caller.post(channel as string, args, ++entry.posts) };
      }
      const timeoutMs = Number(b.timeout_ms);
      if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs)) return { status: 400, body: { error: "a recv needs timeout_ms, a positive number of milliseconds" } };
      const args = { as: self("as", b.as), from: who("from", b.from, true), timeoutMs };
      const r = await entry.caller.recv(channel as string, args, ++entry.recvs);
      return { status: 200, body: r.outcome === "timeout" ? { timeout: true } : r.output };
    } catch (e) {
      if (e instanceof BadCall) return { status: 400, body: { error: e.message } };
      return { status: 500, body: { error: (e as Error).message } };
    }
  }
}

/** A request the endpoint refuses (400). */
class BadCall extends Error {}

/** The request's JSON object body; "too large" past {@link MAX_BODY}; undefined when it is not an object. */
async function readBody(req: IncomingMessage): Promise<CallBody | "too large" | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > MAX_BODY) return "too large";
    chunks.push(c);
  }
  try {
    const v = JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
    return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as CallBody) : undefined;
  } catch {
    return undefined;
  }
}
