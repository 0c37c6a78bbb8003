// TypeScript clients: the admin and the user client (AdminClient and UserClient unless api.surfaces
// names them), one typed method per operation (camelCase), an iterator per paginated list, all
// running through the client runtime.
import { protobufEsModule } from "../emit/protobuf-es.js";
import { clientRoleOf, messageByName, type ClientRole, type Ir, type IrClient, type IrOperation } from "../ir/ir.js";
import type { GeneratedFile } from "../write/writer.js";
import { RUNTIME_PACKAGE } from "../emit/runtime-package.js";

export const CLIENT_DIR = "generated/client";

const doc = (text: string, indent = "  ") => `${indent}/** ${text.replace(/\*\//g, "* /")} */\n`;

function itemTypeOf(ir: Ir, op: IrOperation): string {
  if (op.pagination.style === "none") throw new Error("not paginated");
  const items = op.output.fields.find((f) => f.name === (op.pagination as { itemsField: string }).itemsField)!;
  if (items.type.kind === "message") return messageByName(ir, items.type.name).graphqlName;
  if (items.type.kind === "enum") return items.type.name;
  return items.type.scalar === "string" ? "string" : items.type.scalar === "bool" ? "boolean" : "number";
}

function methods(ir: Ir, op: IrOperation, types: Set<string>): string {
  const input = op.input.graphqlInputName;
  const output = op.output.graphqlName;
  types.add(input).add(output);
  const optional = !op.input.fields.some((f) => f.required);
  const param = `input: ${input}${optional ? " = {}" : ""}`;
  const marks = [op.destructive ? "Destructive." : "", `Protocols: ${op.protocols.map((p) => `${p} (since ${op[p]!.since})`).join(", ")}.`, op.deprecated ? `@deprecated ${op.deprecated}` : ""]
    .filter(Boolean)
    .join(" ");
  const callInput = op.surface === "oauth" && ir.api.features.clientId && op.input.fields.some((f) => f.name === "client_id") ? "this.withClientId(input)" : "input";
  let text = `${doc(`${op.description} ${marks}`)}  ${op.camelName}(${param}, options?: CallOptions): Promise<${output}> {\n    return this.core.call(${JSON.stringify(op.name)}, ${callInput}, options) as unknown as Promise<${output}>;\n  }\n`;
  if (op.pagination.style !== "none") {
    const item = itemTypeOf(ir, op);
    if (/^[A-Z]/.test(item)) types.add(item);
    const iteratorName = op.iteratorName!;
    text += `\n${doc(`Every item of ${op.name}, page after page.`)}  ${iteratorName}(${param}, options?: CallOptions): AsyncIterable<${item}> {\n    return this.core.iterate(${JSON.stringify(op.name)}, ${callInput}, options) as AsyncIterable<${item}>;\n  }\n`;
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
        ? { type: "UserClientConfig", imported: ["UserClientConfig"] }
        : { type: `Omit<UserClientConfig, "clientId">`, imported: ["UserClientConfig"] };
  return apiKey ? { type: `${base.type} & ApiKeyConfig`, imported: [...base.imported, "ApiKeyConfig"] } : base;
}

/** The configuration types index.ts exports: those of the API's clients, and the API key's where an operation takes one. */
function clientConfigTypes(ir: Ir): string[] {
  const has = (role: ClientRole) => ir.clients.some((c) => c.role === role);
  return [...(has("admin") ? ["AdminClientConfig"] : []), ...(ir.api.features.apiKey ? ["ApiKeyConfig"] : []), ...(has("user") ? ["UserClientConfig"] : [])];
}

/** The module of each client class in generated/client/, by role (the class may be named otherwise). */
const CLIENT_FILE: Record<ClientRole, string> = { admin: "admin-client", user: "user-client" };
/** The runtime class each client extends. */
const CLIENT_BASE: Record<ClientRole, string> = { admin: "AdminClientBase", user: "UserClientBase" };

function clientClass(ir: Ir, client: IrClient): GeneratedFile {
  const { name, role, surfaces } = client;
  const base = CLIENT_BASE[role];
  const config = configOf(ir, role);
  const types = new Set<string>();
  const body = ir.operations
    .filter((op) => clientRoleOf(op) === role)
    .map((op) => methods(ir, op, types))
    .join("\n");
  const versionOperation = ir.versionOperations[role];
  const file = CLIENT_FILE[role];
  const content = `import { ${[base, ...config.imported.map((name) => `type ${name}`)].join(", ")} } from "${RUNTIME_PACKAGE}/client/clients.js";
import type { ${[...(body ? ["CallOptions"] : []), "ClientDefinition", ...(config.type.startsWith("ClientConfig") ? ["ClientConfig"] : [])].join(", ")} } from "${RUNTIME_PACKAGE}/client/core.js";
import { schema } from "../schema.js";
${
  types.size > 0
    ? `import type {\n${[...types]
        .sort()
        .map((t) => `  ${t},`)
        .join("\n")}\n} from "../types.js";\n`
    : ""
}
const definition: ClientDefinition = {
  schema,
  surfaces: ${JSON.stringify(surfaces)},
  versionOperation: ${JSON.stringify(versionOperation ?? null)},
  loadGrpcServices: () => import("./grpc-services.js").then((m) => m.grpcServices),
};

/** ${client.title} of ${ir.api.title}, over graphql (default), rest or grpc. */
export class ${name} extends ${base} {
  constructor(config: ${config.type}) {
    super(definition, config);
  }
${body ? `\n${body}` : ""}}
`;
  return { path: `${CLIENT_DIR}/${file}.ts`, content };
}

export function emitClients(ir: Ir): GeneratedFile[] {
  const services = ir.proto.services.map((s) => ({ name: s.name, module: protobufEsModule(s.protoFile) }));
  return [
    ...ir.clients.map((client) => clientClass(ir, client)),
    {
      path: `${CLIENT_DIR}/grpc-services.ts`,
      content: `${services.map((s) => `import { ${s.name} } from "${s.module}";`).join("\n")}

/** The gRPC services, loaded only by clients whose protocol is grpc. */
export const grpcServices = [${services.map((s) => s.name).join(", ")}];
`,
    },
    {
      path: `${CLIENT_DIR}/index.ts`,
      content: `${ir.clients.map((c) => `export { ${c.name} } from "./${CLIENT_FILE[c.role]}.js";\n`).join("")}export { ApiError, type ClientErrorCode } from "${RUNTIME_PACKAGE}/client/errors.js";
export type { ${clientConfigTypes(ir).join(", ")} } from "${RUNTIME_PACKAGE}/client/clients.js";
export type { CallOptions, ClientConfig, RetryPolicy } from "${RUNTIME_PACKAGE}/client/core.js";
export type { TlsClientOptions } from "${RUNTIME_PACKAGE}/client/tls.js";
export type { OperationSpec, Protocol } from "${RUNTIME_PACKAGE}/schema.js";
export type * from "../types.js";
import { schema } from "../schema.js";

/** Every operation with its protocols, minimum versions, destructive flag and auth, for code to read. */
export const operations = schema.operations;
export type OperationName = keyof typeof operations;
`,
    },
  ];
}
