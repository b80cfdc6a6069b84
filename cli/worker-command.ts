import { Option, type Command } from "commander";
import type { RunEvent } from "../engine/index.js";
import { BROKER_HELP, brokerOf } from "./broker-option.js";
import { CliError, EXIT, type Io } from "./io.js";
import { placeName, placeOf, storeFlag } from "./journal-place.js";
import { renderEvent } from "./render-events.js";
import { engine } from "./run-session.js";

/**
 * Registers `criteria worker` (the scale-out issue, item 3; engine/worker/worker.ts): advances the runs
 * of a PostgreSQL journal until SIGINT or SIGTERM, then stops its runs where they stand (journaled),
 * hands them back to the queue and exits 0 with a summary line. Exit 2 without a store, 1
 * when the store cannot be opened.
 */
export function registerWorkerCommand(program: Command, io: Io, setCode: (c: number) => void): void {
  program
    .command("worker")
    .description("advance the runs of a PostgreSQL journal (submitted with apply --detach, or woken by signals, approvals and timers) until stopped")
    // Not STORE_HELP: a worker has no SQLite journal to fall back on (a new-user trial read that it had).
    .option("--store <url>", "the PostgreSQL journal the workers share, postgres://… (default: $CRITERIA_STORE; one of them is required)")
    .option("--state-dir <dir>", "local state: the orphan-process files of the steps this worker runs")
    .option("--concurrency <n>", "runs advanced at once", "4")
    .option("--broker <url>", BROKER_HELP)
    .addOption(new Option("-o, --output <format>", "text or json (NDJSON events)").choices(["text", "json"]).default("text"))
    .action(async (opts: { store?: string; stateDir?: string; concurrency: string; output: string; broker?: string }) => {
      const place = placeOf(opts, io);
      if (!place.store) throw new CliError("criteria worker needs a PostgreSQL journal: --store postgres://… (or CRITERIA_STORE)", EXIT.usage);
      const concurrency = /^\d+$/.test(opts.concurrency) ? Number(opts.concurrency) : NaN;
      if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256) throw new CliError(`--concurrency ${opts.concurrency}: a whole number from 1 to 256`, EXIT.usage);
      const { runWorker, JournalError } = await engine();
      const stop = new AbortController();
      const names = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
      const onSignal = () => stop.abort();
      for (const n of names) process.on(n, onSignal);
      const start = Date.now();
      // Said once: masking the store URL's password on every event took ~4 % of a worker's CPU.
      const flag = storeFlag(place);
      const events = (e: RunEvent) => {
        if (opts.output === "json") io.out(JSON.stringify(e) + "\n");
        else {
          const line = e.event === "worker.note" ? `criteria worker: ${e.message}` : renderEvent(e, start, flag);
          if (line) io.out(line + "\n");
        }
      };
      try {
        const onReady = () => (opts.output !== "json" ? io.out(`criteria worker: advancing runs of ${placeName(place)} (${concurrency} at once); Ctrl-C stops\n`) : undefined);
        const r = await runWorker({ store: place.store, stateDir: place.stateDir, concurrency, events, signal: stop.signal, onReady, broker: brokerOf(opts.broker, io.env) });
        const line = `criteria worker: stopped: ${r.advanced} advanced, ${r.busy} found busy, ${r.fenced} fenced, ${r.swept} swept`;
        io.out(opts.output === "json" ? JSON.stringify({ event: "exit", code: 0, status: "stopped", ...r }) + "\n" : line + "\n");
        setCode(EXIT.ok);
      } catch (e) {
        if (e instanceof JournalError) throw new CliError(e.message);
        throw e;
      } finally {
        for (const n of names) process.off(n, onSignal);
      }
    });
}
