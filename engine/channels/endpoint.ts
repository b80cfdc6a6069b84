import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Value } from "../../compiler/expr/value.js";

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
 * Environment of a step with channel access (read by engine/channels/client.ts):
 * `CRITERIA_CHANNEL_URL`, `CRITERIA_CHANNEL_TOKEN`, `CRITERIA_CHANNELS` (the channel names,
 * comma-separated), beside `CRITERIA_RUN_ID`, `CRITERIA_IDEMPOTENCY_KEY`, `CRITERIA_ATTEMPT`.
 */

/** What the endpoint asks of the runner for one admitted step attempt. */
export interface ChannelCaller {
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
}

/** The largest request body accepted (a message body included), in bytes. */
const MAX_BODY = 1 << 20;

/** The channel endpoint of one criteria process. Start with {@link ChannelEndpoint.start}. */
export class ChannelEndpoint {
  private readonly key = randomBytes(32);
  private readonly callers = new Map<string, { caller: ChannelCaller; posts: number; recvs: number }>();

  private constructor(
    private readonly server: Server,
    /** `http://127.0.0.1:<port>` */
    readonly url: string,
  ) {}

  /**
   * Listens on 127.0.0.1, an ephemeral port.
   * @throws Error when no port can be bound
   */
  static async start(): Promise<ChannelEndpoint> {
    let endpoint: ChannelEndpoint | undefined;
    const server = createServer((req, res) => void endpoint!.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    server.unref();
    endpoint = new ChannelEndpoint(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return endpoint;
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
    this.callers.set(id, { caller, posts: 0, recvs: 0 });
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
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const reply = (status: number, body: Record<string, unknown>) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    try {
      if (req.method !== "POST" || (req.url !== "/post" && req.url !== "/recv")) return reply(404, { error: "use POST /post or POST /recv" });
      const b = await readBody(req);
      if (!b) return reply(400, { error: "the request is not a JSON object (or larger than 1 MiB)" });
      const runId = b.run_id;
      const key = b.idempotency_key;
      const attempt = Number(b.attempt);
      if (typeof runId !== "string" || typeof key !== "string" || !Number.isInteger(attempt)) return reply(400, { error: "the request does not name its step (run_id, idempotency_key, attempt)" });
      const given = Buffer.from(String(req.headers.authorization ?? "").replace(/^Bearer /, ""), "utf8");
      const want = Buffer.from(this.token(runId, key, attempt), "utf8");
      if (given.length !== want.length || !timingSafeEqual(given, want)) return reply(401, { error: "the credentials are not this step's" });
      const entry = this.callers.get(`${runId}\u0000${key}\u0000${attempt}`);
      if (!entry) return reply(409, { error: "this step attempt is not running (it ended, or criteria stopped it)" });
      const channel = b.channel;
      const participants = typeof channel === "string" ? entry.caller.channels.get(channel) : undefined;
      if (!participants) return reply(403, { error: `this step may use channel${entry.caller.channels.size > 1 ? "s" : ""} ${[...entry.caller.channels.keys()].join(", ")}, not ${JSON.stringify(channel)}` });
      const who = (field: string, v: unknown, optional = false): string | undefined => {
        if (v === undefined && optional) return undefined;
        if (typeof v !== "string" || !participants.includes(v)) throw new BadCall(`${field} ${JSON.stringify(v)} is not a participant of channel "${channel as string}" (${participants.join(", ")})`);
        return v;
      };
      if (req.url === "/post") {
        const op = { from: who("from", b.from)!, to: who("to", b.to)!, body: (b.body ?? null) as Value };
        return reply(200, await entry.caller.post(channel as string, op, ++entry.posts));
      }
      const timeoutMs = Number(b.timeout_ms);
      if (!(timeoutMs > 0)) return reply(400, { error: "a recv needs timeout_ms, a positive number" });
      const r = await entry.caller.recv(channel as string, { as: who("as", b.as)!, from: who("from", b.from, true), timeoutMs }, ++entry.recvs);
      return reply(200, r.outcome === "timeout" ? { timeout: true } : r.output);
    } catch (e) {
      if (e instanceof BadCall) return reply(400, { error: e.message });
      return reply(500, { error: (e as Error).message });
    }
  }
}

/** A request the endpoint refuses (400). */
class BadCall extends Error {}

/** The request's JSON object body; undefined when it is not one or is too large. */
async function readBody(req: IncomingMessage): Promise<CallBody | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > MAX_BODY) return undefined;
    chunks.push(c);
  }
  try {
    const v = JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
    return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as CallBody) : undefined;
  } catch {
    return undefined;
  }
}
