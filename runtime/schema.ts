// The shape of the generated schema value (generated/schema.ts): everything the runtime needs to
// know about operations, messages and enums, as data that server and client code reflect on.

export type Protocol = "graphql" | "rest" | "grpc";
export const PROTOCOLS: readonly Protocol[] = ["graphql", "rest", "grpc"];

/**
 * How a caller of an auth scheme proves who it is, as the manifest declares it (api.auth_schemes):
 * no credentials; a bearer token (a signed-in user's access token, or an organization's SCIM
 * token); an API key in a header; the admin secret in a header (or the admin session standing in
 * for it).
 */
export type AuthKind = "none" | "bearer" | "api_key" | "secret";

/** What the server checks for an auth scheme; operations name theirs (OperationSpec.auth). */
export interface AuthSchemeSpec {
  readonly kind: AuthKind;
  /** bearer: what the token stands for, checked by verifyUserToken (access) or verifyScimToken (scim). */
  readonly token?: "access" | "scim";
  /** secret: the admin session (ServiceFacts.adminSessionCookie) stands in for the secret. */
  readonly session?: boolean;
  /** secret: a signed-in user holding the API's org role (orgAdminRole) for the organization concerned passes too, as isOrgAdmin decides. */
  readonly orgRole?: boolean;
  /** secret: who may call, as a signed-in user's refusal says it ("DeleteUser is for admins only"). */
  readonly callers?: string;
}

/** One way to call an operation: an auth scheme (a key of ServiceFacts.authSchemes) and the scopes a bearer token of it must grant. */
export interface AuthRequirementSpec {
  readonly scheme: string;
  /** bearer: every one of these must be among the token's scopes (what the service's verifier grants); absent: none. */
  readonly scopes?: readonly string[];
}

/** The schemes an operation takes, any one of which lets a caller in, in the manifest's order. */
export function authRequirementsOf(operation: Pick<OperationSpec, "auth" | "authAnyOf">): readonly AuthRequirementSpec[] {
  return operation.authAnyOf ?? [{ scheme: operation.auth }];
}

export type Surface = "admin" | "user" | "oauth";
/**
 * The field types of a manifest. The runtime holds the list since generated code checks against it;
 * the toolchain's table of what each is in every contract and SDK (generators/sdk/scalars.ts) is
 * keyed by it, so a kind added here fails to compile until the table and every switch on kinds have it.
 */
export const SCALAR_KINDS = ["string", "bool", "int32", "int64", "int64_string", "uint32", "uint64", "float32", "float64", "timestamp", "date", "duration", "bytes", "map", "json"] as const;
export type ScalarKind = (typeof SCALAR_KINDS)[number];
/** The scalar kinds a map's values may be besides strings (a map or free-form json value may not: a type that holds one may). */
export const MAP_VALUE_KINDS = SCALAR_KINDS.filter((kind): kind is Exclude<ScalarKind, "string" | "map" | "json"> => kind !== "string" && kind !== "map" && kind !== "json");
/** What a map's values are, where not strings: a scalar kind, an enum or a message (of the field's `ref`). */
export type MapValueKind = (typeof MAP_VALUE_KINDS)[number] | "enum" | "message";

const mapValueFields = new WeakMap<FieldSpec, FieldSpec>();
/** The field each value of a map field is, as the checks and conversions of single values read it (strings where `value` is absent). */
export function mapValueField(field: FieldSpec): FieldSpec {
  let valueField = mapValueFields.get(field);
  if (!valueField) {
    const kind = field.value ?? "string";
    valueField = { name: field.name, kind, ...(kind === "enum" || kind === "message" ? { ref: field.ref! } : {}), list: false, required: true, protoName: field.protoName };
    mapValueFields.set(field, valueField);
  }
  return valueField;
}

/** The `default` of a switch over every field kind: a kind it misses fails to compile, as `kind` is then not `never`. */
export function unknownKind(kind: never): never {
  throw new Error(`unknown field kind ${String(kind)}`);
}

export interface FieldSpec {
  /** snake_case wire name. */
  readonly name: string;
  readonly kind: ScalarKind | "enum" | "message";
  /** Enum or message name, for kind enum / message; the enum of a map's values (value enum). */
  readonly ref?: string;
  /** A map's values, when not strings: a scalar kind, or enum or message (of `ref`). */
  readonly value?: MapValueKind;
  readonly list: boolean;
  readonly required: boolean;
  readonly secret?: boolean;
  /** Property name of the field on protobuf-es messages. */
  readonly protoName: string;
}

export interface MessageSpec {
  readonly name: string;
  readonly fields: readonly FieldSpec[];
  /** A union: exactly one field (a variant) is set; protobuf-es holds it in the oneof `variant` ({ case, value }). */
  readonly oneOf?: boolean;
  /** A union's tag: on JSON the value carries this property, naming its variant (answers always; REST requests must). */
  readonly discriminator?: string;
}

/** The name of a union's proto oneof, and so of its protobuf-es property. */
export const UNION_ONEOF = "variant";

export interface EnumSpec {
  readonly name: string;
  /** Wire value -> proto number. */
  readonly values: Readonly<Record<string, number>>;
}

export interface OperationSpec {
  /** snake_case: GraphQL root field and OpenAPI operationId. */
  readonly name: string;
  /** camelCase: the method of clients and service interfaces. */
  readonly method: string;
  /** PascalCase, as the error messages of clients name the operation. */
  readonly pascalName: string;
  readonly surface: Surface;
  readonly kind: "read" | "write";
  readonly destructive: boolean;
  /** Repeating it leaves the same state: reads, and writes the manifest declares idempotent. */
  readonly idempotent: boolean;
  /** It takes an Idempotency-Key: the server answers a repeated key with the first answer (every write that sets no cookie). */
  readonly idempotencyKey: boolean;
  /** The auth scheme, by name (a key of ServiceFacts.authSchemes); the first of authAnyOf where the operation takes several. */
  readonly auth: string;
  /**
   * Where the operation takes several schemes (any one of them lets a caller in) or scopes: each
   * scheme in the manifest's order, with the scopes a bearer token of it must grant. Absent: `auth`
   * alone, without scopes (authRequirementsOf reads both forms).
   */
  readonly authAnyOf?: readonly AuthRequirementSpec[];
  /** `pageSize`: what an iterator asks for when the input names none (page style; token style: null). */
  /** Token style: the wire names of the cursor asked with (`cursorField`) and handed back (`nextCursorField`); null for page style. */
  readonly pagination: {
    readonly style: "page" | "token";
    readonly itemsField: string;
    readonly pageSize: number | null;
    readonly cursorField: string | null;
    readonly nextCursorField: string | null;
  } | null;
  readonly exactlyOneOf: readonly string[];
  /** Its input can hold a tagged union, whose tag a REST body carries (union-tags.ts); absent for most. */
  readonly taggedInput?: true;
  readonly deprecated: string | null;
  /** Message names (keys of ApiSchema.messages). */
  readonly input: string;
  readonly output: string;
  /** `params`: the GraphQL input type of the single argument, and whether it is non-null; null when there is no argument. */
  readonly graphql: { readonly since: string; readonly root: "Query" | "Mutation"; readonly params: { readonly type: string; readonly required: boolean } | null } | null;
  /**
   * `path` holds `{field}` segments for the fields of `pathParams`; `inQuery`: the other input
   * fields travel in the query string (GET, DELETE), else in a JSON body.
   */
  readonly rest: {
    readonly since: string;
    readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
    readonly path: string;
    readonly pathParams: readonly string[];
    readonly inQuery: boolean;
    readonly body: "json" | "form_or_json";
    /** redirect: answered with a 302 to the output's `location`; clients build the URL instead of calling. */
    readonly answer: "json" | "redirect";
    /** The status of a success (200, 201, 202; 204 answers without a body). */
    readonly status: number;
    /** Input field -> the request header (lower case) that carries it instead of the query or body; absent: none. */
    readonly headers?: Readonly<Record<string, string>>;
    /** Output field -> the answer header (lower case) that carries its value too; absent: none. */
    readonly responseHeaders?: Readonly<Record<string, string>>;
  } | null;
  readonly grpc: { readonly since: string; readonly service: string; readonly rpc: string } | null;
}

/** What of the auth machinery the operations use; whatever is false appears in no output, and the runtime asks for none of it. */
export interface ApiFeatures {
  /** An operation needs the admin secret (auth admin_secret, org_admin or super_admin): servers require one, admin clients send it. */
  readonly adminSecret: boolean;
  /** An operation opens an admin session (sets the admin session cookie), which stands in for the admin secret. */
  readonly adminSession: boolean;
  /** Operations of the oauth surface: token routes answering RFC 6749 errors (OAuthError in the SDKs). */
  readonly tokenRoutes: boolean;
  /** A token call takes client_id, which the user client fills with its own: the user client needs a client id. */
  readonly clientId: boolean;
  /** An operation takes an API key (auth api_key) in the header apiKeyHeader: clients send one, the server asks verifyApiKey. */
  readonly apiKey: boolean;
  /** An operation's auth lets an org-admin call it with their own access token (a rule with org_role): admin clients take a token instead of the secret. */
  readonly orgAdmin: boolean;
}

/** What the schema says of the service as a whole. */
export interface ServiceFacts {
  readonly name: string;
  readonly title: string;
  readonly version: string;
  readonly adminSecretHeader: string;
  readonly apiKeyHeader: string;
  readonly orgAdminRole: string;
  /** The cookie of the admin session (features.adminSession), which stands in for the admin secret. */
  readonly adminSessionCookie: string;
  /** The auth schemes the operations name, by name. */
  readonly authSchemes: Readonly<Record<string, AuthSchemeSpec>>;
  readonly features: ApiFeatures;
  /** The port of GraphQL, REST and Connect a server listens on unless told another. */
  readonly httpPort: number;
  readonly grpcPort: number;
  /** Prefix of the clients' environment variables: IDENTITY for IDENTITY_SERVICE_URL. */
  readonly envPrefix: string;
  /** The first segments of the derived REST routes (/v1): paths under it belong to the REST surface. */
  readonly restPrefix: string;
}

export interface ApiSchema extends ServiceFacts {
  readonly enums: Readonly<Record<string, EnumSpec>>;
  readonly messages: Readonly<Record<string, MessageSpec>>;
  readonly operations: Readonly<Record<string, OperationSpec>>;
}

/** The messages and enums a walk over values reads: an ApiSchema's, or a client's of one operation. */
export type MessageSchema = Pick<ApiSchema, "enums" | "messages">;

/**
 * The facts of the service a client reads (its calls' headers, the environment's names, the gRPC
 * port): the generated client module carries these alone, since a browser downloads them.
 */
export type ClientServiceFacts = Pick<ServiceFacts, "name" | "adminSecretHeader" | "apiKeyHeader" | "features" | "grpcPort" | "envPrefix">;

/** A client's schema of an operation: the operation's messages, enums and spec, with the client's facts of the service. */
export type ClientSchema = ClientServiceFacts & Pick<ApiSchema, "enums" | "messages" | "operations">;

/** Protocols that carry an operation, in the canonical order. */
export function protocolsOf(operation: OperationSpec): Protocol[] {
  return PROTOCOLS.filter((protocol) => operation[protocol] !== null);
}

/**
 * The generated schema in its compact form: each message is one line of fields, each enum one
 * line of values, so that the schema costs clients little to download. Field syntax:
 * `name:type` (`name:map<int32>` for a map of other values than strings) with `[]` for a list, `!` for required, `#secret`, and `=property` where the
 * protobuf-es property is not the field's JSON name. (The rules the server checks beyond these,
 * such as formats and lengths, live in the server's own module: clients never need them.)
 */
export interface CompactSchema<Operations extends Record<string, CompactOperation>> extends ServiceFacts {
  /** Enum name -> "value=number value=number ...". */
  readonly enums: Readonly<Record<string, string>>;
  /** Message name -> "field:type field:type ...". */
  readonly messages: Readonly<Record<string, string>>;
  readonly operations: Operations;
}

export type CompactOperation = Omit<OperationSpec, "name">;

/**
 * One operation of a client as its module carries it (generated/client/operations/): the operation,
 * and the messages and enums it reaches, in the compact syntax. A client loads it on the operation's
 * first call, so that an app downloads the schema of the operations it calls, not all of them.
 */
export interface OperationPart {
  readonly enums: Readonly<Record<string, string>>;
  readonly messages: Readonly<Record<string, string>>;
  readonly operations: Readonly<Record<string, CompactOperation>>;
}

/** The JSON name of a field (protoc's rule): the protobuf-es property unless the schema names another. */
function jsonName(name: string): string {
  return name.replace(/_(.)/g, (_, next: string) => next.toUpperCase());
}

function decodeField(text: string, enums: Readonly<Record<string, unknown>>): FieldSpec {
  const match = /^([a-z0-9_]+):([A-Za-z0-9_]+)(?:<([A-Za-z0-9_]+)>)?(\[\])?(!)?(#secret)?(?:=([\w$]+))?$/.exec(text);
  if (!match) throw new Error(`bad field spec '${text}'`);
  const [, name, type, mapValue, list, required, secret, property] = match as unknown as [string, string, string, string?, string?, string?, string?, string?];
  const kind = (SCALAR_KINDS as readonly string[]).includes(type) ? (type as ScalarKind) : type in enums ? "enum" : "message";
  // map<int32>, map<Genre>: a map whose values are not strings.
  const value = mapValue === undefined ? undefined : (MAP_VALUE_KINDS as readonly string[]).includes(mapValue) ? (mapValue as MapValueKind) : mapValue in enums ? "enum" : "message";
  return {
    name,
    kind,
    ...(kind === "enum" || kind === "message" ? { ref: type } : {}),
    ...(value === undefined ? {} : value === "enum" || value === "message" ? { value, ref: mapValue } : { value }),
    list: list !== undefined,
    required: required !== undefined,
    ...(secret ? { secret: true } : {}),
    protoName: property ?? jsonName(name),
  };
}

/** Expands the compact generated schema into the ApiSchema the runtime reads. */
export function defineSchema<Operations extends Record<string, CompactOperation>>(
  compact: CompactSchema<Operations>,
): Omit<ApiSchema, "operations"> & { readonly operations: { readonly [K in keyof Operations]: OperationSpec } } {
  return { ...compact, ...expandPart(compact) } as never;
}

/** The enums, messages and operations of a compact schema or of an operation's part, expanded. */
export function expandPart(compact: OperationPart): Pick<ApiSchema, "enums" | "messages" | "operations"> {
  const enums = Object.fromEntries(
    Object.entries(compact.enums).map(([name, line]) => [
      name,
      { name, values: Object.fromEntries(line.split(" ").map((pair) => [pair.slice(0, pair.indexOf("=")), Number(pair.slice(pair.indexOf("=") + 1))])) },
    ]),
  );
  const messages = Object.fromEntries(
    Object.entries(compact.messages).map(([name, line]) => {
      // A union's line starts with "|", a tagged one's with "|tag|".
      const oneOf = line.startsWith("|");
      const tagEnd = oneOf ? line.indexOf("|", 1) : -1;
      const fields = oneOf ? line.slice(tagEnd + 1 || 1) : line;
      const tag = tagEnd > 0 ? { discriminator: line.slice(1, tagEnd) } : {};
      return [name, { name, fields: fields ? fields.split(" ").map((f) => decodeField(f, compact.enums)) : [], ...(oneOf ? { oneOf, ...tag } : {}) }];
    }),
  );
  const operations = Object.fromEntries(Object.entries(compact.operations).map(([name, op]) => [name, { name, ...op }]));
  return { enums, messages, operations };
}
