/**
 * Language server benchmark (the issue "See and edit": goal p99 < 50 ms): `criteria lsp`
 * started as an editor starts it (the built CLI over stdio, a real LSP client), a
 * 500-step HCL workflow opened, then edited `edits` times in each of two ways, each in a
 * fresh server: typing (a character inserted into the first step's input, so every block
 * after it moves) and overtyping (a character of a step halfway down replaced). As a user
 * does, the file is looked at for a moment (`LSP_LOOK_MS`, 1000 ms) before the first edit;
 * the edits then come back to back, each as soon as the last one's diagnostics arrive
 * (faster than anyone types). Each figure is the time from the change to the diagnostics
 * the server publishes for it; p99 is over every edit of both ways, the first ones after
 * opening included, and "steady" leaves out each server's first 20 edits; "open" is from
 * `didOpen` to the first diagnostics. Prints figures; asserts nothing (LSP_TIMES=1 also
 * prints each edit's time, in order).
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
  /** Edits measured in all (both ways). */
  edits: number;
  p50_ms: number;
  p99_ms: number;
  /** p99 without each server's first 20 edits. */
  steady_p99_ms: number;
  /** The first edit after opening, the slower of the two servers'. */
  first_ms: number;
  /** From opening the file to its first diagnostics, the slower of the two servers'. */
  open_ms: number;
  /** The pause between the first diagnostics and the first edit (ms). */
  look_ms: number;
  verdict: Verdict;
}

/** How an edit changes the text: a character inserted (moving what follows) or replaced. */
type EditWay = "insert" | "replace";

/** Runs the benchmark against the built CLI under `root`. */
export async function lspBench(root: string, quick: boolean): Promise<LspReport> {
  const steps = 500;
  const edits = quick ? 20 : 200;
  const look = Number(process.env.LSP_LOOK_MS ?? 1000);
  progress(`lsp: diagnostics after each of ${edits} typed and ${edits} overtyped characters in a ${steps}-step file`);
  const text = chainHcl(steps);
  const typedRun = await editTimes(root, text, "insert", text.indexOf('"', text.indexOf("command")) + 1, edits, look);
  const overtypedRun = await editTimes(root, text, "replace", text.indexOf('"', text.indexOf("command", text.length >> 1)) + 1, edits, look);
  const [typed, overtyped] = [typedRun.times, overtypedRun.times];
  if (process.env.LSP_TIMES) for (const t of [typed, overtyped]) console.error(t.map((x) => x.toFixed(0)).join(" "));
  const all = [...typed, ...overtyped];
  const steady = [...typed.slice(20), ...overtyped.slice(20)];
  const p50 = percentile(all, 50);
  const p99 = percentile(all, 99);
  const steadyP99 = steady.length > 0 ? percentile(steady, 99) : Number.NaN;
  const first = Math.max(typed[0], overtyped[0]);
  const open = Math.max(typedRun.open, overtypedRun.open);
  const report: LspReport = { steps, edits: all.length, p50_ms: p50, p99_ms: p99, steady_p99_ms: steadyP99, first_ms: first, open_ms: open, look_ms: look, verdict: verdict(p99, 50, true) };
  printTable(`Language server (criteria lsp over stdio, a ${steps}-step HCL file, ${all.length} edits after a ${look} ms look)`, ["figure", "value", "goal", "verdict"], [
    ["diagnostics after an edit, p50", `${fmt(p50)} ms`, "", ""],
    ["diagnostics after an edit, p99", `${fmt(p99)} ms`, "< 50 ms", report.verdict],
    ["  typing (every block after it moves), p50 / p99", `${fmt(percentile(typed, 50))} / ${fmt(percentile(typed, 99))} ms`, "", ""],
    ["  overtyping halfway down, p50 / p99", `${fmt(percentile(overtyped, 50))} / ${fmt(percentile(overtyped, 99))} ms`, "", ""],
    ["  p99 after each server's first 20 edits", steady.length > 0 ? `${fmt(steadyP99)} ms` : "-", "", ""],
    ["  the first edit after opening", `${fmt(first)} ms`, "", ""],
    ["opening the file: its first diagnostics", `${fmt(open)} ms`, "", ""],
  ]);
  return report;
}

/**
 * Opens `text` in a fresh server, waits `look` ms, and times `edits` edits made `way` at
 * offset `at`: each edit's change → its diagnostics, and the open → its diagnostics (ms).
 */
async function editTimes(root: string, text: string, way: EditWay, at: number, edits: number, look: number): Promise<{ times: number[]; open: number }> {
  const dir = mkdtempSync(join(tmpdir(), "criteria-bench-lsp-"));
  const file = join(dir, "chain.hcl");
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
    const opened = performance.now();
    await conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: "hcl", version, text } });
    await next;
    const open = performance.now() - opened;
    await new Promise((r) => setTimeout(r, look));
    const times: number[] = [];
    const line = text.slice(0, at).split("\n").length - 1;
    let character = at - text.lastIndexOf("\n", at - 1) - 1;
    for (let i = 0; i < edits; i++) {
      next = published();
      const t = performance.now();
      const end = way === "replace" ? character + 1 : character;
      await conn.sendNotification(DidChangeTextDocumentNotification.type, {
        textDocument: { uri, version: ++version },
        contentChanges: [{ range: { start: { line, character }, end: { line, character: end } }, text: String.fromCharCode(97 + (i % 26)) }],
      });
      await next;
      times.push(performance.now() - t);
      if (way === "insert") character++;
    }
    return { times, open };
  } finally {
    await conn.sendRequest(ShutdownRequest.type).catch(() => undefined);
    await conn.sendNotification(ExitNotification.type).catch(() => undefined);
    conn.dispose();
    proc.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}
