import { readFileSync, statSync } from "node:fs";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { SourceFile } from "../diagnostics/source-file.js";

/** The largest workflow file read: 4 MiB (docs/language.md, Files and modules). */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;

/** The hint of a symlink that leads to itself. */
export const LOOP_HINT = "point the symlink at the file itself (ls -l shows where it leads)";

/**
 * The hint of a `file_unreadable` diagnostic for the error code of the read (`EACCES`, ...):
 * what to check (found by a new-user trial: an unreadable file's error had no hint).
 */
export function unreadableHint(code: string | undefined): string {
  if (code === "EACCES" || code === "EPERM") return "this user may not read it: check the file's owner and mode (ls -l) and those of its directories";
  if (code === "EISDIR") return "name a file, not a directory";
  if (code === "EMFILE" || code === "ENFILE") return "too many files are open: close some, or raise the limit (ulimit -n)";
  return "check that the file exists and can be read (ls -l)";
}

/**
 * Reads one workflow file as UTF-8 text and refuses what is not a workflow file:
 * missing (`file_not_found`), unreadable, over {@link MAX_FILE_BYTES} (`file_too_large`,
 * checked with stat before reading), containing NUL bytes (`file_binary`), or not
 * UTF-8 (`file_not_utf8`, at the first bad byte). A leading BOM is dropped.
 *
 * @param absPath the path to read
 * @param shown the path printed in diagnostics
 * @returns the SourceFile and whether a BOM was dropped, or no file with one diagnostic
 */
export function readSource(absPath: string, shown: string): { file?: SourceFile; bom?: boolean; diagnostics: Diagnostic[] } {
  const empty = new SourceFile(shown, "");
  const at = empty.range(0);
  let size: number;
  try {
    const st = statSync(absPath);
    if (!st.isFile()) return fail(diag("file_unreadable", at, `${shown} is not a regular file`, { hint: "name a workflow file (.hcl, .yaml, .json) or the directory of one" }));
    size = st.size;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ELOOP") return fail(diag("file_unreadable", at, `${shown} is a symlink loop`, { hint: LOOP_HINT }));
    if (code === "ENOENT" || code === "ENOTDIR") {
      return fail(diag("file_not_found", at, `${shown} does not exist`, { hint: "check the path; it is relative to the current directory" }));
    }
    return fail(diag("file_unreadable", at, `${shown} could not be read (${code ?? "error"})`, { hint: unreadableHint(code) }));
  }
  if (size > MAX_FILE_BYTES) {
    return fail(
      diag("file_too_large", at, `${shown} is ${size} bytes, over the ${MAX_FILE_BYTES}-byte limit`, {
        hint: "split the workflow into several files or subworkflows",
      }),
    );
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(absPath);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return fail(diag("file_unreadable", at, `${shown} could not be read (${code ?? "error"})`, { hint: unreadableHint(code) }));
  }
  return decodeSource(bytes, shown);
}

/**
 * Decodes bytes already in memory (stdin, tests) with the same refusals as {@link readSource}.
 */
export function decodeSource(bytes: Uint8Array, shown: string): { file?: SourceFile; bom?: boolean; diagnostics: Diagnostic[] } {
  if (bytes.length > MAX_FILE_BYTES) {
    const at = new SourceFile(shown, "").range(0);
    return fail(diag("file_too_large", at, `${shown} is ${bytes.length} bytes, over the ${MAX_FILE_BYTES}-byte limit`));
  }
  const wide = wideEncoding(bytes);
  if (wide) {
    return fail(
      diag("file_not_utf8", new SourceFile(shown, "").range(0), `${shown} is ${wide} text, not UTF-8`, {
        hint: `save the file as UTF-8 (e.g. iconv -f ${wide.replace(/ .*/, "")} -t UTF-8)`,
      }),
    );
  }
  const nul = bytes.indexOf(0);
  if (nul >= 0) {
    const prefix = new TextDecoder("utf-8", { fatal: false }).decode(bytes.subarray(0, nul));
    const f = new SourceFile(shown, prefix);
    return fail(
      diag("file_binary", f.range(prefix.length), `${shown} contains a NUL byte at byte ${nul}: it is not a text file`, {
        hint: "workflow files are UTF-8 text (.hcl, .yaml, .yml, .json)",
      }),
    );
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    const bad = firstInvalidUtf8(bytes);
    const prefix = new TextDecoder("utf-8").decode(bytes.subarray(0, bad));
    const f = new SourceFile(shown, prefix);
    return fail(
      diag("file_not_utf8", f.range(prefix.length), `${shown} is not valid UTF-8 (bad byte 0x${bytes[bad]?.toString(16).padStart(2, "0")} at byte ${bad})`, {
        hint: "save the file as UTF-8",
      }),
    );
  }
  // TextDecoder drops a leading BOM itself: it is seen in the bytes.
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return { file: new SourceFile(shown, text), bom, diagnostics: [] };
}

/**
 * The encoding of text written 16 or 32 bits a character (a Windows editor's "Unicode"),
 * named for the message, or undefined: by its byte order mark, or without one by the
 * NUL bytes of most of its first characters (ASCII text in UTF-16 or UTF-32). Such a file
 * holds NUL bytes, and was reported as binary before (found by a new-user trial).
 */
function wideEncoding(b: Uint8Array): string | undefined {
  if (b[0] === 0xff && b[1] === 0xfe) return b[2] === 0 && b[3] === 0 ? "UTF-32LE (little-endian)" : "UTF-16LE (little-endian)";
  if (b[0] === 0xfe && b[1] === 0xff) return "UTF-16BE (big-endian)";
  if (b[0] === 0 && b[1] === 0 && b[2] === 0xfe && b[3] === 0xff) return "UTF-32BE (big-endian)";
  // Without a mark: ASCII in UTF-32 is one byte and three NULs a character, in UTF-16 one and one.
  const n4 = Math.min(b.length - (b.length % 4), 64);
  if (n4 >= 8) {
    let le = 0;
    let be = 0;
    for (let i = 0; i < n4; i += 4) {
      if (b[i] !== 0 && b[i + 1] === 0 && b[i + 2] === 0 && b[i + 3] === 0) le++;
      if (b[i] === 0 && b[i + 1] === 0 && b[i + 2] === 0 && b[i + 3] !== 0) be++;
    }
    if (le >= (n4 / 4) * 0.75) return "UTF-32LE (little-endian)";
    if (be >= (n4 / 4) * 0.75) return "UTF-32BE (big-endian)";
  }
  const n = Math.min(b.length - (b.length % 2), 64);
  if (n < 4) return undefined;
  let even = 0;
  let odd = 0;
  for (let i = 0; i < n; i += 2) {
    if (b[i] === 0 && b[i + 1] !== 0) even++;
    if (b[i + 1] === 0 && b[i] !== 0) odd++;
  }
  // Most characters of a first line are ASCII (a comment may hold a dash or an accent).
  if (even === 0 && odd >= (n / 2) * 0.75) return "UTF-16LE (little-endian)";
  if (odd === 0 && even >= (n / 2) * 0.75) return "UTF-16BE (big-endian)";
  return undefined;
}

function fail(d: Diagnostic) {
  return { diagnostics: [d] };
}

/** Index of the first byte that starts an invalid UTF-8 sequence. */
export function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i];
    let n = 0;
    if (c < 0x80) n = 0;
    else if (c >= 0xc2 && c <= 0xdf) n = 1;
    else if (c >= 0xe0 && c <= 0xef) n = 2;
    else if (c >= 0xf0 && c <= 0xf4) n = 3;
    else return i;
    for (let k = 1; k <= n; k++) {
      const cc = b[i + k];
      if (cc === undefined || (cc & 0xc0) !== 0x80) return i;
    }
    if (n === 2) {
      const c1 = b[i + 1];
      if ((c === 0xe0 && c1 < 0xa0) || (c === 0xed && c1 > 0x9f)) return i;
    } else if (n === 3) {
      const c1 = b[i + 1];
      if ((c === 0xf0 && c1 < 0x90) || (c === 0xf4 && c1 > 0x8f)) return i;
    }
    i += n + 1;
  }
  return b.length;
}
