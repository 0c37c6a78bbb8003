// The validation rules of the manifest as every contract states them: JSON Schema keywords (OpenAPI
// and the MCP tool catalogue) and sentences (GraphQL and proto comments, the API reference, SDK doc
// comments). One place, so that no contract says less than the server checks.
import { BUILTIN_FORMAT_RULES } from "../../runtime/formats.js";
import { INTEGER_RANGES } from "../../runtime/validate.js";
import type { Ir, IrField, IrMessage, IrOperation } from "../ir/ir.js";

type Schema = Record<string, unknown>;

/**
 * JSON Schema keywords of one value of `field` (an item, for a list): lengths, ranges, formats.
 * A declared set of values is an `enum`, or a `pattern` of the same values where type generators
 * should keep the field a plain string, as the SDKs and GraphQL type it.
 */
export function itemKeywords(ir: Ir, field: IrField, valueSets: "enum" | "pattern" = "enum"): Schema {
  const c = field.constraints;
  const keywords: Schema = {};
  if (field.type.kind === "scalar" && field.type.scalar === "bytes") {
    // JSON Schema counts the characters of the base64 text: n bytes take ceil(4n/3) of them
    // unpadded, 4*ceil(n/3) padded.
    if (c.minLength !== undefined) keywords.minLength = Math.ceil((4 * c.minLength) / 3);
    if (c.maxLength !== undefined) keywords.maxLength = 4 * Math.ceil(c.maxLength / 3);
  } else {
    if (c.minLength !== undefined) keywords.minLength = c.minLength;
    if (c.maxLength !== undefined) keywords.maxLength = c.maxLength;
  }
  if (field.format) {
    const format = ir.formats[field.format]!;
    if (format.values && valueSets === "enum") keywords.enum = format.values;
    if (format.values && valueSets === "pattern") keywords.pattern = `^(?:${format.values.map(escapeRegExp).join("|")})$`;
    if (format.pattern) keywords.pattern = format.pattern;
    if (format.maxLength !== undefined && (c.maxLength === undefined || format.maxLength < c.maxLength)) keywords.maxLength = format.maxLength;
    const jsonSchemaFormat = (BUILTIN_FORMAT_RULES as Record<string, { jsonSchemaFormat?: string }>)[field.format]?.jsonSchemaFormat;
    if (format.builtin && jsonSchemaFormat) keywords.format = jsonSchemaFormat;
  }
  if (c.minimum !== undefined) keywords.minimum = c.minimum;
  if (c.maximum !== undefined) keywords.maximum = c.maximum;
  return keywords;
}

/**
 * JSON Schema keywords of the field itself: list sizes and the default. (openapi-typescript takes
 * a `default` of a component schema to mean the property is always there unless it is run with
 * --default-non-nullable false, as docs/tools.md says.)
 */
export function fieldKeywords(field: IrField): Schema {
  const c = field.constraints;
  return {
    ...(c.minItems !== undefined ? { minItems: c.minItems } : {}),
    ...(c.maxItems !== undefined ? { maxItems: c.maxItems } : {}),
    ...(c.default !== undefined ? { default: c.default } : {}),
  };
}

/**
 * JSON Schema keywords of a request message for the rules that span fields, all under `allOf`:
 * required-if as if/then; at-least-one-of as "if none of the others is given, the last is
 * required"; exactly-one-of as that and "not two of them". (anyOf/oneOf of required fields would
 * say the same, but type generators such as openapi-typescript turn them into wrong unions.)
 * Same-as has no keyword: its sentence is in the field's description. A union (in requests and
 * answers alike) is a oneOf of its variants, each branch requiring its own; `tagged`: a tagged
 * union's branches name their variant by the tag too (and so say the others are not given), as
 * the discriminator keyword expects.
 */
export function messageKeywords(message: IrMessage, properties: Record<string, Schema>, op?: IrOperation, tagged = false): Schema {
  // Each subschema names the properties it requires, with their (non-null) schema, as linters and
  // strict validators ask.
  const fields = new Map(message.fields.map((field) => [field.name, field]));
  // A value the server counts as given: not null, and not an empty list or map, nor "" where that means unset.
  const given = (name: string): Schema => {
    const field = fields.get(name);
    const schema = nonNull(properties[name] ?? {});
    if (field?.list) return (field.constraints.minItems ?? 0) >= 1 ? schema : { ...schema, minItems: 1 };
    if (field?.type.kind === "scalar" && field.type.scalar === "map") return { ...schema, minProperties: 1 };
    if (field?.constraints.emptyMeansUnset && (field.constraints.minLength ?? 0) < 1) return { ...schema, minLength: 1 };
    return schema;
  };
  const requires = (names: string[], property?: Schema): Schema => ({
    required: names,
    properties: Object.fromEntries(names.map((name) => [name, property ?? given(name)])),
  });
  const anyOf = (schemas: Schema[]): Schema => (schemas.length === 1 ? schemas[0]! : { anyOf: schemas });
  const atLeastOne = (names: string[]): Schema => ({
    if: { not: anyOf(names.slice(0, -1).map((name) => requires([name]))) },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, not a thenable
    then: requires([names.at(-1)!]),
  });
  const all: Schema[] = [];
  for (const field of message.fields) {
    const condition = field.constraints.requiredIf;
    if (!condition) continue;
    const when = condition.equals === undefined ? requires([condition.field]) : requires([condition.field], { const: condition.equals });
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, not a thenable
    all.push({ if: when, then: requires([field.name]) });
  }
  if (op && op.atLeastOneOf.length > 0) all.push(atLeastOne(op.atLeastOneOf));
  if (op && op.exactlyOneOf.length > 0) {
    const names = op.exactlyOneOf;
    const pairs = names.flatMap((a, i) => names.slice(i + 1).map((b) => requires([a, b])));
    all.push(atLeastOne(names), { not: anyOf(pairs) });
  }
  // A value the server counts as not given: absent or null (or empty, where that means unset).
  const notGiven = (name: string): Schema => {
    const field = fields.get(name)!;
    const empty = (field.type.kind === "scalar" && field.type.scalar === "map") || field.constraints.emptyMeansUnset;
    return empty ? { not: given(name) } : { type: "null" };
  };
  const tag = tagged ? message.discriminator?.property : undefined;
  const branch = (name: string): Schema =>
    tag === undefined
      ? requires([name])
      : {
          type: "object",
          required: [tag, name],
          properties: { [tag]: { const: name }, ...Object.fromEntries(message.fields.map((field) => [field.name, field.name === name ? given(name) : notGiven(field.name)])) },
        };
  // A union: exactly one variant given, a branch each, named by the variant (and by the tag of a tagged union).
  const union = message.oneOf ? { oneOf: message.fields.map((field) => branch(field.name)) } : {};
  return all.length === 0 ? union : { allOf: all, ...union };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A property schema without its null alternative: what a given value must be. */
function nonNull(schema: Schema): Schema {
  const { description: _description, ...rest } = schema;
  if (Array.isArray(rest.type)) {
    const types = (rest.type as string[]).filter((t) => t !== "null");
    return { ...rest, type: types.length === 1 ? types[0] : types };
  }
  if (Array.isArray(rest.anyOf)) {
    const options = (rest.anyOf as Schema[]).filter((option) => option.type !== "null");
    if (options.length === 1) return options[0]!;
  }
  return rest;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The rules of an input field in words, such as "6 to 256 characters. Must match password." */
export function fieldRuleSentences(ir: Ir, field: IrField): string[] {
  const c = field.constraints;
  const sentences: string[] = [];
  const range = (min: number | undefined, max: number | undefined, unit: (n: number) => string) =>
    min !== undefined && max !== undefined ? `${min} to ${unit(max)}` : min !== undefined ? `At least ${unit(min)}` : `At most ${unit(max!)}`;
  const scalar = field.type.kind === "scalar" ? field.type.scalar : undefined;
  if (field.list && (c.minItems !== undefined || c.maxItems !== undefined)) sentences.push(`${range(c.minItems, c.maxItems, (n) => plural(n, "item"))}.`);
  const each = field.list ? "Each " : "";
  if (c.minLength === 1 && c.maxLength === undefined) {
    sentences.push(field.list ? "Each not empty." : "Not empty.");
  } else if (c.minLength !== undefined || c.maxLength !== undefined) {
    const text = range(c.minLength, c.maxLength, (n) => plural(n, scalar === "bytes" ? "byte" : "character"));
    sentences.push(`${each}${each ? text.charAt(0).toLowerCase() + text.slice(1) : text}.`);
  }
  if (field.format) {
    const format = ir.formats[field.format]!;
    const must = format.values ? `one of ${format.values.join(", ")}` : format.description;
    sentences.push(`${field.list ? "Each must" : "Must"} be ${must}.`);
  }
  // Integer bounds are stated only where the manifest narrows the type's own range.
  const natural = scalar === "int32" || scalar === "int64" || scalar === "uint32" || scalar === "float32" ? INTEGER_RANGES[scalar] : undefined;
  const minimum = c.minimum !== natural?.minimum ? c.minimum : undefined;
  const maximum = c.maximum !== natural?.maximum ? c.maximum : undefined;
  if (minimum !== undefined && maximum !== undefined) sentences.push(`Between ${minimum} and ${maximum}.`);
  else if (minimum !== undefined) sentences.push(`${minimum} or more.`);
  else if (maximum !== undefined) sentences.push(`${maximum} or less.`);
  if (c.default !== undefined) sentences.push(`Default ${String(c.default)}.`);
  if (c.requiredIf) sentences.push(c.requiredIf.equals === undefined ? `Required with ${c.requiredIf.field}.` : `Required when ${c.requiredIf.field} is ${String(c.requiredIf.equals)}.`);
  if (c.sameAs) sentences.push(`Must match ${c.sameAs}.`);
  if (c.emptyMeansUnset) sentences.push("An empty string means not given.");
  if (scalar === "json") sentences.push(`At most ${ir.api.limits.jsonDepth} levels deep and ${ir.api.limits.jsonBytes} bytes as JSON.`);
  return sentences;
}

/** The rules of an operation that span its input fields, in words. */
export function operationRuleSentences(op: IrOperation): string[] {
  return [
    ...(op.exactlyOneOf.length > 0 ? [`Give exactly one of ${op.exactlyOneOf.join(", ")}.`] : []),
    ...(op.atLeastOneOf.length > 0 ? [`Give at least one of ${op.atLeastOneOf.join(", ")}.`] : []),
  ];
}

/**
 * What a write that takes an Idempotency-Key promises (runtime/server/idempotency.ts), as every
 * contract states it; empty for the others.
 */
export function idempotencySentences(op: IrOperation): string[] {
  if (!op.idempotencyKey) return [];
  return [
    "Takes an Idempotency-Key (HTTP header; gRPC metadata idempotency-key, 1 to 255 printable ASCII characters): a repeat with the same key and input is answered the first answer, marked Idempotent-Replayed: true, for 24 hours, without running again; the key with another input is INVALID_ARGUMENT, a repeat while the first runs UNAVAILABLE with Retry-After.",
  ];
}

/** A field's description followed by its rules (inputs only; answers carry no rules). */
export function describedField(ir: Ir, field: IrField, asInput: boolean): string {
  return [field.description, ...(asInput ? fieldRuleSentences(ir, field) : [])].filter(Boolean).join(" ");
}

/** What a union is, in the API reference: its variants, and its tag where it has one. */
export function unionSentence(message: IrMessage): string {
  if (!message.oneOf) return "";
  const variants = message.fields.map((field) => `\`${field.name}\``).join(", ");
  const tag = message.discriminator?.property;
  return `A union: exactly one of ${variants} is given.${tag ? ` On JSON its tag \`${tag}\` names that one: every answer carries it, and a REST request must.` : ""}`;
}

/** A tagged union's tag: the name of the variant its value holds. */
export function unionTagSchema(message: IrMessage): Schema {
  const names = message.fields.map((field) => field.name);
  return { description: `Which variant is given: ${names.join(", ")}.`, type: "string", enum: names };
}
