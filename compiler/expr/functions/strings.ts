/**
 * String functions of go-cty's stdlib and the Go tool: chomp, formatlist, indent,
 * strlen, strrev, title, trim, trimprefix, trimsuffix, trimfrontmatter.
 *
 * Semantics: `strlen`/`strrev` count grapheme clusters (as cty does); `trim` removes
 * the cutset's code points (Go's `strings.Trim`); `title` is Go's `strings.Title`
 * (upper-cases the first letter of each word, leaves the rest); `indent` adds spaces
 * after every line break but not before the first line; `chomp` removes every trailing
 * `\n` / `\r\n` / `\r`. `formatlist` formats once per element of its list arguments
 * (which must all have the same length), reusing non-list arguments every time.
 * `trimfrontmatter` removes a leading `---\n ... \n---\n` block closed within 64 KiB.
 */
import { formatValues } from "../format.js";
import { argInt, argStr, fn, graphemes } from "./args.js";
import { FunctionError, type FunctionTable, type Value } from "../value.js";

/** Unicode digraphs whose title case differs from their upper case (Go's `unicode.ToTitle`). */
const TITLE_CASE: Record<string, string> = {
  "\u01c4": "\u01c5", "\u01c5": "\u01c5", "\u01c6": "\u01c5",
  "\u01c7": "\u01c8", "\u01c8": "\u01c8", "\u01c9": "\u01c8",
  "\u01ca": "\u01cb", "\u01cb": "\u01cb", "\u01cc": "\u01cb",
  "\u01f1": "\u01f2", "\u01f2": "\u01f2", "\u01f3": "\u01f2",
};

/** Go's `strings.Title` word boundary test (`isSeparator`). */
function isSeparator(c: string): boolean {
  if (c.length === 1 && c.charCodeAt(0) <= 0x7f) return !/[0-9A-Za-z_]/.test(c);
  if (/[\p{L}\p{Nd}]/u.test(c)) return false;
  return /\p{White_Space}/u.test(c);
}

/** Go's `unicode.ToTitle` for one code point: a simple (one code point) mapping only. */
function toTitle(c: string): string {
  const t = TITLE_CASE[c];
  if (t) return t;
  const u = c.toUpperCase();
  return Array.from(u).length === 1 ? u : c;
}

/** Go's `strings.Title`. */
function title(s: string): string {
  let prev = " ";
  let out = "";
  for (const c of s) {
    out += isSeparator(prev) ? toTitle(c) : c;
    prev = c;
  }
  return out;
}

/** Go's `strings.Trim`: removes leading and trailing code points that are in `cutset`. */
function trimSet(s: string, cutset: string): string {
  const cut = new Set(cutset);
  const cps = Array.from(s);
  let start = 0;
  let end = cps.length;
  while (start < end && cut.has(cps[start])) start++;
  while (end > start && cut.has(cps[end - 1])) end--;
  return cps.slice(start, end).join("");
}

/** The most bytes a front matter block (delimiters included) may take. */
export const FRONT_MATTER_LIMIT = 64 * 1024;

/** `content` without a leading YAML front matter block (`---\n ... \n---\n`), else unchanged. */
export function trimFrontMatter(content: string): string {
  if (!content.startsWith("---\n")) return content;
  const close = content.indexOf("\n---\n", 3);
  if (close < 0) return content;
  const end = close + 5;
  if (Buffer.byteLength(content.slice(0, end)) > FRONT_MATTER_LIMIT) return content;
  return content.slice(end);
}

/** formatlist(spec, values...): one `format` per element of the list arguments. */
function formatList(a: Value[]): Value {
  const spec = argStr(a, 0);
  let length = -1;
  let chooser = -1;
  for (let i = 1; i < a.length; i++) {
    const v = a[i];
    if (!Array.isArray(v)) continue;
    if (length === -1) {
      length = v.length;
      chooser = i;
    } else if (v.length !== length) {
      throw new FunctionError(`argument ${i} has length ${v.length}, which is inconsistent with argument ${chooser} of length ${length}`, i);
    }
  }
  if (length === -1) length = 1;
  const out: string[] = [];
  for (let n = 0; n < length; n++) {
    const values = a.slice(1).map((v) => (Array.isArray(v) ? (v[n] ?? null) : v));
    try {
      out.push(formatValues(spec, values));
    } catch (err) {
      if (err instanceof FunctionError) throw new FunctionError(`error on format iteration ${n}: ${err.message}`, err.argIndex);
      throw err;
    }
  }
  return out;
}

/** The string functions that go-cty's stdlib and the Go tool add. */
export function stringFunctions(): FunctionTable {
  return {
    chomp: fn("string", "Removes newline characters (\\n, \\r\\n, \\r) from the end of a string.", 1, 1, (a) => argStr(a, 0).replace(/(?:\r\n?|\n)+$/, "")),
    formatlist: fn("spec, values...", "Formats each element of the list arguments with format(); other arguments repeat.", 1, Infinity, formatList),
    indent: fn("spaces, string", "Adds the number of spaces after every line break in the string (not before its first line).", 2, 2, (a) => {
      const n = argInt(a, 0);
      if (n < 0) throw new FunctionError("the number of spaces must not be negative", 0);
      if (n > 1000) throw new FunctionError("the number of spaces must be at most 1000", 0);
      return argStr(a, 1).replaceAll("\n", "\n" + " ".repeat(n));
    }),
    strlen: fn("string", "The number of characters (grapheme clusters) in a string.", 1, 1, (a) => graphemes(argStr(a, 0)).length),
    strrev: fn("string", "The string with its characters (grapheme clusters) in reverse order.", 1, 1, (a) => graphemes(argStr(a, 0)).reverse().join("")),
    title: fn("string", "Upper-cases the first letter of every word in a string.", 1, 1, (a) => title(argStr(a, 0))),
    trim: fn("string, cutset", "Removes every character in cutset from the start and end of the string.", 2, 2, (a) => trimSet(argStr(a, 0), argStr(a, 1))),
    trimprefix: fn("string, prefix", "Removes the prefix from the start of the string, once, if it is there.", 2, 2, (a) => {
      const s = argStr(a, 0);
      const p = argStr(a, 1);
      return s.startsWith(p) ? s.slice(p.length) : s;
    }),
    trimsuffix: fn("string, suffix", "Removes the suffix from the end of the string, once, if it is there.", 2, 2, (a) => {
      const s = argStr(a, 0);
      const p = argStr(a, 1);
      return p !== "" && s.endsWith(p) ? s.slice(0, s.length - p.length) : s;
    }),
    trimfrontmatter: fn("content", "Removes a leading YAML front matter block (---\\n ... \\n---\\n) from the content.", 1, 1, (a) => trimFrontMatter(argStr(a, 0))),
  };
}
