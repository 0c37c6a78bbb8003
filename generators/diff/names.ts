// The names each contract gives to the IR's operations, messages and enums, read back: a contract
// finding names a GraphQL type, a proto message or an RPC; these tables turn that name into the
// anchors (`op:users`, `in:UsersRequest.query`, ...) that manifest changes carry.
import type { Ir } from "../ir/ir.js";

export interface ContractNames {
  /** GraphQL type name -> anchor prefixes (`out:User`, `in:User`, `enum:KeyStatus`); a shared `*Input` type names both. */
  graphqlTypes: Map<string, Set<string>>;
  /** A tagged union's GraphQL enum -> its message and tag. */
  tagEnums: Map<string, Set<{ message: string; tag: string }>>;
  /** Operations by GraphQL root type, for changes to Query or Mutation as a whole. */
  rootOperations: Map<string, Set<string>>;
  /** Proto message short name -> anchor prefixes (a shared type is both input and output). */
  protoMessages: Map<string, Set<string>>;
  /** `<proto message>#<number>` -> field name, on either side. */
  protoFields: Map<string, Set<string>>;
  /** `<Service>.<Rpc>` and `<Rpc>` -> operation name. */
  rpcs: Map<string, string>;
  /** `<Enum>#<number>` -> enum value name. */
  enumValues: Map<string, Set<string>>;
  /** Operation name -> its input message name (for REST query parameters). */
  inputMessages: Map<string, string>;
}

/** Names of both sides merged; the first IR's names win where both define one. */
export function contractNames(...irs: Ir[]): ContractNames {
  const names: ContractNames = {
    graphqlTypes: new Map(),
    tagEnums: new Map(),
    rootOperations: new Map(),
    protoMessages: new Map(),
    protoFields: new Map(),
    rpcs: new Map(),
    enumValues: new Map(),
    inputMessages: new Map(),
  };
  const first = <K, V>(map: Map<K, V>, key: K, value: V) => {
    if (!map.has(key)) map.set(key, value);
  };
  const addTo = <K, V>(map: Map<K, Set<V>>, key: K, value: V) => {
    let set = map.get(key);
    if (!set) map.set(key, (set = new Set()));
    set.add(value);
  };
  for (const ir of irs) {
    for (const message of ir.messages) {
      if (message.usedAsOutput) addTo(names.graphqlTypes, message.graphqlName, `out:${message.name}`);
      // A tagged union's GraphQL enum is its tag; its values are the variants.
      if (message.discriminator) addTo(names.tagEnums, message.discriminator.graphqlEnum, { message: message.name, tag: message.discriminator.property });
      if (message.usedAsInput) addTo(names.graphqlTypes, message.graphqlInputName, `in:${message.name}`);
      if (message.shared) {
        addTo(names.protoMessages, message.name, `in:${message.name}`);
        addTo(names.protoMessages, message.name, `out:${message.name}`);
        for (const field of message.fields) addTo(names.protoFields, `${message.name}#${field.protoNumber}`, field.name);
      }
    }
    for (const e of ir.enums) {
      addTo(names.graphqlTypes, e.name, `enum:${e.name}`);
      for (const value of e.values) addTo(names.enumValues, `${e.name}#${value.protoNumber}`, value.name);
    }
    for (const op of ir.operations) {
      first(names.inputMessages, op.name, op.input.name);
      if (op.graphql) addTo(names.rootOperations, op.graphql.rootType, op.name);
      if (!op.grpc) continue;
      first(names.rpcs, `${op.grpc.service}.${op.grpc.rpc}`, op.name);
      first(names.rpcs, op.grpc.rpc, op.name);
      addTo(names.protoMessages, op.grpc.requestMessage, `in:${op.input.name}`);
      addTo(names.protoMessages, op.grpc.responseMessage, `out:${op.output.name}`);
      for (const field of op.input.fields) addTo(names.protoFields, `${op.grpc.requestMessage}#${field.protoNumber}`, field.name);
      for (const field of op.output.fields) addTo(names.protoFields, `${op.grpc.responseMessage}#${field.protoNumber}`, field.name);
    }
  }
  return names;
}
