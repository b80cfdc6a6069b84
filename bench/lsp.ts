/**
 * Language server benchmark (the issue "See and edit": goal p99 < 50 ms): `criteria lsp`
 * started as an editor starts it (the built CLI over stdio, a real LSP client), a
 * 500-step HCL workflow opened, then edited `edits` times (one character of a step's
 * input each time, as typing does); each figure is the time from the change to the
 * diagnostics the server publishes for it. Prints figures; asserts nothing (LSP_TIMES=1
 * also prints each edit's time, in order: the first edits after opening show the JIT warming).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  createProtocolConnection,
  DidChangeTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  InitializeRequest,
  InitializedNotification,
  PublishDiagnosticsNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
} from "vscode-languageserver-protocol/node.js";
import { chainHcl } from "./generate.js";
import { fmt, printTable, progress, verdict, type Verdict } from "./report.js";
import { percentile } from "./stats.js";

/** Figures of the language server benchmark. */
export interface LspReport {
  steps: number;
  edits: number;
  p50_ms: number;
  p99_ms: number;
  verdict: Verdict;
}

/** Runs the benchmark against the built CLI under `root`. */
export async function lspBench(root: string, quick: boolean): Promise<LspReport> {
  const steps = 500;
  const edits = quick ? 20 : 60;
  progress(`lsp: diagnostics after each of ${edits} edits of a ${steps}-step file`);
  const dir = mkdtempSync(join(tmpdir(), "criteria-bench-lsp-"));
  const file = join(dir, "chain.hcl");
  const text = chainHcl(steps);
  writeFileSync(file, text);
  const proc = spawn(process.execPath, [join(root, "bin", "criteria"), "lsp", "--stdio"], { stdio: ["pipe", "pipe", "ignore"] });
  const conn = createProtocolConnection(new StreamMessageReader(proc.stdout), new StreamMessageWriter(proc.stdin));
  let waiter: (() => void) | undefined;
  conn.onNotification(PublishDiagnosticsNotification.type, () => waiter?.());
  conn.listen();
  const uri = pathToFileURL(file).href;
  const published = () => new Promise<void>((r) => (waiter = r));
  try {
    await conn.sendRequest(InitializeRequest.type, { processId: process.pid, rootUri: pathToFileURL(dir).href, capabilities: {}, workspaceFolders: null });
    await conn.sendNotification(InitializedNotification.type, {});
    let version = 1;
    let next = published();
    await conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: "hcl", version, text } });
    await next;
    const times: number[] = [];
    // A quoted string of the file, edited in place: the text's length stays the same.
    const at = text.indexOf('"', text.indexOf("command")) + 1;
    const line = text.slice(0, at).split("\n").length - 1;
    const character = at - text.lastIndexOf("\n", at - 1) - 1;
    for (let i = 0; i < edits; i++) {
      next = published();
      const t = performance.now();
      await conn.sendNotification(DidChangeTextDocumentNotification.type, {
        textDocument: { uri, version: ++version },
        contentChanges: [{ range: { start: { line, character }, end: { line, character: character + 1 } }, text: String.fromCharCode(97 + (i % 26)) }],
      });
      await next;
      times.push(performance.now() - t);
    }
    const p50 = percentile(times, 50);
    const p99 = percentile(times, 99);
    if (process.env.LSP_TIMES) console.error(times.map((t) => t.toFixed(0)).join(" "));
    const report: LspReport = { steps, edits, p50_ms: p50, p99_ms: p99, verdict: verdict(p99, 50, true) };
    printTable(`Language server (criteria lsp over stdio, a ${steps}-step HCL file)`, ["figure", "value", "goal", "verdict"], [
      ["diagnostics after an edit, p50", `${fmt(p50)} ms`, "", ""],
      ["diagnostics after an edit, p99", `${fmt(p99)} ms`, "< 50 ms", report.verdict],
    ]);
    return report;
  } finally {
    await conn.sendRequest(ShutdownRequest.type).catch(() => undefined);
    await conn.sendNotification(ExitNotification.type).catch(() => undefined);
    conn.dispose();
    proc.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}
