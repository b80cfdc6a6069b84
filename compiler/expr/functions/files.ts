/**
 * File functions: file, fileexists, fileset, templatefile, and the glob patterns of
 * fileset.
 *
 * The file system is reached only through the caller's hooks (`FunctionOptions`), which
 * must confine paths to the workflow's directory; without a hook the function is an
 * error ("not available in this context"). Hook exceptions become evaluation errors.
 *
 * `templatefile(path, vars)` reads the file with `readFile` and renders it as an HCL
 * template (`${...}`, `%{if}`, `%{for}`), as Terraform does (the Go tool used Go's
 * text/template instead). Its variables are exactly the keys of `vars`, which must be
 * identifiers; every function is available except `templatefile` itself. A template
 * that is one interpolation (`${x}`) yields x's value unconverted.
 *
 * `globToRegExp(pattern)`: Terraform's fileset patterns (doublestar) over `/`-separated
 * relative paths: `*` (any run of characters but `/`), `?` (one character but `/`),
 * `**` as a whole path segment (any number of directories), `[abc]` `[a-z]` `[!a]`
 * `[^a]` classes, `{a,b}` alternatives (nestable), `\x` a literal x.
 */
import { argObj, argStr, fn } from "./args.js";
import type { FunctionOptions } from "../functions.js";
import { evaluate } from "../eval.js";
import { parseTemplate } from "../parse.js";
import { references } from "../references.js";
import { FunctionError, type FunctionTable, type Value } from "../value.js";

/** HCL identifiers (hclsyntax `ValidIdentifier`). */
const IDENT = /^\p{ID_Start}[\p{ID_Continue}-]*$/u;

/** 1-based line and column of a UTF-16 offset in `text`. */
function lineCol(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return `${line},${offset - before.lastIndexOf("\n")}`;
}

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

/** Renders the template text of `path` with `vars` as its variables. */
function renderTemplate(path: string, text: string, vars: Record<string, Value>, functions: FunctionTable): Value {
  const parsed = parseTemplate(text);
  if (!parsed.expr) {
    const e = parsed.errors[0];
    throw new FunctionError(`${path}:${e ? `${lineCol(text, e.start)}: ${e.message}` : " syntax error"}`, 0);
  }
  for (const ref of references(parsed.expr)) {
    if (!Object.hasOwn(vars, ref.root)) {
      throw new FunctionError(`vars map does not contain key ${JSON.stringify(ref.root)}, referenced at ${path}:${lineCol(text, ref.start)}`, 1);
    }
  }
  const r = evaluate(parsed.expr, { variables: vars, functions });
  if (r.value === undefined || r.errors.length > 0) {
    throw new FunctionError(r.errors.map((e) => `${path}:${lineCol(text, e.start)}: ${e.message}`).join("; ") || `${path}: no value`);
  }
  return r.value;
}

/**
 * The file functions over the caller's hooks. `table` returns the whole function table,
 * which templates may call (without `templatefile`, as in Terraform).
 */
export function fileFunctions(opts: FunctionOptions, table: () => FunctionTable): FunctionTable {
  const unavailable = (name: string) => new FunctionError(`${name}() is not available in this context`);
  let inner: FunctionTable | undefined;
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
    templatefile: fn("path, vars", "Renders a file as an HCL template (${...}, %{if}, %{for}) with the keys of vars as its variables.", 2, 2, (a) => {
      const path = argStr(a, 0);
      const vars = argObj(a, 1);
      for (const k of Object.keys(vars)) {
        if (!IDENT.test(k)) throw new FunctionError(`invalid template variable name ${JSON.stringify(k)}: must start with a letter, followed by zero or more letters, digits, and underscores`, 1);
      }
      if (!opts.readFile) throw unavailable("templatefile");
      const text = opts.readFile(path);
      inner ??= {
        ...table(),
        templatefile: fn("path, vars", "Not available inside a template.", 2, 2, () => {
          throw new FunctionError("cannot recursively call templatefile from inside another template function");
        }),
      };
      return renderTemplate(path, text, vars, inner);
    }),
  };
}
