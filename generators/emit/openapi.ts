// OpenAPI 3.1 document of every REST route (the token routes included) from the IR.
import { ERROR_CODES, OAUTH_ERROR_CODES } from "../../runtime/errors.js";
import { messageByName, type Ir, type IrField, type IrMessage, type IrOperation, type Scalar } from "../ir.js";
import type { GeneratedFile } from "../writer.js";
import { describedField, fieldKeywords, itemKeywords, messageKeywords, operationRuleSentences } from "./rules.js";
import { toYaml } from "./yaml-text.js";

export const OPENAPI_PATH = "generated/openapi/openapi.yaml";

type Schema = Record<string, unknown>;

const SCALAR_SCHEMA: Record<Scalar, Schema> = {
  string: { type: "string" },
  bool: { type: "boolean" },
  int32: { type: "integer", format: "int32" },
  int64: { type: "integer", format: "int64" },
  float64: { type: "number", format: "double" },
  map: { type: "object", additionalProperties: { type: "string" } },
  json: { type: "object" },
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** A field's schema; an input field states every rule the server checks of it. */
function fieldSchema(ir: Ir, field: IrField, inAnswer = true): Schema {
  let item: Schema;
  if (field.type.kind === "scalar") item = { ...SCALAR_SCHEMA[field.type.scalar] };
  else item = ref(field.type.name);
  if (!inAnswer) item = { ...item, ...itemKeywords(ir, field) };
  let schema: Schema = field.list ? { type: "array", items: item } : item;
  if (!inAnswer) schema = { ...schema, ...fieldKeywords(field) };
  // A value that may be unset is null in answers; in requests anything not required may be null.
  if (inAnswer ? !field.alwaysInAnswer : !field.required && !field.list && !(field.type.kind === "scalar" && field.type.scalar === "map")) {
    schema = "$ref" in schema ? { anyOf: [schema, { type: "null" }] } : { ...schema, type: [schema.type, "null"] };
  }
  const annotations: Schema = {};
  const description = describedField(ir, field, !inAnswer);
  if (description) annotations.description = description;
  if (field.secret) annotations["x-secret"] = true;
  if (field.deprecated) annotations.deprecated = true;
  return { ...annotations, ...schema };
}

function messageSchema(ir: Ir, message: IrMessage, op: IrOperation | undefined): Schema {
  const schema: Schema = { type: "object" };
  // Answers carry every field that is never null; requests need only their required fields.
  const inAnswer = message.usedAsOutput && !message.usedAsInput;
  const description = [message.description, ...(op ? operationRuleSentences(op) : [])].filter(Boolean).join(" ");
  if (description) schema.description = description;
  const required = message.fields.filter((f) => (inAnswer ? f.alwaysInAnswer : f.required)).map((f) => f.name);
  if (required.length > 0) schema.required = required;
  schema.properties = Object.fromEntries(message.fields.map((f) => [f.name, fieldSchema(ir, f, inAnswer)]));
  schema.additionalProperties = false;
  return inAnswer ? schema : { ...schema, ...messageKeywords(message, op) };
}

const SECURITY: Record<string, Schema[]> = {
  public: [],
  user: [{ userToken: [] }],
  admin_secret: [{ adminSecret: [] }],
  org_admin: [{ adminSecret: [] }, { userToken: [] }],
  super_admin: [{ adminSecret: [] }],
  scim_token: [{ scimToken: [] }],
};

function operationObject(ir: Ir, op: IrOperation): Schema {
  const rest = op.rest!;
  const isToken = op.surface === "oauth";
  const body: Schema = {};
  const operation: Schema = {
    operationId: op.name,
    summary: op.description,
    tags: [op.group],
  };
  if (op.deprecated) {
    operation.deprecated = true;
    operation.description = `Deprecated: ${op.deprecated}`;
  }
  operation.security = SECURITY[op.auth];
  if (rest.method === "GET") {
    if (op.input.fields.length > 0) {
      operation.parameters = op.input.fields.map((f) => ({ name: f.name, in: "query", required: f.required, schema: fieldSchema(ir, f, false) }));
    }
  } else if (op.input.fields.length > 0) {
    const schema = ref(op.input.name);
    body.required = op.input.fields.some((f) => f.required);
    body.content =
      rest.body === "form_or_json"
        ? { "application/x-www-form-urlencoded": { schema }, "application/json": { schema } }
        : { "application/json": { schema } };
    operation.requestBody = body;
  }
  operation.responses = {
    "200": { description: `Answer of ${op.name}.`, content: { "application/json": { schema: ref(op.output.name) } } },
    default: { $ref: isToken ? "#/components/responses/OAuthError" : "#/components/responses/Error" },
  };
  operation["x-kind"] = op.kind;
  operation["x-destructive"] = op.destructive;
  operation["x-auth"] = op.auth;
  operation["x-protocols"] = op.protocols;
  operation["x-min-versions"] = Object.fromEntries(op.protocols.map((p) => [p, op[p]!.since]));
  if (op.grpc) operation["x-grpc"] = `${op.grpc.serviceTypeName}/${op.grpc.rpc}`;
  if (op.pagination.style !== "none") operation["x-pagination"] = op.pagination;
  return operation;
}

export function buildOpenapi(ir: Ir): Schema {
  const restOps = ir.operations.filter((op) => op.rest);
  const referenced = new Set<string>();
  const visit = (message: IrMessage) => {
    if (referenced.has(message.name)) return;
    referenced.add(message.name);
    for (const field of message.fields) {
      if (field.type.kind === "message") visit(messageByName(ir, field.type.name));
    }
  };
  for (const op of restOps) {
    if (op.input.fields.length > 0) visit(op.input);
    visit(op.output);
  }
  const usedEnums = new Set(
    ir.messages.filter((m) => referenced.has(m.name)).flatMap((m) => m.fields.flatMap((f) => (f.type.kind === "enum" ? [f.type.name] : []))),
  );

  const paths: Record<string, Record<string, Schema>> = {};
  for (const op of restOps) {
    const entry = (paths[op.rest!.path] ??= {});
    entry[op.rest!.method.toLowerCase()] = operationObject(ir, op);
  }

  const schemas: Record<string, Schema> = {};
  for (const e of ir.enums.filter((e) => usedEnums.has(e.name))) {
    schemas[e.name] = { type: "string", ...(e.description ? { description: e.description } : {}), enum: e.values.map((v) => v.name) };
  }
  const operationOfInput = new Map(ir.operations.map((op) => [op.input.name, op]));
  for (const message of ir.messages.filter((m) => referenced.has(m.name))) {
    schemas[message.name] = messageSchema(ir, message, operationOfInput.get(message.name));
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
  schemas.OAuthError = {
    type: "object",
    description: "RFC 6749 error body of the token routes.",
    required: ["error"],
    properties: {
      error: { type: "string", enum: [...OAUTH_ERROR_CODES] },
      error_description: { type: "string" },
    },
  };

  const usedGroups = new Set(restOps.map((op) => op.group));
  return {
    openapi: "3.1.0",
    info: { title: ir.api.title, version: ir.api.version, ...(ir.api.description ? { description: ir.api.description } : {}) },
    servers: [{ url: "{base_url}", variables: { base_url: { default: "http://localhost:8080" } } }],
    tags: ir.groups.filter((g) => usedGroups.has(g.name)).map((g) => ({ name: g.name, description: g.title })),
    paths,
    components: {
      securitySchemes: {
        adminSecret: { type: "apiKey", in: "header", name: ir.api.adminSecretHeader, description: "The server's --admin-secret." },
        userToken: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
        scimToken: { type: "http", scheme: "bearer", description: "The bearer token of an organization's SCIM endpoint." },
      },
      schemas,
      responses: {
        Error: { description: "An error of the fixed code set.", content: { "application/json": { schema: ref("Error") } } },
        OAuthError: { description: "An RFC 6749 error.", content: { "application/json": { schema: ref("OAuthError") } } },
      },
    },
  };
}

/** The OpenAPI document as YAML text. */
export function printOpenapi(ir: Ir): string {
  return toYaml(buildOpenapi(ir));
}

export function emitOpenapi(openapiYaml: string): GeneratedFile[] {
  return [{ path: OPENAPI_PATH, content: openapiYaml }];
}
