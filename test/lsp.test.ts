/**
 * `criteria lsp` with a real client over stdio (`vscode-languageserver-protocol`): the
 * built CLI is started as an editor would start it. HCL and YAML: diagnostics on open
 * and on change with the codes, messages and positions of `criteria validate`; go to
 * definition; completion of names in scope; hover on a diagnostic; document symbols.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  CompletionRequest,
  DefinitionRequest,
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  DocumentSymbolRequest,
  ExitNotification,
  HoverRequest,
  ShutdownRequest,
  type CompletionItem,
  type Diagnostic,
  type DocumentSymbol,
  type Location,
  type ProtocolConnection,
} from "vscode-languageserver-protocol/node.js";
import { compile } from "../compiler/index.js";
import { startLsp, type LspClient } from "./lsp-client.js";
import { repo } from "./pipeline/helpers.js";

let lsp: LspClient;
let conn: ProtocolConnection;
const dir = mkdtempSync(join(tmpdir(), "criteria-lsp-"));

beforeAll(async () => {
  lsp = await startLsp(dir);
  conn = lsp.conn;
  expect(lsp.init.capabilities.definitionProvider).toBe(true);
}, 30_000);

afterAll(() => lsp.stop());

/** Waits for the `n`-th diagnostics the server publishes for `uri` (1-based). */
async function nth(uri: string, n: number): Promise<Diagnostic[]> {
  for (let i = 0; i < 200; i++) {
    const got = lsp.published.filter((p) => p.uri === uri).map((p) => p.diagnostics);
    if (got.length >= n) return got[n - 1];
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no diagnostics #${n} for ${uri}`);
}

let version = 0;
/** Writes a file (so its directory is a module) and opens it with `text`. */
async function open(name: string, text: string): Promise<string> {
  const file = join(dir, name);
  writeFileSync(file, text);
  const uri = pathToFileURL(file).href;
  await conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: name.endsWith(".hcl") ? "hcl" : "yaml", version: ++version, text } });
  return uri;
}

const HCL = readFileSync(join(repo, "examples", "agent_in_body", "workflow.hcl"), "utf8");

describe("criteria lsp (HCL)", () => {
  let uri = "";
  it("an unsaved typo: the diagnostics validate gives for the same text, at the same place", async () => {
    uri = await open("a.hcl", HCL);
    expect(await nth(uri, 1)).toEqual([]);
    const typo = HCL.replace('agent = "executor"', 'agent = "executr"');
    await conn.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version: ++version }, contentChanges: [{ text: typo }] });
    const got = await nth(uri, 2);
    // validate of the same text, from a file.
    const file = join(dir, "typo", "a.hcl");
    mkdirSync(join(dir, "typo"), { recursive: true });
    writeFileSync(file, typo);
    const want = (await compile(file)).diagnostics;
    expect(got.map((d) => [d.code, d.range.start.line + 1, d.range.start.character + 1, d.range.end.line + 1, d.range.end.character + 1, d.message.split("\n")[0]])).toEqual(
      want.map((d) => [d.code, d.range.start.line, d.range.start.utf16Column, d.range.end.line, d.range.end.utf16Column, d.message]),
    );
    expect(got[0].message).toContain('hint: did you mean "executor"?');
  });

  it("hover on the diagnostic shows its code's documentation", async () => {
    const d = (await nth(uri, 2))[0];
    const hover = await conn.sendRequest(HoverRequest.type, { textDocument: { uri }, position: d.range.start });
    expect(JSON.stringify(hover?.contents)).toContain("unknown_target");
    expect(JSON.stringify(hover?.contents)).toContain("not declared in scope");
  });

  it("the fix clears it; go to definition, completion and symbols", async () => {
    await conn.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version: ++version }, contentChanges: [{ text: HCL }] });
    expect(await nth(uri, 3)).toEqual([]);
    const lines = HCL.split("\n");
    const use = lines.findIndex((l) => l.includes('agent = "executor"'));
    const decl = lines.findIndex((l) => /^\s*agent "executor"/.test(l));
    const def = (await conn.sendRequest(DefinitionRequest.type, { textDocument: { uri }, position: { line: use, character: lines[use].indexOf("executor") + 2 } })) as Location | null;
    expect(def?.range.start.line).toBe(decl);
    const symbols = (await conn.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri } })) as DocumentSymbol[];
    const names = (ds: DocumentSymbol[]): string[] => ds.flatMap((d) => [d.name, ...names(d.children ?? [])]);
    expect(names(symbols)).toEqual(expect.arrayContaining(["executor", "loop", "execute"]));
    // A body's step is nested under the step that runs it.
    expect(symbols.find((s) => s.name === "loop")?.children?.map((c) => c.name)).toContain("execute");
    // Completion of node names after transition_to = " (the example's older spelling of next).
    const next = lines.findIndex((l) => /transition_to\s*=\s*"done"/.test(l));
    const col = lines[next].indexOf('"done"') + 1;
    const items = (await conn.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: { line: next, character: col } })) as CompletionItem[];
    expect(items.map((i) => i.label)).toEqual(expect.arrayContaining(["loop", "done"]));
  });
});

describe("criteria lsp: HCL field and block names", () => {
  const TEXT = `workflow "f" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}
adapter "shell" "default" {}
step "build" {
  target  = adapter.shell.default
  timeout = "30s"
  input {
    command = "echo \${jsonencode("{}")} {"
  }
  outcome "success" {
    next = "done"
  }
}
state "done" { terminal = true }
`;
  const lines = TEXT.split("\n");
  const lineOf = (re: RegExp) => lines.findIndex((l) => re.test(l));
  let uri = "";
  const complete = async (line: number, character: number) => ((await conn.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: { line, character } })) as CompletionItem[]).map((i) => [i.label, i.detail, typeof i.documentation === "object" ? i.documentation.value : i.documentation]);

  it("completes the fields and blocks of the enclosing block, each with its documentation", async () => {
    uri = await open("fields.hcl", TEXT);
    expect(await nth(uri, 1)).toEqual([]);
    // On a new line in the step (the `timeout` line, cursor at its start): the step's fields.
    const step = await complete(lineOf(/^\s*timeout/), 2);
    expect(step.map((i) => i[0])).toEqual(expect.arrayContaining(["target", "timeout", "max_visits", "for_each", "outcome", "input", "workflow"]));
    expect(step.find((i) => i[0] === "outcome")?.[1]).toBe("block");
    expect(step.find((i) => i[0] === "timeout")).toEqual(["timeout", "attribute", expect.stringContaining("How long one attempt may take")]);
    expect(step.every((i) => typeof i[2] === "string" && i[2].length > 0), "every field documented").toBe(true);
    // In the outcome: next, output, write...; at the top of the file: the blocks a file holds.
    expect((await complete(lineOf(/^\s*next = "done"/), 4)).map((i) => i[0])).toEqual(expect.arrayContaining(["next", "output", "write", "shared_writes"]));
    const top = await complete(lineOf(/^state "done"/), 0);
    expect(top.map((i) => i[0])).toEqual(expect.arrayContaining(["workflow", "variable", "adapter", "agent", "step", "state", "wait", "approval", "branch", "switch", "output", "channel", "locals"]));
    // Inside input { } (free-form): nothing to offer; after it (its string holds braces and quotes), the step's again.
    expect(await complete(lineOf(/^\s*command/), 4)).toEqual([]);
    expect((await complete(lineOf(/^\s*outcome "success"/), 2)).map((i) => i[0])).toContain("timeout");
  });

  it("hover on a field or block name shows its documentation", async () => {
    const at = lineOf(/^\s*timeout/);
    const hover = await conn.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: at, character: 4 } });
    expect(JSON.stringify(hover?.contents)).toContain("How long one attempt may take");
    expect(hover?.range).toEqual({ start: { line: at, character: 2 }, end: { line: at, character: 9 } });
    const outcome = await conn.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: lineOf(/^\s*outcome "success"/), character: 3 } });
    expect(JSON.stringify(outcome?.contents)).toContain("**outcome** (block)");
    // Not a field: a value.
    expect(await conn.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: at, character: lines[at].indexOf("30s") } })).toBeNull();
  });
});

describe("criteria lsp (YAML)", () => {
  const YAML = `workflow:
  name: y
  version: "1"
  initial_state: build
  target_state: done
agents:
  reviewer: { adapter: copilot }
steps:
  build:
    target: agent.reviewer
    input: { prompt: "review" }
    outcomes:
      success: { next: done }
states:
  done: { terminal: true }
`;
  it("diagnostics, definition and completion of agent.", async () => {
    const uri = await open("y.yaml", YAML);
    expect(await nth(uri, 1)).toEqual([]);
    const lines = YAML.split("\n");
    const at = lines.findIndex((l) => l.includes("agent.reviewer"));
    const def = (await conn.sendRequest(DefinitionRequest.type, { textDocument: { uri }, position: { line: at, character: lines[at].indexOf("reviewer") + 1 } })) as Location | null;
    expect(def?.range.start.line).toBe(lines.findIndex((l) => l.startsWith("  reviewer:")));
    const broken = YAML.replace("agent.reviewer", "agent.reviewr");
    await conn.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version: ++version }, contentChanges: [{ text: broken }] });
    const got = await nth(uri, 2);
    expect(got.map((d) => [d.code, d.range.start.line])).toEqual([["unknown_target", at]]);
    const items = (await conn.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: { line: at, character: lines[at].indexOf("reviewer") } })) as CompletionItem[];
    expect(items.map((i) => i.label)).toEqual(["reviewer"]);
  });
});

describe("criteria lsp (a split module)", () => {
  /** examples/multi_file copied to `name`: one workflow over three files, the header in workflow.hcl. */
  const copy = (name: string) => {
    const to = join(dir, name);
    mkdirSync(to, { recursive: true });
    for (const f of ["agents.hcl", "steps.hcl", "workflow.hcl"]) writeFileSync(join(to, f), readFileSync(join(repo, "examples", "multi_file", f), "utf8"));
    return to;
  };
  const openIn = async (folder: string, name: string): Promise<{ uri: string; text: string }> => {
    const text = readFileSync(join(folder, name), "utf8");
    const uri = pathToFileURL(join(folder, name)).href;
    await conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: "hcl", version: ++version, text } });
    return { uri, text };
  };

  it("a file of it is compiled with its module: no error for what a sibling declares, and an unsaved typo in one file reported where validate of the directory puts it (found writing the notes: the header file showed every step as unknown)", async () => {
    const folder = copy("split");
    const header = await openIn(folder, "workflow.hcl");
    expect(await nth(header.uri, 1)).toEqual([]);
    const steps = await openIn(folder, "steps.hcl");
    expect(await nth(steps.uri, 1)).toEqual([]);
    const typo = steps.text.replace('outcome "done"    { next = "ci" }', 'outcome "done"    { next = "cii" }');
    expect(typo).not.toBe(steps.text);
    await conn.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri: steps.uri, version: ++version }, contentChanges: [{ text: typo }] });
    const got = await nth(steps.uri, 2);
    // validate of the directory with the same text.
    const saved = copy("split-saved");
    writeFileSync(join(saved, "steps.hcl"), typo);
    const want = (await compile(saved)).diagnostics.filter((d) => d.range.file.endsWith("steps.hcl"));
    expect(want[0].code).toBe("unknown_node");
    expect(got.map((d) => [d.code, d.range.start.line + 1, d.range.start.character + 1, d.message.split("\n")[0]])).toEqual(want.map((d) => [d.code, d.range.start.line, d.range.start.utf16Column, d.message]));
  });

  it("a workflow with its body file beside it is compiled alone (the directory would be refused: module_overlap)", async () => {
    const folder = join(dir, "with-body");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "main.hcl"), 'workflow {\n  name          = "w"\n  version       = "1"\n  initial_state = "go"\n  target_state  = "done"\n}\nstep "go" {\n  workflow_file = "./body.hcl"\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n');
    writeFileSync(join(folder, "body.hcl"), 'adapter "noop" "x" {}\nstep "leaf" {\n  target = adapter.noop.x\n  outcome "success" { next = state.fin }\n}\nstate "fin" { terminal = true }\n');
    expect((await compile(join(folder, "main.hcl"))).diagnostics).toEqual([]);
    expect((await compile(folder)).diagnostics.map((d) => d.code)).toContain("module_overlap");
    const main = await openIn(folder, "main.hcl");
    expect(await nth(main.uri, 1)).toEqual([]);
  });

  it("whole workflows side by side in one directory are each compiled alone", async () => {
    const folder = join(dir, "side-by-side");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "one.hcl"), HCL);
    writeFileSync(join(folder, "two.hcl"), HCL);
    const one = await openIn(folder, "one.hcl");
    expect(await nth(one.uri, 1)).toEqual([]);
  });
});

describe("criteria lsp: found by a new-user trial of the editor loop", () => {
  const LINES = (t: string) => t.split("\n");
  const VALID = 'workflow {\n  name          = "hello"\n  version       = "1"\n  initial_state = "a"\n  target_state  = "done"\n}\nadapter "shell" "default" {}\nstep "a" {\n  target = adapter.shell.default\n  input { command = "echo hi" }\n  outcome "success" { next = state.done }\n}\nstate "done" { terminal = true }\n';
  const openText = async (uri: string, languageId: string, text: string) => {
    await conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId, version: ++version, text } });
  };
  const change = async (uri: string, text: string) => {
    await conn.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version: ++version }, contentChanges: [{ text }] });
  };

  it("a buffer no file backs (untitled:, inmemory:) is checked on its own; the server lives on (it crashed)", async () => {
    const untitled = "untitled:Untitled-1";
    await openText(untitled, "hcl", VALID.replace("adapter.shell.default\n  input", "adapter.shell.defualt\n  input"));
    const got = await nth(untitled, 1);
    expect(got.map((d) => [d.code, d.range.start.line])).toEqual([["unknown_target", 8]]);
    expect(got[0].message).toContain('did you mean "adapter.shell.default"');
    const yaml = "inmemory://model/1";
    await openText(yaml, "yaml", "workflow:\n  name: y\n  version: \"1\"\n  initial_state: a\n  target_state: a\nstates:\n  a: { terminal: tru }\n");
    expect((await nth(yaml, 1)).map((d) => d.code)).toContain("invalid_type");
    // Still answering.
    await change(untitled, VALID);
    expect(await nth(untitled, 2)).toEqual([]);
    const symbols = (await conn.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri: untitled } })) as DocumentSymbol[];
    expect(symbols.map((s) => s.name)).toEqual(expect.arrayContaining(["a", "done"]));
  });

  it("a file not saved yet is compiled from its text (only file_not_found before), an empty one is file_empty", async () => {
    const uri = pathToFileURL(join(dir, "never-saved", "new.hcl")).href;
    await openText(uri, "hcl", VALID);
    expect(await nth(uri, 1)).toEqual([]);
    await change(uri, VALID.replace("next = state.done", "next = state.dne"));
    expect((await nth(uri, 2)).map((d) => d.code)).toContain("unknown_node");
    const empty = pathToFileURL(join(dir, "never-saved", "empty.hcl")).href;
    await openText(empty, "hcl", "");
    expect((await nth(empty, 1)).map((d) => d.code)).toEqual(["file_empty"]);
  });

  it("every document symbol's range holds its selection range (YAML's started at the value, after the name)", async () => {
    const uri = await open("symbols.yaml", readFileSync(join(repo, "examples", "yaml_review_loop", "workflow.yaml"), "utf8"));
    expect(await nth(uri, 1)).toEqual([]);
    const symbols = (await conn.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri } })) as DocumentSymbol[];
    const all = (ds: DocumentSymbol[]): DocumentSymbol[] => ds.flatMap((d) => [d, ...all(d.children ?? [])]);
    const before = (a: { line: number; character: number }, b: { line: number; character: number }) => a.line < b.line || (a.line === b.line && a.character <= b.character);
    expect(all(symbols).length).toBeGreaterThan(5);
    for (const s of all(symbols)) expect(before(s.range.start, s.selectionRange.start) && before(s.selectionRange.end, s.range.end), `${s.name}: ${JSON.stringify(s.range)} ∌ ${JSON.stringify(s.selectionRange)}`).toBe(true);
  });

  it("names are completed right after the dot, while the line does not parse yet (the last compilation that decoded serves)", async () => {
    const text = VALID.replace("adapter \"shell\"", 'locals {\n  greeting = "hi"\n}\nadapter "shell"').replace("echo hi", "echo ${local.greeting}");
    const uri = await open("dot.hcl", text);
    expect(await nth(uri, 1)).toEqual([]);
    const typing = text.replace("  input {", "  timeout = local.\n  input {");
    await change(uri, typing);
    expect((await nth(uri, 2)).map((d) => d.code)).toEqual(["syntax_error"]);
    const line = LINES(typing).findIndex((l) => l.includes("local."));
    const items = (await conn.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: { line, character: LINES(typing)[line].length } })) as CompletionItem[];
    expect(items.map((i) => i.label)).toEqual(["greeting"]);
  });

  it("go to definition and completion of a node name inside a step's body stay in that body", async () => {
    const text = 'workflow {\n  name          = "scope2"\n  version       = "1"\n  initial_state = "outer"\n  target_state  = "done"\n}\nadapter "shell" "default" {}\nstep "outer" {\n  workflow {\n    step "lint" {\n      target = adapter.shell.default\n      input { command = "echo lint" }\n      outcome "success" { next = "ci" }\n    }\n    step "ci" {\n      target = adapter.shell.default\n      input { command = "echo inner" }\n      outcome "success" { next = "return" }\n    }\n  }\n  outcome "success" { next = "ci" }\n}\nstep "ci" {\n  target = adapter.shell.default\n  input { command = "echo outer" }\n  outcome "success" { next = "done" }\n  outcome "failure" { next = "done" }\n}\nstate "done" { terminal = true }\n';
    const uri = await open("scope2.hcl", text);
    expect(await nth(uri, 1)).toEqual([]);
    const lines = LINES(text);
    const inner = lines.findIndex((l) => l.includes('next = "ci"'));
    const def = (await conn.sendRequest(DefinitionRequest.type, { textDocument: { uri }, position: { line: inner, character: lines[inner].indexOf('"ci"') + 2 } })) as Location | null;
    expect(def?.range.start.line).toBe(lines.findIndex((l) => l.includes('step "ci"') && l.startsWith("    ")));
    const outer = lines.findIndex((l, i) => i > inner + 3 && l.includes('next = "ci"'));
    const top = (await conn.sendRequest(DefinitionRequest.type, { textDocument: { uri }, position: { line: outer, character: lines[outer].indexOf('"ci"') + 2 } })) as Location | null;
    expect(top?.range.start.line).toBe(lines.findIndex((l) => l.startsWith('step "ci"')));
    const items = (await conn.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: { line: inner, character: lines[inner].indexOf('"ci"') + 1 } })) as CompletionItem[];
    expect(items.map((i) => i.label).sort()).toEqual(["ci", "lint"]);
  });

  it("closing a changed file takes back what its text caused in other files; a change to a subworkflow refreshes its open caller; definition of its source path", async () => {
    // examples/multi_file: agents.hcl renames an agent steps.hcl uses, then is closed unsaved.
    const folder = join(dir, "stale");
    mkdirSync(folder, { recursive: true });
    for (const f of ["agents.hcl", "steps.hcl", "workflow.hcl"]) writeFileSync(join(folder, f), readFileSync(join(repo, "examples", "multi_file", f), "utf8"));
    const agents = pathToFileURL(join(folder, "agents.hcl")).href;
    const steps = pathToFileURL(join(folder, "steps.hcl")).href;
    const text = readFileSync(join(folder, "agents.hcl"), "utf8");
    await openText(agents, "hcl", text);
    expect(await nth(agents, 1)).toEqual([]);
    await change(agents, text.replace('agent "reviewer"', 'agent "reviewr"'));
    await nth(agents, 2);
    expect((await nth(steps, 1)).map((d) => d.code)).toContain("unknown_target");
    await conn.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri: agents } });
    expect(await nth(steps, 2)).toEqual([]);

    // examples/subworkflow_with_adapter: the caller and its subworkflow's file open; the subworkflow renames its variable.
    const sub = join(dir, "caller");
    mkdirSync(join(sub, "review_item"), { recursive: true });
    writeFileSync(join(sub, "workflow.hcl"), readFileSync(join(repo, "examples", "subworkflow_with_adapter", "workflow.hcl"), "utf8"));
    const mainText = readFileSync(join(repo, "examples", "subworkflow_with_adapter", "review_item", "main.hcl"), "utf8");
    writeFileSync(join(sub, "review_item", "main.hcl"), mainText);
    const caller = pathToFileURL(join(sub, "workflow.hcl")).href;
    const main = pathToFileURL(join(sub, "review_item", "main.hcl")).href;
    await openText(caller, "hcl", readFileSync(join(sub, "workflow.hcl"), "utf8"));
    expect((await nth(caller, 1)).filter((d) => d.severity === 1)).toEqual([]);
    await openText(main, "hcl", mainText);
    await nth(main, 1);
    await change(main, mainText.replace('variable "file"', 'variable "fil"'));
    await vi.waitFor(async () => expect(lsp.published.filter((p) => p.uri === caller).at(-1)?.diagnostics.map((d) => d.code)).toEqual(expect.arrayContaining(["missing_field", "unknown_field"])), { timeout: 5000, interval: 25 });
    // Go to definition on a module path opens its file (a directory: its workflow file).
    const callerText = readFileSync(join(sub, "workflow.hcl"), "utf8").split("\n");
    const at = callerText.findIndex((l) => l.includes('source = "./review_item"'));
    const def = (await conn.sendRequest(DefinitionRequest.type, { textDocument: { uri: caller }, position: { line: at, character: callerText[at].indexOf("review_item") } })) as Location | null;
    expect(def?.uri).toBe(main);
  });
  it("definition and hover of each.* go to what the innermost iterating step iterates over, in its own fields and in its body (gave nothing)", async () => {
    const text = readFileSync(join(repo, "examples", "for_each_files", "workflow.hcl"), "utf8");
    const folder = join(dir, "each");
    mkdirSync(join(folder, "scripts"), { recursive: true });
    writeFileSync(join(folder, "scripts", "editor.json"), readFileSync(join(repo, "examples", "for_each_files", "scripts", "editor.json"), "utf8"));
    writeFileSync(join(folder, "workflow.hcl"), text);
    const uri = pathToFileURL(join(folder, "workflow.hcl")).href;
    await openText(uri, "hcl", text);
    expect((await nth(uri, 1)).filter((d) => d.severity === 1)).toEqual([]);
    const lines = LINES(text);
    const definitionAt = async (needle: string, word: string) => {
      const line = lines.findIndex((l) => l.includes(needle));
      return (await conn.sendRequest(DefinitionRequest.type, { textDocument: { uri }, position: { line, character: lines[line].indexOf(word) + 2 } })) as Location | null;
    };
    // A step's own input: its for_each.
    const own = await definitionAt("'${each.value}'", "each.value");
    expect(own?.range.start).toEqual({ line: lines.findIndex((l) => l.includes("for_each = local.paths")), character: lines.find((l) => l.includes("for_each = local.paths"))!.indexOf("local.paths") });
    // Inside a body: the step that holds the body.
    const inBody = await definitionAt("path        = each.key", "each.key");
    expect(inBody?.range.start.line).toBe(lines.findIndex((l) => l.includes("for_each   = var.files")));
    const line = lines.findIndex((l) => l.includes("path        = each.key"));
    const hover = (await conn.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line, character: lines[line].indexOf("each.key") + 2 } })) as { contents: { value: string } } | null;
    expect(hover?.contents.value).toContain("iteration **edit_files**");
    expect(hover?.contents.value).toContain("var.files");
  });
});

describe("criteria lsp: while the text does not decode (a new-user trial: definition answered where the declaration had been)", () => {
  const text = `workflow {\n  name          = "d"\n  initial_state = "a"\n  target_state  = "done"\n}\nadapter "shell" "default" {}\nstep "a" {\n  target = adapter.shell.default\n  outcome "success" { next = "b" }\n}\nstep "b" {\n  target = adapter.shell.default\n  outcome "success" { next = "done" }\n}\nstate "done" { terminal = true }\n`;
  const change = (uri: string, ...changes: { line: number; text: string }[]) =>
    conn.sendNotification(DidChangeTextDocumentNotification.type, {
      textDocument: { uri, version: ++version },
      contentChanges: changes.map((c) => ({ range: { start: { line: c.line, character: 0 }, end: { line: c.line, character: 0 } }, text: c.text })),
    });
  const definitionAt = (uri: string, line: number, character: number) => conn.sendRequest(DefinitionRequest.type, { textDocument: { uri }, position: { line, character } }) as Promise<Location | null>;

  it("definition and hover move with each edit since the last decoded text: an unclosed block at the end, then two lines above", async () => {
    const uri = await open("stale-positions.hcl", text);
    await nth(uri, 1);
    await change(uri, { line: 15, text: 'step "x" {\n' });
    expect((await nth(uri, 2)).map((d) => d.code)).toContain("syntax_error");
    await change(uri, { line: 0, text: "# a\n# b\n" });
    await nth(uri, 3);
    // next = "b" is on line 10 now; step "b" on line 12, not on line 10 where it was.
    expect((await definitionAt(uri, 10, 31))?.range).toEqual({ start: { line: 12, character: 5 }, end: { line: 12, character: 8 } });
    const hover = (await conn.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: 10, character: 31 } })) as { contents: { value: string } } | null;
    expect(hover?.contents.value).toContain('step "b" {');
  });

  it("with both edits in one change (the trial's), what lies between them has no place to answer with: nothing, not a wrong one", async () => {
    const uri = await open("stale-positions-one.hcl", text);
    await nth(uri, 1);
    await change(uri, { line: 0, text: "# a\n# b\n" }, { line: 17, text: 'step "x" {\n' });
    expect((await nth(uri, 2)).map((d) => d.code)).toContain("syntax_error");
    expect(await definitionAt(uri, 10, 31)).toBeNull();
  });
});

describe("criteria lsp: after shutdown", () => {
  it("a request fails with InvalidRequest (it answered null), and exit ends the server with 0", async () => {
    const server = await startLsp(dir);
    const c = server.conn;
    try {
      const uri = pathToFileURL(join(dir, "after-shutdown.hcl")).href;
      await c.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: "hcl", version: 1, text: HCL } });
      const before = (await c.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri } })) as DocumentSymbol[] | null;
      expect(Array.isArray(before)).toBe(true);
      await c.sendRequest(ShutdownRequest.type);
      const after = await c.sendRequest(DefinitionRequest.type, { textDocument: { uri }, position: { line: 0, character: 0 } }).then(
        () => "answered",
        (e: { code?: number }) => e.code,
      );
      expect(after).toBe(-32600);
      const exited = new Promise<number | null>((r) => server.proc.once("exit", (code) => r(code)));
      await c.sendNotification(ExitNotification.type);
      expect(await exited).toBe(0);
    } finally {
      c.dispose();
      server.proc.kill();
    }
  });
});
