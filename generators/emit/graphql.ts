// GraphQL SDL from the IR, built as a graphql-js schema and printed by graphql-js itself, so the
// output is valid by construction. Reads are Query fields, writes are Mutation fields.
import { describedField, operationRuleSentences } from "./rules.js";
import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLFloat,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLSchema,
  GraphQLString,
  printSchema,
  type GraphQLFieldConfigMap,
  type GraphQLInputFieldConfigMap,
  type GraphQLInputType,
  type GraphQLOutputType,
} from "graphql";
import type { Ir, IrField, IrMessage, IrOperation, Scalar } from "../ir.js";
import type { GeneratedFile } from "../writer.js";

export const GRAPHQL_SCHEMA_PATH = "generated/graphql/schema.graphql";

/** Custom scalars: 64-bit integers (GraphQL Int is 32-bit), string maps and free-form JSON objects. */
const CUSTOM_SCALARS = {
  int64: new GraphQLScalarType({ name: "Int64", description: "A 64-bit signed integer, such as a Unix time in seconds." }),
  map: new GraphQLScalarType({ name: "Map", description: "A JSON object whose values are strings." }),
  json: new GraphQLScalarType({ name: "JSON", description: "A free-form JSON object." }),
};

const SCALAR: Record<Scalar, GraphQLScalarType> = {
  string: GraphQLString,
  bool: GraphQLBoolean,
  int32: GraphQLInt,
  int64: CUSTOM_SCALARS.int64,
  float64: GraphQLFloat,
  map: CUSTOM_SCALARS.map,
  json: CUSTOM_SCALARS.json,
};

/** The graphql-js schema of the IR (types only, no resolvers): printed here, executed by the server stubs. */
export function buildGraphqlSchema(ir: Ir): GraphQLSchema {
  const enums = new Map(
    ir.enums.map((e) => [
      e.name,
      new GraphQLEnumType({
        name: e.name,
        description: e.description || undefined,
        values: Object.fromEntries(e.values.map((v) => [v.name, { value: v.name, description: v.description || undefined }])),
      }),
    ]),
  );
  const messages = new Map(ir.messages.map((m) => [m.name, m]));
  const outputTypes = new Map<string, GraphQLObjectType>();
  const inputTypes = new Map<string, GraphQLInputObjectType>();

  const named = (field: IrField, as: "input" | "output"): GraphQLInputType & GraphQLOutputType => {
    if (field.type.kind === "scalar") return SCALAR[field.type.scalar];
    if (field.type.kind === "enum") return enums.get(field.type.name)!;
    const message = messages.get(field.type.name)!;
    return (as === "input" ? inputType(message) : outputType(message)) as never;
  };
  const wrap = <T extends GraphQLInputType | GraphQLOutputType>(field: IrField, base: T, as: "input" | "output"): T => {
    // Lists are never null in answers (an unset list is empty); in inputs a list may be omitted.
    if (field.list) {
      const list = new GraphQLList(new GraphQLNonNull(base));
      return (as === "output" || field.required ? new GraphQLNonNull(list) : list) as unknown as T;
    }
    return (field.required ? new GraphQLNonNull(base) : base) as T;
  };

  function outputType(message: IrMessage): GraphQLObjectType {
    let type = outputTypes.get(message.name);
    if (!type) {
      type = new GraphQLObjectType({
        name: message.graphqlName,
        description: message.description || undefined,
        fields: () =>
          Object.fromEntries(
            message.fields.map((f) => [
              f.name,
              { type: wrap(f, named(f, "output"), "output"), description: f.description || undefined, deprecationReason: f.deprecated },
            ]),
          ) as GraphQLFieldConfigMap<unknown, unknown>,
      });
      outputTypes.set(message.name, type);
    }
    return type;
  }

  const operationOfInput = new Map(ir.operations.map((op) => [op.input.name, op]));
  function inputType(message: IrMessage): GraphQLInputObjectType {
    let type = inputTypes.get(message.name);
    if (!type) {
      const op = operationOfInput.get(message.name);
      const description = [message.description, ...(op ? operationRuleSentences(op) : [])].filter(Boolean).join(" ");
      // @oneOf says "exactly one of" in GraphQL itself when those are the input's only fields.
      const oneOf = op !== undefined && op.exactlyOneOf.length === message.fields.length && message.fields.every((f) => op.exactlyOneOf.includes(f.name));
      type = new GraphQLInputObjectType({
        name: message.graphqlInputName,
        description: description || undefined,
        ...(oneOf ? { isOneOf: true } : {}),
        fields: () =>
          Object.fromEntries(
            message.fields.map((f) => [
              f.name,
              { type: wrap(f, named(f, "input"), "input"), description: describedField(ir, f, true) || undefined, deprecationReason: f.required ? undefined : f.deprecated },
            ]),
          ) as GraphQLInputFieldConfigMap,
      });
      inputTypes.set(message.name, type);
    }
    return type;
  }

  const rootFields = (root: "Query" | "Mutation") => {
    const ops = ir.operations.filter((op): op is IrOperation & { graphql: NonNullable<IrOperation["graphql"]> } => op.graphql?.rootType === root);
    if (ops.length === 0) return undefined;
    return new GraphQLObjectType({
      name: root,
      fields: () =>
        Object.fromEntries(
          ops.map((op) => {
            const argument = op.graphql.argument;
            const args = argument
              ? { [argument.name]: { type: argument.required ? new GraphQLNonNull(inputType(op.input)) : inputType(op.input) } }
              : undefined;
            return [op.graphql.field, { type: new GraphQLNonNull(outputType(op.output)), description: op.description, deprecationReason: op.deprecated, args }];
          }),
        ) as GraphQLFieldConfigMap<unknown, unknown>,
    });
  };

  return new GraphQLSchema({
    query: rootFields("Query") ?? new GraphQLObjectType({ name: "Query", fields: {} }),
    mutation: rootFields("Mutation"),
  });
}

/** The SDL text of the IR. */
export function printGraphql(ir: Ir): string {
  return printSchema(buildGraphqlSchema(ir)) + "\n";
}

export function emitGraphql(sdl: string): GeneratedFile[] {
  return [{ path: GRAPHQL_SCHEMA_PATH, content: sdl }];
}
