import { isAbsolute, relative, resolve, sep } from "node:path";
import { shown } from "./control-pictures.js";
import type { Diagnostic } from "./diagnostic.js";

/**
 * One GitHub Actions workflow command per diagnostic (`::error file=…,line=…,col=…,
 * endLine=…,endColumn=…,title=…::message`), printed when `GITHUB_ACTIONS=true` so the
 * problems show as annotations on the pull request. Notes (`related`) follow the message
 * with their positions, as the text output gives them. `where.workspace`
 * (`GITHUB_WORKSPACE`, the checkout): a file inside it is named relative to it, as
 * GitHub matches annotations to a pull request's files (a file outside the working
 * directory was shown absolute, found by a new-user trial of CI use); `where.cwd` is
 * what shown paths are relative to (default: the process's).
 */
export function formatGithub(d: Diagnostic, where: { workspace?: string; cwd?: string } = {}): string {
  // Control characters as pictures first (a raw ESC reached the log; found by a new-user trial), then GitHub's escapes.
  const esc = (s: string) => shown(s, true).replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
  const prop = (s: string) => esc(s).replace(/:/g, "%3A").replace(/,/g, "%2C");
  const { start, end } = d.range;
  const file = inWorkspace(d.range.file, where);
  // A note names its place as the text output does ("first declared here (a.hcl:1:1)"): an annotation has one location.
  const notes = (d.related ?? []).map((r) => `; ${r.message} (${r.range.file}:${r.range.start.line}:${r.range.start.column})`).join("");
  const msg = `${d.message}${notes}${d.hint ? ` (${d.hint})` : ""}`;
  return `::${d.severity} file=${prop(file)},line=${start.line},col=${start.column},endLine=${end.line},endColumn=${end.column},title=${prop(`criteria ${d.code}`)}::${esc(msg)}`;
}

/** `file` (shown: relative to `cwd`, or absolute) relative to `workspace` when inside it; else as it is. */
function inWorkspace(file: string, where: { workspace?: string; cwd?: string }): string {
  if (!where.workspace) return file;
  const abs = resolve(where.cwd ?? process.cwd(), file);
  const rel = relative(resolve(where.workspace), abs);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel.split(sep).join("/") : file;
}
