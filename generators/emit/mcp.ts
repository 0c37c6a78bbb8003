// A tool catalogue for AI agents: one Model Context Protocol tool definition per operation, with
// JSON Schema (draft 2020-12) of its input and answer, the behaviour hints of MCP tool annotations,
// and the protocols, minimum versions and auth of the operation as extensions.
import { PROTOCOLS, enumByName, messageByName, type Ir, type IrField, type IrMessage, type IrOperation, type Scalar } from "../ir.js";
import type { GeneratedFile } from "../writer.js";
import { SLUG_MAX_LENGTH, SLUG_PATTERN } from "../../runtime/validate.js";

export const MCP_TOOLS_PATH = "generated/mcp/tools.json";

const JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema";

type JsonSchema = Record<string, unknown>;

const SCALAR_SCHEMA: Record<Scalar, JsonSchema> = {
  string: { type: "string" },
  bool: { type: "boolean" },
  int32: { type: "integer", minimum: -2147483648, maximum: 2147483647 },
  int64: { type: "integer" },
  float64: { type: "number" },
  map: { type: "object", additionalProperties: { type: "string" } },
  json: { type: "object" },
};

const FORMAT_SCHEMA: Record<NonNullable<IrField["format"]>, JsonSchema> = {
  email: { format: "email" },
  url: { format: "uri" },
  domain: { format: "hostname" },
  slug: { pattern: SLUG_PATTERN, maxLength: SLUG_MAX_LENGTH },
};

/**
 * Builds the schema of one top-level message. Nested messages and enums go under $defs, each once.
 * Input fields may be absent unless required; answer fields are always present, and null when unset
 * unless required (lists and maps are empty instead), as every client and protocol answers them.
 */
class SchemaBuilder {
  private readonly defs = new Map<string, JsonSchema>();

  constructor(
    private readonly ir: Ir,
    private readonly direction: "input" | "output",
  ) {}

  build(message: IrMessage): JsonSchema {
    const body = this.object(message);
    const defs = Object.fromEntries([...this.defs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    return { $schema: JSON_SCHEMA_DIALECT, ...body, ...(this.defs.size > 0 ? { $defs: defs } : {}) };
  }

  private object(message: IrMessage): JsonSchema {
    const properties = Object.fromEntries(message.fields.map((f) => [f.name, this.field(f)]));
    const required = this.direction === "output" ? message.fields.map((f) => f.name) : message.fields.filter((f) => f.required).map((f) => f.name);
    return {
      type: "object",
      ...(message.description ? { description: message.description } : {}),
      properties,
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: false,
    };
  }

  private ref(name: string, define: () => JsonSchema): JsonSchema {
    if (!this.defs.has(name)) {
      this.defs.set(name, {}); // placeholder first: a message that refers to itself stops here
      this.defs.set(name, define());
    }
    return { $ref: `#/$defs/${name}` };
  }

  private field(field: IrField): JsonSchema {
    const type = field.type;
    let item: JsonSchema;
    if (type.kind === "scalar") item = { ...SCALAR_SCHEMA[type.scalar], ...(field.format ? FORMAT_SCHEMA[field.format] : {}) };
    else if (type.kind === "enum") {
      const irEnum = enumByName(this.ir, type.name);
      item = this.ref(irEnum.name, () => ({ type: "string", ...(irEnum.description ? { description: irEnum.description } : {}), enum: irEnum.values.map((v) => v.name) }));
    } else {
      const message = messageByName(this.ir, type.name);
      item = this.ref(message.name, () => this.object(message));
    }
    let schema: JsonSchema = field.list ? { type: "array", items: item } : item;
    const alwaysSet = field.alwaysInAnswer;
    if (this.direction === "output" && !alwaysSet) {
      schema = typeof schema.type === "string" ? { ...schema, type: [schema.type, "null"] } : { anyOf: [schema, { type: "null" }] };
    }
    const description = [field.description, field.secret ? "Secret." : "", field.format === "slug" ? "A URL-safe slug." : ""].filter(Boolean).join(" ");
    return {
      ...(description ? { description } : {}),
      ...schema,
      ...(field.secret && this.direction === "input" ? { writeOnly: true } : {}),
      ...(field.deprecated ? { deprecated: true } : {}),
    };
  }
}

function toolOf(ir: Ir, op: IrOperation): JsonSchema {
  const description = [op.description, op.destructive ? "Destructive." : "", op.deprecated ? `Deprecated: ${op.deprecated}.` : ""].filter(Boolean).join(" ");
  return {
    name: op.name,
    title: op.title,
    description,
    inputSchema: new SchemaBuilder(ir, "input").build(op.input),
    outputSchema: new SchemaBuilder(ir, "output").build(op.output),
    annotations: {
      title: op.title,
      readOnlyHint: op.kind === "read",
      destructiveHint: op.destructive,
      idempotentHint: op.idempotent,
      openWorldHint: false,
    },
    "x-protocols": op.protocols,
    "x-min-versions": Object.fromEntries(PROTOCOLS.flatMap((p) => (op[p] ? [[p, op[p].since]] : []))),
    "x-auth": op.auth,
  };
}

export function emitMcpTools(ir: Ir): GeneratedFile[] {
  const catalogue = { tools: ir.operations.map((op) => toolOf(ir, op)) };
  return [{ path: MCP_TOOLS_PATH, content: `${JSON.stringify(catalogue, null, 2)}\n`, header: false }];
}
