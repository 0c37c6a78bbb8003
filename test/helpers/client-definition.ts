// A ClientDefinition of any expanded schema, for tests that give a client a schema of their own
// (a renamed field, other features): each operation loads as its generated module would, from a
// part in the compact syntax of runtime/schema.ts.
import type { ClientDefinition } from "../../runtime/client/core.js";
import { compareVersions } from "../../runtime/client/version.js";
import { PROTOCOLS, protocolsOf, type ApiSchema, type FieldSpec, type OperationPart, type Protocol } from "../../runtime/schema.js";

const compactField = (field: FieldSpec) => `${field.name}:${field.ref ?? field.kind}${field.list ? "[]" : ""}${field.required ? "!" : ""}${field.secret ? "#secret" : ""}=${field.protoName}`;

export function clientDefinitionOf(schema: ApiSchema, surfaces: string[], overrides: Partial<ClientDefinition> = {}): ClientDefinition {
  const { enums, messages, operations, ...service } = schema;
  const part: OperationPart = {
    enums: Object.fromEntries(
      Object.values(enums).map((e) => [
        e.name,
        Object.entries(e.values)
          .map(([name, n]) => `${name}=${n}`)
          .join(" "),
      ]),
    ),
    messages: Object.fromEntries(Object.values(messages).map((m) => [m.name, m.fields.map(compactField).join(" ")])),
    operations: Object.fromEntries(Object.values(operations).map(({ name, ...operation }) => [name, operation])),
  };
  const lowestSince: Partial<Record<Protocol, string>> = {};
  for (const operation of Object.values(operations)) {
    for (const protocol of protocolsOf(operation)) {
      const since = operation[protocol]!.since;
      const lowest = lowestSince[protocol];
      if (lowest === undefined || compareVersions(since, lowest) < 0) lowestSince[protocol] = since;
    }
  }
  return {
    service,
    surfaces,
    operations: Object.fromEntries(Object.keys(operations).map((name) => [name, async () => ({ part })])),
    lowestSince: Object.fromEntries(PROTOCOLS.filter((p) => lowestSince[p] !== undefined).map((p) => [p, lowestSince[p]])),
    versionOperation: null,
    sdk: { name: "test-sdk", version: "1.0.0" },
    loadGrpcServices: async () => [],
    ...overrides,
  };
}
