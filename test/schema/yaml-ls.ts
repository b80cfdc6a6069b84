/**
 * A real `yaml-language-server` (the server behind VS Code's YAML extension, 1.25) over
 * stdio, driven by a real LSP client (`vscode-languageserver-protocol`): what an editor
 * using schema/workflow.schema.json shows. The schema is associated with every `*.yaml`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import {
  CompletionRequest,
  createProtocolConnection,
  DidChangeConfigurationNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  HoverRequest,
  InitializeRequest,
  InitializedNotification,
  PublishDiagnosticsNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  type CompletionItem,
  type CompletionList,
  type Diagnostic,
  type Hover,
  type ProtocolConnection,
} from "vscode-languageserver-protocol/node.js";

/** A running server with its connection. */
export interface YamlServer {
  /** Opens `text` as the file `path` and resolves with the diagnostics the server publishes for it. */
  diagnostics(path: string, text: string): Promise<Diagnostic[]>;
  /** Hover at a 0-based line and character of an opened file. */
  hover(path: string, line: number, character: number): Promise<Hover | null>;
  /** Completion at a 0-based line and character of an opened file. */
  completion(path: string, line: number, character: number): Promise<CompletionItem[]>;
  stop(): Promise<void>;
}

/** Starts the server with the schema associated with every YAML file. */
export async function startYamlServer(schemaFile: string, rootDir: string): Promise<YamlServer> {
  const bin = createRequire(import.meta.url).resolve("yaml-language-server/bin/yaml-language-server");
  const proc: ChildProcess = spawn(process.execPath, [bin, "--stdio"], { stdio: ["pipe", "pipe", "ignore"] });
  const conn: ProtocolConnection = createProtocolConnection(new StreamMessageReader(proc.stdout!), new StreamMessageWriter(proc.stdin!));
  const waiting = new Map<string, (d: Diagnostic[]) => void>();
  conn.onNotification(PublishDiagnosticsNotification.type, (p) => waiting.get(p.uri)?.(p.diagnostics));
  conn.onRequest("workspace/configuration", (p: { items: { section?: string }[] }) => p.items.map((i) => (i.section === "yaml" ? settings : null)));
  conn.listen();
  const schemaUri = pathToFileURL(schemaFile).href;
  const settings = { validate: true, hover: true, completion: true, schemas: { [schemaUri]: ["*.yaml", "*.yml"] }, schemaStore: { enable: false } };
  await conn.sendRequest(InitializeRequest.type, {
    processId: process.pid,
    rootUri: pathToFileURL(rootDir).href,
    capabilities: { workspace: { configuration: true }, textDocument: { hover: { contentFormat: ["markdown", "plaintext"] }, completion: { completionItem: { documentationFormat: ["markdown", "plaintext"] } } } },
    workspaceFolders: null,
  });
  await conn.sendNotification(InitializedNotification.type, {});
  await conn.sendNotification(DidChangeConfigurationNotification.type, { settings: { yaml: settings } });
  let version = 0;
  return {
    diagnostics(path, text) {
      const uri = pathToFileURL(path).href;
      return new Promise((resolve) => {
        waiting.set(uri, (d) => {
          waiting.delete(uri);
          resolve(d);
        });
        void conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: "yaml", version: ++version, text } });
      });
    },
    hover: (path, line, character) => conn.sendRequest(HoverRequest.type, { textDocument: { uri: pathToFileURL(path).href }, position: { line, character } }),
    async completion(path, line, character) {
      const r: CompletionItem[] | CompletionList | null = await conn.sendRequest(CompletionRequest.type, { textDocument: { uri: pathToFileURL(path).href }, position: { line, character } });
      return !r ? [] : Array.isArray(r) ? r : r.items;
    },
    async stop() {
      await conn.sendRequest(ShutdownRequest.type).catch(() => undefined);
      await conn.sendNotification(ExitNotification.type).catch(() => undefined);
      conn.dispose();
      proc.kill();
    },
  };
}
