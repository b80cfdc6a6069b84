/**
 * The deepest nesting of `{`, `[` and `(` in a file, outside strings and comments: a
 * cheap, linear guard run before a parser that recurses (the `yaml` package overflows
 * the stack on ~50,000 nested flow collections; hcl2json allocates per level).
 *
 * Comments: `#` (both dialects), `//` and `/* *\/` (HCL). Strings: `"..."` with
 * backslash escapes, and (YAML) `'...'` with `''` escapes.
 *
 * @returns the depth reached and the offset of the bracket that first exceeded `limit`
 */
export function nestingDepth(text: string, dialect: "hcl" | "yaml", limit: number): { depth: number; at: number } {
  let d = 0;
  let max = 0;
  let at = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 35 /* # */ || (dialect === "hcl" && c === 47 && text.charCodeAt(i + 1) === 47)) {
      while (i < n && text.charCodeAt(i) !== 10) i++;
    } else if (dialect === "hcl" && c === 47 && text.charCodeAt(i + 1) === 42) {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? n : end + 1;
    } else if (c === 34 /* " */) {
      for (i++; i < n; i++) {
        const x = text.charCodeAt(i);
        if (x === 92) i++;
        else if (x === 34 || x === 10) break;
      }
    } else if (dialect === "yaml" && c === 39 /* ' */ && (i === 0 || /[\s[{,:-]/.test(text[i - 1]))) {
      for (i++; i < n; i++) {
        if (text.charCodeAt(i) === 39) {
          if (text.charCodeAt(i + 1) === 39) i++;
          else break;
        }
      }
    } else if (c === 123 || c === 91 || c === 40) {
      if (++d > max) {
        max = d;
        if (max > limit) return { depth: max, at: i };
        at = i;
      }
    } else if (c === 125 || c === 93 || c === 41) d = Math.max(0, d - 1);
  }
  return { depth: max, at };
}
