import type { Logger } from "graphile-worker";

/**
 * What graphile-worker says when its connections to the database are lost (a restart, an
 * outage): `Connection terminated unexpectedly` from each pooled client, its listener's
 * failed UNLISTEN and reconnects (`connect ENOENT` on a Unix socket, `ECONNREFUSED`), the
 * server's own farewells (57P01, 57P03), a queue worker giving up ("seppuku").
 */
const CONNECTION_LOST = /Connection terminated[\w ]*|connect (?:ENOENT|ECONNREFUSED)|ECONNRESET|not queryable|terminating connection due to administrator command|the database system is (?:shutting down|starting up|in recovery)|seppuku/i;

/** How long after its last word on a lost connection the queue's other errors count as the same outage, ms. */
const OUTAGE_MS = 30_000;

/** The same other error is said at most once in this long, ms. */
const REPEAT_MS = 10_000;

/**
 * What a worker lets graphile-worker say (the worker reports what it does as run events):
 * errors only, each as its first line (no stack traces), the same one at most once in 10 s;
 * a lost connection, however many of the queue's clients say so and in whatever words, one
 * line, after which nothing else is said until 30 s pass without another (a new-user trial:
 * a 4 s restart of the database printed six lines of the queue's own, then a seventh from
 * its housekeeping).
 */
export interface QueueVoice {
  /** Says (or not) one message of the queue's. */
  say(message: string): void;
  /** graphile-worker's `logger` option, saying its errors through {@link QueueVoice.say}. */
  logger(gw: typeof import("graphile-worker")): Logger;
}

/**
 * One voice per queue pool, so that the error listeners graphile-worker puts on the pool (at
 * install, and again at each start) share what was said.
 * @param pool the pool graphile-worker is given (any object: the key)
 * @param write where lines go (standard error); used when the pool's voice is first made
 * @param who the program that speaks, each line's prefix: `criteria worker`, or `criteria` for
 *   `apply --detach` and `resume --detach`, which install the queue (a trial's `apply --detach`
 *   said "criteria worker: queue: …" when the server restarted under it); set when first made
 */
export function queueVoice(pool: object, write: (line: string) => void = (l) => void process.stderr.write(l), who = "criteria worker"): QueueVoice {
  let voice = voices.get(pool);
  if (!voice) voices.set(pool, (voice = makeVoice(write, who)));
  return voice;
}

const voices = new WeakMap<object, QueueVoice>();

function makeVoice(write: (line: string) => void, who: string): QueueVoice {
  const said = new Map<string, number>();
  let logger: Logger | undefined;
  const voice: QueueVoice = {
    say(message) {
      const now = Date.now();
      const lost = CONNECTION_LOST.exec(message)?.[0];
      const outage = (said.get("connection") ?? 0) > now - OUTAGE_MS;
      if (lost !== undefined) {
        said.set("connection", now);
        if (!outage) write(`${who}: queue: lost its database connection (${/seppuku/i.test(lost) ? "a queue worker stopped" : lost}); reconnecting\n`);
        return;
      }
      // Within an outage, what else fails is the outage too (housekeeping: "Failed to reset locked").
      if (outage) return;
      const line = message.split("\n")[0].slice(0, 300);
      const key = line.replace(/\d+/g, "#");
      if ((said.get(key) ?? 0) > now - REPEAT_MS) return;
      said.set(key, now);
      write(`${who}: queue: ${line}\n`);
    },
    logger(gw) {
      return (logger ??= new gw.Logger(() => (level, message) => (level === "error" ? voice.say(message) : undefined)));
    },
  };
  return voice;
}
