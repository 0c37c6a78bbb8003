// The Python SDK's names, each derived here once from the IR's: keyword escaping, the names the
// SDK's own code takes, the clients and the classes of each group's methods. The Python emitter
// and the SDK-surface diff read them from here.
import { PYTHON_KEYWORDS } from "../ir/passes/packages.js";
import type { ClientFacts } from "./sdk-facts.js";

/** Names a generated argument or attribute must not take: they belong to the client or the answer classes. */
const RESERVED_ARGUMENTS = new Set(["self", "extra_headers", "extra_body", "timeout", "max_retries", "idempotency_key"]);
const RESERVED_ATTRIBUTES = new Set(["to_dict", "extra"]);
const RESERVED_METHODS = new Set(["close", "set_access_token", "protocol", "grpc_endpoint", "with_raw_response"]);

/**
 * Names the SDK itself declares or imports beside the types: in the package and types/ exports
 * (Protocol, the Json aliases, MODELS, OPERATIONS, ...) and in the modules of resources/ (their
 * bases and typing imports). No type and no group's class may take one.
 */
export const PYTHON_SDK_NAMES = [
  "Protocol",
  "ErrorCode",
  "ApiError",
  "JsonValue",
  "JsonObject",
  "JsonInput",
  "JsonInputValue",
  "Model",
  "MODELS",
  "OPERATIONS",
  "Operation",
  "RetryPolicy",
  "RawResponse",
  "SERVICE_VERSION",
  "SyncResource",
  "AsyncResource",
  "SyncRawResource",
  "AsyncRawResource",
  "Mapping",
  "Sequence",
  "Iterator",
  "AsyncIterator",
  "ClassVar",
  "Literal",
  "TypedDict",
  "dataclass",
];

/** A safe Python spelling of a wire name: keywords (and names taken by the SDK) get a trailing underscore. */
export function pythonName(name: string, reserved: ReadonlySet<string> = RESERVED_ARGUMENTS): string {
  return PYTHON_KEYWORDS.has(name) || reserved.has(name) ? `${name}_` : name;
}

/** The keyword argument of an input field. */
export const pythonArgumentName = (field: string) => pythonName(field, RESERVED_ARGUMENTS);

/** The attribute of an answer field. */
export const pythonAttributeName = (field: string) => pythonName(field, RESERVED_ATTRIBUTES);

/** The client method of an operation: its name, with a trailing underscore where Python or the client takes it. */
export const pythonMethodName = (operation: string) => pythonName(operation, RESERVED_METHODS);

/** The method walking every page of a paginated operation. */
export const pythonIteratorName = (operation: string) => `iter_${operation}`;

/** The method walking every page of a paginated operation, yielding each page's answer. */
export const pythonPagesIteratorName = (operation: string) => `iter_${operation}_pages`;

/** A group's module in resources/ and types/. */
export const pythonModuleName = (group: string) => pythonName(group, new Set());

export type PythonMode = "sync" | "async";

/** A client's class, and its asyncio twin: AdminClient, AsyncAdminClient (the names api.surfaces declares). */
export function pythonClientName(client: Pick<ClientFacts, "name">, mode: PythonMode): string {
  return `${mode === "async" ? "Async" : ""}${client.name}`;
}

/** The class of `client.with_raw_response`: AdminClientWithRawResponse, AsyncAdminClientWithRawResponse. */
export function pythonRawClientName(client: Pick<ClientFacts, "name">, mode: PythonMode): string {
  return `${pythonClientName(client, mode)}WithRawResponse`;
}

/**
 * The class of a group's methods that a client inherits (UsersResource, AsyncUsersResource); a
 * group with operations on both clients has one per client (UsersAdminResource, UsersUserResource).
 */
export function pythonResourceClassName(groupPascalName: string, role: ClientFacts["role"], mode: PythonMode, onBothClients: boolean): string {
  return `${mode === "async" ? "Async" : ""}${groupPascalName}${onBothClients ? (role === "admin" ? "Admin" : "User") : ""}Resource`;
}

/** The twin of a group's class whose methods answer a RawResponse (UsersRawResource), inherited by the client's with_raw_response class. */
export function pythonRawResourceClassName(groupPascalName: string, role: ClientFacts["role"], mode: PythonMode, onBothClients: boolean): string {
  return pythonResourceClassName(groupPascalName, role, mode, onBothClients).replace(/Resource$/, "RawResource");
}
