import type { Diagnostic } from "./diagnostic.js";

/**
 * One GitHub Actions workflow command per diagnostic (`::error file=…,line=…,col=…,
 * endLine=…,endColumn=…,title=…::message`), printed when `GITHUB_ACTIONS=true` so the
 * problems show as annotations on the pull request.
 */
export function formatGithub(d: Diagnostic): string {
  const esc = (s: string) => s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
  const prop = (s: string) => esc(s).replace(/:/g, "%3A").replace(/,/g, "%2C");
  const { file, start, end } = d.range;
  const msg = d.hint ? `${d.message} (${d.hint})` : d.message;
  return `::${d.severity} file=${prop(file)},line=${start.line},col=${start.column},endLine=${end.line},endColumn=${end.column},title=${prop(`criteria ${d.code}`)}::${esc(msg)}`;
}
