// The server's per-message codecs, compiled once at start from the schema and the rules: the input
// check of validate.ts, the flat answer of shape.ts, its required fields and its JSON text, as straight-line
// functions with every field name, rule and enum table fixed. A generic walk looks each field up
// by a name it holds in a variable, which V8 serves through its slowest (megamorphic) property
// paths; here every access names its field. The generic functions stay the definition: a check
// that meets anything unusual (a wrong value, a missing required field) hands the whole message to
// checkMessage of validate.ts, which gives the error, so errors and their order are the generic
// ones by construction. Server only: clients (which may run under a CSP forbidding `new Function`)
// keep the generic ones.
import { mapValueField, unknownKind, type ApiSchema, type FieldSpec, type MessageSpec, type OperationSpec } from "../schema.js";
import { compareCodePoints, formatCheck, INTEGER_RANGES, jsonWithinLimits, validateInputWith, checkMessage, type FieldRules, type ValidationRules } from "../validate.js";
import { canonicalText } from "../wire-values.js";
import { enumValueName, isMapOfStrings, isObject, mapValues, missingRequiredField, normalizeMessage } from "../shape.js";

type Plain = Record<string, unknown>;
type Check = (value: unknown, prefix: string) => Plain;
type Normalize = (value: unknown) => Plain;
type MissingField = (value: Plain, prefix: string) => string | undefined;
type Json = (value: Plain) => string;

/** A field name any access can spell as a constant key (not `__proto__`, which a literal would read as the prototype). */
const plainName = (name: string) => name !== "__proto__";
const key = (name: string) => JSON.stringify(name);
/** A message's name as part of a function's name (which profiles show). */
const identifier = (name: string) => name.replace(/[^A-Za-z0-9_$]/g, "_");

const EMPTY: Plain = Object.freeze({}) as Plain;
/** Kinds whose normalized value is a JSON number. */
const NUMBER_KINDS: ReadonlySet<string> = new Set(["int32", "int64", "uint32", "float32", "float64"]);

/**
 * Whether the compiled JSON writer beats JSON.stringify on a message: when most of its fields are
 * booleans, numbers or messages, whose text is a constant or a number's. A string, a list or a
 * json value takes a call of JSON.stringify and a piece to join either way, where JSON.stringify
 * of the whole message writes it in its native loop: on a message of mostly strings (User: 14 of
 * 20) the writer came out 10-25% slower, on AdminMeta (13 booleans of 17 fields) 40% faster.
 */
function writesFaster(message: MessageSpec): boolean {
  const cheap = message.fields.filter((field) => !field.list && (field.kind === "bool" || field.kind === "message" || NUMBER_KINDS.has(field.kind))).length;
  return cheap * 2 > message.fields.length;
}

/** What the server does with the messages of one operation, compiled. */
export interface OperationCodec {
  /** validateInput of validate.ts: the input checked, with defaults, or INVALID_ARGUMENT. */
  validate(input: unknown): Plain;
  /** normalizeMessage of shape.ts: the implementation's answer in the flat shape. */
  normalize(answer: unknown): Plain;
  /** missingRequiredField of shape.ts on a normalized answer: the path of a required field it lacks, if any. */
  missingField(output: Plain): string | undefined;
  /** JSON.stringify of a normalized answer: the same text, written field by field. */
  json(output: Plain): string;
}

export class CompiledCodecs {
  private readonly checks = new Map<string, Check>();
  private readonly normalizers = new Map<string, Normalize>();
  private readonly missingFields = new Map<string, MissingField>();
  private readonly jsons = new Map<string, Json>();
  private readonly jsonWriters = new Map<string, Json>();
  private readonly operations = new Map<string, OperationCodec>();
  /** The check and the normalizer of a message by name, bound late: messages refer to each other, and to themselves. */
  private readonly checkOf = (messageName: string, value: unknown, prefix: string) => this.checks.get(messageName)!(value, prefix);
  private readonly normalizeOf = (messageName: string, value: unknown) => this.normalizers.get(messageName)!(value);
  private readonly missingFieldOf = (messageName: string, value: Plain, prefix: string) => this.missingFields.get(messageName)!(value, prefix);
  private readonly jsonOf = (messageName: string, value: Plain) => this.jsons.get(messageName)!(value);

  constructor(
    private readonly schema: ApiSchema,
    private readonly rules: ValidationRules,
  ) {
    for (const message of Object.values(schema.messages)) {
      // A tagged union (rare) takes the general path, which writes its tag.
      const compilable = message.discriminator === undefined && message.fields.every((field) => plainName(field.name));
      this.checks.set(message.name, compilable ? this.compileCheck(message) : (value, prefix) => checkMessage(schema, rules, message.name, value, prefix));
      this.normalizers.set(message.name, compilable ? this.compileNormalize(message) : (value) => normalizeMessage(schema, message.name, value));
      this.missingFields.set(message.name, compilable ? this.compileMissingField(message) : (value, prefix) => missingRequiredField(schema, message.name, value, prefix));
      // JSON.stringify puts index-like keys first and calls a toJSON it finds: such a message is left to it.
      const writer = compilable && message.fields.every((field) => !/^(0|[1-9][0-9]*)$/.test(field.name) && field.name !== "toJSON") ? this.compileJson(message) : undefined;
      if (writer) this.jsonWriters.set(message.name, writer);
      this.jsons.set(message.name, writer && writesFaster(message) ? writer : (value) => JSON.stringify(value));
    }
    for (const operation of Object.values(schema.operations)) {
      const normalize = this.normalizers.get(operation.output)!;
      const missingField = this.missingFields.get(operation.output)!;
      const json = this.jsons.get(operation.output)!;
      this.operations.set(operation.name, {
        validate: (input) => validateInputWith(schema, rules, operation, input, this.checkOf),
        normalize,
        missingField: (output) => missingField(output, ""),
        json,
      });
    }
  }

  /** The compiled JSON writer of a message, whether or not its answers use it (see writesFaster); undefined when it has none. */
  jsonWriter(messageName: string): ((value: Plain) => string) | undefined {
    return this.jsonWriters.get(messageName);
  }

  /** The codec of an operation of the schema. */
  of(operation: OperationSpec): OperationCodec {
    return this.operations.get(operation.name)!;
  }

  private compileCheck(message: MessageSpec): Check {
    const { schema, rules } = this;
    // A union (exactly one variant) is rare: the full check counts its variants.
    if (message.oneOf) return (value, prefix) => checkMessage(schema, rules, message.name, value, prefix);
    const fieldRules: Readonly<Record<string, FieldRules>> = rules.fields[message.name] ?? {};
    const constants: unknown[] = [];
    const constant = (value: unknown) => `C[${constants.push(value) - 1}]`;
    const slow = `return slow(value, prefix);`;
    const lines: string[] = [];
    lines.push(`if (typeof value !== "object" || value === null || Array.isArray(value)) ${slow}`);
    if (message.fields.length > 0) {
      lines.push(`for (const k in value) { switch (k) { ${message.fields.map((f) => `case ${key(f.name)}:`).join(" ")} break; default: ${slow} } }`);
    } else {
      lines.push(`for (const k in value) ${slow}`);
    }
    lines.push(`const r = {}; let v, w;`);
    /** An expression: whether `item` passes the field's check, setting `w` to the value to keep. */
    const valueCheck = (field: FieldSpec, rule: FieldRules | undefined, item: string, path: string): string => {
      switch (field.kind) {
        case "string": {
          const parts = [`typeof ${item} === "string"`];
          if (rule?.minLength !== undefined) parts.push(`cmp(${item}, ${rule.minLength}) >= 0`);
          if (rule?.maxLength !== undefined) parts.push(`cmp(${item}, ${rule.maxLength}) <= 0`);
          if (rule?.format !== undefined) parts.push(`${constant(formatCheck(rules, rule.format).test)}(${item})`);
          return `(${parts.join(" && ")}) && ((w = ${item}), true)`;
        }
        case "bool":
          return `typeof ${item} === "boolean" && ((w = ${item}), true)`;
        case "int32":
        case "int64":
        case "uint32":
        case "float32":
        case "float64": {
          const parts = [`typeof w === "number"`, `Number.isFinite(w)`];
          if (field.kind !== "float64" && field.kind !== "float32") parts.push(`Number.isInteger(w)`);
          if (field.kind !== "float64") parts.push(`w >= ${INTEGER_RANGES[field.kind].minimum}`, `w <= ${INTEGER_RANGES[field.kind].maximum}`);
          if (rule?.minimum !== undefined) parts.push(`w >= ${rule.minimum}`);
          if (rule?.maximum !== undefined) parts.push(`w <= ${rule.maximum}`);
          return `((w = typeof ${item} === "bigint" ? Number(${item}) : ${item}), ${parts.join(" && ")})`;
        }
        case "timestamp":
        case "date":
        case "duration":
        case "uint64":
        case "int64_string":
          return `(w = text(${key(field.kind)}, ${item})) !== undefined`;
        case "bytes":
          // Byte lengths are counted by the full check.
          return rule?.minLength !== undefined || rule?.maxLength !== undefined ? "false" : `(w = text("bytes", ${item})) !== undefined`;
        case "map":
          // A map of other values than strings is checked value by value by the full check.
          return field.value === undefined ? `isMap(${item}) && ((w = ${item}), true)` : "false";
        case "json":
          return `jsonOk(${item}) && ((w = ${item}), true)`;
        case "enum":
          return `typeof ${item} === "string" && hasOwn(${constant(schema.enums[field.ref!]!.values)}, ${item}) && ((w = ${item}), true)`;
        case "message":
          return `((w = check(${key(field.ref!)}, ${item}, ${path})), true)`;
        default:
          return unknownKind(field.kind);
      }
    };
    for (const field of message.fields) {
      const rule = fieldRules[field.name];
      const path = `(prefix ? prefix + ${key(`.${field.name}`)} : ${key(field.name)})`;
      const missing = ["v === undefined", "v === null"];
      if (rule?.emptyMeansUnset) missing.push(`v === ""`);
      if (field.list) missing.push(`(Array.isArray(v) && v.length === 0)`);
      else if (field.kind === "map") missing.push(`(isObject(v) && Object.keys(v).length === 0)`);
      lines.push(`v = value[${key(field.name)}];`);
      const whenMissing = field.required ? slow : rule?.default !== undefined ? `r[${key(field.name)}] = ${constant(rule.default)};` : "";
      if (field.list) {
        const bounds = [`!Array.isArray(v)`];
        if (rule?.minItems !== undefined) bounds.push(`v.length < ${rule.minItems}`);
        if (rule?.maxItems !== undefined) bounds.push(`v.length > ${rule.maxItems}`);
        lines.push(
          `if (${missing.join(" || ")}) { ${whenMissing} } else {`,
          `  if (${bounds.join(" || ")}) ${slow}`,
          `  const items = [];`,
          `  for (let i = 0; i < v.length; i++) { const item = v[i]; if (!(${valueCheck(field, rule, "item", `${path} + "[" + i + "]"`)})) ${slow} items.push(w); }`,
          `  r[${key(field.name)}] = items;`,
          `}`,
        );
      } else {
        lines.push(`if (${missing.join(" || ")}) { ${whenMissing} } else { if (!(${valueCheck(field, rule, "v", path)})) ${slow} r[${key(field.name)}] = w; }`);
      }
    }
    // Rules that relate two fields, once every field is known (as checkMessage does).
    for (const field of message.fields) {
      const rule = fieldRules[field.name];
      const given = `r[${key(field.name)}]`;
      const condition = rule?.requiredIf;
      if (condition) {
        const other = `r[${key(condition.field)}]`;
        const applies = condition.equals === undefined ? `${other} !== undefined` : `${other} === ${constant(condition.equals)}`;
        lines.push(`if (${given} === undefined && ${applies}) ${slow}`);
      }
      if (rule?.sameAs) lines.push(`if (${given} !== undefined && ${given} !== r[${key(rule.sameAs)}]) ${slow}`);
    }
    lines.push(`return r;`);
    const slowCheck = (value: unknown, prefix: string) => checkMessage(schema, rules, message.name, value, prefix);
    const { jsonDepth, jsonBytes } = rules.limits;
    const jsonOk = (value: unknown) => isObject(value) && jsonWithinLimits(value, jsonDepth, jsonBytes);
    return compile(
      `return function check_${identifier(message.name)}(value, prefix) {\n${lines.join("\n")}\n};`,
      ["C", "slow", "check", "cmp", "isMap", "isObject", "jsonOk", "hasOwn", "text"],
      [constants, slowCheck, this.checkOf, compareCodePoints, isMapOfStrings, isObject, jsonOk, Object.hasOwn, canonicalText],
    );
  }

  private compileNormalize(message: MessageSpec): Normalize {
    const { schema } = this;
    const constants: unknown[] = [];
    const constant = (value: unknown) => `C[${constants.push(value) - 1}]`;
    /** An expression: `item` (neither undefined nor null for a single value) as the field's value. */
    const value = (field: FieldSpec, item: string): string => {
      switch (field.kind) {
        case "int32":
        case "int64":
        case "uint32":
        case "float32":
        case "float64":
          return `(typeof ${item} === "bigint" ? Number(${item}) : typeof ${item} === "string" && ${item}.trim() !== "" ? Number(${item}) : ${item})`;
        case "timestamp":
        case "date":
        case "duration":
        case "bytes":
        case "uint64":
        case "int64_string":
          return `(text(${key(field.kind)}, ${item}) ?? ${item})`;
        case "enum":
          return `(typeof ${item} === "number" ? enumName(${constant(field.ref)}, ${item}) : ${item})`;
        case "message":
          return `normalize(${key(field.ref!)}, ${item})`;
        case "string":
        case "bool":
        case "map":
        case "json":
          return item;
        default:
          return unknownKind(field.kind);
      }
    };
    const entries = message.fields.map((field) => {
      const read = `(v = s[${key(field.name)}])`;
      if (field.list) return `${key(field.name)}: Array.isArray${read} ? v.map((item) => ${value(field, "item")}) : []`;
      if (field.kind === "map") {
        // map<V>: each value as a single field of V, as normalizeMessage reads it.
        if (field.value !== undefined) return `${key(field.name)}: isObject${read} ? mapValues(v, (item) => ${value(mapValueField(field), "item")}) : {}`;
        return `${key(field.name)}: isObject${read} ? { ...v } : {}`;
      }
      return `${key(field.name)}: ${read} === undefined || v === null ? null : ${value(field, "v")}`;
    });
    return compile(
      `return function normalize_${identifier(message.name)}(value) {\nconst s = isObject(value) ? value : EMPTY; let v;\nreturn { ${entries.join(",\n")} };\n};`,
      ["C", "normalize", "enumName", "isObject", "EMPTY", "text", "mapValues"],
      [constants, this.normalizeOf, (ref: string, number: number) => enumValueName(schema, ref, number), isObject, EMPTY, canonicalText, mapValues],
    );
  }

  /**
   * JSON.stringify of one message in the normalized shape, as one concatenation with the keys as
   * constants: the generic walk enumerates the keys and looks each value's type up, about half of
   * its cost on a small answer. Each field takes its expected type at once (a string through
   * JSON.stringify, which escapes it); any other value goes through JSON.stringify too (toJSON,
   * non-finite numbers, a bigint's TypeError), and a value that JSON.stringify would leave out
   * hands the whole message to it. The normalized shape has every field, in field order.
   */
  private compileJson(message: MessageSpec): Json {
    const lines = message.fields.map((field, index) => {
      const name = `${index === 0 ? "{" : ","}${key(field.name)}:`;
      // The key and a constant value as one piece: half the pieces to join.
      const put = (text: string) => `o += ${key(name + text)};`;
      const putValue = (expression: string) => `o += ${key(name)} + ${expression};`;
      // Any value: its JSON text, or the whole message's when JSON.stringify would leave the key out
      // (undefined, a function, a symbol, a toJSON answering one of these).
      const other = `if ((t = J(v)) === undefined) return J(s); ${putValue("t")}`;
      let expected: string;
      if (field.list && field.kind === "message") {
        expected =
          `if (Array.isArray(v)) { o += ${key(name + "[")}; for (let i = 0; i < v.length; i++) { const item = v[i]; ` +
          `if (item === null || typeof item !== "object" || Array.isArray(item)) return J(s); t = json(${key(field.ref!)}, item); o += (i === 0 ? "" : ",") + (t === undefined ? "null" : t); } o += "]"; } else`;
      } else if (field.list || field.kind === "map" || field.kind === "json") {
        expected = "";
      } else if (field.kind === "bool") {
        expected = `if (v === true) ${put("true")} else if (v === false) ${put("false")} else`;
      } else if (field.kind === "message") {
        expected = `if (v !== null && typeof v === "object" && !Array.isArray(v)) { if ((t = json(${key(field.ref!)}, v)) === undefined) return J(s); ${putValue("t")} } else`;
      } else if (NUMBER_KINDS.has(field.kind)) {
        // ToString of a finite number is JSON's text of it.
        expected = `if (typeof v === "number" && Number.isFinite(v)) ${putValue("v")} else`;
      } else {
        expected = `if (typeof v === "string") ${putValue("J(v)")} else`;
      }
      return `v = s[${key(field.name)}];\n${expected} if (v === null) ${put("null")} else { ${other} }`;
    });
    return compile(
      `return function json_${identifier(message.name)}(s) {\nlet o = "", v, t;\n${lines.join("\n")}\nreturn o + ${message.fields.length === 0 ? `"{}"` : `"}"`};\n};`,
      ["J", "json"],
      [JSON.stringify, this.jsonOf],
    );
  }

  /**
   * Whether a message, or one it holds at any depth, has a required single field: only then can a
   * normalized answer lack one (lists and maps are never null there).
   */
  private canLackField(messageName: string, seen = new Set<string>()): boolean {
    if (seen.has(messageName)) return false;
    seen.add(messageName);
    return this.schema.messages[messageName]!.fields.some((field) => (field.required && !field.list) || (field.kind === "message" && this.canLackField(field.ref!, seen)));
  }

  /** missingRequiredField of one message, on the normalized shape (every field present, lists as arrays). */
  private compileMissingField(message: MessageSpec): MissingField {
    const lines: string[] = [];
    for (const field of message.fields) {
      const path = `(prefix ? prefix + ${key(`.${field.name}`)} : ${key(field.name)})`;
      const required = field.required && !field.list;
      const nested = field.kind === "message" && this.canLackField(field.ref!);
      if (!required && !nested) continue;
      lines.push(`v = value[${key(field.name)}];`);
      if (required) lines.push(`if (v === null) return ${path};`);
      if (nested && field.list) {
        lines.push(`if (v !== null) for (let i = 0; i < v.length; i++) { m = missing(${key(field.ref!)}, v[i], ${path} + "[" + i + "]"); if (m) return m; }`);
      } else if (nested) {
        lines.push(`if (v !== null) { m = missing(${key(field.ref!)}, v, ${path}); if (m) return m; }`);
      }
    }
    return compile(`return function missing_${identifier(message.name)}(value, prefix) {\nlet v, m;\n${lines.join("\n")}\nreturn undefined;\n};`, ["missing"], [this.missingFieldOf]);
  }
}

/** Evaluates the source of one function, given the values it closes over by name. */
function compile<T>(source: string, names: readonly string[], values: readonly unknown[]): T {
  return new Function(...names, source)(...values) as T;
}
