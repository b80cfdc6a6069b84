/**
 * compiler/diagnostics/did-you-mean.ts: a suggestion is a plausible typo of the name, never a
 * name that merely shares a letter or two with it.
 */
import { describe, expect, it } from "vitest";
import { closestName } from "../../compiler/diagnostics/did-you-mean.js";

describe("closestName", () => {
  it("suggests a name one or two edits away", () => {
    expect(closestName("idx", ["index", "tags"])).toBe("index");
    expect(closestName("text", ["set"])).toBe("set");
    expect(closestName("reviewr", ["reviewer", "review_loop"])).toBe("reviewer");
  });

  it("does not suggest a short name three edits away (a new-user trial: --var bogus was asked whether it meant tags)", () => {
    expect(closestName("bogus", ["tags"])).toBeUndefined();
    expect(closestName("restart", ["fail", "respawn", "abort_run"])).toBeUndefined();
    // Nor a name that keeps one letter of it (a trial: --var rgn was asked whether it meant n).
    expect(closestName("rgn", ["n", "region", "s", "tags"])).toBeUndefined();
  });

  it("allows three edits in a name of eight characters or more", () => {
    expect(closestName("max_visitz_x", ["max_visits"])).toBe("max_visits");
  });
});
