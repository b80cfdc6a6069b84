/**
 * The language server under fast typing (cli/lsp/server.ts, `schedule`): changes that come
 * while a document is being checked are checked once, at their latest version, when that
 * check ends (found by a new-user trial: a key held down in a 300-step YAML file queued a
 * compile per keystroke, and diagnostics fell 21 s behind). Counted through the standard
 * `$/logTrace` of each check (the client asks for `trace: "verbose"`), not timed.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { expect, it } from "vitest";
import { DidChangeTextDocumentNotification, DidOpenTextDocumentNotification } from "vscode-languageserver-protocol/node.js";
import { startLsp } from "./lsp-client.js";

/** A YAML workflow of `n` steps, each going to the next. */
function yamlSteps(n: number): string {
  const out = ["workflow:", "  name: typing", '  version: "1"', "  initial_state: s0", "  target_state: done", "adapters:", "  shell.default: {}", "steps:"];
  for (let i = 0; i < n; i++) out.push(`  s${i}:`, "    target: adapter.shell.default", "    input:", `      command: echo ${i}`, "    outcomes:", `      success: { next: ${i + 1 < n ? `s${i + 1}` : "done"} }`);
  out.push("states:", "  done:", "    terminal: true", "");
  return out.join("\n");
}

it("40 changes sent at once to a 300-step YAML file are checked a few times, the last at the latest version, whose diagnostics are published", async () => {
  const dir = mkdtempSync(join(tmpdir(), "criteria-lsp-typing-"));
  const file = join(dir, "w.yaml");
  const text = yamlSteps(300);
  writeFileSync(file, text);
  const uri = pathToFileURL(file).href;
  const lsp = await startLsp(dir, { env: { CRITERIA_LSP_WARM_UP: "0" }, trace: "verbose" });
  const { conn, traces, until } = lsp;
  const published = () => lsp.published.filter((p) => p.uri === uri).map((p) => p.diagnostics);
  try {
    await conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: "yaml", version: 1, text } });
    await until("the open's diagnostics", () => published().length >= 1, 30);
    expect(published()[0]).toEqual([]);
    const opened = traces.length;
    expect(traces.at(-1)).toMatch(new RegExp(`^criteria: checked ${uri.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} at version 1 in \\d+ ms$`));
    // 40 keystrokes into step s5's command, sent without waiting: the last one names a node
    // no step has, so its diagnostics can be told from every earlier version's.
    const at = text.indexOf("next: s6") + "next: s6".length;
    for (let k = 1; k <= 40; k++) {
      const range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
      const line = text.slice(0, at).split("\n").length - 1;
      const col = at - text.lastIndexOf("\n", at - 1) - 1;
      range.start = range.end = { line, character: col + k - 1 };
      await conn.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version: 1 + k }, contentChanges: [{ range, text: k === 40 ? "z" : "x" }] });
    }
    await until("the last version's diagnostics", () => published().some((d) => d.some((x) => x.message.includes("s6xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxz"))), 30);
    await until("the last version's check", () => traces.some((t) => t.includes(" at version 41 ")), 30);
    const checks = traces.slice(opened).filter((t) => t.startsWith(`criteria: checked ${uri} `));
    // One per keystroke before: 40.
    expect(checks.length).toBeLessThan(10);
    expect(checks.at(-1)).toContain(" at version 41 ");
  } finally {
    await lsp.stop();
  }
}, 60_000);
