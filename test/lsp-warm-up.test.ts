/**
 * The language server's warm-up (cli/lsp/warm-up.ts): once idle after its first check, the
 * server compiles a workflow of its own through the incremental path so the first edits
 * are not the slow ones (the bench's figure). Here: it happens (the server says so when
 * done), its texts are valid (else it would warm error paths, not the ones users take),
 * it publishes nothing and writes nothing, and edits are answered right.
 */
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { DidChangeTextDocumentNotification, DidOpenTextDocumentNotification } from "vscode-languageserver-protocol/node.js";
import { warmHcl, warmUpCount, warmYaml } from "../cli/lsp/warm-up.js";
import { compile } from "../compiler/index.js";
import { startLsp } from "./lsp-client.js";

describe("the language server's warm-up", () => {
  it("its workflows are valid, HCL and YAML (a warm-up over errors would warm the wrong path)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-warm-"));
    for (const [name, text] of [["w.hcl", warmHcl(16)], ["w.yaml", warmYaml(8)]] as const) {
      writeFileSync(join(dir, name), text);
      const c = await compile(join(dir, name));
      expect(c.diagnostics.map((d) => `${d.code}: ${d.message}`), name).toEqual([]);
    }
  });

  it("CRITERIA_LSP_WARM_UP: a whole number sets the count (at most 5,000: a new-user trial's 99999999 burned a core), anything else leaves 240", () => {
    expect([warmUpCount(undefined), warmUpCount("0"), warmUpCount(" 12 "), warmUpCount("-3"), warmUpCount("1e3"), warmUpCount(""), warmUpCount("99999999")]).toEqual([240, 0, 12, 240, 240, 240, 5000]);
  });

  it("runs once idle after the first check, says so, publishes and writes nothing; an edit right after opening is answered", async () => {
    const dir = mkdtempSync(join(tmpdir(), "criteria-lsp-warm-"));
    const file = join(dir, "w.hcl");
    const text = warmHcl(3).replace("typed", "mine");
    writeFileSync(file, text);
    const lsp = await startLsp(dir, { env: { CRITERIA_LSP_WARM_UP: "24" } });
    const { conn, published, logs, until } = lsp;
    try {
      const uri = pathToFileURL(file).href;
      await conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: "hcl", version: 1, text } });
      await until("the first diagnostics", () => published.length === 1);
      // Right after opening: a typo (answered before or between warm-up compiles), then its fix after the warm-up.
      await conn.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version: 2 }, contentChanges: [{ text: text.replace('next = "s1"', 'next = "s9"') }] });
      await until("the typo's diagnostics", () => published.length === 2);
      expect(published[1].diagnostics[0].code).toBe("unknown_node");
      await until("the warm-up's end", () => logs.some((l) => l.includes("warmed up")));
      expect(logs.find((l) => l.includes("warmed up"))).toMatch(/^criteria: warmed up \(24 compiles in \d+ ms\)$/);
      await conn.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version: 3 }, contentChanges: [{ text }] });
      await until("the fix's diagnostics", () => published.length === 3);
      expect(published[2].diagnostics).toEqual([]);
      expect(new Set(published.map((p) => p.uri))).toEqual(new Set([uri]));
      expect(readdirSync(dir)).toEqual(["w.hcl"]);
      expect(existsSync(join(process.cwd(), ".criteria-warm-up-not-on-disk"))).toBe(false);
    } finally {
      await lsp.stop();
    }
  }, 30_000);
});
