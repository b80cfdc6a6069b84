import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  CompletionItemKind,
  DiagnosticSeverity,
  ErrorCodes,
  ResponseError,
  TextDocuments,
  TextDocumentSyncKind,
  type Connection,
  type Diagnostic as LspDiagnostic,
  type DocumentSymbol,
  type Range as LspRange,
} from "vscode-languageserver/node.js";
import { TextDocument } from "vscode-languageserver-textdocument";
import { CODES } from "../../compiler/diagnostics/codes.js";
import type { Diagnostic } from "../../compiler/diagnostics/diagnostic.js";
import type { Range } from "../../compiler/diagnostics/range.js";
import { compile, type Compilation, type UnitCache } from "../../compiler/index.js";
import type { ParseCache } from "../../compiler/load/read-module.js";
import { blocksAt, fieldDoc, fieldsIn, type FieldDoc } from "./hcl-fields.js";
import { declarationOf, KIND, namesAfter, outline, type Declaration, type Place } from "./outline.js";
import type { WorkflowSpec } from "../../compiler/decode/spec.js";
import { workflowFiles } from "../../compiler/load/workflow-files.js";
import { warmUp, type WarmUp } from "./warm-up.js";
import { editBetween, type TextEdit } from "../../compiler/load/text-edit.js";
import { StaleSpec } from "./stale-spec.js";

/**
 * `criteria lsp` (the issue "See and edit", item 3): a language server over a connection
 * (stdio from the CLI) for workflow files, HCL and YAML/JSON alike, on the compiler itself:
 * - diagnostics on open and on every change, the same codes, messages and positions as
 *   `criteria validate` (unsaved text is compiled: the open documents overlay the files,
 *   so a change to a subworkflow's file shows in its callers; a file of a split module is
 *   compiled with its module, as compile() does);
 * - go to definition of targets, agents, adapters, variables, locals, channels,
 *   subworkflows, `steps.<name>` and node names (`next`), the innermost in scope; of
 *   `each.*`/`while.*` to what the innermost iterating step iterates over; and of module
 *   paths (`source`, `workflow_file`, `use`) to their file;
 * - completion of the names in scope after `agent.`, `adapter.`, `var.`, `local.`,
 *   `steps.`, `state.`, `channel.`, `subworkflow.`, and of node names elsewhere; in HCL,
 *   at the start of a statement, of the fields and blocks the enclosing block takes, with
 *   their documentation (cli/lsp/hcl-fields.ts, from the JSON Schema);
 * - hover on a diagnostic (its code's documentation), on an HCL field or block name (its
 *   documentation) and on a declared name;
 * - document symbols: the declarations, bodies nested under their steps.
 * Positions are LSP's: 0-based lines, UTF-16 columns (the compiler keeps `utf16Column`).
 * After `shutdown`, requests fail with InvalidRequest and changes are no longer compiled
 * (LSP 3.17, "Shutdown Request"); `exit` ends the process.
 * After its first check the server warms up in idle turns (cli/lsp/warm-up.ts) and says so
 * in a log message (`window/logMessage`) when done.
 */
export function serveLanguage(connection: Connection): void {
  const documents = new TextDocuments(TextDocument);
  /** The last compilation of each open document, and the diagnostics shown per file. */
  const compiled = new Map<string, Compilation>();
  /** The last compilation of each document that decoded, and the document's text it read (positions since are moved: cli/lsp/stale-spec.ts). */
  const lastSpec = new Map<string, { c: Compilation; spec: WorkflowSpec; text: string; version: number }>();
  /** Each document's text now, and each version's change since its last decoded compilation. */
  const texts = new Map<string, string>();
  const edits = new Map<string, { version: number; edit: TextEdit }[]>();
  /** Positions between the last decoded compilation of `doc` and its text now (cli/lsp/stale-spec.ts). */
  const staleOf = (doc: TextDocument, last: { text: string; version: number }) => {
    let before: TextDocument | undefined;
    const since = (edits.get(doc.uri) ?? []).filter((x) => x.version > last.version).map((x) => x.edit);
    return new StaleSpec(since, doc, (o) => (before ??= TextDocument.create("", "", 0, last.text)).positionAt(o));
  };
  const published = new Map<string, Set<string>>();
  let cwd = process.cwd();
  // What earlier compiles parsed and checked: an edit re-parses its file and re-checks the modules it reaches.
  const parseCache: ParseCache = new Map();
  const unitCache: UnitCache = new Map();

  let shutDown = false;
  /** Checks under way, and when the last one ended (the warm-up runs only when idle). */
  let checking = 0;
  let lastCheck = performance.now();
  let warm: WarmUp | undefined;
  connection.onShutdown(() => {
    shutDown = true;
    warm?.stop();
  });
  /** Refuses a request once the server is shut down (found by a new-user trial: it answered null). */
  const refuseAfterShutdown = () => {
    if (shutDown) throw new ResponseError(ErrorCodes.InvalidRequest, "the server is shut down: only exit is taken");
  };

  connection.onInitialize((params) => {
    const root = params.workspaceFolders?.[0]?.uri ?? params.rootUri;
    if (root?.startsWith("file:")) cwd = fileURLToPath(root);
    return {
      capabilities: {
        textDocumentSync: TextDocumentSyncKind.Incremental,
        definitionProvider: true,
        hoverProvider: true,
        documentSymbolProvider: true,
        completionProvider: { triggerCharacters: ["."] },
      },
      serverInfo: { name: "criteria" },
    };
  });

  /**
   * The path a document is compiled as: its file, or for a buffer no file backs
   * (`untitled:Untitled-1`, `inmemory://model/1`) a path of its own under the workspace that
   * nothing on disk has, with its language's extension (found by a new-user trial: such a
   * document crashed the server). Diagnostics on that path go back to the document.
   */
  const virtual = new Map<string, string>();
  const pathOf = (uri: string, languageId?: string): string => {
    if (uri.startsWith("file:")) return fileURLToPath(uri);
    const known = [...virtual].find(([, u]) => u === uri);
    if (known) return known[0];
    const ext = /\.(hcl|chcl|ya?ml|json)$/i.exec(uri)?.[0] ?? (languageId === "yaml" || languageId === "json" ? `.${languageId}` : ".hcl");
    const name = (uri.split(/[/:]/).pop() || "untitled").replace(/[^\w.-]/g, "_").replace(/\.(hcl|chcl|ya?ml|json)$/i, "");
    const path = resolve(cwd, ".criteria-unsaved", `${virtual.size + 1}`, name + ext);
    virtual.set(path, uri);
    return path;
  };
  const uriOf = (path: string): string => virtual.get(path) ?? pathToFileURL(path).href;
  /** The path the compiler shows for a document's file (its ranges' `file`), for positions in it. */
  const placeIn = (c: Compilation, uri: string, line: number, character: number): Place | undefined => {
    const path = pathOf(uri);
    const file = [...c.sources.keys()].find((f) => resolve(cwd, f) === path);
    return file === undefined ? undefined : { file, line: line + 1, utf16Column: character + 1 };
  };

  /** Compiles an open document (with every open document's unsaved text) and publishes what it found, per file. */
  const check = async (doc: TextDocument) => {
    if (shutDown) return;
    const path = pathOf(doc.uri, doc.languageId);
    const overlay = new Map(documents.all().map((d) => [pathOf(d.uri, d.languageId), d.getText()]));
    const version = doc.version;
    // The graph is not built: only diagnostics are published, and building adds none.
    checking++;
    const began = performance.now();
    const c = await compile(path, { cwd, overlay, parseCache, unitCache, graph: false }).finally(() => {
      checking--;
      lastCheck = performance.now();
    });
    // For an editor's trace (the client's `trace` setting; nothing is sent when it is off).
    connection.tracer.log(`criteria: checked ${doc.uri} at version ${version} in ${Math.round(lastCheck - began)} ms`);
    // Idle after the first check: the incremental path is compiled by V8 before the first edit needs it.
    warm ??= warmUp(cwd, (done, ms, clean) => connection.console.log(`criteria: warmed up (${done} compiles in ${Math.round(ms)} ms${clean ? "" : ", some with errors"})`));
    warm.start(() => (checking > 0 ? 0 : performance.now() - lastCheck));
    // A newer change is being compiled, or it was closed: this result is stale.
    if (documents.get(doc.uri)?.version !== version) return;
    compiled.set(doc.uri, c);
    // Names stay known while a line is being typed (`local.` does not parse yet): the last
    // compilation that decoded serves completion, definition and hover (a new-user trial).
    if (c.spec) {
      lastSpec.set(doc.uri, { c, spec: c.spec, text: overlay.get(path) ?? doc.getText(), version });
      edits.set(doc.uri, (edits.get(doc.uri) ?? []).filter((x) => x.version > version));
    }
    const byFile = new Map<string, LspDiagnostic[]>([[doc.uri, []]]);
    for (const d of c.diagnostics) {
      const uri = uriOf(resolve(cwd, d.range.file));
      if (!byFile.has(uri)) byFile.set(uri, []);
      byFile.get(uri)!.push(toLsp(d));
    }
    const before = published.get(doc.uri) ?? new Set();
    for (const uri of before) if (!byFile.has(uri)) byFile.set(uri, []);
    published.set(doc.uri, new Set([...byFile.keys()]));
    for (const [uri, diagnostics] of byFile) await connection.sendDiagnostics({ uri, diagnostics });
  };
  /** Whether `c` read the file at `path` (a caller reads its subworkflow's files; a module its sibling files). */
  const reads = (c: Compilation | undefined, path: string) => c !== undefined && [...c.sources.keys()].some((f) => resolve(cwd, f) === path);
  /** Checks again the other open documents whose last compilation read `path` (found by a new-user trial: a caller kept its stale diagnostics). */
  const checkDependents = async (uri: string, path: string) => {
    for (const d of documents.all()) if (d.uri !== uri && reads(compiled.get(d.uri), path)) await check(d);
  };
  /** The documents being checked (one check at a time each), and those changed again meanwhile. */
  const checksRunning = new Map<string, Promise<void>>();
  const changedAgain = new Set<string>();
  /** Resolves once a turn of the event loop has passed with no change to document `uri`. */
  const settled = async (uri: string): Promise<void> => {
    for (;;) {
      const version = documents.get(uri)?.version;
      await new Promise((r) => setImmediate(r));
      if (documents.get(uri)?.version === version) return;
    }
  };
  /**
   * Checks a document after a change: one check at a time per document, and changes that
   * come while one runs are checked once, at their latest version, when it ends (found by a
   * new-user trial: a key held down in a 300-step YAML file queued a compile per keystroke,
   * and diagnostics fell 21 s behind). Then the open documents that read it.
   */
  const schedule = (uri: string): void => {
    if (checksRunning.has(uri)) {
      changedAgain.add(uri);
      return;
    }
    const run = async () => {
      try {
        do {
          // Changes already received are taken first: the connection hands over one message
          // per turn of the event loop, and a check takes a turn of its own (one compile).
          await settled(uri);
          changedAgain.delete(uri);
          const doc = documents.get(uri);
          if (!doc) return;
          await check(doc);
          if (!changedAgain.has(uri)) await checkDependents(uri, pathOf(uri, doc.languageId));
        } while (changedAgain.has(uri));
      } finally {
        checksRunning.delete(uri);
      }
    };
    checksRunning.set(uri, run());
  };
  // Fired on open too.
  documents.onDidChangeContent((e) => {
    const { uri } = e.document;
    const text = e.document.getText();
    const before = texts.get(uri);
    if (before !== undefined && before !== text) edits.set(uri, [...(edits.get(uri) ?? []), { version: e.document.version, edit: editBetween(before, text) }]);
    texts.set(uri, text);
    schedule(uri);
  });
  documents.onDidClose((e) => {
    const uri = e.document.uri;
    const path = pathOf(uri);
    compiled.delete(uri);
    lastSpec.delete(uri);
    texts.delete(uri);
    edits.delete(uri);
    // What its compilation published for other files goes too, unless another open document's did.
    const mine = published.get(uri) ?? new Set([uri]);
    published.delete(uri);
    const others = new Set([...published.values()].flatMap((x) => [...x]));
    for (const u of new Set([uri, ...mine])) if (u === uri || !others.has(u)) void connection.sendDiagnostics({ uri: u, diagnostics: [] });
    if (virtual.has(path)) virtual.delete(path);
    // Its saved text is what the documents reading it see now.
    void checkDependents(uri, path);
  });

  /** The word under a position: letters, digits, `_`, `-` and dots (`agent.security`, `steps.build.stdout`). */
  const wordAt = (doc: TextDocument, line: number, character: number): { word: string; range: LspRange } | undefined => {
    const text = doc.getText({ start: { line, character: 0 }, end: { line: line + 1, character: 0 } });
    const isWord = (ch: string | undefined) => ch !== undefined && /[\p{L}\p{N}_.-]/u.test(ch);
    let a = character;
    let b = character;
    while (isWord(text[a - 1])) a--;
    while (isWord(text[b])) b++;
    if (a === b) return undefined;
    return { word: text.slice(a, b).replace(/^\.+|\.+$/g, ""), range: { start: { line, character: a }, end: { line, character: b } } };
  };

  /** The reference under a position, as `kind.name` when the field says what it names (older `agent = "x"`). */
  const referenceAt = (doc: TextDocument, line: number, character: number): { word: string; range: LspRange } | undefined => {
    const w = wordAt(doc, line, character);
    if (!w || w.word.includes(".")) return w;
    const before = doc.getText({ start: { line, character: 0 }, end: w.range.start });
    return /\bagent\s*[=:]\s*"?$/.test(before) ? { ...w, word: `agent.${w.word}` } : w;
  };

  /** The HCL field or block name under a position when it starts its line (`timeout = …`, `outcome "x" {`), with its documentation. */
  const hclFieldAt = (doc: TextDocument, line: number, character: number): { doc: FieldDoc; range: LspRange } | undefined => {
    if (!isHcl(doc)) return undefined;
    const text = doc.getText({ start: { line, character: 0 }, end: { line: line + 1, character: 0 } });
    const m = /^(\s*)([A-Za-z_][\w-]*)(?=\s*(=|\{|"|[A-Za-z_]))/.exec(text);
    if (!m || character < m[1].length || character > m[1].length + m[2].length) return undefined;
    const blocks = blocksAt(doc.getText({ start: { line: 0, character: 0 }, end: { line, character: 0 } }));
    const f = blocks && fieldDoc(blocks, m[2]);
    return f ? { doc: f, range: { start: { line, character: m[1].length }, end: { line, character: m[1].length + m[2].length } } } : undefined;
  };

  /**
   * A module path under the cursor (`source = "./review_item"`, `workflow_file = "./body.hcl"`,
   * `use "./flows/x.hcl"`, YAML's `source: ./x`): its file, or a directory's first workflow file.
   */
  const modulePathAt = (doc: TextDocument, line: number, character: number): string | undefined => {
    const text = doc.getText({ start: { line, character: 0 }, end: { line: line + 1, character: 0 } });
    const m = /^(\s*(?:-\s*)?(?:source|workflow_file|use)\s*[=:]?\s*"?)([^"\s#]+)/.exec(text);
    if (!m || character < m[1].length || character > m[1].length + m[2].length) return undefined;
    const target = resolve(dirname(pathOf(doc.uri)), m[2]);
    const found = workflowFiles(target);
    return found.kind === "file" || found.kind === "dir" ? found.files[0] : undefined;
  };

  connection.onDefinition(async (p) => {
    refuseAfterShutdown();
    const doc = documents.get(p.textDocument.uri);
    const file = doc && modulePathAt(doc, p.position.line, p.position.character);
    if (file) return { uri: pathToFileURL(file).href, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } };
    const last = lastSpec.get(p.textDocument.uri);
    const w = doc && referenceAt(doc, p.position.line, p.position.character);
    if (!last || !w || !doc) return null;
    const stale = staleOf(doc, last);
    // Where the reference stood (for its scope); inside what changed, where it stands now.
    const was = stale.toOld(p.position) ?? p.position;
    const d = declarationOf(last.spec, w.word, placeIn(last.c, p.textDocument.uri, was.line, was.character));
    const range = d && (resolve(cwd, d.nameRange.file) === pathOf(p.textDocument.uri) ? stale.toNow(d.nameRange) : lspRange(d.nameRange));
    return d && range ? { uri: uriOf(resolve(cwd, d.nameRange.file)), range } : null;
  });

  connection.onHover(async (p) => {
    refuseAfterShutdown();
    const c = compiled.get(p.textDocument.uri);
    const doc = documents.get(p.textDocument.uri);
    if (!c || !doc) return null;
    const at = (r: Range) => {
      const l = lspRange(r);
      const { line, character } = p.position;
      const after = (x: { line: number; character: number }) => line > x.line || (line === x.line && character >= x.character);
      const before = (x: { line: number; character: number }) => line < x.line || (line === x.line && character <= x.character);
      return after(l.start) && before(l.end);
    };
    const path = pathOf(p.textDocument.uri);
    const here = c.diagnostics.filter((d) => resolve(cwd, d.range.file) === path && at(d.range));
    if (here.length > 0) {
      const value = here.map((d) => `**${d.code}** (${d.severity}): ${CODES[d.code].doc}\n\n${d.message}${d.hint ? `\n\nhint: ${d.hint}` : ""}`).join("\n\n---\n\n");
      return { contents: { kind: "markdown", value } };
    }
    // A field or block name that starts its line (HCL): the schema's documentation of it.
    const field = hclFieldAt(doc, p.position.line, p.position.character);
    if (field) return { contents: { kind: "markdown", value: `**${field.doc.name}** (${field.doc.kind})\n\n${field.doc.doc}` }, range: field.range };
    const last = lastSpec.get(p.textDocument.uri);
    const w = last && referenceAt(doc, p.position.line, p.position.character);
    const stale = last && staleOf(doc, last);
    const was = stale?.toOld(p.position) ?? p.position;
    const d = w && last ? declarationOf(last.spec, w.word, placeIn(last.c, p.textDocument.uri, was.line, was.character)) : undefined;
    if (!d || !stale) return null;
    // Its first line as written: in this document where it stands now, in another file as compiled.
    const full = cover(d.range, d.nameRange);
    const mine = resolve(cwd, d.range.file) === pathOf(p.textDocument.uri);
    const shown = mine ? stale.toNow(full) : undefined;
    if (mine && !shown) return null;
    const line = (shown ? doc.getText(shown) : (last!.c.sources.get(d.range.file)?.text ?? "").slice(full.start.offset, full.end.offset)).split("\n")[0];
    return { contents: { kind: "markdown", value: `${d.kind} **${d.name}**\n\n\`\`\`\n${line}\n\`\`\`` }, range: w!.range };
  });

  connection.onCompletion(async (p) => {
    refuseAfterShutdown();
    const doc = documents.get(p.textDocument.uri);
    const last = lastSpec.get(p.textDocument.uri);
    if (!doc) return [];
    const before = doc.getText({ start: { line: p.position.line, character: 0 }, end: p.position });
    // At the start of a statement in HCL: the fields and blocks the enclosing block takes, documented.
    if (isHcl(doc) && /^\s*[A-Za-z_]?[\w-]*$/.test(before)) {
      const blocks = blocksAt(doc.getText({ start: { line: 0, character: 0 }, end: { line: p.position.line, character: 0 } }));
      return (blocks ? fieldsIn(blocks) : []).map((f) => ({
        label: f.name,
        kind: f.kind === "block" ? CompletionItemKind.Module : CompletionItemKind.Property,
        detail: f.kind,
        documentation: { kind: "markdown" as const, value: f.doc },
      }));
    }
    if (!last) return [];
    const was = staleOf(doc, last).toOld(p.position) ?? p.position;
    const at = placeIn(last.c, p.textDocument.uri, was.line, was.character);
    const m = /([A-Za-z_]+)\.([\p{L}\p{N}_-]*)$/u.exec(before);
    const names = m ? namesAfter(last.spec, m[1], at) : /(next|transition_to|initial_state|target_state|default_outcome)\s*[=:]\s*"?[\p{L}\p{N}_-]*$/u.test(before) ? namesAfter(last.spec, undefined, at) : [];
    return names.map((d) => ({ label: d.name, kind: d.kind === "step" ? CompletionItemKind.Function : d.kind === "state" ? CompletionItemKind.EnumMember : CompletionItemKind.Reference, detail: d.kind }));
  });

  connection.onDocumentSymbol(async (p) => {
    refuseAfterShutdown();
    const spec = lastSpec.get(p.textDocument.uri)?.spec;
    const path = pathOf(p.textDocument.uri);
    if (!spec) return [];
    const mine = (d: Declaration) => resolve(cwd, d.range.file) === path;
    // LSP wants the name inside the symbol's range; a YAML entry's range starts at its value.
    const symbol = (d: Declaration): DocumentSymbol => ({ name: d.name, detail: d.kind, kind: KIND[d.kind], range: lspRange(cover(d.range, d.nameRange)), selectionRange: lspRange(d.nameRange), children: d.children.filter(mine).map(symbol) });
    return outline(spec).filter(mine).map(symbol);
  });

  documents.listen(connection);
  connection.listen();
}

/** Whether a document is HCL (by its name; YAML and JSON fields are the YAML schema's to complete). */
function isHcl(doc: TextDocument): boolean {
  return doc.languageId === "hcl" || doc.uri.endsWith(".hcl");
}

/** The smallest range holding both `a` and `b` (of one file). */
function cover(a: Range, b: Range): Range {
  const first = (x: Range["start"], y: Range["start"]) => (x.offset <= y.offset ? x : y);
  const last = (x: Range["start"], y: Range["start"]) => (x.offset >= y.offset ? x : y);
  return { ...a, start: first(a.start, b.start), end: last(a.end, b.end) };
}

/** A compiler range as LSP's (0-based line, UTF-16 character). */
function lspRange(r: Range): LspRange {
  return { start: { line: r.start.line - 1, character: r.start.utf16Column - 1 }, end: { line: r.end.line - 1, character: r.end.utf16Column - 1 } };
}

/** A compiler diagnostic as LSP's: the same code, message (with its hint) and range. */
function toLsp(d: Diagnostic): LspDiagnostic {
  return {
    range: lspRange(d.range),
    severity: d.severity === "error" ? DiagnosticSeverity.Error : DiagnosticSeverity.Warning,
    code: d.code,
    source: "criteria",
    message: d.hint ? `${d.message}\nhint: ${d.hint}` : d.message,
  };
}
