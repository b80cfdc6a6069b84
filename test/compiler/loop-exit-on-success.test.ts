/**
 * `loop_exit_on_success` (compiler/check/check-outcomes.ts): the usual success/failure pair
 * copied onto an iterating step that routes all_succeeded warns (testdata/invalid/
 * warn_loop_exit_on_success.hcl, golden); a search for the first success (its failure goes
 * on to the next item) and a while loop polling until it succeeds do not (found by a
 * new-user trial: both warned, and the hint's "remove all_succeeded" was an error).
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compile } from "../../compiler/index.js";

const testdata = join(import.meta.dirname, "..", "..", "testdata");
const codes = async (path: string) => (await compile(path)).diagnostics.map((d) => d.code);

describe("loop_exit_on_success", () => {
  it("warns of a for_each whose success and failure both leave the loop", async () => {
    expect(await codes(join(testdata, "invalid", "warn_loop_exit_on_success.hcl"))).toEqual(["loop_exit_on_success"]);
  });
  it("is silent for a first-success search and a while poll", async () => {
    expect(await codes(join(testdata, "ok", "first_success_search.hcl"))).toEqual([]);
  });
});
