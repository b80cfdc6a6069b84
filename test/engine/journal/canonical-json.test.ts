/** engine/journal/canonical-json.ts: one value, one text (keys sorted, no whitespace, undefined members dropped). */
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../../engine/journal/canonical-json.js";

describe("canonicalJson", () => {
  it("sorts keys at every depth and drops undefined members", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[3,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson({ b: undefined, a: 1 })).toBe('{"a":1}');
  });

  it("writes scalars as JSON does, and what JSON cannot hold as null", () => {
    expect(canonicalJson("a\"b\n")).toBe('"a\\"b\\n"');
    expect(canonicalJson(1.5)).toBe("1.5");
    expect(canonicalJson(-0)).toBe("0");
    expect(canonicalJson(NaN)).toBe("null");
    expect(canonicalJson(Infinity)).toBe("null");
    expect(canonicalJson(true)).toBe("true");
    expect(canonicalJson(false)).toBe("false");
    expect(canonicalJson(null)).toBe("null");
    expect(canonicalJson(undefined)).toBe("null");
    expect(canonicalJson([undefined, () => 1])).toBe("[null,null]");
  });

  it("is the same text for the same value however it was built", () => {
    const a: Record<string, unknown> = {};
    a.z = 1;
    a.y = [1, 2];
    expect(canonicalJson(a)).toBe(canonicalJson({ y: [1, 2], z: 1 }));
  });
});
