/**
 * Go `text/template`, as `templatefile(path, vars)` renders it.
 *
 * Source: the Go tool's docs (workflow.md "templatefile(path, vars)"): the file is a Go
 * `text/template` (https://pkg.go.dev/text/template) executed with `vars` as its data and
 * `missingkey=error`; null values render as `<no value>`; numbers that are exactly
 * integers become Go `int64` (so 42.0 renders `42`), others `float64`; lists become
 * `[]interface{}` and objects `map[string]interface{}`. The behaviour here follows Go's
 * `text/template` and `fmt` packages, checked against Go's output.
 *
 * Supported:
 * - text and `{{ }}` actions; trim markers `{{- ` and ` -}}` (the `-` needs a space,
 *   tab or newline beside it); comments `{{/* ... *\/}}` (also `{{- /* ... *\/ -}}`);
 *   actions may span lines.
 * - pipelines: `.`, `.a.b` field chains (map keys), `$` (the data) and `$x` variables,
 *   `$x.a`, `(pipeline).a`, literals (`"..."` with Go escapes, raw `` `...` ``, numbers
 *   in Go syntax (0x, 0o, 0b, _, 1e3), 'c' characters, true, false, nil), `|` pipes
 *   (the value becomes the next command's last argument), `{{ $x := p }}`,
 *   `{{ $x = p }}`.
 * - `if` / `else if` / `else` / `end`; `with` / `else with` / `else`; `range` over a list,
 *   a map (sorted keys) or an integer (Go 1.22), with `$e :=` or `$i, $e :=`, an `else`
 *   for no iterations, and `break` / `continue`. Go's truthiness: false, 0, nil, "" and
 *   empty lists and maps are false.
 * - functions: and, or (short-circuit, yielding an operand), not, len (bytes of a string),
 *   index, slice, eq (any number of alternatives), ne, lt, le, gt, ge (the same kind only:
 *   int64 data and 1 compare; a float and 1 do not, as in Go), print, printf, println,
 *   html, js, urlquery, call (always an error: data holds no functions).
 * - printf / print formatting as Go's fmt: verbs %v %s %d %q %f %F %e %E %g %G %t %x %X
 *   %o %O %b %c %U %T %%, flags `+ - # 0 space`, width, `.precision`, `*`, `%[n]`, and
 *   Go's error markers (`%!d(string=x)`, `%!s(MISSING)`, `%!(EXTRA int=1)`). One
 *   deliberate difference: the float verbs (%f %e %g) format an integer as a float
 *   (`printf "%.1f" 42` is `42.0`), as the Go tool's docs promise, where Go's fmt would
 *   print `%!f(int64=42)`. %x of a float and %p are not supported (error markers).
 *
 * Refused with an error: `define`, `template` and `block` (one template per file),
 * complex numbers.
 *
 * Limits: output above 4 MiB, more than 1,000,000 range iterations in total, more than
 * 64 MiB of strings made by functions, control structures or parentheses nested more
 * than 200 deep, data nested more than 1,000 deep: each an error, never a hang.
 *
 * Errors: `GoTemplateError`, its message `NAME:LINE:COL: ...` (`kind` "syntax" for parse
 * errors, "missingkey" for a key absent from a map, "exec" for other execution errors,
 * "limit" for the limits above). Execution errors add the action, as Go does:
 * `t.tmpl:2:5: at <.name>: map has no entry for key "name"`.
 *
 * Layout, one stage a file: values.ts (the Go value model, limits, errors), lex.ts
 * (tokens), parse.ts (the parse tree and Go literals), strconv.ts and fmt.ts (Go's
 * number and string formatting), builtins.ts (the template's functions), exec.ts
 * (execution and the entry points). This file is the public API.
 */
export { executeGoTemplate, parseGoTemplate, renderGoTemplate, type GoTemplate } from "./exec.js";
export {
  GO_TEMPLATE_LIMITS, GoInt, GoTemplateError, toGoValue, type GoMap, type GoTemplateErrorKind, type GoVal,
} from "./values.js";
