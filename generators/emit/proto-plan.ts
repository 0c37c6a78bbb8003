// The proto layout of the IR: which file declares which enum, message and service, with every
// field's label and type resolved. The .proto text printer and the descriptor builder both read
// this plan, so the text and the descriptors cannot drift apart.
import { describedField, idempotencySentences, operationRuleSentences } from "./rules.js";
import { authSentences } from "./operation-text.js";
import type { Ir, IrField, IrMessage, IrOperation } from "../ir/ir.js";
import { SCALAR_SPECS, type ProtoScalar } from "../sdk/scalars.js";
import { UNION_ONEOF } from "../../runtime/schema.js";

export type { ProtoScalar };

export type ProtoFieldType =
  { kind: "scalar"; scalar: ProtoScalar } | { kind: "enum"; typeName: string } | { kind: "message"; typeName: string } | { kind: "map"; key: "string"; value: ProtoMapValue };
/** A map's value: a scalar, or an enum by its full name. */
export type ProtoMapValue = { kind: "scalar"; scalar: ProtoScalar } | { kind: "enum" | "message"; typeName: string };

export interface ProtoFieldPlan {
  name: string;
  number: number;
  comment: string;
  type: ProtoFieldType;
  repeated: boolean;
  /**
   * proto3 `optional`: explicit presence, for a scalar or enum that may be unset and for every
   * scalar and enum of a message used as input, so that a required one left out reaches the
   * validator as missing (as on REST and GraphQL) rather than as its zero value.
   */
  optional: boolean;
  deprecated: boolean;
}

export interface ProtoMessagePlan {
  name: string;
  comment: string;
  fields: ProtoFieldPlan[];
  /** A union's oneof, which holds every field (its variants). */
  oneof?: string;
  reserved: { name: string; number: number }[];
}

export interface ProtoEnumPlan {
  name: string;
  comment: string;
  values: { name: string; number: number; comment: string; deprecated?: boolean }[];
  reserved: { name: string; number: number }[];
}

export interface ProtoMethodPlan {
  name: string;
  comment: string;
  inputType: string;
  outputType: string;
  /** Reads have no side effects, which lets Connect serve them over GET too. */
  noSideEffects: boolean;
  deprecated: boolean;
}

export interface ProtoServicePlan {
  name: string;
  comment: string;
  methods: ProtoMethodPlan[];
}

export interface ProtoFilePlan {
  path: string;
  package: string;
  imports: string[];
  enums: ProtoEnumPlan[];
  messages: ProtoMessagePlan[];
  services: ProtoServicePlan[];
}

/** The well-known message types fields map to (Struct, Timestamp, Duration), by full name: the file that declares each. */
const WELL_KNOWN_FILES: ReadonlyMap<string, string> = new Map(
  Object.values(SCALAR_SPECS).flatMap((spec) => (spec.proto.kind === "wellKnown" ? [[spec.proto.typeName, spec.proto.file] as const] : [])),
);

/**
 * Whether a field has proto3 `optional` (explicit presence): every scalar and enum of a request
 * message, so that the server sees a required one left out, and the optional ones of answers.
 * Messages (and Struct) track presence anyway; lists and maps never do.
 */
export function isProtoOptional(field: IrField, inRequest: boolean): boolean {
  const scalarLike = field.type.kind === "enum" || (field.type.kind === "scalar" && SCALAR_SPECS[field.type.scalar].proto.kind === "scalar");
  return scalarLike && !field.list && (inRequest || !field.required);
}

export function planProto(ir: Ir): ProtoFilePlan[] {
  const pkg = ir.proto.package;
  const qualified = (name: string) => `.${pkg}.${name}`;

  const mapValueOf = (field: IrField): ProtoMapValue => {
    const value = field.mapValue;
    if (value === undefined) return { kind: "scalar", scalar: "string" };
    if (value.kind !== "scalar") return { kind: value.kind, typeName: qualified(value.name) };
    const proto = SCALAR_SPECS[value.scalar].proto;
    return proto.kind === "wellKnown" ? { kind: "message", typeName: proto.typeName } : { kind: "scalar", scalar: proto.kind === "scalar" ? proto.scalar : "string" };
  };
  const planField = (field: IrField, inRequest: boolean): ProtoFieldPlan => {
    let type: ProtoFieldType;
    if (field.type.kind === "enum") type = { kind: "enum", typeName: qualified(field.type.name) };
    else if (field.type.kind === "message") type = { kind: "message", typeName: qualified(field.type.name) };
    else {
      const proto = SCALAR_SPECS[field.type.scalar].proto;
      type =
        proto.kind === "map"
          ? { kind: "map", key: "string", value: mapValueOf(field) }
          : proto.kind === "wellKnown"
            ? { kind: "message", typeName: proto.typeName }
            : { kind: "scalar", scalar: proto.scalar };
    }
    return {
      name: field.name,
      number: field.protoNumber,
      comment: [describedField(ir, field, inRequest), field.type.kind === "scalar" ? SCALAR_SPECS[field.type.scalar].protoNote : undefined].filter(Boolean).join(" "),
      type,
      repeated: field.list,
      optional: isProtoOptional(field, inRequest),
      deprecated: field.deprecated !== undefined,
    };
  };

  const planMessage = (message: IrMessage, name = message.name, op?: IrOperation): ProtoMessagePlan => ({
    name,
    comment: [message.description, ...(op ? operationRuleSentences(op) : [])].filter(Boolean).join(" "),
    // A union's variants are the members of its oneof, which has presence of its own: no `optional`.
    fields: message.fields.map((field) => (message.oneOf ? { ...planField(field, message.usedAsInput), optional: false } : planField(field, message.usedAsInput))),
    reserved: message.reserved,
    ...(message.oneOf ? { oneof: UNION_ONEOF } : {}),
  });

  const fileOf = (path: string): ProtoFilePlan => ({ path, package: pkg, imports: [], enums: [], messages: [], services: [] });

  const typesFile = fileOf(ir.proto.typesFile);
  typesFile.enums = ir.enums.map((e) => ({
    name: e.name,
    comment: e.description,
    values: [
      { name: e.protoZeroName, number: 0, comment: "" },
      ...e.values.map((v) => ({
        name: v.protoName,
        number: v.protoNumber,
        comment: [v.description, v.deprecated ? `Deprecated: ${v.deprecated}` : ""].filter(Boolean).join(" "),
        ...(v.deprecated ? { deprecated: true } : {}),
      })),
    ],
    reserved: e.reserved.map((r) => ({ name: r.protoName, number: r.number })),
  }));
  typesFile.messages = ir.messages.filter((m) => m.shared).map((m) => planMessage(m));

  const groupFiles = new Map<string, ProtoFilePlan>();
  const serviceFiles = ir.proto.services.map((service) => {
    const file = fileOf(service.protoFile);
    const operations = service.operations.map((name) => ir.operations.find((op) => op.name === name)!);
    for (const op of operations) {
      const grpc = op.grpc!;
      let groupFile = groupFiles.get(op.input.protoFile);
      if (!groupFile) {
        groupFile = fileOf(op.input.protoFile);
        groupFiles.set(op.input.protoFile, groupFile);
      }
      groupFile.messages.push(planMessage(op.input, grpc.requestMessage, op));
      // A shared output is answered flat: the response message carries the type's own fields and numbers.
      groupFile.messages.push({ ...planMessage(op.output, grpc.responseMessage), comment: `Answer of ${op.name}.` });
    }
    file.services.push({
      name: service.name,
      comment: `${service.surface === "admin" ? "Admin" : "User"} operations of ${ir.api.title}.`,
      methods: operations.map((op) => ({
        name: op.grpc!.rpc,
        comment: [op.description, ...authSentences(ir, op), ...idempotencySentences(op)].join(" "),
        inputType: qualified(op.grpc!.requestMessage),
        outputType: qualified(op.grpc!.responseMessage),
        noSideEffects: op.kind === "read",
        deprecated: op.deprecated !== undefined,
      })),
    });
    file.imports.push(...new Set(operations.map((op) => op.input.protoFile)));
    return file;
  });

  const files = [typesFile, ...groupFiles.values(), ...serviceFiles];
  for (const file of files) {
    const typeNames = new Set(
      file.messages.flatMap((m) =>
        m.fields.flatMap((f) => (f.type.kind === "message" || f.type.kind === "enum" ? [f.type.typeName] : f.type.kind === "map" && f.type.value.kind !== "scalar" ? [f.type.value.typeName] : [])),
      ),
    );
    const local = new Set([...file.messages.map((m) => qualified(m.name)), ...file.enums.map((e) => qualified(e.name))]);
    const referencesShared = file !== typesFile && [...typeNames].some((typeName) => !WELL_KNOWN_FILES.has(typeName) && !local.has(typeName));
    for (const typeName of typeNames) {
      const wellKnown = WELL_KNOWN_FILES.get(typeName);
      if (wellKnown) file.imports.push(wellKnown);
    }
    if (referencesShared) file.imports.push(ir.proto.typesFile);
    file.imports.sort();
  }
  return files;
}
