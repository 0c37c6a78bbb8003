// GraphQL SDL from the IR, built as a graphql-js schema and printed by graphql-js itself, so the
// output is valid by construction. Reads are Query fields, writes are Mutation fields.
import { describedField, idempotencySentences, operationRuleSentences, unionTagSchema } from "./rules.js";
import { authSentences } from "./operation-text.js";
import {
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLSchema,
  printSchema,
  type GraphQLFieldConfigMap,
  type GraphQLInputFieldConfigMap,
  type GraphQLInputType,
  type GraphQLOutputType,
} from "graphql";
import { enumByName, mapValueName, type Ir, type IrField, type IrMessage, type IrOperation } from "../ir/ir.js";
import { customGraphqlScalars, mapScalarName, SCALAR_SPECS } from "../sdk/scalars.js";
import type { GeneratedFile } from "../write/writer.js";

export const GRAPHQL_SCHEMA_PATH = "generated/graphql/schema.graphql";

/**
 * The custom scalar of each kind of map<V> the fields use (GraphQL has no maps): IntMap, GenreMap,
 * a JSON object whose values are of that type, with the TypeScript type graphql-codegen maps it to.
 */
function mapScalarsOf(ir: Ir): Map<string, { scalar: GraphQLScalarType; typescript: string }> {
  const scalars = new Map<string, { scalar: GraphQLScalarType; typescript: string }>();
  for (const field of ir.messages.flatMap((m) => m.fields)) {
    const value = field.mapValue;
    if (!value) continue;
    const valueName = value.kind === "scalar" ? SCALAR_SPECS[value.scalar].graphql.name : mapValueName(value);
    const name = mapScalarName(value);
    if (scalars.has(name)) continue;
    // graphql-codegen knows no type of the toolchain's: a message's value is an object to it.
    const item =
      value.kind === "scalar"
        ? SCALAR_SPECS[value.scalar].typescript
        : value.kind === "enum"
          ? enumByName(ir, valueName)
              .values.map((v) => JSON.stringify(v.name))
              .join(" | ")
          : "Record<string, unknown>";
    const typescript = `Record<string, ${item}>`;
    scalars.set(name, { scalar: new GraphQLScalarType({ name, description: `A JSON object whose values are of type ${valueName}.` }), typescript });
  }
  return scalars;
}

/** The graphql-js schema of the IR (types only, no resolvers): printed here, executed by the server stubs. */
export function buildGraphqlSchema(ir: Ir): GraphQLSchema {
  const mapScalars = mapScalarsOf(ir);
  const enums = new Map(
    ir.enums.map((e) => [
      e.name,
      new GraphQLEnumType({
        name: e.name,
        description: e.description || undefined,
        values: Object.fromEntries(e.values.map((v) => [v.name, { value: v.name, description: v.description || undefined, deprecationReason: v.deprecated }])),
      }),
    ]),
  );
  // A tagged union's tag: an enum of its variants (EditionKind).
  const tagEnums = new Map(
    ir.messages.flatMap((m) =>
      m.discriminator
        ? [
            [
              m.name,
              new GraphQLEnumType({
                name: m.discriminator.graphqlEnum,
                description: `The variants of ${m.graphqlName}.`,
                values: Object.fromEntries(m.fields.map((f) => [f.name, { value: f.name, description: f.description || undefined }])),
              }),
            ] as const,
          ]
        : [],
    ),
  );
  const messages = new Map(ir.messages.map((m) => [m.name, m]));
  const outputTypes = new Map<string, GraphQLObjectType>();
  const inputTypes = new Map<string, GraphQLInputObjectType>();

  const named = (field: IrField, as: "input" | "output"): GraphQLInputType & GraphQLOutputType => {
    if (field.mapValue) {
      const value = field.mapValue;
      return mapScalars.get(mapScalarName(value))!.scalar;
    }
    if (field.type.kind === "scalar") return SCALAR_SPECS[field.type.scalar].graphql;
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
    // Maps are never null in answers either (an unset map is empty).
    return (field.required || (as === "output" && field.alwaysInAnswer) ? new GraphQLNonNull(base) : base) as T;
  };

  function outputType(message: IrMessage): GraphQLObjectType {
    let type = outputTypes.get(message.name);
    if (!type) {
      type = new GraphQLObjectType({
        name: message.graphqlName,
        description: message.description || undefined,
        fields: () =>
          Object.fromEntries([
            // A tagged union's answer names its variant, as on JSON.
            ...(message.discriminator ? [[message.discriminator.property, { type: new GraphQLNonNull(tagEnums.get(message.name)!), description: unionTagSchema(message).description }]] : []),
            ...message.fields.map((f) => [f.name, { type: wrap(f, named(f, "output"), "output"), description: f.description || undefined, deprecationReason: f.deprecated }]),
          ]) as GraphQLFieldConfigMap<unknown, unknown>,
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
      // Rules across fields are stated in the description. (@oneOf would say exactly-one-of in
      // GraphQL itself, but type generators then type the input as a union that no other
      // contract's types, nor the SDK's, can agree with.)
      const description = [message.description, ...(op ? operationRuleSentences(op) : [])].filter(Boolean).join(" ");
      type = new GraphQLInputObjectType({
        name: message.graphqlInputName,
        description: description || undefined,
        // A union takes exactly one variant: GraphQL's @oneOf input object says so.
        isOneOf: message.oneOf === true,
        fields: () =>
          Object.fromEntries(
            message.fields.map((f) => [
              f.name,
              {
                type: wrap(f, named(f, "input"), "input"),
                description: describedField(ir, f, true) || undefined,
                deprecationReason: f.required ? undefined : f.deprecated,
                defaultValue: f.constraints.default,
              },
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
            const args = argument ? { [argument.name]: { type: argument.required ? new GraphQLNonNull(inputType(op.input)) : inputType(op.input) } } : undefined;
            return [
              op.graphql.field,
              {
                type: new GraphQLNonNull(outputType(op.output)),
                description: [op.description, ...authSentences(ir, op), ...idempotencySentences(op)].join(" "),
                deprecationReason: op.deprecated,
                args,
              },
            ];
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

export const CODEGEN_CONFIG_PATH = "generated/graphql/codegen.yml";

/**
 * A graphql-codegen configuration for TypeScript clients of the schema: the custom scalars mapped
 * to their TypeScript types (without it they come out as `unknown`), enums as string unions.
 */
function codegenConfig(ir: Ir): string {
  const scalars = [...customGraphqlScalars(ir.api.int64Json), ...[...mapScalarsOf(ir)].map(([name, { typescript }]) => ({ name, typescript }))].map(
    (scalar) => `        ${scalar.name}: ${JSON.stringify(scalar.typescript)}`,
  );
  return `# graphql-codegen configuration for TypeScript clients of schema.graphql: copy it next to your
# documents and run \`npx graphql-codegen --config codegen.yml\`. The custom scalars need this
# mapping; without it graphql-codegen types them as unknown.
schema: ./schema.graphql
documents: ["src/**/*.graphql"]
generates:
  src/graphql-types.ts:
    plugins: [typescript-operations]
    config:
      enumsAsTypes: true
      skipTypename: true
      arrayInputCoercion: false
      namingConvention: { transformUnderscore: true }
      scalars:
${scalars.join("\n")}
`;
}

export function emitGraphql(sdl: string, ir: Ir): GeneratedFile[] {
  return [
    { path: GRAPHQL_SCHEMA_PATH, content: sdl },
    { path: CODEGEN_CONFIG_PATH, content: codegenConfig(ir) },
  ];
}
