/**
 * What a worker lets graphile-worker say (engine/worker/queue-voice.ts), through graphile-worker's
 * own Logger: the messages are those a 4 s restart of the database made it print (a new-user trial).
 */
import { createRequire } from "node:module";
import { afterEach, expect, it, vi } from "vitest";
import { queueVoice } from "../../../engine/worker/queue-voice.js";

const gw = createRequire(import.meta.url)("graphile-worker") as typeof import("graphile-worker");

afterEach(() => void vi.useRealTimers());

it("a lost connection is one line, whatever the queue's clients say; other errors in the outage are left out; after it, errors are said again, each once in 10 s, first line only", () => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(1_000_000);
  const lines: string[] = [];
  const pool = {};
  const voice = queueVoice(pool, (l) => void lines.push(l));
  expect(queueVoice(pool)).toBe(voice); // one per pool: install and start share it
  const log = voice.logger(gw).scope({});
  log.error("PostgreSQL active client generated error: Connection terminated unexpectedly");
  log.error("PostgreSQL idle client generated error: Connection terminated unexpectedly");
  log.error("Error with notify listener (trying again in 135ms): Connection terminated unexpectedly");
  log.error("Error occurred attempting to UNLISTEN: Error: Client has encountered a connection error and is not queryable");
  voice.say("Error: connect ENOENT /tmp/crt-x/criteria-pg-y/.s.PGSQL.5432"); // console.trace of a dying queue worker
  log.error("Failed to reset locked; we'll try again in 488779ms");
  log.info("Worker connected and looking for jobs");
  expect(lines).toEqual(["criteria worker: queue: lost its database connection (Connection terminated unexpectedly); reconnecting\n"]);
  vi.setSystemTime(1_000_000 + 31_000);
  log.error("Task failed\n    at stack (frame.js:1:1)");
  log.error("Task failed\n    at stack (frame.js:1:1)");
  vi.setSystemTime(1_000_000 + 42_000);
  log.error("Task failed");
  log.error("Worker 12 committing seppuku");
  expect(lines.slice(1)).toEqual(["criteria worker: queue: Task failed\n", "criteria worker: queue: Task failed\n", "criteria worker: queue: lost its database connection (a queue worker stopped); reconnecting\n"]);
});
