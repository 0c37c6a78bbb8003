// Every field type of the manifest, once: what it is in protobuf, GraphQL, JSON Schema (OpenAPI and
// the MCP tool catalogue), TypeScript, Python and Go, the words other languages use for it, the
// rules it takes, a sample value and what the wire check says of a wrong value. Keyed by the
// runtime's ScalarKind: a kind added there fails to compile until it has an entry here, and every
// emitter reads its mapping from this table (the runtimes' behaviour switches are exhaustive too).
import { GraphQLBoolean, GraphQLFloat, GraphQLInt, GraphQLScalarType, GraphQLString } from "graphql";
import type { ScalarKind } from "../../runtime/schema.js";
import { VALUE_TEXTS } from "../../runtime/validate.js";

/** A scalar of protobuf, a map<string, string>, or a well-known message (google.protobuf.Struct, Timestamp, Duration). */
export type ProtoScalar = "string" | "bool" | "int32" | "int64" | "uint32" | "uint64" | "float" | "double" | "bytes";
export type ProtoMapping =
  | { readonly kind: "scalar"; readonly scalar: ProtoScalar }
  | { readonly kind: "map" }
  | { readonly kind: "wellKnown"; readonly typeName: `.google.protobuf.${string}`; readonly file: `google/protobuf/${string}.proto` };

/** A name a Python annotation imports: from a module, or a type the SDK itself declares (_model.py). */
export type PythonImport = { readonly module: string; readonly name: string } | { readonly own: string };

/** What the sample of a field of this type is in the docs' examples. */
export type SampleKind = "text" | "number" | { readonly value: unknown };

export interface ScalarSpec {
  /** How docs and diff reports name it, where the kind is not the manifest's word for it. */
  readonly label?: string;
  /** Other languages' words for it (lower case): a manifest writing one is told this type's name. */
  readonly aliases: readonly string[];
  /** Takes minimum / maximum, and a number as requiredIf.equals. */
  readonly numeric: boolean;
  readonly proto: ProtoMapping;
  /** What a proto field's comment adds where the proto type alone does not say the value's form. */
  readonly protoNote?: string;
  readonly graphql: GraphQLScalarType;
  /** JSON Schema of a value: OpenAPI states the format (and pattern), the MCP catalogue the type only. */
  readonly jsonSchema: {
    readonly type: string;
    readonly format?: string;
    readonly pattern?: string;
    readonly contentEncoding?: string;
    readonly minimum?: number;
    readonly maximum?: number;
    readonly additionalProperties?: unknown;
  };
  /** The JSON Schema of an input value, where requests may carry more forms than answers do (a uint64 as a number too). */
  readonly jsonSchemaInput?: { readonly anyOf: readonly Record<string, unknown>[] };
  readonly typescript: string;
  /** The TypeScript type graphql-codegen maps a custom GraphQL scalar to (only custom scalars). */
  readonly codegenTypescript?: string;
  /** The annotation of an input argument and of an answer's attribute, with the name each imports. */
  readonly python: { readonly input: string; readonly answer: string; readonly imports?: { readonly input?: PythonImport; readonly answer?: PythonImport } };
  /** The Go type, whether an optional field of it is a pointer, and the field kind constant of the transport's tables. */
  readonly go: { readonly type: string; readonly pointerWhenOptional: boolean; readonly kind: string };
  /** What the client-side wire check says of a value of another type. */
  readonly wireText: string;
  readonly sample: SampleKind;
}

/**
 * Custom GraphQL scalars: 64-bit and unsigned integers (GraphQL Int is signed 32-bit), date-times,
 * dates, durations, bytes, string maps and free-form JSON objects. Where a scalar specification
 * exists (scalars.graphql.org), the scalar names it with @specifiedBy.
 */
const INT64 = new GraphQLScalarType({
  name: "Int64",
  description: "An integer from -9007199254740991 to 9007199254740991 (the integers a JSON number holds exactly), such as a Unix time in seconds; an int64 in protobuf.",
});
// The same scalar of an API that writes its int64 as proto3's JSON mapping does (api.int64_json: string).
const INT64_STRING = new GraphQLScalarType({
  name: "Int64",
  description:
    'An integer from -9223372036854775808 to 9223372036854775807 written as a decimal string ("-9223372036854775808"), as protobuf\'s JSON mapping writes an int64; a number is accepted as input.',
});
const UINT32 = new GraphQLScalarType({ name: "UInt32", description: "An integer from 0 to 4294967295; a uint32 in protobuf." });
const UINT64 = new GraphQLScalarType({
  name: "UInt64",
  description: 'An integer from 0 to 18446744073709551615 written as a decimal string ("18446744073709551615"), as protobuf\'s JSON mapping writes a uint64; a number is accepted as input.',
});
const DATE_TIME = new GraphQLScalarType({
  name: "DateTime",
  description: "An instant as an RFC 3339 date-time (2026-01-31T09:30:00Z); answers are in UTC with 0, 3, 6 or 9 fractional digits. A google.protobuf.Timestamp in protobuf.",
  specifiedByURL: "https://scalars.graphql.org/andimarek/date-time",
});
const DATE = new GraphQLScalarType({
  name: "Date",
  description: "A calendar date as an RFC 3339 full-date (2026-01-31).",
  specifiedByURL: "https://scalars.graphql.org/andimarek/local-date",
});
const DURATION = new GraphQLScalarType({
  name: "Duration",
  description: 'A signed length of time in seconds with up to 9 fractional digits and the suffix s ("90s", "1.5s", "-0.25s"), as protobuf\'s JSON mapping writes a google.protobuf.Duration.',
});
const BYTES = new GraphQLScalarType({ name: "Bytes", description: "Bytes as standard base64 (RFC 4648, padded; URL-safe base64 is accepted as input); bytes in protobuf." });
const MAP = new GraphQLScalarType({ name: "Map", description: "A JSON object whose values are strings." });
const JSON_OBJECT = new GraphQLScalarType({ name: "JSON", description: "A free-form JSON object." });

export const SCALAR_SPECS: Readonly<Record<ScalarKind, ScalarSpec>> = {
  string: {
    aliases: ["str", "text"],
    numeric: false,
    proto: { kind: "scalar", scalar: "string" },
    graphql: GraphQLString,
    jsonSchema: { type: "string" },
    typescript: "string",
    python: { input: "str", answer: "str" },
    go: { type: "string", pointerWhenOptional: true, kind: "kindString" },
    wireText: VALUE_TEXTS.string,
    sample: "text",
  },
  bool: {
    aliases: ["boolean"],
    numeric: false,
    proto: { kind: "scalar", scalar: "bool" },
    graphql: GraphQLBoolean,
    jsonSchema: { type: "boolean" },
    typescript: "boolean",
    python: { input: "bool", answer: "bool" },
    go: { type: "bool", pointerWhenOptional: true, kind: "kindBool" },
    wireText: VALUE_TEXTS.bool,
    sample: { value: true },
  },
  int32: {
    aliases: [],
    numeric: true,
    proto: { kind: "scalar", scalar: "int32" },
    graphql: GraphQLInt,
    jsonSchema: { type: "integer", format: "int32" },
    typescript: "number",
    python: { input: "int", answer: "int" },
    go: { type: "int32", pointerWhenOptional: true, kind: "kindInt32" },
    wireText: VALUE_TEXTS.integer,
    sample: "number",
  },
  int64: {
    aliases: ["integer", "int", "long"],
    numeric: true,
    proto: { kind: "scalar", scalar: "int64" },
    graphql: INT64,
    jsonSchema: { type: "integer", format: "int64" },
    typescript: "number",
    codegenTypescript: "number",
    python: { input: "int", answer: "int" },
    go: { type: "int64", pointerWhenOptional: true, kind: "kindInt64" },
    wireText: VALUE_TEXTS.integer,
    sample: "number",
  },
  // An int64 of an API whose int64 travel as proto3's JSON mapping writes them (api.int64_json: string);
  // the manifest writes int64 either way. No minimum or maximum: a JSON Schema cannot bound a string.
  int64_string: {
    label: "int64 (a decimal string)",
    aliases: [],
    numeric: false,
    proto: { kind: "scalar", scalar: "int64" },
    graphql: INT64_STRING,
    jsonSchema: { type: "string", format: "int64", pattern: "^(0|-?[1-9][0-9]{0,18})$" },
    jsonSchemaInput: {
      anyOf: [
        { type: "string", format: "int64", pattern: "^(0|-?[1-9][0-9]{0,18})$" },
        { type: "integer", minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
      ],
    },
    typescript: "string",
    codegenTypescript: "string",
    python: { input: "int", answer: "int" },
    go: { type: "int64", pointerWhenOptional: true, kind: "kindInt64String" },
    wireText: VALUE_TEXTS.int64_string,
    sample: { value: "9007199254740993" },
  },
  uint32: {
    aliases: ["uint", "unsigned"],
    numeric: true,
    proto: { kind: "scalar", scalar: "uint32" },
    graphql: UINT32,
    jsonSchema: { type: "integer", format: "uint32", minimum: 0, maximum: 4294967295 },
    typescript: "number",
    codegenTypescript: "number",
    python: { input: "int", answer: "int" },
    go: { type: "uint32", pointerWhenOptional: true, kind: "kindUint32" },
    wireText: VALUE_TEXTS.integer,
    sample: "number",
  },
  uint64: {
    aliases: ["ulong"],
    numeric: false,
    proto: { kind: "scalar", scalar: "uint64" },
    graphql: UINT64,
    jsonSchema: { type: "string", format: "uint64", pattern: "^(0|[1-9][0-9]{0,19})$" },
    // proto3's JSON mapping reads a number too; the exact ones of a JSON number.
    jsonSchemaInput: {
      anyOf: [
        { type: "string", format: "uint64", pattern: "^(0|[1-9][0-9]{0,19})$" },
        { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
      ],
    },
    typescript: "string",
    codegenTypescript: "string",
    python: { input: "int", answer: "int" },
    go: { type: "uint64", pointerWhenOptional: true, kind: "kindUint64" },
    wireText: VALUE_TEXTS.uint64,
    sample: { value: "18446744073709551615" },
  },
  float32: {
    aliases: ["single", "real"],
    numeric: true,
    proto: { kind: "scalar", scalar: "float" },
    graphql: GraphQLFloat,
    jsonSchema: { type: "number", format: "float" },
    typescript: "number",
    python: { input: "float", answer: "float" },
    go: { type: "float32", pointerWhenOptional: true, kind: "kindFloat32" },
    wireText: VALUE_TEXTS.number,
    sample: { value: 4.5 },
  },
  float64: {
    aliases: ["number", "float", "double"],
    numeric: true,
    proto: { kind: "scalar", scalar: "double" },
    graphql: GraphQLFloat,
    jsonSchema: { type: "number", format: "double" },
    typescript: "number",
    python: { input: "float", answer: "float" },
    go: { type: "float64", pointerWhenOptional: true, kind: "kindFloat64" },
    wireText: VALUE_TEXTS.number,
    sample: "number",
  },
  timestamp: {
    aliases: ["datetime", "date-time", "date_time", "instant"],
    numeric: false,
    proto: { kind: "wellKnown", typeName: ".google.protobuf.Timestamp", file: "google/protobuf/timestamp.proto" },
    graphql: DATE_TIME,
    jsonSchema: { type: "string", format: "date-time" },
    typescript: "string",
    codegenTypescript: "string",
    python: { input: "datetime", answer: "datetime", imports: { input: { module: "datetime", name: "datetime" }, answer: { module: "datetime", name: "datetime" } } },
    go: { type: "time.Time", pointerWhenOptional: true, kind: "kindTimestamp" },
    wireText: VALUE_TEXTS.timestamp,
    sample: { value: "2026-01-31T09:30:00Z" },
  },
  date: {
    aliases: ["localdate", "local_date"],
    numeric: false,
    proto: { kind: "scalar", scalar: "string" },
    protoNote: "A date as an RFC 3339 full-date (2026-01-31).",
    graphql: DATE,
    jsonSchema: { type: "string", format: "date" },
    typescript: "string",
    codegenTypescript: "string",
    python: { input: "date", answer: "date", imports: { input: { module: "datetime", name: "date" }, answer: { module: "datetime", name: "date" } } },
    go: { type: "Date", pointerWhenOptional: true, kind: "kindDate" },
    wireText: VALUE_TEXTS.date,
    sample: { value: "2026-01-31" },
  },
  duration: {
    aliases: ["timedelta", "interval", "period"],
    numeric: false,
    proto: { kind: "wellKnown", typeName: ".google.protobuf.Duration", file: "google/protobuf/duration.proto" },
    graphql: DURATION,
    jsonSchema: { type: "string", pattern: "^-?[0-9]{1,12}(\\.[0-9]{1,9})?s$" },
    typescript: "string",
    codegenTypescript: "string",
    python: { input: "timedelta", answer: "timedelta", imports: { input: { module: "datetime", name: "timedelta" }, answer: { module: "datetime", name: "timedelta" } } },
    go: { type: "time.Duration", pointerWhenOptional: true, kind: "kindDuration" },
    wireText: VALUE_TEXTS.duration,
    sample: { value: "90s" },
  },
  bytes: {
    aliases: ["binary", "blob", "bytearray"],
    numeric: false,
    proto: { kind: "scalar", scalar: "bytes" },
    graphql: BYTES,
    jsonSchema: { type: "string", format: "byte", contentEncoding: "base64" },
    typescript: "string",
    codegenTypescript: "string",
    python: { input: "bytes", answer: "bytes" },
    go: { type: "[]byte", pointerWhenOptional: false, kind: "kindBytes" },
    wireText: VALUE_TEXTS.bytes,
    sample: { value: "aGVsbG8=" },
  },
  map: {
    aliases: ["dict"],
    numeric: false,
    proto: { kind: "map" },
    graphql: MAP,
    jsonSchema: { type: "object", additionalProperties: { type: "string" } },
    typescript: "Record<string, string>",
    codegenTypescript: "Record<string, string>",
    python: { input: "Mapping[str, str]", answer: "dict[str, str]", imports: { input: { module: "collections.abc", name: "Mapping" } } },
    go: { type: "map[string]string", pointerWhenOptional: false, kind: "kindMap" },
    wireText: VALUE_TEXTS.map,
    sample: { value: { key: "value" } },
  },
  json: {
    aliases: ["object"],
    numeric: false,
    proto: { kind: "wellKnown", typeName: ".google.protobuf.Struct", file: "google/protobuf/struct.proto" },
    graphql: JSON_OBJECT,
    jsonSchema: { type: "object", additionalProperties: true },
    typescript: "JsonObject",
    codegenTypescript: "Record<string, unknown>",
    python: { input: "JsonInput", answer: "JsonObject", imports: { input: { own: "JsonInput" }, answer: { own: "JsonObject" } } },
    go: { type: "map[string]any", pointerWhenOptional: false, kind: "kindJSON" },
    wireText: VALUE_TEXTS.json,
    sample: { value: {} },
  },
};

/** The manifest's word for another language's name of a type (`integer` -> int64), or undefined. */
/** The GraphQL custom scalar of a map<V> (GraphQL has no maps): IntMap, GenreMap; the plain map's is Map. */
export function mapScalarName(value: { kind: "scalar"; scalar: ScalarKind } | { kind: "enum" | "message"; name: string }): string {
  return `${value.kind === "scalar" ? SCALAR_SPECS[value.scalar].graphql.name : value.name}Map`;
}

/** A scalar as docs and reports name it: the manifest's word, and the form it travels in where that is not told by the word. */
export const scalarLabel = (kind: ScalarKind): string => SCALAR_SPECS[kind].label ?? kind;

export function scalarOfAlias(word: string): ScalarKind | undefined {
  return (Object.keys(SCALAR_SPECS) as ScalarKind[]).find((kind) => SCALAR_SPECS[kind].aliases.includes(word));
}

/**
 * The custom scalars of the GraphQL schema, with the TypeScript type graphql-codegen maps each to:
 * Int64 is a number or a decimal string, as the API's int64 travel (api.int64_json).
 */
export function customGraphqlScalars(int64Json: "number" | "string" = "number"): { name: string; typescript: string }[] {
  const int64Kind = int64Json === "string" ? "int64_string" : "int64";
  return (Object.entries(SCALAR_SPECS) as [ScalarKind, ScalarSpec][]).flatMap(([kind, spec]) =>
    spec.codegenTypescript === undefined || (spec.graphql.name === "Int64" && kind !== int64Kind) ? [] : [{ name: spec.graphql.name, typescript: spec.codegenTypescript }],
  );
}

/** A value the type system says cannot exist: the `default` of an exhaustive switch. */
export function unreachable(value: never): never {
  throw new Error(`unexpected kind ${String(value)}`);
}
