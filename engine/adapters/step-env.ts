import type { StepRequest } from "./adapter.js";

/**
 * The environment of a process that executes a step (shell commands, agent CLIs), built in
 * this order, later entries winning: the base environment (normally `process.env`) without
 * criteria's own inputs ({@link inheritedEnv}), the session config's `env` map, the step's
 * `req.env`, then the `CRITERIA_*` variables below.
 *
 * - `CRITERIA_RUN_ID`, `CRITERIA_STEP`, `CRITERIA_ATTEMPT` (1-based), `CRITERIA_IDEMPOTENCY_KEY`
 * - when the step runs for an iteration item (`req.each`): `CRITERIA_ITERATION_INDEX`
 *   (0-based), `CRITERIA_ITERATION_TOTAL`, `CRITERIA_EACH_KEY` and `CRITERIA_EACH_VALUE`
 *   (strings as they are, other values as JSON). When not iterating these four are removed,
 *   so a criteria run started from a step never sees its parent's values.
 */
export function stepEnv(
  base: NodeJS.ProcessEnv,
  configEnv: Record<string, string> | undefined,
  req: StepRequest,
): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...inheritedEnv(base), ...configEnv, ...req.env };
  env.CRITERIA_RUN_ID = req.run_id;
  env.CRITERIA_STEP = req.step;
  env.CRITERIA_ATTEMPT = String(req.attempt);
  env.CRITERIA_IDEMPOTENCY_KEY = req.idempotency_key;
  const iterating = ["CRITERIA_ITERATION_INDEX", "CRITERIA_ITERATION_TOTAL", "CRITERIA_EACH_KEY", "CRITERIA_EACH_VALUE"];
  for (const k of iterating) delete env[k];
  if (req.each) {
    env.CRITERIA_ITERATION_INDEX = String(req.each.index);
    env.CRITERIA_ITERATION_TOTAL = String(req.each.total);
    env.CRITERIA_EACH_KEY = typeof req.each.key === "string" ? req.each.key : JSON.stringify(req.each.key);
    env.CRITERIA_EACH_VALUE = typeof req.each.value === "string" ? req.each.value : JSON.stringify(req.each.value);
  }
  return env;
}

/**
 * What a process criteria starts for a step or an adapter inherits of criteria's own
 * environment: all of it but the variables' values given as `CRITERIA_VAR_<name>` (a secret
 * variable's among them: docs/language.md, Secrets, a step sees a secret only through
 * `secret_input` or `secrets`; found by a new-user trial: every step's process could read,
 * and print reversed past the masking, a secret it was never given). A step reads a
 * variable through its `input`, `environment` or `secret_input`.
 */
export function inheritedEnv(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(base)) if (!k.startsWith("CRITERIA_VAR_")) out[k] = v;
  return out;
}
