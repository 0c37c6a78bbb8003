// The field kinds whose JSON form is a string with a grammar of its own, as proto3's JSON mapping
// writes them: timestamp (RFC 3339), date (RFC 3339 full-date), duration ("1.5s"), bytes (base64)
// and uint64 and int64_string (an int64 of an API whose int64 travel as proto3 writes them: decimal
// strings, past what a JSON number holds exactly). The runtime keeps their values in that JSON form
// on every protocol; this module reads a value in any form a peer may send (an offset, URL-safe
// base64, a number for an integer, a protobuf-es message) and writes the
// one canonical form, so that the same value is the same string whichever protocol carried it.

export type TextKind = "timestamp" | "date" | "duration" | "bytes" | "uint64" | "int64_string";

/** What the check says of a value that is not of the kind ("<path>: <text>"); the SDKs say the same. */
export const TEXT_KIND_TEXTS = {
  timestamp: "must be an RFC 3339 date-time such as 2026-01-31T09:30:00Z",
  date: "must be a date such as 2026-01-31",
  duration: "must be a duration in seconds such as 90s or 1.5s",
  bytes: "must be base64",
  uint64: "must be an integer from 0 to 18446744073709551615",
  int64_string: "must be an integer from -9223372036854775808 to 9223372036854775807",
} as const satisfies Record<TextKind, string>;

const MAX_UINT64 = 18446744073709551615n;
const MIN_INT64 = -9223372036854775808n;
const MAX_INT64 = 9223372036854775807n;
/** proto's Timestamp: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z; Duration: ±10,000 years. */
const MIN_SECONDS = -62135596800n;
const MAX_SECONDS = 253402300799n;
const MAX_DURATION_SECONDS = 315576000000n;

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DURATION = /^(-)?(\d{1,12})(?:\.(\d{1,9}))?s$/;
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;
const UINT64 = /^(?:0|[1-9]\d{0,19})$/;
const INT64 = /^(?:0|-?[1-9]\d{0,18})$/;

const pad = (n: number | bigint, width: number) => String(n).padStart(width, "0");

/** Days in a month of the proleptic Gregorian calendar. */
function daysIn(year: number, month: number): number {
  return month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Days from 1970-01-01 to a date (any year 1..9999), without Date's two-digit-year rule. */
function daysFromEpoch(year: number, month: number, day: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return Math.round(date.getTime() / 86_400_000);
}

/** Fractional seconds as proto3 JSON writes them: none, or 3, 6 or 9 digits. */
function fraction(nanos: number): string {
  if (nanos === 0) return "";
  const digits = pad(nanos, 9);
  return `.${digits.endsWith("000000") ? digits.slice(0, 3) : digits.endsWith("000") ? digits.slice(0, 6) : digits}`;
}

function validDate(year: number, month: number, day: number): boolean {
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month);
}

/** Seconds and nanoseconds since the epoch of an RFC 3339 date-time, or undefined when it is not one. */
function parseTimestamp(text: string): { seconds: bigint; nanos: number } | undefined {
  const match = TIMESTAMP.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (!validDate(year, month, day) || hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  if (match[9] !== undefined) {
    const hours = Number(match[10]);
    const minutes = Number(match[11]);
    if (hours > 23 || minutes > 59) return undefined;
    offsetMinutes = (match[9] === "-" ? -1 : 1) * (hours * 60 + minutes);
  }
  const seconds = BigInt(daysFromEpoch(year, month, day)) * 86400n + BigInt(hour * 3600 + minute * 60 + second - offsetMinutes * 60);
  if (seconds < MIN_SECONDS || seconds > MAX_SECONDS) return undefined;
  return { seconds, nanos: Number((match[7] ?? "").padEnd(9, "0")) };
}

function formatTimestamp(seconds: bigint, nanos: number): string {
  const days = seconds >= 0n ? seconds / 86400n : -((-seconds + 86399n) / 86400n);
  const rest = Number(seconds - days * 86400n);
  const date = new Date(Number(days) * 86_400_000);
  const ymd = `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}`;
  return `${ymd}T${pad(Math.floor(rest / 3600), 2)}:${pad(Math.floor(rest / 60) % 60, 2)}:${pad(rest % 60, 2)}${fraction(nanos)}Z`;
}

function parseDuration(text: string): { seconds: bigint; nanos: number } | undefined {
  const match = DURATION.exec(text);
  if (!match) return undefined;
  const sign = match[1] ? -1 : 1;
  const seconds = BigInt(match[2]!);
  if (seconds > MAX_DURATION_SECONDS) return undefined;
  const nanos = Number((match[3] ?? "").padEnd(9, "0"));
  return { seconds: sign < 0 ? -seconds : seconds, nanos: sign < 0 && nanos !== 0 ? -nanos : nanos };
}

function formatDuration(seconds: bigint, nanos: number): string {
  const negative = seconds < 0n || nanos < 0;
  const whole = seconds < 0n ? -seconds : seconds;
  return `${negative ? "-" : ""}${whole}${fraction(Math.abs(nanos))}s`;
}

function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function base64ToBytes(text: string): Uint8Array | undefined {
  if (!BASE64.test(text) || text.replace(/=+$/, "").length % 4 === 1) return undefined;
  const standard = text.replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "");
  try {
    const binary = atob(standard.padEnd(Math.ceil(standard.length / 4) * 4, "="));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/** A protobuf-es Timestamp or Duration message, or its init. */
type SecondsAndNanos = { seconds?: bigint | number | string; nanos?: number };
const isSecondsAndNanos = (value: unknown): value is SecondsAndNanos => typeof value === "object" && value !== null && !Array.isArray(value) && ("seconds" in value || "nanos" in value);

/** A 64-bit integer's decimal string: from a bigint, a safe integer or a string of `form`, within [min, max]. */
function integerText(value: unknown, form: RegExp, min: bigint, max: bigint): string | undefined {
  const big = typeof value === "bigint" ? value : typeof value === "number" && Number.isSafeInteger(value) ? BigInt(value) : typeof value === "string" && form.test(value) ? BigInt(value) : undefined;
  return big !== undefined && big >= min && big <= max ? String(big) : undefined;
}

/**
 * The canonical JSON form of a value of `kind`, or undefined when the value is not one. Reads what
 * JSON carries (strings; an integer for uint64 and int64_string), what protobuf-es decodes (bigint,
 * Uint8Array, Timestamp and Duration messages) and a JavaScript Date for a timestamp.
 */
export function canonicalText(kind: TextKind, value: unknown): string | undefined {
  switch (kind) {
    case "timestamp": {
      if (value instanceof Date) value = Number.isNaN(value.getTime()) ? undefined : value.toISOString();
      const parsed = typeof value === "string" ? parseTimestamp(value) : isSecondsAndNanos(value) ? { seconds: BigInt(value.seconds ?? 0), nanos: value.nanos ?? 0 } : undefined;
      return parsed && parsed.seconds >= MIN_SECONDS && parsed.seconds <= MAX_SECONDS && parsed.nanos >= 0 && parsed.nanos < 1e9 ? formatTimestamp(parsed.seconds, parsed.nanos) : undefined;
    }
    case "date": {
      const match = typeof value === "string" ? DATE.exec(value) : null;
      return match && validDate(Number(match[1]), Number(match[2]), Number(match[3])) ? (value as string) : undefined;
    }
    case "duration": {
      const parsed = typeof value === "string" ? parseDuration(value) : isSecondsAndNanos(value) ? { seconds: BigInt(value.seconds ?? 0), nanos: value.nanos ?? 0 } : undefined;
      return parsed && Math.abs(parsed.nanos) < 1e9 && parsed.seconds <= MAX_DURATION_SECONDS && parsed.seconds >= -MAX_DURATION_SECONDS ? formatDuration(parsed.seconds, parsed.nanos) : undefined;
    }
    case "bytes": {
      if (value instanceof Uint8Array) return bytesToBase64(value);
      const bytes = typeof value === "string" ? base64ToBytes(value) : undefined;
      return bytes && bytesToBase64(bytes);
    }
    case "uint64":
      return integerText(value, UINT64, 0n, MAX_UINT64);
    case "int64_string":
      return integerText(value, INT64, MIN_INT64, MAX_INT64);
  }
}

/** A canonical JSON value of `kind` as the init of its protobuf-es field (Timestamp, Duration, bytes, bigint; a date stays a string). */
export function protoOfText(kind: TextKind, text: string): unknown {
  switch (kind) {
    case "timestamp":
      return parseTimestamp(text) ?? { seconds: 0n, nanos: 0 };
    case "duration":
      return parseDuration(text) ?? { seconds: 0n, nanos: 0 };
    case "bytes":
      return base64ToBytes(text) ?? new Uint8Array();
    case "uint64":
    case "int64_string":
      return BigInt(text);
    case "date":
      return text;
  }
}
