// The last pass: the IR of a manifest the checking passes found no error in. It derives what only
// a whole, valid set of operations decides (groups, gRPC services, clients, the API's auth
// settings and features) and joins them with the parts the passes built.
import { clientRoleOf, type Ir, type IrClient } from "../ir.js";
import { apiFeatures, authSettings, secretNamesOf } from "./auth.js";
import { allMessages, type IrContext } from "./context.js";
import { pickDocExamples } from "./examples.js";
import { groupName } from "./names.js";
import { DEFAULT_REST_PREFIX } from "./routes.js";

const SURFACES_WITH_CLIENTS = ["admin", "user"] as const;

/** The IR; needs every other pass to have run without reporting an error. */
export function assembleIr(context: IrContext): Ir {
  const { raw, operations, authSchemes, packages } = context;
  if (!packages) throw new Error("assembleIr runs after resolvePackageNames");
  const { versionOperations, tokenVersionOperation, lowestSince } = context;
  return {
    api: {
      name: raw.api.name,
      title: raw.api.title,
      description: raw.api.description ?? "",
      version: raw.api.version,
      authSchemes,
      ...authSettings(authSchemes, operations),
      ...secretNamesOf(raw, authSchemes, operations),
      int64Json: raw.api.int64_json ?? "number",
      httpPort: raw.api.http_port ?? 8080,
      grpcPort: raw.api.grpc_port ?? 9091,
      restPrefix: raw.api.rest_prefix ?? DEFAULT_REST_PREFIX,
      limits: {
        requestBytes: raw.api.limits?.request_bytes ?? 1024 * 1024,
        jsonDepth: raw.api.limits?.json_depth ?? 32,
        jsonBytes: raw.api.limits?.json_bytes ?? 64 * 1024,
      },
      ...packages,
      acronyms: [...context.acronyms],
      features: apiFeatures(operations, authSchemes),
      breakingChangesAccepted: raw.api.breaking_changes_accepted ?? [],
    },
    proto: { ...context.proto, services: servicesOf(context) },
    clients: clientsOf(context),
    groups: groupsOf(context),
    enums: context.enums,
    formats: context.formats,
    messages: allMessages(context),
    operations,
    versionOperations,
    tokenVersionOperation,
    lowestSince,
    docExamples: pickDocExamples(operations, versionOperations),
    lock: context.nextLock,
  };
}

/** The groups that hold an operation, in api.groups order. */
function groupsOf(context: IrContext): Ir["groups"] {
  return Object.entries(context.raw.api.groups ?? {})
    .map(([group, title]) => ({ name: group, pascalName: groupName(group, context.acronyms), title, operations: context.operations.filter((op) => op.group === group).map((op) => op.name) }))
    .filter((g) => g.operations.length > 0);
}

/** The gRPC service of each surface that has an operation carried over grpc. */
function servicesOf(context: IrContext): Ir["proto"]["services"] {
  return SURFACES_WITH_CLIENTS.map((surface) => {
    const name = context.serviceNames[surface];
    return {
      surface,
      name,
      typeName: `${context.proto.package}.${name}`,
      protoFile: `${context.proto.directory}/${surface}_service.proto`,
      operations: context.operations.filter((op) => op.surface === surface && op.grpc).map((op) => op.name),
    };
  }).filter((s) => s.operations.length > 0);
}

/** The clients that carry an operation; the user client carries the token routes (surface oauth) too. */
function clientsOf(context: IrContext): IrClient[] {
  const tokenRoutes = context.operations.some((op) => op.surface === "oauth");
  return SURFACES_WITH_CLIENTS.filter((role) => context.operations.some((op) => clientRoleOf(op) === role)).map((role) => ({
    role,
    name: context.clientNames[role],
    surfaces: role === "admin" ? ["admin"] : tokenRoutes ? ["user", "oauth"] : ["user"],
    title: role === "admin" ? "The admin interface" : tokenRoutes ? "The user interface and the token routes" : "The user interface",
  }));
}
