import type { Diagnostic } from "./diagnostic.js";

/**
 * One GitHub Actions workflow command per diagnostic (`::error file=…,line=…,col=…,
 * endLine=…,endColumn=…,title=…::message`), printed when `GITHUB_ACTIONS=true` so the
 * problems show as annotations on the pull request. Notes (`related`) follow the message
 * with their positions, as the text output gives them.
 */
export function formatGithub(d: Diagnostic): string {
  const esc = (s: string) => s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
  const prop = (s: string) => esc(s).replace(/:/g, "%3A").replace(/,/g, "%2C");
  const { file, start, end } = d.range;
  // A note names its place as the text output does ("first declared here (a.hcl:1:1)"): an annotation has one location.
  const notes = (d.related ?? []).map((r) => `; ${r.message} (${r.range.file}:${r.range.start.line}:${r.range.start.column})`).join("");
  const msg = `${d.message}${notes}${d.hint ? ` (${d.hint})` : ""}`;
  return `::${d.severity} file=${prop(file)},line=${start.line},col=${start.column},endLine=${end.line},endColumn=${end.column},title=${prop(`criteria ${d.code}`)}::${esc(msg)}`;
}
