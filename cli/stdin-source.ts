import { resolve } from "node:path";
import { MAX_FILE_BYTES } from "../compiler/load/read-source.js";
import { CliError, EXIT } from "./io.js";

/**
 * `-` as a PATH (`criteria validate -`, `criteria fmt --to v0.5 -`): the workflow text an
 * editor's format-on-save or check hook pipes in, compiled as if it were the file
 * `--stdin-name` names (its dialect from the extension, relative paths in it from that
 * file's directory; a file on disk of that name is not read: the text stands for it), as
 * eslint's `--stdin-filename` does. Without a name, `stdin.hcl`, or `stdin.json` /
 * `stdin.yaml` when the text starts like one (found by a new-user trial: `-` was a file
 * that did not exist).
 * @returns the name shown in diagnostics and the overlay to compile with (absolute path → text)
 * @throws CliError (exit 2) for a text over {@link MAX_FILE_BYTES}
 */
export async function stdinSource(name: string | undefined, cwd: string, input: AsyncIterable<Buffer | string> = process.stdin): Promise<{ path: string; abs: string; text: string; overlay: Map<string, string> }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of input) {
    const b = typeof c === "string" ? Buffer.from(c) : c;
    size += b.length;
    if (size > MAX_FILE_BYTES) throw new CliError(`standard input holds more than ${MAX_FILE_BYTES} bytes: a workflow file is smaller`, EXIT.usage);
    chunks.push(b);
  }
  const text = Buffer.concat(chunks).toString("utf8").replace(/^\uFEFF/, "");
  const path = name ?? `stdin.${sniff(text)}`;
  const abs = resolve(cwd, path);
  return { path, abs, text, overlay: new Map([[abs, text]]) };
}

/** The dialect a text without a name looks like: JSON when it starts with `{`, YAML when with `---` or `workflow:`, else HCL. */
function sniff(text: string): "hcl" | "json" | "yaml" {
  const start = text.replace(/^(\s|#[^\n]*\n)*/, "");
  if (start.startsWith("{")) return "json";
  if (start.startsWith("---") || /^workflow:\s*(#.*)?$/m.test(start.split("\n")[0])) return "yaml";
  return "hcl";
}

/**
 * Refuses `--stdin-name` empty, or without `-` among the PATHs (a usage error, exit 2): it names
 * the text on standard input, which is read only for `-` (found by a new-user trial:
 * `validate --stdin-name f.yaml file.hcl` ignored it silently).
 */
export function refuseStdinNameWithoutDash(stdinName: string | undefined, paths: string[]): void {
  // Empty, it names nothing (a trial: validate --stdin-name '' - printed ": ok").
  if (stdinName === "") throw new CliError(`--stdin-name is empty; give the file the text stands for (e.g. --stdin-name workflow.hcl), or drop it`, EXIT.usage);
  if (stdinName !== undefined && !paths.includes("-")) throw new CliError(`--stdin-name ${stdinName}: it names standard input, which is read with - as the PATH; give -, or drop --stdin-name`, EXIT.usage);
}
