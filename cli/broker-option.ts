import { CliError, EXIT } from "./io.js";

/** The help text of `--broker` (apply, resume, worker). */
export const BROKER_HELP = "a NATS broker (nats://host:port; or $CRITERIA_BROKER) through which agents on other machines reach the run's channels";

/**
 * The NATS broker of `--broker`, else `CRITERIA_BROKER` (the channels issue, item 7).
 * @returns undefined when neither is given
 * @throws CliError (usage) for anything but `nats://host:port`
 */
export function brokerOf(given: string | undefined, env: Record<string, string | undefined>): string | undefined {
  const b = given ?? env.CRITERIA_BROKER;
  if (b === undefined || b === "") return undefined;
  if (!/^nats:\/\/[^/\s]+$/.test(b)) throw new CliError(`--broker ${b}: a NATS server's URL, nats://host:port`, EXIT.usage);
  return b;
}
