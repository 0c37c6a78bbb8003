// A ClientDefinition of any expanded schema, and its operations' modules, for tests that give a
// client a schema of their own (a renamed field, other features): each operation loads as its
// generated module would, a part in the compact syntax of runtime/schema.ts holding that operation.
import type { ClientDefinition, OperationModule } from "../../runtime/client/core.js";
import { compareVersions } from "../../runtime/client/version.js";
import { PROTOCOLS, protocolsOf, type ApiSchema, type FieldSpec, type OperationPart, type Protocol } from "../../runtime/schema.js";

const compactField = (field: FieldSpec) => `${field.name}:${field.ref ?? field.kind}${field.list ? "[]" : ""}${field.required ? "!" : ""}${field.secret ? "#secret" : ""}=${field.protoName}`;

/**
 * Each operation of `schema` as a module: its part (every message and enum of the schema, and the
 * one operation), the same part on every load. Each loader's text names its operation, as a
 * generated one's names its module: a client tells loaders apart by their text.
 */
export function operationModulesOf(schema: ApiSchema): Record<string, OperationModule> {
  const { enums, messages, operations } = schema;
  const compactEnums = Object.fromEntries(
    Object.values(enums).map((e) => [
      e.name,
      Object.entries(e.values)
        .map(([name, n]) => `${name}=${n}`)
        .join(" "),
    ]),
  );
  const compactMessages = Object.fromEntries(Object.values(messages).map((m) => [m.name, m.fields.map(compactField).join(" ")]));
  return Object.fromEntries(
    Object.values(operations).map(({ name, ...operation }) => {
      const part: OperationPart = { enums: compactEnums, messages: compactMessages, operations: { [name]: operation } };
      return [name, loaderNamed(name, async () => ({ part }))];
    }),
  );
}

/** \`load\` with the text of a generated loader of operation \`name\`'s module. */
export const loaderNamed = (name: string, load: OperationModule): OperationModule => Object.assign(load, { toString: () => `() => import("./operations/${name}.js")` });

export function clientDefinitionOf(schema: ApiSchema, overrides: Partial<ClientDefinition> = {}): ClientDefinition {
  const { enums, messages, operations, ...service } = schema;
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
    lowestSince: Object.fromEntries(PROTOCOLS.filter((p) => lowestSince[p] !== undefined).map((p) => [p, lowestSince[p]])),
    versionOperation: null,
    sdk: { name: "test-sdk", version: "1.0.0" },
    loadGrpcServices: async () => [],
    ...overrides,
  };
}
