import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ProcessAdapter } from "../../../engine/adapters/process-adapter.js";
import { adapterFor, BUILT_IN_TYPES, isBuiltIn } from "../../../engine/adapters/registry.js";
import { context, request } from "./helpers.js";

describe("adapter registry", () => {
  it("knows the built-in types", () => {
    for (const t of ["noop", "shell", "local", "claude", "copilot", "codex"]) expect(isBuiltIn(t)).toBe(true);
    expect(isBuiltIn("echo")).toBe(false);
    expect(isBuiltIn("constructor")).toBe(false);
    expect([...BUILT_IN_TYPES]).toHaveLength(6);
  });

  it("returns adapters of the right type and effect", () => {
    const effect = Object.fromEntries(BUILT_IN_TYPES.map((t) => [t, adapterFor(t).effectful]));
    expect(effect).toEqual({ noop: false, shell: true, local: false, claude: true, copilot: true, codex: true });
    for (const t of BUILT_IN_TYPES) expect(adapterFor(t).type).toBe(t);
  });

  it("serves any other type with a process adapter", () => {
    const a = adapterFor("echo");
    expect(a).toBeInstanceOf(ProcessAdapter);
    expect(a.type).toBe("echo");
    expect(a.effectful).toBe(true);
  });

  it("returns the same instance per type without options, fresh ones with options", () => {
    expect(adapterFor("shell")).toBe(adapterFor("shell"));
    expect(adapterFor("echo")).toBe(adapterFor("echo"));
    expect(adapterFor("shell", { killGraceMs: 10 })).not.toBe(adapterFor("shell"));
  });

  it("runs the example adapter found next to the workflow", async () => {
    const base = join(import.meta.dirname, "..", "..", "..", "examples", "custom_adapter");
    const s = await adapterFor("echo", { onStderr: () => {} }).open({}, context(base));
    try {
      expect((await s.execute(request({ input: { name: "registry" } }))).output.message).toBe("Hello, registry!");
    } finally {
      await s.close();
    }
  });
});
