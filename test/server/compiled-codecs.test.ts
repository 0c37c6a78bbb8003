// The server's compiled codecs give the answers of the generic functions they stand in for
// (validateInput, normalizeMessage, missingRequiredField), on both APIs of this repository: for every
// operation, an input with every field valid and, from it, each field left out, null, empty, of
// every wrong type, too long, out of range, with an unknown key beside it; for every message, answers
// with wrong, missing, bigint, numeric-string and enum-number values.
import { describe, expect, it } from "vitest";
import { schema as identitySchema } from "../../generated/schema.js";
import { rules as identityRules } from "../../generated/server/rules.js";
import { schema as bookstoreSchema } from "../../examples/bookstore/generated/schema.js";
import { rules as bookstoreRules } from "../../examples/bookstore/generated/server/rules.js";
import { BUILTIN_FORMAT_RULES } from "../../runtime/formats.js";
import { mapValueField, type ApiSchema, type FieldSpec } from "../../runtime/schema.js";
import { ServiceError } from "../../runtime/errors.js";
import { CompiledCodecs } from "../../runtime/server/compiled-codecs.js";
import { missingRequiredField, normalizeMessage } from "../../runtime/shape.js";
import { formatCheck, jsonWithinLimits, validateInput, type ValidationRules } from "../../runtime/validate.js";

type Plain = Record<string, unknown>;

/** JSON text that shows bigints too (as "5n"). */
const shown = (value: unknown) => String(JSON.stringify(value, (_key, item: unknown) => (typeof item === "bigint" ? `${item}n` : item))).slice(0, 200);

/** What a call came to: its result as JSON text (key order included), or its error. */
function outcome(run: () => unknown): string {
  try {
    const result = run();
    return `ok ${typeof result === "string" ? result : shown(result)}`;
  } catch (error) {
    if (!(error instanceof ServiceError)) return `thrown ${String(error)}`;
    return `error ${error.code} ${error.field ?? ""} ${error.message}`;
  }
}

/** Strings a declared pattern may take: the first it matches is used. */
const PATTERN_CANDIDATES = ["user:1", "viewer", "a", "x y", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----"];

/** A value of the field that its rules accept (as far as a few candidates go). */
function validValue(api: ApiSchema, rules: ValidationRules, messageName: string, field: FieldSpec, depth: number): unknown {
  const rule = rules.fields[messageName]?.[field.name];
  switch (field.kind) {
    case "string": {
      if (rule?.format) {
        const builtin = BUILTIN_FORMAT_RULES[rule.format as keyof typeof BUILTIN_FORMAT_RULES];
        if (builtin) return builtin.example;
        const declared = rules.formats[rule.format]!;
        if (declared.values) return declared.values[0];
        return PATTERN_CANDIDATES.find((candidate) => formatCheck(rules, rule.format!).test(candidate)) ?? "x";
      }
      return "v".repeat(Math.max(1, rule?.minLength ?? 1));
    }
    case "bool":
      return true;
    case "int32":
    case "int64":
    case "uint32":
    case "float32":
    case "float64":
      return rule?.minimum ?? 1;
    case "uint64":
      return "18446744073709551615";
    case "timestamp":
      return "2026-01-31T09:30:00Z";
    case "date":
      return "2026-01-31";
    case "duration":
      return "1.5s";
    case "bytes":
      return "AP8=";
    case "int64_string":
      return "-9223372036854775808";
    case "map":
      // map<V>: a value V's rules accept (a map's values have none of their own).
      return field.value === undefined ? { key: "value" } : { key: validValue(api, { ...rules, fields: {} }, messageName, mapValueField(field), depth) };
    case "json":
      return { team: "analytics", since: 1843, nested: { ok: true } };
    case "enum":
      return Object.keys(api.enums[field.ref!]!.values)[0];
    case "message":
      return depth > 3 ? {} : validMessage(api, rules, field.ref!, depth + 1);
  }
}

function validMessage(api: ApiSchema, rules: ValidationRules, messageName: string, depth = 0): Plain {
  const value: Plain = {};
  const message = api.messages[messageName]!;
  // A union takes exactly one variant: its first.
  for (const field of message.oneOf ? message.fields.slice(0, 1) : message.fields) {
    const item = validValue(api, rules, messageName, field, depth);
    value[field.name] = field.list ? [item] : item;
  }
  return value;
}

/** Values of every kind a field must refuse or treat apart. */
const ODD_VALUES: unknown[] = [
  ...[undefined, null, "", " ", "x".repeat(300), 0, -1, 1.5, 2 ** 31, 2 ** 32, 2 ** 53, 4e38, Number.NaN, 5n, true, false, "7", [], ["x"], [null], {}, { a: 1 }, { a: { b: { c: 1 } } }],
  // Texts of the string-valued kinds, in other forms than the canonical one, and out of range.
  ...["2026-01-31T10:30:00+01:00", "2026-02-30", "90s", "1.5", "AP_77w", "AP8", "18446744073709551616", "-1"],
];

/** The input with one change: each field replaced by each odd value (in lists too), or an unknown key added. */
function* variants(api: ApiSchema, messageName: string, valid: Plain): Generator<unknown> {
  yield valid;
  yield { ...valid, not_a_field: 1 };
  yield "not an object";
  yield null;
  yield [];
  for (const field of api.messages[messageName]!.fields) {
    for (const odd of ODD_VALUES) yield { ...valid, [field.name]: odd };
    if (field.list) for (const odd of ODD_VALUES) yield { ...valid, [field.name]: [valid[field.name] && (valid[field.name] as unknown[])[0], odd] };
    const { [field.name]: _left, ...without } = valid;
    yield without;
    // A union's variants other than the one given have no value to vary.
    if (field.kind === "message" && !field.list && valid[field.name] !== undefined) {
      for (const inner of variants(api, field.ref!, valid[field.name] as Plain)) yield { ...valid, [field.name]: inner };
    }
  }
}

/** Answers to normalize: a valid one, and each field of it made odd (enum numbers, numeric strings, bigints, objects with toJSON too). */
function* answers(api: ApiSchema, messageName: string, valid: Plain): Generator<unknown> {
  yield* variants(api, messageName, valid);
  const strings = ['quote " backslash \\ newline \n', "tab\tand \u0001", "lone \ud800 surrogate", "pair \ud83d\ude00", "unicode é ü 漢", "\u2028"];
  for (const field of api.messages[messageName]!.fields) {
    for (const odd of [...strings, 1, 2, 99, "12", 12n, { toJSON: () => "from toJSON" }, new Date(0)]) yield { ...valid, [field.name]: field.list ? [odd, null] : odd };
  }
}

describe.each([
  ["identity", identitySchema, identityRules],
  ["bookstore", bookstoreSchema, bookstoreRules],
] as const)("the compiled codecs of the %s API", (_name, api, rules) => {
  const codecs = new CompiledCodecs(api, rules);

  it("check every input as validateInput does: the same value, or the same error", () => {
    let compared = 0;
    let accepted = 0;
    for (const operation of Object.values(api.operations)) {
      const codec = codecs.of(operation);
      for (const input of variants(api, operation.input, validMessage(api, rules, operation.input))) {
        const expected = outcome(() => validateInput(api, rules, operation, input));
        expect(
          outcome(() => codec.validate(input)),
          `${operation.name} ${shown(input)}`,
        ).toBe(expected);
        compared++;
        if (expected.startsWith("ok")) accepted++;
      }
    }
    // Both ways are exercised, on many inputs.
    expect(compared).toBeGreaterThan(300);
    expect(accepted).toBeGreaterThan(compared / 10);
    expect(compared - accepted).toBeGreaterThan(compared / 10);
  });

  it("normalize every answer as normalizeMessage does, to the order of the keys", () => {
    let compared = 0;
    for (const operation of Object.values(api.operations)) {
      const codec = codecs.of(operation);
      for (const answer of answers(api, operation.output, validMessage(api, rules, operation.output))) {
        const expected = normalizeMessage(api, operation.output, answer);
        const normalized = codec.normalize(answer);
        expect(normalized, `${operation.name} ${shown(answer)}`).toEqual(expected);
        // The JSON text too (the key order, which toEqual does not compare); a bigint left in a string field throws in both.
        expect(outcome(() => JSON.stringify(normalized))).toBe(outcome(() => JSON.stringify(expected)));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(300);
  });

  it("write every normalized answer as JSON.stringify does, to the byte, and a kept one read back from JSON too", () => {
    let compared = 0;
    let thrown = 0;
    // Every message's compiled writer, used for its answers or not (a message of mostly strings is left to JSON.stringify).
    for (const message of Object.values(api.messages)) {
      const write = codecs.jsonWriter(message.name);
      if (!write) continue;
      const normalize = (value: unknown) => normalizeMessage(api, message.name, value);
      for (const answer of answers(api, message.name, validMessage(api, rules, message.name))) {
        const normalized = normalize(answer);
        const expected = outcome(() => JSON.stringify(normalized));
        expect(
          outcome(() => write(normalized)),
          `${message.name} ${shown(answer)}`,
        ).toBe(expected);
        compared++;
        if (expected.startsWith("thrown")) thrown++;
        else expect(write(JSON.parse(JSON.stringify(normalized)) as Plain)).toBe(expected.slice("ok ".length));
      }
      // Values an implementation may leave in the shape by way of a json or map field, or that a
      // field's own type never takes: each written as JSON.stringify writes it, or the key left out.
      const valid = normalize(validMessage(api, rules, message.name));
      for (const field of message.fields) {
        for (const odd of [undefined, () => 1, Symbol("s"), Number.NaN, -0, Infinity, -Infinity, new Date(0), { toJSON: () => undefined }, [undefined, () => 1], "\ud800", 1e21, 5e-7]) {
          const changed = { ...valid, [field.name]: odd };
          expect(
            outcome(() => write(changed)),
            `${message.name}.${field.name} = ${String(odd)}`,
          ).toBe(outcome(() => JSON.stringify(changed)));
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(1000);
    // A bigint left in a field throws JSON.stringify's TypeError in both.
    expect(thrown).toBeGreaterThan(0);
    // What each operation answers with: its writer's text, compiled or JSON.stringify's.
    for (const operation of Object.values(api.operations)) {
      const normalized = codecs.of(operation).normalize(validMessage(api, rules, operation.output));
      expect(codecs.of(operation).json(normalized)).toBe(JSON.stringify(normalized));
    }
  });

  it("find the required field a normalized answer lacks as missingRequiredField does, at any depth", () => {
    let compared = 0;
    let lacking = 0;
    let nested = 0;
    for (const operation of Object.values(api.operations)) {
      const codec = codecs.of(operation);
      for (const answer of answers(api, operation.output, validMessage(api, rules, operation.output))) {
        const normalized = codec.normalize(answer);
        const expected = missingRequiredField(api, operation.output, normalized);
        expect(codec.missingField(normalized), `${operation.name} ${shown(answer)}`).toBe(expected);
        compared++;
        if (expected !== undefined) lacking++;
        if (expected?.includes(".")) nested++;
      }
    }
    // Answers lacking a field, in a nested message too, and complete ones.
    expect(lacking).toBeGreaterThan(10);
    expect(nested).toBeGreaterThan(0);
    expect(compared - lacking).toBeGreaterThan(compared / 2);
  });
});

describe("the size limit of a json value", () => {
  it("gives the verdict of counting its JSON bytes, whether a bound settles it or the count does", () => {
    // Long strings of characters that take more than one byte, so that a bound too low would show.
    const members: unknown[] = [
      "plain",
      "é ü 漢",
      "é".repeat(60),
      "漢".repeat(60),
      "\u0001".repeat(60),
      "\\".repeat(60),
      "\ud83d\ude00".repeat(30),
      0,
      -1.5,
      1e21,
      1.7976931348623157e308,
      Array(30).fill(-0.0000012345678901234567),
      true,
      null,
      [1, "two", null],
      { nested: { deeper: ["x"] } },
    ];
    let verdicts = 0;
    for (const member of members) {
      for (let count = 1; count <= 4; count++) {
        const value = Object.fromEntries(Array.from({ length: count }, (_, i) => [`key_${i}`, member]));
        const size = Buffer.byteLength(JSON.stringify(value));
        // Limits around the exact size, and far above it (where the bound alone decides).
        for (const limit of [size - 1, size, size + 1, size * 10]) {
          expect(jsonWithinLimits(value, 32, limit), `${JSON.stringify(value)} within ${limit}`).toBe(size <= limit);
          verdicts++;
        }
      }
    }
    expect(verdicts).toBe(members.length * 4 * 4);
  });
});

describe("the choice of the JSON writer", () => {
  const codecs = new CompiledCodecs(identitySchema, identityRules);
  const writerOf = (operation: keyof typeof identitySchema.operations) => codecs.of(identitySchema.operations[operation]!).json;
  it("takes the compiled one for a message of mostly booleans and numbers, JSON.stringify for one of mostly strings", () => {
    // AdminMeta: 13 booleans and a number of 17 fields; User: 14 strings of 20.
    expect(writerOf("admin_meta")).toBe(codecs.jsonWriter("AdminMeta"));
    expect(writerOf("update_user")).not.toBe(codecs.jsonWriter("User"));
    expect(codecs.jsonWriter("User")).toBeDefined();
  });
});
