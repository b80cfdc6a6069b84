import { expect } from "vitest";
import { EvalFailure } from "../../engine/run/evaluate.js";

/** Runs `f`, expecting it to throw an EvalFailure, and returns it (fails the test otherwise). */
export function failure(f: () => unknown): EvalFailure {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(EvalFailure);
    return e as EvalFailure;
  }
  throw new Error("expected an EvalFailure");
}
