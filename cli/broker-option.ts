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
  const bad = () => new CliError(`--broker ${b}: a NATS server's URL, nats://host:port (port 1-65535; no user, password or path)`, EXIT.usage);
  let u: URL;
  try {
    u = new URL(b);
  } catch {
    throw bad();
  }
  const port = u.port === "" ? 4222 : Number(u.port);
  if (u.protocol !== "nats:" || !u.hostname || u.username || u.password || (u.pathname !== "" && u.pathname !== "/") || u.search || u.hash || !(port >= 1 && port <= 65535)) throw bad();
  return `nats://${u.hostname}:${port}`;
}
