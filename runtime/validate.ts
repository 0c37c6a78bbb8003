// Input validation from the manifest: required fields, types, enums, formats, page bounds and
// exactly-one-of rules. Every failure is INVALID_ARGUMENT naming the field; values are never
// echoed (they may be secrets). The server runs it before every implementation call; the gRPC
// client runs it before encoding, since protobuf would silently coerce or drop a bad value.
import { ServiceError } from "./errors.js";
import type { ApiSchema, FieldSpec, OperationSpec } from "./schema.js";

export const MAX_PAGE_LIMIT = 1000;
export const DEFAULT_PAGINATION = { limit: 10, page: 1 } as const;

type Plain = Record<string, unknown>;
const isObject = (value: unknown): value is Plain => typeof value === "object" && value !== null && !Array.isArray(value);

/** A URL-safe slug (organization names): the contracts publish the same pattern and length. */
export const SLUG_PATTERN = "^[a-z0-9]+(?:-[a-z0-9]+)*$";
export const SLUG_MAX_LENGTH = 63;
const slug = new RegExp(SLUG_PATTERN);

const FORMATS: Record<NonNullable<FieldSpec["format"]>, { test(value: string): boolean; expected: string }> = {
  slug: { test: (v) => slug.test(v) && v.length <= SLUG_MAX_LENGTH, expected: "a URL-safe slug (lower-case letters, digits and single dashes)" },
  email: { test: (v) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v), expected: "an email address" },
  url: {
    test: (v) => {
      try {
        return ["http:", "https:"].includes(new URL(v).protocol);
      } catch {
        return false;
      }
    },
    expected: "an http or https URL",
  },
  domain: { test: (v) => /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i.test(v), expected: "a DNS domain name" },
};

function fail(path: string, message: string): never {
  throw new ServiceError("INVALID_ARGUMENT", `${path}: ${message}`, path);
}

/**
 * Absent, null, "" and (for lists and maps) empty all mean "not given", on every protocol alike:
 * protobuf cannot tell an empty list or map from an unset one, so no protocol may either.
 */
function isMissing(field: FieldSpec, value: unknown): boolean {
  if (value === undefined || value === null || value === "") return true;
  if (field.list) return Array.isArray(value) && value.length === 0;
  return field.kind === "map" && isObject(value) && Object.keys(value).length === 0;
}

/**
 * "full" is the server's check. "wire" checks only what the wire could not carry faithfully
 * (types, enum values, unknown fields) and leaves rules such as required fields to the server,
 * so that a rule is enforced in one place whatever the protocol.
 */
type Mode = "full" | "wire";

function checkValue(schema: ApiSchema, field: FieldSpec, value: unknown, path: string, mode: Mode): unknown {
  switch (field.kind) {
    case "string":
      if (typeof value !== "string") fail(path, "must be a string");
      if (mode === "full" && field.format && !FORMATS[field.format].test(value)) fail(path, `must be ${FORMATS[field.format].expected}`);
      return value;
    case "bool":
      if (typeof value !== "boolean") fail(path, "must be true or false");
      return value;
    case "int32":
    case "int64": {
      const number = typeof value === "bigint" ? Number(value) : value;
      if (typeof number !== "number" || !Number.isSafeInteger(number)) fail(path, "must be an integer");
      if (field.kind === "int32" && (number < -(2 ** 31) || number >= 2 ** 31)) fail(path, "must fit in 32 bits");
      return number;
    }
    case "float64":
      if (typeof value !== "number" || !Number.isFinite(value)) fail(path, "must be a number");
      return value;
    case "map":
      if (!isObject(value) || !Object.values(value).every((v) => typeof v === "string")) fail(path, "must be an object of strings");
      return value;
    case "json":
      if (!isObject(value)) fail(path, "must be a JSON object");
      return value;
    case "enum": {
      const values = schema.enums[field.ref!]!.values;
      if (typeof value !== "string" || !Object.hasOwn(values, value)) fail(path, `must be one of ${Object.keys(values).join(", ")}`);
      return value;
    }
    case "message":
      return checkMessage(schema, field.ref!, value, path, mode);
  }
}

const fieldNames = new WeakMap<object, Set<string>>();
function fieldNamesOf(message: ApiSchema["messages"][string]): Set<string> {
  let names = fieldNames.get(message);
  if (!names) fieldNames.set(message, (names = new Set(message.fields.map((f) => f.name))));
  return names;
}

function checkMessage(schema: ApiSchema, messageName: string, value: unknown, prefix: string, mode: Mode): Plain {
  if (!isObject(value)) fail(prefix || "request", "must be an object");
  const message = schema.messages[messageName]!;
  const known = fieldNamesOf(message);
  for (const key in value) {
    if (!known.has(key)) fail(prefix ? `${prefix}.${key}` : key, "is not a field of this request");
  }
  const result: Plain = {};
  for (const field of message.fields) {
    const path = prefix ? `${prefix}.${field.name}` : field.name;
    const raw = value[field.name];
    if (isMissing(field, raw)) {
      if (field.required && mode === "full") fail(path, "is required");
      continue;
    }
    if (field.list) {
      if (!Array.isArray(raw)) fail(path, "must be a list");
      result[field.name] = raw.map((item, index) => checkValue(schema, field, item, `${path}[${index}]`, mode));
    } else {
      result[field.name] = checkValue(schema, field, raw, path, mode);
    }
  }
  return result;
}

/** Throws INVALID_ARGUMENT for a value the protobuf encoding would coerce or drop without a word. */
export function checkWireTypes(schema: ApiSchema, operation: OperationSpec, input: unknown): void {
  checkMessage(schema, operation.input, input ?? {}, "", "wire");
}

/** The validated input of `operation`, with pagination defaults filled in. Throws INVALID_ARGUMENT. */
export function validateInput(schema: ApiSchema, operation: OperationSpec, input: unknown): Plain {
  const result = checkMessage(schema, operation.input, input ?? {}, "", "full");
  if (operation.exactlyOneOf.length > 0) {
    const given = operation.exactlyOneOf.filter((name) => result[name] !== undefined);
    if (given.length !== 1) {
      throw new ServiceError("INVALID_ARGUMENT", `give exactly one of ${operation.exactlyOneOf.join(", ")} (got ${given.length === 0 ? "none" : given.join(" and ")})`, operation.exactlyOneOf[0]);
    }
  }
  if (operation.pagination?.style === "page") {
    const pagination = { ...DEFAULT_PAGINATION, ...(result.pagination as Plain | undefined) };
    if ((pagination.limit as number) < 1 || (pagination.limit as number) > MAX_PAGE_LIMIT) fail("pagination.limit", `must be between 1 and ${MAX_PAGE_LIMIT}`);
    if ((pagination.page as number) < 1) fail("pagination.page", "must be 1 or more");
    result.pagination = pagination;
  }
  if (operation.pagination?.style === "token" && result.page_size !== undefined) {
    const size = result.page_size as number;
    if (size < 1 || size > MAX_PAGE_LIMIT) fail("page_size", `must be between 1 and ${MAX_PAGE_LIMIT}`);
  }
  return result;
}
