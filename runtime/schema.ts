// The shape of the generated schema value (generated/schema.ts): everything the runtime needs to
// know about operations, messages and enums, as data that server and client code reflect on.

export type Protocol = "graphql" | "rest" | "grpc";
export const PROTOCOLS: readonly Protocol[] = ["graphql", "rest", "grpc"];

export type AuthLevel = "public" | "user" | "admin_secret" | "org_admin" | "super_admin" | "scim_token";
export type Surface = "admin" | "user" | "oauth";
export type ScalarKind = "string" | "bool" | "int32" | "int64" | "float64" | "map" | "json";

export interface FieldSpec {
  /** snake_case wire name. */
  readonly name: string;
  readonly kind: ScalarKind | "enum" | "message";
  /** Enum or message name, for kind enum / message. */
  readonly ref?: string;
  readonly list: boolean;
  readonly required: boolean;
  readonly secret?: boolean;
  readonly format?: "slug" | "email" | "url" | "domain";
  /** Property name of the field on protobuf-es messages. */
  readonly protoName: string;
}

export interface MessageSpec {
  readonly name: string;
  readonly fields: readonly FieldSpec[];
}

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
  readonly auth: AuthLevel;
  readonly pagination: { readonly style: "page" | "token"; readonly itemsField: string } | null;
  readonly exactlyOneOf: readonly string[];
  readonly deprecated: string | null;
  /** Message names (keys of ApiSchema.messages). */
  readonly input: string;
  readonly output: string;
  readonly graphql: { readonly since: string; readonly root: "Query" | "Mutation"; readonly document: string; readonly variableRequired: boolean | null } | null;
  readonly rest: { readonly since: string; readonly method: "GET" | "POST"; readonly path: string; readonly body: "json" | "form_or_json" } | null;
  readonly grpc: { readonly since: string; readonly service: string; readonly rpc: string } | null;
}

export interface ApiSchema {
  readonly name: string;
  readonly title: string;
  readonly version: string;
  readonly adminSecretHeader: string;
  readonly orgAdminRole: string;
  readonly grpcPort: number;
  readonly enums: Readonly<Record<string, EnumSpec>>;
  readonly messages: Readonly<Record<string, MessageSpec>>;
  readonly operations: Readonly<Record<string, OperationSpec>>;
}

/** Protocols that carry an operation, in the canonical order. */
export function protocolsOf(operation: OperationSpec): Protocol[] {
  return PROTOCOLS.filter((protocol) => operation[protocol] !== null);
}
