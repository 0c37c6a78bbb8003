/**
 * The language-neutral facts every SDK outside TypeScript is generated from: per operation its
 * protocols, minimum versions, destructive flag, auth, GraphQL document, REST route and gRPC method
 * path; every message's fields with wire names, types and flags; enums with their proto numbers; the
 * error codes with their HTTP and gRPC forms; the refusal and client-error texts; retry and
 * pagination defaults; and the descriptor set a gRPC client decodes messages with.
 *
 * Everything here is read from the IR or from the TypeScript runtime, never restated, so that the
 * Python SDK (sdk/python.ts) and the Go SDK built on this module behave exactly as the TypeScript
 * client does. Language-specific derivations (names, type expressions, docs) stay in each
 * language's emitter.
 */
import { createHash } from "node:crypto";
import { SCALAR_SPECS } from "./scalars.js";
import type { DerivedGroup } from "../write/writer.js";
import { create, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema, type FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import { BARE_GRPC_STATUS, ERROR_CODE_METADATA, ERROR_CODES, ERROR_WIRE } from "../../runtime/errors.js";
import { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT_MS } from "../../runtime/client/core.js";
import { ITERATE_PAGE_LIMIT } from "../../runtime/client/pages.js";
import { RETRY_AFTER_MAX_MS, RETRY_DEFAULTS } from "../../runtime/client/retry.js";
import { CLIENT_ERROR_CODES, FAULT_CODES, TRANSIENT_CODES, TRANSIENT_HTTP_STATUSES } from "../../runtime/client/errors.js";
import { GRPC_NO_ANSWER_STATUSES, GRPC_UNREADABLE_STATUSES } from "../../runtime/client/grpc-statuses.js";
import { OAUTH_CODES } from "../../runtime/client/oauth-errors.js";
// The clients' own semver precedence, so that "lowest" means here what it means to them.
import { compareVersions } from "../../runtime/client/version.js";
import { ANSWER_TYPE_TEXTS } from "../../runtime/shape.js";
import { INTEGER_RANGES, VALUE_TEXTS } from "../../runtime/validate.js";
import type { MapValueKind } from "../../runtime/schema.js";
import { PROTOCOLS, type ApiFeatures, type Pagination, type Ir, type IrField, type IrMessage, type IrOperation, type Protocol, type RestBinding, type Scalar, type Surface } from "../ir/ir.js";
import { authSchemesOf, authSummary, graphqlDocument } from "../emit/operation-text.js";
import { isProtoOptional } from "../emit/proto-plan.js";
import { fieldRuleSentences, operationRuleSentences } from "../emit/rules.js";

export interface FieldFacts {
  /** snake_case wire name on every protocol (and the proto field name). */
  name: string;
  description: string;
  kind: Scalar | "enum" | "message";
  /** Enum or message name, for kind enum / message; the enum of a map's values (value enum). */
  ref: string | null;
  /** A map's values where they are not strings: a scalar kind, or enum (of `ref`). */
  value: MapValueKind | null;
  list: boolean;
  required: boolean;
  secret: boolean;
  format: string | null;
  deprecated: string | null;
  /** Never null in an answer: required, or a list or map (empty when unset). */
  alwaysInAnswer: boolean;
  /** The proto field tracks presence (messages, Struct, proto3 `optional` scalars and enums). */
  protoPresence: boolean;
  /** The server's rules for this field in words ("Not empty.", "Between 1 and 1000."), in input messages; none in answers. */
  rules: string[];
}

export interface MessageFacts {
  name: string;
  description: string;
  fields: FieldFacts[];
  /** A union: exactly one field (a variant) is set. */
  oneOf: boolean;
  /** A tagged union's tag: JSON answers carry it, REST requests must. */
  discriminator: string | null;
  shared: boolean;
  usedAsInput: boolean;
  usedAsOutput: boolean;
}

export interface EnumFacts {
  name: string;
  description: string;
  /** Wire name, proto number (never 0: 0 is the proto's "unspecified", read as null) and description. */
  values: { name: string; number: number; description: string }[];
}

export interface OperationFacts {
  name: string;
  /** As refusal texts name the operation (AdminSignup). */
  pascalName: string;
  description: string;
  deprecated: string | null;
  surface: Surface;
  kind: "read" | "write";
  destructive: boolean;
  /** The auth scheme's name (the first of authAnyOf). */
  auth: string;
  /** Every scheme the operation takes, any one of which lets a caller in, in the manifest's order. */
  authAnyOf: string[];
  /** Its schemes by name with their scopes, as the method docs say them (staff_key or reader (scope books:write)). */
  authSummary: string;
  /** Protocols that carry it, in canonical order. */
  protocols: Protocol[];
  /** The protocol every call takes whatever the client's (the token routes: rest); null when it follows the client. */
  fixedProtocol: Protocol | null;
  /**
   * Retried on transient failures: reads, writes declared idempotent, and writes that carry an
   * Idempotency-Key (the server answers a repeated key with the first answer).
   */
  retried: boolean;
  /** Each call carries an Idempotency-Key (the caller's, or one made for the call), the same on every attempt. */
  idempotencyKey: boolean;
  /** Input fields the client fills in with its own values where the call leaves them out: a token call's client_id, the user client's. */
  fills: string[];
  /** Minimum server version per carrying protocol. */
  since: Partial<Record<Protocol, string>>;
  /**
   * Per carrying protocol: whether a call must first learn the server's version (its minimum is
   * above the lowest minimum of that protocol, so an older server may not carry it).
   */
  versionGated: Partial<Record<Protocol, boolean>>;
  /** The document the TypeScript client sends, byte for byte; `withParams`: sent with variables {params}. */
  graphql: { document: string; withParams: boolean } | null;
  /**
   * `pathParams`: the input fields the path's `{field}` segments carry; `headers`: those request
   * headers carry ([field, lower-case header]); `inQuery`: the others go in the query string (GET, DELETE).
   */
  rest: {
    method: RestBinding["method"];
    path: string;
    pathParams: string[];
    headers: [string, string][];
    inQuery: boolean;
    body: "json" | "form_or_json";
    answer: "json" | "redirect";
  } | null;
  /** `path`: /<package>.<Service>/<Rpc>; message names are fully qualified. */
  grpc: { path: string; requestType: string; responseType: string } | null;
  /** `pageSize`: what an iterator asks for when the input names no page size (page style; token style: null). */
  /** `cursorField` / `nextCursorField`: the wire names of the cursor asked with and handed back (token style; page style: null). */
  pagination: { style: "page" | "token"; itemsField: string; pageSize: number | null; cursorField: string | null; nextCursorField: string | null } | null;
  exactlyOneOf: string[];
  /** The rules that span input fields, in words ("Give exactly one of id, email."). */
  rules: string[];
  input: string;
  output: string;
}

export interface ClientFacts {
  /** admin | user: one client (sync and async) per role that has operations. */
  role: "admin" | "user";
  /** The class (TypeScript, Python; Go: the struct): api.surfaces.<role>.client. */
  name: string;
  /** What it covers, as its doc comments say: "The admin interface". */
  title: string;
  surfaces: Surface[];
  /** The read whose answer carries the server `version`, asked once when a minimum version matters. */
  versionOperation: string | null;
  operations: string[];
}

export interface SdkFacts {
  service: { name: string; title: string; version: string; adminSecretHeader: string; apiKeyHeader: string; httpPort: number; grpcPort: number; envPrefix: string; protoPackage: string };
  /** What of the auth machinery the operations use: the SDKs carry only that (credentials, OAuthError). */
  features: ApiFeatures;
  /** The auth schemes of kind api_key the operations name, as the docs of the API key say which operations take it. */
  apiKeySchemes: string[];
  protocols: readonly Protocol[];
  /** The lowest minimum version of each protocol over every operation. */
  lowestSince: Partial<Record<Protocol, string>>;
  errors: {
    /** The server's code set with its HTTP status and gRPC status (runtime/errors.ts). */
    server: { code: string; http: number; grpc: number }[];
    /** Codes a client tells on its own (runtime/client/errors.ts), not already in the server set. */
    clientOnly: string[];
    transientCodes: string[];
    transientHttpStatuses: number[];
    /** RFC 6749 error of the token routes -> code. */
    oauth: Record<string, string>;
    /** Code of an HTTP status outside the table: 5xx and the rest. */
    httpFallback: { serverError: string; otherwise: string };
    /** Code of a gRPC status outside the table. */
    grpcFallback: string;
    /** gRPC statuses of a call the service did not answer, when it names no code: UNAVAILABLE, and CANCELLED the caller did not ask for (a dropped connection). */
    grpcNoAnswerStatuses: number[];
    /**
     * gRPC statuses of a stream without a readable answer when the service names no code (a reset, a
     * missing status, a message that does not decode): INTERNAL, and UNKNOWN that some libraries give.
     */
    grpcUnreadableStatuses: number[];
    /** Metadata key the server names the error code in, telling apart codes that share a gRPC status. */
    grpcCodeMetadata: string;
    /**
     * gRPC statuses the transport itself sends, naming no code (no grpcCodeMetadata), -> code:
     * RESOURCE_EXHAUSTED (8) is its message size limit when the server's code set has PAYLOAD_TOO_LARGE.
     */
    grpcBareStatuses: Record<number, string>;
    /** HTTP header (and gRPC metadata key) of the wait an overloaded server asks for, in seconds. */
    retryAfterKey: string;
    /** The code of each failure a client names itself (runtime/client/errors.ts FAULT_CODES). */
    faults: { -readonly [K in keyof typeof FAULT_CODES]: string };
  };
  /** Texts with {placeholders}; every client fills them the same way. */
  texts: typeof REFUSAL_TEXTS & typeof CLIENT_ERROR_TEXTS & { wire: typeof WIRE_CHECK_TEXTS; answerTypes: typeof ANSWER_TYPE_TEXTS };
  /** The answer field of the version operations that carries the server's version (passes/assemble.ts picks them by it). */
  versionField: string;
  /** The version read an admin client holding a role holder's access token asks instead of its own (Ir.tokenVersionOperation). */
  tokenVersionOperation: string | null;
  retry: { attempts: number; baseDelayMs: number; maxDelayMs: number };
  /** The deadline of a call, retries and the server-version lookup included, when neither the call nor the client names one. */
  defaultTimeoutMs: number;
  /** The largest answer a client reads, on every protocol, unless configured otherwise. */
  defaultMaxResponseBytes: number;
  /** A Retry-After longer than this is not waited for; the usual backoff applies instead. */
  retryAfterMaxMs: number;
  /** Page size of iterators when the caller names none. */
  iteratePageLimit: number;
  enums: EnumFacts[];
  messages: MessageFacts[];
  operations: OperationFacts[];
  clients: ClientFacts[];
}

/** Refusals before any byte is sent (runtime/client/core.ts); a test holds the TS client to them. */
export const REFUSAL_TEXTS = {
  refusalCode: "FAILED_PRECONDITION",
  notCarried: "{operation} not available over {protocol}; use {protocols}",
  readOnly: "{operation} is destructive and this client is read-only",
  // §4.2's shape first, then why this server refuses it.
  tooOld: "{operation} not available over {protocol}; {hint} (needs server {since} or later on {protocol}; the server is {server})",
  tooOldUse: "use {protocols}",
  tooOldNone: "no protocol carries it on this server",
  protocolSeparator: " or ",
  // A call on a client after close(): refused at once rather than quietly reopening its connections.
  clientClosed: "{operation}: the client is closed; make a new one",
  // Plaintext to a host that is not loopback would carry the admin secret, a token or a password.
  inClear: "refusing to send credentials in clear to {target}: the connection is not TLS and the host is not loopback; {remedy}, or set {option} to send them anyway",
} as const;

/** Failures a client names itself (runtime/client/transport.ts, graphql.ts, rest.ts). `{operation}`: snake_case. */
export const CLIENT_ERROR_TEXTS = {
  timedOut: "{operation} timed out",
  cancelled: "{operation} was cancelled",
  noAnswer: "{operation}: no answer from the service ({reason})",
  httpStatus: "HTTP {status}",
  // A 2xx whose body is not the answer (not JSON, null, GraphQL without its data): never retried.
  malformedAnswer: "{operation}: the service answered HTTP {status} with a body that is not its answer{outcome}",
  // A gRPC stream without a readable answer: a message that does not decode, reset, or ended without a status.
  unreadableMessage: "{operation}: the gRPC answer could not be read ({reason}){outcome}",
  writeMayHaveHappened: "; the write may have happened",
  // An answer over the client's size cap: PAYLOAD_TOO_LARGE, never retried; {option} names the setting.
  answerTooLarge: "{operation}: the answer is larger than {limit} bytes ({option})",
  // Appended to noAnswer's reason when nothing listens on the gRPC endpoint the client chose itself.
  defaultGrpcEndpoint: "{reason}; {endpoint} is the default gRPC endpoint (the host of the service URL, port {port}): if the service serves gRPC elsewhere, set {option} to its host:port",
} as const;

/**
 * What the client-side wire check says of a value the protobuf encoding would coerce or drop
 * (checkWireTypes in runtime/validate.ts); the message is "<path>: <text>".
 */
export const WIRE_CHECK_TEXTS = {
  string: SCALAR_SPECS.string.wireText,
  bool: SCALAR_SPECS.bool.wireText,
  integer: SCALAR_SPECS.int64.wireText,
  int32Range: rangeText(INTEGER_RANGES.int32),
  int64Range: rangeText(INTEGER_RANGES.int64),
  uint32Range: rangeText(INTEGER_RANGES.uint32),
  float32Range: rangeText(INTEGER_RANGES.float32),
  float64: SCALAR_SPECS.float64.wireText,
  timestamp: SCALAR_SPECS.timestamp.wireText,
  date: SCALAR_SPECS.date.wireText,
  duration: SCALAR_SPECS.duration.wireText,
  bytes: SCALAR_SPECS.bytes.wireText,
  uint64: SCALAR_SPECS.uint64.wireText,
  int64String: SCALAR_SPECS.int64_string.wireText,
  map: SCALAR_SPECS.map.wireText,
  json: SCALAR_SPECS.json.wireText,
  enum: VALUE_TEXTS.enum,
  enumSeparator: ", ",
  oneOf: VALUE_TEXTS.oneOf,
  object: VALUE_TEXTS.object,
  list: VALUE_TEXTS.list,
  unknownField: VALUE_TEXTS.unknownField,
  /** The path of the request itself. */
  root: "request",
} as const;

function rangeText(range: { minimum: number; maximum: number }): string {
  return VALUE_TEXTS.range.replace("{minimum}", String(range.minimum)).replace("{maximum}", String(range.maximum));
}

/**
 * The page size an iterator asks for when the input names none: the clients' default, or the
 * manifest's maximum when that is lower (a larger request would be refused). Token style: null.
 */
function paginationFacts(pagination: Exclude<Pagination, { style: "none" }>): NonNullable<OperationFacts["pagination"]> {
  const token = pagination.style === "token" ? pagination : undefined;
  return {
    style: pagination.style,
    itemsField: pagination.itemsField,
    pageSize: iteratorPageSize(pagination),
    cursorField: token?.cursorField ?? null,
    nextCursorField: token?.nextCursorField ?? null,
  };
}

export function iteratorPageSize(pagination: Pagination): number | null {
  return pagination.style === "page" ? Math.min(ITERATE_PAGE_LIMIT, pagination.maxPageSize ?? ITERATE_PAGE_LIMIT) : null;
}

/** The GraphQL document of an operation exactly as the TypeScript client sends it: one line. */
export function clientGraphqlDocument(ir: Ir, op: IrOperation): string {
  return graphqlDocument(ir, op).replace(/\s+/g, " ");
}

/**
 * Whose access token an admin client may call with instead of the secret, where a rule lets the
 * holders of its org role in (features.orgAdmin): the refusal of a client given neither says it.
 */
export const ROLE_TOKEN_TEXT = "the access token of a user who is an org-admin (for the organizations that user administers)";

/** What the SDK READMEs' examples pass for a credential: a placeholder the reader replaces with their own. */
export const EXAMPLE_CREDENTIALS = { adminSecret: "s3cret", clientId: "my-app", apiKey: "my-api-key", accessToken: "my-access-token" } as const;

/**
 * The credentials the client of the SDK READMEs' examples (ir.docExamples.surface) passes besides
 * the admin secret and client id its constructor takes: an API key where an operation of that
 * client is of an api_key scheme, a user's access token where one is of a bearer scheme of access
 * tokens (by each operation's first scheme). So each example calls as the API's declared schemes ask, and runs as printed.
 */
export function exampleCredentials(ir: Ir): { apiKey: boolean; accessToken: boolean } {
  const onAdmin = ir.docExamples.surface === "admin";
  // Each operation's first scheme: any one of several lets a caller in, and a placeholder of another would be a wrong credential sent beside a right one.
  const schemes = ir.operations.filter((op) => (op.surface === "admin") === onAdmin).map((op) => ir.api.authSchemes.find((scheme) => scheme.name === op.auth));
  return {
    apiKey: schemes.some((scheme) => scheme?.kind === "api_key"),
    accessToken: !onAdmin && schemes.some((scheme) => scheme?.kind === "bearer" && scheme.token === "access"),
  };
}

/** The operation of a name, the message of a name, and a paginated operation's items field: what the SDK READMEs' examples look up. */
export function factsLookup(facts: SdkFacts) {
  const operation = (name: string) => facts.operations.find((op) => op.name === name)!;
  const message = (name: string) => facts.messages.find((m) => m.name === name)!;
  const listItems = (name: string) => {
    const op = operation(name);
    return { op, items: message(op.output).fields.find((f) => f.name === op.pagination!.itemsField)! };
  };
  return { operation, message, listItems };
}

/** The serialized FileDescriptorSet of the proto files (`buildDescriptors`: struct.proto included), without comments. */
export function descriptorSetBinary(descriptors: readonly FileDescriptorProto[]): Uint8Array {
  const files = descriptors.map((file) => ({ ...file, sourceCodeInfo: undefined }));
  return toBinary(FileDescriptorSetSchema, create(FileDescriptorSetSchema, { file: files }));
}

/**
 * The module of an SDK embedding the descriptor set, as a derived group keyed on the hash the
 * protobuf-es group already takes of the descriptors: a run where they did not change keeps the file
 * on disk instead of serializing them again. The template, rendered on a stand-in, is part of the
 * key, so editing it regenerates the file.
 */
export function descriptorSetGroup(
  name: string,
  path: string,
  template: { render(view: { descriptorLines: readonly string[] }): string },
  lineLength: number,
  descriptors: readonly FileDescriptorProto[],
  descriptorsHash: string,
): DerivedGroup {
  const layout = template.render({ descriptorLines: ["descriptor-set"] });
  return {
    name,
    inputHash: createHash("sha256").update(`${descriptorsHash}\n${path}\n${layout}`).digest("hex"),
    produce: () => {
      const base64 = Buffer.from(descriptorSetBinary(descriptors)).toString("base64");
      return [{ path, content: template.render({ descriptorLines: base64.match(new RegExp(`.{1,${lineLength}}`, "g")) ?? [] }) }];
    },
  };
}

function fieldFacts(ir: Ir, field: IrField, inRequest: boolean, inUnion = false): FieldFacts {
  const kind = field.type.kind === "scalar" ? field.type.scalar : field.type.kind;
  return {
    name: field.name,
    description: field.description,
    kind,
    ref: field.mapValue && field.mapValue.kind !== "scalar" ? field.mapValue.name : field.type.kind === "scalar" ? null : field.type.name,
    value: field.mapValue === undefined ? null : field.mapValue.kind === "scalar" ? (field.mapValue.scalar as MapValueKind) : field.mapValue.kind,
    list: field.list,
    required: field.required,
    secret: field.secret,
    format: field.format ?? null,
    deprecated: field.deprecated ?? null,
    alwaysInAnswer: field.alwaysInAnswer,
    // A union's variants are members of a oneof: each has presence.
    protoPresence: inUnion || isProtoOptional(field, inRequest) || (!field.list && (kind === "message" || kind === "json")),
    rules: inRequest ? fieldRuleSentences(ir, field) : [],
  };
}

function messageFacts(ir: Ir, message: IrMessage): MessageFacts {
  const { name, description, shared, usedAsInput, usedAsOutput } = message;
  return {
    name,
    description,
    fields: message.fields.map((field) => fieldFacts(ir, field, usedAsInput, message.oneOf)),
    oneOf: message.oneOf === true,
    discriminator: message.discriminator?.property ?? null,
    shared,
    usedAsInput,
    usedAsOutput,
  };
}

const factsOfIr = new WeakMap<Ir, SdkFacts>();

/** The facts of an IR, derived once: the Python and Go emitters and the TypeScript package's README read the same. */
export function buildSdkFacts(ir: Ir): SdkFacts {
  const known = factsOfIr.get(ir);
  if (known) return known;
  const facts = deriveSdkFacts(ir);
  factsOfIr.set(ir, facts);
  return facts;
}

function deriveSdkFacts(ir: Ir): SdkFacts {
  const lowestSince: Partial<Record<Protocol, string>> = {};
  for (const op of ir.operations) {
    for (const p of op.protocols) {
      const since = op[p]!.since;
      const lowest = lowestSince[p];
      if (lowest === undefined || compareVersions(since, lowest) < 0) lowestSince[p] = since;
    }
  }
  const operations = ir.operations.map((op): OperationFacts => {
    const since: Partial<Record<Protocol, string>> = {};
    const versionGated: Partial<Record<Protocol, boolean>> = {};
    for (const p of op.protocols) {
      since[p] = op[p]!.since;
      versionGated[p] = compareVersions(op[p]!.since, lowestSince[p]!) > 0;
    }
    return {
      name: op.name,
      pascalName: op.pascalName,
      description: op.description,
      deprecated: op.deprecated ?? null,
      surface: op.surface,
      kind: op.kind,
      destructive: op.destructive,
      auth: op.auth,
      authAnyOf: op.authAnyOf.map((r) => r.scheme),
      authSummary: authSummary(op),
      protocols: op.protocols,
      // Token routes are REST whatever the protocol (spec §1, rule 2).
      fixedProtocol: op.surface === "oauth" ? "rest" : null,
      retried: op.idempotent || op.idempotencyKey,
      idempotencyKey: op.idempotencyKey,
      // Only a token route that takes client_id (discovery, userinfo and the keys take none).
      fills: op.surface === "oauth" && ir.api.features.clientId && op.input.fields.some((f) => f.name === "client_id") ? ["client_id"] : [],
      since,
      versionGated,
      graphql: op.graphql ? { document: clientGraphqlDocument(ir, op), withParams: op.graphql.argument !== undefined } : null,
      rest: op.rest
        ? {
            method: op.rest.method,
            path: op.rest.path,
            pathParams: op.rest.pathParams,
            headers: op.rest.headerParams.map((b) => [b.field, b.lowerCase]),
            inQuery: op.rest.inQuery,
            body: op.rest.body,
            answer: op.rest.answer,
          }
        : null,
      grpc: op.grpc
        ? {
            path: `/${op.grpc.serviceTypeName}/${op.grpc.rpc}`,
            requestType: `${ir.proto.package}.${op.grpc.requestMessage}`,
            responseType: `${ir.proto.package}.${op.grpc.responseMessage}`,
          }
        : null,
      pagination: op.pagination.style === "none" ? null : paginationFacts(op.pagination),
      exactlyOneOf: op.exactlyOneOf,
      rules: operationRuleSentences(op),
      input: op.input.name,
      output: op.output.name,
    };
  });
  // A client only where the API has operations for it (ir.clients): an API without admin operations has no admin client.
  const clients: ClientFacts[] = ir.clients.map((client) => {
    const surfaces: Surface[] = client.role === "admin" ? ["admin"] : ["user", "oauth"];
    return {
      role: client.role,
      name: client.name,
      title: client.title,
      surfaces,
      versionOperation: ir.versionOperations[client.role] ?? null,
      operations: ir.operations.filter((op) => surfaces.includes(op.surface)).map((op) => op.name),
    };
  });
  const serverCodes: readonly string[] = ERROR_CODES;
  return {
    service: {
      name: ir.api.name,
      title: ir.api.title,
      version: ir.api.version,
      adminSecretHeader: ir.api.adminSecretHeader,
      apiKeyHeader: ir.api.apiKeyHeader,
      httpPort: ir.api.httpPort,
      grpcPort: ir.api.grpcPort,
      envPrefix: ir.api.envPrefix,
      protoPackage: ir.proto.package,
    },
    features: ir.api.features,
    apiKeySchemes: authSchemesOf(ir)
      .filter((s) => s.kind === "api_key")
      .map((s) => s.name),
    protocols: PROTOCOLS,
    lowestSince,
    errors: {
      server: ERROR_CODES.map((code) => ({ code, http: ERROR_WIRE[code].http, grpc: ERROR_WIRE[code].grpc })),
      clientOnly: CLIENT_ERROR_CODES.filter((code) => !serverCodes.includes(code)),
      transientCodes: [...TRANSIENT_CODES],
      transientHttpStatuses: [...TRANSIENT_HTTP_STATUSES],
      oauth: { ...OAUTH_CODES },
      httpFallback: { serverError: "INTERNAL", otherwise: "INVALID_ARGUMENT" },
      grpcFallback: "INTERNAL",
      grpcNoAnswerStatuses: [...GRPC_NO_ANSWER_STATUSES],
      grpcUnreadableStatuses: [...GRPC_UNREADABLE_STATUSES],
      grpcCodeMetadata: ERROR_CODE_METADATA,
      grpcBareStatuses: { ...BARE_GRPC_STATUS } as Record<number, string>,
      retryAfterKey: "retry-after",
      faults: { ...FAULT_CODES },
    },
    texts: { ...REFUSAL_TEXTS, ...CLIENT_ERROR_TEXTS, wire: WIRE_CHECK_TEXTS, answerTypes: ANSWER_TYPE_TEXTS },
    versionField: "version",
    tokenVersionOperation: ir.tokenVersionOperation,
    retry: { ...RETRY_DEFAULTS },
    defaultTimeoutMs: DEFAULT_TIMEOUT_MS,
    defaultMaxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
    retryAfterMaxMs: RETRY_AFTER_MAX_MS,
    iteratePageLimit: ITERATE_PAGE_LIMIT,
    enums: ir.enums.map((e) => ({ name: e.name, description: e.description, values: e.values.map((v) => ({ name: v.name, number: v.protoNumber, description: v.description })) })),
    messages: ir.messages.map((message) => messageFacts(ir, message)),
    operations,
    clients,
  };
}
