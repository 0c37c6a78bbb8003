// The one flat answer shape of DESIGN.md: every declared field present, unset optional values null,
// lists and maps empty rather than absent, int64 as a JS number, enums as their wire names. The
// values of text kinds (timestamps, bytes, ...) are read by the `canonical` function a caller passes
// (wire-values' canonicalText): a client whose answers hold none never loads their grammar.
// shape.ts binds it, and adds the conversion to and from protobuf-es messages.
import { mapValueField, UNION_ONEOF, unknownKind, type MessageSchema, type FieldSpec, type MessageSpec } from "./schema.js";
import type { TextKind } from "./wire-values.js";

type Plain = Record<string, unknown>;

/** The canonical JSON text of a value of a text kind, or undefined when it is not one: wire-values' canonicalText. */
export type CanonicalText = (kind: TextKind, value: unknown) => string | undefined;

/** The kinds `canonical` reads: those of wire-values. */
const TEXT_KINDS: ReadonlySet<string> = new Set<TextKind>(["timestamp", "date", "duration", "bytes", "uint64", "int64_string"]);

/** Whether a value of any message of `schema` is of a text kind (a field's, or a map's values). */
export const holdsText = (schema: MessageSchema): boolean =>
  Object.values(schema.messages).some((message) => message.fields.some((field) => TEXT_KINDS.has(field.kind) || (field.value !== undefined && TEXT_KINDS.has(field.value))));

/** A JSON object: not null, not an array. */
export const isObject = (value: unknown): value is Plain => typeof value === "object" && value !== null && !Array.isArray(value);
/** The value of a map field: an object of strings. */
export const isMapOfStrings = (value: unknown): boolean => isObject(value) && Object.values(value).every((v) => typeof v === "string");

/** A map's values, each through `convert` (fromEntries: a key such as __proto__ stays a key). */
export const mapValues = (map: Plain, convert: (value: unknown) => unknown): Plain => Object.fromEntries(Object.entries(map).map(([key, value]) => [key, convert(value)]));

/** Reverse enum tables, built once per schema. */
const enumNames = new WeakMap<MessageSchema, Map<string, Map<number, string>>>();
export function enumName(schema: MessageSchema, enumRef: string, value: number): string | null {
  let tables = enumNames.get(schema);
  if (!tables) {
    tables = new Map(Object.values(schema.enums).map((e) => [e.name, new Map(Object.entries(e.values).map(([name, n]) => [n, name]))]));
    enumNames.set(schema, tables);
  }
  return tables.get(enumRef)?.get(value) ?? null;
}

/** The name of an enum number; a number no value has (a newer peer's) is kept as UNKNOWN_<n>, and 0 (proto's unset) is null. */
export function enumValueName(schema: MessageSchema, enumRef: string, value: number): string | null {
  return enumName(schema, enumRef, value) ?? (value === 0 ? null : `UNKNOWN_${value}`);
}

function normalizeValue(schema: MessageSchema, field: FieldSpec, value: unknown, canonical: CanonicalText | undefined, from: "name" | "protoName", keep: boolean): unknown {
  switch (field.kind) {
    case "int32":
    case "int64":
    case "uint32":
    case "float32":
    case "float64":
      return typeof value === "bigint" ? Number(value) : typeof value === "string" && value.trim() !== "" ? Number(value) : value;
    case "timestamp":
    case "date":
    case "duration":
    case "bytes":
    case "uint64":
    case "int64_string":
      // A value not of the kind stays as it came: the answer check names it.
      return canonical?.(field.kind, value) ?? value;
    case "enum":
      return typeof value === "number" ? enumValueName(schema, field.ref!, value) : value;
    case "message":
      return flatMessage(schema, field.ref!, value, canonical, from, keep);
    case "string":
    case "bool":
    case "map":
    case "json":
      return value;
    default:
      return unknownKind(field.kind);
  }
}

/**
 * Per message, an object with every field (null) in declaration order, which each answer starts as
 * a copy of. Adding a message's fields one by one under computed names puts an object of more than
 * 16 fields (User has 20) in V8's slow dictionary mode, which JSON.stringify and every read then
 * pay for; a copy of this template keeps the fast shape and only overwrites values. JSON.parse
 * builds it since it makes fast objects of any size. No template (the old way) for a field named
 * __proto__, which a computed store would treat as the prototype.
 */
const answerTemplates = new WeakMap<object, Plain | null>();
function answerTemplate(message: MessageSchema["messages"][string]): Plain | null {
  let template = answerTemplates.get(message);
  if (template === undefined) {
    // A tagged union's tag comes first, as people read it.
    const names = [...(message.discriminator ? [message.discriminator] : []), ...message.fields.map((field) => field.name)];
    template = names.includes("__proto__") ? null : (JSON.parse(JSON.stringify(Object.fromEntries(names.map((name) => [name, null])))) as Plain);
    answerTemplates.set(message, template);
  }
  return template;
}

/**
 * The items of a list field, normalized. A function of its own: a closure over the loop's `field`
 * inside flatMessage would make V8 allocate a context for every field of every answer (about
 * 40 bytes a field), lists or not.
 */
function normalizeList(schema: MessageSchema, field: FieldSpec, items: unknown[], canonical: CanonicalText | undefined, from: "name" | "protoName", keep: boolean): unknown[] {
  return items.map((item) => normalizeValue(schema, field, item, canonical, from, keep));
}

/**
 * `value` in the flat shape of message `messageName`, its text kinds read by `canonical` (kept as
 * they came without it). Fields the message does not declare are dropped, so nothing undeclared
 * (such as a secret) can leave through an answer; a client \`keep\`s them, at every level, as they
 * came: an SDK older than the service loses nothing of an answer. \`from: "protoName"\` reads a
 * protobuf-es message instead of a plain object.
 */
export function flatMessage(schema: MessageSchema, messageName: string, value: unknown, canonical: CanonicalText | undefined, from: "name" | "protoName" = "name", keep = false): Plain {
  const message = schema.messages[messageName];
  if (!message) throw new Error(`unknown message ${messageName}`);
  let source = isObject(value) ? value : {};
  // A union read from protobuf-es: its variant is the oneof's { case, value }.
  if (message.oneOf && from === "protoName") source = oneofMembers(source[UNION_ONEOF]);
  const template = answerTemplate(message);
  const result: Plain = template ? { ...template } : {};
  for (const field of message.fields) {
    const raw = source[field[from]];
    if (field.list) {
      result[field.name] = Array.isArray(raw) ? normalizeList(schema, field, raw, canonical, from, keep) : [];
    } else if (field.kind === "map") {
      result[field.name] = !isObject(raw) ? {} : field.value === undefined ? { ...raw } : mapValues(raw, (item) => normalizeValue(schema, mapValueField(field), item, canonical, from, keep));
    } else if (raw === undefined || raw === null) {
      result[field.name] = null;
    } else {
      // An enum's proto zero value (unset) becomes null here too: normalizeValue finds no name for it.
      result[field.name] = normalizeValue(schema, field, raw, canonical, from, keep);
    }
  }
  if (message.discriminator) result[message.discriminator] = variantOf(message, result);
  // A field a newer service added, kept as it came (never __proto__, which a store would make the prototype).
  if (keep) for (const name in source) if (!Object.hasOwn(result, name) && name !== "__proto__") result[name] = source[name];
  return result;
}

/** The variant a union's value holds: the first field set (the input check lets one through), or null. */
export function variantOf(message: MessageSpec, value: Plain): string | null {
  for (const field of message.fields) {
    const item = value[field.name];
    if (item !== undefined && item !== null) return field.name;
  }
  return null;
}

/** The member a protobuf-es oneof holds ({ case, value }), as a property of that name. */
function oneofMembers(oneof: unknown): Plain {
  return isObject(oneof) && typeof oneof.case === "string" ? { [oneof.case]: oneof.value } : {};
}

/**
 * The path of the first required field that a flat answer leaves null, or undefined when it has
 * them all. The server refuses such an answer on every protocol alike, instead of GraphQL failing,
 * REST sending null and gRPC sending a zero value.
 */
export function missingRequiredField(schema: MessageSchema, messageName: string, value: Plain, prefix = ""): string | undefined {
  for (const field of schema.messages[messageName]!.fields) {
    const path = prefix ? `${prefix}.${field.name}` : field.name;
    const item = value[field.name];
    if (field.required && !field.list && item === null) return path;
    if (field.kind !== "message" || item === null) continue;
    const nested = field.list ? (item as Plain[]) : [item as Plain];
    for (let i = 0; i < nested.length; i++) {
      const missing = missingRequiredField(schema, field.ref!, nested[i]!, field.list ? `${path}[${i}]` : path);
      if (missing) return missing;
    }
  }
  return undefined;
}

/** What answerMismatch says of a value whose JSON type does not fit its field ("<path>: <text>"); the SDKs read them from sdk-facts. */
export const ANSWER_TYPE_TEXTS = {
  string: "not a string",
  bool: "not a boolean",
  number: "not a number",
  map: "not an object of strings",
  object: "not an object",
  list: "not a list",
} as const;

function jsonTypeMismatch(schema: MessageSchema, field: FieldSpec, value: unknown, path: string): string | undefined {
  switch (field.kind) {
    case "string":
    case "enum":
      return typeof value === "string" ? undefined : `${path}: ${ANSWER_TYPE_TEXTS.string}`;
    case "bool":
      return typeof value === "boolean" ? undefined : `${path}: ${ANSWER_TYPE_TEXTS.bool}`;
    case "int32":
    case "int64":
    case "uint32":
    case "float32":
    case "float64":
      // A 64-bit integer may come as a decimal string (the proto3 JSON form).
      return typeof value === "number" || (typeof value === "string" && value.trim() !== "" && !Number.isNaN(Number(value))) ? undefined : `${path}: ${ANSWER_TYPE_TEXTS.number}`;
    case "timestamp":
    case "date":
    case "duration":
    case "bytes":
    case "uint64":
    case "int64_string":
      return typeof value === "string" || ((field.kind === "uint64" || field.kind === "int64_string") && typeof value === "number") ? undefined : `${path}: ${ANSWER_TYPE_TEXTS.string}`;
    case "map": {
      if (field.value === undefined) return isMapOfStrings(value) ? undefined : `${path}: ${ANSWER_TYPE_TEXTS.map}`;
      if (!isObject(value)) return `${path}: ${ANSWER_TYPE_TEXTS.object}`;
      const valueField = mapValueField(field);
      for (const [key, item] of Object.entries(value)) {
        const mismatch = jsonTypeMismatch(schema, valueField, item, `${path}.${key}`);
        if (mismatch) return mismatch;
      }
      return undefined;
    }
    case "json":
      return undefined;
    case "message":
      return isObject(value) ? answerMismatch(schema, field.ref!, value, path) : `${path}: ${ANSWER_TYPE_TEXTS.object}`;
    default:
      return unknownKind(field.kind);
  }
}

/**
 * The first value of a JSON answer whose type does not fit message `messageName` ("version: not a
 * string"), or undefined when it fits. Fields the message does not declare and enum names it does
 * not know pass: a newer server may add them.
 */
export function answerMismatch(schema: MessageSchema, messageName: string, value: Plain, prefix = ""): string | undefined {
  for (const field of schema.messages[messageName]!.fields) {
    const raw = value[field.name];
    if (raw === undefined || raw === null) continue;
    const path = prefix ? `${prefix}.${field.name}` : field.name;
    if (field.list) {
      if (!Array.isArray(raw)) return `${path}: ${ANSWER_TYPE_TEXTS.list}`;
      for (let i = 0; i < raw.length; i++) {
        const mismatch = jsonTypeMismatch(schema, field, raw[i], `${path}[${i}]`);
        if (mismatch) return mismatch;
      }
    } else {
      const mismatch = jsonTypeMismatch(schema, field, raw, path);
      if (mismatch) return mismatch;
    }
  }
  return undefined;
}
