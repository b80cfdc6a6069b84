import type { Adapter, Session, StepRequest, StepResult } from "./adapter.js";
import { NOOP_FIELDS } from "../../compiler/resolve/adapter-fields.js";
import { ConfigError, readField } from "./config.js";
import { abortReason, adapterError, failed, reasonFor, toObjectValue } from "./result.js";

/**
 * The `noop` adapter: does nothing and succeeds, for markers, tests and dry runs.
 *
 * - outcome: `input.result` (a string) when given, else `success`; `input.fail = true` forces
 *   `failure` with reason `adapter_failed` (an outcome named `failure` always carries that
 *   reason, whichever way it was chosen). A `result` that is not a string or a `fail` that is
 *   not a bool is an `adapter_error` (`NOOP_FIELDS`, compiler/resolve/adapter-fields.ts, which
 *   validate checks literals against). Other input keys are only echoed.
 * - output: a copy of the input, so `steps.<name>.<key>` reads back what the step was given.
 * - an already-aborted `req.signal` gives reason `cancelled` (or `timeout`).
 * - effectful = false: the runner journals the attempt and its completion together.
 * - session config: ignored.
 */
export const noopAdapter: Adapter = {
  type: "noop",
  effectful: false,
  stateless: true,
  async open(): Promise<Session> {
    return {
      execute: async (req) => executeNoop(req),
      close: async () => {},
    };
  },
};

/** One noop execution (exported for tests and for the runner's dry runs). */
export function executeNoop(req: StepRequest): StepResult {
  const output = toObjectValue(req.input);
  if (req.signal.aborted) return failed(abortReason(req.signal), "the step was aborted before it started", output);
  let outcome: string;
  try {
    outcome = readField(req.input, NOOP_FIELDS.input, "fail", "input") === true ? "failure" : (readField(req.input, NOOP_FIELDS.input, "result", "input") ?? "success");
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return adapterError(`noop: ${e.message}`, output);
  }
  const reason = reasonFor(outcome);
  return reason === "ok" ? { outcome, output, reason } : { outcome, output, reason, detail: "noop: failure requested by the step's input" };
}
