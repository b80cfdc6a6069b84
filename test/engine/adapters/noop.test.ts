import { describe, expect, it } from "vitest";
import { noopAdapter } from "../../../engine/adapters/noop.js";
import { context, request } from "./helpers.js";

describe("noop adapter", () => {
  const open = () => noopAdapter.open({}, context("/tmp"));

  it("is not effectful", () => {
    expect(noopAdapter.effectful).toBe(false);
    expect(noopAdapter.type).toBe("noop");
  });

  it("succeeds and echoes its input as output", async () => {
    const s = await open();
    const r = await s.execute(request({ input: { label: "SRC/CLI.TS", n: 2, nested: { a: [1, "x"] } } }));
    expect(r).toEqual({ outcome: "success", output: { label: "SRC/CLI.TS", n: 2, nested: { a: [1, "x"] } }, reason: "ok" });
  });

  it("takes the outcome from input.result; a result that is not a string is an adapter_error (NOOP_FIELDS), not a silent success", async () => {
    const s = await open();
    expect((await s.execute(request({ input: { result: "approved" } }))).outcome).toBe("approved");
    expect(await s.execute(request({ input: { result: 3 } }))).toEqual({ outcome: "failure", output: { result: 3 }, reason: "adapter_error", detail: "noop: input.result: expected a string, got number 3" });
  });

  it("fails with adapter_failed when input.fail = true", async () => {
    const s = await open();
    const r = await s.execute(request({ input: { fail: true, result: "approved" } }));
    expect(r.outcome).toBe("failure");
    expect(r.reason).toBe("adapter_failed");
    expect(r.detail).toBeTruthy();
    expect(await s.execute(request({ input: { fail: "yes" } }))).toMatchObject({ reason: "adapter_error", detail: 'noop: input.fail: expected true or false, got string "yes"' });
  });

  it("reports cancelled for an already-aborted request", async () => {
    const s = await open();
    const ctl = new AbortController();
    ctl.abort();
    expect((await s.execute(request({ signal: ctl.signal }))).reason).toBe("cancelled");
    expect((await s.execute(request({ signal: AbortSignal.abort(new DOMException("t", "TimeoutError")) }))).reason).toBe("timeout");
  });

  it("keeps __proto__ keys as plain data", async () => {
    const s = await open();
    const input = JSON.parse('{"__proto__": {"polluted": true}}');
    const r = await s.execute(request({ input }));
    expect(Object.keys(r.output)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
