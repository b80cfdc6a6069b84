/**
 * A real language client for the tests of `criteria lsp` (lsp*.test.ts): the built CLI
 * started over stdio, a JSON-RPC connection to it (`vscode-languageserver-protocol`),
 * initialized with a root folder, with what the server publishes, logs and traces kept.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { pathToFileURL } from "node:url";
import {
  createProtocolConnection,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  LogMessageNotification,
  LogTraceNotification,
  PublishDiagnosticsNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  type Diagnostic,
  type InitializeResult,
  type ProtocolConnection,
} from "vscode-languageserver-protocol/node.js";
import { bin } from "./pipeline/helpers.js";

/** A running server and what it said; `stop()` shuts it down (shutdown, exit, then a kill). */
export interface LspClient {
  proc: ChildProcess;
  conn: ProtocolConnection;
  init: InitializeResult;
  /** Every publishDiagnostics notification, in order. */
  published: { uri: string; diagnostics: Diagnostic[] }[];
  /** `window/logMessage` texts. */
  logs: string[];
  /** `$/logTrace` texts (sent when `trace` is "verbose"). */
  traces: string[];
  /** Waits (polling every 25 ms) until `ok()`, else throws after `seconds`, naming `what` and the logs and traces. */
  until(what: string, ok: () => boolean, seconds?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts `criteria lsp --stdio` with `env` added to this process's environment, and
 * initializes it with `root` as its folder (`trace` passed as the client's trace setting).
 * @throws whatever the initialize request fails with
 */
export async function startLsp(root: string, opts: { env?: Record<string, string>; trace?: "off" | "messages" | "verbose" } = {}): Promise<LspClient> {
  const proc = spawn(process.execPath, [bin, "lsp", "--stdio"], { stdio: ["pipe", "pipe", "inherit"], env: { ...process.env, ...opts.env } });
  const conn = createProtocolConnection(new StreamMessageReader(proc.stdout!), new StreamMessageWriter(proc.stdin!));
  const published: LspClient["published"] = [];
  const logs: string[] = [];
  const traces: string[] = [];
  conn.onNotification(PublishDiagnosticsNotification.type, (p) => void published.push({ uri: p.uri, diagnostics: p.diagnostics }));
  conn.onNotification(LogMessageNotification.type, (p) => void logs.push(p.message));
  conn.onNotification(LogTraceNotification.type, (p) => void traces.push(p.message));
  conn.listen();
  const init = await conn.sendRequest(InitializeRequest.type, { processId: process.pid, rootUri: pathToFileURL(root).href, capabilities: {}, workspaceFolders: null, ...(opts.trace ? { trace: opts.trace } : {}) });
  await conn.sendNotification(InitializedNotification.type, {});
  return {
    proc,
    conn,
    init,
    published,
    logs,
    traces,
    async until(what, ok, seconds = 15) {
      for (let i = 0; i < seconds * 40 && !ok(); i++) await new Promise((r) => setTimeout(r, 25));
      if (!ok()) throw new Error(`waited ${seconds} s for ${what}; logs: ${JSON.stringify(logs)}; traces: ${JSON.stringify(traces)}`);
    },
    async stop() {
      await conn.sendRequest(ShutdownRequest.type).catch(() => undefined);
      await conn.sendNotification(ExitNotification.type).catch(() => undefined);
      conn.dispose();
      proc.kill();
    },
  };
}
