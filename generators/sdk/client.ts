// TypeScript clients: the admin and the user client (AdminClient and UserClient unless api.surfaces
// names them), one typed method per operation (camelCase), an iterator per paginated list, all
// running through the client runtime.
import { protobufEsModule } from "../emit/protobuf-es.js";
import { openEnumName } from "../ir/passes/names.js";
import { clientRoleOf, messageByName, type ClientRole, type Ir, type IrClient, type IrOperation } from "../ir/ir.js";
import type { GeneratedFile } from "../write/writer.js";
import { RUNTIME_PACKAGE } from "../emit/runtime-package.js";
import { TypeScriptFile } from "../emit/typescript-printer.js";
import { emitClientServiceModule, emitOperationModule, emitSdkTypes, operationModuleName } from "../emit/typescript.js";
import { SCALAR_SPECS } from "./scalars.js";
import { ERROR_CLASSES } from "../../runtime/client/errors.js";

export const CLIENT_DIR = "generated/client";
/** The error classes per code that the package exports beside ApiError (runtime/client/errors.ts). */
const ERROR_CLASS_NAMES = Object.values(ERROR_CLASSES).map((errorClass) => (errorClass as unknown as { errorName: string }).errorName);

/** The modules a client class imports, as seen from generated/client/. */
const CLIENTS_MODULE = `${RUNTIME_PACKAGE}/client/clients.js`;
const CORE_MODULE = `${RUNTIME_PACKAGE}/client/core.js`;
/** The SDK's types (emitSdkTypes): its answers open to what a newer service adds, its inputs and enums those of generated/types.ts. */
const TYPES_MODULE = "./types.js";

const doc = (text: string, indent = "  ") => `${indent}/** ${text.replace(/\*\//g, "* /")} */\n`;

/** The TypeScript type of a paginated operation's items, imported from the generated types where it is one of them. */
function itemTypeOf(ir: Ir, op: IrOperation, file: TypeScriptFile): string {
  if (op.pagination.style === "none") throw new Error("not paginated");
  const items = op.output.fields.find((f) => f.name === (op.pagination as { itemsField: string }).itemsField)!;
  if (items.type.kind === "message") return file.type(TYPES_MODULE, messageByName(ir, items.type.name).graphqlName);
  // An answer's enum is open: a newer service may answer a value this SDK does not know.
  if (items.type.kind === "enum") return file.type(TYPES_MODULE, openEnumName(items.type.name));
  // The types re-export the runtime's JsonObject, the one scalar type that is not built in.
  return items.type.scalar === "json" ? file.type(TYPES_MODULE, "JsonObject") : SCALAR_SPECS[items.type.scalar].typescript;
}

function methods(ir: Ir, op: IrOperation, file: TypeScriptFile): string {
  const input = file.type(TYPES_MODULE, op.input.graphqlInputName);
  const output = file.type(TYPES_MODULE, op.output.graphqlName);
  const callOptions = file.type(CORE_MODULE, "CallOptions");
  const answer = file.type(CORE_MODULE, "ApiPromise");
  const optional = !op.input.fields.some((f) => f.required);
  const filled = fillsOf(ir, op).length > 0;
  // The core reads a missing input as {}; filled() reads the given one.
  const param = optional ? (filled ? `input: ${input} = {}` : `input?: ${input}`) : `input: ${input}`;
  const marks = [op.destructive ? "Destructive." : "", `Protocols: ${op.protocols.map((p) => `${p} (since ${op[p]!.since})`).join(", ")}.`, op.deprecated ? `@deprecated ${op.deprecated}` : ""]
    .filter(Boolean)
    .join(" ");
  const callInput = filled ? "this.filled(input)" : "input";
  // The operation's module, named where it is called: a bundle keeps no table of them, and loads the one called.
  const module = `() => import("./operations/${operationModuleName(op)}.js")`;
  let text = `${doc(`${op.description} ${marks}`)}  ${op.camelName}(${param}, options?: ${callOptions}): ${answer}<${output}> {\n    return this.core.call(${module}, ${callInput}, options) as unknown as ${answer}<${output}>;\n  }\n`;
  if (op.pagination.style !== "none") {
    const item = itemTypeOf(ir, op, file);
    const iteratorName = op.iteratorName!;
    text += `\n${doc(`Every item of ${op.name}, page after page.`)}  ${iteratorName}(${param}, options?: ${callOptions}): AsyncIterable<${item}> {\n    return this.core.iterate(${module}, ${callInput}, options) as AsyncIterable<${item}>;\n  }\n`;
  }
  return text;
}

/** The configuration a client class takes: its credentials only where the API's operations use them (ir.api.features). */
function configOf(ir: Ir, role: ClientRole): { type: string; imported: string[] } {
  const { adminSecret, clientId, apiKey } = ir.api.features;
  const base =
    role === "admin"
      ? adminSecret
        ? { type: "AdminClientConfig", imported: ["AdminClientConfig"] }
        : { type: "ClientConfig", imported: [] }
      : clientId
        ? { type: "UserClientConfig & ClientIdConfig", imported: ["UserClientConfig", "ClientIdConfig"] }
        : { type: "UserClientConfig", imported: ["UserClientConfig"] };
  return apiKey ? { type: `${base.type} & ApiKeyConfig`, imported: [...base.imported, "ApiKeyConfig"] } : base;
}

/** The input fields a user client fills in from its options (the token calls' client_id, the client's own): what the user client's constructor hands its base. */
const fillsOf = (ir: Ir, op: IrOperation): string[] => (op.surface === "oauth" && ir.api.features.clientId && op.input.fields.some((f) => f.name === "client_id") ? ["client_id"] : []);

/** The configuration types index.ts exports: those of the API's clients, and the API key's and client id's where an operation takes one. */
function clientConfigTypes(ir: Ir): string[] {
  const has = (role: ClientRole) => ir.clients.some((c) => c.role === role);
  return [
    ...(has("admin") ? ["AdminClientConfig"] : []),
    ...(ir.api.features.apiKey ? ["ApiKeyConfig"] : []),
    ...(has("user") ? ["UserClientConfig"] : []),
    ...(has("user") && ir.api.features.clientId ? ["ClientIdConfig"] : []),
  ];
}

/** The module of each client class in generated/client/, by role (the class may be named otherwise). */
const CLIENT_FILE: Record<ClientRole, string> = { admin: "admin-client", user: "user-client" };
/** The runtime class each client extends. */
const CLIENT_BASE: Record<ClientRole, string> = { admin: "AdminClientBase", user: "UserClientBase" };

function clientClass(ir: Ir, client: IrClient): GeneratedFile {
  const { name, role } = client;
  const base = CLIENT_BASE[role];
  const config = configOf(ir, role);
  const file = new TypeScriptFile();
  // The order of the import block: the client runtime, its core, the schema, the generated types.
  file.value(CLIENTS_MODULE, base);
  for (const configType of config.imported) file.type(CLIENTS_MODULE, configType);
  file.layout(CORE_MODULE, "line");
  file.value("./service.js", "service");
  file.layout(TYPES_MODULE, "sorted-block");
  const body = ir.operations
    .filter((op) => clientRoleOf(op) === role)
    .map((op) => methods(ir, op, file))
    .join("\n");
  file.type(CORE_MODULE, "ClientDefinition");
  if (config.type.startsWith("ClientConfig")) file.type(CORE_MODULE, "ClientConfig");
  const versionOperation = ir.versionOperations[role];
  const moduleOf = (name: string | undefined) => {
    const op = name === undefined ? undefined : ir.operations.find((o) => o.name === name);
    return op ? `() => import("./operations/${operationModuleName(op)}.js")` : "null";
  };
  const lowestSince = Object.entries(ir.lowestSince)
    .map(([protocol, since]) => `${protocol}: ${JSON.stringify(since)}`)
    .join(", ");
  const content = `${file.imports()}
const definition: ClientDefinition = {
  service,
  lowestSince: { ${lowestSince} },
  versionOperation: ${moduleOf(versionOperation)},${role === "admin" && ir.tokenVersionOperation ? `\n  tokenVersionOperation: ${moduleOf(ir.tokenVersionOperation)},` : ""}
  sdk: { name: ${JSON.stringify(ir.api.sdkPackage)}, version: ${JSON.stringify(ir.api.version)} },
  loadGrpcServices: () => import("./grpc-services.js").then((m) => m.grpcServices),
};

/** ${client.title} of ${ir.api.title}, over graphql (default), rest or grpc. */
export class ${name} extends ${base} {
  constructor(config: ${config.type}) {
    super(definition, config${role === "user" && ir.api.features.clientId ? ', { client_id: { option: "clientId", value: config.clientId } }' : ""});
  }
${body ? `\n${body}` : ""}}
`;
  return { path: `${CLIENT_DIR}/${CLIENT_FILE[role]}.ts`, content };
}

export function emitClients(ir: Ir): GeneratedFile[] {
  const services = ir.proto.services.map((s) => ({ name: s.name, module: protobufEsModule(s.protoFile) }));
  return [
    ...ir.clients.map((client) => clientClass(ir, client)),
    emitClientServiceModule(ir),
    ...ir.operations.map((op) => emitOperationModule(ir, op)),
    emitSdkTypes(ir),
    {
      path: `${CLIENT_DIR}/grpc-services.ts`,
      content: `${services.map((s) => `import { ${s.name} } from "${s.module}";`).join("\n")}

/** The gRPC services, loaded only by clients whose protocol is grpc. */
export const grpcServices = [${services.map((s) => s.name).join(", ")}];
`,
    },
    {
      path: `${CLIENT_DIR}/index.ts`,
      content: `${ir.clients.map((c) => `export { ${c.name} } from "./${CLIENT_FILE[c.role]}.js";\n`).join("")}export {
  ApiError,
  ${ERROR_CLASS_NAMES.join(",\n  ")},
  type ClientErrorCode,
} from "${RUNTIME_PACKAGE}/client/errors.js";
export type { ${clientConfigTypes(ir).join(", ")} } from "${RUNTIME_PACKAGE}/client/clients.js";
export type { ApiPromise, CallOptions, ClientConfig, ClientHooks, Logger, RawResponse, RequestEvent, ResponseEvent, RetryPolicy } from "${RUNTIME_PACKAGE}/client/core.js";
export type { TlsClientOptions } from "${RUNTIME_PACKAGE}/client/tls.js";
export type { OperationSpec, Protocol } from "${RUNTIME_PACKAGE}/schema.js";
export type * from "./types.js";
import { schema } from "../schema.js";

/** Every operation with its protocols, minimum versions, destructive flag and auth, for code to read. */
// Read through a pure call: an app that never reads it leaves the whole schema out of its bundle.
export const operations: typeof schema.operations = /* @__PURE__ */ (() => schema.operations)();
export type OperationName = keyof typeof operations;
`,
    },
  ];
}
