// The flat answer shape (flat.ts) with the text kinds of wire-values read, as the server and the
// RPC clients use it; and the conversion between that shape and protobuf-es messages (camelCase
// properties, bigint, enum numbers).
import { mapValueField, UNION_ONEOF, unknownKind, type MessageSchema, type FieldSpec } from "./schema.js";
import { flatMessage, isObject, mapValues } from "./flat.js";
import { canonicalText, protoOfText } from "./wire-values.js";

export { ANSWER_TYPE_TEXTS, answerMismatch, enumName, enumValueName, isMapOfStrings, isObject, mapValues, missingRequiredField, variantOf } from "./flat.js";

type Plain = Record<string, unknown>;

/**
 * `value` in the flat shape of message `messageName`, its text kinds in their canonical form.
 * Fields the message does not declare are dropped, so nothing undeclared (such as a secret) can
 * leave through an answer. `from: "protoName"` reads a protobuf-es message instead of a plain object.
 */
export function normalizeMessage(schema: MessageSchema, messageName: string, value: unknown, from: "name" | "protoName" = "name"): Plain {
  return flatMessage(schema, messageName, value, canonicalText, from);
}

function protoValue(schema: MessageSchema, field: FieldSpec, value: unknown): unknown {
  switch (field.kind) {
    case "int64":
      return typeof value === "number" || typeof value === "string" ? BigInt(value) : value;
    case "timestamp":
    case "date":
    case "duration":
    case "bytes":
    case "uint64":
    case "int64_string": {
      const text = canonicalText(field.kind, value);
      return text === undefined ? value : protoOfText(field.kind, text);
    }
    case "enum":
      return typeof value === "string" ? (schema.enums[field.ref!]?.values[value] ?? 0) : value;
    case "message":
      return toProtoInit(schema, field.ref!, value);
    case "map":
      return field.value === undefined || !isObject(value) ? value : mapValues(value, (item) => protoValue(schema, mapValueField(field), item));
    case "string":
    case "bool":
    case "int32":
    case "uint32":
    case "float32":
    case "float64":
    case "json":
      return value;
    default:
      return unknownKind(field.kind);
  }
}

/** A plain (snake_case) object as the init of a protobuf-es message: camelCase keys, bigint int64s, enum numbers. */
export function toProtoInit(schema: MessageSchema, messageName: string, value: unknown): Plain {
  const message = schema.messages[messageName];
  if (!message) throw new Error(`unknown message ${messageName}`);
  const source = isObject(value) ? value : {};
  const init: Plain = {};
  for (const field of message.fields) {
    const raw = source[field.name];
    if (raw === undefined || raw === null) continue;
    init[field.protoName] = field.list && Array.isArray(raw) ? raw.map((item) => protoValue(schema, field, item)) : protoValue(schema, field, raw);
  }
  if (!message.oneOf) return init;
  // A union's variant goes in its oneof: { case, value } (the input check let one variant through).
  const [variant] = Object.entries(init);
  return variant ? { [UNION_ONEOF]: { case: variant[0], value: variant[1] } } : {};
}

/** A protobuf-es message as a plain snake_case object, keeping only the fields set on the wire. */
export function fromProtoInput(schema: MessageSchema, messageName: string, message: unknown): Plain {
  const normalized = normalizeMessage(schema, messageName, message, "protoName");
  const spec = schema.messages[messageName]!;
  // A request carries no tag on gRPC: the oneof names its variant.
  if (spec.discriminator) delete normalized[spec.discriminator];
  // For requests, "unset" must stay distinguishable from "empty": drop nulls and empty lists/maps.
  for (const field of spec.fields) {
    const value = normalized[field.name];
    if (value === null || (Array.isArray(value) && value.length === 0) || (field.kind === "map" && isObject(value) && Object.keys(value).length === 0)) {
      delete normalized[field.name];
    }
  }
  return normalized;
}
