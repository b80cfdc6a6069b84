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

/**
 * The deepest nesting of a YAML file's block structure, by indentation: each line opens a
 * level at its indentation (closing those at or right of it), and each `- ` that starts it
 * one more; blank and comment lines open none. An upper bound of the block depth (a block
 * scalar's more-indented lines count too), run with {@link nestingDepth} before the `yaml`
 * package, whose parser recurses per level and overflowed the stack at ~900 levels of
 * block mappings (found by a trial of `--input @file.yaml`: 800 levels passed, 1,200 said
 * "Maximum call stack size exceeded").
 * @returns the depth reached and the offset of the line that first exceeded `limit`
 */
export function blockDepth(text: string, limit: number): { depth: number; at: number } {
  const open: number[] = [];
  let max = 0;
  for (let start = 0; start < text.length; ) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    let i = start;
    while (i < end && text.charCodeAt(i) === 32) i++;
    if (i < end && text.charCodeAt(i) !== 35 /* # */ && text.charCodeAt(i) !== 13) {
      const columns = [i - start];
      while (text.charCodeAt(i) === 45 /* - */ && text.charCodeAt(i + 1) === 32) {
        i += 2;
        while (i < end && text.charCodeAt(i) === 32) i++;
        columns.push(i - start);
      }
      while (open.length > 0 && open[open.length - 1] >= columns[0]) open.pop();
      open.push(...columns);
      if (open.length > max) {
        max = open.length;
        if (max > limit) return { depth: max, at: start + columns[0] };
      }
    }
    start = end + 1;
  }
  return { depth: max, at: 0 };
}
