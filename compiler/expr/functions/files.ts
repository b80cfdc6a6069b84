/**
 * File functions: file, fileexists, fileset, templatefile, and the glob patterns of
 * fileset.
 *
 * The file system is reached only through the caller's hooks (`FunctionOptions`), which
 * must confine paths to the workflow's directory; without a hook the function is an
 * error ("not available in this context"). Hook exceptions become evaluation errors.
 *
 * `templatefile(path, vars)` reads the file with `readFile` (the same path confinement
 * and size cap as `file`) and renders it as a Go `text/template` with `vars` as its data
 * (`{{ .key }}`, `{{ if }}`, `{{ range }}`, pipes and Go's template functions), as the
 * Go tool does (its docs: workflow.md "templatefile(path, vars)"; Terraform's HCL
 * `${...}` templates are not used). `vars` must be an object or map; a key the template
 * reads but `vars` lacks is an error naming the key and `path:line:col`
 * (`missingkey=error`); null renders as `<no value>`; whole numbers render without a
 * fraction (42.0 is `42`). The interpreter, its subset and its limits (4 MiB of output,
 * 1,000,000 loop iterations) are in go-template/. The result is always a string.
 *
 * `globToRegExp(pattern)`: Terraform's fileset patterns (doublestar) over `/`-separated
 * relative paths: `*` (any run of characters but `/`), `?` (one character but `/`),
 * `**` as a whole path segment (any number of directories), `[abc]` `[a-z]` `[!a]`
 * `[^a]` classes, `{a,b}` alternatives (nestable), `\x` a literal x.
 */
import { argStr, fn } from "./args.js";
import { GoTemplateError, renderGoTemplate } from "./go-template/index.js";
import type { FunctionOptions } from "../functions.js";
import { FunctionError, isObject, typeName, type FunctionTable } from "../value.js";

/** A regular expression matching the relative paths that a fileset pattern selects. */
export function globToRegExp(pattern: string): RegExp {
  let out = "";
  let braces = 0;
  let i = 0;
  const fail = (why: string): never => {
    throw new FunctionError(`invalid pattern ${JSON.stringify(pattern)}: ${why}`, 1);
  };
  while (i < pattern.length) {
    const c = pattern[i];
    if (c === "*" && pattern[i + 1] === "*" && (i === 0 || pattern[i - 1] === "/") && (i + 2 === pattern.length || pattern[i + 2] === "/")) {
      // `**/` matches any number of whole directories; a final `**` anything at all.
      out += i + 2 === pattern.length ? ".*" : "(?:[^/]*/)*";
      i += 3;
    } else if (c === "*") {
      while (pattern[i] === "*") i++;
      out += "[^/]*";
    } else if (c === "?") {
      out += "[^/]";
      i++;
    } else if (c === "[") {
      const end = pattern.indexOf("]", i + 2);
      if (end < 0) fail("unterminated [");
      let body = pattern.slice(i + 1, end);
      const negate = body.startsWith("!") || body.startsWith("^");
      if (negate) body = body.slice(1);
      if (body === "") fail("empty character class");
      const cls = body.replace(/\\(.)/gu, "$1").replace(/[\\\]\[^]/g, "\\$&");
      out += negate ? `(?!/)[^${cls}]` : `(?!/)[${cls}]`;
      i = end + 1;
    } else if (c === "{") {
      braces++;
      out += "(?:";
      i++;
    } else if (c === "," && braces > 0) {
      out += "|";
      i++;
    } else if (c === "}" && braces > 0) {
      braces--;
      out += ")";
      i++;
    } else {
      let lit = c;
      if (c === "\\") {
        if (i + 1 >= pattern.length) fail("trailing backslash");
        lit = pattern[++i];
      }
      out += lit.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
      i++;
    }
  }
  if (braces > 0) fail("unterminated {");
  try {
    return new RegExp(`^${out}$`, "u");
  } catch (err) {
    return fail((err as Error).message);
  }
}

/**
 * The file functions over the caller's hooks. `_table` (the whole function table) is not
 * used: Go templates call only their own functions.
 */
export function fileFunctions(opts: FunctionOptions, _table?: () => FunctionTable): FunctionTable {
  const unavailable = (name: string) => new FunctionError(`${name}() is not available in this context`);
  return {
    file: fn("path", "The contents of a file, by path relative to the workflow's directory.", 1, 1, (a) => {
      const path = argStr(a, 0);
      if (!opts.readFile) throw unavailable("file");
      return opts.readFile(path);
    }),
    fileexists: fn("path", "True when the path is a regular file (false for directories and missing paths).", 1, 1, (a) => {
      const path = argStr(a, 0);
      if (!opts.fileExists) throw unavailable("fileexists");
      return opts.fileExists(path);
    }),
    fileset: fn("path, pattern", "The files under path matching a glob (* ? ** [a-z] {a,b}), as sorted paths relative to the workflow's directory.", 2, 2, (a) => {
      const dir = argStr(a, 0);
      const pattern = argStr(a, 1);
      globToRegExp(pattern);
      if (!opts.fileSet) throw unavailable("fileset");
      return opts.fileSet(dir, pattern);
    }),
    templatefile: fn("path, vars",
      "Renders a file as a Go text/template ({{ .key }}, {{ if }}, {{ range }}, pipes) with the object vars as its data; a missing key is an error (the Go tool's templatefile, workflow.md).",
      2, 2, (a) => {
        const path = argStr(a, 0);
        const vars = a[1];
        if (!isObject(vars)) {
          throw new FunctionError(`vars must be an object or map, but got ${typeName(vars)}`, 1);
        }
        if (!opts.readFile) throw unavailable("templatefile");
        const text = opts.readFile(path);
        try {
          return renderGoTemplate(text, vars, path);
        } catch (err) {
          if (!(err instanceof GoTemplateError)) throw err;
          throw new FunctionError(err.message, err.kind === "syntax" ? 0 : err.kind === "missingkey" ? 1 : undefined);
        }
      }),
  };
}
