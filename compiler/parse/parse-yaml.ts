import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, visit, type Document, type Node as YamlNode } from "yaml";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { SourceFile } from "../diagnostics/source-file.js";
import { MAX_DEPTH, jsonObject, type JsonValue, type ParsedFile } from "./document.js";
import { blockDepth, nestingDepth } from "./nesting-depth.js";
import { jsonSyntaxError } from "./json-error.js";
import { scalarChars } from "./scalar-offsets.js";
import { explainYamlError } from "./yaml-error.js";
import { childPointer, type SourceMap } from "./source-map.js";

/** Most aliases one YAML document may use before it is refused as an alias bomb. */
export const MAX_ALIASES = 100;
/** Most nodes an alias expansion may produce in one document. */
export const MAX_ALIAS_NODES = 10_000;

/**
 * Parses a YAML or JSON file (JSON is YAML 1.2) with the `yaml` package into a plain
 * value and a source map built from the nodes' own ranges. Duplicate keys, syntax
 * errors, alias bombs (`yaml_alias_limit`: more than {@link MAX_ALIASES} aliases or
 * {@link MAX_ALIAS_NODES} expanded nodes; refused, never expanded) and nesting past
 * {@link MAX_DEPTH} (`nesting_too_deep`) are diagnostics. Never throws.
 */
export function parseYaml(file: SourceFile): { parsed?: ParsedFile; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const brackets = nestingDepth(file.text, "yaml", MAX_DEPTH);
  const depth = brackets.depth > MAX_DEPTH ? brackets : blockDepth(file.text, MAX_DEPTH);
  if (depth.depth > MAX_DEPTH) {
    return { diagnostics: [diag("nesting_too_deep", file.range(depth.at, depth.at + 1), `values nest deeper than ${MAX_DEPTH} levels`, { hint: NESTING_HINT })] };
  }
  let doc: Document.Parsed;
  // A lone CR is a line break in YAML 1.2 (b-break) and whitespace in JSON, as our positions
  // count it; the yaml package reads it as text (found by a new-user trial: a valid .json
  // file with CR line ends was a YAML syntax error). As LF, every offset stays the same.
  const text = file.text.includes("\r") ? file.text.replace(/\r(?!\n)/g, "\n") : file.text;
  try {
    doc = parseDocument(text, { lineCounter: new LineCounter(), uniqueKeys: false, prettyErrors: false, strict: true, intAsBigInt: true, merge: false });
  } catch (e) {
    // Neither is known to be reachable (the depth is checked above, and the parser reports
    // errors rather than throwing them); kept so that a parser defect is a diagnostic, not a crash.
    if (e instanceof RangeError) return { diagnostics: [diag("nesting_too_deep", file.range(0), `the document nests too deeply to parse`, { hint: NESTING_HINT })] };
    return { diagnostics: [diag("syntax_error", file.range(0), `${file.path}: ${(e as Error).message}`, { hint: "the YAML parser could not read this file: simplify the part the message names, or report it with the file if it is valid YAML" })] };
  }
  // After the first unexpected token the parser is out of step with the text: every token
  // after it comes back unexpected too (a stray "}" gave eight errors for six lines, found
  // by a new-user trial of CI use: eight annotations for one typo). The first is reported,
  // with how many more it hides; errors of other kinds are kept.
  // In the order of the text: a mistake whose errors cascade (explainYamlError) hides those after it.
  const errors = [...doc.errors].sort((a, b) => a.pos[0] - b.pos[0]);
  const unexpected = errors.filter((x) => x.code === "UNEXPECTED_TOKEN");
  const plain = errors.map((x) => ({ code: x.code, message: x.message.split("\n")[0].replace(/ at line \d+, column \d+$/, ""), pos: x.pos }));
  for (const [i, err] of errors.entries()) {
    if (err.code === "UNEXPECTED_TOKEN" && err !== unexpected[0]) continue;
    let [s, e] = err.pos;
    // The yaml library starts some ranges at the line's indentation: start at the text, even
    // past the range's end (a bad indentation is one character wide at the line's start:
    // column 2 was said of a key at column 6; found by a new-user trial).
    while (file.text[s] === " " || file.text[s] === "\t") s++;
    if (e <= s) e = s + 1;
    // A quote never closed is reported where the text ends; it is said at the quote that
    // opens it (found by a new-user trial: an empty line past the end, "Missing closing "quote").
    const unclosed = err.code === "MISSING_CHAR" ? /closing (["'])quote/.exec(err.message)?.[1] : undefined;
    const opening = unclosed ? openingQuote(doc, s) : undefined;
    if (unclosed && opening !== undefined) {
      const eol = file.text.indexOf("\n", opening);
      diagnostics.push(diag("syntax_error", file.range(opening, eol < 0 ? file.text.length : eol), `this ${unclosed} opens a quoted value that is never closed`, { hint: `close it with ${unclosed} on the same line (name: ${unclosed}x${unclosed}); a value that goes over lines is written as a block: key: |` }));
      continue;
    }
    // A mistake a new-user trial made, said where it was made (a tab, a key indented less
    // than its siblings, key:value, key = value, a "{" never closed, "\q"), not as the
    // parser's view of the lines after it.
    const why = explainYamlError(text, plain[i], plain);
    if (why) {
      diagnostics.push(diag("syntax_error", file.range(why.start, why.end), why.message, { hint: why.hint }));
      if (why.cascades) break;
      continue;
    }
    const msg = err.code === "MULTIPLE_DOCS" ? "a workflow file holds one YAML document, but this one has more (a second ---)" : err.message.split("\n")[0].replace(/ at line \d+, column \d+$/, "");
    const hidden = err.code === "UNEXPECTED_TOKEN" && unexpected.length > 1 ? ` (and ${unexpected.length - 1} more unexpected token${unexpected.length === 2 ? "" : "s"} after it, read again once this is fixed)` : "";
    diagnostics.push(diag("syntax_error", file.range(s, e), msg + hidden, { hint: yamlHint(err.code) }));
  }
  if (diagnostics.length > 0) return { diagnostics };
  const map: SourceMap = new Map();
  const state = { aliases: 0, aliasNodes: 0, inAlias: 0, failed: false };
  const walk = (node: YamlNode | null | undefined, ptr: string, depth: number, keyRange?: [number, number]): JsonValue => {
    if (state.failed) return null;
    if (node == null) return null;
    const r = node.range ?? [0, 0, 0];
    if (depth > MAX_DEPTH) {
      state.failed = true;
      diagnostics.push(diag("nesting_too_deep", file.range(r[0], r[1]), `values nest deeper than ${MAX_DEPTH} levels`, { hint: NESTING_HINT }));
      return null;
    }
    if (state.inAlias > 0 && ++state.aliasNodes > MAX_ALIAS_NODES) {
      state.failed = true;
      diagnostics.push(
        diag("yaml_alias_limit", file.range(r[0], r[1]), `aliases expand to more than ${MAX_ALIAS_NODES} nodes; the document is refused`, {
          hint: ALIAS_HINT,
        }),
      );
      return null;
    }
    // What an alias (or a merge key) brings in is placed at the anchor it comes from: a
    // problem inside it points there, once, whichever alias repeats it.
    if (state.inAlias === 0 || !map.has(ptr)) {
      map.set(ptr, { range: file.range(r[0], r[1]), ...(keyRange ? { keyRange: file.range(keyRange[0], keyRange[1]) } : {}) });
    }
    if (isAlias(node)) {
      if (++state.aliases > MAX_ALIASES) {
        state.failed = true;
        diagnostics.push(diag("yaml_alias_limit", file.range(r[0], r[1]), `more than ${MAX_ALIASES} aliases; the document is refused`, { hint: ALIAS_HINT }));
        return null;
      }
      const target = node.resolve(doc);
      state.inAlias++;
      const v = walk(target as YamlNode | undefined, ptr, depth + 1);
      state.inAlias--;
      return v;
    }
    if (isMap(node)) {
      const out: { [k: string]: JsonValue } = jsonObject();
      // Duplicate keys are found here with a Set: the yaml package's own check
      // (`uniqueKeys`) compares each key with every earlier one, quadratic in map size.
      const seen = new Set<string>();
      const firstKey = new Map<string, [number, number]>();
      const merges: YamlNode[] = [];
      for (const pair of node.items) {
        const k = pair.key as YamlNode | null;
        // `<<: *defaults` (or a list of them): a YAML merge key, applied below.
        if (isScalar(k) && k.value === "<<" && k.type === "PLAIN" && pair.value != null) {
          const v = pair.value as YamlNode;
          merges.push(...(isSeq(v) ? (v.items as YamlNode[]) : [v]));
          continue;
        }
        const key = isScalar(k) ? String(k.value) : k == null ? "" : String((k as { toJSON?: () => unknown }).toJSON?.() ?? "");
        const kr = k?.range;
        if (seen.has(key) && state.inAlias === 0) {
          // Where the first one is, for a duplicate step or key far from it (a new-user trial: "Map keys must be unique").
          const first = firstKey.get(key);
          const firstRange = first ? file.range(first[0], first[1]) : undefined;
          diagnostics.push(
            diag("syntax_error", kr ? file.range(kr[0], kr[1]) : file.range(r[0]), `duplicate key "${key}"${firstRange ? `: it is already set on line ${firstRange.start.line}` : ""}`, {
              hint: "each key may appear once in a mapping: remove one, or merge the two",
              ...(firstRange ? { related: [{ message: "first set here", range: firstRange }] } : {}),
            }),
          );
          continue;
        }
        seen.add(key);
        if (kr) firstKey.set(key, [kr[0], kr[1]]);
        out[key] = walk(pair.value as YamlNode | null, childPointer(ptr, key), depth + 1, kr ? [kr[0], kr[1]] : undefined);
        if (pair.value == null && state.inAlias === 0 && kr) map.set(childPointer(ptr, key), { range: file.range(kr[1]), keyRange: file.range(kr[0], kr[1]) });
      }
      // Merged mappings fill the keys this mapping does not set; an earlier one wins over a later one.
      for (const m of merges) {
        const target = isAlias(m) ? (m.resolve(doc) as YamlNode | undefined) : m;
        if (isAlias(m) && ++state.aliases > MAX_ALIASES) {
          state.failed = true;
          diagnostics.push(diag("yaml_alias_limit", file.range(m.range?.[0] ?? r[0]), `more than ${MAX_ALIASES} aliases; the document is refused`, { hint: ALIAS_HINT }));
          return null;
        }
        if (!isMap(target)) {
          const mr = m.range ?? r;
          diagnostics.push(diag("invalid_type", file.range(mr[0], mr[1]), "a merge key (<<) takes a mapping or a list of mappings", { hint: "write <<: *anchor, where the anchor names a mapping" }));
          continue;
        }
        for (const pair of target.items) {
          const k = pair.key as YamlNode | null;
          const key = isScalar(k) ? String(k.value) : "";
          if (key === "<<" || seen.has(key)) continue;
          seen.add(key);
          const kr = k?.range;
          state.inAlias++;
          out[key] = walk(pair.value as YamlNode | null, childPointer(ptr, key), depth + 1, kr ? [kr[0], kr[1]] : undefined);
          state.inAlias--;
        }
      }
      return out;
    }
    if (isSeq(node)) return node.items.map((it, i) => walk(it as YamlNode, childPointer(ptr, i), depth + 1));
    if (isScalar(node)) {
      const v = node.value;
      const e = typeof v === "string" && (v.includes("${") || v.includes("%{")) ? map.get(ptr) : undefined;
      if (e && typeof v === "string") {
        const t = node.type;
        // Written character for character on one line: where the value starts is enough.
        const at = v.includes("\n") ? undefined : t === "PLAIN" && r[1] - r[0] === v.length ? r[0] : (t === "QUOTE_DOUBLE" || t === "QUOTE_SINGLE") && r[1] - r[0] === v.length + 2 ? r[0] + 1 : undefined;
        if (at !== undefined && text.slice(at, at + v.length) === v) e.valueOffset = at;
        // Otherwise (escapes, '', folding, blocks) each character's place, worked out when asked.
        else if (t) e.valueChars = scalarChars(file, text, t, r[0], r[1], v);
      }
      if (v === null || v === undefined) return null;
      if (typeof v === "boolean" || typeof v === "string") return v;
      // A plain number written otherwise than it reads back (1.10, 007, 1e3): keep how it
      // was written, for fields that take text (decode says so and uses it).
      const source = typeof node.source === "string" ? node.source : file.text.slice(r[0], r[1]);
      if ((typeof v === "number" || typeof v === "bigint") && node.type === "PLAIN" && source !== String(v)) {
        const e = map.get(ptr);
        if (e) e.numberText = source;
      }
      if (typeof v === "number") return Number.isFinite(v) ? v : String(node.source ?? v);
      if (typeof v === "bigint") {
        if (v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER)) return Number(v);
        diagnostics.push(
          diag("invalid_value", file.range(r[0], r[1]), `${source} is too large to keep exactly as a number (beyond 2^53)`, { hint: `quote it to keep it as text: "${source}"` }),
        );
        return String(v);
      }
      return String(v);
    }
    return null;
  };
  const value = walk(doc.contents as YamlNode | null, "", 0);
  if (state.failed) return { diagnostics };
  return { parsed: { file, dialect: "yaml", value, map }, diagnostics };
}

const JSON_HINT = "a .json workflow is strict JSON (no comments, no trailing commas, quoted keys); write YAML in a .yaml file for more freedom";

/**
 * Parses a `.json` file: strict JSON first (JSON.parse: no comments, no trailing commas,
 * quoted keys), then the YAML parser for positions (JSON is YAML 1.2). A syntax error is
 * placed and worded by compiler/parse/json-error.ts (Node 20's messages carry no position).
 */
export function parseJson(file: SourceFile): { parsed?: ParsedFile; diagnostics: Diagnostic[] } {
  try {
    JSON.parse(file.text);
  } catch (e) {
    const msg = String((e as Error).message);
    const located = jsonSyntaxError(file.text);
    if (located) {
      const end = Math.min(located.offset + Math.max(located.length, 1), file.text.length);
      return { diagnostics: [diag("syntax_error", file.range(located.offset, Math.max(end, located.offset)), located.message, { hint: JSON_HINT })] };
    }
    // What the scanner found nothing wrong with, JSON.parse still refused: its own words and position.
    const pos = /position (\d+)/.exec(msg);
    const lc = /line (\d+) column (\d+)/.exec(msg);
    // Without a position (Node 20: `Unexpected token 's', "..." is not valid JSON`) the
    // first token is the bad one: point at it, not at the white space before it.
    // A text cut short (`{"tag": `) is wrong at its end, not at its first token.
    const end = /Unexpected end of JSON input/.test(msg);
    const at = pos ? Number(pos[1]) : lc ? file.offsetAt(Number(lc[1]), Number(lc[2])) : end ? file.text.length : Math.max(0, file.text.search(/\S/));
    return {
      diagnostics: [
        diag("syntax_error", file.range(at, Math.min(at + 1, file.text.length)), msg.replace(/ in JSON at position \d+.*$/, "").replace(/^JSON\.parse: /, ""), {
          hint: JSON_HINT,
        }),
      ],
    };
  }
  return parseYaml(file);
}

/** What to do about values nested too deeply (the limit guards the compiler's stack). */
const NESTING_HINT = "flatten the value: a workflow's data needs far fewer levels (a generated file gone wrong?)";
/** What to do about too many aliases (a document that expands without bound is refused before it does). */
const ALIAS_HINT = "write the values out instead of nesting aliases (an alias bomb)";

function yamlHint(code: string): string {
  switch (code) {
    case "MULTIPLE_DOCS":
      return "keep one document per file: remove the second --- and what follows, or move it to a file of its own";
    case "DUPLICATE_KEY":
      return "each key may appear once in a mapping";
    case "MULTILINE_IMPLICIT_KEY":
      return 'a key and its ":" go on one line; a line without ":" inside a mapping is read as part of a key (a value that goes on needs quotes or a block: key: |)';
    case "MISSING_CHAR":
      return 'a key needs ":" and a value after it (key: value); a quoted value needs its closing quote';
    case "BLOCK_IN_FLOW":
      return "inside [ ] or { } write items on one line, separated by commas: [a, b] or {a: 1, b: 2}";
    case "BAD_ALIAS":
      return "an anchor (&name) or an alias (*name) needs a name; quote a value starting with & or *";
    case "BAD_SCALAR_START":
      return 'quote a value that starts with one of , [ ] { } # & * ! | > % @ `: key: ",x"';
    case "BAD_COMMENT_START":
      return 'a comment starts with " #" (a space before it); quote a value holding " #"';
    case "UNEXPECTED_TOKEN":
      return 'a character YAML does not expect here: a stray "}" or "]", or a value starting with one of { } [ ] , # & * ! | > % @ ` that needs quotes';
    case "TAB_AS_INDENT":
      return "indent YAML with spaces, not tabs";
    case "BAD_INDENT":
      return "check the indentation of this line against its parent";
    case "BLOCK_AS_IMPLICIT_KEY":
      // `command: echo a: b`: a value holding ": " reads as a second key (a new-user trial).
      return 'a value holding ": " must be quoted (command: "echo a: b") or written as a block (command: |)';
    default:
      // Any other: what a reader checks first (the yaml library's message says what it saw).
      return 'check this line\'s indentation and its ":" against the lines around it; quote a value holding ": " or " #"';
  }
}

/** Where the quoted scalar that runs to `at` (its missing closing quote) starts: the last one starting before it. */
function openingQuote(doc: Document.Parsed, at: number): number | undefined {
  let found: number | undefined;
  visit(doc, {
    Scalar(_, node) {
      const r = node.range;
      if ((node.type === "QUOTE_DOUBLE" || node.type === "QUOTE_SINGLE") && r && r[0] < at && (found === undefined || r[0] > found)) found = r[0];
    },
  });
  return found;
}
