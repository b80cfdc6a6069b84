import { createHash, randomUUID } from "node:crypto";
import type { Graph } from "../../compiler/build/graph.js";
import { canonicalJson } from "../journal/canonical-json.js";

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

/** sha256 of the graph's canonical JSON (journal `run.spawned.spec_hash`). */
export function specHash(g: Graph): string {
  return sha256(canonicalJson(g));
}

/** The idempotency key of a step's work: sha256(run_id ‖ step_id ‖ iteration). */
export function idempotencyKey(runId: string, stepId: string, iteration: number | undefined): string {
  return sha256(`${runId}\u0000${stepId}\u0000${iteration ?? ""}`);
}

/** A fresh root run id: time-ordered and unique (`r-<ms base36>-<8 hex>`). */
export function newRunId(now: number): string {
  return `r-${now.toString(36)}-${randomUUID().slice(0, 8)}`;
}
