// The string-valued kinds read every form a peer may send and write one canonical form, which the
// protobuf encoding of the same value turns back into (timestamp, date, duration, bytes, uint64).
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { DurationSchema, TimestampSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { canonicalText, protoOfText } from "../../runtime/wire-values.js";

describe("canonical texts", () => {
  it.each([
    ["2026-01-31T09:30:00Z", "2026-01-31T09:30:00Z"],
    ["2026-01-31t09:30:00z", "2026-01-31T09:30:00Z"],
    ["2026-01-31T10:30:00+01:00", "2026-01-31T09:30:00Z"],
    ["2026-01-01T00:30:00+01:00", "2025-12-31T23:30:00Z"],
    ["2026-01-31T09:30:00.1Z", "2026-01-31T09:30:00.100Z"],
    ["2026-01-31T09:30:00.1234Z", "2026-01-31T09:30:00.123400Z"],
    ["2026-01-31T09:30:00.123456789Z", "2026-01-31T09:30:00.123456789Z"],
    ["2024-02-29T00:00:00Z", "2024-02-29T00:00:00Z"],
    ["0001-01-01T00:00:00Z", "0001-01-01T00:00:00Z"],
    ["0050-06-01T00:00:00Z", "0050-06-01T00:00:00Z"],
    ["9999-12-31T23:59:59.999999999Z", "9999-12-31T23:59:59.999999999Z"],
  ])("timestamp %s is %s", (given, canonical) => {
    expect(canonicalText("timestamp", given)).toBe(canonical);
    // The protobuf Timestamp of it reads back as the same text.
    const message = fromBinary(TimestampSchema, toBinary(TimestampSchema, create(TimestampSchema, protoOfText("timestamp", canonical) as never)));
    expect(canonicalText("timestamp", message)).toBe(canonical);
  });

  it.each([
    "2026-02-29T00:00:00Z",
    "2026-01-31T24:00:00Z",
    "2026-01-31T09:30:60Z",
    "2026-01-31 09:30:00Z",
    "2026-01-31T09:30:00",
    "2026-01-31T09:30:00.1234567890Z",
    "0001-01-01T00:00:00+01:00",
    "",
    1706693400,
    null,
  ])("timestamp %s is refused", (given) => expect(canonicalText("timestamp", given)).toBeUndefined());

  it("reads a JavaScript Date as a timestamp", () => {
    expect(canonicalText("timestamp", new Date(Date.UTC(2026, 0, 31, 9, 30)))).toBe("2026-01-31T09:30:00Z");
    expect(canonicalText("timestamp", new Date(Number.NaN))).toBeUndefined();
  });

  it("reads dates of the Gregorian calendar only", () => {
    expect(canonicalText("date", "2024-02-29")).toBe("2024-02-29");
    for (const bad of ["2023-02-29", "1900-02-29", "2026-13-01", "2026-1-01", "0000-01-01", "2026-01-31T00:00:00Z"]) expect(canonicalText("date", bad), bad).toBeUndefined();
  });

  it.each([
    ["90s", "90s"],
    ["1.5s", "1.500s"],
    ["-0.25s", "-0.250s"],
    ["0.000000001s", "0.000000001s"],
    ["315576000000s", "315576000000s"],
  ])("duration %s is %s", (given, canonical) => {
    expect(canonicalText("duration", given)).toBe(canonical);
    const message = fromBinary(DurationSchema, toBinary(DurationSchema, create(DurationSchema, protoOfText("duration", canonical) as never)));
    expect(canonicalText("duration", message)).toBe(canonical);
  });

  it.each(["1.5", "1m", "PT1S", "315576000001s", "1.0000000001s", "+1s", " 1s"])("duration %s is refused", (given) => expect(canonicalText("duration", given)).toBeUndefined());

  it("reads standard and URL-safe base64, padded or not, and writes standard padded base64", () => {
    const bytes = Uint8Array.from([0, 255, 251, 239]);
    for (const given of ["AP/77w==", "AP_77w", "AP_77w=="]) expect(canonicalText("bytes", given), given).toBe("AP/77w==");
    expect(canonicalText("bytes", bytes)).toBe("AP/77w==");
    expect(protoOfText("bytes", "AP/77w==")).toEqual(bytes);
    expect(canonicalText("bytes", "")).toBe("");
    for (const bad of ["A", "AP/77w===", "not base64!", "AP/7 7w=="]) expect(canonicalText("bytes", bad), bad).toBeUndefined();
  });

  it("reads an int64_string as a decimal string, a safe integer or a bigint, over the whole int64 range", () => {
    expect(canonicalText("int64_string", "-9223372036854775808")).toBe("-9223372036854775808");
    expect(canonicalText("int64_string", "9223372036854775807")).toBe("9223372036854775807");
    expect(canonicalText("int64_string", -42)).toBe("-42");
    expect(canonicalText("int64_string", -9223372036854775808n)).toBe("-9223372036854775808");
    expect(protoOfText("int64_string", "-9223372036854775808")).toBe(-9223372036854775808n);
    for (const bad of ["9223372036854775808", "-9223372036854775809", "-0", "01", "1e3", " 1", "", 2 ** 60, 1.5, 9223372036854775808n, null])
      expect(canonicalText("int64_string", bad), String(bad)).toBeUndefined();
  });

  it("reads a uint64 as a decimal string, a safe integer or a bigint, up to 2^64 - 1", () => {
    expect(canonicalText("uint64", "18446744073709551615")).toBe("18446744073709551615");
    expect(canonicalText("uint64", 42)).toBe("42");
    expect(canonicalText("uint64", 18446744073709551615n)).toBe("18446744073709551615");
    expect(protoOfText("uint64", "18446744073709551615")).toBe(18446744073709551615n);
    for (const bad of ["18446744073709551616", "-1", "01", "1e3", " 1", 2 ** 60, -1, 1.5]) expect(canonicalText("uint64", bad), String(bad)).toBeUndefined();
  });
});
