/**
 * Go's strconv as fmt uses it: IsPrint, quoting strings and runes (Quote, QuoteToASCII,
 * QuoteRune, CanBackquote) and FormatFloat (exact and shortest decimal digits, rounding
 * half to even, the e/f/g layouts).
 *
 * Source: Go's strconv and fmt packages' documented behaviour
 * (https://pkg.go.dev/strconv, https://pkg.go.dev/fmt); see index.ts.
 */

/** Go's strconv.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

export function isPrint(ch: string): boolean {
  const r = ch.codePointAt(0)!;
  if (r < 0x80) return r >= 0x20 && r < 0x7f;
  return PRINTABLE.test(ch);
}

const CONTROL_ESCAPES: Record<string, string> = { "\x07": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v" };

function escapeRune(ch: string, quote: string, asciiOnly: boolean): string {
  let r = ch.codePointAt(0)!;
  if (ch === quote || ch === "\\") return "\\" + ch;
  if (asciiOnly ? r < 0x80 && isPrint(ch) : isPrint(ch)) return ch;
  if (CONTROL_ESCAPES[ch]) return CONTROL_ESCAPES[ch];
  if (r < 0x20 || r === 0x7f) return "\\x" + r.toString(16).padStart(2, "0");
  if (r > 0x10ffff || (r >= 0xd800 && r <= 0xdfff)) r = 0xfffd;
  if (r < 0x10000) return "\\u" + r.toString(16).padStart(4, "0");
  return "\\U" + r.toString(16).padStart(8, "0");
}

/** strconv.Quote / QuoteToASCII. */
export function quoteString(s: string, asciiOnly: boolean): string {
  let out = '"';
  for (const ch of s) out += escapeRune(ch, '"', asciiOnly);
  return out + '"';
}

/** strconv.QuoteRune / QuoteRuneToASCII. */
export function quoteRune(r: number, asciiOnly: boolean): string {
  const ch = r > 0x10ffff || r < 0 || (r >= 0xd800 && r <= 0xdfff) ? "\ufffd" : String.fromCodePoint(r);
  return "'" + escapeRune(ch, "'", asciiOnly) + "'";
}

export function canBackquote(s: string): boolean {
  for (const ch of s) {
    if (ch === "`" || ch === "\ufeff") return false;
    const r = ch.codePointAt(0)!;
    if ((r < 0x20 && ch !== "\t") || r === 0x7f) return false;
  }
  return true;
}

/** A decimal: `0.d × 10^dp`, digits without trailing zeros (`""` is zero). */
interface Decimal {
  d: string;
  dp: number;
}

const f64 = new DataView(new ArrayBuffer(8));

/** The exact decimal value of a finite non-negative double. */
function exactDecimal(x: number): Decimal {
  f64.setFloat64(0, x);
  const bits = f64.getBigUint64(0);
  const expBits = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & ((1n << 52n) - 1n);
  let e2 = -1074;
  if (expBits !== 0) {
    mant |= 1n << 52n;
    e2 = expBits - 1075;
  }
  if (mant === 0n) return { d: "", dp: 0 };
  let d: string;
  let dp: number;
  if (e2 >= 0) {
    d = (mant << BigInt(e2)).toString();
    dp = d.length;
  } else {
    d = (mant * 5n ** BigInt(-e2)).toString();
    dp = d.length + e2;
  }
  return { d: d.replace(/0+$/, ""), dp };
}

/** The shortest decimal that reads back as the double (as strconv's shortest mode). */
function shortestDecimal(x: number): Decimal {
  if (x === 0) return { d: "", dp: 0 };
  const [mant, exp] = x.toExponential().split("e");
  return { d: mant.replace(".", "").replace(/0+$/, ""), dp: Number(exp) + 1 };
}

/** strconv's decimal.Round to `nd` digits: half to even on the exact value. */
function roundDecimal(a: Decimal, nd: number): Decimal {
  if (nd < 0 || nd >= a.d.length) return a;
  let up = a.d[nd] >= "5";
  if (a.d[nd] === "5" && nd + 1 === a.d.length) up = nd > 0 && Number(a.d[nd - 1]) % 2 === 1;
  if (!up) {
    const d = a.d.slice(0, nd).replace(/0+$/, "");
    return d === "" ? { d: "", dp: 0 } : { d, dp: a.dp };
  }
  let i = nd - 1;
  while (i >= 0 && a.d[i] === "9") i--;
  if (i < 0) return { d: "1", dp: a.dp + 1 };
  return { d: a.d.slice(0, i) + String(Number(a.d[i]) + 1), dp: a.dp };
}

function fmtE(a: Decimal, prec: number, e: string): string {
  let out = a.d.length > 0 ? a.d[0] : "0";
  if (prec > 0) {
    out += ".";
    const m = Math.min(a.d.length, prec + 1);
    if (m > 1) out += a.d.slice(1, m);
    out += "0".repeat(prec + 1 - Math.max(m, 1));
  }
  let exp = a.d.length === 0 ? 0 : a.dp - 1;
  const sign = exp < 0 ? "-" : "+";
  exp = Math.abs(exp);
  return `${out}${e}${sign}${exp < 10 ? "0" : ""}${exp}`;
}

function fmtF(a: Decimal, prec: number): string {
  let out = a.dp > 0 ? a.d.slice(0, a.dp).padEnd(a.dp, "0") : "0";
  if (prec > 0) {
    out += ".";
    for (let i = 1; i <= prec; i++) {
      const j = a.dp + i - 1;
      out += j >= 0 && j < a.d.length ? a.d[j] : "0";
    }
  }
  return out;
}

/** strconv.FormatFloat(x, verb, prec, 64) for verbs e E f g G. */
export function formatFloat(x: number, verb: string, prec: number): string {
  if (Number.isNaN(x)) return "NaN";
  const neg = x < 0 || Object.is(x, -0);
  if (!Number.isFinite(x)) return neg ? "-Inf" : "+Inf";
  const abs = Math.abs(x);
  const shortest = prec < 0;
  let a: Decimal;
  const lower = verb.toLowerCase();
  if (shortest) {
    a = shortestDecimal(abs);
    prec = lower === "e" ? Math.max(a.d.length - 1, 0) : lower === "f" ? Math.max(a.d.length - a.dp, 0) : a.d.length;
  } else {
    a = exactDecimal(abs);
    if (lower === "e") a = roundDecimal(a, prec + 1);
    else if (lower === "f") a = roundDecimal(a, a.dp + prec);
    else {
      if (prec === 0) prec = 1;
      a = roundDecimal(a, prec);
    }
  }
  let body: string;
  if (lower === "e") body = fmtE(a, prec, verb);
  else if (lower === "f") body = fmtF(a, prec);
  else {
    let eprec = prec;
    if (eprec > a.d.length && a.d.length >= a.dp) eprec = a.d.length;
    if (shortest) eprec = 6;
    const exp = a.dp - 1;
    if (exp < -4 || exp >= eprec) {
      body = fmtE(a, Math.min(prec, a.d.length) - 1, verb === "G" ? "E" : "e");
    } else {
      body = fmtF(a, Math.max((prec > a.dp ? a.d.length : prec) - a.dp, 0));
    }
  }
  return (neg ? "-" : "") + body;
}
