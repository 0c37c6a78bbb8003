// How operations are shown to people, shared by the API reference and the package READMEs: sample
// inputs, the GraphQL, REST and gRPC form of one call, and the table of operations.
import {
  clientOf,
  PROTOCOLS,
  enumByName,
  mapValueName,
  messageByName,
  schemeOf,
  takesScheme,
  type Ir,
  type IrAuthScheme,
  type IrField,
  type IrMessage,
  type IrOperation,
  type Protocol,
} from "../ir/ir.js";
import { SCALAR_SPECS, scalarLabel } from "../sdk/scalars.js";
import { fillHeaders, fillPath } from "../../runtime/client/rest.js";

export const PROTOCOL_LABEL: Record<Protocol, string> = { graphql: "GraphQL", rest: "REST", grpc: "gRPC" };

/** The client classes an API has (ir.clients): one only where it has operations for it. */
export const clientClasses = (ir: Ir): string[] => ir.clients.map((c) => c.name);

/** Who may call with an auth scheme, in words, as the docs and contracts say it (the manifest's description, or its kind's). */
export const authText = (ir: Ir, scheme: string): string => schemeOf(ir, { auth: scheme }).description;

/** The auth schemes the API's operations use, in declaration order: the docs' legend lists no other. */
export const authSchemesOf = (ir: Ir): IrAuthScheme[] => ir.api.authSchemes.filter((s) => ir.operations.some((op) => takesScheme(op, s.name)));

/** "the scope a" / "the scopes a and b": the scopes a bearer token must grant, in words. */
export const scopesText = (scopes: readonly string[]): string =>
  `the scope${scopes.length === 1 ? "" : "s"} ${scopes.length === 1 ? scopes[0] : `${scopes.slice(0, -1).join(", ")} and ${scopes[scopes.length - 1]}`}`;

/**
 * Who may call an operation, in words, as the contracts and docs say it: its scheme's description,
 * with the scopes its token must grant; where it takes several schemes, "any one of:" each of them.
 */
export function authWords(ir: Ir, op: Pick<IrOperation, "authAnyOf">): string {
  const alternatives = op.authAnyOf.map((r) => `${authText(ir, r.scheme)}${r.scopes.length > 0 ? `, with ${scopesText(r.scopes)}` : ""}`);
  return alternatives.length === 1 ? alternatives[0]! : `any one of: ${alternatives.join("; ")}`;
}

/** Whether an operation's auth says more than one scheme's name: several schemes, or scopes. */
export const hasAuthChoice = (op: Pick<IrOperation, "authAnyOf">): boolean => op.authAnyOf.length > 1 || op.authAnyOf.some((r) => r.scopes.length > 0);

/**
 * The sentence of the GraphQL and proto descriptions on auth: only where an operation takes
 * several schemes or scopes (the OpenAPI states every operation's security, and the docs every auth).
 */
export const authSentences = (ir: Ir, op: Pick<IrOperation, "authAnyOf">): string[] => (hasAuthChoice(op) ? [`Auth: ${authWords(ir, op)}.`] : []);

/** The schemes an operation takes, by name with their scopes, as the code's doc comments say them (staff_key or reader (scope books:write)). */
export const authSummary = (op: Pick<IrOperation, "authAnyOf">): string =>
  op.authAnyOf.map((r) => `${r.scheme}${r.scopes.length > 0 ? ` (scope${r.scopes.length === 1 ? "" : "s"} ${r.scopes.join(", ")})` : ""}`).join(" or ");

/** The schemes an operation takes, by name, as the docs list them (`staff_key` or `reader`). */
export const authNames = (op: Pick<IrOperation, "authAnyOf">): string => op.authAnyOf.map((r) => `\`${r.scheme}\``).join(" or ");

/** The shell variables the examples use for credentials and addresses. */
export const SHELL_VARIABLES = {
  serviceUrl: "$SERVICE_URL",
  adminSecret: "$ADMIN_SECRET",
  accessToken: "$ACCESS_TOKEN",
  scimToken: "$SCIM_TOKEN",
  apiKey: "$API_KEY",
} as const;

/** The header an example call sends for the operation's auth, if any. */
export function authHeader(ir: Ir, op: IrOperation): { name: string; value: string } | undefined {
  const scheme = schemeOf(ir, op);
  switch (scheme.kind) {
    case "none":
      return undefined;
    case "bearer":
      return { name: "authorization", value: `Bearer ${scheme.token === "scim" ? SHELL_VARIABLES.scimToken : SHELL_VARIABLES.accessToken}` };
    case "api_key":
      return { name: ir.api.apiKeyHeader, value: SHELL_VARIABLES.apiKey };
    case "secret":
      return { name: ir.api.adminSecretHeader, value: SHELL_VARIABLES.adminSecret };
  }
}

// ---------------------------------------------------------------- sample values

/** How enum values are written: wire names (GraphQL, REST, clients) or proto names (gRPC JSON). */
export type EnumForm = "wire" | "proto";

function sampleScalar(ir: Ir, field: IrField, enumForm: EnumForm): unknown {
  // A map<V> holds one entry of a sample V.
  if (field.mapValue) return { key: sampleScalar(ir, { ...field, type: field.mapValue, mapValue: undefined, list: false }, enumForm) };
  const type = field.type;
  if (type.kind === "enum") {
    const first = enumByName(ir, type.name).values[0];
    return first === undefined ? "" : enumForm === "wire" ? first.name : first.protoName;
  }
  if (type.kind === "message") return sampleMessage(ir, messageByName(ir, type.name), "required", enumForm);
  const sample = SCALAR_SPECS[type.scalar].sample;
  if (sample === "text") {
    if (field.format) return ir.formats[field.format]!.example;
    // A placeholder that is itself valid input, as the examples are run as printed.
    return `<${field.name}>`.length >= (field.constraints.minLength ?? 0) ? `<${field.name}>` : `<${field.name}, at least ${field.constraints.minLength} characters>`;
  }
  if (sample === "number") return Math.max(1, field.constraints.minimum ?? 1);
  return structuredClone(sample.value);
}

/** A sample of `message`: its required fields (or all of them), lists with one item; of a union, its first variant. */
export function sampleMessage(ir: Ir, message: IrMessage, which: "required" | "all", enumForm: EnumForm = "wire"): Record<string, unknown> {
  const sample: Record<string, unknown> = {};
  for (const field of message.oneOf ? message.fields.slice(0, 1) : message.fields) {
    if (which === "required" && !field.required && !message.oneOf) continue;
    const value = sampleScalar(ir, field, enumForm);
    sample[field.name] = field.list ? [value] : value;
  }
  return sample;
}

/**
 * A valid sample input of an operation: the required fields, the first of an exactly-one-of or
 * at-least-one-of rule, the fields a required-if rule then asks for, and confirmations equal to
 * what they confirm.
 */
export function sampleInput(ir: Ir, op: IrOperation, enumForm: EnumForm = "wire"): Record<string, unknown> {
  // Built in the wire form, which the rules name their values in (required_if: key_source_type
  // equals jwks_url); the proto form's enum names are put in at the end.
  const sample = sampleMessage(ir, op.input, "required");
  const add = (field: IrField | undefined) => {
    if (field && sample[field.name] === undefined) sample[field.name] = field.list ? [sampleScalar(ir, field, "wire")] : sampleScalar(ir, field, "wire");
  };
  add(op.input.fields.find((f) => f.name === op.exactlyOneOf[0]));
  if (!op.atLeastOneOf.some((name) => sample[name] !== undefined)) add(op.input.fields.find((f) => f.name === op.atLeastOneOf[0]));
  for (const field of op.input.fields) {
    const condition = field.constraints.requiredIf;
    if (condition && (condition.equals === undefined ? sample[condition.field] !== undefined : sample[condition.field] === condition.equals)) add(field);
  }
  for (const field of op.input.fields) {
    const confirmed = field.constraints.sameAs;
    if (confirmed && sample[field.name] !== undefined) sample[field.name] = sample[confirmed];
  }
  return enumForm === "wire" ? sample : protoEnumNames(ir, op.input, sample);
}

/** A sample with each tagged union's tag beside its variant (first), as a REST body carries it. */
function withUnionTags(ir: Ir, message: IrMessage, value: Record<string, unknown>): Record<string, unknown> {
  const tagged: Record<string, unknown> = {};
  const given = message.discriminator ? message.fields.find((field) => value[field.name] !== undefined) : undefined;
  if (given) tagged[message.discriminator!.property] = given.name;
  for (const [name, item] of Object.entries(value)) {
    const field = message.fields.find((f) => f.name === name);
    const nested = field?.type.kind === "message" ? messageByName(ir, field.type.name) : undefined;
    const tag = (one: unknown) => (nested && typeof one === "object" && one !== null ? withUnionTags(ir, nested, one as Record<string, unknown>) : one);
    tagged[name] = Array.isArray(item) ? item.map(tag) : tag(item);
  }
  return tagged;
}

/** `value` (a sample of `message` in the wire form) with its enum values written as proto names. */
function protoEnumNames(ir: Ir, message: IrMessage, value: Record<string, unknown>): Record<string, unknown> {
  const converted: Record<string, unknown> = { ...value };
  for (const field of message.fields) {
    const item = value[field.name];
    if (item === undefined) continue;
    const convert = (one: unknown): unknown =>
      field.type.kind === "enum"
        ? (enumByName(ir, field.type.name).values.find((v) => v.name === one)?.protoName ?? one)
        : field.type.kind === "message"
          ? protoEnumNames(ir, messageByName(ir, field.type.name), one as Record<string, unknown>)
          : one;
    converted[field.name] = Array.isArray(item) ? item.map(convert) : convert(item);
  }
  return converted;
}

/** A value as a JavaScript literal: `{ id: "<id>", tags: ["a"] }`. */
export function jsLiteral(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(jsLiteral).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).map(([key, item]) => `${/^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key)}: ${jsLiteral(item)}`);
    return entries.length === 0 ? "{}" : `{ ${entries.join(", ")} }`;
  }
  return JSON.stringify(value);
}

// ---------------------------------------------------------------- one call, three protocols

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

function selection(ir: Ir, message: IrMessage, indent: string): string[] {
  return message.fields.flatMap((field) =>
    field.type.kind === "message" ? [`${indent}${field.name} {`, ...selection(ir, messageByName(ir, field.type.name), `${indent}  `), `${indent}}`] : [`${indent}${field.name}`],
  );
}

/** The GraphQL document of an operation, every answer field selected (as the clients send it). */
export function graphqlDocument(ir: Ir, op: IrOperation): string {
  const graphql = op.graphql;
  if (!graphql) throw new Error(`${op.name} is not carried over graphql`);
  const keyword = graphql.rootType === "Query" ? "query" : "mutation";
  const variables = graphql.argument ? `($params: ${op.input.graphqlInputName}${graphql.argument.required ? "!" : ""})` : "";
  const argument = graphql.argument ? "(params: $params)" : "";
  return [`${keyword} ${op.name}${variables} {`, `  ${graphql.field}${argument} {`, ...selection(ir, op.output, "    "), "  }", "}"].join("\n");
}

/** The variables sent with the GraphQL document, or undefined when it takes none. */
export function graphqlVariables(ir: Ir, op: IrOperation): Record<string, unknown> | undefined {
  return op.graphql?.argument ? { params: sampleInput(ir, op) } : undefined;
}

/** The REST call as a curl command line. */
export function restCommand(ir: Ir, op: IrOperation): string {
  const rest = op.rest;
  if (!rest) throw new Error(`${op.name} is not carried over rest`);
  const header = authHeader(ir, op);
  // The path's {field} segments and the route's header fields take the sample's values, as the
  // TypeScript client fills them; the other fields go in the query or the body.
  const filled = fillPath(rest.path, rest.pathParams, withUnionTags(ir, op.input, sampleInput(ir, op)));
  const { headers, rest: input } = fillHeaders(Object.fromEntries(rest.headerParams.map((b) => [b.field, b.header])), filled.rest);
  const path = filled.path;
  const headerLines = [...(header ? [`  -H "${header.name}: ${header.value}"`] : []), ...Object.entries(headers).map(([name, value]) => `  -H ${shellQuote(`${name}: ${value}`)}`)];
  if (rest.inQuery) {
    const query = new URLSearchParams(Object.entries(input).map(([key, value]) => [key, String(value)])).toString();
    return [`curl ${rest.method === "GET" ? "" : `-X ${rest.method} `}"${SHELL_VARIABLES.serviceUrl}${path}${query ? `?${query}` : ""}"`, ...headerLines].join(" \\\n");
  }
  return [`curl -X ${rest.method} "${SHELL_VARIABLES.serviceUrl}${path}"`, ...headerLines, `  -H "content-type: application/json"`, `  -d ${shellQuote(JSON.stringify(input))}`].join(" \\\n");
}

/** The gRPC call as a grpcurl command line, reading the .proto files of this repository. */
export function grpcCommand(ir: Ir, op: IrOperation): string {
  const grpc = op.grpc;
  if (!grpc) throw new Error(`${op.name} is not carried over grpc`);
  const service = ir.proto.services.find((s) => s.name === grpc.service)!;
  const header = authHeader(ir, op);
  return [
    `grpcurl -plaintext -import-path proto -proto ${service.protoFile}`,
    ...(header ? [`  -H "${header.name}: ${header.value}"`] : []),
    `  -d ${shellQuote(JSON.stringify(sampleInput(ir, op, "proto")))}`,
    `  localhost:${ir.api.grpcPort} ${grpc.serviceTypeName}/${grpc.rpc}`,
  ].join(" \\\n");
}

/** One protocol's form of a call, as the API reference shows it. */
export interface CallForm {
  protocol: Protocol;
  /** Where the request goes, when the code does not say (GraphQL). */
  endpoint?: string;
  /** The credentials header to send, when the code does not say (GraphQL). */
  header?: { name: string; value: string };
  language: "graphql" | "sh";
  code: string;
  /** GraphQL variables, when the document takes any. */
  variables?: Record<string, unknown>;
}

/** The same call over each protocol that carries the operation. */
export function callForms(ir: Ir, op: IrOperation): CallForm[] {
  const forms: CallForm[] = [];
  if (op.graphql) {
    const variables = graphqlVariables(ir, op);
    const header = authHeader(ir, op);
    forms.push({
      protocol: "graphql",
      endpoint: `POST ${SHELL_VARIABLES.serviceUrl}/graphql`,
      ...(header ? { header } : {}),
      language: "graphql",
      code: graphqlDocument(ir, op),
      ...(variables ? { variables } : {}),
    });
  }
  if (op.rest) forms.push({ protocol: "rest", language: "sh", code: restCommand(ir, op) });
  if (op.grpc) forms.push({ protocol: "grpc", language: "sh", code: grpcCommand(ir, op) });
  return forms;
}

/** The generated client method that makes the call: `AdminClient.deleteUser()`. */
export const clientCall = (ir: Ir, op: IrOperation) => `${clientOf(ir, op).name}.${op.camelName}()`;

/** A field's type as the reference shows it; `typeName` is the enum or type it links to. */
export function fieldType(field: IrField): { label: string; typeName?: string } {
  if (field.mapValue) return { label: `map<${mapValueName(field.mapValue)}>`, ...(field.mapValue.kind === "enum" ? { typeName: field.mapValue.name } : {}) };
  if (field.type.kind === "scalar") return { label: scalarLabel(field.type.scalar) + (field.format ? ` (${field.format})` : "") };
  return { label: field.type.name, typeName: field.type.name };
}

/** The call of a protocol in one line: root field, route, or RPC. */
export function bindingSummary(op: IrOperation, protocol: Protocol): string {
  if (protocol === "graphql") return op.graphql ? `${op.graphql.rootType === "Query" ? "query" : "mutation"} ${op.graphql.field}` : "";
  if (protocol === "rest") return op.rest ? `${op.rest.method} ${op.rest.path}` : "";
  return op.grpc ? `${op.grpc.serviceTypeName}/${op.grpc.rpc}` : "";
}

// ---------------------------------------------------------------- Markdown

/** Text safe inside one Markdown table cell. */
export const cell = (text: string) => text.replace(/\r?\n/g, " ").replace(/\|/g, "\\|");

export const fence = (language: string, code: string) => `\`\`\`${language}\n${code}\n\`\`\``;

/** The table of operations: protocols with minimum versions, destructive flag and auth. */
export function operationTable(ops: readonly IrOperation[], options: { link?: (op: IrOperation) => string; method?: (op: IrOperation) => string } = {}): string {
  const header = ["operation", ...(options.method ? ["method"] : []), "kind", ...PROTOCOLS.map((p) => `${PROTOCOL_LABEL[p]} since`), "destructive", "auth"];
  const rows = ops.map((op) => {
    const name = options.link ? `[\`${op.name}\`](${options.link(op)})` : `\`${op.name}\``;
    return [name, ...(options.method ? [`\`${options.method(op)}\``] : []), op.kind, ...PROTOCOLS.map((p) => op[p]?.since ?? "—"), op.destructive ? "**yes**" : "", authNames(op)];
  });
  return [header, header.map(() => "---"), ...rows].map((row) => `| ${row.join(" | ")} |`).join("\n");
}

/** "SAMLServiceProvider" -> "SAML service provider": a message name as the words of a sentence. */
export function messageWords(name: string): string {
  const words = name.match(/[A-Z]+(?![a-z])|[A-Z][a-z0-9]*|[a-z0-9]+/g) ?? [name];
  return words.map((word) => (word.length > 1 && word === word.toUpperCase() ? word : word.toLowerCase())).join(" ");
}

/** The refusal of a call over a protocol that does not carry its operation, worded as every SDK words it. */
export function notCarriedText(template: string, separator: string, method: string, example: { protocol: Protocol; protocols: readonly Protocol[] }): string {
  return template.replace("{operation}", method).replace("{protocol}", example.protocol).replace("{protocols}", example.protocols.join(separator));
}
