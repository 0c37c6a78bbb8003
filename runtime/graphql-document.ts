// The GraphQL document of an operation, built from the schema value: what the clients send, and
// what the server's GraphiQL page offers as examples (so both live outside the client runtime).
import type { MessageSchema, OperationSpec } from "./schema.js";

/** The selection of every field of a message, nested messages included. */
function selection(schema: MessageSchema, messageName: string): string {
  return schema.messages[messageName]!.fields.map((f) => (f.kind === "message" ? `${f.name} { ${selection(schema, f.ref!)} }` : f.name)).join(" ");
}

/** The document a client sends for an operation: one root field, every answer field selected. */
export function graphqlDocument(schema: MessageSchema, operation: OperationSpec): string {
  const { root, params } = operation.graphql!;
  const keyword = root === "Query" ? "query" : "mutation";
  const body = selection(schema, operation.output);
  return params
    ? `${keyword} ${operation.name}($params: ${params.type}${params.required ? "!" : ""}) { ${operation.name}(params: $params) { ${body} } }`
    : `${keyword} ${operation.name} { ${operation.name} { ${body} } }`;
}
