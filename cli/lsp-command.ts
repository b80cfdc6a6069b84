import type { Command } from "commander";

/**
 * Registers `criteria lsp` (the issue "See and edit", item 3): a language server for
 * workflow files over stdio (cli/lsp/server.ts). It runs until the client says exit.
 * Editors start it themselves (README: Neovim, VS Code with a generic LSP client).
 */
export function registerLspCommand(program: Command): void {
  program
    .command("lsp")
    .description("a language server for workflow files over stdio (diagnostics as validate gives them, definitions, completion, hover, symbols)")
    .option("--stdio", "talk over stdin/stdout (the default and only transport)")
    .action(async () => {
      const { createConnection, ProposedFeatures } = await import("vscode-languageserver/node.js");
      const { serveLanguage } = await import("./lsp/server.js");
      const connection = createConnection(ProposedFeatures.all, process.stdin, process.stdout);
      serveLanguage(connection);
      // The server answers until the client's exit notification ends the process.
      await new Promise<never>(() => undefined);
    });
}
