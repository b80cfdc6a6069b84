/**
 * Hash, encoding and identity functions: sha1, sha256, sha512, md5 (hex digests of the
 * UTF-8 text), base64encode, base64decode, urlencode, yamlencode, yamldecode,
 * csvdecode, byteslen, bytesslice, uuid.
 *
 * Source: Terraform's encoding functions and the Go tool's docs. `base64decode` is Go's
 * strict standard decoding (padding required; line breaks ignored) and refuses results
 * that are not UTF-8. `urlencode` is Go's `url.QueryEscape` (space -> `+`).
 * `yamlencode` writes block-style YAML with sorted keys, no anchors; `yamldecode` reads
 * one YAML 1.2 document (merge keys honoured; an empty document is null; integers
 * beyond ±2^53, infinities and NaN are refused). `csvdecode` is Go's `encoding/csv`
 * (RFC 4180: `""` escapes in quoted fields, empty lines skipped, every row as long as
 * the header) turned into one object per row. The Go tool's `byteslen`/`bytesslice`
 * take cty byte buffers, which expressions cannot make; here they measure and slice a
 * string's UTF-8 bytes (a slice that would split a character is an error).
 */
import { parseDocument, stringify } from "yaml";
import { nodeCrypto } from "../../node-crypto.js";
import { argInt, argStr, fn } from "./args.js";
import { FunctionError, newObject, type FunctionTable, type Value } from "../value.js";

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function hash(algorithm: string, name: string) {
  return fn("string", `The hex-encoded ${name} digest of the string's UTF-8 bytes.`, 1, 1, (a) => nodeCrypto().createHash(algorithm).update(argStr(a, 0), "utf8").digest("hex"));
}

/** UTF-8 bytes as a string, or `undefined` when they are not valid UTF-8. */
function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function base64decode(a: Value[]): Value {
  const s = argStr(a, 0).replace(/[\r\n]/g, "");
  if (!BASE64.test(s)) throw new FunctionError("failed to decode base64 data: it is not valid standard (padded) base64", 0);
  const out = decodeUtf8(Buffer.from(s, "base64"));
  if (out === undefined) throw new FunctionError("the result of decoding the provided string is not valid UTF-8", 0);
  return out;
}

/** Go's `url.QueryEscape`. */
function urlencode(s: string): string {
  let out = "";
  for (const b of Buffer.from(s, "utf8")) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (c === " ") out += "+";
    else out += "%" + b.toString(16).toUpperCase().padStart(2, "0");
  }
  return out;
}

/** A decoded YAML value as a `Value`: null-prototype objects, safe integers, finite numbers. */
function fromYaml(v: unknown, depth = 0): Value {
  if (depth > 1000) throw new FunctionError("the YAML value is nested too deeply", 0);
  if (v === null || v === undefined) return null;
  if (typeof v === "bigint") {
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER)) throw new FunctionError(`the integer ${v} is beyond ±2^53 and cannot be represented exactly`, 0);
    return Number(v);
  }
  if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new FunctionError(`${v} cannot be represented: numbers must be finite`, 0);
    return v;
  }
  if (typeof v === "string" || typeof v === "boolean") return v;
  if (Array.isArray(v)) return v.map((x) => fromYaml(x, depth + 1));
  if (v instanceof Date) return v.toISOString();
  if (typeof v === "object") {
    const out = newObject();
    for (const [k, x] of Object.entries(v)) out[k] = fromYaml(x, depth + 1);
    return out;
  }
  throw new FunctionError(`YAML values of type ${typeof v} are not supported`, 0);
}

function yamldecode(a: Value[]): Value {
  const doc = parseDocument(argStr(a, 0), { intAsBigInt: true, merge: true, uniqueKeys: true, prettyErrors: false });
  const problem = doc.errors[0];
  if (problem) throw new FunctionError(`invalid YAML: ${problem.message}`, 0);
  let js: unknown;
  try {
    js = doc.toJS({ maxAliasCount: 1000 });
  } catch (err) {
    throw new FunctionError(`invalid YAML: ${(err as Error).message}`, 0);
  }
  return fromYaml(js);
}

function yamlencode(a: Value[]): Value {
  return stringify(a[0], { sortMapEntries: true, aliasDuplicateObjects: false, lineWidth: 0 });
}

/** A record of Go's `encoding/csv` reader, or a parse error naming the line. */
function parseCsv(text: string): string[][] {
  // Lines keep their "\n"; "\r\n" reads as "\n", and a final "\r" before the end is dropped.
  const lines = text.split(/(?<=\n)/).map((l) => (l.endsWith("\r\n") ? l.slice(0, -2) + "\n" : l));
  if (lines.length > 0 && lines[lines.length - 1].endsWith("\r")) lines[lines.length - 1] = lines[lines.length - 1].slice(0, -1);
  const fail = (line: number, what: string): never => {
    throw new FunctionError(`CSV parse error on line ${line}: ${what}`, 0);
  };
  const records: string[][] = [];
  let li = 0;
  while (li < lines.length) {
    if (lines[li] === "\n" || lines[li] === "") {
      li++;
      continue;
    }
    const recLine = li + 1;
    let lineNo = recLine;
    let line = lines[li++];
    const fields: string[] = [];
    for (;;) {
      if (!line.startsWith('"')) {
        const comma = line.indexOf(",");
        const field = comma >= 0 ? line.slice(0, comma) : line.replace(/\n$/, "");
        if (field.includes('"')) fail(lineNo, 'bare " in non-quoted field');
        fields.push(field);
        if (comma < 0) break;
        line = line.slice(comma + 1);
        continue;
      }
      line = line.slice(1);
      let buf = "";
      let done = false;
      for (;;) {
        const q = line.indexOf('"');
        if (q >= 0) {
          buf += line.slice(0, q);
          line = line.slice(q + 1);
          if (line.startsWith('"')) {
            buf += '"';
            line = line.slice(1);
          } else if (line.startsWith(",")) {
            line = line.slice(1);
            break;
          } else if (line === "" || line === "\n") {
            done = true;
            break;
          } else {
            fail(lineNo, 'extraneous or missing " in quoted-field');
          }
        } else {
          buf += line;
          if (li >= lines.length) fail(lineNo, 'extraneous or missing " in quoted-field');
          line = lines[li++];
          lineNo++;
        }
      }
      fields.push(buf);
      if (done) break;
    }
    if (records.length > 0 && fields.length !== records[0].length) fail(recLine, "wrong number of fields");
    records.push(fields);
  }
  return records;
}

function csvdecode(a: Value[]): Value {
  const [header, ...rows] = parseCsv(argStr(a, 0));
  if (!header) throw new FunctionError("missing header line", 0);
  const seen = new Set<string>();
  for (const h of header) {
    if (seen.has(h)) throw new FunctionError(`duplicate column name ${JSON.stringify(h)}`, 0);
    seen.add(h);
  }
  return rows.map((r) => {
    const o = newObject();
    header.forEach((h, i) => (o[h] = r[i]));
    return o;
  });
}

function bytesslice(a: Value[]): Value {
  const buf = Buffer.from(argStr(a, 0), "utf8");
  const offset = argInt(a, 1);
  const length = argInt(a, 2);
  if (offset < 0 || length < 0) throw new FunctionError("offset and length must be non-negative", offset < 0 ? 1 : 2);
  if (offset > buf.length) throw new FunctionError(`offset ${offset} is greater than total buffer length ${buf.length}`, 1);
  const out = decodeUtf8(buf.subarray(offset, Math.min(buf.length, offset + length)));
  if (out === undefined) throw new FunctionError("the slice would split a multi-byte UTF-8 character");
  return out;
}

/** The hash, encoding and identity functions. */
export function encodingFunctions(): FunctionTable {
  return {
    md5: hash("md5", "MD5"),
    sha1: hash("sha1", "SHA-1"),
    sha256: hash("sha256", "SHA-256"),
    sha512: hash("sha512", "SHA-512"),
    base64encode: fn("string", "The standard (padded) Base64 encoding of the string's UTF-8 bytes.", 1, 1, (a) => Buffer.from(argStr(a, 0), "utf8").toString("base64")),
    base64decode: fn("string", "Decodes standard (padded) Base64 into a UTF-8 string.", 1, 1, base64decode),
    urlencode: fn("string", "Encodes a string for use in a URL query (space as +, others as %XX).", 1, 1, (a) => urlencode(argStr(a, 0))),
    yamlencode: fn("value", "Encodes a value as YAML (block style, sorted keys).", 1, 1, yamlencode),
    yamldecode: fn("string", "Decodes a YAML document into a value.", 1, 1, yamldecode),
    csvdecode: fn("string", "Decodes CSV text with a header line into a list of objects of strings, one per row.", 1, 1, csvdecode),
    byteslen: fn("string", "The number of bytes in the string's UTF-8 encoding.", 1, 1, (a) => Buffer.byteLength(argStr(a, 0), "utf8")),
    bytesslice: fn("string, offset, length", "length bytes of the string's UTF-8 encoding from offset (clamped at the end).", 3, 3, bytesslice),
    uuid: fn("", "A new random (version 4) UUID; a different value on every call.", 0, 0, () => nodeCrypto().randomUUID()),
  };
}
