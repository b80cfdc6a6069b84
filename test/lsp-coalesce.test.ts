/**
 * The language server under fast typing (cli/lsp/server.ts, `schedule`): changes that come
 * while a document is being checked are checked once, at their latest version, when that
 * check ends (found by a new-user trial: a key held down in a 300-step YAML file queued a
 * compile per keystroke, and diagnostics fell 21 s behind). Counted through the standard
 * `$/logTrace` of each check (the client asks for `trace: "verbose"`), not timed.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { expect, it } from "vitest";
import {
  createProtocolConnection,
  DidChangeTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  InitializeRequest,
  InitializedNotification,
  LogTraceNotification,
  PublishDiagnosticsNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  type Diagnostic,
} from "vscode-languageserver-protocol/node.js";
import { bin } from "./pipeline/helpers.js";

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
  const proc = spawn(process.execPath, [bin, "lsp", "--stdio"], { stdio: ["pipe", "pipe", "inherit"], env: { ...process.env, CRITERIA_LSP_WARM_UP: "0" } });
  const conn = createProtocolConnection(new StreamMessageReader(proc.stdout!), new StreamMessageWriter(proc.stdin!));
  const traces: string[] = [];
  const published: Diagnostic[][] = [];
  conn.onNotification(LogTraceNotification.type, (p) => traces.push(p.message));
  conn.onNotification(PublishDiagnosticsNotification.type, (p) => void (p.uri === uri && published.push(p.diagnostics)));
  conn.listen();
  const until = async (what: string, ok: () => boolean) => {
    for (let i = 0; i < 1200 && !ok(); i++) await new Promise((r) => setTimeout(r, 25));
    if (!ok()) throw new Error(`waited 30 s for ${what}; traces: ${JSON.stringify(traces)}`);
  };
  try {
    await conn.sendRequest(InitializeRequest.type, { processId: process.pid, rootUri: pathToFileURL(dir).href, capabilities: {}, workspaceFolders: null, trace: "verbose" });
    await conn.sendNotification(InitializedNotification.type, {});
    await conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: "yaml", version: 1, text } });
    await until("the open's diagnostics", () => published.length >= 1);
    expect(published[0]).toEqual([]);
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
    await until("the last version's diagnostics", () => published.some((d) => d.some((x) => x.message.includes("s6xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxz"))));
    await until("the last version's check", () => traces.some((t) => t.includes(" at version 41 ")));
    const checks = traces.slice(opened).filter((t) => t.startsWith(`criteria: checked ${uri} `));
    // One per keystroke before: 40.
    expect(checks.length).toBeLessThan(10);
    expect(checks.at(-1)).toContain(" at version 41 ");
  } finally {
    await conn.sendRequest(ShutdownRequest.type).catch(() => undefined);
    await conn.sendNotification(ExitNotification.type).catch(() => undefined);
    conn.dispose();
    proc.kill();
  }
}, 60_000);
