// OpenAPI 3.1 document of every REST route (the token routes included) from the IR.
import { ERROR_CODES, ERROR_WIRE, OAUTH_ERROR_CODES, type ErrorCode } from "../../runtime/errors.js";
import { credentialsOf, needsAnyOfText } from "../../runtime/server/auth.js";
import { authSchemesOf, authWords } from "./operation-text.js";
import { schemeOf, typesReached, schemesOf, type Ir, type IrAuthScheme, type IrEnum, type IrEnumValue, type IrField, type IrMessage, type IrOperation } from "../ir/ir.js";
import { SCALAR_SPECS } from "../sdk/scalars.js";
import type { GeneratedFile } from "../write/writer.js";
import { describedField, fieldKeywords, idempotencySentences, itemKeywords, messageKeywords, operationRuleSentences, unionTagSchema } from "./rules.js";

export const OPENAPI_PATH = "generated/openapi/openapi.yaml";

type Schema = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/**
 * A field's schema; an input field states every rule the server checks of it. `form`: a field of a
 * form body, which cannot carry null (an absent field is the only "not given").
 */
function fieldSchema(ir: Ir, field: IrField, inAnswer = true, form = false): Schema {
  let item: Schema;
  const value = field.mapValue;
  if (value) item = { type: "object", additionalProperties: value.kind === "scalar" ? { ...SCALAR_SPECS[value.scalar].jsonSchema } : ref(value.name) };
  else if (field.type.kind === "scalar") {
    const spec = SCALAR_SPECS[field.type.scalar];
    item = !inAnswer && spec.jsonSchemaInput ? { anyOf: [...spec.jsonSchemaInput.anyOf] } : { ...spec.jsonSchema };
  } else item = ref(field.type.name);
  if (!inAnswer) item = { ...item, ...itemKeywords(ir, field, "pattern") };
  else if (item.$ref === undefined) {
    // An answer keeps what its values are (format, pattern), not the request's limits.
    const { format, pattern } = itemKeywords(ir, field, "pattern");
    item = { ...item, ...(format !== undefined ? { format } : {}), ...(pattern !== undefined ? { pattern } : {}) };
  }
  let schema: Schema = field.list ? { type: "array", items: item } : item;
  if (!inAnswer) schema = { ...schema, ...fieldKeywords(field) };
  // A value that may be unset is null in answers; in requests anything not required may be null.
  if (inAnswer ? !field.alwaysInAnswer : !field.required && !form) {
    if (Array.isArray(schema.anyOf)) schema = { ...schema, anyOf: [...schema.anyOf, { type: "null" }] };
    else schema = "$ref" in schema ? { anyOf: [schema, { type: "null" }] } : { ...schema, type: [schema.type, "null"] };
  }
  const annotations: Schema = {};
  const description = describedField(ir, field, !inAnswer);
  if (description) annotations.description = description;
  if (field.secret) annotations["x-secret"] = true;
  if (field.deprecated) annotations.deprecated = true;
  return { ...annotations, ...schema };
}

function messageSchema(ir: Ir, message: IrMessage, op: IrOperation | undefined, form = false): Schema {
  const schema: Schema = { type: "object" };
  const inAnswer = message.usedAsOutput && !message.usedAsInput;
  const description = [message.description, ...(op ? operationRuleSentences(op) : [])].filter(Boolean).join(" ");
  if (description) schema.description = description;
  // An answer carries every field (null when unset); a request needs only its required fields.
  const required = message.fields.filter((f) => inAnswer || f.required).map((f) => f.name);
  if (required.length > 0) schema.required = required;
  schema.properties = Object.fromEntries(message.fields.map((f) => [f.name, fieldSchema(ir, f, inAnswer, form)]));
  schema.additionalProperties = false;
  if (message.discriminator) return taggedUnionSchema(message, schema);
  return inAnswer && !message.oneOf ? schema : { ...schema, ...messageKeywords(message, schema.properties as Record<string, Schema>, op) };
}

/**
 * A tagged union: its tag required (answers write it, a REST request must send it), a oneOf of
 * one schema per variant (components of their own, which the discriminator's mapping names).
 */
function taggedUnionSchema(message: IrMessage, schema: Schema): Schema {
  const { property, branchSchemas } = message.discriminator!;
  const properties = { [property]: unionTagSchema(message), ...(schema.properties as Record<string, Schema>) };
  const mapping = Object.fromEntries(Object.entries(branchSchemas).map(([variant, name]) => [variant, ref(name).$ref]));
  const { properties: _fields, required, ...rest } = schema;
  return {
    ...rest,
    required: [property, ...((required as string[] | undefined) ?? [])],
    properties,
    oneOf: Object.values(mapping).map(($ref) => ({ $ref })),
    discriminator: { propertyName: property, mapping },
  };
}

/** The branch schemas of a tagged union, by their component names: each requires its variant and names it by the tag. */
function taggedUnionBranches(ir: Ir, message: IrMessage): Record<string, Schema> {
  const inAnswer = message.usedAsOutput && !message.usedAsInput;
  const properties = Object.fromEntries(message.fields.map((f) => [f.name, fieldSchema(ir, f, inAnswer)]));
  const { oneOf } = messageKeywords(message, properties, undefined, true) as { oneOf: Schema[] };
  const names = Object.values(message.discriminator!.branchSchemas);
  return Object.fromEntries(oneOf.map((branch, i) => [names[i]!, { description: `${message.name} holding ${message.fields[i]!.name}.`, ...branch }]));
}

/**
 * An enum's schema. JSON Schema's `enum` has no room for a value's words: they go in the
 * description (as every reader shows it) and in `x-enumDescriptions` (as Redoc renders them), and a
 * deprecated value is named so in both.
 */
function enumSchema(e: IrEnum): Schema {
  const valueText = (v: IrEnumValue) => [v.description, v.deprecated ? `Deprecated: ${v.deprecated}` : ""].filter(Boolean).join(" ");
  const documented = e.values.filter((v) => valueText(v));
  const lines = documented.map((v) => `- \`${v.name}\`: ${valueText(v)}`);
  const description = [e.description, lines.join("\n")].filter(Boolean).join("\n\n");
  return {
    type: "string",
    ...(description ? { description } : {}),
    enum: e.values.map((v) => v.name),
    ...(documented.length > 0 ? { "x-enumDescriptions": Object.fromEntries(documented.map((v) => [v.name, valueText(v)])) } : {}),
  };
}

/**
 * The OpenAPI security requirements of an operation: any one of the credentials of any one of its
 * schemes (requirement objects are alternatives), by the names the IR gives them
 * (IrAuthScheme.securityName), a bearer token's with the scopes it must grant (OpenAPI 3.1 lets any
 * scheme's requirement list them). A scheme of kind none among several makes the credentials
 * optional ({}); alone, the operation takes none ([]). A token route open to anyone also takes its
 * client's HTTP Basic credentials.
 */
function securityOf(ir: Ir, op: IrOperation): Schema[] {
  const alternatives = new Map<string, string[]>();
  let anyone = false;
  for (const { scheme, scopes } of schemesOf(ir, op)) {
    if (scheme.kind === "none") {
      anyone = true;
      if (op.surface === "oauth") alternatives.set("clientBasic", []);
      continue;
    }
    for (const name of [scheme.securityName, scheme.session?.securityName, scheme.roleTokenName]) {
      if (name !== undefined && !alternatives.has(name)) alternatives.set(name, name === scheme.securityName && scheme.kind === "bearer" ? scopes : []);
    }
  }
  const requirements = [...alternatives].map(([name, scopes]) => ({ [name]: scopes }));
  return anyone && requirements.length > 0 ? [{}, ...requirements] : requirements;
}

/** The security schemes of the credentials the operations take, each under its name in the IR: secrets, sessions, access tokens, API keys, other tokens. */
function securitySchemesOf(ir: Ir, used: readonly IrAuthScheme[]): Record<string, Schema> {
  const schemes: Record<string, Schema> = {};
  const namesOf = (name: string, kind?: IrAuthScheme["kind"]) =>
    used
      .filter((s) => (kind ? s.kind === kind : true) && (s.securityName === name || s.roleTokenName === name))
      .map((s) => s.name)
      .join(" or ");
  const secretNames = ir.api.secretNames;
  for (const scheme of used.filter((s) => s.kind === "secret")) {
    schemes[scheme.securityName] ??= {
      type: "apiKey",
      in: "header",
      name: scheme.header,
      description: `The ${secretNames?.words ?? "secret"}, on every call of an operation with auth ${namesOf(scheme.securityName, "secret")}.`,
    };
  }
  for (const { session } of used) {
    if (!session) continue;
    schemes[session.securityName] ??= {
      type: "apiKey",
      in: "cookie",
      name: session.cookie,
      description: `The ${secretNames?.sessionWords ?? "session"} ${session.openedBy} opens; stands in for the ${secretNames?.words ?? "secret"}. A server over TLS names it __Host-${session.cookie} (Secure, Path=/), and reads no other.`,
    };
  }
  const accessTokens = [...used.filter((s) => s.kind === "bearer" && s.token === "access").map((s) => s.securityName), ...used.flatMap((s) => (s.roleTokenName ? [s.roleTokenName] : []))];
  for (const name of accessTokens) schemes[name] ??= { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "An access token of a signed-in user." };
  for (const scheme of used.filter((s) => s.kind === "api_key")) {
    schemes[scheme.securityName] ??= {
      type: "apiKey",
      in: "header",
      name: scheme.header,
      description: `An API key, on every call of an operation with auth ${namesOf(scheme.securityName, "api_key")}.`,
    };
  }
  for (const scheme of used.filter((s) => s.kind === "bearer" && s.token !== "access")) {
    schemes[scheme.securityName] ??= { type: "http", scheme: "bearer", description: `The bearer token of ${scheme.description.replace(/ \(.*\)$/, "")}.` };
  }
  if (ir.operations.some((op) => op.surface === "oauth")) {
    schemes["clientBasic"] ??= { type: "http", scheme: "basic", description: "client_id and client_secret of a machine client (RFC 6749 §2.3.1), instead of client_secret in the body." };
  }
  return schemes;
}

/** What each code means for the caller, for the response descriptions. */
const CODE_MEANING: Record<string, string> = {
  INVALID_ARGUMENT: "The input breaks a rule of this contract (the message names the field), or the request is malformed.",
  UNAUTHENTICATED: "The credentials are missing or wrong.",
  PERMISSION_DENIED: "The caller is known but may not make this call.",
  NOT_FOUND: "Something the input names does not exist.",
  ALREADY_EXISTS: "What the call would create exists already.",
  FAILED_PRECONDITION: "The current state does not allow the call.",
  TOO_MANY_REQUESTS: "Too many calls, or too many wrong admin secrets, from this address; retry after Retry-After seconds.",
  PAYLOAD_TOO_LARGE: "The body is larger than the limit.",
  UNSUPPORTED_MEDIA_TYPE: "The body is not sent as JSON.",
};

/** Responses shared by many operations, under components.responses. */
const SHARED_RESPONSES: Record<string, string> = {
  PERMISSION_DENIED: "PermissionDenied",
  NOT_FOUND: "NotFound",
  ALREADY_EXISTS: "AlreadyExists",
  FAILED_PRECONDITION: "FailedPrecondition",
  TOO_MANY_REQUESTS: "TooManyRequests",
  PAYLOAD_TOO_LARGE: "PayloadTooLarge",
  UNSUPPORTED_MEDIA_TYPE: "UnsupportedMediaType",
};

const EXAMPLE_MESSAGE: Record<string, string> = {
  PERMISSION_DENIED: "the caller may not make this call",
  NOT_FOUND: "nothing has the id given",
  ALREADY_EXISTS: "one with this name exists already",
  FAILED_PRECONDITION: "the current state does not allow this call",
  TOO_MANY_REQUESTS: "too many wrong admin secrets from this address; try again in 900 s",
  PAYLOAD_TOO_LARGE: "the request body is larger than 1048576 bytes",
  UNSUPPORTED_MEDIA_TYPE: "the body must be sent with Content-Type: application/json, not text/plain",
};

/** TOO_MANY_REQUESTS of an API without the admin secret: its calls only, no lockout of wrong secrets. */
const RATE_LIMIT_ONLY = { meaning: "Too many calls from this address; retry after Retry-After seconds.", example: "too many calls from this address; try again in 1 s" };

const errorContent = (code: string, message: string, schema: "Error" | "OAuthError" = "Error") => ({
  "application/json": { schema: ref(schema), example: schema === "Error" ? { code, message } : { error: "invalid_request", error_description: message } },
});

const retryAfter = { "Retry-After": { description: "Seconds to wait before another call.", schema: { type: "integer", minimum: 0 } } };

/** A message the server gives for a bad input of this operation, as the example of its 400. */
function invalidExample(op: IrOperation): string {
  const required = op.input.fields.find((f) => f.required);
  if (required) return `${required.name}: is required`;
  if (op.exactlyOneOf.length > 0) return `give exactly one of ${op.exactlyOneOf.join(", ")} (got none)`;
  if (op.atLeastOneOf.length > 0) return `give at least one of ${op.atLeastOneOf.join(", ")}`;
  return "unknown_field: is not a field of this request";
}

function unauthenticatedExample(ir: Ir, op: IrOperation): string {
  const scheme = schemeOf(ir, op);
  const words = ir.api.secretNames && { secret: ir.api.secretNames.words, session: ir.api.secretNames.sessionWords };
  const credentials = credentialsOf({ adminSecretHeader: ir.api.adminSecretHeader, apiKeyHeader: ir.api.apiKeyHeader, features: ir.api.features }, words);
  if (op.authAnyOf.length > 1) {
    const schemes = schemesOf(ir, op).map(({ scheme: s }) => ({ kind: s.kind, ...(s.token ? { token: s.token } : {}) }));
    return needsAnyOfText(schemes, op.pascalName, credentials);
  }
  switch (scheme.kind) {
    case "none":
      return "the credentials are not valid";
    case "bearer":
      return scheme.token !== "access"
        ? `${op.pascalName} needs a bearer token of kind ${scheme.token}: send it as Authorization: Bearer <token>`
        : `${op.pascalName} needs a signed-in user: send an access token as Authorization: Bearer <token>`;
    case "api_key":
      return `${op.pascalName} needs ${credentials.apiKey}`;
    case "secret":
      return `${op.pascalName} needs ${credentials.secret}`;
  }
}

/** Every answer an operation can give: 200, one response per error code it may answer, and the server's own faults. */
function responsesOf(ir: Ir, op: IrOperation): Schema {
  const post = !op.rest!.inQuery;
  const status = op.rest!.status;
  // 204: the answer is the status alone.
  const ok: Schema =
    status === 204 ? { description: `Done: ${op.name} answers no content.` } : { description: `Answer of ${op.name}.`, content: { "application/json": { schema: ref(op.output.name) } } };
  const headers: Schema = {};
  if (op.idempotencyKey) {
    headers["Idempotent-Replayed"] = {
      description: "true when this is the first answer to an earlier request with the same Idempotency-Key, given again.",
      schema: { type: "string", enum: ["true"] },
    };
  }
  if (op.setsCookies.length > 0) {
    headers["Set-Cookie"] = { description: `May set the cookie${op.setsCookies.length > 1 ? "s" : ""} ${op.setsCookies.join(", ")} (HttpOnly, SameSite=Strict).`, schema: { type: "string" } };
  }
  for (const binding of op.rest!.responseHeaders) {
    const field = op.output.fields.find((f) => f.name === binding.field)!;
    const when = field.required ? "" : " when it has one";
    headers[binding.header] = {
      description: `The answer's ${field.name}, as in its body${when}, where it is printable ASCII (a header carries no other text).`,
      schema: fieldSchema(ir, { ...field, required: true }, true),
    };
  }
  if (Object.keys(headers).length > 0) ok.headers = headers;
  // A browser's route answers with a redirect to its output's location.
  const responses: Schema =
    op.rest!.answer === "redirect"
      ? { "302": { description: `Redirect of ${op.name}: the browser goes on to Location.`, headers: { Location: { description: "Where the browser goes next.", schema: { type: "string" } } } } }
      : { [String(status)]: ok };
  const codes = [...op.errorCodes, ...(post ? ["PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"] : [])];
  if (op.surface === "oauth") {
    // RFC 6749 §5.2: 400 for every refusal but a failed client authentication (401).
    responses["400"] = {
      description: "An RFC 6749 error: invalid_request, invalid_grant, unsupported_grant_type, invalid_scope or invalid_target.",
      content: errorContent("", invalidExample(op), "OAuthError"),
    };
    if (codes.includes("UNAUTHENTICATED"))
      responses["401"] = { description: "invalid_client: the client could not be authenticated.", content: errorContent("", "the client could not be authenticated", "OAuthError") };
    for (const code of ["PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE", "TOO_MANY_REQUESTS"].filter((c) => codes.includes(c))) {
      responses[String(ERROR_WIRE[code as ErrorCode].http)] = {
        description: CODE_MEANING[code],
        content: errorContent("", EXAMPLE_MESSAGE[code]!, "OAuthError"),
        ...(code === "TOO_MANY_REQUESTS" ? { headers: retryAfter } : {}),
      };
    }
    responses.default = { $ref: "#/components/responses/OAuthServerError" };
    return responses;
  }
  for (const code of codes) {
    const status = String(ERROR_WIRE[code as ErrorCode].http);
    if (code === "INVALID_ARGUMENT") responses[status] = { description: CODE_MEANING[code], content: errorContent(code, invalidExample(op)) };
    else if (code === "UNAUTHENTICATED") responses[status] = { description: CODE_MEANING[code], content: errorContent(code, unauthenticatedExample(ir, op)) };
    else responses[status] = { $ref: `#/components/responses/${SHARED_RESPONSES[code]}` };
  }
  responses.default = { $ref: "#/components/responses/ServerError" };
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => (a === "default" ? 1 : b === "default" ? -1 : a.localeCompare(b))));
}

/** The shared responses some operation refers to: an unused component is noise to readers and linters. */
function usedResponses(shared: Schema, paths: Record<string, Record<string, Schema>>): Schema {
  const text = JSON.stringify(paths);
  return Object.fromEntries(Object.entries(shared).filter(([name]) => text.includes(`"#/components/responses/${name}"`)));
}

function sharedResponses(tokenRoutes: boolean, adminSecret: boolean): Schema {
  const shared: Schema = {};
  for (const [code, name] of Object.entries(SHARED_RESPONSES)) {
    const rateLimitOnly = code === "TOO_MANY_REQUESTS" && !adminSecret;
    shared[name] = {
      description: `${code}: ${rateLimitOnly ? RATE_LIMIT_ONLY.meaning : CODE_MEANING[code]}`,
      content: errorContent(code, rateLimitOnly ? RATE_LIMIT_ONLY.example : EXAMPLE_MESSAGE[code]!),
      ...(code === "TOO_MANY_REQUESTS" ? { headers: retryAfter } : {}),
    };
  }
  shared.ServerError = {
    description: "INTERNAL (500), UNIMPLEMENTED (501: the service does not implement this operation) or UNAVAILABLE (503: a store it needs is down; retry later).",
    content: errorContent("INTERNAL", "the call failed; see the server log"),
  };
  if (tokenRoutes) shared.OAuthServerError = { description: "A fault of the server (500, 501 or 503).", content: errorContent("", "the call failed; see the server log", "OAuthError") };
  return shared;
}

function operationDescription(ir: Ir, op: IrOperation): string {
  return [
    op.description,
    op.destructive ? "**Destructive**: permanently changes or removes data." : "",
    op.deprecated ? `**Deprecated**: ${op.deprecated}` : "",
    `Auth: ${authWords(ir, op)}.`,
    ...operationRuleSentences(op),
    ...idempotencySentences(op),
    `Protocols: ${op.protocols.map((p) => `${p} (from server ${op[p]!.since})`).join(", ")}.`,
  ]
    .filter(Boolean)
    .join(" ");
}

function operationObject(ir: Ir, op: IrOperation): Schema {
  const rest = op.rest!;
  const body: Schema = {};
  const operation: Schema = {
    operationId: op.name,
    summary: op.title,
    description: operationDescription(ir, op),
    tags: [op.group],
  };
  if (op.deprecated) operation.deprecated = true;
  // A token route authenticates its client (HTTP Basic or in the body); one that takes a bearer token says so as the others do.
  operation.security = securityOf(ir, op);
  // Fields a {field} segment carries are path parameters, those the route binds to headers header
  // parameters; the others go in the query (GET, DELETE) or the body.
  const inPath = new Set(rest.pathParams);
  const inHeaders = new Map(rest.headerParams.map((b) => [b.field, b.header]));
  const parameters = op.input.fields.filter((f) => inPath.has(f.name)).map((f) => ({ name: f.name, in: "path", required: true, schema: fieldSchema(ir, f, false) }));
  const others = op.input.fields.filter((f) => !inPath.has(f.name) && !inHeaders.has(f.name));
  if (rest.inQuery) parameters.push(...others.map((f) => ({ name: f.name, in: "query", required: f.required, schema: fieldSchema(ir, f, false) })));
  for (const field of op.input.fields) {
    const header = inHeaders.get(field.name);
    // A header is text or absent: never null.
    if (header !== undefined) parameters.push({ name: header, in: "header", required: field.required, schema: fieldSchema(ir, { ...field, required: true }, false) });
  }
  const headerParameters = op.idempotencyKey ? [{ $ref: "#/components/parameters/IdempotencyKey" }] : [];
  if (parameters.length + headerParameters.length > 0) operation.parameters = [...parameters, ...headerParameters];
  if (!rest.inQuery && others.length > 0) {
    // The body is the input message, or (when the path carries some of its fields) the rest of it, inline.
    const schema = others.length === op.input.fields.length ? ref(op.input.name) : messageSchema(ir, { ...op.input, fields: others }, op);
    // Required whenever an empty body ({}) would be refused: a required field, or a rule that asks
    // for one of several fields (fuzzers then never send a body the server must refuse).
    body.required = others.some((f) => f.required) || op.exactlyOneOf.length > 0 || op.atLeastOneOf.length > 0;
    // A form has no null, so its schema (inline: it is this operation's alone) has none either.
    body.content =
      rest.body === "form_or_json"
        ? { "application/x-www-form-urlencoded": { schema: messageSchema(ir, { ...op.input, fields: others }, op, true) }, "application/json": { schema } }
        : { "application/json": { schema } };
    operation.requestBody = body;
  }
  operation.responses = responsesOf(ir, op);
  operation["x-kind"] = op.kind;
  operation["x-destructive"] = op.destructive;
  operation["x-idempotent"] = op.idempotent;
  operation["x-auth"] = op.auth;
  if (op.authAnyOf.length > 1) operation["x-auth-any-of"] = op.authAnyOf.map((r) => r.scheme);
  operation["x-protocols"] = op.protocols;
  operation["x-min-versions"] = Object.fromEntries(op.protocols.map((p) => [p, op[p]!.since]));
  operation["x-error-codes"] = op.errorCodes;
  if (op.grpc) operation["x-grpc"] = `${op.grpc.serviceTypeName}/${op.grpc.rpc}`;
  if (op.pagination.style !== "none") operation["x-pagination"] = op.pagination;
  return operation;
}

export function buildOpenapi(ir: Ir): Schema {
  const restOps = ir.operations.filter((op) => op.rest);
  // An input is a schema of its own when it is the whole body; a query string, a path and headers
  // carry their fields as parameters and a body without them is inline, so only the types of its
  // fields are reached (INLINE stands for it). A redirect and a 204 answer no body.
  const INLINE = "";
  const { messages: referenced, enums: usedEnums } = typesReached(
    ir,
    restOps.flatMap((op) => {
      const rest = op.rest!;
      const wholeBody = !rest.inQuery && rest.pathParams.length === 0 && rest.headerParams.length === 0;
      const input = op.input.fields.length === 0 ? [] : [wholeBody ? op.input : { ...op.input, name: INLINE }];
      return [...input, ...(rest.answer !== "redirect" && rest.status !== 204 ? [op.output] : [])];
    }),
  );
  referenced.delete(INLINE);

  const paths: Record<string, Record<string, Schema>> = {};
  for (const op of restOps) {
    const entry = (paths[op.rest!.path] ??= {});
    entry[op.rest!.method.toLowerCase()] = operationObject(ir, op);
  }

  const schemas: Record<string, Schema> = {};
  for (const e of ir.enums.filter((e) => usedEnums.has(e.name))) {
    schemas[e.name] = enumSchema(e);
  }
  const operationOfInput = new Map(ir.operations.map((op) => [op.input.name, op]));
  for (const message of ir.messages.filter((m) => referenced.has(m.name))) {
    schemas[message.name] = messageSchema(ir, message, operationOfInput.get(message.name));
    if (message.discriminator) Object.assign(schemas, taggedUnionBranches(ir, message));
  }
  schemas.Error = {
    type: "object",
    description: "The error body of every REST route but the token routes.",
    required: ["code", "message"],
    properties: {
      code: { type: "string", enum: [...ERROR_CODES] },
      message: { type: "string" },
    },
  };
  // Only an API with token routes answers RFC 6749 errors.
  const tokenRoutes = restOps.some((op) => op.surface === "oauth");
  if (tokenRoutes) {
    schemas.OAuthError = {
      type: "object",
      description: "RFC 6749 error body of the token routes.",
      required: ["error"],
      properties: {
        error: { type: "string", enum: [...OAUTH_ERROR_CODES] },
        error_description: { type: "string" },
      },
    };
  }

  const usedGroups = new Set(restOps.map((op) => op.group));
  const used = authSchemesOf(ir);
  return {
    openapi: "3.1.0",
    info: {
      title: ir.api.title,
      version: ir.api.version,
      description: [
        ir.api.description,
        "Absent and null fields are not given; so are empty lists and maps, which protobuf cannot tell from unset ones. An empty string is a value, except where a field says it means not given.",
        `Bodies are JSON (Content-Type: application/json; the token routes also take forms), at most ${ir.api.limits.requestBytes} bytes. Errors answer {code, message}, the token routes RFC 6749 {error, error_description}; no message repeats a value the caller sent.`,
      ]
        .filter(Boolean)
        .join("\n\n"),
      ...((ir.api.metadata.homepage ?? ir.api.metadata.repository) ? { contact: { name: ir.api.title, url: ir.api.metadata.homepage ?? ir.api.metadata.repository } } : {}),
      ...(ir.api.metadata.license ? { license: { name: ir.api.metadata.license, identifier: ir.api.metadata.license } } : {}),
    },
    servers: [{ url: "{base_url}", variables: { base_url: { default: `http://localhost:${ir.api.httpPort}` } } }],
    tags: ir.groups.filter((g) => usedGroups.has(g.name)).map((g) => ({ name: g.name, description: g.title })),
    paths,
    components: {
      ...(ir.operations.some((op) => op.rest && op.idempotencyKey)
        ? {
            parameters: {
              IdempotencyKey: {
                name: "Idempotency-Key",
                in: "header",
                required: false,
                description: "Makes a retried write safe: a repeat with this key and the same input is answered the first answer (Idempotent-Replayed: true) for 24 hours without running again.",
                schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x21-\\x7E]{1,255}$" },
              },
            },
          }
        : {}),
      securitySchemes: securitySchemesOf(ir, used),
      schemas,
      responses: usedResponses(sharedResponses(tokenRoutes, ir.api.features.adminSecret), paths),
    },
  };
}

export function emitOpenapi(openapiYaml: string): GeneratedFile[] {
  return [{ path: OPENAPI_PATH, content: openapiYaml }];
}
