import { CST, Parser } from "yaml";

/** One error of the `yaml` package as parse-yaml.ts reads it: its code, first line of message, and offsets. */
export interface YamlErrorLike {
  code: string;
  message: string;
  pos: [number, number];
}

/**
 * A yaml package error said as the mistake a writer made: where (offsets into the text),
 * what (one line) and how to fix it. `cascades`: the errors after it follow from it (the
 * parser reads the lines after a tab or a badly indented key out of step) and are not
 * reported; they are read again once this one is fixed.
 */
export interface ExplainedYamlError {
  start: number;
  end: number;
  message: string;
  hint: string;
  cascades: boolean;
}

/** A key of a block mapping with its indentation: `  target: x` (the key, no quotes, no `- `). */
const KEY_LINE = /^( *)([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+(.*))?$/;

/**
 * Says a `yaml` package syntax error as the mistake that caused it, when it is one a
 * new-user trial made: a tab in the indentation (said at the tab, column 1, not after
 * it), a key indented less than the keys around it (one error at the key, naming the
 * column its siblings use, not three on other lines), `key:value` with no space (read as
 * one word), `key = value` (HCL's syntax in a YAML file), a `{` or `[` that is never
 * closed (said at the bracket, not on the next line), and an invalid escape in a
 * double-quoted value (use single quotes, or `\\`). Undefined for any other error: the
 * caller keeps the package's own message.
 *
 * @param text the file's text (the offsets are into it)
 * @param err the error to explain
 * @param all every error of the document (to count the other lines indented with tabs)
 */
export function explainYamlError(text: string, err: YamlErrorLike, all: readonly YamlErrorLike[]): ExplainedYamlError | undefined {
  const s = err.pos[0];
  const lineStart = text.lastIndexOf("\n", s - 1) + 1;
  const lineEnd = endOfLine(text, s);
  const line = text.slice(lineStart, lineEnd);
  switch (err.code) {
    case "TAB_AS_INDENT": {
      const indent = /^[ \t]*/.exec(line)?.[0] ?? "";
      const tab = indent.indexOf("\t");
      if (tab < 0) return undefined;
      const others = new Set(all.filter((e) => e.code === "TAB_AS_INDENT" && e !== err).map((e) => text.lastIndexOf("\n", e.pos[0] - 1)));
      others.delete(lineStart - 1);
      const more = others.size > 0 ? ` (${others.size} more line${others.size === 1 ? " is" : "s are"} indented with tabs after this one)` : "";
      return {
        start: lineStart + tab,
        end: lineStart + indent.length,
        message: `Tabs are not allowed as indentation${more}`,
        hint: "indent YAML with spaces, not tabs: as many spaces as the lines around it use (an editor's 'indent using spaces' converts the file)",
        cascades: true,
      };
    }
    case "BAD_DQ_ESCAPE": {
      const seq = /escape sequence (\\\S*)/.exec(err.message)?.[1] ?? "\\";
      return {
        start: s,
        end: Math.max(err.pos[1], s + 1),
        message: err.message,
        hint: `inside "..." a backslash starts an escape (\\n, \\t, \\"): write \\\\ for a backslash itself ("\\${seq}"), or quote the value with single quotes ('...'), where a backslash is kept as written`,
        cascades: false,
      };
    }
    case "BAD_INDENT": {
      const flow = /^Flow (map|sequence) in block collection/.exec(err.message)?.[1];
      const open = flow ? unclosedFlow(text, s, flow === "map" ? "{" : "[") : undefined;
      if (open === undefined) break;
      const bracket = flow === "map" ? "{" : "[";
      const key = KEY_LINE.exec(text.slice(text.lastIndexOf("\n", open - 1) + 1, open).replace(/[ \t]*$/, "") + " x")?.[2];
      const k = key ?? "key";
      return {
        start: open,
        end: open + 1,
        message: `this "${bracket}" is never closed: the ${flow === "map" ? "mapping" : "list"} it opens has no "${flow === "map" ? "}" : "]"}"`,
        hint:
          flow === "map"
            ? `close it with "}" (${k}: {} or ${k}: { a: 1, b: 2 }); to write the keys on the lines below, leave nothing after "${k}:" and indent them under it`
            : `close it with "]" (${k}: [a, b]); to write the items on the lines below, leave nothing after "${k}:" and write each as "- item", indented under it`,
        cascades: true,
      };
    }
  }
  const dedent = dedentedKey(text, s);
  if (dedent) return dedent;
  // `key:value` and `key = value` are read as one plain word, a key with no ":" after it.
  if ((err.code === "MULTILINE_IMPLICIT_KEY" || err.code === "MISSING_CHAR") && /^[ \t]*$/.test(text.slice(lineStart, s))) {
    const own = line.trim();
    const nospace = /^([A-Za-z_][\w.-]*):(\S.*)$/.exec(own);
    if (nospace && !/:\s/.test(nospace[2]) && !nospace[2].startsWith("/")) {
      return {
        start: s,
        end: lineEnd,
        message: `"${own}" is read as one word: a key needs a space after its ":"`,
        hint: `put a space after the ":": ${nospace[1]}: ${nospace[2]}`,
        cascades: true,
      };
    }
    const equals = /^([A-Za-z_][\w.-]*)\s*=\s*(\S.*)$/.exec(own);
    if (equals) {
      // Said in quotes: a hint's `name = value` is rewritten to YAML by dialect-hint.ts.
      return {
        start: s,
        end: lineEnd,
        message: `"${own}": YAML writes a key and its value with ":", not "="`,
        hint: `this is a YAML file: write ${equals[1]}: ${equals[2]} ("key = value" is HCL, for a .hcl file)`,
        cascades: true,
      };
    }
  }
  return undefined;
}

function endOfLine(text: string, at: number): number {
  const nl = text.indexOf("\n", at);
  const end = nl < 0 ? text.length : nl;
  return text[end - 1] === "\r" ? end - 1 : end;
}

/**
 * The offset of the `{` (or `[`) of the last flow collection opened before `before` that
 * has no closing bracket, read from the `yaml` package's concrete syntax tree.
 */
function unclosedFlow(text: string, before: number, bracket: "{" | "["): number | undefined {
  let found: number | undefined;
  const close = bracket === "{" ? "flow-map-end" : "flow-seq-end";
  for (const token of new Parser().parse(text)) {
    if (token.type !== "document") continue;
    CST.visit(token, (item) => {
      for (const node of [item.start, item.key, item.sep, item.value]) {
        if (!node || Array.isArray(node) || node.type !== "flow-collection") continue;
        const fc = node;
        if (fc.start.source === bracket && fc.offset < before && !fc.end.some((t) => t.type === close) && (found === undefined || fc.offset > found)) found = fc.offset;
      }
    });
  }
  return found;
}

/** A line of the text: its start, indentation and content (undefined: blank or a comment). */
interface Line {
  start: number;
  indent: number;
  text: string;
}

function lineAt(text: string, start: number): Line {
  const end = endOfLine(text, start);
  const t = text.slice(start, end);
  return { start, indent: t.length - t.trimStart().length, text: t };
}

function meaningful(l: Line): boolean {
  const t = l.text.trim();
  return t !== "" && !t.startsWith("#");
}

/**
 * A key with a value on its line (`  target: x`) indented less than the keys after it,
 * under a key with nothing after its ":" (`  build:`): the keys after it read as the
 * continuation of its value, three errors on other lines (found by a new-user trial).
 * Said once, at the key, naming the column its siblings start at.
 */
function dedentedKey(text: string, at: number): ExplainedYamlError | undefined {
  const start = text.lastIndexOf("\n", at - 1) + 1;
  const k = lineAt(text, start);
  const km = KEY_LINE.exec(k.text);
  if (!km || !km[3] || km[3].startsWith("#")) return undefined;
  // The line above: a key that opens a block (nothing after its ":"), at or left of this one.
  let p: Line | undefined;
  for (let s = start - 1; s > 0; ) {
    const ps = text.lastIndexOf("\n", s - 1) + 1;
    const l = lineAt(text, ps);
    if (meaningful(l)) {
      p = l;
      break;
    }
    s = ps - 1;
  }
  const pm = p ? KEY_LINE.exec(p.text) : undefined;
  if (!p || !pm || (pm[3] && !pm[3].startsWith("#")) || p.indent > k.indent) return undefined;
  // The lines after: keys at one deeper column, up to a line at or left of the parent's.
  const siblings: string[] = [];
  let column: number | undefined;
  for (let s = endOfLine(text, start); s < text.length; ) {
    const nl = text.indexOf("\n", s);
    if (nl < 0) break;
    const l = lineAt(text, nl + 1);
    s = nl + 1;
    if (!meaningful(l)) continue;
    if (column === undefined) {
      if (l.indent <= k.indent) return undefined;
      column = l.indent;
    }
    if (l.indent < column) {
      if (l.indent > p.indent) return undefined;
      break;
    }
    const m = l.indent === column ? KEY_LINE.exec(l.text) : undefined;
    if (l.indent === column && !m) return undefined;
    if (m) siblings.push(m[2]);
  }
  if (column === undefined || siblings.length === 0) return undefined;
  const names = siblings.length === 1 ? siblings[0] : `${siblings.slice(0, -1).join(", ")} and ${siblings[siblings.length - 1]}`;
  const keyAt = start + k.indent;
  return {
    start: keyAt,
    end: keyAt + km[2].length,
    message: `"${km[2]}" starts at column ${k.indent + 1}, but the other keys of "${pm[2]}" (${siblings.join(", ")}) start at column ${column + 1}`,
    hint: `indent ${km[2]} by ${column} spaces, like ${names}: the keys of one mapping start at the same column`,
    cascades: true,
  };
}
