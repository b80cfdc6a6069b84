/**
 * Date and time functions: timestamp, formatdate, timeadd.
 *
 * Source: go-cty stdlib datetime.go / Terraform. Timestamps are RFC 3339 as Go's
 * `time.RFC3339` parses them (`2006-01-02T15:04:05Z` or `...+07:00`, an optional
 * fraction of a second, upper-case `T` and `Z`); results keep the input's UTC offset.
 * `formatdate` verbs: YYYY YY MMMM MMM MM M DD D EEEE EEE hh h HH H AA aa mm m ss s
 * ZZZZZ ZZZZ ZZZ Z; other letters are an error; text in single quotes is literal (`''`
 * is a quote). `timeadd` takes a Go duration (`1h30m`, `-15m`, `2.5s`, `300ms`; units
 * ns us µs ms s m h) and writes RFC 3339 without fractional seconds, as Go does.
 * `timestamp()` is the current UTC time, to the second; a different value on each call.
 */
import { argStr, fn } from "./args.js";
import { FunctionError, type FunctionTable, type Value } from "../value.js";

/** An instant: seconds since the Unix epoch, nanoseconds within it, and the UTC offset to show it in. */
interface Instant {
  seconds: number;
  nanos: number;
  offsetMinutes: number;
}

/** Local calendar fields of an instant in its offset. */
interface Fields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** 0 = Sunday. */
  weekday: number;
}

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's `days_from_civil`). */
function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** The date `days` after 1970-01-01 (`civil_from_days`). */
function civilFromDays(days: number): [number, number, number] {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp + (mp < 10 ? 3 : -9);
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

function daysInMonth(y: number, m: number): number {
  return daysFromCivil(m === 12 ? y + 1 : y, m === 12 ? 1 : m + 1, 1) - daysFromCivil(y, m, 1);
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:(Z)|([+-])(\d{2}):(\d{2}))$/;

/** Parses an RFC 3339 timestamp; throws `FunctionError` on argument `i` when it is not one. */
function parseTimestamp(s: string, i: number): Instant {
  const bad = (why: string): never => {
    throw new FunctionError(`not a valid RFC3339 timestamp: ${why}`, i);
  };
  const m = RFC3339.exec(s);
  if (!m) {
    if (!/^\d{4}-\d{2}-\d{2}/.test(s)) bad("it must start with a date like 2006-01-02");
    if (s[10] !== "T") bad("missing required time introducer 'T'");
    if (!/^\d{2}:\d{2}:\d{2}/.test(s.slice(11))) bad("the time must be written hh:mm:ss, like 15:04:05");
    bad('missing or malformed UTC offset (Z or a value like "+07:00" is required)');
  }
  const [year, month, day, hour, minute, second] = m!.slice(1, 7).map(Number);
  if (month < 1 || month > 12) bad("month out of range");
  if (day < 1 || day > daysInMonth(year, month)) bad("day out of range");
  if (hour > 23) bad("hour must be between 0 and 23 inclusive");
  if (minute > 59) bad("minute out of range");
  if (second > 59) bad("second out of range");
  let offsetMinutes = 0;
  if (!m![8]) {
    const oh = Number(m![10]);
    const om = Number(m![11]);
    if (oh > 23 || om > 59) bad("UTC offset out of range");
    offsetMinutes = (m![9] === "-" ? -1 : 1) * (oh * 60 + om);
  }
  const nanos = Number((m![7] ?? "").slice(0, 9).padEnd(9, "0"));
  const seconds = ((daysFromCivil(year, month, day) * 24 + hour) * 60 + minute) * 60 + second - offsetMinutes * 60;
  return { seconds, nanos, offsetMinutes };
}

function fieldsOf(t: Instant): Fields {
  const local = t.seconds + t.offsetMinutes * 60;
  const days = Math.floor(local / 86400);
  const rest = local - days * 86400;
  const [year, month, day] = civilFromDays(days);
  return { year, month, day, hour: Math.floor(rest / 3600), minute: Math.floor(rest / 60) % 60, second: rest % 60, weekday: (((days + 4) % 7) + 7) % 7 };
}

const pad = (n: number, w = 2): string => String(n).padStart(w, "0");

function offsetText(minutes: number, colon: boolean): string {
  const a = Math.abs(minutes);
  return `${minutes < 0 ? "-" : "+"}${pad(Math.floor(a / 60))}${colon ? ":" : ""}${pad(a % 60)}`;
}

/** RFC 3339 without fractional seconds, in the instant's own offset (Go's `time.RFC3339`). */
function formatRfc3339(t: Instant): string {
  const f = fieldsOf(t);
  if (f.year < 0 || f.year > 9999) throw new FunctionError("the resulting time is outside the years 0 to 9999");
  const zone = t.offsetMinutes === 0 ? "Z" : offsetText(t.offsetMinutes, true);
  return `${pad(f.year, 4)}-${pad(f.month)}-${pad(f.day)}T${pad(f.hour)}:${pad(f.minute)}:${pad(f.second)}${zone}`;
}

/** One formatdate verb (a run of one repeated letter), or `undefined` when it is not one. */
function verb(tok: string, f: Fields, offset: number): string | undefined {
  const h12 = f.hour % 12 === 0 ? 12 : f.hour % 12;
  switch (tok) {
    case "YYYY": return pad(f.year, 4);
    case "YY": return pad(f.year % 100);
    case "MMMM": return MONTHS[f.month - 1];
    case "MMM": return MONTHS[f.month - 1].slice(0, 3);
    case "MM": return pad(f.month);
    case "M": return String(f.month);
    case "DD": return pad(f.day);
    case "D": return String(f.day);
    case "EEEE": return DAYS[f.weekday];
    case "EEE": return DAYS[f.weekday].slice(0, 3);
    case "hh": return pad(f.hour);
    case "h": return String(f.hour);
    case "HH": return pad(h12);
    case "H": return String(h12);
    case "AA": return f.hour < 12 ? "AM" : "PM";
    case "aa": return f.hour < 12 ? "am" : "pm";
    case "mm": return pad(f.minute);
    case "m": return String(f.minute);
    case "ss": return pad(f.second);
    case "s": return String(f.second);
    case "ZZZZZ": return offsetText(offset, true);
    case "ZZZZ": return offsetText(offset, false);
    case "ZZZ": return offset === 0 ? "UTC" : offsetText(offset, false);
    case "Z": return offset === 0 ? "Z" : offsetText(offset, true);
    default: return undefined;
  }
}

function formatdate(a: Value[]): Value {
  const spec = argStr(a, 0);
  const t = parseTimestamp(argStr(a, 1), 1);
  const f = fieldsOf(t);
  let out = "";
  let i = 0;
  while (i < spec.length) {
    const c = spec[i];
    if (c === "'") {
      if (spec[i + 1] === "'") {
        out += "'";
        i += 2;
        continue;
      }
      let j = i + 1;
      let lit = "";
      for (;;) {
        if (j >= spec.length) throw new FunctionError("unterminated literal '", 0);
        if (spec[j] === "'" && spec[j + 1] === "'") {
          lit += "'";
          j += 2;
        } else if (spec[j] === "'") break;
        else lit += spec[j++];
      }
      out += lit;
      i = j + 1;
    } else if (/[A-Za-z]/.test(c)) {
      let j = i + 1;
      while (spec[j] === c) j++;
      const tok = spec.slice(i, j);
      const v = verb(tok, f, t.offsetMinutes);
      if (v === undefined) throw new FunctionError(`invalid date format verb ${JSON.stringify(tok)}`, 0);
      out += v;
      i = j;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

const UNITS: Record<string, bigint> = { ns: 1n, us: 1000n, "µs": 1000n, "μs": 1000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n };
const MAX_DURATION = (1n << 63n) - 1n;

/** Go's `time.ParseDuration`, in nanoseconds; throws `FunctionError` on argument `i`. */
function parseDuration(s: string, i: number): bigint {
  const invalid = (why = "invalid duration"): never => {
    throw new FunctionError(`time: ${why} ${JSON.stringify(s)}`, i);
  };
  let rest = s;
  let negative = false;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    negative = rest[0] === "-";
    rest = rest.slice(1);
  }
  if (rest === "0") return 0n;
  if (rest === "") invalid();
  let total = 0n;
  while (rest !== "") {
    const m = /^([0-9]*)(?:\.([0-9]*))?/.exec(rest)!;
    const [whole, intPart, frac = ""] = m;
    if (intPart === "" && frac === "") invalid();
    rest = rest.slice(whole.length);
    const unit = /^[^0-9.]*/.exec(rest)![0];
    if (unit === "") invalid("missing unit in duration");
    const scale = UNITS[unit];
    if (scale === undefined) invalid(`unknown unit ${JSON.stringify(unit)} in duration`);
    rest = rest.slice(unit.length);
    total += BigInt(intPart || "0") * scale + (frac === "" ? 0n : (BigInt(frac) * scale) / 10n ** BigInt(frac.length));
    if (total > MAX_DURATION + (negative ? 1n : 0n)) invalid();
  }
  return negative ? -total : total;
}

function timeadd(a: Value[]): Value {
  const t = parseTimestamp(argStr(a, 0), 0);
  const d = parseDuration(argStr(a, 1), 1);
  const total = BigInt(t.seconds) * 1_000_000_000n + BigInt(t.nanos) + d;
  let seconds = total / 1_000_000_000n;
  if (total < 0n && total % 1_000_000_000n !== 0n) seconds -= 1n;
  return formatRfc3339({ seconds: Number(seconds), nanos: 0, offsetMinutes: t.offsetMinutes });
}

/** The date and time functions. */
export function timeFunctions(): FunctionTable {
  return {
    timestamp: fn("", "The current UTC time in RFC 3339 format, like 2024-01-15T12:34:56Z; a different value on every call.", 0, 0,
      () => new Date().toISOString().replace(/\.\d+Z$/, "Z")),
    formatdate: fn("spec, timestamp", "Formats an RFC 3339 timestamp with Terraform's spec letters (YYYY-MM-DD hh:mm:ss ZZZ, EEE, MMM...).", 2, 2, formatdate),
    timeadd: fn("timestamp, duration", 'Adds a Go duration ("1h30m", "-10m", "2.5s") to an RFC 3339 timestamp.', 2, 2, timeadd),
  };
}
