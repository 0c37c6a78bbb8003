// Every field type of the manifest, once: what it is in protobuf, GraphQL, JSON Schema (OpenAPI and
// the MCP tool catalogue), TypeScript, Python and Go, the words other languages use for it, the
// rules it takes, a sample value and what the wire check says of a wrong value. Keyed by the
// runtime's ScalarKind: a kind added there fails to compile until it has an entry here, and every
// emitter reads its mapping from this table (the runtimes' behaviour switches are exhaustive too).
import { GraphQLBoolean, GraphQLFloat, GraphQLInt, GraphQLScalarType, GraphQLString } from "graphql";
import type { ScalarKind } from "../../runtime/schema.js";
import { VALUE_TEXTS } from "../../runtime/validate.js";

/** A scalar of protobuf, a map<string, string>, or google.protobuf.Struct. */
export type ProtoScalar = "string" | "bool" | "int32" | "int64" | "double";
export type ProtoMapping = { readonly kind: "scalar"; readonly scalar: ProtoScalar } | { readonly kind: "map" } | { readonly kind: "struct" };

/** A name a Python annotation imports: from a module, or a type the SDK itself declares (_model.py). */
export type PythonImport = { readonly module: string; readonly name: string } | { readonly own: string };

/** What the sample of a field of this type is in the docs' examples. */
export type SampleKind = "text" | "number" | { readonly value: unknown };

export interface ScalarSpec {
  /** Other languages' words for it (lower case): a manifest writing one is told this type's name. */
  readonly aliases: readonly string[];
  /** Takes minimum / maximum, and a number as requiredIf.equals. */
  readonly numeric: boolean;
  readonly proto: ProtoMapping;
  readonly graphql: GraphQLScalarType;
  /** JSON Schema of a value: OpenAPI states the format, the MCP catalogue the type only. */
  readonly jsonSchema: { readonly type: string; readonly format?: string; readonly additionalProperties?: unknown };
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

/** Custom GraphQL scalars: 64-bit integers (GraphQL Int is 32-bit), string maps and free-form JSON objects. */
const INT64 = new GraphQLScalarType({
  name: "Int64",
  description: "An integer from -9007199254740991 to 9007199254740991 (the integers a JSON number holds exactly), such as a Unix time in seconds; an int64 in protobuf.",
});
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
    proto: { kind: "struct" },
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
export function scalarOfAlias(word: string): ScalarKind | undefined {
  return (Object.keys(SCALAR_SPECS) as ScalarKind[]).find((kind) => SCALAR_SPECS[kind].aliases.includes(word));
}

/** The custom scalars of the GraphQL schema, with the TypeScript type graphql-codegen maps each to. */
export function customGraphqlScalars(): { name: string; typescript: string }[] {
  return Object.values(SCALAR_SPECS).flatMap((spec) => (spec.codegenTypescript === undefined ? [] : [{ name: spec.graphql.name, typescript: spec.codegenTypescript }]));
}

/** A value the type system says cannot exist: the `default` of an exhaustive switch. */
export function unreachable(value: never): never {
  throw new Error(`unexpected kind ${String(value)}`);
}
