/**
 * The agents' channel client over NATS (engine/channels/client.ts) against a real
 * `nats-server` that restarts under it: a request whose answer the broker lost is sent
 * again once the client has reconnected, under the same request_id, instead of waiting
 * out its 30 s deadline (a CI run hung on this: the receive of an agent waited for an
 * answer that the restarting broker had dropped).
 */
import { describe, expect, it } from "vitest";
import { callChannel } from "../../engine/channels/client.js";
import { nats as natsClient } from "../../engine/channels/nats.js";
import { useNats } from "./nats-server.js";

const { skip, nats } = useNats();

describe.skipIf(skip)("criteria channel calls over NATS", () => {
  it("a request whose answer was lost is sent again after the broker restarts, with the same request_id", async () => {
    const server = nats();
    const subject = "criteria.ws.t.client";
    const u = new URL(server.url);
    const responder = await natsClient().connect({ servers: `${u.hostname}:${u.port}`, reconnect: true, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    const seen: string[] = [];
    let first!: () => void;
    const firstSeen = new Promise<void>((r) => (first = r));
    // The endpoint's stand-in: it loses its first answer (as a broker going down would) and gives the next.
    responder.subscribe(`${subject}.post`, {
      callback: (_err, msg) => {
        const body = JSON.parse(msg.string()) as { request_id: string };
        seen.push(body.request_id);
        if (seen.length === 1) return first();
        msg.respond(JSON.stringify({ status: 200, body: { id: "m1" } }));
      },
    });
    await responder.flush();
    try {
      const access = { url: `${server.url}/${subject}`, token: "t", runId: "t", key: "k", attempt: 1, channels: ["c"] };
      const call = callChannel(access, "post", { channel: "c", from: "a", to: "b", body: "hi" });
      await firstSeen;
      await server.restart(300);
      // Well inside the call's own 30 s deadline: without the resend it would wait it out.
      const answer = await call;
      expect(answer).toEqual({ status: 200, body: { id: "m1" } });
      expect(seen.length).toBeGreaterThanOrEqual(2);
      expect(new Set(seen).size).toBe(1);
    } finally {
      await responder.close();
    }
  }, 20_000);
});
