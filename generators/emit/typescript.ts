// TypeScript emitted from the IR: the schema value the runtime reflects on, the plain request and
// answer types (snake_case, as on the wire), the typed service interfaces for implementers, and the
// SDK's types, whose answers are open to what a newer service adds (emitSdkTypes).
import { protobufEsModule } from "./protobuf-es.js";
import { describedField } from "./rules.js";
import { iteratorPageSize } from "../sdk/sdk-facts.js";
import { protoCamelCase } from "@bufbuild/protobuf/reflect";
import {
  mapValueName,
  messageByName,
  reachesTaggedUnion,
  typesReached,
  type HeaderBinding,
  type Ir,
  type IrAuthScheme,
  type IrField,
  type IrMessage,
  type IrOperation,
  type Pagination,
} from "../ir/ir.js";
import { SCALAR_SPECS } from "../sdk/scalars.js";
import { openEnumName } from "../ir/passes/names.js";
import { authSchemesOf, authSummary, hasAuthChoice } from "./operation-text.js";
import type { GeneratedFile } from "../write/writer.js";
import { RUNTIME_PACKAGE } from "./runtime-package.js";
import type { ServerOptions } from "../../runtime/server/invoke.js";

export const SCHEMA_MODULE = "generated/schema.ts";
export const TYPES_MODULE = "generated/types.ts";
/** The TypeScript SDK's types: its answers open (emitSdkTypes), the rest re-exported from TYPES_MODULE. */
export const SDK_TYPES_MODULE = "generated/client/types.ts";
export const SERVER_DIR = "generated/server";

const quote = (text: string) => JSON.stringify(text);
const doc = (text: string, indent = "") => (text ? `${indent}/** ${text.replace(/\*\//g, "* /")} */\n` : "");

/** A field's doc comment: its description, and @deprecated with the reason. */
const fieldDoc = (field: IrField) => [field.description, field.deprecated ? `@deprecated ${field.deprecated}` : ""].filter(Boolean).join(" ");

function messageOf(ir: Ir, field: IrField): IrMessage {
  return messageByName(ir, (field.type as { name: string }).name);
}

// ---------------------------------------------------------------- schema.ts

/**
 * A field in the compact syntax of runtime/schema.ts: `name:type[]!#secret=protoName`. The
 * protobuf-es property is written only where it is not the field's JSON name (protoc's rule, which
 * the runtime applies), so that the schema stays small.
 */
function compactField(field: IrField): string {
  const type = field.type.kind === "scalar" ? field.type.scalar + (field.mapValue ? `<${mapValueName(field.mapValue)}>` : "") : field.type.name;
  const property = field.protoLocalName === protoCamelCase(field.name) ? "" : `=${field.protoLocalName}`;
  return `${field.name}:${type}${field.list ? "[]" : ""}${field.required ? "!" : ""}${field.secret ? "#secret" : ""}${property}`;
}

function paginationSpec(pagination: Exclude<Pagination, { style: "none" }>): string {
  const cursor = pagination.style === "token" ? pagination : undefined;
  const name = (field: string | undefined) => (field === undefined ? "null" : quote(field));
  return `{ style: ${quote(pagination.style)}, itemsField: ${quote(pagination.itemsField)}, pageSize: ${iteratorPageSize(pagination)}, cursorField: ${name(cursor?.cursorField)}, nextCursorField: ${name(cursor?.nextCursorField)} }`;
}

function operationSpec(ir: Ir, op: IrOperation): string {
  const graphql = op.graphql;
  const params = graphql?.argument ? `{ type: ${quote(op.input.graphqlInputName)}, required: ${graphql.argument.required} }` : "null";
  const lines = [
    `method: ${quote(op.camelName)}`,
    `pascalName: ${quote(op.pascalName)}`,
    `surface: ${quote(op.surface)}`,
    `kind: ${quote(op.kind)}`,
    `destructive: ${op.destructive}`,
    `idempotent: ${op.idempotent}`,
    `idempotencyKey: ${op.idempotencyKey}`,
    `auth: ${quote(op.auth)}`,
    // Only where the operation takes several schemes or scopes: the rest read `auth` alone (authRequirementsOf).
    ...(hasAuthChoice(op) ? [`authAnyOf: [${op.authAnyOf.map((r) => `{ scheme: ${quote(r.scheme)}${r.scopes.length > 0 ? `, scopes: [${r.scopes.map(quote).join(", ")}]` : ""} }`).join(", ")}]`] : []),
    `pagination: ${op.pagination.style === "none" ? "null" : paginationSpec(op.pagination)}`,
    `exactlyOneOf: [${op.exactlyOneOf.map(quote).join(", ")}]`,
    // Only where the input can hold a tagged union: the REST client then loads the module that writes the tags.
    ...(reachesTaggedUnion(ir, op.input) ? ["taggedInput: true"] : []),
    `deprecated: ${op.deprecated === undefined ? "null" : quote(op.deprecated)}`,
    `input: ${quote(op.input.name)}`,
    `output: ${quote(op.output.name)}`,
    `graphql: ${graphql ? `{ since: ${quote(graphql.since)}, root: ${quote(graphql.rootType)}, params: ${params} }` : "null"}`,
    `rest: ${op.rest ? `{ since: ${quote(op.rest.since)}, method: ${quote(op.rest.method)}, path: ${quote(op.rest.path)}, pathParams: [${op.rest.pathParams.map(quote).join(", ")}], inQuery: ${op.rest.inQuery}, body: ${quote(op.rest.body)}, answer: ${quote(op.rest.answer)}, status: ${op.rest.status}${headerMap("headers", op.rest.headerParams)}${headerMap("responseHeaders", op.rest.responseHeaders)} }` : "null"}`,
    `grpc: ${op.grpc ? `{ since: ${quote(op.grpc.since)}, service: ${quote(op.grpc.serviceTypeName)}, rpc: ${quote(op.grpc.rpc)} }` : "null"}`,
  ];
  return `    ${op.name}: {\n${lines.map((l) => `      ${l},`).join("\n")}\n    },`;
}

/** `, key: { field: "header" }` of the fields a route binds to headers (lower case, as HTTP compares them); nothing when none. */
function headerMap(key: string, bindings: readonly HeaderBinding[]): string {
  return bindings.length === 0 ? "" : `, ${key}: { ${bindings.map((b) => `${b.field}: ${quote(b.lowerCase)}`).join(", ")} }`;
}

/** What the server checks of a scheme (runtime AuthSchemeSpec): its kind and what it adds to it. */
function authSchemeSpec(scheme: IrAuthScheme): string {
  return `{ ${[
    `kind: ${quote(scheme.kind)}`,
    ...(scheme.token ? [`token: ${quote(scheme.token)}`] : []),
    ...(scheme.session ? ["session: true"] : []),
    ...(scheme.orgRole ? ["orgRole: true"] : []),
    ...(scheme.callers ? [`callers: ${quote(scheme.callers)}`] : []),
  ].join(", ")} }`;
}

/** The service's facts (runtime ServiceFacts), one property a line at `indent`. */
const featuresLine = (ir: Ir, indent: string) =>
  `${indent}features: { ${Object.entries(ir.api.features)
    .map(([name, used]) => `${name}: ${used}`)
    .join(", ")} },`;

function serviceFactsLines(ir: Ir, indent: string): string {
  return `${indent}name: ${quote(ir.api.name)},
${indent}title: ${quote(ir.api.title)},
${indent}version: ${quote(ir.api.version)},
${indent}adminSecretHeader: ${quote(ir.api.adminSecretHeader)},
${indent}apiKeyHeader: ${quote(ir.api.apiKeyHeader)},
${indent}orgAdminRole: ${quote(ir.api.orgAdminRole)},
${indent}adminSessionCookie: ${quote(ir.api.adminSessionCookie)},
${indent}authSchemes: {
${authSchemesOf(ir)
  .map((scheme) => `${indent}  ${scheme.name}: ${authSchemeSpec(scheme)},`)
  .join("\n")}
${indent}},
${featuresLine(ir, indent)}
${indent}httpPort: ${ir.api.httpPort},
${indent}grpcPort: ${ir.api.grpcPort},
${indent}envPrefix: ${JSON.stringify(ir.api.envPrefix)},
${indent}restPrefix: ${quote(ir.api.restPrefix)},`;
}

const enumLine = (e: Ir["enums"][number]) => `    ${e.name}: ${quote(e.values.map((v) => `${v.name}=${v.protoNumber}`).join(" "))},`;
// A union's line starts with "|" (MessageSpec.oneOf), a tagged union's with "|tag|" (MessageSpec.discriminator).
const unionPrefix = (m: IrMessage) => (m.oneOf ? (m.discriminator ? `|${m.discriminator.property}|` : "|") : "");
const messageLine = (m: IrMessage) => `    ${m.name}: ${quote(unionPrefix(m) + m.fields.map(compactField).join(" "))},`;

function emitSchemaModule(ir: Ir): GeneratedFile {
  // Marked pure: a bundle that imports the schema and reads none of it (an SDK app) leaves it out.
  const content = `import { defineSchema } from "${RUNTIME_PACKAGE}/schema.js";

/** Operations, messages and enums of ${ir.api.title} ${ir.api.version}, as data (field syntax: runtime/schema.ts). */
export const schema = /* @__PURE__ */ defineSchema({
${serviceFactsLines(ir, "  ")}
  enums: {
${ir.enums.map(enumLine).join("\n")}
  },
  messages: {
${ir.messages.map(messageLine).join("\n")}
  },
  operations: {
${ir.operations.map((op) => operationSpec(ir, op)).join("\n")}
  },
});

export type OperationName = keyof typeof schema.operations;
`;
  return { path: SCHEMA_MODULE, content };
}

/** The module of the TypeScript clients that holds the service's facts (ServiceFacts), beside their classes. */
export const CLIENT_SERVICE_MODULE = "generated/client/service.ts";
/** Where the TypeScript clients' operation modules go (emitOperationModule). */
export const CLIENT_OPERATIONS_DIR = "generated/client/operations";

export function emitClientServiceModule(ir: Ir): GeneratedFile {
  const content = `import type { ClientServiceFacts } from "${RUNTIME_PACKAGE}/schema.js";

/** What the clients know of ${ir.api.title} as a whole (the facts they read, no more); each operation's schema is in operations/, loaded on its first call. */
export const service: ClientServiceFacts = {
  name: ${quote(ir.api.name)},
  adminSecretHeader: ${quote(ir.api.adminSecretHeader)},
  apiKeyHeader: ${quote(ir.api.apiKeyHeader)},
${featuresLine(ir, "  ")}
  grpcPort: ${ir.api.grpcPort},
  envPrefix: ${JSON.stringify(ir.api.envPrefix)},
};
`;
  return { path: CLIENT_SERVICE_MODULE, content };
}

/** The file name of an operation's module in CLIENT_OPERATIONS_DIR: its method's name, which a bundle's chunk of it then repeats (gzip keeps one). */
export const operationModuleName = (op: IrOperation): string => op.camelName;

/**
 * One operation as a client loads it on its first call (runtime OperationPart): the operation, and
 * the messages and enums its input and answer reach, in the order of the full schema.
 */
export function emitOperationModule(ir: Ir, op: IrOperation): GeneratedFile {
  const { messages, enums } = typesReached(ir, [op.input, op.output]);
  const content = `import type { OperationPart } from "${RUNTIME_PACKAGE}/schema.js";

/** ${op.name}, with the messages and enums it reaches (field syntax: runtime/schema.ts). */
export const part: OperationPart = {
  enums: {
${ir.enums
  .filter((e) => enums.has(e.name))
  .map(enumLine)
  .join("\n")}
  },
  messages: {
${ir.messages
  .filter((m) => messages.has(m.name))
  .map(messageLine)
  .join("\n")}
  },
  operations: {
${operationSpec(ir, op)}
  },
};
`;
  return { path: `${CLIENT_OPERATIONS_DIR}/${operationModuleName(op)}.ts`, content };
}

// ---------------------------------------------------------------- types.ts

/** A field's type; `open`: as the SDK's answers have it, enums open (openEnumName). */
function tsType(ir: Ir, field: IrField, as: "input" | "output", open = false): string {
  let base: string;
  const value = field.mapValue;
  if (value) {
    const item =
      value.kind === "scalar"
        ? SCALAR_SPECS[value.scalar].typescript
        : value.kind === "enum"
          ? open
            ? openEnumName(value.name)
            : value.name
          : as === "input"
            ? messageByName(ir, value.name).graphqlInputName
            : messageByName(ir, value.name).graphqlName;
    base = `Record<string, ${item}>`;
  } else if (field.type.kind === "scalar") base = SCALAR_SPECS[field.type.scalar].typescript;
  else if (field.type.kind === "enum") base = open ? openEnumName(field.type.name) : field.type.name;
  else {
    const message = messageOf(ir, field);
    base = as === "input" ? message.graphqlInputName : message.graphqlName;
  }
  return field.list ? `${base}[]` : base;
}

/** The index signature of the SDK's answers: the fields a newer service adds, which the client keeps. */
const UNKNOWN_FIELDS = `${doc("A field this SDK does not know (one the service added since), kept as it came.", "  ")}  [field: string]: unknown;`;

/**
 * An answer's interface: exact in types.ts (what an implementation returns, as every contract
 * states it); `open` in the SDK's types, where an index signature beside the declared fields keeps
 * their types and gives a field this SDK does not know as unknown, and enums are open.
 */
function outputInterface(ir: Ir, message: IrMessage, open = false): string {
  // An answer with no fields is exactly an empty object, as every contract's types say.
  if (message.fields.length === 0 && !open) return `${doc(message.description)}export type ${message.graphqlName} = Record<string, never>;`;
  const fields = message.fields.map((f) => {
    // Answers always carry every field: lists and maps are empty rather than absent, other unset values are null.
    return `${doc(fieldDoc(f), "  ")}  ${f.name}: ${tsType(ir, f, "output", open)}${f.alwaysInAnswer ? "" : " | null"};`;
  });
  // A tagged union's tag: the SDK reads it in every answer; an implementation may leave it out (the service writes it).
  const tag = message.discriminator
    ? [
        `${doc(`Which variant is given: ${message.fields.map((f) => f.name).join(", ")}.`, "  ")}  ${message.discriminator.property}${open ? "" : "?"}: ${message.fields.map((f) => quote(f.name)).join(" | ")};`,
      ]
    : [];
  return `${doc(message.description)}export interface ${message.graphqlName} {\n${[...tag, ...fields, ...(open ? [UNKNOWN_FIELDS] : [])].join("\n")}\n}`;
}

function inputInterface(ir: Ir, message: IrMessage): string {
  const fields = message.fields.map(
    (f) =>
      `${doc([describedField(ir, f, true), f.deprecated ? `@deprecated ${f.deprecated}` : ""].filter(Boolean).join(" "), "  ")}  ${f.name}${f.required ? "" : "?"}: ${tsType(ir, f, "input")}${f.required ? "" : " | null"};`,
  );
  return `${doc(message.description)}export interface ${message.graphqlInputName} {\n${fields.join("\n")}\n}`;
}

function emitTypes(ir: Ir): GeneratedFile {
  // JsonObject is imported only where a field uses it (an unused import fails noUnusedLocals); it is exported either way.
  const usesJson = ir.messages.some((message) => message.fields.some((f) => f.type.kind === "scalar" && f.type.scalar === "json"));
  const blocks: string[] = [...(usesJson ? [`import type { JsonObject } from "${RUNTIME_PACKAGE}/json.js";`] : []), `export type { JsonObject } from "${RUNTIME_PACKAGE}/json.js";`];
  for (const e of ir.enums) {
    blocks.push(`${doc(e.description)}export type ${e.name} = ${e.values.map((v) => quote(v.name)).join(" | ")};`);
  }
  for (const message of ir.messages) {
    const { output, input } = exportedInterfaces(message);
    if (output !== undefined) blocks.push(outputInterface(ir, message));
    if (input !== undefined) blocks.push(inputInterface(ir, message));
  }
  return { path: TYPES_MODULE, content: blocks.join("\n\n") + "\n" };
}

/** A sorted list of names in braces, one a line. */
const nameBlock = (names: Iterable<string>) =>
  `{\n${[...new Set(names)]
    .sort()
    .map((name) => `  ${name},`)
    .join("\n")}\n}`;

/**
 * The SDK's types (SDK_TYPES_MODULE), which the clients' methods take and answer. An answer from a
 * newer service may carry fields and enum values this SDK does not know, and the client keeps them:
 * the answer interfaces say so (outputInterface, open), and each enum has an open type,
 * `Genre | (string & {})`, that answers use. Inputs and enums are those of types.ts: closed, since
 * the service refuses a value it does not know, so that a misspelled one fails to compile. The
 * server's types stay exact: an implementation returns what the contracts declare.
 */
export function emitSdkTypes(ir: Ir): GeneratedFile {
  const answers = ir.messages.filter((message) => exportedInterfaces(message).output !== undefined);
  const inputs = ir.messages.flatMap((message) => exportedInterfaces(message).input ?? []);
  const usesJson = answers.some((message) => message.fields.some((f) => f.type.kind === "scalar" && f.type.scalar === "json"));
  const imported = [...ir.enums.map((e) => e.name), ...(usesJson ? ["JsonObject"] : [])];
  const blocks = [
    ...(imported.length > 0 ? [`import type ${nameBlock(imported)} from "../types.js";`] : []),
    `export type ${nameBlock(["JsonObject", ...ir.enums.map((e) => e.name), ...inputs])} from "../types.js";`,
    ...ir.enums.map(
      (e) =>
        `${doc(`${e.name} as answers carry it: a value this SDK knows, or one the service added since (over gRPC UNKNOWN_<n>). Inputs take ${e.name} alone: the service refuses a value it does not know.`)}export type ${openEnumName(e.name)} = ${e.name} | (string & {});`,
    ),
    ...answers.map((message) => outputInterface(ir, message, true)),
  ];
  return { path: SDK_TYPES_MODULE, content: blocks.join("\n\n") + "\n" };
}

/** The interfaces types.ts exports for a message: an answer shape (also for a shared type nothing reaches) and an input shape. */
export function exportedInterfaces(message: IrMessage): { output?: string; input?: string } {
  return {
    ...(message.usedAsOutput || (message.shared && !message.usedAsInput) ? { output: message.graphqlName } : {}),
    ...(message.usedAsInput ? { input: message.graphqlInputName } : {}),
  };
}

// ---------------------------------------------------------------- server stubs

const SURFACE_INTERFACE: Record<string, { name: string; title: string }> = {
  admin: { name: "AdminHandlers", title: "admin" },
  user: { name: "UserHandlers", title: "user" },
  oauth: { name: "OAuthHandlers", title: "token route" },
};

function emitServer(ir: Ir): GeneratedFile[] {
  const surfaces = Object.keys(SURFACE_INTERFACE).filter((s) => ir.operations.some((op) => op.surface === s));
  const typeNames = new Set<string>();
  const interfaces = surfaces.map((surface) => {
    const { name, title } = SURFACE_INTERFACE[surface]!;
    const methods = ir.operations
      .filter((op) => op.surface === surface)
      .map((op) => {
        const input = op.input.graphqlInputName;
        const output = op.output.graphqlName;
        typeNames.add(input).add(output);
        const marks = [op.destructive ? "Destructive." : "", `Auth: ${authSummary(op)}.`, `Protocols: ${op.protocols.join(", ")}.`].filter(Boolean).join(" ");
        return `${doc(`${op.description} ${marks}`, "  ")}  ${op.camelName}(input: ${input}, context: CallContext): Promise<Reply<${output}>>;`;
      });
    return `/** Every ${title} operation, one method each. */\nexport interface ${name} {\n${methods.join("\n")}\n}`;
  });
  const firstOperation = ir.versionOperations.admin;
  const { secretNames } = ir.api;
  const services = ir.proto.services.map((s) => ({
    name: s.name,
    module: protobufEsModule(s.protoFile),
  }));

  const handlers = `import type { CallContext, Reply } from "${RUNTIME_PACKAGE}/server/context.js";
import type {
${[...typeNames]
  .sort()
  .map((n) => `  ${n},`)
  .join("\n")}
} from "../types.js";

${interfaces.join("\n\n")}

/** What a service author implements: every operation of every surface. */
export interface Implementation extends ${surfaces.map((s) => SURFACE_INTERFACE[s]!.name).join(", ")} {}
`;

  const index = `import { createServiceServer, type ServerOptions, type ServiceServer } from "${RUNTIME_PACKAGE}/server/index.js";
import { schema } from "../schema.js";
import { descriptorSet } from "./descriptor-set.js";
import { graphqlSchemaText } from "./graphql-schema.js";
import type { Implementation } from "./handlers.js";
import { rules } from "./rules.js";
${services.map((s) => `import { ${s.name} } from "${s.module}";`).join("\n")}

export type * from "./handlers.js";
export type { CallContext, Reply } from "${RUNTIME_PACKAGE}/server/context.js";
export { ServiceError } from "${RUNTIME_PACKAGE}/errors.js";
export { ExplorerSetupError } from "${RUNTIME_PACKAGE}/server/explorer-packages.js";
export { ImplementationError } from "${RUNTIME_PACKAGE}/server/invoke.js";
export { memoryStore, redisStore, MemoryIdempotencyStore, ListenError, MissingPackageError, ${secretNames ? "SecretError, " : ""}TlsConfigError } from "${RUNTIME_PACKAGE}/server/index.js";
export type { ServerOptions, ServiceServer, Store, IdempotencyStore, IdempotencyOptions, IdempotencyRequest, IdempotencyClaim, TrustProxy, RateLimitOptions, MetricsOptions, TracingOptions, ServingStatus, Dependency, ${secretNames ? "SecretBootstrap, " : ""}HttpMount, MountContext, McpOptions, TlsOptions, CorsOptions } from "${RUNTIME_PACKAGE}/server/index.js";

${serverOptionsType(ir)}

/**
 * Serves \`implementation\` over GraphQL (POST /graphql), REST (${ir.api.restPrefix}/...${ir.api.features.tokenRoutes ? ", /oauth/..." : ""}), Connect and
 * gRPC-Web on one port and over gRPC on another, with auth, validation and one error model.
 */
export function createServer(implementation: Implementation, options: Options): ServiceServer;
/** Serves what \`implementation\` has; every operation it lacks answers UNIMPLEMENTED (listed at start-up). */
export function createServer(implementation: Partial<Implementation>, options: Options & { partial: true }): ServiceServer;
export function createServer(implementation: Partial<Implementation>, ${secretNames ? `{ ${secretNames.option}, ...options }: Options` : "options: Options"}): ServiceServer {
  return createServiceServer(
    {
      schema,
      rules,
      graphqlSchemaText,
      grpcServices: [${services.map((s) => s.name).join(", ")}],
      descriptorSet,
      // Loaded only when the explorer (options.explorer) serves /openapi.yaml.
      explorer: { openapiDocument: async () => (await import("./openapi-document.js")).openapiDocument${firstOperation ? `, firstOperation: ${JSON.stringify(firstOperation)}` : ""} },
      // Loaded only when the option mcp serves /mcp.
      mcpTools: async () => (await import("../mcp/tools.js")).tools,${
        secretNames
          ? `
      secretWords: { secret: ${JSON.stringify(secretNames.words)}, session: ${JSON.stringify(secretNames.sessionWords)} },`
          : ""
      }
    },
    implementation as never,
    ${secretNames ? `{ ...options, secret: ${secretNames.option} }` : "options"},
  );
}
`;
  return [emitRulesModule(ir), { path: `${SERVER_DIR}/handlers.ts`, content: handlers }, { path: `${SERVER_DIR}/index.ts`, content: index }];
}

/** The validation rules of the manifest, for the server only: clients check types, the server checks rules. */
function emitRulesModule(ir: Ir): GeneratedFile {
  const formats = Object.values(ir.formats)
    .filter((f) => !f.builtin)
    .map((f) => `    ${f.name}: { expected: ${quote(f.description)}, ${f.values ? `values: ${JSON.stringify(f.values)}` : `pattern: ${quote(f.pattern!)}`} },`);
  const fields = ir.messages.flatMap((message) => {
    if (!message.usedAsInput) return [];
    const entries = message.fields.flatMap((field) => {
      const rules = { ...field.constraints, ...(field.format ? { format: field.format } : {}) };
      return Object.keys(rules).length === 0 ? [] : [`${field.name}: ${JSON.stringify(rules)}`];
    });
    return entries.length === 0 ? [] : [`    ${message.name}: { ${entries.join(", ")} },`];
  });
  const atLeastOneOf = ir.operations.filter((op) => op.atLeastOneOf.length > 0).map((op) => `    ${op.name}: ${JSON.stringify(op.atLeastOneOf)},`);
  const errorCodes = ir.operations.map((op) => `    ${op.name}: ${JSON.stringify(op.errorCodes)},`);
  const { requestBytes, jsonDepth, jsonBytes } = ir.api.limits;
  const block = (lines: string[]) => (lines.length === 0 ? "{}" : `{\n${lines.join("\n")}\n  }`);
  const content = `import type { ValidationRules } from "${RUNTIME_PACKAGE}/validate.js";

/** What the server checks of every input beyond its type (runtime/validate.ts applies it). */
export const rules: ValidationRules = {
  limits: { requestBytes: ${requestBytes}, jsonDepth: ${jsonDepth}, jsonBytes: ${jsonBytes} },
  formats: ${block(formats)},
  fields: ${block(fields)},
  atLeastOneOf: ${block(atLeastOneOf)},
  errorCodes: ${block(errorCodes)},
};
`;
  return { path: `${SERVER_DIR}/rules.ts`, content };
}

export function emitGraphqlSchemaModule(sdl: string): GeneratedFile {
  return {
    path: `${SERVER_DIR}/graphql-schema.ts`,
    content: `/** The GraphQL SDL of generated/graphql/schema.graphql, for the server to execute. */\nexport const graphqlSchemaText = ${JSON.stringify(sdl)};\n`,
  };
}

export function emitOpenapiDocumentModule(openapiYaml: string): GeneratedFile {
  return {
    path: `${SERVER_DIR}/openapi-document.ts`,
    content: `/** The OpenAPI document of generated/openapi/openapi.yaml, for the explorer to serve. */\nexport const openapiDocument = ${JSON.stringify(openapiYaml)};\n`,
  };
}

/**
 * The server's options: those of the credentials the API's operations take, no other. What they
 * need is required: the secret, under the name of its scheme (admin_secret: adminSecret), and the
 * API key check.
 */
function serverOptionsType(ir: Ir): string {
  const used = authSchemesOf(ir);
  const { secretNames, features } = ir.api;
  const unused: (keyof ServerOptions)[] = [
    "secret",
    ...(used.some((s) => s.token === "access" || s.orgRole !== undefined) ? [] : (["verifyUserToken"] as const)),
    ...(used.some((s) => s.kind === "bearer" && s.token !== "access") ? [] : (["verifyToken"] as const)),
    ...(features.apiKey ? [] : (["verifyApiKey"] as const)),
    ...(features.orgAdmin ? [] : (["hasRole"] as const)),
  ];
  const schemesOf = (kind: string) =>
    used
      .filter((s) => s.kind === kind)
      .map((s) => s.name)
      .join(", ")
      .replace(/, (?=[^,]*$)/, " or ");
  const required = [
    ...(secretNames
      ? [
          {
            name: secretNames.option,
            doc: `The ${secretNames.words} (ServerOptions.secret) the calls of auth ${schemesOf("secret")} carry in header ${ir.api.adminSecretHeader}${
              features.adminSession ? `, or the ${secretNames.sessionWords} it opens` : ""
            }.`,
            type: 'NonNullable<ServerOptions["secret"]>',
          },
        ]
      : []),
    ...(features.apiKey ? [{ name: "verifyApiKey", doc: `Checks the API key of the calls of auth ${schemesOf("api_key")}.`, type: 'NonNullable<ServerOptions["verifyApiKey"]>' }] : []),
  ];
  const base = `Omit<ServerOptions, ${unused.map((name) => JSON.stringify(name)).join(" | ")}>`;
  return required.length === 0
    ? `/** The server's options. */\nexport type Options = ${base};`
    : `/** The server's options; the operations of this API need ${required.map((r) => r.name).join(" and ")}. */\nexport type Options = ${base} & {\n${required
        .map((r) => `  /** ${r.doc} */\n  ${r.name}: ${r.type};\n`)
        .join("")}};`;
}

export function emitTypescript(ir: Ir): GeneratedFile[] {
  return [emitSchemaModule(ir), emitTypes(ir), ...emitServer(ir)];
}
