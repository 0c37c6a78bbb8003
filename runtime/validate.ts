// Input validation from the manifest: types, enums, required fields, lengths, ranges, list sizes,
// formats, defaults, required-if and same-as rules, exactly-one-of and at-least-one-of, and the
// limits of free-form json values. Every failure is INVALID_ARGUMENT naming the field; values are
// never echoed (they may be secrets). The server runs the full check before every implementation
// call, with the rules the generator derived from the manifest (generated/server/rules.ts); the gRPC
// client runs the wire check before encoding, since protobuf would silently coerce or drop a bad value.
import { ServiceError, type ErrorCode } from "./errors.js";
import { BUILTIN_FORMAT_RULES } from "./formats.js";
import { mapValueField, unknownKind, type MessageSchema, type FieldSpec, type OperationSpec } from "./schema.js";
import { isMapOfStrings, isObject } from "./flat.js";
import { canonicalText, TEXT_KIND_TEXTS } from "./wire-values.js";

type Plain = Record<string, unknown>;
type ScalarValue = string | number | boolean;

/** The numbers every protocol carries alike: int32's and uint32's range, JSON's exact integers for int64, float32's finite range. */
export const INTEGER_RANGES = {
  int32: { minimum: -(2 ** 31), maximum: 2 ** 31 - 1 },
  int64: { minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
  uint32: { minimum: 0, maximum: 2 ** 32 - 1 },
  float32: { minimum: -3.4028234663852886e38, maximum: 3.4028234663852886e38 },
} as const;

/** What the check says of a value of the wrong kind ("<path>: <text>"); the SDKs of other languages say the same. */
export const VALUE_TEXTS = {
  string: "must be a string",
  bool: "must be true or false",
  integer: "must be an integer",
  number: "must be a number",
  map: "must be an object of strings",
  json: "must be a JSON object",
  /** `{values}`: the enum's values, comma-separated. */
  enum: "must be one of {values}",
  object: "must be an object",
  list: "must be a list",
  unknownField: "is not a field of this request",
  /** `{variants}`: a union's variants, comma-separated. */
  oneOf: "must have exactly one of {variants}",
  /** `{variant}`: the variant a tagged union's value holds. */
  unionTag: "must be {variant}, the variant given",
  /** `{minimum}`, `{maximum}`: an integer range. */
  range: "must be between {minimum} and {maximum}",
  ...TEXT_KIND_TEXTS,
} as const;

/** The rules of one field (see FieldConstraints in generators/ir/ir.ts, which derives them). */
export interface FieldRules {
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly format?: string;
  readonly default?: ScalarValue;
  readonly requiredIf?: { readonly field: string; readonly equals?: ScalarValue };
  readonly sameAs?: string;
  readonly emptyMeansUnset?: boolean;
}

/** A format declared in the manifest: a pattern, or the only values allowed. */
export interface DeclaredFormat {
  readonly expected: string;
  readonly pattern?: string;
  readonly values?: readonly string[];
}

/** Every rule the server checks beyond the shape of the schema, as generated from the manifest. */
export interface ValidationRules {
  readonly limits: { readonly requestBytes: number; readonly jsonDepth: number; readonly jsonBytes: number };
  readonly formats: Readonly<Record<string, DeclaredFormat>>;
  /** Message name -> field name -> rules. */
  readonly fields: Readonly<Record<string, Readonly<Record<string, FieldRules>>>>;
  /** Operation name -> input fields of which at least one must be given. */
  readonly atLeastOneOf: Readonly<Record<string, readonly string[]>>;
  /** Operation name -> every error code the contract says it may answer (the server reports an implementation that answers another). */
  readonly errorCodes: Readonly<Record<string, readonly ErrorCode[]>>;
}

function fail(path: string, message: string): never {
  throw new ServiceError("INVALID_ARGUMENT", `${path}: ${message}`, path);
}

/** "between 1 and 1000", "1 or more", "1000 or less": a bound that is only the integer type's own is not worth saying. */
function rangeText(kind: FieldSpec["kind"], minimum: number | undefined, maximum: number | undefined): string {
  const natural = kind === "int32" || kind === "int64" || kind === "uint32" || kind === "float32" ? INTEGER_RANGES[kind] : undefined;
  const low = minimum !== natural?.minimum || maximum === natural?.maximum ? minimum : undefined;
  const high = maximum !== natural?.maximum || minimum === natural?.minimum ? maximum : undefined;
  if (low !== undefined && high !== undefined)
    return VALUE_TEXTS.range
      .replace("{minimum}", String(low))
      .replace("{maximum}", String(high))
      .replace(/^must be /, "");
  return low !== undefined ? `${low} or more` : `${high} or less`;
}

export type FormatCheck = { test: (value: string) => boolean; expected: string };

const BUILTIN_CHECKS = new Map<string, FormatCheck>(
  Object.entries(BUILTIN_FORMAT_RULES).map(([name, rule]) => {
    const maxLength = "maxLength" in rule ? rule.maxLength : undefined;
    // The length first: no pattern ever runs on a value longer than its format allows.
    return [name, { test: (v: string) => (maxLength === undefined || v.length <= maxLength) && rule.test(v), expected: rule.expected }];
  }),
);

/**
 * The length of `value` in code points, as the rules count it, compared with `limit`: -1 when
 * shorter, 0 when equal, 1 when longer. A string of n UTF-16 units has between n/2 and n code
 * points, so most values are decided by their length alone, and the others are counted without
 * building an array of code points (which a 1 MiB value would make 1 million strings of).
 */
export function compareCodePoints(value: string, limit: number): -1 | 0 | 1 {
  if (value.length < limit) return -1;
  if (value.length === limit && !/[\uD800-\uDBFF]/.test(value)) return 0;
  if (value.length > 2 * limit) return 1;
  let count = 0;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    if (++count > limit) return 1;
  }
  return count < limit ? -1 : 0;
}

/** Checks of declared formats, compiled once per rules object. */
const declaredChecks = new WeakMap<object, Map<string, FormatCheck>>();
/** The check of a built-in or declared format: whether a value is one, and what it must be. */
export function formatCheck(rules: ValidationRules, name: string): FormatCheck {
  const builtin = BUILTIN_CHECKS.get(name);
  if (builtin) return builtin;
  let checks = declaredChecks.get(rules);
  if (!checks) declaredChecks.set(rules, (checks = new Map()));
  let check = checks.get(name);
  if (!check) {
    const declared = rules.formats[name];
    if (!declared) throw new Error(`unknown format ${name}`);
    if (declared.values) {
      const allowed = new Set(declared.values);
      check = { test: (value) => allowed.has(value), expected: `one of ${declared.values.join(", ")}` };
    } else {
      const pattern = new RegExp(declared.pattern!, "u");
      check = { test: (value) => pattern.test(value), expected: declared.expected };
    }
    checks.set(name, check);
  }
  return check;
}

/** Whether an object or array has an object or array among its values (for-in: its own keys and any enumerable inherited one). */
function hasObjectMember(value: object): boolean {
  for (const key in value) {
    const member = (value as Plain)[key];
    if (typeof member === "object" && member !== null) return true;
  }
  return false;
}

/**
 * The depth of a free-form json value, counted without recursion (a value nested a million deep
 * must fail the check, not the stack); stops as soon as `limit` is passed.
 */
function jsonDepthExceeds(value: unknown, limit: number): boolean {
  if (limit >= 1 && typeof value === "object" && value !== null && !hasObjectMember(value)) return false; // most values: flat
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > limit) return true;
    if (typeof node === "object" && node !== null) for (const child of Object.values(node)) if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

/** The most bytes a finite number takes as JSON: 17 digits, a sign and "0.00000" ("-0.0000012345678901234567"). */
const MAX_NUMBER_TEXT = 25;

/**
 * Whether `value` surely takes at most `bytes` as JSON text, from an upper bound of its size: each
 * UTF-16 unit of a string at most 6 bytes (\uXXXX), a number at most 25, and so on. Most values are
 * far below the limit, and are told so without writing them out; a value near it, or one that
 * JSON.stringify would treat specially (toJSON, a bigint), is left to the exact count. Runs after
 * the depth check, so its recursion is bounded.
 */
function jsonSurelyWithin(value: unknown, bytes: number): boolean {
  let budget = bytes;
  const visit = (node: unknown): boolean => {
    switch (typeof node) {
      case "string":
        return (budget -= 2 + 6 * node.length) >= 0;
      case "number":
        return (budget -= MAX_NUMBER_TEXT) >= 0;
      case "boolean":
        return (budget -= 5) >= 0;
      case "object": {
        if (node === null) return (budget -= 4) >= 0;
        if (typeof (node as { toJSON?: unknown }).toJSON === "function") return false;
        budget -= 2;
        if (Array.isArray(node)) {
          for (const item of node) if ((budget -= 1) < 0 || !visit(item ?? null)) return false;
          return budget >= 0;
        }
        // for-in counts inherited enumerable keys too, which only makes the bound larger.
        for (const key in node) if ((budget -= 4 + 6 * key.length) < 0 || !visit((node as Plain)[key] ?? null)) return false;
        return budget >= 0;
      }
      default:
        return false;
    }
  };
  return visit(value);
}

const jsonTooLarge = (value: unknown, bytes: number) => !jsonSurelyWithin(value, bytes) && Buffer.byteLength(JSON.stringify(value)) > bytes;

/** Whether a free-form json value keeps within the limits of api.limits (depth, then size). */
export function jsonWithinLimits(value: unknown, depth: number, bytes: number): boolean {
  return !jsonDepthExceeds(value, depth) && !jsonTooLarge(value, bytes);
}

/**
 * Absent and null mean "not given" on every protocol. So do an empty list or map, since protobuf
 * cannot tell them from unset ones. "" is a value, unless the field says it means unset.
 */
function isMissing(field: FieldSpec, rule: FieldRules | undefined, value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (value === "") return rule?.emptyMeansUnset === true;
  if (field.list) return Array.isArray(value) && value.length === 0;
  return field.kind === "map" && isObject(value) && Object.keys(value).length === 0;
}

/** "full" is the server's check, with the rules; "wire" only what the wire could not carry faithfully (types, enum values, unknown fields). */
type Check = { mode: "full"; rules: ValidationRules } | { mode: "wire" };

function checkValue(schema: MessageSchema, field: FieldSpec, rule: FieldRules | undefined, value: unknown, path: string, check: Check): unknown {
  switch (field.kind) {
    case "string":
      if (typeof value !== "string") fail(path, VALUE_TEXTS.string);
      if (check.mode === "full" && rule) {
        if (rule.minLength !== undefined && compareCodePoints(value, rule.minLength) < 0) fail(path, rule.minLength === 1 ? "must not be empty" : `must be at least ${rule.minLength} characters`);
        if (rule.maxLength !== undefined && compareCodePoints(value, rule.maxLength) > 0) fail(path, `must be at most ${rule.maxLength} characters`);
        if (rule.format !== undefined) {
          const format = formatCheck(check.rules, rule.format);
          if (!format.test(value)) fail(path, `must be ${format.expected}`);
        }
      }
      return value;
    case "bool":
      if (typeof value !== "boolean") fail(path, VALUE_TEXTS.bool);
      return value;
    case "int32":
    case "int64":
    case "uint32":
    case "float32":
    case "float64": {
      const number = typeof value === "bigint" ? Number(value) : value;
      const fractional = field.kind === "float32" || field.kind === "float64";
      if (typeof number !== "number" || !Number.isFinite(number)) fail(path, fractional ? VALUE_TEXTS.number : VALUE_TEXTS.integer);
      if (!fractional && !Number.isInteger(number)) fail(path, VALUE_TEXTS.integer);
      const natural = field.kind === "float64" ? undefined : INTEGER_RANGES[field.kind];
      // The type's own range holds in the server's check too, whatever the rules narrow.
      if (natural && (number < natural.minimum || number > natural.maximum)) fail(path, `must be ${rangeText(field.kind, natural.minimum, natural.maximum)}`);
      const range = check.mode === "full" ? rule : undefined;
      if (range && ((range.minimum !== undefined && number < range.minimum) || (range.maximum !== undefined && number > range.maximum))) {
        fail(path, `must be ${rangeText(field.kind, range.minimum, range.maximum)}`);
      }
      return number;
    }
    case "timestamp":
    case "date":
    case "duration":
    case "bytes":
    case "uint64":
    case "int64_string": {
      const text = canonicalText(field.kind, value);
      if (text === undefined) fail(path, VALUE_TEXTS[field.kind]);
      if (check.mode === "full" && rule && field.kind === "bytes") {
        // Lengths of bytes count bytes: 3 for every 4 base64 characters, less the padding.
        const size = (text.length / 4) * 3 - (text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0);
        if (rule.minLength !== undefined && size < rule.minLength) fail(path, `must be at least ${rule.minLength} bytes`);
        if (rule.maxLength !== undefined && size > rule.maxLength) fail(path, `must be at most ${rule.maxLength} bytes`);
      }
      return text;
    }
    case "map": {
      if (field.value === undefined) {
        if (!isMapOfStrings(value)) fail(path, VALUE_TEXTS.map);
        return value;
      }
      if (!isObject(value)) fail(path, VALUE_TEXTS.object);
      // Each value is checked as a single field of the map's value kind (fromEntries: __proto__ stays a key).
      const valueField = mapValueField(field);
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, checkValue(schema, valueField, undefined, item, `${path}.${key}`, check)]));
    }
    case "json":
      if (!isObject(value)) fail(path, VALUE_TEXTS.json);
      if (check.mode === "full") {
        const { jsonDepth, jsonBytes } = check.rules.limits;
        if (jsonDepthExceeds(value, jsonDepth)) fail(path, `must be nested at most ${jsonDepth} levels deep`);
        if (jsonTooLarge(value, jsonBytes)) fail(path, `must be at most ${jsonBytes} bytes as JSON`);
      }
      return value;
    case "enum": {
      const values = schema.enums[field.ref!]!.values;
      if (typeof value !== "string" || !Object.hasOwn(values, value)) fail(path, VALUE_TEXTS.enum.replace("{values}", Object.keys(values).join(", ")));
      return value;
    }
    case "message":
      return walkMessage(schema, field.ref!, value, path, check);
    default:
      return unknownKind(field.kind);
  }
}

const fieldNames = new WeakMap<object, Set<string>>();
function fieldNamesOf(message: MessageSchema["messages"][string]): Set<string> {
  let names = fieldNames.get(message);
  if (!names) fieldNames.set(message, (names = new Set(message.fields.map((f) => f.name))));
  return names;
}

const NO_RULES: Readonly<Record<string, FieldRules>> = {};

/**
 * The rules of a message's fields in field order, and whether any of them relates two fields
 * (requiredIf, sameAs), looked up once per message and rules object: every call would otherwise
 * look each field's rules up by name twice (a megamorphic keyed load each), and walk the fields a
 * second time for cross-field rules most messages do not have.
 */
interface FieldRuleList {
  readonly rules: readonly (FieldRules | undefined)[];
  readonly crossField: boolean;
}
const fieldRuleLists = new WeakMap<object, WeakMap<object, FieldRuleList>>();
function fieldRuleList(message: MessageSchema["messages"][string], rules: Readonly<Record<string, FieldRules>>): FieldRuleList {
  let byMessage = fieldRuleLists.get(rules);
  if (!byMessage) fieldRuleLists.set(rules, (byMessage = new WeakMap()));
  let list = byMessage.get(message);
  if (!list) {
    const ordered = message.fields.map((field) => rules[field.name]);
    list = { rules: ordered, crossField: ordered.some((rule) => rule !== undefined && (rule.requiredIf !== undefined || rule.sameAs !== undefined)) };
    byMessage.set(message, list);
  }
  return list;
}

/**
 * The items of a list field, checked. A function of its own: a closure over the loop's `field`,
 * `rule` and `path` inside checkMessage would make V8 allocate a context for every field of every
 * input (about 100 bytes a field), lists or not.
 */
function checkList(schema: MessageSchema, field: FieldSpec, rule: FieldRules | undefined, items: unknown[], path: string, check: Check): unknown[] {
  return items.map((item, index) => checkValue(schema, field, rule, item, `${path}[${index}]`, check));
}

function walkMessage(schema: MessageSchema, messageName: string, value: unknown, prefix: string, check: Check): Plain {
  if (!isObject(value)) fail(prefix || "request", VALUE_TEXTS.object);
  const message = schema.messages[messageName]!;
  const known = fieldNamesOf(message);
  for (const key in value) {
    if (!known.has(key) && key !== message.discriminator) fail(prefix ? `${prefix}.${key}` : key, VALUE_TEXTS.unknownField);
  }
  const ruleList = fieldRuleList(message, check.mode === "full" ? (check.rules.fields[messageName] ?? NO_RULES) : NO_RULES);
  const result: Plain = {};
  const fields = message.fields;
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    const path = prefix ? `${prefix}.${field.name}` : field.name;
    const rule = ruleList.rules[i];
    const raw = value[field.name];
    if (isMissing(field, rule, raw)) {
      if (check.mode === "full") {
        if (field.required) fail(path, "is required");
        if (rule?.default !== undefined) result[field.name] = rule.default;
      }
      continue;
    }
    if (field.list) {
      if (!Array.isArray(raw)) fail(path, VALUE_TEXTS.list);
      if (rule?.minItems !== undefined && raw.length < rule.minItems) fail(path, rule.minItems === 1 ? "must not be empty" : `must have at least ${rule.minItems} items`);
      if (rule?.maxItems !== undefined && raw.length > rule.maxItems) fail(path, `must have at most ${rule.maxItems} items`);
      result[field.name] = checkList(schema, field, rule, raw, path, check);
    } else {
      result[field.name] = checkValue(schema, field, rule, raw, path, check);
    }
  }
  // A union holds exactly one variant, on the wire too (a proto oneof would keep the last of two).
  if (message.oneOf) {
    const given = fields.filter((field) => result[field.name] !== undefined).length;
    if (given !== 1) fail(prefix || "request", VALUE_TEXTS.oneOf.replace("{variants}", fields.map((f) => f.name).join(", ")));
    // Its tag, where the wire carries one, names that variant; the checked value leaves it out.
    const tag = message.discriminator === undefined ? undefined : value[message.discriminator];
    if (tag !== undefined && tag !== null) {
      const variant = fields.find((field) => result[field.name] !== undefined)!.name;
      if (tag !== variant) fail(prefix ? `${prefix}.${message.discriminator}` : message.discriminator!, VALUE_TEXTS.unionTag.replace("{variant}", variant));
    }
  }
  if (check.mode === "full" && ruleList.crossField) {
    for (let i = 0; i < fields.length; i++) {
      const field = fields[i]!;
      const rule = ruleList.rules[i];
      if (!rule) continue;
      const path = prefix ? `${prefix}.${field.name}` : field.name;
      const given = result[field.name];
      const condition = rule.requiredIf;
      if (condition && given === undefined) {
        const other = result[condition.field];
        const applies = condition.equals === undefined ? other !== undefined : other === condition.equals;
        if (applies) fail(path, condition.equals === undefined ? `is required with ${condition.field}` : `is required when ${condition.field} is ${String(condition.equals)}`);
      }
      if (rule.sameAs && given !== undefined && given !== result[rule.sameAs]) fail(path, `does not match ${rule.sameAs}`);
    }
  }
  return result;
}

/** Throws INVALID_ARGUMENT for a value the protobuf encoding would coerce or drop without a word. */
export function checkWireTypes(schema: MessageSchema, operation: OperationSpec, input: unknown): void {
  walkMessage(schema, operation.input, input ?? {}, "", { mode: "wire" });
}

/** The server's full check of a value of message `messageName` at `prefix` (its path; "" for an input): the value checked, with defaults, or INVALID_ARGUMENT. */
export function checkMessage(schema: MessageSchema, rules: ValidationRules, messageName: string, value: unknown, prefix = ""): Plain {
  return walkMessage(schema, messageName, value, prefix, { mode: "full", rules });
}

/** How validateInputWith checks a message: checkMessage, or a function that does the same. */
export type MessageCheck = (messageName: string, value: unknown, prefix: string) => Plain;

/** The validated input of `operation`, with defaults filled in. Throws INVALID_ARGUMENT. */
export function validateInput(schema: MessageSchema, rules: ValidationRules, operation: OperationSpec, input: unknown): Plain {
  return validateInputWith(schema, rules, operation, input, (messageName, value, prefix) => checkMessage(schema, rules, messageName, value, prefix));
}

/** validateInput with `check` checking each message (the server's compiled checks, which give the same answers). */
export function validateInputWith(schema: MessageSchema, rules: ValidationRules, operation: OperationSpec, input: unknown, check: MessageCheck): Plain {
  const result = check(operation.input, input ?? {}, "");
  if (operation.pagination?.style === "page" && result.pagination === undefined) {
    // An absent page request is the default page.
    const field = schema.messages[operation.input]!.fields.find((f) => f.name === "pagination")!;
    result.pagination = check(field.ref!, {}, "pagination");
  }
  if (operation.exactlyOneOf.length > 0) {
    const given = operation.exactlyOneOf.filter((name) => result[name] !== undefined);
    if (given.length !== 1) {
      throw new ServiceError("INVALID_ARGUMENT", `give exactly one of ${operation.exactlyOneOf.join(", ")} (got ${given.length === 0 ? "none" : given.join(" and ")})`, operation.exactlyOneOf[0]);
    }
  }
  const atLeastOne = rules.atLeastOneOf[operation.name];
  if (atLeastOne && !atLeastOne.some((name) => result[name] !== undefined)) {
    throw new ServiceError("INVALID_ARGUMENT", `give at least one of ${atLeastOne.join(", ")}`, atLeastOne[0]);
  }
  return result;
}
