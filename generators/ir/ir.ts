// The IR: one typed, normalised model of the manifest. Every name any emitter, runtime table or
// test uses is computed here, once.
import type { FieldNumberLock } from "../load/lock.js";
import type { SourcePosition } from "../load/diagnostics.js";
import { SCALAR_KINDS, type ApiFeatures, type AuthKind, type ScalarKind } from "../../runtime/schema.js";

export type { ApiFeatures, AuthKind };

export const PROTOCOLS = ["graphql", "rest", "grpc"] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/** The field types: the runtime's list (generators/sdk/scalars.ts says what each is everywhere). */
export const SCALARS = SCALAR_KINDS;
/** The scalars a manifest writes: int64_string is what int64 is in an API whose int64 travel as strings. */
export const MANIFEST_SCALARS = SCALAR_KINDS.filter((kind) => kind !== "int64_string");
export type Int64Json = "number" | "string";
export type Scalar = ScalarKind;

/**
 * An auth scheme operations name (api.auth_schemes, or the built-in ones): a rule of the manifest
 * is resolved to the secret scheme it extends, with its org role and callers.
 */
export interface IrAuthScheme {
  name: string;
  kind: AuthKind;
  /** Who may call, in words, as the docs say it. */
  description: string;
  /** bearer: a signed-in user's access token, or an organization's SCIM token. */
  token?: "access" | "scim";
  /** api_key and secret: the header that carries it. */
  header?: string;
  /** secret: the session cookie standing in for the secret, the operation that opens it, and its name in the contracts. */
  session?: { cookie: string; openedBy: string; securityName: string };
  /** secret: signed-in users holding this role for the organization concerned pass too. */
  orgRole?: string;
  /**
   * Its credential's name in the contracts (the OpenAPI security scheme), derived once from the
   * declared name: in camelCase, ending in the kind's word where it does not already (user ->
   * userToken, staff_key -> staffKey, admin_secret -> adminSecret); a rule's is that of the secret
   * scheme it extends; empty for none. A session's name ends in Session (adminSession), and the
   * token a role holder calls with is the API's first bearer scheme of access tokens (or the
   * rule's name ending in Token): roleTokenName.
   */
  securityName: string;
  /** secret with an org role: the security name of the access token a role holder calls with. */
  roleTokenName?: string;
  /** secret: who may call, as a signed-in user's refusal says it ("is for admins only"). */
  callers?: string;
}

/** One scheme an operation takes (IrOperation.authAnyOf): its name and the scopes a bearer token of it must grant. */
export interface IrAuthRequirement {
  scheme: string;
  scopes: string[];
}

/** The names of an API's secret (Ir["api"]["secretNames"]), all from the name of the scheme that declares it. */
export interface SecretNames {
  /** The secret scheme's name (admin_secret). */
  scheme: string;
  /** In prose, the words of the scheme's name ending in "secret", and its session's in "session" (admin_secret or admin: "admin secret", "admin session"). */
  words: string;
  sessionWords: string;
  /** The server's option that takes it, as the OpenAPI names the secret (admin_secret or admin: adminSecret). */
  option: string;
  /** In capitals (ADMIN_SECRET): the environment variable the server README's examples read it from. */
  variable: string;
}

export type Surface = "admin" | "user" | "oauth";

/** The clients of the SDKs: the admin surface's, and the user surface's, which carries the token routes too. */
export type ClientRole = "admin" | "user";
export interface IrClient {
  role: ClientRole;
  /** api.surfaces.<role>.client: the class in TypeScript and Python (Python's async one is Async<name>), the struct in Go. */
  name: string;
  /** The surfaces whose operations it carries. */
  surfaces: Surface[];
  /** What it covers, as its doc comments say: "The admin interface". */
  title: string;
}

/** The client that carries an operation's surface. */
export const clientRoleOf = (op: Pick<IrOperation, "surface">): ClientRole => (op.surface === "admin" ? "admin" : "user");
/** A string format: built in (runtime/formats.ts) or declared under `formats:`. */
export interface IrFormat {
  name: string;
  /** Completes "must be ...": what a value of this format is. */
  description: string;
  builtin: boolean;
  /** ECMAScript pattern the whole value must match (built-in slug, and declared pattern formats). */
  pattern?: string;
  /** The only values allowed (declared value formats). */
  values?: string[];
  /** Longest value (the built-in slug). */
  maxLength?: number;
  /** A valid value, for examples. */
  example: string;
}

export type ScalarValue = string | number | boolean;

/**
 * Every rule the server checks on a field's value, with the implied ones made explicit (a required
 * string is not empty, a required list has an item, integers stay in the range their type carries),
 * so that the validator, the contracts and the docs state exactly the same thing.
 */
export interface FieldConstraints {
  /** Characters of a string, or of each string of a list. */
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  /** Used when the field is not given. */
  default?: ScalarValue;
  /** Required when `field` is given, or equals `equals`. */
  requiredIf?: { field: string; equals?: ScalarValue };
  /** Must equal this other field of the same message (a confirmation). */
  sameAs?: string;
  /** "" counts as not given (otherwise "" is a value like any other). */
  emptyMeansUnset?: boolean;
}

export type TypeRef = { kind: "scalar"; scalar: Scalar } | { kind: "enum"; name: string } | { kind: "message"; name: string };

/** V of map<V>: the scalar kind or the enum's name. */
export const mapValueName = (value: TypeRef): string => (value.kind === "scalar" ? value.scalar : value.name);

export interface IrField {
  /** snake_case; the wire name on every protocol. */
  name: string;
  /** The property of the field on protobuf-es messages: its JSON name, escaped where it would clash with a built-in property. */
  protoLocalName: string;
  description: string;
  type: TypeRef;
  /** A map's values where they are not strings (map<int32>, map<Genre>, map<Author>): a scalar but map and json, an enum or a type. */
  mapValue?: TypeRef;
  list: boolean;
  required: boolean;
  /** Never null in an answer: required, or a list or map (empty when unset), as the runtime normalises. */
  alwaysInAnswer: boolean;
  secret: boolean;
  /** A name of `Ir.formats`; for a list, each item's. */
  format?: string;
  constraints: FieldConstraints;
  deprecated?: string;
  protoNumber: number;
  position: SourcePosition;
}

export interface ReservedField {
  name: string;
  number: number;
}

export interface IrMessage {
  /** Canonical PascalCase name, also the proto message and OpenAPI schema name. */
  name: string;
  description: string;
  fields: IrField[];
  /** Numbers once used by fields no longer declared; never handed out again. */
  reserved: ReservedField[];
  /** Declared under `types:` (shared) or inline in one operation. */
  shared: boolean;
  /** A union (`one_of: true`): exactly one of its fields, its variants, is set; the set field's name says which. */
  oneOf?: boolean;
  /**
   * A union's tag (`discriminator:`): on JSON the value carries `property` naming its variant; each
   * variant's answer branch is an OpenAPI schema of its own (`branchSchemas`, by variant), as the
   * discriminator keyword's mapping names schemas; GraphQL answers it as an enum of the variants
   * (`graphqlEnum`: EditionKind for Edition's `kind`).
   */
  discriminator?: { property: string; branchSchemas: Readonly<Record<string, string>>; graphqlEnum: string };
  usedAsInput: boolean;
  usedAsOutput: boolean;
  /** GraphQL output type name (shared types and inline outputs). */
  graphqlName: string;
  /** GraphQL input type name (shared types used in inputs, and operation params). */
  graphqlInputName: string;
  /** File (relative to proto/) that declares the proto message. */
  protoFile: string;
  position: SourcePosition;
}

export interface IrEnumValue {
  name: string;
  description: string;
  protoName: string;
  protoNumber: number;
  /** Why the value is deprecated and what to use instead; absent when it is not. */
  deprecated?: string;
}

export interface IrEnum {
  name: string;
  description: string;
  values: IrEnumValue[];
  reserved: (ReservedField & { protoName: string })[];
  /** e.g. SAMLIDP_KEY_STATUS_UNSPECIFIED: the zero value proto requires. */
  protoZeroName: string;
  protoFile: string;
  position: SourcePosition;
}

export interface GraphqlBinding {
  since: string;
  rootType: "Query" | "Mutation";
  /** Root field name: the operation name. */
  field: string;
  /** The single `params` argument, absent when the operation takes no input. */
  argument?: { name: "params"; required: boolean };
}

export interface RestBinding {
  since: string;
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Fixed segments and `{field}` segments (/v1/books/{id}). */
  path: string;
  /** The input fields the path carries, in the order of their segments; the rest go in the query (GET, DELETE) or the body. */
  pathParams: string[];
  /** GET and DELETE carry the other input fields in the query string; the other methods in the body. */
  inQuery: boolean;
  /** Token routes take form bodies as well as JSON (RFC 6749). */
  body: "json" | "form_or_json";
  /** redirect: a browser's route, answered with a 302 to the output's `location`; SDKs build its URL instead of calling it. */
  answer: "json" | "redirect";
  /** The status of a success: 200, 201 (created), 202 (accepted) or 204 (no body). */
  status: 200 | 201 | 202 | 204;
  /** Input fields carried in request headers, not the query or body, with each header as declared (If-Match). */
  headerParams: HeaderBinding[];
  /** Output fields sent as answer headers too, when they have a value. */
  responseHeaders: HeaderBinding[];
}

/** A field bound to an HTTP header over REST: the header's name as declared, and in lower case as HTTP compares it. */
export interface HeaderBinding {
  field: string;
  header: string;
  lowerCase: string;
}

export interface GrpcBinding {
  since: string;
  service: string;
  /** RPC name: PascalCase with acronyms. */
  rpc: string;
  /** Fully-qualified service name, as it appears in the gRPC path. */
  serviceTypeName: string;
  requestMessage: string;
  responseMessage: string;
}

export interface PackageMetadata {
  /** SPDX license expression; absent when the manifest names none. */
  license?: string;
  repository?: string;
  homepage?: string;
  description: string;
  keywords: string[];
}

export type Pagination =
  | { style: "none" }
  /** `maxPageSize`: the maximum of the request's `pagination.limit`, when the manifest declares one. */
  | { style: "page"; itemsField: string; maxPageSize: number | null }
  /** `cursorField`: the input field asking for the page after a cursor; `nextCursorField`: the answer field handing it back. */
  | { style: "token"; itemsField: string; cursorField: string; nextCursorField: string };

export interface IrOperation {
  /** snake_case; the GraphQL root field and the OpenAPI operationId. */
  name: string;
  pascalName: string;
  camelName: string;
  /** Sentence case with acronyms, for docs and tool catalogues (Delete org OIDC connection). */
  title: string;
  surface: Surface;
  group: string;
  description: string;
  kind: "read" | "write";
  destructive: boolean;
  /** Repeating the call with the same input changes nothing more: reads, and writes that declare `idempotent: true`. */
  idempotent: boolean;
  /**
   * The call takes an Idempotency-Key (every write but those that set cookies, whose answer a replay
   * could not give again): the server answers a repeated key with the first answer, and the SDKs
   * send one with each call and retry it like a read.
   */
  idempotencyKey: boolean;
  /** The auth scheme's name (a key of api.authSchemes): the first of authAnyOf, for what speaks of one scheme. */
  auth: string;
  /**
   * Every scheme the operation takes, any one of which lets a caller in, in the manifest's order,
   * each with the scopes a bearer token of it must grant (empty for none); one entry where the
   * manifest names one scheme. Every output states them all.
   */
  authAnyOf: IrAuthRequirement[];
  /** Error codes the manifest declares the implementation may answer (`errors:`). */
  errors: string[];
  /**
   * Every code a call may answer, in the order of the error table: INVALID_ARGUMENT and
   * TOO_MANY_REQUESTS always, those of the auth scheme, and the declared ones. (Any call may
   * also fail with INTERNAL, UNIMPLEMENTED or UNAVAILABLE, and over HTTP with the transport's codes.)
   */
  errorCodes: string[];
  /** Cookies a successful call may set. */
  setsCookies: string[];
  pagination: Pagination;
  /** Client method that walks every page (paginated operations only). */
  iteratorName?: string;
  /** Input fields of which a request must give exactly one (empty when there is no such rule). */
  exactlyOneOf: string[];
  /** Input fields of which a request must give one or more (empty when there is no such rule). */
  atLeastOneOf: string[];
  deprecated?: string;
  graphql?: GraphqlBinding;
  rest?: RestBinding;
  grpc?: GrpcBinding;
  /** Protocols that carry the operation, in PROTOCOLS order. */
  protocols: Protocol[];
  /** Inline request message (<Pascal>Request); may have no fields. */
  input: IrMessage;
  /** The answer: a shared message (`output: User`) or an inline <Pascal>Response. */
  output: IrMessage;
  position: SourcePosition;
}

export interface IrGroup {
  /** snake_case, as declared under api.groups. */
  name: string;
  /** PascalCase with acronyms (org_sso -> OrgSSO): the SDKs' resource class of the group. */
  pascalName: string;
  title: string;
  operations: string[];
}

export interface IrService {
  surface: "admin" | "user";
  name: string;
  typeName: string;
  protoFile: string;
  operations: string[];
}

/** Operations that SDK docs show, by name; absent when the API has none of the kind. */
export interface DocExamples {
  /** The client the examples call: the admin client where the API has admin operations, else the user client. */
  surface: "admin" | "user";
  /** A read without required input: the first call shown. */
  read?: string;
  /** A paginated read: its iterator walks every page. */
  list?: string;
  /** A read that answers NOT_FOUND for an unknown value of its one required string field. */
  lookup?: { operation: string; field: string };
  /** An operation a protocol does not carry: a call over `protocol` is refused before sending. */
  notCarried?: { operation: string; protocol: Protocol; protocols: Protocol[] };
}

export interface Ir {
  api: {
    name: string;
    title: string;
    description: string;
    version: string;
    /** The auth schemes operations name, in declaration order. */
    authSchemes: IrAuthScheme[];
    /** The header of the admin secret (of the secret schemes): one per API; empty where no operation takes the secret. */
    adminSecretHeader: string;
    /** The header of API keys (of the api_key schemes): one per API; empty where no operation takes a key. */
    apiKeyHeader: string;
    /** The org role of the rules that let org-admins in: one per API; empty where no operation has such a rule. */
    orgAdminRole: string;
    /** The cookie of the admin session; empty where no scheme of the operations has one. */
    adminSessionCookie: string;
    /**
     * How the outputs name the API's secret, derived once from the secret scheme that declares it
     * (a rule's, from the scheme it extends): admin_secret gives the words "admin secret" and
     * "admin session", the server's option adminSecret and the environment variable of its
     * examples, ADMIN_SECRET. Undefined where no operation takes a secret.
     */
    secretNames?: SecretNames;
    /** How an int64 travels in JSON (api.int64_json): a decimal string as proto3 writes it (its fields are of kind int64_string), or a number (kind int64). */
    int64Json: Int64Json;
    /** The HTTP port (GraphQL, REST, Connect) the server listens on by default and the docs name. */
    httpPort: number;
    grpcPort: number;
    /** The first segments of every derived REST route: api.rest_prefix, default /v1. */
    restPrefix: string;
    /** Largest request, deepest and largest free-form json value: enforced on every protocol, stated in the contracts. */
    limits: { requestBytes: number; jsonDepth: number; jsonBytes: number };
    /** npm name of the client SDK package (api.packages.npm.sdk, default <name>-sdk). */
    sdkPackage: string;
    /** npm name of the server-stub package (api.packages.npm.server, default <name>-server). */
    serverPackage: string;
    /** npm name of the standalone MCP server (bin `<api name>-mcp`). */
    mcpPackage: string;
    /** Prefix of the environment variables of the SDKs and the standalone MCP server: the API name in capitals (IDENTITY_ADMIN_SECRET). */
    envPrefix: string;
    /** File names `npm pack` gives the two packages. */
    sdkTarball: string;
    mcpTarball: string;
    serverTarball: string;
    /** What every published artifact says of itself. */
    metadata: PackageMetadata;
    python: { distribution: string; module: string };
    /**
     * `module` as the manifest names it; `modulePath` is what go.mod declares and code imports: from
     * major version 2 on, Go requires the /vN suffix (github.com/acme/identity-go/v2 for 2.4.0).
     */
    go: {
      module: string;
      package: string;
      modulePath: string;
      /** Struct field names that differ from the derived one, by field name: packages.go.field_names. */
      fieldNames: Record<string, string>;
    };
    /** The words written in capitals in derived names (OIDC, SAML, ...): api.acronyms. */
    acronyms: string[];
    /** What of the auth machinery the operations use (passes/auth.ts); whatever is false appears in no output. */
    features: ApiFeatures;
    /** Breaking changes shipped on purpose; `version` is the api.version each was accepted for. */
    breakingChangesAccepted: { change: string; reason: string; version?: string; bump?: "major" | "minor" | "patch" }[];
  };
  proto: {
    package: string;
    /** Directory of the package inside proto/, e.g. identity/v1. */
    directory: string;
    typesFile: string;
    services: IrService[];
  };
  /** The clients the SDKs have: one only where operations are on it (no admin client without admin operations). */
  clients: IrClient[];
  groups: IrGroup[];
  enums: IrEnum[];
  /** Built-in and declared string formats, by name. */
  formats: Record<string, IrFormat>;
  /** Shared messages (types:), then every operation's inline request and response, in manifest order. */
  messages: IrMessage[];
  operations: IrOperation[];
  /** Per surface, the read that answers the server `version` (clients ask it to check minimum versions). */
  versionOperations: Partial<Record<Surface, string>>;
  /**
   * The read an admin client holding an org-admin's access token asks instead of the admin's own,
   * which that token cannot call: a declared version read open to anyone. Null where the admin's
   * read takes the token too, or no admin client calls with one.
   */
  tokenVersionOperation: string | null;
  /**
   * Per protocol, the lowest minimum version of any operation on it: an operation whose minimum
   * is above it needs the server's version before a client sends it, one at it never does.
   */
  lowestSince: Partial<Record<Protocol, string>>;
  /** The operations the SDK docs show in their examples (passes/examples.ts). */
  docExamples: DocExamples;
  /** The lock as it must be after this run (new numbers appended). */
  lock: FieldNumberLock;
}

/** The client that carries an operation (it exists: an operation puts it in ir.clients). */
export function clientOf(ir: Pick<Ir, "clients">, op: Pick<IrOperation, "surface">): IrClient {
  const role = clientRoleOf(op);
  return ir.clients.find((c) => c.role === role)!;
}

/** The auth scheme an operation names. */
export function schemeOf(ir: Pick<Ir, "api">, op: Pick<IrOperation, "auth">): IrAuthScheme {
  const scheme = ir.api.authSchemes.find((s) => s.name === op.auth);
  if (!scheme) throw new Error(`no auth scheme ${op.auth} in the IR`);
  return scheme;
}

/** Every auth scheme an operation takes (any one lets a caller in), in the manifest's order, with its scopes. */
export function schemesOf(ir: Pick<Ir, "api">, op: Pick<IrOperation, "authAnyOf">): { scheme: IrAuthScheme; scopes: string[] }[] {
  return op.authAnyOf.map((requirement) => ({ scheme: schemeOf(ir, { auth: requirement.scheme }), scopes: requirement.scopes }));
}

/** Whether an operation takes the scheme `name` (among others, maybe). */
export const takesScheme = (op: Pick<IrOperation, "authAnyOf">, name: string): boolean => op.authAnyOf.some((r) => r.scheme === name);

export function messageByName(ir: Ir, name: string): IrMessage {
  const message = ir.messages.find((m) => m.name === name);
  if (!message) throw new Error(`no message ${name} in the IR`);
  return message;
}

/** The names of the messages `roots` and every message their fields reach, and of the enums those fields name. */
/** Whether a value of `message` can hold a tagged union (a one_of type with a discriminator), itself or nested. */
export function reachesTaggedUnion(ir: Ir, message: IrMessage): boolean {
  const { messages } = typesReached(ir, [message]);
  return [...messages].some((name) => messageByName(ir, name).discriminator !== undefined);
}

export function typesReached(ir: Ir, roots: readonly IrMessage[]): { messages: Set<string>; enums: Set<string> } {
  const messages = new Set<string>();
  const enums = new Set<string>();
  const visit = (message: IrMessage) => {
    if (messages.has(message.name)) return;
    messages.add(message.name);
    for (const field of message.fields) {
      if (field.type.kind === "message") visit(messageByName(ir, field.type.name));
      else if (field.type.kind === "enum") enums.add(field.type.name);
      if (field.mapValue?.kind === "enum") enums.add(field.mapValue.name);
      else if (field.mapValue?.kind === "message") visit(messageByName(ir, field.mapValue.name));
    }
  };
  for (const root of roots) visit(root);
  return { messages, enums };
}

export function enumByName(ir: Ir, name: string): IrEnum {
  const found = ir.enums.find((e) => e.name === name);
  if (!found) throw new Error(`no enum ${name} in the IR`);
  return found;
}
