// The GraphQL pass: what GraphQL cannot express. Every type an operation carried over graphql
// reaches becomes a GraphQL object type, which needs a field; no type or enum may take a name the
// SDL already uses.
import { customGraphqlScalars } from "../../sdk/scalars.js";
import type { IrMessage } from "../ir.js";
import type { IrContext } from "./context.js";

/** Names GraphQL or this toolchain's SDL already uses: root types, built-in and custom scalars. */
const GRAPHQL_RESERVED = new Set(["Query", "Mutation", "Subscription", "String", "Int", "Float", "Boolean", "ID", ...customGraphqlScalars().map((scalar) => scalar.name)]);

/** Reports each shared type without fields that an operation carried over graphql reaches. */
export function checkGraphqlReach(context: IrContext): void {
  const reachedByGraphql = new Set<string>();
  const reach = (message: IrMessage) => {
    if (reachedByGraphql.has(message.name)) return;
    reachedByGraphql.add(message.name);
    for (const field of message.fields) {
      const target = field.type.kind === "message" ? context.sharedByName.get(field.type.name) : undefined;
      if (target) reach(target);
    }
  };
  for (const op of context.operations) {
    if (!op.graphql) continue;
    if (op.input.fields.length > 0) reach(op.input);
    reach(op.output);
  }
  for (const message of context.sharedMessages) {
    if (message.fields.length === 0 && reachedByGraphql.has(message.name)) {
      context.reportAt("empty-graphql-type", message.position, `type '${message.name}'`, "a type carried over graphql must have at least one field");
    }
  }
}

/** Reports each type, then each enum, named like a GraphQL root type or scalar. */
export function checkGraphqlReservedNames(context: IrContext): void {
  for (const [section, names] of [
    ["type", Object.keys(context.raw.types ?? {})],
    ["enum", Object.keys(context.raw.enums ?? {})],
  ] as const) {
    for (const name of names) {
      if (GRAPHQL_RESERVED.has(name)) {
        context.reportAt(
          "graphql-reserved-name",
          context.loaded.locate([section === "type" ? "types" : "enums", name], "key"),
          `${section} '${name}'`,
          `its type name '${name}' is reserved in GraphQL; rename it`,
        );
      }
    }
  }
}
