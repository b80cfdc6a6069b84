import { hasErrors, type Diagnostic } from "../diagnostics/diagnostic.js";
import { checkAdapterFields } from "./check-adapter-fields.js";
import { checkAdapterUse } from "./check-adapter-use.js";
import { checkBodies } from "./check-bodies.js";
import { checkCalls } from "./check-calls.js";
import { checkChannels } from "./check-channels.js";
import { checkEnvironments } from "./check-environments.js";
import { checkExits } from "./check-exits.js";
import { checkReturnKeyReads } from "./check-return-key-reads.js";
import { checkReturnOutputs } from "./check-return-outputs.js";
import { checkHeader } from "./check-header.js";
import { checkIterationTypes } from "./check-iteration-types.js";
import { checkLiteralTypes } from "./check-literal-types.js";
import { checkLocals } from "./check-locals.js";
import { checkLoops } from "./check-loops.js";
import { checkNodeShapes } from "./check-node-shapes.js";
import { checkOutcomes } from "./check-outcomes.js";
import { checkReachability } from "./check-reachability.js";
import { checkReservedTargets } from "./check-reserved-targets.js";
import { checkSecrets } from "./check-secrets.js";
import { checkStates } from "./check-states.js";
import { checkStepFields } from "./check-step-fields.js";
import { checkStepReads } from "./check-step-reads.js";
import { checkTemplateKinds } from "./check-template-kinds.js";
import { checkUnused } from "./check-unused.js";
import type { Check, CheckContext } from "./context.js";

/**
 * Every check, in order: the table of contents of what `criteria validate` verifies
 * beyond shape and names (actionlint's rule list). Each lives in its own file.
 */
export const CHECKS: readonly Check[] = [
  checkHeader,
  checkBodies,
  checkReservedTargets,
  checkOutcomes,
  checkNodeShapes,
  checkStepFields,
  checkLocals,
  checkEnvironments,
  checkSecrets,
  checkStates,
  checkReachability,
  checkExits,
  checkReturnOutputs,
  checkLoops,
  checkLiteralTypes,
  checkIterationTypes,
  checkTemplateKinds,
  checkAdapterUse,
  checkAdapterFields,
  checkCalls,
  checkChannels,
  checkUnused,
  checkStepReads,
  checkReturnKeyReads,
];

/**
 * Runs every check; diagnostics are sorted later, once, by the caller.
 * @param errorsSoFar true when earlier stages found errors (skips `onlyWhenValid` checks)
 */
export function runChecks(ctx: CheckContext, errorsSoFar: boolean): Diagnostic[] {
  const out = CHECKS.filter((c) => !c.onlyWhenValid).flatMap((c) => c.run(ctx));
  if (errorsSoFar || hasErrors(out)) return out;
  return [...out, ...CHECKS.filter((c) => c.onlyWhenValid).flatMap((c) => c.run(ctx))];
}
